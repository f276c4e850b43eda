//! Taps on a card in a group. Who may answer is decided by the tapping user's id through the action layer, exactly
//! as in the private chat (outsiders never get this far: the dispatcher refuses them); a refusal is an alert and
//! changes nothing. Only a card's quick answer is taken here: anything else (typing, notes, delegation, submit)
//! belongs to the private chat, which `📂 Open` leads to.

use teloxide::types::CallbackQuery;

use crate::actions::{Actor, Outcome};
use crate::telegram::callback::Callback;
use crate::telegram::markdown::truncate;
use crate::telegram::views;
use crate::telegram::views::navigation::translate;

use super::super::context::Ctx;

/// The alert for a button that does not belong on a card (forged, or from an old private view).
pub const PRIVATE_ONLY: &str =
    "This is done in the private chat with the bot: tap 📂 Open. Nothing was recorded.";
const STALE: &str = "This plan changed since the card was drawn. Nothing was recorded.";
const INVALID: &str = "This button is no longer valid.";

/// A tap by a member on a message in a group.
pub async fn handle(ctx: &Ctx, q: &CallbackQuery) {
    let user = q.from.id.0;
    let answer = |text: Option<String>, alert: bool| async move {
        if let Err(e) = ctx
            .api
            .answer_callback(&q.id.0, text.as_deref(), alert)
            .await
        {
            tracing::warn!(error = %e, "can't answer a group tap");
        }
    };
    let cb = q.data.as_deref().and_then(Callback::decode);
    let answer_tap = match cb {
        Some(cb @ (Callback::Answer { .. } | Callback::Boolean { .. })) => cb,
        Some(Callback::Noop) => return answer(None, false).await,
        None => return answer(Some(INVALID.to_owned()), true).await,
        Some(other) => {
            tracing::info!(user, data = %other.encode(), "a private-chat button tapped in a group: refused");
            return answer(Some(PRIVATE_ONLY.to_owned()), true).await;
        }
    };
    let Some((plan, action, _)) = translate(answer_tap) else {
        return answer(Some(INVALID.to_owned()), true).await;
    };
    let Some(id) = ctx.resolve(&plan).await else {
        answer(Some(views::PLAN_GONE_ALERT.to_owned()), true).await;
        return ctx.groups.wake();
    };
    match ctx.actions.act(Actor::User(user), &id, action).await {
        Outcome::Recorded {
            plan,
            decision,
            tell,
        } => {
            let plan = &plan.plan;
            tracing::info!(plan = %plan.id, decision, user, "quick answer in a group recorded");
            let said = plan.decisions.get(decision).map(|d| {
                let shown = d
                    .chosen_option()
                    .map(|i| d.options[i].label.clone())
                    .filter(|l| !l.trim().is_empty())
                    .unwrap_or_else(|| views::shown_answer(d));
                truncate(&format!("✅ {} → {shown}", d.title), 190)
            });
            answer(said, false).await;
            // The card is redrawn from the snapshot, for everyone in the group.
            let _ = ctx.rescan().await;
            ctx.groups.wake();
            ctx.tell(user, plan, decision, &tell).await;
        }
        Outcome::Refused(refusal) => {
            tracing::info!(user, %refusal, "group tap refused");
            answer(Some(refusal.to_string()), true).await;
        }
        Outcome::Stale(l) => {
            tracing::info!(plan = %l.plan.id, user, "stale card tap refused");
            answer(Some(STALE.to_owned()), true).await;
            let _ = ctx.rescan().await;
            ctx.groups.wake();
        }
        Outcome::Gone | Outcome::Withdrawn(_) => {
            answer(Some(views::PLAN_GONE_ALERT.to_owned()), true).await;
            ctx.groups.wake();
        }
        Outcome::Failed(why) => {
            tracing::error!(user, %why, "group tap failed");
            answer(
                Some(truncate(&format!("⚠️ Not recorded: {why}"), 190)),
                true,
            )
            .await;
        }
        Outcome::NotRecorded { plan, error } => {
            tracing::error!(plan = %plan.plan.id, %error, "could not record a group tap");
            answer(
                Some(truncate(&format!("Nothing recorded: {error}"), 190)),
                true,
            )
            .await;
        }
        Outcome::Current(_)
        | Outcome::Noted(_)
        | Outcome::Escalated { .. }
        | Outcome::SignedOff(_)
        | Outcome::Submitted { .. }
        | Outcome::SentBack { .. } => answer(None, false).await,
    }
}
