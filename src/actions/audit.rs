//! Every change an action made, as one line of the audit trail ([`crate::queue::audit`]), written before the
//! change is acknowledged.

use super::{Action, Actor, Outcome, Typed};
use crate::plan::Plan;
use crate::queue::Queue;
use crate::queue::audit::Change;

/// What the trail calls the change `action` made, given its outcome; `None` for an outcome that changed nothing.
fn name(action: &Action, outcome: &Outcome) -> Option<&'static str> {
    Some(match (action, outcome) {
        (
            _,
            Outcome::Current(_)
            | Outcome::Stale(_)
            | Outcome::Gone
            | Outcome::Refused(_)
            | Outcome::NotRecorded { .. },
        ) => return None,
        (Action::ApplyDeadline, _) => "deadline",
        (Action::Decline { .. }, _) => "decline",
        (Action::RequestChanges { .. }, _) => "request_changes",
        (_, Outcome::Submitted { .. }) => "submit",
        (_, Outcome::SignedOff(_)) => "sign_off",
        (Action::Answer { .. } | Action::AnswerMulti { .. } | Action::AnswerInput { .. }, _) => {
            "answer"
        }
        (Action::Approve { .. }, _) => "approve",
        (Action::Custom { .. }, _) => "custom",
        (Action::Skip { .. }, _) => "skip",
        (Action::Note { .. }, _) => "note",
        (Action::Delegate { .. }, _) => "delegate",
        (Action::TakeBack { .. }, _) => "take_back",
        (Action::Remind, _) => "remind",
        (Action::Escalate, _) => "escalate",
        (
            Action::Open
            | Action::StartCustom { .. }
            | Action::StartNote { .. }
            | Action::StartDelegate { .. }
            | Action::StartRequestChanges { .. }
            | Action::Submit { .. }
            | Action::SignOff { .. },
            _,
        ) => return None,
    })
}

/// The value the change recorded: the option key, the text typed, the delegate.
fn value(action: &Action, plan: &Plan, decision: Option<usize>) -> Option<String> {
    match action {
        Action::Answer { .. }
        | Action::AnswerMulti { .. }
        | Action::AnswerInput { .. }
        | Action::Approve { .. } => decision
            .and_then(|i| plan.decisions.get(i))
            .and_then(|d| d.answer.clone()),
        Action::Custom { text, .. } | Action::Note { text, .. } => Some(text.clone()),
        Action::RequestChanges { feedback, .. } => Some(feedback.clone()),
        Action::Delegate { to, .. } => Some(to.to_string()),
        _ => None,
    }
}

/// The fingerprint of what the actor saw, when the action carried one.
fn seen(action: &Action) -> Option<&str> {
    match action {
        Action::Answer { seen, .. }
        | Action::AnswerMulti { seen, .. }
        | Action::AnswerInput { seen, .. }
        | Action::Approve { seen, .. }
        | Action::Decline { seen }
        | Action::RequestChanges { seen, .. }
        | Action::Skip { seen, .. }
        | Action::Delegate { seen, .. }
        | Action::TakeBack { seen, .. }
        | Action::Submit { seen }
        | Action::SignOff { seen }
        | Action::Custom {
            to: Typed::Shown { seen, .. },
            ..
        }
        | Action::Note {
            to: Typed::Shown { seen, .. },
            ..
        } => Some(seen),
        _ => None,
    }
}

/// Appends the line for what `action` by `actor` did (`outcome`), stamped `now`. A line that can't be written
/// is logged: the change itself is already on disk.
pub(super) fn record(queue: &Queue, actor: Actor, action: &Action, outcome: &Outcome, now: &str) {
    let Some(name) = name(action, outcome) else {
        return;
    };
    let (loaded, decision) = match outcome {
        Outcome::Recorded { plan, decision, .. } => (plan, Some(*decision)),
        Outcome::SignedOff(plan)
        | Outcome::Noted(plan)
        | Outcome::Escalated { plan, .. }
        | Outcome::Submitted { plan, .. }
        | Outcome::SentBack { plan, .. } => (plan, None),
        _ => return,
    };
    let plan = &loaded.plan;
    let actor = actor.to_string();
    let value = value(action, plan, decision);
    let change = Change {
        at: now,
        actor: &actor,
        action: name,
        plan: &plan.id,
        revision: plan.revision,
        decision: decision
            .and_then(|i| plan.decisions.get(i))
            .map(|d| d.id.as_str()),
        value: value.as_deref(),
        seen: seen(action),
        file: &[],
    };
    if let Err(error) = queue.audit(&loaded.path, change) {
        tracing::error!(plan = %plan.id, %error, "can't write the audit line of a change");
    }
}
