//! `arbiter init`: first-time set-up of the arbiter home, `config.json` and (optionally) the systemd unit.

mod files;
mod pair;
mod prompt;
mod unit;

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::config::{
    self, BotToken, ConfigError, ConfigFile, FolderPath, LogLevel, LogsSection, Millis,
    NotificationsSection, QueueSection, TelegramSection, UserId, UserIds, WebSection,
};
pub use files::Step;
pub use pair::{DEFAULT_TTL, ENV_PAIR_TTL, PairError, PairRequest, Paired};
pub use prompt::{InitIo, TerminalIo};
pub use unit::{UserNamespaces, render_unit};

/// What `arbiter init` was asked to do. Build it with [`InitOptions::from_env`], then fill in the flags.
#[derive(Debug, Clone, Default)]
pub struct InitOptions {
    /// The arbiter home to set up (`ARBITER_HOME`, else `~/.arbiter`).
    pub home: PathBuf,
    /// The user's home (`HOME`): paths under it are written as `~/...` in config.json.
    pub user_home: Option<PathBuf>,
    /// Where `systemd: true` installs `arbiter.service` (`$XDG_CONFIG_HOME/systemd/user`).
    pub systemd_unit_dir: Option<PathBuf>,
    /// `--token`: `Some("")` means "no token in the file, use ARBITER_TELEGRAM_TOKEN"; `None` asks.
    pub token: Option<String>,
    /// `ARBITER_TELEGRAM_TOKEN`: the token pairing uses when none is given for config.json.
    pub env_token: Option<String>,
    /// `--user` (repeatable); empty pairs (or, with no token to pair with, asks on a terminal).
    pub users: Vec<u64>,
    /// `--pair`: pair even though `--user` is given (the paired user is added to those).
    pub pair: bool,
    /// How long the pairing code holds (`None`: [`DEFAULT_TTL`]).
    pub pair_ttl: Option<Duration>,
    /// `--api-url`; default Telegram's.
    pub api_url: Option<String>,
    /// `--queue`; default `<home>/queue`. `~` is expanded, a relative path made absolute.
    pub queue: Option<PathBuf>,
    /// `--systemd`: also install the systemd user unit.
    pub systemd: bool,
    /// `--force`: replace an existing config.json / unit file.
    pub force: bool,
    /// The arbiter binary for the unit's `ExecStart` (pass `std::env::current_exe().ok()`);
    /// `None` keeps `%h/.cargo/bin/arbiter`.
    pub executable: Option<PathBuf>,
    /// Whether this host lets a user manager create user namespaces ([`UserNamespaces::probe`]); where it
    /// does not, the unit's settings that need one are commented out. The default keeps the shipped unit.
    pub user_namespaces: UserNamespaces,
}

impl InitOptions {
    /// Home, user home and unit folder from the environment (see [`config::process_env`]); no flags set.
    pub fn from_env(env: &impl Fn(&str) -> Option<String>) -> Result<InitOptions, InitError> {
        Ok(InitOptions {
            home: config::arbiter_home(env)?,
            user_home: config::user_home(env),
            systemd_unit_dir: config::systemd_user_unit_dir(env),
            env_token: env(config::ENV_TOKEN).filter(|token| !token.trim().is_empty()),
            ..InitOptions::default()
        })
    }
}

/// What `init` did, in order, and what the user should do next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InitReport {
    /// The owner pairing found, added to `allowedUsers`.
    pub paired: Option<Paired>,
    pub steps: Vec<Step>,
    pub next_steps: Vec<String>,
}

impl fmt::Display for InitReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(paired) = &self.paired {
            writeln!(
                f,
                "paired   {}, user id {}: added to telegram.allowedUsers",
                paired.name, paired.id
            )?;
        }
        for step in &self.steps {
            writeln!(f, "{step}")?;
        }
        if !self.next_steps.is_empty() {
            writeln!(f, "\nNext:")?;
        }
        for next in &self.next_steps {
            writeln!(f, "  {next}")?;
        }
        Ok(())
    }
}

/// Why `init` stopped. Display is the one-line message for the user.
#[derive(Debug, thiserror::Error)]
pub enum InitError {
    #[error(transparent)]
    Home(#[from] ConfigError),
    #[error("{}: already exists; pass --force to overwrite it", path.display())]
    Exists { path: PathBuf },
    #[error(
        "no Telegram user id given, and no bot token to pair with: give the token (the prompt, --token or \
         ARBITER_TELEGRAM_TOKEN) so init can pair with your phone, or pass --user <id>"
    )]
    NoUsers,
    #[error(
        "a daemon serves the queue {} (it holds {}): stop it before pairing (systemctl --user stop arbiter), as \
         two readers of the bot's updates fight, or pass --user ID",
        queue.display(),
        lock.display()
    )]
    DaemonRunning { queue: PathBuf, lock: PathBuf },
    #[error(transparent)]
    Pair(#[from] PairError),
    #[error("--user {0}: not a Telegram user id (a positive whole number)")]
    InvalidUser(String),
    #[error(
        "--token: does not look like a bot token (expected digits, a colon, then letters, digits, - and _, \
         e.g. 123456:ABC-DEF1234ghIkl)"
    )]
    InvalidToken,
    #[error("--api-url: {0}")]
    InvalidApiUrl(String),
    #[error("{}: cannot expand ~ because HOME is not set", path.display())]
    NoUserHome { path: PathBuf },
    #[error("{}: not valid UTF-8, so config.json cannot hold it", path.display())]
    NonUtf8Path { path: PathBuf },
    #[error("cannot find the systemd user folder: set XDG_CONFIG_HOME or HOME")]
    NoUnitDir,
    #[error("cannot {action} {}: {source}", path.display())]
    Io {
        action: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot read the answer from the terminal: {0}")]
    Prompt(std::io::Error),
}

