//! What the types cannot check: required keys, ranges, the token's shape, the API URL, and the
//! environment (`ARBITER_TELEGRAM_TOKEN`, `HOME` for `~`, `ARBITER_HOME` for the defaults).

use std::path::Path;
use std::time::Duration;

use url::Url;

use super::error::ConfigError;
use super::file::{ConfigFile, GroupSection, TelegramSection};
use super::paths::{self, ENV_TOKEN, non_empty};
use super::resolved::{
    Config, DEFAULT_SESSION_DAYS, DEFAULT_WATCH_INTERVAL, DEFAULT_WEB_LISTEN, GroupConfig,
    LogsConfig, NotificationsConfig, QueueConfig, TelegramConfig, TokenSource, TopicRule,
    WebConfig,
};
use super::token::{BotToken, looks_like_token};
use super::values::FolderPath;

/// `queue.watchInterval`'s range, in milliseconds.
const WATCH_INTERVAL_MS: std::ops::RangeInclusive<u64> = 10..=3_600_000;

const TOKEN_SHAPE: &str = "does not look like a bot token (expected digits, a colon, then letters, \
    digits, - and _, e.g. 123456:ABC-DEF1234ghIkl)";

/// A problem with one key: the key (or variable) and what is wrong with it.
type KeyProblem = (&'static str, String);

impl ConfigFile {
    /// The daemon's [`Config`] from this file: required keys present, values in range, paths resolved,
    /// defaults filled in. `env` looks up `ARBITER_TELEGRAM_TOKEN` (wins over `telegram.token`), `HOME`
    /// and `ARBITER_HOME`; `path` is the file's (for messages, and relative paths).
    pub fn validate(
        self,
        path: &Path,
        env: &impl Fn(&str) -> Option<String>,
    ) -> Result<Config, ConfigError> {
        let invalid = |(key, problem): KeyProblem| ConfigError::invalid(path, key, problem);
        let groups = groups(self.telegram.groups.as_deref().unwrap_or_default())
            .map_err(|(key, problem)| ConfigError::invalid(path, &key, problem))?;
        let mut telegram = telegram(self.telegram, env).map_err(invalid)?;
        telegram.groups = groups;
        let user_home = paths::user_home(env);
        let folder = |key: &'static str, dir: &FolderPath| {
            dir.resolve(path, user_home.as_deref())
                .map_err(|problem| invalid((key, problem)))
        };
        // Defaults hang off the arbiter home, which is only needed (and only an error) when one is used.
        let home = || paths::arbiter_home(env);
        let queue = QueueConfig {
            dir: match &self.queue.dir {
                Some(dir) => folder("queue.dir", dir)?,
                None => paths::default_queue_dir(&home()?),
            },
            watch_interval: match &self.queue.watch_interval {
                None => DEFAULT_WATCH_INTERVAL,
                Some(ms) => ms
                    .within(WATCH_INTERVAL_MS)
                    .map(Duration::from_millis)
                    .map_err(|problem| invalid(("queue.watchInterval", problem)))?,
            },
        };
        let logs = LogsConfig {
            dir: match &self.logs.dir {
                Some(dir) => folder("logs.dir", dir)?,
                None => paths::default_logs_dir(&home()?),
            },
            level: self.logs.level.unwrap_or_default().0,
        };
        let has_digest = self.digest.is_some();
        let timezone = crate::digest::time_zone(self.notifications.timezone.as_deref())
            .map_err(|problem| invalid(("notifications.timezone", problem)))?;
        let digest = match self.digest.map(|d| d.at) {
            None => None,
            Some(None) => {
                let problem =
                    "missing; the local time of day to send the digest at, like \"09:00\"";
                return Err(invalid(("digest.at", problem.to_owned())));
            }
            Some(Some(at)) => Some(
                crate::digest::DigestAt::parse(&at, timezone)
                    .map_err(|problem| invalid(("digest.at", problem)))?,
            ),
        };
        let people = people(self.people.as_ref(), &telegram.allowed_users)
            .map_err(|(key, problem)| ConfigError::invalid(path, &key, problem))?;
        let web = match self.web {
            None => None,
            Some(section) => Some(web(section).map_err(invalid)?),
        };
        let grant_minutes = match self.rules.and_then(|r| r.grant_minutes) {
            None => crate::config::DEFAULT_GRANT_MINUTES,
            Some(n) => n
                .as_u64()
                .and_then(|n| u32::try_from(n).ok())
                .filter(|n| (1..=1440).contains(n))
                .ok_or_else(|| {
                    invalid((
                        "rules.grantMinutes",
                        format!("{n} is no number of minutes from 1 to 1440"),
                    ))
                })?,
        };
        Ok(Config {
            path: path.into(),
            people,
            web,
            grant_minutes,
            telegram,
            queue,
            notifications: NotificationsConfig {
                enabled: self.notifications.enabled.unwrap_or(true),
                quiet_hours: quiet(&self.notifications, has_digest).map_err(invalid)?,
                timezone,
            },
            logs,
            digest,
        })
    }
}

