//! The team's group chat: a card per matching plan in the groups (and forum topics) of `telegram.groups`, kept in
//! step with the plan by one task ([`run`]), and the group's taps ([`taps`]) decided by the tapping user's id
//! through the action layer, exactly as in the private chat.
//!
//! Which cards exist is remembered across restarts without a database: `<queue>/telegram-cards.json` (plan id,
//! chat, topic, message id, file name), written atomically whenever a card is posted or retired. The card's
//! content is never stored: it is drawn from the plan file, and redrawn whenever the snapshot of pending/
//! changes (an answer anywhere, an agent's edit, a submit) or a deadline passes.
//!
//! A group that refuses the bot (403: removed from the group; the group gone or moved) is logged once and
//! given up until the bot is added again; a card Telegram refuses for good is not retried. None of it waits in
//! the private chat's path: the cards have their own task, and notices for topics are sent from their own tasks.

pub(crate) mod taps;

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use teloxide::requests::Requester;
use teloxide::types::{ChatId, ChatMemberUpdated, Message};
use teloxide::{ApiError, RequestError};

use crate::plan::{Outline, Plan};
use crate::queue::{Listed, Loaded, Location};
use crate::sync::lock;
use crate::telegram::callback::plan_ref;
use crate::telegram::views::{self, CardState, View, Viewer};

use super::api::Patience;
use super::cards::{CardAt, LastRead};
use super::context::Ctx;

/// How often cards are looked at without a change to pending/ (a deadline passing shows on the card).
const TICK: Duration = Duration::from_secs(5);

/// A message in a group or channel: never a command or an answer (anything typed happens in the private chat).
/// Logged with its chat and topic ids, once each.
pub fn seen_message(ctx: &Ctx, m: &Message) {
    let thread = m.thread_id.filter(|_| m.is_topic_message).map(|t| t.0.0);
    ctx.groups.log_seen(m.chat.id.0, thread, m.chat.title());
}

/// The bot was added to a chat, or removed from it: logged with the chat id (what `telegram.groups` takes).
pub fn membership(ctx: &Ctx, update: &ChatMemberUpdated) {
    let chat = update.chat.id.0;
    if update.chat.is_private() {
        return;
    }
    let present = update.new_chat_member.is_present();
    let configured = ctx.groups.config().iter().any(|g| g.chat == chat);
    if present {
        lock(&ctx.groups.lost).remove(&chat);
        tracing::info!(
            chat,
            title = update.chat.title().unwrap_or_default(),
            by = update.from.id.0,
            configured,
            "the bot was added to a group (telegram.groups takes this chat id)"
        );
        ctx.groups.wake();
    } else {
        lock(&ctx.groups.lost).insert(chat);
        tracing::warn!(
            chat,
            by = update.from.id.0,
            configured,
            "the bot was removed from a group: no more cards there"
        );
    }
}

/// True when Telegram will not take anything for this chat again: the bot was removed, or the chat is gone
/// or moved (a group upgraded to a supergroup gets a new id).
fn chat_lost(e: &RequestError) -> bool {
    match e {
        RequestError::Api(
            ApiError::BotKicked
            | ApiError::BotKickedFromSupergroup
            | ApiError::BotKickedFromChannel
            | ApiError::ChatNotFound,
        )
        | RequestError::MigrateToChatId(_) => true,
        RequestError::Api(ApiError::Unknown(d)) => {
            d.starts_with("Forbidden") || d.contains("chat not found")
        }
        _ => false,
    }
}

/// Keeps every card in step with its plan until the task is aborted: posts cards for plans that match a group,
/// redraws them as the plans change, and retires them (submitted, gone).
pub async fn run(ctx: Ctx) {
    let mut changes = ctx.state.changes().subscribe();
    loop {
        sync(&ctx).await;
        tokio::select! {
            _ = changes.recv() => {}
            () = ctx.groups.wake.notified() => {}
            () = tokio::time::sleep(TICK) => {}
        }
    }
}

/// One pass: every pending plan's cards posted or redrawn, every card of a plan no longer pending retired.
async fn sync(ctx: &Ctx) {
    let groups = &ctx.groups;
    if lock(&groups.username).is_none()
        && let Ok(me) = ctx.api.bot.get_me().await
    {
        groups.set_username(me.username());
    }
    let carded: Vec<Arc<Listed>> = ctx.state.with_snapshot(|s| {
        s.plans
            .iter()
            .filter(|l| !groups.places(&l.brief).is_empty() || groups.cards.has(l.brief.id()))
            .cloned()
            .collect()
    });
    let mut still: HashSet<String> = HashSet::new();
    for listed in carded {
        still.insert(listed.brief.id().to_owned());
        let Some(loaded) = whole(ctx, &listed).await else {
            continue;
        };
        for (chat, thread) in groups.places(&loaded.plan) {
            if groups.cards.at(&loaded.plan.id, chat).is_none() {
                post(ctx, &loaded, chat, thread).await;
            }
        }
        for card in groups.cards.of(&loaded.plan.id) {
            draw(ctx, &loaded.plan, &card, CardState::Pending).await;
        }
    }
    for id in groups.cards.plans() {
        if !still.contains(&id) {
            retire(ctx, &id).await;
        }
    }
}

