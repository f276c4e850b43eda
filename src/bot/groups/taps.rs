//! Taps on a card in a group. Who may answer is decided by the tapping user's id through the action layer, exactly
//! as in the private chat (outsiders never get this far: the dispatcher refuses them); a refusal is an alert and
//! changes nothing. Only a card's quick answer is taken here: anything else (typing, notes, delegation, submit)
//! belongs to the private chat, which `📂 Open` leads to.

use teloxide::types::CallbackQuery;

use crate::actions::{Actor, Outcome};
use crate::telegram::callback::Callback;
use crate::telegram::reply::{self, Answer, INVALID, PRIVATE_ONLY};
use crate::telegram::views::navigation::translate;

use super::super::context::Ctx;

/// A tap by a member on a message in a group.
pub async fn handle(ctx: &Ctx, q: &CallbackQuery) {
    let user = q.from.id.0;
    let answer = |said: Answer| async move {
        if let Err(e) = ctx
            .api
            .answer_callback(&q.id.0, said.text.as_deref(), said.alert)
            .await
        {
            tracing::warn!(error = %e, "can't answer a group tap");
        }
    };
    let cb = q.data.as_deref().and_then(Callback::decode);
    let answer_tap = match cb {
        Some(cb @ (Callback::Answer { .. } | Callback::Boolean { .. })) => cb,
        Some(Callback::Noop) => return answer(Answer::NONE).await,
        None => return answer(Answer::alert(INVALID)).await,
        Some(other) => {
            tracing::info!(user, data = %other.encode(), "a private-chat button tapped in a group: refused");
            return answer(Answer::alert(PRIVATE_ONLY)).await;
        }
    };
    let Some((plan, action, _)) = translate(answer_tap) else {
        return answer(Answer::alert(INVALID)).await;
    };
    let Some(id) = ctx.resolve(&plan).await else {
        answer(reply::gone(None)).await;
        return ctx.groups.wake();
    };
    let outcome = ctx.actions.act(Actor::User(user), &id, action).await;
    let said = reply::card_tap(&outcome);
    match outcome {
        Outcome::Recorded {
            plan,
            decision,
            tell,
        } => {
            let plan = &plan.plan;
            tracing::info!(plan = %plan.id, decision, user, "quick answer in a group recorded");
            answer(said).await;
            // The card is redrawn from the snapshot, for everyone in the group.
            let _ = ctx.rescan().await;
            ctx.groups.wake();
            ctx.tell(user, plan, decision, &tell).await;
        }
        Outcome::Refused(refusal) => {
            tracing::info!(user, %refusal, "group tap refused");
            answer(said).await;
        }
        Outcome::Stale(l) => {
            tracing::info!(plan = %l.plan.id, user, "stale card tap refused");
            answer(said).await;
            let _ = ctx.rescan().await;
            ctx.groups.wake();
        }
        Outcome::Gone | Outcome::Withdrawn(_) => {
            answer(said).await;
            ctx.groups.wake();
        }
        Outcome::Failed(why) => {
            tracing::error!(user, %why, "group tap failed");
            answer(said).await;
        }
        Outcome::NotRecorded { plan, error } => {
            tracing::error!(plan = %plan.plan.id, %error, "could not record a group tap");
            answer(said).await;
        }
        Outcome::Current(_)
        | Outcome::Noted(_)
        | Outcome::Escalated { .. }
        | Outcome::SignedOff(_)
        | Outcome::Submitted { .. }
        | Outcome::SentBack { .. } => answer(said).await,
    }
}
