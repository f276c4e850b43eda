//! Button taps. Each tap's file work happens before the callback query is answered, so a tap Telegram shows as
//! acknowledged is on disk; then the tapped message is edited in place.

use teloxide::types::{CallbackQuery, ChatId, MessageId};

use crate::plan::{Edit, Plan};
use crate::queue::{Outcome, StoreError};
use crate::telegram::callback::{Callback, fingerprint};
use crate::telegram::views;

use super::context::{Ctx, now};
use super::state::CustomMode;

const STALE: &str = "This plan changed since this view was drawn. Nothing was recorded; here is the current version.";
const INVALID: &str = "This button is no longer valid.";

/// Where the tapped message is, if Telegram still lets us edit it.
fn origin(q: &CallbackQuery) -> (ChatId, Option<MessageId>) {
    match q.regular_message() {
        Some(m) => (m.chat.id, Some(m.id)),
        None => (ChatId(q.from.id.0 as i64), None),
    }
}

pub async fn handle(ctx: &Ctx, q: CallbackQuery) {
    let user = q.from.id.0;
    let (chat, message) = origin(&q);
    let Some(cb) = q.data.as_deref().and_then(Callback::decode) else {
        tracing::info!(user, "undecodable callback data");
        answer(ctx, &q, Some(INVALID), true).await;
        return;
    };
    tracing::debug!(user, data = %cb.encode(), "tap");
    match cb {
        // Wired once the daemon's tap handling moves to the actions layer.
        Callback::Noop | Callback::FullContext { .. } => answer(ctx, &q, None, false).await,
        Callback::Queue { page } => {
            answer(ctx, &q, None, false).await;
            if let Err(e) = ctx.rescan().await {
                tracing::warn!(error = %e, "rescan failed");
            }
            let plans = ctx.plans();
            let refs: Vec<&Plan> = plans.iter().collect();
            ctx.show(chat, message, &views::queue(&refs, usize::from(page)))
                .await;
        }
        Callback::Open { ref plan }
        | Callback::Continue { ref plan }
        | Callback::Review { ref plan }
        | Callback::Show { ref plan, .. } => {
            let Some(loaded) = ctx.resolve(plan).await else {
                return plan_gone(ctx, &q, chat, message).await;
            };
            let p = &loaded.plan;
            let view = match cb {
                Callback::Open { .. } => views::plan(p),
                Callback::Continue { .. } => match p.next_pending(0) {
                    Some(i) => views::decision(p, i, None),
                    None => views::review(p, None),
                },
                Callback::Review { .. } => views::review(p, None),
                Callback::Show { index, .. } if usize::from(index) < p.decisions.len() => {
                    views::decision(p, usize::from(index), None)
                }
                _ => views::plan(p),
            };
            tokio::join!(answer(ctx, &q, None, false), ctx.show(chat, message, &view));
        }
        Callback::Answer {
            plan,
            index,
            option,
            seen,
        } => {
            let Some(loaded) = ctx.resolve(&plan).await else {
                return plan_gone(ctx, &q, chat, message).await;
            };
            let p = &loaded.plan;
            let target = p.decisions.get(usize::from(index)).and_then(|d| {
                let o = d.options.get(usize::from(option))?;
                (fingerprint(&[&d.id, &o.key, &o.label]) == seen).then(|| Edit::Answer {
                    decision: d.id.clone(),
                    key: o.key.clone(),
                    label: o.label.clone(),
                })
            });
            let Some(edit) = target else {
                return stale(ctx, &q, chat, message, p, usize::from(index)).await;
            };
            record(ctx, &q, chat, message, &p.id, edit, usize::from(index)).await;
        }
        Callback::Skip { plan, index, seen } => {
            let Some(loaded) = ctx.resolve(&plan).await else {
                return plan_gone(ctx, &q, chat, message).await;
            };
            let p = &loaded.plan;
            let target = p
                .decisions
                .get(usize::from(index))
                .filter(|d| fingerprint(&[&d.id]) == seen);
            let Some(d) = target else {
                return stale(ctx, &q, chat, message, p, usize::from(index)).await;
            };
            let edit = Edit::Skip {
                decision: d.id.clone(),
            };
            record(ctx, &q, chat, message, &p.id, edit, usize::from(index)).await;
        }
        Callback::Custom { plan, index, seen } => {
            let Some(loaded) = ctx.resolve(&plan).await else {
                return plan_gone(ctx, &q, chat, message).await;
            };
            let p = &loaded.plan;
            let Some(d) = p
                .decisions
                .get(usize::from(index))
                .filter(|d| fingerprint(&[&d.id]) == seen)
            else {
                return stale(ctx, &q, chat, message, p, usize::from(index)).await;
            };
            answer(ctx, &q, None, false).await;
            let prompt = views::custom_prompt(p, usize::from(index));
            let sent = ctx
                .api
                .send(chat, &prompt, false, super::api::Patience::Interactive)
                .await;
            let mode = CustomMode {
                plan_id: p.id.clone(),
                decision_id: d.id.clone(),
                prompt: sent.ok().map(|m| m.0),
            };
            ctx.state.start_custom(user, mode);
        }
        Callback::Submit { plan } => {
            let Some(loaded) = ctx.resolve(&plan).await else {
                return plan_gone(ctx, &q, chat, message).await;
            };
            let id = loaded.plan.id.clone();
            let by = user.to_string();
            match ctx
                .blocking(move |queue| queue.edit(&id, &Edit::Submit, Some(&by), &now()))
                .await
            {
                Ok(Outcome::Completed { plan, notify }) => {
                    tracing::info!(plan = %plan.plan.id, notify = ?notify, "plan submitted");
                    answer(ctx, &q, Some("📤 Submitted"), false).await;
                    ctx.show(chat, message, &views::completion(&plan.plan))
                        .await;
                    let _ = ctx.rescan().await;
                }
                Ok(Outcome::Edited(l)) => {
                    answer(ctx, &q, None, false).await;
                    ctx.show(chat, message, &views::review(&l.plan, None)).await;
                }
                Err(e) => failed(ctx, &q, chat, message, &loaded.plan, 0, e).await,
            }
        }
    }
}