fn telegram(
    section: TelegramSection,
    env: &impl Fn(&str) -> Option<String>,
) -> Result<TelegramConfig, KeyProblem> {
    let (token, token_source) = token(section.token.as_ref(), env)?;
    const USERS: &str = "telegram.allowedUsers";
    let allowed_users: Vec<u64> = match section.allowed_users {
        None => {
            let problem = "missing; list the Telegram user ids allowed to use the bot";
            return Err((USERS, problem.to_owned()));
        }
        Some(users) => users.0.iter().map(|id| id.get()).collect(),
    };
    if allowed_users.is_empty() {
        let problem = "empty, so nobody could use the bot; add your Telegram user id";
        return Err((USERS, problem.to_owned()));
    }
    let api_url = match section.api_url {
        None => None,
        Some(raw) => Some(api_url(&raw).map_err(|problem| ("telegram.apiUrl", problem))?),
    };
    Ok(TelegramConfig {
        token,
        token_source,
        allowed_users,
        api_url,
        // Checked by [`groups`], whose keys name a group's index.
        groups: Vec::new(),
    })
}

/// `telegram.groups`: each a group chat id (negative), named once; topic keys `agent:NAME`, `tag:TAG` or `*`,
/// each to a topic id (a positive whole number; 1 is the forum's General topic).
fn groups(section: &[GroupSection]) -> Result<Vec<GroupConfig>, (String, String)> {
    let mut out: Vec<GroupConfig> = Vec::new();
    for (i, group) in section.iter().enumerate() {
        let key = format!("telegram.groups[{i}]");
        let chat = match group.chat {
            None => {
                let problem = "missing; the group's chat id (negative, like -1001234567890: the daemon logs it \
                               when the bot is added to the group)";
                return Err((format!("{key}.chat"), problem.to_owned()));
            }
            Some(chat) if chat >= 0 => {
                let problem = format!(
                    "{chat} is no group: a group's chat id is negative (like -1001234567890); a user id goes \
                     in telegram.allowedUsers"
                );
                return Err((format!("{key}.chat"), problem));
            }
            Some(chat) => chat,
        };
        if let Some(first) = out.iter().position(|g| g.chat == chat) {
            let problem = format!("{chat} is already telegram.groups[{first}]: list a group once");
            return Err((format!("{key}.chat"), problem));
        }
        let mut topics = Vec::new();
        for (name, id) in group.topics.iter().flatten() {
            let at = format!("{key}.topics.{name}");
            let rule = match name.split_once(':') {
                _ if name == "*" => TopicRule::Any,
                Some(("agent", agent)) if !agent.trim().is_empty() => {
                    TopicRule::Agent(agent.trim().to_owned())
                }
                Some(("tag", tag)) if !tag.trim().is_empty() => {
                    TopicRule::Tag(tag.trim().to_owned())
                }
                _ => {
                    let problem = "a topic key is `agent:NAME`, `tag:TAG` or `*`";
                    return Err((at, problem.to_owned()));
                }
            };
            let Some(id) = i32::try_from(*id).ok().filter(|id| *id > 0) else {
                let problem = format!(
                    "{id} is no topic id: a positive whole number (the daemon logs the ids of topics it sees a \
                     message in; 1 is the General topic)"
                );
                return Err((at, problem));
            };
            topics.push((rule, id));
        }
        out.push(GroupConfig { chat, topics });
    }
    Ok(out)
}

