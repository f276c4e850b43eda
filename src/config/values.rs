//! The value types of config.json's keys. Each takes only what it can hold (a user id is a positive
//! whole number) and says what it expects in its own words, which serde puts in its message (`expected a
//! folder path as a string, found a number`). Settings' ranges, the token's shape, the API URL and what
//! depends on other keys or the environment are checked afterwards, by `ConfigFile::validate`.

use std::fmt;
use std::path::{Path, PathBuf};

use serde::de::{self, Deserializer, MapAccess, SeqAccess, Unexpected, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use tracing::level_filters::LevelFilter;

use super::paths::expand_tilde;

/// A Telegram user id: a positive whole number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct UserId(u64);

impl UserId {
    /// `None` for 0, which no Telegram user has.
    #[must_use]
    pub fn new(id: u64) -> Option<UserId> {
        (id > 0).then_some(UserId(id))
    }

    #[must_use]
    pub fn get(self) -> u64 {
        self.0
    }
}

impl<'de> Deserialize<'de> for UserId {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Id;
        impl Visitor<'_> for Id {
            type Value = UserId;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a Telegram user id (a positive whole number)")
            }
            fn visit_u64<E: de::Error>(self, id: u64) -> Result<UserId, E> {
                UserId::new(id).ok_or_else(|| E::invalid_value(Unexpected::Unsigned(id), &self))
            }
            fn visit_i64<E: de::Error>(self, id: i64) -> Result<UserId, E> {
                let positive = u64::try_from(id).ok().and_then(UserId::new);
                positive.ok_or_else(|| E::invalid_value(Unexpected::Signed(id), &self))
            }
            fn visit_f64<E: de::Error>(self, id: f64) -> Result<UserId, E> {
                Err(E::invalid_value(Unexpected::Float(id), &self))
            }
        }
        deserializer.deserialize_u64(Id)
    }
}

/// `telegram.allowedUsers`: a list of user ids.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct UserIds(pub Vec<UserId>);

impl<'de> Deserialize<'de> for UserIds {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Ids;
        impl<'de> Visitor<'de> for Ids {
            type Value = UserIds;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a list of Telegram user ids (numbers)")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<UserIds, A::Error> {
                let mut ids = Vec::new();
                while let Some(id) = seq.next_element()? {
                    ids.push(id);
                }
                Ok(UserIds(ids))
            }
        }
        deserializer.deserialize_seq(Ids)
    }
}

/// A folder from the config file, as written: `~/...`, absolute, or relative to the file's own folder.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct FolderPath(String);

impl FolderPath {
    #[must_use]
    pub fn new(path: impl Into<String>) -> FolderPath {
        FolderPath(path.into())
    }

    /// The folder: `~` expanded, a relative path taken relative to `config_path`'s folder (so the daemon
    /// does not depend on the directory it was started from). The error is the problem, without the key.
    pub fn resolve(&self, config_path: &Path, user_home: Option<&Path>) -> Result<PathBuf, String> {
        if self.0.trim().is_empty() {
            return Err("expected a folder path, found an empty string".to_owned());
        }
        let expanded = expand_tilde(&self.0, user_home)
            .ok_or_else(|| "cannot expand ~ because HOME is not set".to_owned())?;
        if expanded.is_absolute() {
            return Ok(expanded);
        }
        let base = config_path.parent().unwrap_or_else(|| Path::new(""));
        Ok(base.join(expanded))
    }
}

impl<'de> Deserialize<'de> for FolderPath {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        string(deserializer, "a folder path as a string").map(FolderPath)
    }
}

/// A number of milliseconds as written (any JSON number, so a range error can show `-1` or `2.5`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct Millis(serde_json::Number);

impl Millis {
    /// The value when it is a whole number in `range`; the error is the problem, without the key.
    pub fn within(&self, range: std::ops::RangeInclusive<u64>) -> Result<u64, String> {
        let (min, max) = (range.start(), range.end());
        match self.0.as_u64() {
            Some(ms) if range.contains(&ms) => Ok(ms),
            _ => Err(format!(
                "expected milliseconds between {min} and {max}, found {}",
                self.0
            )),
        }
    }
}

impl From<u64> for Millis {
    fn from(ms: u64) -> Millis {
        Millis(ms.into())
    }
}

