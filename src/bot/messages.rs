//! Text messages: commands, and custom answers typed after tapping ✏️ Custom.

use teloxide::types::{ChatId, Message};

use crate::actions::{Action, Actor, Opened, Outcome, Typed};
use crate::plan::EditError;
use crate::queue::StoreError;
use crate::telegram::commands::{Command, parse_command};
use crate::telegram::markdown::escape;
use crate::telegram::reply::{self, TYPE_AGAIN};
use crate::telegram::views;
use crate::telegram::views::navigation::next_view;

use super::api::Patience;
use super::context::Ctx;
use super::state::{CustomMode, Reply, Target};

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
            open_plan(ctx, chat, user, &payload["plan_".len()..]).await;
        }
        // A group card's `📂 Open` for a plan id a start parameter can't carry: the plan's button reference.
        Some(Command::Start(Some(payload))) if payload.starts_with("ref_") => {
            let plan = crate::telegram::callback::PlanRef(payload["ref_".len()..].to_owned());
            match ctx.resolve(&plan).await {
                Some(id) => open_plan(ctx, chat, user, &id).await,
                None => {
                    send(ctx, chat, &views::not_found()).await;
                    show_queue(ctx, chat, user).await;
                }
            }
        }
        Some(Command::Start(_) | Command::Queue) => show_queue(ctx, chat, user).await,
        Some(Command::Help) => send(ctx, chat, &views::help()).await,
        Some(Command::Stats) => super::stats::send_stats(ctx, chat, user).await,
        Some(Command::Cancel) => {
            let was = ctx.state.take_custom(user);
            let text = match was.map(|m| m.reply) {
                Some(Reply::Answer) => "Custom answer cancelled\\.",
                Some(Reply::Note) => "Note cancelled\\.",
                Some(Reply::RequestChanges) => "Request for changes cancelled\\.",
                None => "Nothing to cancel\\.",
            };
            send(ctx, chat, &views::View::text_only(text)).await;
        }
        Some(Command::Web) => web_link(ctx, chat, user).await,
        Some(Command::Rules) => ctx.send_rules(chat, user).await,
        Some(Command::Unknown(_)) => send(ctx, chat, &views::help()).await,
        None => match ctx.state.custom(user) {
            Some(mode) => custom_answer(ctx, chat, user, mode, text).await,
            None => send(ctx, chat, &views::help()).await,
        },
    }
}