/// `people`: each name a word plans can write (letters, digits, `_`, `-`, `.`; not only digits, which would read
/// as a user id), each id one of `allowedUsers` (a name is how a plan reaches someone the bot may talk to), and no
/// id named twice.
fn people(
    section: Option<&std::collections::BTreeMap<String, super::values::UserId>>,
    allowed: &[u64],
) -> Result<Vec<(String, u64)>, (String, String)> {
    let mut out: Vec<(String, u64)> = Vec::new();
    for (name, id) in section.into_iter().flatten() {
        let key = format!("people.{name}");
        let word = !name.is_empty()
            && name
                .chars()
                .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.'));
        if !word || name.chars().all(|c| c.is_ascii_digit()) {
            let problem = "a name must be a word of letters, digits, _, - or . (not only digits, which \
                           would read as a user id)";
            return Err((key, problem.to_owned()));
        }
        let id = id.get();
        if !allowed.contains(&id) {
            let problem = format!(
                "{id} is not in telegram.allowedUsers: only allowed users can be named (add it there first)"
            );
            return Err((key, problem));
        }
        if let Some((other, _)) = out.iter().find(|(_, i)| *i == id) {
            return Err((key, format!("{id} is already named `{other}`")));
        }
        out.push((name.clone(), id));
    }
    Ok(out)
}

/// The token to use and where it came from.
fn token(
    in_file: Option<&BotToken>,
    env: &impl Fn(&str) -> Option<String>,
) -> Result<(BotToken, TokenSource), KeyProblem> {
    if let Some(token) = non_empty(env, ENV_TOKEN) {
        let token = token.trim();
        if !looks_like_token(token) {
            return Err((ENV_TOKEN, TOKEN_SHAPE.to_owned()));
        }
        return Ok((BotToken::new(token), TokenSource::Env));
    }
    match in_file.map(|token| token.expose().trim()) {
        Some(token) if looks_like_token(token) => Ok((BotToken::new(token), TokenSource::File)),
        Some(token) if !token.is_empty() => Err(("telegram.token", TOKEN_SHAPE.to_owned())),
        _ => Err((
            "telegram.token",
            format!("missing; put the token from @BotFather here or set {ENV_TOKEN}"),
        )),
    }
}

/// A Bot API base URL as config.json should hold it: trimmed, without a trailing `/`. The error is the
/// problem, without the key.
pub(crate) fn normalize_api_url(raw: &str) -> Result<String, String> {
    api_url(raw)?;
    Ok(raw.trim().trim_end_matches('/').to_owned())
}

/// Parses a Bot API base URL: http or https, with a host (`url::Url` decides; a URL it refuses is an error,
/// never a reason to use Telegram's). A trailing `/` is dropped so the bot's paths go under the URL's.
fn api_url(raw: &str) -> Result<Url, String> {
    let text = raw.trim().trim_end_matches('/');
    let expected = format!("expected an http:// or https:// URL, found {raw:?}");
    let lower = text.to_ascii_lowercase();
    if !(lower.starts_with("http://") || lower.starts_with("https://")) {
        return Err(expected);
    }
    let url = Url::parse(text).map_err(|error| format!("{expected} ({error})"))?;
    match url.host_str() {
        Some(host) if !host.is_empty() => Ok(url),
        _ => Err(format!("{expected} (no host)")),
    }
}

/// `web.sessionDays`' range.
const SESSION_DAYS: std::ops::RangeInclusive<u64> = 1..=365;
/// The shortest `web.agentTokens` value: a bearer token anyone can guess protects nothing.
const MIN_AGENT_TOKEN: usize = 16;

