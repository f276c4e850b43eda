//! Configuration: where the arbiter home is, and the daemon's `config.json`.
//!
//! The file lives at `<home>/config.json`, where the home is `ARBITER_HOME` or else `~/.arbiter`.
//! It should be mode 0600 ([`Config::permission_warning`] says when it is not): it may hold the bot token.
//!
//! | key | type | default | meaning |
//! |---|---|---|---|
//! | `telegram.token` | string | — | Bot token from @BotFather (`123456:ABC-...`). `ARBITER_TELEGRAM_TOKEN` wins over it; one of the two is required. |
//! | `telegram.allowedUsers` | list of numbers | — (required, non-empty) | Telegram user ids allowed to use the bot; everyone else is ignored. |
//! | `telegram.apiUrl` | string | `https://api.telegram.org` | Bot API base URL (tests point it at a local fake server). |
//! | `queue.dir` | string | `<home>/queue` | Queue folder (`pending/`, `completed/`, `notify/`). |
//! | `queue.watchInterval` | number (ms) | `1000` | Periodic rescan of `pending/`, 10 to 3600000. |
//! | `notifications.enabled` | boolean | `true` | Announce new plans on Telegram. |
//! | `logs.dir` | string | `<home>/logs` | Folder for `arbiter.log`. |
//! | `logs.level` | string | `info` | One of `error`, `warn`, `info`, `debug`, `trace`, `off`. |
//!
//! Paths may start with `~/`; a relative path is taken relative to the folder holding the config file.
//! Unknown keys are errors (a typo would otherwise be silently ignored). Every problem is reported as one
//! line naming the file and the key: see [`ConfigError`].

mod paths;
mod suggest;
mod token;
mod walk;

use std::path::{Path, PathBuf};
use std::time::Duration;

use tracing::level_filters::LevelFilter;

pub use paths::{
    ENV_HOME, ENV_QUEUE, ENV_TOKEN, QueueDirSource, ResolvedQueueDir, arbiter_home, config_file,
    default_logs_dir, default_queue_dir, expand_tilde, process_env, resolve_queue_dir,
    systemd_user_unit_dir, user_home,
};
pub use token::BotToken;
pub(crate) use token::looks_like_token;
pub(crate) use walk::check_api_url;

/// Telegram's own Bot API server.
pub const DEFAULT_API_URL: &str = "https://api.telegram.org";
/// Default `queue.watchInterval`.
pub const DEFAULT_WATCH_INTERVAL: Duration = Duration::from_millis(1000);

/// The daemon's configuration, validated and with every default filled in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// The file it was read from (for messages).
    pub path: PathBuf,
    pub telegram: TelegramConfig,
    pub queue: QueueConfig,
    pub notifications: NotificationsConfig,
    pub logs: LogsConfig,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TelegramConfig {
    pub token: BotToken,
    pub token_source: TokenSource,
    /// Never empty.
    pub allowed_users: Vec<u64>,
    /// Without a trailing `/`.
    pub api_url: String,
}

/// Where the token came from; safe to log, unlike the token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenSource {
    File,
    /// `ARBITER_TELEGRAM_TOKEN`.
    Env,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueueConfig {
    pub dir: PathBuf,
    pub watch_interval: Duration,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotificationsConfig {
    pub enabled: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogsConfig {
    pub dir: PathBuf,
    pub level: LevelFilter,
}

/// Why the configuration could not be used. The display text is the whole one-line message the user reads.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot find the arbiter home: set ARBITER_HOME or HOME")]
    NoHome,
    #[error("{}: config file not found; run `arbiter init` to create it", path.display())]
    NotFound { path: PathBuf },
    #[error("{}: cannot read config file: {source}", path.display())]
    Unreadable {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}:{line}:{column}: invalid JSON: {message}", path.display())]
    Syntax {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },
    /// A key is missing, unknown, of the wrong type or out of range. `key` is dotted: `telegram.allowedUsers`.
    #[error("{}: {key}: {problem}", path.display())]
    Invalid {
        path: PathBuf,
        key: String,
        problem: String,
    },
}

impl Config {
    /// Reads and validates the daemon's config file. `env` looks up environment variables:
    /// `ARBITER_TELEGRAM_TOKEN` (wins over `telegram.token`), `HOME` (for `~`), `ARBITER_HOME` (defaults).
    /// Pass [`process_env`] in production.
    pub fn load(path: &Path, env: &impl Fn(&str) -> Option<String>) -> Result<Config, ConfigError> {
        let text = walk::read(path)?.ok_or_else(|| ConfigError::NotFound { path: path.into() })?;
        walk::parse(path, &text, env)
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
