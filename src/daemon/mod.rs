//! `arbiter run`: the wiring. Opens the queue and takes its lock, finishes submits a crash interrupted, starts
//! the dashboard, the bot ([`crate::bot`]), the watcher and the schedule ([`crate::schedule`]), and stops them
//! all on SIGTERM/SIGINT or the shutdown future. Nothing here handles an update or changes a plan.

pub mod lockfile;

use std::future::Future;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::mpsc;

use crate::actions::{Access, Actions};
use crate::bot::{self, Api, Ctx, Looks, State};
use crate::config::BotToken;
use crate::queue::watcher::{self, Mode};
use crate::queue::{Queue, StoreError};
use crate::schedule;
use crate::sync::supervise::AbortOnDrop;

/// Everything the daemon needs to run; built from the config file by the CLI, or directly by tests and the demo.
#[derive(Clone)]
pub struct Settings {
    /// Read only where the HTTP client is built.
    pub token: BotToken,
    /// Bot API base URL; `None` = Telegram's.
    pub api_url: Option<url::Url>,
    pub allowed_users: Vec<u64>,
    /// Names for allowed users (config `people`): name → user id.
    pub people: Vec<(String, u64)>,
    pub queue_dir: PathBuf,
    pub watch: Mode,
    pub notifications: bool,
    /// Quiet hours (announcements and reminders silent, except urgent plans); `None`: never quiet.
    pub quiet_hours: Option<crate::quiet::QuietHours>,
    /// The dashboard's public URL. Only an https one is used: the bot's menu button and a `🗂 Dashboard` button on
    /// the queue open it as a Telegram Mini App.
    pub dashboard_url: Option<String>,
    /// `notifications.timezone`: the days of `/stats`' chart (quiet hours and the digest carry their own).
    pub timezone: chrono_tz::Tz,
    /// The daily digest's time; `None`: no digest.
    pub digest: Option<crate::digest::DigestAt>,
    /// getUpdates long-poll timeout.
    pub poll_timeout: Duration,
    /// HTTP timeout of every other call (the long poll gets this plus its own timeout).
    pub http_timeout: Duration,
    /// The web dashboard; `None`: off.
    pub web: Option<crate::web::WebSettings>,
    /// `telegram.groups`: group chats (and forum topics) that get a card per matching plan.
    pub groups: Vec<crate::config::GroupConfig>,
    /// `rules.grantMinutes`: the longest `⏱ Allow <agent> for N min`.
    pub grant_minutes: u32,
}

impl std::fmt::Debug for Settings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Settings")
            .field("token", &"<redacted>")
            .field("api_url", &self.api_url.as_ref().map(url::Url::as_str))
            .field("allowed_users", &self.allowed_users)
            .field("queue_dir", &self.queue_dir)
            .field("watch", &self.watch)
            .field("dashboard_url", &self.dashboard_url)
            .finish_non_exhaustive()
    }
}

impl Settings {
    /// Defaults for everything but the token, users and queue.
    #[must_use]
    pub fn new(token: BotToken, allowed_users: Vec<u64>, queue_dir: PathBuf) -> Settings {
        Settings {
            token,
            api_url: None,
            allowed_users,
            people: Vec::new(),
            queue_dir,
            watch: Mode::Events {
                poll: Duration::from_millis(1000),
            },
            notifications: true,
            quiet_hours: None,
            dashboard_url: None,
            timezone: chrono_tz::Tz::UTC,
            digest: None,
            poll_timeout: Duration::from_secs(10),
            http_timeout: Duration::from_secs(17),
            web: None,
            groups: Vec::new(),
            grant_minutes: crate::config::DEFAULT_GRANT_MINUTES,
        }
    }
}