/// Sets up the arbiter home for the CLI's `arbiter init`:
/// creates `<home>/queue/{pending,completed,notify}` (or under `--queue`) and `<home>/logs`, writes
/// `<home>/config.json` with mode 0600 and, with `--systemd`, the user unit `arbiter.service`.
///
/// Flags the CLI should map onto [`InitOptions`]: `--token TOKEN`, `--user ID` (repeatable),
/// `--api-url URL`, `--queue DIR`, `--pair`, `--systemd`, `--force`. A missing token is asked for when `io` is
/// interactive (an empty token means "use ARBITER_TELEGRAM_TOKEN"), else left to the environment. Without
/// `--user` (or with `--pair`) the owner is found by pairing ([`pair`]) with that token or the environment's;
/// with no token at all a user id is asked for on a terminal, else it is an error. Pairing refuses while a
/// daemon serves the queue, and nothing is created before it succeeds. Existing files are never
/// replaced without `force`, and that check happens before anything is asked or created. systemctl is
/// never run: the report says what to run. (`--token` lands in shell history and `ps`; the prompt or
/// `ARBITER_TELEGRAM_TOKEN` in `<home>/env` are the safer ways, and the CLI help should say so.)
pub fn init(opts: InitOptions, io: &mut dyn InitIo) -> Result<InitReport, InitError> {
    let home = absolute(&opts.home)?;
    let config_path = config::config_file(&home);
    let unit_path = match (opts.systemd, &opts.systemd_unit_dir) {
        (false, _) => None,
        (true, None) => return Err(InitError::NoUnitDir),
        (true, Some(dir)) => Some(dir.join("arbiter.service")),
    };
    if !opts.force {
        for path in std::iter::once(&config_path).chain(&unit_path) {
            if files::exists(path) {
                return Err(InitError::Exists { path: path.clone() });
            }
        }
    }

    let token = match opts.token {
        Some(token) => Some(token.trim().to_owned()),
        None if io.interactive() => Some(prompt::ask_token(io)?),
        None => None,
    }
    .filter(|token| !token.is_empty());
    if token
        .as_deref()
        .is_some_and(|token| !config::looks_like_token(token))
    {
        return Err(InitError::InvalidToken);
    }
    let api_url =
        config::normalize_api_url(opts.api_url.as_deref().unwrap_or(config::DEFAULT_API_URL))
            .map_err(InitError::InvalidApiUrl)?;
    let queue_dir = match &opts.queue {
        Some(queue) => absolute(&expand(queue, opts.user_home.as_deref())?)?,
        None => config::default_queue_dir(&home),
    };
    for id in &opts.users {
        UserId::new(*id).ok_or_else(|| InitError::InvalidUser(id.to_string()))?;
    }
    // The token pairing reads updates with: the one for config.json, else the environment's.
    let pair_token = token.clone().or_else(|| opts.env_token.clone());
    let mut paired = None;
    let users = match (opts.users.as_slice(), pair_token) {
        (given, Some(pair_token)) if given.is_empty() || opts.pair => {
            let who = pair_owner(pair_token, &api_url, &queue_dir, opts.pair_ttl, io)?;
            let mut users = given.to_vec();
            if !users.contains(&who.id) {
                users.push(who.id);
            }
            paired = Some(who);
            users
        }
        ([], None) if io.interactive() && !opts.pair => prompt::ask_users(io)?,
        ([], None) => return Err(InitError::NoUsers),
        (_, None) if opts.pair => return Err(InitError::NoUsers),
        (users, _) => users.to_vec(),
    };
    let users = users
        .iter()
        .map(|id| UserId::new(*id).ok_or_else(|| InitError::InvalidUser(id.to_string())))
        .collect::<Result<Vec<_>, _>>()?;
    let logs_dir = config::default_logs_dir(&home);

    let mut steps = Vec::new();
    steps.push(files::create_private_dir(&home)?);
    for sub in ["pending", "completed", "notify"] {
        steps.push(files::create_private_dir(&queue_dir.join(sub))?);
    }
    steps.push(files::create_private_dir(&logs_dir)?);

    let shown = |path: &Path| display_path(path, opts.user_home.as_deref()).map(FolderPath::new);
    let has_token = token.is_some();
    // Every key, so the file documents itself; the schema is the one `arbiter run` reads.
    let file = ConfigFile {
        telegram: TelegramSection {
            token: token.map(BotToken::new),
            allowed_users: Some(UserIds(users)),
            api_url: Some(api_url),
            groups: None,
        },
        queue: QueueSection {
            dir: Some(shown(&queue_dir)?),
            watch_interval: Some(Millis::from(config::DEFAULT_WATCH_INTERVAL_MS)),
        },
        notifications: NotificationsSection {
            enabled: Some(true),
            ..NotificationsSection::default()
        },
        logs: LogsSection {
            dir: Some(shown(&logs_dir)?),
            level: Some(LogLevel::default()),
        },
        // Off until the owner picks a time.
        digest: None,
        people: None,
        // The dashboard on this machine only; `arbiter web-login` or /web in Telegram signs in.
        web: Some(WebSection {
            listen: Some(config::DEFAULT_WEB_LISTEN.to_owned()),
            ..WebSection::default()
        }),
        // The defaults (grants of 30 minutes); the section says where to change them.
        rules: None,
    };
    // Cannot fail (string keys, plain values), but no panic on the off chance.
    let json = file.to_json().map_err(|error| InitError::Io {
        action: "serialize",
        path: config_path.clone(),
        source: std::io::Error::other(error),
    })?;
    steps.push(files::write_file(&config_path, &json, 0o600, opts.force)?);

    let mut next_steps = Vec::new();
    if !has_token {
        next_steps.push(format!(
            "no token in config.json: put ARBITER_TELEGRAM_TOKEN=<token from @BotFather> in {} \
             (mode 0600) or export it before `arbiter run`",
            home.join("env").display()
        ));
    }
    match unit_path {
        Some(unit_path) => {
            let text = render_unit(
                &home,
                &queue_dir,
                opts.user_home.as_deref(),
                opts.executable.as_deref(),
                opts.user_namespaces,
            );
            if let Some(dir) = unit_path.parent() {
                files::create_dir(dir)?;
            }
            steps.push(files::write_file(&unit_path, &text, 0o644, opts.force)?);
            if let UserNamespaces::Denied(setting) = opts.user_namespaces {
                next_steps.push(format!(
                    "this host denies unprivileged user namespaces ({setting}): the unit's settings that \
                     need one are commented out (see its comments); its system-call filters still apply"
                ));
            }
            next_steps.push(
                "systemctl --user daemon-reload && systemctl --user enable --now arbiter".into(),
            );
            next_steps.push(
                "loginctl enable-linger \"$USER\"   # keep it running while logged out".into(),
            );
        }
        None => {
            next_steps.push("arbiter run   # start the daemon (or: arbiter init --systemd)".into())
        }
    }
    Ok(InitReport {
        paired,
        steps,
        next_steps,
    })
}

