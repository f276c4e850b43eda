//! config.json's schema: what may be in the file, as one serde struct per section. `arbiter run` reads it
//! whole, the agent commands read its `queue` section, `arbiter init` writes it.
//!
//! Every key is optional here; which ones are required (the token, unless `ARBITER_TELEGRAM_TOKEN` is
//! set; `allowedUsers`) and every range is for [`ConfigFile::validate`]. An unknown key is an error (a
//! typo would otherwise be silently ignored). A section for a later feature (`people`, `digest`,
//! `notifications.quietHours`) is one more field here plus its check in `validate`.

use std::path::Path;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use super::error::ConfigError;
use super::token::{BotToken, SecretToken};
use super::values::{self, FolderPath, LogLevel, Millis, UserIds, object};

/// The whole file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ConfigFile {
    #[serde(default, deserialize_with = "values::section")]
    pub telegram: TelegramSection,
    #[serde(default, deserialize_with = "values::section")]
    pub queue: QueueSection,
    #[serde(default, deserialize_with = "values::section")]
    pub notifications: NotificationsSection,
    #[serde(default, deserialize_with = "values::section")]
    pub logs: LogsSection,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "values::optional_section"
    )]
    pub digest: Option<DigestSection>,
    /// Names for allowed users (`{"alice": 93533553}`): plans name approvers and `escalate_to` by them, and
    /// views show them instead of ids.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub people: Option<std::collections::BTreeMap<String, values::UserId>>,
    /// The web dashboard; absent: off.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "values::optional_section"
    )]
    pub web: Option<WebSection>,
    /// Standing rules; absent: the defaults.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "values::optional_section"
    )]
    pub rules: Option<RulesSection>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct TelegramSection {
    /// From @BotFather; `ARBITER_TELEGRAM_TOKEN` wins over it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token: Option<BotToken>,
    /// Who may use the bot; required and non-empty.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allowed_users: Option<UserIds>,
    /// Bot API base URL; default Telegram's.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "values::url_text"
    )]
    pub api_url: Option<String>,
    /// Group chats (and forum topics) that get a card per matching plan: `[{"chat": -100…, "topics": {…}}]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub groups: Option<Vec<GroupSection>>,
}

/// One group of `telegram.groups`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct GroupSection {
    /// The group's chat id (negative: `-1001234567890`); required.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chat: Option<i64>,
    /// Which forum topic a plan's card goes to: `agent:NAME`, `tag:TAG` or `*` → topic id. Absent: the group's
    /// main chat for every plan.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub topics: Option<std::collections::BTreeMap<String, i64>>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct QueueSection {
    /// Default `<home>/queue`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dir: Option<FolderPath>,
    /// Periodic rescan of `pending/`, default 1000 ms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub watch_interval: Option<Millis>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct NotificationsSection {
    /// Announce new plans; default true.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "values::switch"
    )]
    pub enabled: Option<bool>,
    /// Local times when announcements and reminders are silent (`"22:00-07:00"`), except urgent plans.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quiet_hours: Option<String>,
    /// IANA time zone of `quietHours` and `digest.at` (default UTC).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timezone: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct LogsSection {
    /// Default `<home>/logs`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dir: Option<FolderPath>,
    /// Default `info`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<LogLevel>,
}

/// The daily digest; absent: none is sent.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct DigestSection {
    /// Local time of day (`"09:00"`, or `"09:00:30"`) in `notifications.timezone`; required in the section.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<String>,
}

/// Standing rules.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RulesSection {
    /// How long `⏱ Allow <agent> for N min` allows (minutes, 1 to 1440; default 30).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grant_minutes: Option<serde_json::Number>,
}

/// The web dashboard.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct WebSection {
    /// `address:port` the dashboard listens on; default `127.0.0.1:8470`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub listen: Option<String>,
    /// A `listen` address other machines can reach is refused unless this is true.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "values::switch"
    )]
    pub allow_remote: Option<bool>,
    /// The URL a reverse proxy or tunnel serves the dashboard at (login links use it).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "values::url_text"
    )]
    pub public_url: Option<String>,
    /// How long a login lasts, in days; default 30.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_days: Option<serde_json::Number>,
    /// Agent name → bearer token, for MCP over HTTP.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_tokens: Option<std::collections::BTreeMap<String, SecretToken>>,
}

/// What the top level must be, in the message when it is not.
const TOP_LEVEL: &str =
    "an object with telegram, queue, notifications, logs, digest, people, web and rules sections";

impl ConfigFile {
    /// Parses config.json's text (`path` is for messages). Checks the keys and their types only.
    pub fn parse(path: &Path, text: &str) -> Result<ConfigFile, ConfigError> {
        parse(path, text)
    }

    /// The file as `arbiter init` writes it: pretty JSON, keys in the documented order, a final newline.
    pub fn to_json(&self) -> Result<String, serde_json::Error> {
        serde_json::to_string_pretty(self).map(|json| json + "\n")
    }
}

/// The file's text; `None` when it does not exist.
pub(super) fn read(path: &Path) -> Result<Option<String>, ConfigError> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(ConfigError::Unreadable {
            path: path.into(),
            source,
        }),
    }
}

/// Parses `text` as `T`, a view of the top level: [`ConfigFile`], or part of it for the agent commands.
/// Errors name the file and the key (`telegram.allowedUsers[1]`), or the line and column of bad JSON.
pub(super) fn parse<T: DeserializeOwned>(path: &Path, text: &str) -> Result<T, ConfigError> {
    let mut json = serde_json::Deserializer::from_str(text);
    let mut track = serde_path_to_error::Track::new();
    let tracked = serde_path_to_error::Deserializer::new(&mut json, &mut track);
    let parsed = object(tracked, TOP_LEVEL)
        .map_err(|error| ConfigError::from_serde(path, Some(&track.path()), &error))?;
    json.end()
        .map_err(|error| ConfigError::from_serde(path, None, &error))?;
    Ok(parsed)
}
