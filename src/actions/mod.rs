//! Owner actions: what a tap, a web form or the deadline timer *means*, and who may do it.
//!
//! Every front end changes plans through [`Actions::take`]: an [`Action`] taken by an [`Actor`] on what the actor
//! saw (positions plus [`seen`] fingerprints), returning an [`Outcome`] with the plan's new state. Front ends
//! turn their input into actions and outcomes into their own views; none edits a file itself. Permissions are
//! decided in [`access`], by the actor's user id.

pub(crate) mod access;
mod audit;
mod decide;
mod outcome;
mod recover;
pub mod rules;
pub mod seen;
mod withdraw;

use std::fmt;
use std::sync::Arc;

use crate::plan::Plan;
use crate::queue::{self, Loaded, Queue, StoreError};

pub use access::{Access, Caller, Refusal, Role};
pub use outcome::{Opened, Outcome, Tell};
pub use recover::{RECOVERED, recover_unrecorded};
pub use withdraw::withdraw;

use decide::{Stop, decide};
use outcome::tell;

/// Who takes an action.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Actor {
    /// A person, by Telegram user id (the dashboard's sessions are bound to one too).
    User(u64),
    /// The daemon's deadline timer.
    Deadline,
    /// The agent that pushed the plan (its name is in the action: [`Action::Withdraw`]).
    Agent,
}

impl fmt::Display for Actor {
    /// What `answered_by` records: the user id, or `deadline`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Actor::User(id) => write!(f, "{id}"),
            Actor::Deadline => f.write_str("deadline"),
            Actor::Agent => f.write_str("agent"),
        }
    }
}

/// What the actor asks for. Decisions and options are named by position, with the fingerprint of what the actor
/// was shown there ([`seen`]): if the file no longer matches, nothing is recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// Look at the plan as it is now.
    Open,
    /// Pick option `option` of decision `decision`.
    Answer {
        decision: usize,
        option: usize,
        seen: String,
    },
    /// About to type a custom answer for decision `decision`: checks it is still the one shown.
    StartCustom { decision: usize, seen: String },
    /// A custom answer typed for decision `to`.
    Custom { to: Typed, text: String },
    /// Skip decision `decision`.
    Skip { decision: usize, seen: String },
    /// Answer the `multi` decision `decision` with the options at `options` (indices; the order and repeats do
    /// not matter) and, with `allow_custom`, a text of one's own: one action, on Done. Outside `min`…`max`
    /// nothing is recorded ([`Outcome::input_refusal`]).
    AnswerMulti {
        decision: usize,
        options: Vec<usize>,
        custom: Option<String>,
        seen: String,
    },
    /// Answer decision `decision` with what the actor typed or tapped: a text, a number, yes/no (`yes`, `no`,
    /// `true`, `false`), an edited proposal; for a `choice` it is a custom answer. Read and checked by
    /// [`crate::plan::input::read_input`]: input that does not fit records nothing ([`Outcome::input_refusal`]).
    AnswerInput {
        decision: usize,
        input: String,
        seen: String,
    },
    /// Approve the proposal of the `edit` decision `decision` as is (`edited: false`).
    Approve { decision: usize, seen: String },
    /// Decline an elicitation plan (`elicitation: true`) as a whole, on the answers the actor saw
    /// (`seen::of_answers`): `outcome: declined`, then completed like a submit.
    Decline { seen: String },
    /// About to type a request for changes, on the answers the actor saw (`seen::of_answers`): checks they are
    /// still the ones shown.
    StartRequestChanges { seen: String },
    /// Send the plan back to its agent (`🔁 Request changes`) with `feedback`, on the answers the actor saw
    /// (`seen::of_answers`): `status: changes_requested`, a notify file, and the plan leaves the queue (into
    /// returned/) until the agent's revision. Approvers only.
    RequestChanges { seen: String, feedback: String },
    /// Submit the plan (every decision answered or skipped) with the answers the actor saw
    /// (`seen::of_answers`). On a plan that needs sign-offs (`require` > 1) this records the actor's sign-off,
    /// and the last one needed submits.
    Submit { seen: String },
    /// Sign off a plan that needs sign-offs, on the answers the actor saw (`seen::of_answers`).
    SignOff { seen: String },
    /// About to type a note for decision `decision`: checks it is still the one shown.
    StartNote { decision: usize, seen: String },
    /// A note typed for decision `to`.
    Note { to: Typed, text: String },
    /// About to pick whom to delegate decision `decision` to: checks it is still the one shown.
    StartDelegate { decision: usize, seen: String },
    /// Delegate decision `decision` to the member `to`.
    Delegate {
        decision: usize,
        to: u64,
        seen: String,
    },
    /// Take decision `decision` back from its delegate.
    TakeBack { decision: usize, seen: String },
    /// The deadline passed with `on_deadline: submit`: defaults or skips for what is pending, then submit.
    ApplyDeadline,
    /// A reminder went out: record when (`reminded_at`).
    Remind,
    /// The plan was escalated: record when (`escalated_at`).
    Escalate,
    /// Its agent `agent` takes the plan back unanswered, saying why (`reason`): `status: withdrawn`, out of
    /// pending/ into completed/, no notify file. Only [`Actor::Agent`] takes it.
    Withdraw {
        agent: String,
        reason: Option<String>,
    },
}