/// Applies an answer or a skip, acknowledges the tap, and moves on to the next pending decision or the review.
async fn record(
    ctx: &Ctx,
    q: &CallbackQuery,
    chat: ChatId,
    message: Option<MessageId>,
    plan_id: &str,
    edit: Edit,
    index: usize,
) {
    let id = plan_id.to_owned();
    let by = q.from.id.0.to_string();
    let applied = ctx
        .blocking(move |queue| queue.edit(&id, &edit, Some(&by), &now()))
        .await;
    match applied {
        Ok(Outcome::Edited(l)) | Ok(Outcome::Completed { plan: l, .. }) => {
            tracing::info!(plan = %l.plan.id, decision = index, "recorded");
            // The answer is on disk: acknowledge the tap and redraw at the same time.
            let view = next_view(&l.plan, index);
            tokio::join!(answer(ctx, q, None, false), ctx.show(chat, message, &view));
        }
        Err(e) => {
            let Some(fresh) = ctx.fresh(plan_id).await else {
                return plan_gone(ctx, q, chat, message).await;
            };
            failed(ctx, q, chat, message, &fresh.plan, index, e).await;
        }
    }
}

/// After decision `index` was settled: the next pending decision after it, or the review summary.
pub fn next_view(plan: &Plan, index: usize) -> views::View {
    let confirm = plan.decisions.get(index).map(views::after_answer);
    match plan.next_pending(index + 1) {
        Some(next) => views::decision(plan, next, confirm.as_deref()),
        None => views::review(plan, confirm.as_deref()),
    }
}

async fn failed(
    ctx: &Ctx,
    q: &CallbackQuery,
    chat: ChatId,
    message: Option<MessageId>,
    plan: &Plan,
    index: usize,
    e: StoreError,
) {
    match e {
        StoreError::NotFound(_) => plan_gone(ctx, q, chat, message).await,
        StoreError::Edit(ref err) if err.is_stale() => {
            stale(ctx, q, chat, message, plan, index).await
        }
        other => {
            tracing::error!(plan = %plan.id, error = %other, "could not record");
            let text = format!("Nothing recorded: {other}");
            answer(
                ctx,
                q,
                Some(&crate::telegram::markdown::truncate_chars(&text, 190)),
                true,
            )
            .await;
            ctx.show(chat, message, &views::plan(plan)).await;
        }
    }
}

async fn stale(
    ctx: &Ctx,
    q: &CallbackQuery,
    chat: ChatId,
    message: Option<MessageId>,
    plan: &Plan,
    index: usize,
) {
    tracing::info!(plan = %plan.id, decision = index, "stale view refused");
    answer(ctx, q, Some(STALE), true).await;
    let view = if index < plan.decisions.len() {
        views::decision(plan, index, None)
    } else {
        views::plan(plan)
    };
    ctx.show(chat, message, &view).await;
}

async fn plan_gone(ctx: &Ctx, q: &CallbackQuery, chat: ChatId, message: Option<MessageId>) {
    answer(ctx, q, Some(views::PLAN_GONE_ALERT), true).await;
    let _ = ctx.rescan().await;
    let plans = ctx.plans();
    let refs: Vec<&Plan> = plans.iter().collect();
    ctx.show(chat, message, &views::queue(&refs, 0)).await;
}

async fn answer(ctx: &Ctx, q: &CallbackQuery, text: Option<&str>, alert: bool) {
    if let Err(e) = ctx.api.answer_callback(&q.id.0, text, alert).await {
        tracing::warn!(error = %e, "can't answer the callback query");
    }
}
