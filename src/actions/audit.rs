//! Every change an action made, as one line of the audit trail ([`crate::queue::audit`]), written before the
//! change is acknowledged.
//!
//! The matrix is total: every action and every outcome is named in each `match` below, with no wildcard arm, so
//! a new action (or outcome) that edits a file does not compile until it says what its line is.

use super::{Action, Actor, Outcome};
use crate::plan::Plan;
use crate::queue::Queue;
use crate::queue::audit::Change;

/// What the trail calls the change `action` made, given its outcome; `None` for an outcome that changed nothing.
fn name(action: &Action, outcome: &Outcome) -> Option<&'static str> {
    match outcome {
        Outcome::Current(_)
        | Outcome::Stale(_)
        | Outcome::Gone
        | Outcome::Refused(_)
        | Outcome::Failed(_)
        | Outcome::NotRecorded { .. } => return None,
        Outcome::Recorded { .. }
        | Outcome::SignedOff(_)
        | Outcome::Submitted { .. }
        | Outcome::SentBack { .. }
        | Outcome::Withdrawn(_)
        | Outcome::Noted(_)
        | Outcome::Escalated { .. } => {}
    }
    Some(match action {
        // Looks: they never change a file, whatever came of them.
        Action::Open
        | Action::StartCustom { .. }
        | Action::StartNote { .. }
        | Action::StartDelegate { .. }
        | Action::StartRequestChanges { .. } => return None,
        Action::ApplyDeadline => "deadline",
        Action::Decline { .. } => "decline",
        Action::RequestChanges { .. } => "request_changes",
        Action::Withdraw { .. } => "withdraw",
        Action::Submit { .. } | Action::SignOff { .. } => match outcome {
            Outcome::Submitted { .. } => "submit",
            _ => "sign_off",
        },
        // A change that completed the plan (the last answer of a plan that submits itself) is still an answer.
        Action::Answer { .. } | Action::AnswerMulti { .. } | Action::AnswerInput { .. } => "answer",
        Action::Approve { .. } => "approve",
        Action::Custom { .. } => "custom",
        Action::Skip { .. } => "skip",
        Action::Note { .. } => "note",
        Action::Delegate { .. } => "delegate",
        Action::TakeBack { .. } => "take_back",
        Action::Remind => "remind",
        Action::Escalate => "escalate",
    })
}

/// The value the change recorded: the option key, the text typed, the delegate, the reason.
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
        Action::Withdraw { reason, .. } => reason.clone(),
        Action::Open
        | Action::StartCustom { .. }
        | Action::StartNote { .. }
        | Action::StartDelegate { .. }
        | Action::StartRequestChanges { .. }
        | Action::Skip { .. }
        | Action::Decline { .. }
        | Action::Submit { .. }
        | Action::SignOff { .. }
        | Action::TakeBack { .. }
        | Action::ApplyDeadline
        | Action::Remind
        | Action::Escalate => None,
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
        | Action::StartCustom { seen, .. }
        | Action::StartNote { seen, .. }
        | Action::StartDelegate { seen, .. }
        | Action::StartRequestChanges { seen } => Some(seen),
        Action::Custom { to, .. } | Action::Note { to, .. } => to.seen(),
        Action::Open
        | Action::ApplyDeadline
        | Action::Remind
        | Action::Escalate
        | Action::Withdraw { .. } => None,
    }
}

/// The plan an outcome that changed a file holds, and the decision it changed.
fn changed(outcome: &Outcome) -> Option<(&crate::queue::Loaded, Option<usize>)> {
    match outcome {
        Outcome::Recorded { plan, decision, .. } => Some((plan, Some(*decision))),
        Outcome::SignedOff(plan)
        | Outcome::Noted(plan)
        | Outcome::Escalated { plan, .. }
        | Outcome::Submitted { plan, .. }
        | Outcome::SentBack { plan, .. }
        | Outcome::Withdrawn(plan) => Some((plan, None)),
        Outcome::Current(_)
        | Outcome::Stale(_)
        | Outcome::Gone
        | Outcome::Refused(_)
        | Outcome::Failed(_)
        | Outcome::NotRecorded { .. } => None,
    }
}

/// Appends the line for what `action` by `actor` did (`outcome`), stamped `now`. A line that can't be written
/// is logged and returned: the change itself is already on disk (and the next start records it as recovered).
pub(super) fn record(
    queue: &Queue,
    actor: Actor,
    action: &Action,
    outcome: &Outcome,
    now: &str,
) -> std::io::Result<()> {
    let (Some(name), Some((loaded, decision))) = (name(action, outcome), changed(outcome)) else {
        return Ok(());
    };
    append(
        queue,
        &action.by(actor),
        name,
        action,
        loaded,
        decision,
        now,
    )
}

/// Appends the line of a standing rule's answer: `action` (what a person answering decision `decision` the same
/// way takes) recorded as that person's would be, named, valued and fingerprinted alike, by `rule:<rule>`, on the
/// plan it completed (`loaded`, in completed/).
pub(super) fn record_rule(
    queue: &Queue,
    rule: &str,
    action: &Action,
    loaded: &crate::queue::Loaded,
    decision: usize,
    now: &str,
) -> std::io::Result<()> {
    let answered = Outcome::Recorded {
        plan: loaded.clone(),
        decision,
        tell: super::Tell::default(),
    };
    let Some(name) = name(action, &answered) else {
        return Ok(());
    };
    let by = format!("rule:{rule}");
    append(queue, &by, name, action, loaded, Some(decision), now)
}

/// Appends the line `name` of what `action` by `actor` changed in `loaded` (decision `decision`), with the digest
/// of the file as it is now.
fn append(
    queue: &Queue,
    actor: &str,
    name: &str,
    action: &Action,
    loaded: &crate::queue::Loaded,
    decision: Option<usize>,
    now: &str,
) -> std::io::Result<()> {
    let plan = &loaded.plan;
    let value = value(action, plan, decision);
    let change = Change {
        at: now,
        actor,
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
        return Err(error);
    }
    Ok(())
}

/// The line of a plan that left pending/ without any action (its file deleted or moved away by hand), written by
/// the daemon that noticed it: actor `daemon`, action `removed`, no file (there is none left to hash).
pub(super) fn removed(queue: &Queue, plan: &str, revision: u32, now: &str) -> std::io::Result<()> {
    let change = Change {
        at: now,
        actor: "daemon",
        action: "removed",
        plan,
        revision,
        decision: None,
        value: None,
        seen: None,
        file: &[],
    };
    crate::queue::audit::append(queue.root(), &change).map(|_| ())
}