/// The decision typed text is for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Typed {
    /// The decision with this id, as the bot's force-reply prompt showed it (`seen::of_prompt` then): the
    /// prompt was checked against what the human saw ([`Action::StartCustom`], [`Action::StartNote`]), and a
    /// decision changed since the prompt is refused as stale, like a tap.
    Prompted { id: String, seen: String },
    /// Decision `decision` as a form showed it (`seen::of_decision`): the text and the check are one action, so
    /// the file cannot change between them.
    Shown { decision: usize, seen: String },
}

impl Typed {
    /// Decision `id` of `plan` as a prompt shows it now (what the bot takes when it sends its force-reply
    /// prompt).
    #[must_use]
    pub fn prompted_on(plan: &Plan, id: &str) -> Typed {
        Typed::Prompted {
            id: id.to_owned(),
            seen: plan.decision(id).map(seen::of_prompt).unwrap_or_default(),
        }
    }

    /// The fingerprint of the decision as the actor saw it when they started typing.
    #[must_use]
    pub fn seen(&self) -> Option<&str> {
        match self {
            Typed::Prompted { seen, .. } | Typed::Shown { seen, .. } => Some(seen),
        }
    }

    /// The index of the decision this names in `plan`, if it is there (and, when shown, still as it was).
    #[must_use]
    pub fn index_in(&self, plan: &Plan) -> Option<usize> {
        match self {
            Typed::Prompted { id, seen } => plan
                .decisions
                .iter()
                .position(|d| d.id == *id && seen::of_prompt(d) == *seen),
            Typed::Shown { decision, seen } => plan
                .decisions
                .get(*decision)
                .filter(|d| seen::of_decision(d) == *seen)
                .map(|_| *decision),
        }
    }
}

impl Action {
    /// True for the actions that change the plan file (the others look at it). Total, with no wildcard arm: a new
    /// action does not compile until it says which it is.
    #[must_use]
    pub fn edits(&self) -> bool {
        match self {
            Action::Open
            | Action::StartCustom { .. }
            | Action::StartNote { .. }
            | Action::StartDelegate { .. }
            | Action::StartRequestChanges { .. } => false,
            Action::Answer { .. }
            | Action::Custom { .. }
            | Action::Skip { .. }
            | Action::AnswerMulti { .. }
            | Action::AnswerInput { .. }
            | Action::Approve { .. }
            | Action::Decline { .. }
            | Action::RequestChanges { .. }
            | Action::Submit { .. }
            | Action::SignOff { .. }
            | Action::Note { .. }
            | Action::Delegate { .. }
            | Action::TakeBack { .. }
            | Action::ApplyDeadline
            | Action::Remind
            | Action::Escalate
            | Action::Withdraw { .. } => true,
        }
    }

