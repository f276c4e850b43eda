//! `arbiter run`: the Telegram daemon. Long-polls the Bot API, hands each user's updates to that user's worker
//! (in order), watches pending/ for new plans, and never exits on API errors — only on SIGTERM/SIGINT or the
//! shutdown future.

mod announce;
pub mod api;
mod callbacks;
mod clock;
mod context;
mod digest;
pub mod lockfile;
mod messages;
mod people;
mod state;
mod stats;

use std::collections::{HashMap, HashSet};
use std::future::Future;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use teloxide::prelude::*;
use teloxide::types::{Update, UpdateKind};
use tokio::sync::mpsc;

use crate::actions::{Access, Actions, Refusal};
use crate::config::BotToken;
use crate::queue::watcher::{self, Mode};
use crate::queue::{Queue, StoreError};

use api::{Api, Patience, retry};
use context::Ctx;
use state::State;

pub use messages::{Command, parse_command};

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
    pub timezone: jiff::tz::TimeZone,
    /// The daily digest's time; `None`: no digest.
    pub digest: Option<crate::digest::DigestAt>,
    /// getUpdates long-poll timeout.
    pub poll_timeout: Duration,
    /// HTTP timeout of every other call (the long poll gets this plus its own timeout).
    pub http_timeout: Duration,
    /// The web dashboard; `None`: off.
    pub web: Option<crate::web::WebSettings>,
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
            timezone: jiff::tz::TimeZone::UTC,
            digest: None,
            poll_timeout: Duration::from_secs(10),
            http_timeout: Duration::from_secs(17),
            web: None,
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
    #[error("can't build the HTTP client: {0}")]
    Client(String),
    #[error("Telegram refused the bot token (check telegram.token or ARBITER_TELEGRAM_TOKEN)")]
    TokenRefused,
    #[error(transparent)]
    Web(#[from] crate::web::WebError),
}