impl<'de> Deserialize<'de> for Millis {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Number;
        impl Visitor<'_> for Number {
            type Value = Millis;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a number of milliseconds")
            }
            fn visit_u64<E>(self, ms: u64) -> Result<Millis, E> {
                Ok(Millis(ms.into()))
            }
            fn visit_i64<E>(self, ms: i64) -> Result<Millis, E> {
                Ok(Millis(ms.into()))
            }
            fn visit_f64<E: de::Error>(self, ms: f64) -> Result<Millis, E> {
                serde_json::Number::from_f64(ms)
                    .map(Millis)
                    .ok_or_else(|| E::invalid_value(Unexpected::Float(ms), &self))
            }
        }
        deserializer.deserialize_any(Number)
    }
}

const LEVELS: [(&str, LevelFilter); 6] = [
    ("error", LevelFilter::ERROR),
    ("warn", LevelFilter::WARN),
    ("info", LevelFilter::INFO),
    ("debug", LevelFilter::DEBUG),
    ("trace", LevelFilter::TRACE),
    ("off", LevelFilter::OFF),
];

/// `logs.level`: one of [`LEVELS`]' names, in any case. Default `info`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LogLevel(pub LevelFilter);

impl Default for LogLevel {
    fn default() -> LogLevel {
        LogLevel(LevelFilter::INFO)
    }
}

impl<'de> Deserialize<'de> for LogLevel {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let names = LEVELS.map(|(name, _)| name).join(", ");
        let raw = string(deserializer, &format!("one of {names} as a string"))?;
        LEVELS
            .iter()
            .find(|(name, _)| name.eq_ignore_ascii_case(raw.trim()))
            .map(|(_, level)| LogLevel(*level))
            .ok_or_else(|| de::Error::custom(format!("expected one of {names}, found {raw:?}")))
    }
}

impl Serialize for LogLevel {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let name = LEVELS.iter().find(|(_, level)| *level == self.0);
        serializer.serialize_str(name.map_or("info", |(name, _)| name))
    }
}

/// A JSON string; `expecting` is what the message says was expected instead (`a folder path as a string`).
pub(super) fn string<'de, D: Deserializer<'de>>(
    deserializer: D,
    expecting: &str,
) -> Result<String, D::Error> {
    struct Text<'a>(&'a str);
    impl Visitor<'_> for Text<'_> {
        type Value = String;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str(self.0)
        }
        fn visit_str<E>(self, text: &str) -> Result<String, E> {
            Ok(text.to_owned())
        }
    }
    deserializer.deserialize_string(Text(expecting))
}

/// `telegram.apiUrl`: a string, checked as a URL by `validate`.
pub(super) fn url_text<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<String>, D::Error> {
    string(deserializer, "a URL as a string").map(Some)
}

/// `notifications.enabled`.
pub(super) fn switch<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<bool>, D::Error> {
    struct Switch;
    impl Visitor<'_> for Switch {
        type Value = bool;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("true or false")
        }
        fn visit_bool<E>(self, on: bool) -> Result<bool, E> {
            Ok(on)
        }
    }
    deserializer.deserialize_bool(Switch).map(Some)
}

/// A section: a JSON object only. (A derived struct also takes a list of its fields in order, which in a
/// config file is always a mistake.) `expecting` names it in the message: `an object ({ ... })`.
pub(super) fn object<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    deserializer: D,
    expecting: &str,
) -> Result<T, D::Error> {
    struct Object<'a, T>(&'a str, std::marker::PhantomData<T>);
    impl<'de, T: Deserialize<'de>> Visitor<'de> for Object<'_, T> {
        type Value = T;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str(self.0)
        }
        fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
            T::deserialize(de::value::MapAccessDeserializer::new(map))
        }
    }
    deserializer.deserialize_map(Object(expecting, std::marker::PhantomData))
}

/// [`section`] for a section that is off when absent (`digest`, `web`): present means on.
pub(super) fn optional_section<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    deserializer: D,
) -> Result<Option<T>, D::Error> {
    section(deserializer).map(Some)
}

/// [`object`] for a section field (`deserialize_with`).
pub(super) fn section<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    deserializer: D,
) -> Result<T, D::Error> {
    object(deserializer, "an object ({ ... })")
}