    /// What the file records as who made the change: the actor, or `agent:<name>` for a withdrawal.
    #[must_use]
    pub fn by(&self, actor: Actor) -> String {
        match self {
            Action::Withdraw { agent, .. } => format!("agent:{agent}"),
            _ => actor.to_string(),
        }
    }

    /// True for the actions only the daemon's clock takes.
    #[must_use]
    pub fn is_scheduled(&self) -> bool {
        matches!(
            self,
            Action::ApplyDeadline | Action::Remind | Action::Escalate
        )
    }
}

/// The one place plans change: the queue, and who may change what.
#[derive(Debug, Clone)]
pub struct Actions {
    queue: Queue,
    access: Arc<Access>,
    /// The longest `⏱ Allow <agent> for N min` (config `rules.grantMinutes`).
    grant_minutes: u32,
}

impl Actions {
    #[must_use]
    pub fn new(queue: Queue, access: Access) -> Actions {
        Actions {
            queue,
            access: Arc::new(access),
            grant_minutes: rules::GRANT_MINUTES,
        }
    }

    /// How long `⏱ Allow <agent> for N min` allows (config `rules.grantMinutes`).
    #[must_use]
    pub fn grant_minutes(&self) -> u32 {
        self.grant_minutes
    }

    /// These actions with grants of at most `minutes` (config `rules.grantMinutes`).
    #[must_use]
    pub fn with_grant_minutes(self, minutes: u32) -> Actions {
        Actions {
            grant_minutes: minutes.max(1),
            ..self
        }
    }

    #[must_use]
    pub fn queue(&self) -> &Queue {
        &self.queue
    }

    #[must_use]
    pub fn access(&self) -> &Access {
        &self.access
    }