/// Runs the daemon until `shutdown` resolves.
pub async fn run(
    settings: Settings,
    shutdown: impl Future<Output = ()>,
) -> Result<(), DaemonError> {
    let queue = Queue::open(&settings.queue_dir, settings.notifications)?;
    let _lock = lockfile::acquire(queue.root())?;
    let (recovered, scan) = queue.recover_scan()?;
    for l in &recovered {
        tracing::info!(plan = %l.plan.id, "finished a submit interrupted by a crash");
    }

    let client = teloxide::net::default_reqwest_settings()
        .timeout(settings.http_timeout)
        .build()
        .map_err(|e| DaemonError::Client(e.to_string()))?;
    let mut bot = Bot::with_client(settings.token.expose(), client);
    if let Some(url) = &settings.api_url {
        bot = bot.set_api_url(url.clone());
    }
    let actions = Actions::new(
        queue,
        Access::new(settings.allowed_users.iter().copied())
            .with_people(settings.people.iter().cloned()),
    );
    let state = Arc::new(State::default());
    // The dashboard runs beside the bot (also while Telegram is unreachable) and stops with the daemon.
    let web = match &settings.web {
        Some(w) => Some(crate::web::start(w, actions.clone(), state.changes()).await?),
        None => None,
    };
    let ctx = Ctx {
        api: Api { bot: bot.clone() },
        actions,
        state,
        quiet: settings.quiet_hours.clone().map(Arc::new),
        web: web.as_ref().map(|w| w.links.clone()),
        looks: None,
        dashboard: mini_app_url(settings.dashboard_url.as_deref()),
        timezone: settings.timezone.clone(),
        digest: settings.digest.clone().map(Arc::new),
    };

    let polling = poll(ctx.clone(), settings.clone(), scan);
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

/// Start-up calls, the watcher, then the getUpdates loop. Runs until cancelled.
async fn poll(
    ctx: Ctx,
    settings: Settings,
    first_scan: crate::queue::Scan,
) -> Result<(), DaemonError> {
    let me = retry("getMe", Patience::Persistent, || {
        ctx.api.bot.get_me().send()
    })
    .await;
    match me {
        Ok(me) => tracing::info!(bot = %me.username(), "connected to the Bot API"),
        // A wrong token never gets better: stop with a clear error (systemd shows it) instead of polling in vain.
        Err(teloxide::RequestError::Api(teloxide::ApiError::InvalidToken)) => {
            return Err(DaemonError::TokenRefused);
        }
        Err(e) => tracing::error!(error = %e, "getMe failed"),
    }
    let api = ctx.api.clone();
    tokio::spawn(async move {
        if let Err(e) = api.set_commands().await {
            tracing::warn!(error = %e, "setMyCommands failed");
        }
    });
    if let Some(dashboard) = ctx.dashboard.clone() {
        let api = ctx.api.clone();
        tokio::spawn(async move {
            if let Err(e) = api.set_dashboard_menu_button(&dashboard).await {
                tracing::warn!(error = %e, "setChatMenuButton failed");
            }
        });
    }

    // A webhook left by another program would make every getUpdates fail with 409.
    if let Err(e) = retry("deleteWebhook", Patience::Persistent, || {
        ctx.api.bot.delete_webhook().send()
    })
    .await
    {
        tracing::warn!(error = %e, "deleteWebhook failed");
    }
    // Drop updates sent while the daemon was down: stale taps on views that no longer match.
    let mut offset: i32 = 0;
    let dropped = retry("getUpdates", Patience::Persistent, || {
        ctx.api.bot.get_updates().offset(-1).timeout(0).send()
    })
    .await;
    if let Ok(updates) = dropped
        && let Some(last) = updates.last()
    {
        offset = next_offset(last);
    }

    let (notice_tx, notice_rx) = mpsc::unbounded_channel();
    let mut first_scan = first_scan;
    clock::catch_up(&ctx, &mut first_scan, &notice_tx).await;
    announce::initial_scan(&ctx, first_scan, &notice_tx);
    // A digest missed while the daemon was down goes out now, once, after the start-up summary.
    let mut digest_sent = digest::last_sent(ctx.queue().root());
    digest::check(&ctx, &mut digest_sent, &notice_tx);
    let (watch, signals) = watcher::watch(&[ctx.queue().pending_dir()], settings.watch);
    let ctx = Ctx {
        looks: Some(Arc::new(context::Looks {
            busy: tokio::sync::Mutex::new(()),
            changes: signals.changes().clone(),
            notices: notice_tx.clone(),
        })),
        ..ctx
    };
    let watching = tokio::spawn(announce::watch_loop(ctx.clone(), signals));
    let timing = tokio::spawn(clock::run(ctx.clone(), notice_tx, digest_sent));
    let announcing = tokio::spawn(announce::announcer(ctx.clone(), notice_rx));
    let _guards = (
        watch,
        AbortOnDrop(watching),
        AbortOnDrop(announcing),
        AbortOnDrop(timing),
    );

    let mut workers: HashMap<u64, mpsc::UnboundedSender<Update>> = HashMap::new();
    let mut refused: HashSet<u64> = HashSet::new();
    let mut backoff = Duration::from_millis(200);
    let poll_secs = u32::try_from(settings.poll_timeout.as_secs()).unwrap_or(10);
    loop {
        match ctx
            .api
            .bot
            .get_updates()
            .offset(offset)
            .timeout(poll_secs)
            .send()
            .await
        {
            Ok(updates) => {
                backoff = Duration::from_millis(200);
                for update in updates {
                    offset = next_offset(&update);
                    dispatch(&ctx, &mut workers, &mut refused, update);
                }
            }
            Err(e) => {
                let wait = match &e {
                    teloxide::RequestError::RetryAfter(s) => s.duration(),
                    _ => backoff,
                };
                tracing::warn!(error = %e, wait_ms = wait.as_millis() as u64, "getUpdates failed; polling again");
                tokio::time::sleep(wait).await;
                // A short cap: once Telegram is back, the owner's next tap must not wait out a long backoff.
                backoff = (backoff * 2).min(POLL_BACKOFF_CAP);
            }
        }
    }
}

/// The longest pause between two failed getUpdates calls (a `retry_after` from Telegram is honoured in full).
const POLL_BACKOFF_CAP: Duration = Duration::from_secs(5);

fn next_offset(update: &Update) -> i32 {
    i32::try_from(update.id.0).map_or(i32::MAX, |id| id.saturating_add(1))
}

struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Hands an update to its user's worker (one per user, so each user's updates are handled in order while users
/// don't wait for each other). Updates from anyone not allowed never reach a worker.
fn dispatch(
    ctx: &Ctx,
    workers: &mut HashMap<u64, mpsc::UnboundedSender<Update>>,
    refused: &mut HashSet<u64>,
    update: Update,
) {
    let Some(user) = update.from().map(|u| u.id.0) else {
        return;
    };
    if !ctx.actions.access().is_member(user) {
        tracing::info!(user, "update from a user not in allowedUsers ignored");
        refuse(ctx, refused, user, &update);
        return;
    }
    let sender = workers.entry(user).or_insert_with(|| {
        let (tx, mut rx) = mpsc::unbounded_channel::<Update>();
        let ctx = ctx.clone();
        tokio::spawn(async move {
            while let Some(update) = rx.recv().await {
                handle(&ctx, update).await;
            }
        });
        tx
    });
    let _ = sender.send(update);
}

/// Outsiders get a fixed refusal and no plan data: their taps are answered with it, and their first message
/// gets it once (so they know the bot is private, and can't make it talk in a loop).
fn refuse(ctx: &Ctx, refused: &mut HashSet<u64>, user: u64, update: &Update) {
    let refusal = Refusal::Outsider.to_string();
    let api = ctx.api.clone();
    match &update.kind {
        UpdateKind::CallbackQuery(q) => {
            let id = q.id.0.clone();
            tokio::spawn(async move {
                let _ = api.answer_callback(&id, Some(&refusal), true).await;
            });
        }
        UpdateKind::Message(m) if refused.len() < 10_000 && refused.insert(user) => {
            let chat = m.chat.id;
            tokio::spawn(async move {
                let _ = api.bot.send_message(chat, refusal).send().await;
            });
        }
        _ => {}
    }
}

async fn handle(ctx: &Ctx, update: Update) {
    match update.kind {
        UpdateKind::Message(m) => messages::handle(ctx, m).await,
        UpdateKind::CallbackQuery(q) => callbacks::handle(ctx, q).await,
        _ => {}
    }
}