/// A typed reply after ✏️ Custom or 💬 Note: the decision's custom answer, or its note.
async fn custom_answer(ctx: &Ctx, chat: ChatId, user: u64, mode: CustomMode, text: &str) {
    let answering = &ctx.state.answering;
    let action = match (&mode.target, mode.reply) {
        (Target::Plan { seen }, _) => Action::RequestChanges {
            seen: seen.clone(),
            feedback: text.to_owned(),
        },
        (Target::Decision { id, seen }, Reply::Note) => Action::Note {
            to: Typed::Prompted {
                id: id.clone(),
                seen: seen.clone(),
            },
            text: text.to_owned(),
        },
        (Target::Decision { id, seen }, _) => match answering.typed(user, &mode.plan_id, id) {
            // A text, a number or an edited proposal: read and checked against the decision as its prompt
            // showed it. Text of one's own for a `multi`, beside the options toggled so far (without toggles,
            // beside the recorded ones: the action layer adds it to those).
            Some((decision, seen)) => match answering.picks(user, &mode.plan_id, decision, &seen) {
                Some(options) => Action::AnswerMulti {
                    decision,
                    options,
                    custom: Some(text.to_owned()),
                    seen,
                },
                None => Action::AnswerInput {
                    decision,
                    input: text.to_owned(),
                    seen,
                },
            },
            None => Action::Custom {
                to: Typed::Prompted {
                    id: id.clone(),
                    seen: seen.clone(),
                },
                text: text.to_owned(),
            },
        },
    };
    let outcome = ctx
        .actions
        .act(Actor::User(user), &mode.plan_id, action)
        .await;
    if let Some(refusal) = outcome.input_refusal() {
        // Still in reply mode: the refusal says again what is accepted; the next message is another try.
        tracing::info!(user, plan = %mode.plan_id, %refusal, "typed answer refused");
        return send(ctx, chat, &views::input_refused(refusal)).await;
    }
    if let Outcome::NotRecorded {
        error:
            StoreError::Edit(EditError::EmptyAnswer | EditError::EmptyNote | EditError::EmptyFeedback),
        ..
    } = outcome
    {
        // Still in custom mode: the next message is another try.
        return send(ctx, chat, &views::View::text_only(TYPE_AGAIN)).await;
    }
    ctx.state.take_custom(user);
    if let Target::Decision { id, .. } = &mode.target {
        answering.typed_done(user, &mode.plan_id, id);
    }
    // Nothing recorded: why, before the plan as it is now.
    if let Some(note) = reply::typed(&outcome) {
        send(ctx, chat, &views::View::text_only(&note)).await;
    }
    match outcome {
        Outcome::Recorded {
            plan,
            decision,
            tell,
        } => {
            tracing::info!(plan = %plan.plan.id, target = ?mode.target, reply = ?mode.reply, "typed reply recorded");
            if let Some(p) = mode.prompt {
                ctx.state.forget_prompt(p);
            }
            let plan = &plan.plan;
            let viewer = ctx.viewer(user, plan);
            let view = match mode.reply {
                Reply::Answer => next_view(plan, decision, &views::Drawn::to(&viewer)),
                Reply::Note | Reply::RequestChanges => views::decision(
                    plan,
                    decision,
                    Some("💬 Note saved"),
                    &views::Drawn::to(&viewer),
                ),
            };
            send(ctx, chat, &view).await;
            ctx.tell(user, plan, decision, &tell).await;
        }
        Outcome::SentBack { plan, .. } => {
            tracing::info!(plan = %plan.plan.id, user, "plan sent back with a request for changes");
            if let Some(p) = mode.prompt {
                ctx.state.forget_prompt(p);
            }
            send(ctx, chat, &views::sent_back(&plan.plan)).await;
            let _ = ctx.rescan().await;
        }
        Outcome::Gone | Outcome::Withdrawn(_) => {
            send(ctx, chat, &views::not_found()).await;
            show_queue(ctx, chat, user).await;
        }
        Outcome::Failed(why) => tracing::error!(user, %why, "typed reply failed"),
        Outcome::Refused(refusal) => tracing::info!(user, %refusal, "custom answer refused"),
        Outcome::Stale(plan) => {
            tracing::info!(plan = %mode.plan_id, "custom answer on a changed decision refused");
            send(
                ctx,
                chat,
                &views::plan(&plan.plan, &views::Drawn::to(&ctx.viewer(user, &plan.plan))),
            )
            .await;
        }
        Outcome::NotRecorded { plan, error } => {
            tracing::warn!(plan = %mode.plan_id, error = %error, "custom answer not recorded");
            send(
                ctx,
                chat,
                &views::plan(&plan.plan, &views::Drawn::to(&ctx.viewer(user, &plan.plan))),
            )
            .await;
        }
        Outcome::Current(plan)
        | Outcome::Noted(plan)
        | Outcome::Escalated { plan, .. }
        | Outcome::SignedOff(plan)
        | Outcome::Submitted { plan, .. } => {
            send(
                ctx,
                chat,
                &views::plan(&plan.plan, &views::Drawn::to(&ctx.viewer(user, &plan.plan))),
            )
            .await;
        }
    }
}

async fn open_plan(ctx: &Ctx, chat: ChatId, user: u64, id: &str) {
    let _ = ctx.rescan().await;
    match ctx
        .actions
        .act(Actor::User(user), id, Action::Open)
        .await
        .opened()
    {
        Opened::Plan(l) => {
            let view = views::plan(&l.plan, &views::Drawn::to(&ctx.viewer(user, &l.plan)));
            send(ctx, chat, &view).await;
        }
        Opened::Refused(refusal) => {
            send(
                ctx,
                chat,
                &views::View::text_only(&escape(&refusal.to_string())),
            )
            .await;
        }
        Opened::Missing => {
            send(ctx, chat, &views::not_found()).await;
            show_queue(ctx, chat, user).await;
        }
    }
}

/// `/web`: a one-time login link for the dashboard (only members get this far: the dispatcher drops the rest).
async fn web_link(ctx: &Ctx, chat: ChatId, user: u64) {
    let text = match &ctx.web {
        None => "The web dashboard is off: add a `web` section to config\\.json and restart the daemon\\.".to_owned(),
        Some(links) => match links.login_link(user) {
            Ok(link) => {
                tracing::info!(user, "web login link sent");
                format!(
                    "🗂 Your login link for the dashboard \\(valid 10 minutes, works once\\):\n{}",
                    escape(&link)
                )
            }
            Err(e) => {
                tracing::error!(error = %e, "can't store a web login link");
                "Can't create a login link: the dashboard's state folder is not writable\\.".to_owned()
            }
        },
    };
    send(ctx, chat, &views::View::text_only(&text)).await;
}

pub async fn show_queue(ctx: &Ctx, chat: ChatId, user: u64) {
    let view = ctx.queue_view(Actor::User(user), 0).await;
    send(ctx, chat, &view).await;
}

async fn send(ctx: &Ctx, chat: ChatId, view: &views::View) {
    if let Err(e) = ctx.api.send(chat, view, false, Patience::Interactive).await {
        tracing::error!(error = %e, "can't send a message");
    }
}
