//! Turns the parsed JSON into a [`Config`] by walking `serde_json::Value` by hand, so every problem is a
//! human sentence naming the key (never a serde message about structs and variants).

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Map, Value};
use tracing::level_filters::LevelFilter;

use super::ENV_TOKEN;
use super::paths::{self, non_empty};
use super::suggest::did_you_mean;
use super::token::{BotToken, looks_like_token};
use super::{
    Config, ConfigError, DEFAULT_API_URL, DEFAULT_WATCH_INTERVAL, LogsConfig, NotificationsConfig,
    QueueConfig, TelegramConfig, TokenSource,
};

pub(super) const SECTIONS: [&str; 4] = ["telegram", "queue", "notifications", "logs"];
pub(super) const TELEGRAM_KEYS: [&str; 3] = ["token", "allowedUsers", "apiUrl"];
pub(super) const QUEUE_KEYS: [&str; 2] = ["dir", "watchInterval"];
const NOTIFICATIONS_KEYS: [&str; 1] = ["enabled"];
const LOGS_KEYS: [&str; 2] = ["dir", "level"];
const WATCH_INTERVAL_MS: std::ops::RangeInclusive<u64> = 10..=3_600_000;
const LEVELS: [(&str, LevelFilter); 6] = [
    ("error", LevelFilter::ERROR),
    ("warn", LevelFilter::WARN),
    ("info", LevelFilter::INFO),
    ("debug", LevelFilter::DEBUG),
    ("trace", LevelFilter::TRACE),
    ("off", LevelFilter::OFF),
];
const TOKEN_SHAPE: &str = "does not look like a bot token (expected digits, a colon, then letters, \
    digits, - and _, e.g. 123456:ABC-DEF1234ghIkl)";

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

fn parse_json(path: &Path, text: &str) -> Result<Map<String, Value>, ConfigError> {
    let value: Value = serde_json::from_str(text).map_err(|error| {
        let full = error.to_string();
        // serde_json appends " at line L column C"; the position goes in front instead.
        let message = match full.rsplit_once(" at line ") {
            Some((message, _)) => message.to_owned(),
            None => full,
        };
        ConfigError::Syntax {
            path: path.into(),
            line: error.line(),
            column: error.column(),
            message,
        }
    })?;
    match value {
        Value::Object(map) => Ok(map),
        other => Err(invalid(
            path,
            "top level",
            format!(
                "expected an object with telegram, queue, notifications and logs sections, found {}",
                describe(&other)
            ),
        )),
    }
}

/// `queue.dir` alone, for agent-side commands: nothing else in the file is checked.
/// `Ok(None)` when the file or the key does not exist.
pub(super) fn queue_dir_only(
    path: &Path,
    user_home: Option<&Path>,
) -> Result<Option<PathBuf>, ConfigError> {
    let Some(text) = read(path)? else {
        return Ok(None);
    };
    let root = parse_json(path, &text)?;
    let walker = Walker { path, user_home };
    let Some(queue) = walker.section(&root, "queue", None)? else {
        return Ok(None);
    };
    walker.dir(queue, "queue.dir")
}

pub(super) fn parse(
    path: &Path,
    text: &str,
    env: &impl Fn(&str) -> Option<String>,
) -> Result<Config, ConfigError> {
    let root = parse_json(path, text)?;
    let user_home = paths::user_home(env);
    let walker = Walker {
        path,
        user_home: user_home.as_deref(),
    };
    walker.check_keys(&root, "", &SECTIONS)?;
    let empty = Map::new();
    let telegram = walker
        .section(&root, "telegram", Some(&TELEGRAM_KEYS))?
        .unwrap_or(&empty);
    let queue = walker
        .section(&root, "queue", Some(&QUEUE_KEYS))?
        .unwrap_or(&empty);
    let notifications = walker
        .section(&root, "notifications", Some(&NOTIFICATIONS_KEYS))?
        .unwrap_or(&empty);
    let logs = walker
        .section(&root, "logs", Some(&LOGS_KEYS))?
        .unwrap_or(&empty);

    let (token, token_source) = walker.token(telegram, env)?;
    let telegram = TelegramConfig {
        token,
        token_source,
        allowed_users: walker.allowed_users(telegram)?,
        api_url: walker.api_url(telegram)?,
    };
    // Defaults hang off the arbiter home, which is only needed (and only an error) when a default is used.
    let home = || paths::arbiter_home(env);
    let queue = QueueConfig {
        dir: match walker.dir(queue, "queue.dir")? {
            Some(dir) => dir,
            None => paths::default_queue_dir(&home()?),
        },
        watch_interval: walker.watch_interval(queue)?,
    };
    let notifications = NotificationsConfig {
        enabled: walker.enabled(notifications)?,
    };
    let logs = LogsConfig {
        dir: match walker.dir(logs, "logs.dir")? {
            Some(dir) => dir,
            None => paths::default_logs_dir(&home()?),
        },
        level: walker.level(logs)?,
    };
    Ok(Config {
        path: path.into(),
        telegram,
        queue,
        notifications,
        logs,
    })
}