/// The whole plan a card is drawn from: the one read for this brief last time, else read from its file now (the
/// snapshot keeps briefs). `None`: the file is gone or holds another plan now (the next look will say).
async fn whole(ctx: &Ctx, listed: &Arc<Listed>) -> Option<Arc<Loaded>> {
    let id = listed.brief.id();
    if let Some(last) = lock(&ctx.groups.last).get(id)
        && Arc::ptr_eq(&last.read_for, listed)
    {
        return Some(Arc::clone(&last.loaded));
    }
    let (path, want) = (listed.path.clone(), id.to_owned());
    let loaded = tokio::task::spawn_blocking(move || {
        crate::queue::load(&path, Location::Pending)
            .ok()
            .filter(|l| l.plan.id == want)
    })
    .await
    .ok()
    .flatten()?;
    let loaded = Arc::new(loaded);
    let last = LastRead {
        read_for: Arc::clone(listed),
        loaded: Arc::clone(&loaded),
    };
    lock(&ctx.groups.last).insert(id.to_owned(), last);
    Some(loaded)
}

/// Posts `plan`'s card into `chat` (topic `thread`) and remembers it.
async fn post(ctx: &Ctx, loaded: &Loaded, chat: i64, thread: Option<i32>) {
    let plan = &loaded.plan;
    let key = (plan.id.clone(), chat);
    if lock(&ctx.groups.given_up).contains(&key) || lock(&ctx.groups.lost).contains(&chat) {
        return;
    }
    let view = card_view(ctx, plan, CardState::Pending);
    let silent = ctx.silent([plan]);
    match ctx
        .api
        .send_in(ChatId(chat), thread, &view, silent, Patience::Interactive)
        .await
    {
        Ok(message) => {
            tracing::info!(plan = %plan.id, chat, topic = ?thread, message = message.0, "card posted");
            let file = loaded
                .path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned());
            let card = CardAt {
                plan: plan.id.clone(),
                chat,
                thread,
                message: message.0,
                file: file.unwrap_or_default(),
            };
            lock(&ctx.groups.drawn).insert(key, view);
            ctx.groups.cards.add(card, ctx.queue().root()).await;
        }
        Err(e) if chat_lost(&e) => ctx.groups.lose(chat, &e),
        Err(e) => {
            // A 400 (a topic that no longer exists, say) does not get better: not tried again for this plan.
            tracing::error!(plan = %plan.id, chat, topic = ?thread, error = %e, "can't post a card; not trying again for this plan");
            lock(&ctx.groups.given_up).insert(key);
        }
    }
}

/// Redraws a card when its view changed (edits cost a call and count against the group's rate limit).
async fn draw(ctx: &Ctx, plan: &Plan, card: &CardAt, state: CardState) {
    let view = card_view(ctx, plan, state);
    let key = (card.plan.clone(), card.chat);
    if lock(&ctx.groups.drawn).get(&key) == Some(&view) {
        return;
    }
    match ctx
        .api
        .edit(
            ChatId(card.chat),
            teloxide::types::MessageId(card.message),
            &view,
        )
        .await
    {
        Ok(()) => {
            tracing::debug!(plan = %plan.id, chat = card.chat, message = card.message, "card redrawn");
            lock(&ctx.groups.drawn).insert(key, view);
        }
        Err(e) if chat_lost(&e) => {
            ctx.groups.lose(card.chat, &e);
            ctx.groups
                .cards
                .remove(&card.plan, card.chat, ctx.queue().root())
                .await;
        }
        Err(e) => {
            // The card was deleted in the group, or Telegram refuses it for good: forget it, never loop on it.
            tracing::warn!(plan = %plan.id, chat = card.chat, message = card.message, error = %e, "can't redraw a card; forgetting it");
            lock(&ctx.groups.given_up).insert(key);
            ctx.groups
                .cards
                .remove(&card.plan, card.chat, ctx.queue().root())
                .await;
        }
    }
}

