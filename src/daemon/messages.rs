//! Text messages: commands, and custom answers typed after tapping ✏️ Custom.

use teloxide::types::{ChatId, Message};

use crate::plan::{Edit, Plan};
use crate::queue::{Outcome, StoreError};
use crate::telegram::views;

use super::api::Patience;
use super::callbacks::next_view;
use super::context::{Ctx, now};
use super::state::CustomMode;

/// A command the bot understands; `/start@botname` forms included.
#[derive(Debug, PartialEq, Eq)]
pub enum Command<'a> {
    Start(Option<&'a str>),
    Queue,
    Help,
    Cancel,
    Unknown(&'a str),
}

#[must_use]
pub fn parse_command(text: &str) -> Option<Command<'_>> {
    let text = text.trim();
    let rest = text.strip_prefix('/')?;
    let (word, arg) = rest
        .split_once(char::is_whitespace)
        .map_or((rest, ""), |(w, a)| (w, a.trim()));
    let word = word.split('@').next().unwrap_or(word);
    Some(match word {
        "start" => Command::Start((!arg.is_empty()).then_some(arg)),
        "queue" => Command::Queue,
        "help" => Command::Help,
        "cancel" => Command::Cancel,
        other => Command::Unknown(other),
    })
}

pub async fn handle(ctx: &Ctx, msg: Message) {
    let Some(user) = msg.from.as_ref().map(|u| u.id.0) else {
        return;
    };
    let chat = msg.chat.id;
    let Some(text) = msg.text() else {
        send(ctx, chat, &views::help()).await;
        return;
    };
    // A reply to a custom-answer prompt answers that prompt's decision, whatever mode the user is in.
    let replied = msg
        .reply_to_message()
        .and_then(|r| ctx.state.prompt(r.id.0));
    if let Some(mode) = replied.filter(|_| parse_command(text).is_none()) {
        return custom_answer(ctx, chat, user, mode, text).await;
    }
    match parse_command(text) {
        Some(Command::Start(Some(payload))) if payload.starts_with("plan_") => {
            open_plan(ctx, chat, &payload["plan_".len()..]).await;
        }
        Some(Command::Start(_) | Command::Queue) => show_queue(ctx, chat).await,
        Some(Command::Help) => send(ctx, chat, &views::help()).await,
        Some(Command::Cancel) => {
            let was = ctx.state.take_custom(user);
            let text = if was.is_some() {
                "Custom answer cancelled\\."
            } else {
                "Nothing to cancel\\."
            };
            send(ctx, chat, &views::View::text_only(text)).await;
        }
        Some(Command::Unknown(_)) => send(ctx, chat, &views::help()).await,
        None => match ctx.state.custom(user) {
            Some(mode) => custom_answer(ctx, chat, user, mode, text).await,
            None => send(ctx, chat, &views::help()).await,
        },
    }
}

async fn custom_answer(ctx: &Ctx, chat: ChatId, user: u64, mode: CustomMode, text: &str) {
    let edit = Edit::Custom {
        decision: mode.decision_id.clone(),
        text: text.to_owned(),
    };
    let id = mode.plan_id.clone();
    let by = user.to_string();
    let result = ctx
        .blocking(move |queue| queue.edit(&id, &edit, Some(&by), &now()))
        .await;
    match result {
        Ok(Outcome::Edited(l) | Outcome::Completed { plan: l, .. }) => {
            tracing::info!(plan = %l.plan.id, decision = %mode.decision_id, "custom answer recorded");
            ctx.state.take_custom(user);
            if let Some(p) = mode.prompt {
                ctx.state.forget_prompt(p);
            }
            let index = l
                .plan
                .decisions
                .iter()
                .position(|d| d.id == mode.decision_id)
                .unwrap_or(0);
            send(ctx, chat, &next_view(&l.plan, index)).await;
        }
        Err(StoreError::Edit(crate::plan::EditError::EmptyAnswer)) => {
            send(
                ctx,
                chat,
                &views::View::text_only("An answer can't be empty\\. Type it again, or /cancel\\."),
            )
            .await;
        }
        Err(StoreError::NotFound(_)) => {
            ctx.state.take_custom(user);
            send(ctx, chat, &views::not_found()).await;
            show_queue(ctx, chat).await;
        }
        Err(e) => {
            ctx.state.take_custom(user);
            tracing::warn!(plan = %mode.plan_id, error = %e, "custom answer not recorded");
            let note = if matches!(&e, StoreError::Edit(err) if err.is_stale()) {
                "This decision changed since you opened it\\. Nothing was recorded\\."
            } else {
                "Nothing was recorded: the plan file could not be edited\\."
            };
            send(ctx, chat, &views::View::text_only(note)).await;
            if let Some(l) = ctx.fresh(&mode.plan_id).await {
                send(ctx, chat, &views::plan(&l.plan)).await;
            }
        }
    }
}

async fn open_plan(ctx: &Ctx, chat: ChatId, id: &str) {
    let _ = ctx.rescan().await;
    match ctx.fresh(id).await {
        Some(l) => send(ctx, chat, &views::plan(&l.plan)).await,
        None => {
            send(ctx, chat, &views::not_found()).await;
            show_queue(ctx, chat).await;
        }
    }
}

pub async fn show_queue(ctx: &Ctx, chat: ChatId) {
    if let Err(e) = ctx.rescan().await {
        tracing::warn!(error = %e, "rescan failed");
    }
    let plans = ctx.plans();
    let refs: Vec<&Plan> = plans.iter().collect();
    send(ctx, chat, &views::queue(&refs, 0)).await;
}

async fn send(ctx: &Ctx, chat: ChatId, view: &views::View) {
    if let Err(e) = ctx.api.send(chat, view, false, Patience::Interactive).await {
        tracing::error!(error = %e, "can't send a message");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands() {
        assert_eq!(parse_command("/start"), Some(Command::Start(None)));
        assert_eq!(
            parse_command("/start plan_abc"),
            Some(Command::Start(Some("plan_abc")))
        );
        assert_eq!(parse_command("/queue@arbiter_bot"), Some(Command::Queue));
        assert_eq!(parse_command(" /cancel "), Some(Command::Cancel));
        assert_eq!(parse_command("hello"), None);
        assert_eq!(parse_command("/nope"), Some(Command::Unknown("nope")));
    }
}
