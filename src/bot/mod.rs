//! The Telegram adapter: long-polls the Bot API, hands each user's updates to that user's worker (in order),
//! turns taps and messages into owner actions and their outcomes into views, and announces what the watcher
//! and the schedule find. It never exits on API errors; `arbiter run` ([`crate::daemon`]) starts and stops it.
//!
//! The daemon polls by hand instead of running teloxide's `Dispatcher`: see ARCHITECTURE.md ("Why the bot
//! polls by hand").

pub(crate) mod announce;
mod answering;
pub(crate) mod api;
mod callbacks;
pub(crate) mod cards;
mod context;
pub(crate) mod groups;
mod kept;
mod messages;
pub(crate) mod notice;
mod people;
mod rules;
mod snapshot;
mod state;
mod stats;
mod threads;
pub(crate) mod watch;

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use teloxide::prelude::*;
use teloxide::types::{Update, UpdateKind};
use tokio::sync::mpsc;

use crate::actions::Refusal;

use api::{Patience, retry};

pub(crate) use api::{Api, ClientError};
pub(crate) use context::{Ctx, Looks};
pub(crate) use state::State;

/// The Bot API refused the bot token: it never gets better, so the daemon stops with a clear error.
#[derive(Debug, thiserror::Error)]
#[error("Telegram refused the bot token (check telegram.token or ARBITER_TELEGRAM_TOKEN)")]
pub struct TokenRefused;

/// The start-up calls before polling: getMe (a refused token stops here), the command menu and the Mini App
/// menu button (in the background), no webhook, and the updates sent while the daemon was down dropped (stale
/// taps on views that no longer match). Returns the offset to poll from.
pub(crate) async fn connect(ctx: &Ctx) -> Result<i32, TokenRefused> {
    let me = retry("getMe", Patience::Persistent, || {
        ctx.api.bot.get_me().send()
    })
    .await;
    match me {
        Ok(me) => {
            tracing::info!(bot = %me.username(), "connected to the Bot API");
            ctx.groups.set_username(me.username());
        }
        // A wrong token never gets better: stop with a clear error (systemd shows it) instead of polling in vain.
        Err(teloxide::RequestError::Api(teloxide::ApiError::InvalidToken)) => {
            return Err(TokenRefused);
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
    Ok(offset)
}

/// The getUpdates loop from `offset`, each update to its user's worker. Runs until cancelled.
pub(crate) async fn poll(ctx: Ctx, mut offset: i32, poll_timeout: Duration) {
    let mut workers: HashMap<u64, mpsc::UnboundedSender<Update>> = HashMap::new();
    let mut refused: HashSet<u64> = HashSet::new();
    let mut backoff = Duration::from_millis(200);
    let poll_secs = u32::try_from(poll_timeout.as_secs()).unwrap_or(10);
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

/// Hands an update to its user's worker (one per user, so each user's updates are handled in order while users
/// don't wait for each other). Updates from anyone not allowed never reach a worker.
fn dispatch(
    ctx: &Ctx,
    workers: &mut HashMap<u64, mpsc::UnboundedSender<Update>>,
    refused: &mut HashSet<u64>,
    update: Update,
) {
    // Groups: the bot joining or leaving is logged (with the chat id the config takes); a message there is never
    // a command or an answer, whoever wrote it (and an outsider gets no reply in the group).
    match &update.kind {
        UpdateKind::MyChatMember(m) => return groups::membership(ctx, m),
        UpdateKind::Message(m) if !m.chat.is_private() => return groups::seen_message(ctx, m),
        _ => {}
    }
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
                handle_supervised(&ctx, update).await;
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

/// Handles one update in a task of its own, awaited before the user's next: a panic in it (a bug) is logged and
/// the user told the update failed, and the worker goes on with their next update (it would otherwise die with
/// its queue, and the user would never be answered again).
async fn handle_supervised(ctx: &Ctx, update: Update) {
    let (task_ctx, task_update) = (ctx.clone(), update.clone());
    let handled = tokio::spawn(async move { handle(&task_ctx, task_update).await }).await;
    let Err(failure) = handled else { return };
    tracing::error!(error = %failure, update = update.id.0, "handling an update failed; the user is told");
    let sorry = "⚠️ Something went wrong handling that. Nothing may have been recorded: look again and retry.";
    match &update.kind {
        UpdateKind::CallbackQuery(q) => {
            let _ = ctx.api.answer_callback(&q.id.0, Some(sorry), true).await;
        }
        UpdateKind::Message(m) => {
            let _ = ctx.api.bot.send_message(m.chat.id, sorry).send().await;
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