/// A carded plan left pending/: its cards say submitted (it is in completed/) or gone, then are forgotten.
async fn retire(ctx: &Ctx, id: &str) {
    let cards = ctx.groups.cards.of(id);
    let Some(first) = cards.first() else { return };
    let completed = completed(ctx, id, &first.file).await;
    let (plan, state) = match completed {
        Some(l) if l.plan.declined() => (Some(l.plan), CardState::Declined),
        Some(l) => (Some(l.plan), CardState::Submitted),
        None => match returned(ctx, id).await {
            Some(l) => (Some(l.plan), CardState::SentBack),
            None => (
                lock(&ctx.groups.last)
                    .get(id)
                    .map(|last| last.loaded.plan.clone()),
                CardState::Gone,
            ),
        },
    };
    for card in &cards {
        match &plan {
            Some(plan) => draw(ctx, plan, card, state).await,
            None => tracing::info!(
                plan = id,
                chat = card.chat,
                "a carded plan left the queue while the daemon was down; its card stays as it was"
            ),
        }
        ctx.groups
            .cards
            .remove(id, card.chat, ctx.queue().root())
            .await;
        lock(&ctx.groups.drawn).remove(&(id.to_owned(), card.chat));
    }
    tracing::info!(plan = id, ?state, "cards retired");
    lock(&ctx.groups.last).remove(id);
}

/// Plan `id` in completed/: where this daemon put it, else under the name it had in pending/ (a submit by the
/// dashboard, or before a restart).
async fn completed(ctx: &Ctx, id: &str, file: &str) -> Option<Loaded> {
    let remembered = ctx.state.completed(&plan_ref(id));
    let by_name = (!file.is_empty()).then(|| ctx.queue().completed_dir().join(file));
    let want = id.to_owned();
    tokio::task::spawn_blocking(move || {
        [remembered, by_name]
            .into_iter()
            .flatten()
            .filter_map(|path| crate::queue::load(&path, Location::Completed).ok())
            .find(|l| l.plan.id == want)
    })
    .await
    .ok()
    .flatten()
}

/// Plan `id` in returned/ (sent back with a request for changes).
async fn returned(ctx: &Ctx, id: &str) -> Option<Loaded> {
    let queue = ctx.queue().clone();
    let want = id.to_owned();
    tokio::task::spawn_blocking(move || queue.find_returned(&want).ok().flatten())
        .await
        .ok()
        .flatten()
}

/// The card of `plan` as the group sees it.
fn card_view(ctx: &Ctx, plan: &Plan, state: CardState) -> View {
    let access = ctx.actions.access();
    let names = Viewer {
        names: access
            .members()
            .filter_map(|m| access.name_of(m).map(|n| (m, n.to_owned())))
            .collect(),
        ..Viewer::default()
    };
    let open = ctx.groups.open(&plan.id);
    views::card(
        plan,
        &views::Card {
            state,
            open: open.as_ref(),
            names: &names,
            now: chrono::Utc::now(),
        },
    )
}

/// What the clock tells a plan's topic.
#[derive(Debug, Clone)]
pub enum TopicNotice {
    Reminder,
    /// Escalated to these people (by name where `people` has one).
    Escalated(Vec<u64>),
    DeadlineSubmitted,
}

/// Sends a reminder, an escalation or a deadline notice about `plan` to the topics its cards are in, on a task
/// of its own (a slow or refusing group never holds up the private chats). `silent`: quiet hours.
pub fn notify_topics(ctx: &Ctx, plan: &Plan, notice: TopicNotice, silent: bool) {
    let places = ctx.groups.topics_of(&plan.id);
    if places.is_empty() {
        return;
    }
    let now = chrono::Utc::now();
    let view = match notice {
        TopicNotice::Reminder => views::in_group(
            views::nudge(plan, views::Nudge::Reminder, now),
            ctx.groups.open(&plan.id).as_ref(),
        ),
        TopicNotice::Escalated(to) => {
            let names: Vec<String> = to.iter().map(|u| ctx.name(*u)).collect();
            views::escalated_in_group(plan, &names, ctx.groups.open(&plan.id).as_ref(), now)
        }
        TopicNotice::DeadlineSubmitted => views::in_group(views::deadline_submitted(plan), None),
    };
    let ctx = ctx.clone();
    let plan_id = plan.id.clone();
    tokio::spawn(async move {
        for (chat, thread) in places {
            match ctx
                .api
                .send_in(ChatId(chat), thread, &view, silent, Patience::Interactive)
                .await
            {
                Ok(_) => {
                    tracing::info!(plan = %plan_id, chat, topic = ?thread, "notice sent to the plan's topic")
                }
                Err(e) if chat_lost(&e) => ctx.groups.lose(chat, &e),
                Err(e) => {
                    tracing::warn!(plan = %plan_id, chat, error = %e, "can't send a notice to a group")
                }
            }
        }
    });
}