/// The `web` section: a loopback `listen` unless `allowRemote`, an http(s) `publicUrl`, `sessionDays` in range,
/// agent tokens long enough and distinct.
fn web(section: super::file::WebSection) -> Result<WebConfig, KeyProblem> {
    let raw = section.listen.as_deref().unwrap_or(DEFAULT_WEB_LISTEN);
    let listen = listen_address(raw).map_err(|p| ("web.listen", p))?;
    let allow_remote = section.allow_remote.unwrap_or(false);
    if !listen.ip().is_loopback() && !allow_remote {
        return Err((
            "web.listen",
            format!(
                "{listen} can be reached from other machines; listen on 127.0.0.1 (and put a reverse proxy or \
                 tunnel in front, see web.publicUrl), or set web.allowRemote to true if that is what you want"
            ),
        ));
    }
    let public_url = match section.public_url {
        None => None,
        Some(raw) => Some(api_url(&raw).map_err(|p| ("web.publicUrl", p))?),
    };
    let session_days = match section.session_days {
        None => DEFAULT_SESSION_DAYS,
        Some(n) => match n.as_u64().filter(|d| SESSION_DAYS.contains(d)) {
            Some(d) => u32::try_from(d).unwrap_or(DEFAULT_SESSION_DAYS),
            None => {
                return Err((
                    "web.sessionDays",
                    format!("expected a whole number of days from 1 to 365, found {n}"),
                ));
            }
        },
    };
    let agent_tokens = section.agent_tokens.unwrap_or_default();
    let mut seen = std::collections::HashSet::new();
    for (name, token) in &agent_tokens {
        let name_ok = !name.is_empty()
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
        if !name_ok {
            return Err((
                "web.agentTokens",
                format!("{name:?} is not an agent name (letters, digits, `_`, `-` and `.`)"),
            ));
        }
        let secret = token.expose();
        if secret.chars().count() < MIN_AGENT_TOKEN || secret.chars().any(char::is_whitespace) {
            return Err((
                "web.agentTokens",
                format!(
                    "the token of {name:?} must be at least {MIN_AGENT_TOKEN} characters without spaces \
                     (e.g. from `openssl rand -hex 32`)"
                ),
            ));
        }
        if !seen.insert(secret) {
            return Err((
                "web.agentTokens",
                format!("the token of {name:?} is also another agent's; give each agent its own"),
            ));
        }
    }
    Ok(WebConfig {
        listen,
        allow_remote,
        public_url,
        session_days,
        agent_tokens,
    })
}

/// `address:port` (IPv6 in brackets); `localhost:port` is taken as 127.0.0.1.
fn listen_address(raw: &str) -> Result<std::net::SocketAddr, String> {
    let text = raw.trim();
    let text = match text.strip_prefix("localhost:") {
        Some(port) => format!("127.0.0.1:{port}"),
        None => text.to_owned(),
    };
    text.parse().map_err(|_| {
        format!("expected an address and port such as {DEFAULT_WEB_LISTEN}, found {raw:?}")
    })
}

/// `notifications.quietHours` in `notifications.timezone` (which must apply to it or to `digest.at`).
fn quiet(
    section: &super::file::NotificationsSection,
    has_digest: bool,
) -> Result<Option<super::resolved::QuietSetting>, KeyProblem> {
    use crate::quiet::{QuietError, QuietHours};
    let Some(span) = &section.quiet_hours else {
        return match &section.timezone {
            Some(_) if !has_digest => Err((
                "notifications.timezone",
                "set, but there is no notifications.quietHours or digest.at for it to apply to"
                    .to_owned(),
            )),
            _ => Ok(None),
        };
    };
    QuietHours::parse(span, section.timezone.as_deref())
        .map(|q| Some(super::resolved::QuietSetting(q)))
        .map_err(|e| match e {
            QuietError::Span(m) => ("notifications.quietHours", m),
            QuietError::Zone(m) => ("notifications.timezone", m),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn api_urls() {
        let ok = |raw: &str| api_url(raw).map(String::from);
        assert_eq!(
            ok(" http://127.0.0.1:8081/ "),
            Ok("http://127.0.0.1:8081/".to_owned())
        );
        assert_eq!(
            ok("https://example.com/tg/"),
            Ok("https://example.com/tg".to_owned())
        );
        assert_eq!(
            normalize_api_url("http://127.0.0.1:8081/"),
            Ok("http://127.0.0.1:8081".to_owned())
        );
        let refused = [
            ("api.telegram.org", ""),
            ("localhost:8081", ""),
            ("ftp://example.com", ""),
            ("https://", ""),
            ("http://:80", " (empty host)"),
            ("http://[::1", " (invalid IPv6 address)"),
            (
                "http://exa mple.com",
                " (invalid international domain name)",
            ),
        ];
        for (raw, reason) in refused {
            let expected = format!("expected an http:// or https:// URL, found {raw:?}{reason}");
            assert_eq!(api_url(raw).map(String::from), Err(expected), "{raw}");
        }
    }
}