    /// The plans among `plans` that `actor` may see, in the same order.
    pub fn visible<'a>(
        &self,
        actor: Actor,
        plans: impl IntoIterator<Item = &'a Plan>,
    ) -> Vec<&'a Plan> {
        plans
            .into_iter()
            .filter(|p| self.access.sees(actor, *p))
            .collect()
    }

    /// [`Actions::take`] now, off the async threads (its file I/O blocks): the one way the daemon's front ends
    /// (the bot, the dashboard, the clock) take an action.
    pub async fn act(&self, actor: Actor, plan_id: &str, action: Action) -> Outcome {
        let actions = self.clone();
        let id = plan_id.to_owned();
        tokio::task::spawn_blocking(move || actions.take(actor, &id, &action, &crate::clock::now()))
            .await
            .unwrap_or_else(|e| {
                tracing::error!(error = %e, plan = plan_id, "action task failed");
                Outcome::Failed(format!("the daemon failed while recording this ({e})"))
            })
    }

    /// Takes `action` by `actor` on the pending plan `plan_id`, stamping `now` (RFC 3339). Blocking: it reads and
    /// writes files (the daemon's front ends, on async threads, call it through [`Actions::act`]).
    ///
    /// An action that changes the plan is decided (access, stale view) under the plan's lock on the very file
    /// version the edit is applied to: the file is read and parsed once.
    pub fn take(&self, actor: Actor, plan_id: &str, action: &Action, now: &str) -> Outcome {
        if let Actor::User(user) = actor
            && !self.access.is_member(user)
        {
            return Outcome::Refused(Refusal::Outsider);
        }
        if !action.edits() {
            let Some(loaded) = self.pending(plan_id) else {
                return Outcome::Gone;
            };
            return match decide(&self.access, actor, action, &loaded.plan) {
                Err(stop) => stop.outcome(loaded),
                // Only an action that edits gets an edit.
                Ok(_) => Outcome::Current(loaded),
            };
        }
        // The sign-offs of the version the edit was applied to: who a changed answer must tell.
        let mut before = Vec::new();
        let decide = |plan: &Plan| {
            before.clone_from(&plan.approval.signoffs);
            decide(&self.access, actor, action, plan)
        };
        let by = action.by(actor);
        let mut edited = self.queue.edit_with(plan_id, Some(&by), now, decide);
        // An edit the file already held changed nothing: the front end hears it as done, and the trail already
        // has the line of that state (its own, or the one the start-up recovered after a crash).
        let holds = matches!(edited, Ok(queue::Edited::Holds(_)));
        if let Ok(queue::Edited::Holds(plan)) = edited {
            edited = Ok(queue::Edited::Written(queue::Outcome::Edited(plan)));
        }
        let outcome = match self.outcome(plan_id, action, edited) {
            Outcome::Recorded { plan, decision, .. } => {
                let tell = tell(actor, &before, &plan.plan, decision, action);
                Outcome::Recorded {
                    plan,
                    decision,
                    tell,
                }
            }
            other => other,
        };
        // The change's line is on disk before any front end acknowledges it; a change whose line can't be written
        // is not acknowledged as done (the next start records it as recovered).
        if holds {
            return outcome;
        }
        match audit::record(&self.queue, actor, action, &outcome, now) {
            Ok(()) => self.after_submit(actor, outcome, now),
            Err(error) => Outcome::Failed(format!(
                "the change is in the file, but its audit line could not be written ({error})"
            )),
        }
    }

    /// A plan a person submitted may make a standing rule (a permission plan answered `🔁 Always allow this` or
    /// `⏱ Allow … for N min`: the rule and its line, after the submit's) or count toward one's offer (a pushed
    /// plan answered the same way as before).
    fn after_submit(&self, actor: Actor, outcome: Outcome, now: &str) -> Outcome {
        let (Actor::User(user), Outcome::Submitted { plan, notify, .. }) = (actor, &outcome) else {
            return outcome;
        };
        let rule = rules::make::from_submit(self, user, plan, now).map(|r| r.map(Box::new));
        if rule.is_none() {
            rules::make::note_streak(self, &plan.plan, now);
        }
        Outcome::Submitted {
            plan: plan.clone(),
            notify: notify.clone(),
            rule,
        }
    }

    /// A plan the daemon saw leave pending/ (`id`, at `revision`): if no action took it out (it is in neither
    /// completed/ nor returned/, nor back in pending/), its file was deleted or moved away by hand, and the trail
    /// gets a `removed` line. Returns where the plan is now, when it is anywhere. Blocking (file I/O).
    pub fn noticed_gone(&self, id: &str, revision: u32) -> Option<Loaded> {
        match self.queue.find(id) {
            Ok(found) => Some(found),
            Err(StoreError::NotFound(_)) => {
                if let Err(error) = audit::removed(&self.queue, id, revision, &crate::clock::now())
                {
                    tracing::error!(plan = id, %error, "can't write the audit line of a removed plan");
                } else {
                    tracing::info!(plan = id, "plan removed from pending/ by hand");
                }
                None
            }
            Err(error) => {
                tracing::warn!(plan = id, %error, "can't tell where a plan that left pending/ went");
                None
            }
        }
    }

    /// What became of an edit, as the actor's outcome.
    fn outcome(
        &self,
        plan_id: &str,
        action: &Action,
        edited: Result<queue::Edited<Stop>, StoreError>,
    ) -> Outcome {
        match edited {
            Ok(queue::Edited::Written(queue::Outcome::Completed { plan, notify })) => {
                Outcome::Submitted {
                    plan,
                    notify,
                    rule: None,
                }
            }
            Ok(queue::Edited::Written(queue::Outcome::Returned { plan, notify })) => {
                Outcome::SentBack { plan, notify }
            }
            Ok(queue::Edited::Written(queue::Outcome::Withdrawn(plan))) => Outcome::Withdrawn(plan),
            Ok(
                queue::Edited::Written(queue::Outcome::Edited(plan)) | queue::Edited::Holds(plan),
            ) => {
                let decision = match action {
                    Action::Answer { decision, .. }
                    | Action::Skip { decision, .. }
                    | Action::AnswerMulti { decision, .. }
                    | Action::AnswerInput { decision, .. }
                    | Action::Approve { decision, .. }
                    | Action::Delegate { decision, .. }
                    | Action::TakeBack { decision, .. } => *decision,
                    // The edit wrote the decision the text was for: found by its id (or the form's position).
                    Action::Custom { to, .. } | Action::Note { to, .. } => match to {
                        Typed::Prompted { id, .. } => plan
                            .plan
                            .decisions
                            .iter()
                            .position(|d| d.id == *id)
                            .unwrap_or(0),
                        Typed::Shown { decision, .. } => *decision,
                    },
                    Action::Remind => return Outcome::Noted(plan),
                    Action::Escalate => {
                        let to = self.escalation_recipients(&plan.plan);
                        return Outcome::Escalated { plan, to };
                    }
                    Action::Submit { .. } | Action::SignOff { .. } => {
                        return Outcome::SignedOff(plan);
                    }
                    // Looks, and edits that end in another outcome when they write (a decline, a request for
                    // changes, the deadline and a withdrawal move the plan out of pending/).
                    Action::Open
                    | Action::StartCustom { .. }
                    | Action::StartNote { .. }
                    | Action::StartDelegate { .. }
                    | Action::StartRequestChanges { .. }
                    | Action::Decline { .. }
                    | Action::RequestChanges { .. }
                    | Action::ApplyDeadline
                    | Action::Withdraw { .. } => return Outcome::Current(plan),
                };
                Outcome::Recorded {
                    plan,
                    decision,
                    tell: Tell::default(),
                }
            }
            Ok(queue::Edited::Declined(stop, plan)) => stop.outcome(plan),
            Ok(queue::Edited::Refused(error, plan)) if error.is_stale() => Outcome::Stale(plan),
            Ok(queue::Edited::Refused(error, plan)) => Outcome::NotRecorded {
                plan,
                error: error.into(),
            },
            Err(StoreError::NotFound(_)) => Outcome::Gone,
            Err(error) => match self.pending(plan_id) {
                None => Outcome::Gone,
                Some(plan) => Outcome::NotRecorded { plan, error },
            },
        }
    }

    /// The members `escalate_to` of `plan` names (a name or id nobody in `allowedUsers` has is logged and left
    /// out).
    fn escalation_recipients(&self, plan: &Plan) -> Vec<u64> {
        plan.timing
            .escalate_to
            .iter()
            .filter_map(|p| {
                let user = self.access.resolve(p);
                if user.is_none() {
                    tracing::warn!(plan = %plan.id, person = %p, "escalate_to names nobody in allowedUsers");
                }
                user
            })
            .collect()
    }

    /// The completed plan at `path` (found by a front end's memory of what it submitted), if `actor` may see it:
    /// a tap on an old view of a submitted plan shows its completion to its approvers only.
    #[must_use]
    pub fn completed(&self, actor: Actor, path: &std::path::Path) -> Option<Loaded> {
        queue::load(path, queue::Location::Completed)
            .ok()
            .filter(|l| self.access.sees(actor, &l.plan))
    }

    /// The pending plan `id` as it is on disk now.
    fn pending(&self, id: &str) -> Option<Loaded> {
        self.queue.find_pending(id).ok().flatten()
    }
}

#[cfg(test)]
mod kind_tests;
#[cfg(test)]
mod matrix_tests;
#[cfg(test)]
mod people_tests;
#[cfg(test)]
mod revise_tests;
#[cfg(test)]
mod tests;