/// Pairs with the owner's phone, unless a daemon serves the queue (it reads the bot's updates: two readers
/// fight, and it would take the `/start` meant for init). Nothing is written before this returns.
fn pair_owner(
    token: String,
    api_url: &str,
    queue_dir: &Path,
    ttl: Option<Duration>,
    io: &mut dyn InitIo,
) -> Result<Paired, InitError> {
    if crate::queue::instance::daemon(queue_dir) == crate::queue::instance::Daemon::Running {
        return Err(InitError::DaemonRunning {
            queue: queue_dir.to_owned(),
            lock: crate::queue::instance::lock_file(queue_dir),
        });
    }
    let request = PairRequest {
        token: BotToken::new(token),
        api_url: api_url.to_owned(),
        ttl: ttl.unwrap_or(DEFAULT_TTL),
    };
    Ok(io.pair(&request)?)
}

/// `~` expanded against the user's home.
fn expand(path: &Path, user_home: Option<&Path>) -> Result<PathBuf, InitError> {
    let Some(raw) = path.to_str() else {
        return Ok(path.to_path_buf());
    };
    config::expand_tilde(raw, user_home).ok_or_else(|| InitError::NoUserHome { path: path.into() })
}

/// Made absolute against the current folder: config.json would otherwise read it relative to itself.
fn absolute(path: &Path) -> Result<PathBuf, InitError> {
    std::path::absolute(path).map_err(|source| InitError::Io {
        action: "resolve",
        path: path.into(),
        source,
    })
}

/// How a path is written into config.json: `~/...` under the user's home, else absolute.
fn display_path(path: &Path, user_home: Option<&Path>) -> Result<String, InitError> {
    let non_utf8 = || InitError::NonUtf8Path { path: path.into() };
    if let Some(rest) = user_home.and_then(|home| path.strip_prefix(home).ok())
        && !rest.as_os_str().is_empty()
    {
        return Ok(format!("~/{}", rest.to_str().ok_or_else(non_utf8)?));
    }
    path.to_str().map(str::to_owned).ok_or_else(non_utf8)
}

#[cfg(test)]
mod tests;
