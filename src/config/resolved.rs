//! The configuration `arbiter run` uses: checked, with the environment applied and every default filled in.

use std::path::PathBuf;
use std::time::Duration;

use tracing::level_filters::LevelFilter;

use super::token::BotToken;

/// `web.listen` when the section leaves it out (and what `arbiter init` writes).
pub const DEFAULT_WEB_LISTEN: &str = "127.0.0.1:8470";
/// Default `web.sessionDays`.
pub const DEFAULT_SESSION_DAYS: u32 = 30;
/// Default `rules.grantMinutes`.
pub const DEFAULT_GRANT_MINUTES: u32 = 30;

/// Telegram's own Bot API server.
pub const DEFAULT_API_URL: &str = "https://api.telegram.org";
/// Default `queue.watchInterval`, in milliseconds.
pub const DEFAULT_WATCH_INTERVAL_MS: u64 = 1000;
/// Default `queue.watchInterval`.
pub const DEFAULT_WATCH_INTERVAL: Duration = Duration::from_millis(DEFAULT_WATCH_INTERVAL_MS);

/// The daemon's configuration, validated and with every default filled in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// The file it was read from (for messages).
    pub path: PathBuf,
    pub telegram: TelegramConfig,
    pub queue: QueueConfig,
    pub notifications: NotificationsConfig,
    pub logs: LogsConfig,
    /// `digest.at` in `notifications.timezone`; `None`: no daily digest.
    pub digest: Option<crate::digest::DigestAt>,
    /// `people`: name → user id, every id one of `telegram.allowed_users`, in name order.
    pub people: Vec<(String, u64)>,
    /// The web dashboard; `None`: off.
    pub web: Option<WebConfig>,
    /// `rules.grantMinutes`: the longest `⏱ Allow <agent> for N min`.
    pub grant_minutes: u32,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TelegramConfig {
    pub token: BotToken,
    pub token_source: TokenSource,
    /// Never empty.
    pub allowed_users: Vec<u64>,
    /// The Bot API base URL, an http(s) URL with a host; `None` when `apiUrl` is not set: Telegram's.
    /// (Set but unusable is an error, never Telegram's: the token must not go where it was not sent.)
    pub api_url: Option<url::Url>,
    /// `telegram.groups`: where plan cards go, in the file's order (chat ids unique).
    pub groups: Vec<GroupConfig>,
}

/// One group of `telegram.groups`, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupConfig {
    /// The group's chat id (negative).
    pub chat: i64,
    /// Topic rules in the file's order (`agent:` and `tag:` keys, and `*`); empty: every plan, no topic.
    pub topics: Vec<(TopicRule, i32)>,
}

/// A key of `telegram.groups[].topics`: which plans go to that topic.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TopicRule {
    /// `agent:NAME`: plans whose `agent` is NAME.
    Agent(String),
    /// `tag:TAG`: plans whose `tag` is TAG.
    Tag(String),
    /// `*`: every other plan.
    Any,
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
    /// `quietHours` in `timezone`, when set.
    pub quiet_hours: Option<QuietSetting>,
    /// `timezone` (UTC when not set): quiet hours, the digest's time and the days of the stats chart.
    pub timezone: chrono_tz::Tz,
}

/// `notifications.quietHours` as written and as read (the parsed form has no `Eq`).
#[derive(Debug, Clone)]
pub struct QuietSetting(pub crate::quiet::QuietHours);

impl PartialEq for QuietSetting {
    fn eq(&self, _: &QuietSetting) -> bool {
        true
    }
}
impl Eq for QuietSetting {}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogsConfig {
    pub dir: PathBuf,
    pub level: LevelFilter,
}

/// `web`: the dashboard, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebConfig {
    /// Loopback unless `allow_remote`.
    pub listen: std::net::SocketAddr,
    pub allow_remote: bool,
    /// http(s) with a host, without a trailing `/`.
    pub public_url: Option<url::Url>,
    /// 1 to 365.
    pub session_days: u32,
    /// Agent name → bearer token (MCP over HTTP); names and tokens are unique and non-empty.
    pub agent_tokens: std::collections::BTreeMap<String, super::token::SecretToken>,
}
