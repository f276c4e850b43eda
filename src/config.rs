//! Configuration: where the arbiter home is, and the daemon's `config.json`.
//!
//! The file lives at `<home>/config.json`, where the home is `ARBITER_HOME` or else `~/.arbiter`.
//! It should be mode 0600 ([`Config::permission_warning`] says when it is not): it may hold the bot token.
//!
//! | key | type | default | meaning |
//! |---|---|---|---|
//! | `telegram.token` | string | — | Bot token from @BotFather (`123456:ABC-...`). `ARBITER_TELEGRAM_TOKEN` wins over it; one of the two is required. |
//! | `telegram.allowedUsers` | list of numbers | — (required, non-empty) | Telegram user ids allowed to use the bot; everyone else is ignored. |
//! | `telegram.apiUrl` | string | `https://api.telegram.org` | Bot API base URL, http or https (tests point it at a local fake server). A URL that does not parse is an error, never a reason to use Telegram's. |
//! | `telegram.groups` | list | `[]` | Group chats that get a card per matching plan: `{"chat": -100…, "topics": {"agent:NAME": 17, "tag:TAG": 23, "*": 1}}` (`topics` optional; 1 is a forum's General topic). |
//! | `queue.dir` | string | `<home>/queue` | Queue folder (`pending/`, `completed/`, `notify/`). |
//! | `queue.watchInterval` | number (ms) | `1000` | Periodic rescan of `pending/`, 10 to 3600000. |
//! | `notifications.enabled` | boolean | `true` | Announce new plans on Telegram. |
//! | `notifications.quietHours` | `"HH:MM-HH:MM"` | none | Announcements and reminders silent then, except urgent plans. |
//! | `notifications.timezone` | IANA name | `UTC` | Time zone of `quietHours`, `digest.at` and the stats chart's days. |
//! | `digest.at` | `"HH:MM"` or `"HH:MM:SS"` | no digest | Local time of the daily digest message. |
//! | `logs.dir` | string | `<home>/logs` | Folder for `arbiter.log`. |
//! | `logs.level` | string | `info` | One of `error`, `warn`, `info`, `debug`, `trace`, `off`. |
//! | `web` | object | absent (off) | The web dashboard, served by `arbiter run`. |
//! | `web.listen` | string | `127.0.0.1:8470` | `address:port`; an address other machines can reach needs `web.allowRemote`. |
//! | `web.allowRemote` | boolean | `false` | Allow a non-loopback `listen`. |
//! | `web.publicUrl` | string | — | The http(s) URL a reverse proxy or tunnel serves the dashboard at; login links use it. |
//! | `web.sessionDays` | number | `30` | Days a dashboard login lasts, 1 to 365. |
//! | `web.agentTokens` | object | `{}` | Agent name → bearer token (at least 16 characters) for MCP over HTTP. |
//! | `rules.grantMinutes` | number | `30` | How long `⏱ Allow <agent> for N min` allows, 1 to 1440 minutes. |
//!
//! Paths may start with `~/`; a relative path is taken relative to the folder holding the config file.
//! Unknown keys are errors (a typo would otherwise be silently ignored). Every problem is reported as one
//! line naming the file and the key: see [`ConfigError`].
//!
//! [`ConfigFile`] is the schema, one serde struct per section (keys and types); [`ConfigFile::validate`]
//! checks what types cannot and fills in the defaults, giving the daemon's [`Config`]. `arbiter init`
//! writes a `ConfigFile`; the agent commands read its `queue` section ([`resolve_queue_dir`]).

mod error;
mod file;
mod paths;
mod queue_dir;
mod resolved;
mod suggest;
mod token;
mod validate;
mod values;

use std::path::Path;

pub use error::ConfigError;
pub use file::{
    ConfigFile, DigestSection, GroupSection, LogsSection, NotificationsSection, QueueSection,
    RulesSection, TelegramSection, WebSection,
};
pub use paths::{
    ConfigLocation, ENV_CONFIG, ENV_HOME, ENV_QUEUE, ENV_TOKEN, arbiter_home, config_file,
    default_logs_dir, default_queue_dir, expand_tilde, locate_config, process_env,
    systemd_user_unit_dir, user_home,
};
pub use queue_dir::{QueueDirSource, ResolvedQueueDir, resolve_queue_dir};
pub use resolved::{
    Config, DEFAULT_API_URL, DEFAULT_GRANT_MINUTES, DEFAULT_SESSION_DAYS, DEFAULT_WATCH_INTERVAL,
    DEFAULT_WATCH_INTERVAL_MS, DEFAULT_WEB_LISTEN, GroupConfig, LogsConfig, NotificationsConfig,
    QueueConfig, TelegramConfig, TokenSource, TopicRule, WebConfig,
};
pub(crate) use token::looks_like_token;
pub use token::{BotToken, SecretToken};
pub(crate) use validate::normalize_api_url;
pub use values::{FolderPath, LogLevel, Millis, UserId, UserIds};

impl Config {
    /// Reads and validates the daemon's config file: [`ConfigFile::parse`], then
    /// [`ConfigFile::validate`]. `env` looks up environment variables: `ARBITER_TELEGRAM_TOKEN` (wins over
    /// `telegram.token`), `HOME` (for `~`), `ARBITER_HOME` (defaults). Pass [`process_env`] in production.
    pub fn load(path: &Path, env: &impl Fn(&str) -> Option<String>) -> Result<Config, ConfigError> {
        let text = file::read(path)?.ok_or_else(|| ConfigError::NotFound { path: path.into() })?;
        ConfigFile::parse(path, &text)?.validate(path, env)
    }

    /// A warning to print (and log) when the file is readable or writable by group or others.
    #[must_use]
    pub fn permission_warning(path: &Path) -> Option<String> {
        permission_warning(path)
    }
}

#[cfg(unix)]
fn permission_warning(path: &Path) -> Option<String> {
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(path).ok()?.permissions().mode() & 0o7777;
    if mode & 0o077 == 0 {
        return None;
    }
    let name = path
        .file_name()
        .unwrap_or(path.as_os_str())
        .to_string_lossy();
    let shown = path.display();
    Some(format!(
        "{name} is readable by other users (mode {mode:04o}); run chmod 600 {shown}"
    ))
}

#[cfg(not(unix))]
fn permission_warning(_path: &Path) -> Option<String> {
    None
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod groups_tests;
#[cfg(test)]
mod web_tests;