/// Why the daemon could not start (once running, it does not stop on errors).
#[derive(Debug, thiserror::Error)]
pub enum DaemonError {
    #[error(transparent)]
    Lock(#[from] lockfile::LockError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Client(#[from] bot::ClientError),
    #[error(transparent)]
    TokenRefused(#[from] bot::TokenRefused),
    #[error(transparent)]
    Web(#[from] crate::web::WebError),
}

/// Runs the daemon until `shutdown` resolves.
pub async fn run(
    settings: Settings,
    shutdown: impl Future<Output = ()>,
) -> Result<(), DaemonError> {
    // Its members go with the queue: a standing rule answering on the daemon (a hook on another machine, MCP's
    // push) answers only for a maker still among them.
    let mut queue = Queue::open(&settings.queue_dir, settings.notifications)?.with_members(
        crate::queue::Members {
            allowed: settings.allowed_users.clone(),
            people: settings.people.clone(),
        },
    );
    // Without the dashboard (whose pages search and render every pending plan whole) the daemon keeps a brief
    // per pending plan: the bot reads a plan whole from its file when it draws one of the plan's own screens.
    if settings.web.is_none() {
        queue = queue.keeping_briefs();
    }
    let _lock = lockfile::acquire(queue.root())?;
    let (recovered, scan) = queue.recover_scan()?;
    for l in &recovered {
        tracing::info!(plan = %l.plan.id, "finished a submit interrupted by a crash");
    }
    // A line torn by a crash in the middle of an append is cut off and recorded, so the chain verifies again.
    if let Err(e) = crate::queue::audit::repair(queue.root(), &crate::clock::now()) {
        tracing::error!(error = %e, "can't repair the audit trail's last line");
    }
    // A change a crash left without its line gets it now, before any tap can repeat it.
    match crate::actions::recover_unrecorded(&queue, &crate::clock::now()) {
        Ok(lines) if !lines.is_empty() => {
            tracing::warn!(
                lines = lines.len(),
                "recorded changes a crash left without their audit lines"
            );
        }
        Ok(_) => {}
        Err(e) => tracing::error!(error = %e, "can't check the plans against the audit trail"),
    }

    let api = Api::new(
        &settings.token,
        settings.api_url.as_ref(),
        settings.http_timeout,
    )?;
    let actions = Actions::new(
        queue,
        Access::new(settings.allowed_users.iter().copied())
            .with_people(settings.people.iter().cloned()),
    )
    .with_grant_minutes(settings.grant_minutes);
    let groups = Arc::new(bot::cards::Groups::new(
        settings.groups.clone(),
        actions.queue().root(),
    ));
    let state = Arc::new(State::default());
    // The dashboard runs beside the bot (also while Telegram is unreachable) and stops with the daemon.
    let web = match &settings.web {
        Some(w) => Some(crate::web::start(w, actions.clone(), state.changes()).await?),
        None => None,
    };
    let ctx = Ctx {
        api,
        actions,
        state,
        quiet: settings.quiet_hours.clone().map(Arc::new),
        web: web.as_ref().map(|w| w.links.clone()),
        looks: None,
        dashboard: mini_app_url(settings.dashboard_url.as_deref()),
        timezone: settings.timezone,
        digest: settings.digest.clone().map(Arc::new),
        groups,
    };

    let polling = start(ctx, &settings, scan);
    tokio::pin!(polling);
    tokio::pin!(shutdown);
    tokio::select! {
        result = &mut polling => result?,
        () = &mut shutdown => tracing::info!("shutting down"),
    }
    Ok(())
}

/// The dashboard URL as a Mini App URL: Telegram opens only https ones, so anything else is no Mini App.
#[must_use]
pub fn mini_app_url(dashboard_url: Option<&str>) -> Option<url::Url> {
    let given = dashboard_url?;
    match url::Url::parse(given) {
        Ok(url) if url.scheme() == "https" && url.host().is_some() => Some(url),
        _ => {
            tracing::info!(url = %given, "the dashboard URL is not https: no Telegram Mini App");
            None
        }
    }
}

/// The bot's start-up calls, deadlines missed while down, the start-up announcement and a missed digest, then the
/// watcher, the announcer and the schedule beside the getUpdates loop. Runs until cancelled.
async fn start(
    ctx: Ctx,
    settings: &Settings,
    first_scan: crate::queue::Briefs,
) -> Result<(), DaemonError> {
    let offset = bot::connect(&ctx).await?;
    let (notice_tx, notice_rx) = mpsc::unbounded_channel();
    let mut first_scan = first_scan;
    schedule::catch_up(&ctx, &mut first_scan, &notice_tx).await;
    bot::watch::initial_scan(&ctx, first_scan, &notice_tx);
    // A digest missed while the daemon was down goes out now, once, after the start-up summary.
    let mut digest_sent = schedule::digest::last_sent(ctx.queue().root());
    schedule::digest::check(&ctx, &mut digest_sent, &notice_tx);
    let (watch, signals) = watcher::watch(&[ctx.queue().pending_dir()], settings.watch);
    let ctx = Ctx {
        looks: Some(Arc::new(Looks {
            busy: tokio::sync::Mutex::new(()),
            listing: tokio::sync::Mutex::new(()),
            changes: signals.changes().clone(),
            notices: notice_tx.clone(),
        })),
        ..ctx
    };
    let watching = tokio::spawn(bot::watch::watch_loop(ctx.clone(), signals));
    // The clock, started again after a panic (it reads what it keeps from its files: the digest's last date).
    let timing = tokio::spawn({
        let (ctx, first) = (ctx.clone(), std::sync::Mutex::new(Some(digest_sent)));
        crate::sync::supervise::restarting("clock", Duration::from_secs(1), move || {
            let sent = crate::sync::lock(&first)
                .take()
                .unwrap_or_else(|| schedule::digest::last_sent(ctx.queue().root()));
            schedule::run(ctx.clone(), notice_tx.clone(), sent)
        })
    });
    let announcing = tokio::spawn(bot::announce::announcer(ctx.clone(), notice_rx));
    // The group cards have their own task: a slow or refusing group never holds up the private chats.
    let cards = ctx
        .groups
        .configured()
        .then(|| AbortOnDrop(tokio::spawn(bot::groups::run(ctx.clone()))));
    let _guards = (
        watch,
        AbortOnDrop(watching),
        AbortOnDrop(announcing),
        AbortOnDrop(timing),
        cards,
    );
    bot::poll(ctx, offset, settings.poll_timeout).await;
    Ok(())
}