/// Checks a Bot API base URL and drops a trailing `/`. The error is the problem, without the key.
pub(crate) fn check_api_url(url: &str) -> Result<String, String> {
    let trimmed = url.trim().trim_end_matches('/');
    let host = trimmed
        .strip_prefix("https://")
        .or_else(|| trimmed.strip_prefix("http://"));
    match host {
        Some(host) if !host.is_empty() && !host.contains(char::is_whitespace) => {
            Ok(trimmed.to_owned())
        }
        _ => Err(format!(
            "expected an http:// or https:// URL, found {url:?}"
        )),
    }
}

fn invalid(path: &Path, key: &str, problem: impl Into<String>) -> ConfigError {
    ConfigError::Invalid {
        path: path.into(),
        key: key.to_owned(),
        problem: problem.into(),
    }
}

/// How a JSON value is named in "found ..." messages.
fn describe(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

struct Walker<'a> {
    path: &'a Path,
    user_home: Option<&'a Path>,
}

impl Walker<'_> {
    fn invalid(&self, key: &str, problem: impl Into<String>) -> ConfigError {
        invalid(self.path, key, problem)
    }

    fn wrong_type(&self, key: &str, expected: &str, found: &Value) -> ConfigError {
        self.invalid(
            key,
            format!("expected {expected}, found {}", describe(found)),
        )
    }

    /// Refuses keys of `map` not in `allowed`; `prefix` is the section (`""` for the top level).
    fn check_keys(
        &self,
        map: &Map<String, Value>,
        prefix: &str,
        allowed: &[&str],
    ) -> Result<(), ConfigError> {
        let Some(unknown) = map.keys().find(|key| !allowed.contains(&key.as_str())) else {
            return Ok(());
        };
        let dotted = if prefix.is_empty() {
            unknown.clone()
        } else {
            format!("{prefix}.{unknown}")
        };
        let problem = match did_you_mean(unknown, allowed) {
            Some(known) => format!("unknown key; did you mean {known}?"),
            None => format!("unknown key; expected one of {}", allowed.join(", ")),
        };
        Err(self.invalid(&dotted, problem))
    }

    /// The section as an object (`None` when absent); with `allowed`, its keys are checked too.
    fn section<'v>(
        &self,
        root: &'v Map<String, Value>,
        name: &str,
        allowed: Option<&[&str]>,
    ) -> Result<Option<&'v Map<String, Value>>, ConfigError> {
        match root.get(name) {
            None => Ok(None),
            Some(Value::Object(map)) => {
                if let Some(allowed) = allowed {
                    self.check_keys(map, name, allowed)?;
                }
                Ok(Some(map))
            }
            Some(other) => Err(self.wrong_type(name, "an object ({ ... })", other)),
        }
    }

    fn token(
        &self,
        telegram: &Map<String, Value>,
        env: &impl Fn(&str) -> Option<String>,
    ) -> Result<(BotToken, TokenSource), ConfigError> {
        // Checked even when the variable overrides it: a wrong type is a mistake worth hearing about.
        let in_file = match telegram.get("token") {
            None | Some(Value::Null) => None,
            Some(Value::String(token)) => Some(token.trim()).filter(|token| !token.is_empty()),
            Some(other) => {
                return Err(self.wrong_type("telegram.token", "the bot token as a string", other));
            }
        };
        if let Some(token) = non_empty(env, ENV_TOKEN) {
            let token = token.trim();
            if !looks_like_token(token) {
                return Err(self.invalid(ENV_TOKEN, TOKEN_SHAPE));
            }
            return Ok((BotToken::new(token), TokenSource::Env));
        }
        match in_file {
            Some(token) if looks_like_token(token) => Ok((BotToken::new(token), TokenSource::File)),
            Some(_) => Err(self.invalid("telegram.token", TOKEN_SHAPE)),
            None => Err(self.invalid(
                "telegram.token",
                format!("missing; put the token from @BotFather here or set {ENV_TOKEN}"),
            )),
        }
    }

    fn allowed_users(&self, telegram: &Map<String, Value>) -> Result<Vec<u64>, ConfigError> {
        const KEY: &str = "telegram.allowedUsers";
        let list = match telegram.get("allowedUsers") {
            None => {
                let problem = "missing; list the Telegram user ids allowed to use the bot";
                return Err(self.invalid(KEY, problem));
            }
            Some(Value::Array(list)) => list,
            Some(other) => {
                return Err(self.wrong_type(KEY, "a list of Telegram user ids (numbers)", other));
            }
        };
        if list.is_empty() {
            let problem = "empty, so nobody could use the bot; add your Telegram user id";
            return Err(self.invalid(KEY, problem));
        }
        let user = |(index, value): (usize, &Value)| {
            let key = format!("{KEY}[{index}]");
            let expected = "a Telegram user id (a positive whole number)";
            match value {
                Value::Number(n) => match n.as_u64() {
                    Some(id) if id > 0 => Ok(id),
                    _ => Err(self.invalid(&key, format!("expected {expected}, found {n}"))),
                },
                other => Err(self.wrong_type(&key, expected, other)),
            }
        };
        list.iter().enumerate().map(user).collect()
    }

    fn api_url(&self, telegram: &Map<String, Value>) -> Result<String, ConfigError> {
        match telegram.get("apiUrl") {
            None => Ok(DEFAULT_API_URL.to_owned()),
            Some(Value::String(url)) => {
                check_api_url(url).map_err(|problem| self.invalid("telegram.apiUrl", problem))
            }
            Some(other) => Err(self.wrong_type("telegram.apiUrl", "a URL as a string", other)),
        }
    }

    /// A folder path (`~` expanded, relative to the config file), `None` when absent.
    fn dir(&self, section: &Map<String, Value>, key: &str) -> Result<Option<PathBuf>, ConfigError> {
        let name = key.rsplit('.').next().unwrap_or(key);
        let raw = match section.get(name) {
            None => return Ok(None),
            Some(Value::String(raw)) if raw.trim().is_empty() => {
                return Err(self.invalid(key, "expected a folder path, found an empty string"));
            }
            Some(Value::String(raw)) => raw,
            Some(other) => return Err(self.wrong_type(key, "a folder path as a string", other)),
        };
        paths::config_relative(raw, self.path, self.user_home)
            .map(Some)
            .ok_or_else(|| self.invalid(key, "cannot expand ~ because HOME is not set"))
    }

    fn watch_interval(&self, queue: &Map<String, Value>) -> Result<Duration, ConfigError> {
        const KEY: &str = "queue.watchInterval";
        let (min, max) = (WATCH_INTERVAL_MS.start(), WATCH_INTERVAL_MS.end());
        match queue.get("watchInterval") {
            None => Ok(DEFAULT_WATCH_INTERVAL),
            Some(Value::Number(n)) => match n.as_u64() {
                Some(ms) if WATCH_INTERVAL_MS.contains(&ms) => Ok(Duration::from_millis(ms)),
                _ => Err(self.invalid(
                    KEY,
                    format!("expected milliseconds between {min} and {max}, found {n}"),
                )),
            },
            Some(other) => Err(self.wrong_type(KEY, "a number of milliseconds", other)),
        }
    }

    fn enabled(&self, notifications: &Map<String, Value>) -> Result<bool, ConfigError> {
        match notifications.get("enabled") {
            None => Ok(true),
            Some(Value::Bool(enabled)) => Ok(*enabled),
            Some(other) => Err(self.wrong_type("notifications.enabled", "true or false", other)),
        }
    }

    fn level(&self, logs: &Map<String, Value>) -> Result<LevelFilter, ConfigError> {
        let names = || LEVELS.map(|(name, _)| name).join(", ");
        match logs.get("level") {
            None => Ok(LevelFilter::INFO),
            Some(Value::String(raw)) => LEVELS
                .iter()
                .find(|(name, _)| name.eq_ignore_ascii_case(raw.trim()))
                .map(|(_, level)| *level)
                .ok_or_else(|| {
                    self.invalid(
                        "logs.level",
                        format!("expected one of {}, found {raw:?}", names()),
                    )
                }),
            Some(other) => Err(self.wrong_type(
                "logs.level",
                &format!("one of {} as a string", names()),
                other,
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn api_urls() {
        assert_eq!(
            check_api_url("http://127.0.0.1:8081/"),
            Ok("http://127.0.0.1:8081".to_owned())
        );
        assert!(check_api_url("https://").is_err());
        assert!(check_api_url("api.telegram.org").is_err());
    }
}
