//! What became of an action ([`Outcome`]), and who besides the actor must hear of a recorded change ([`Tell`]).

use std::path::PathBuf;

use crate::plan::{InputRefusal, Plan};
use crate::queue::rules::Rule;
use crate::queue::{Loaded, StoreError};

use super::{Action, Actor, Refusal};

/// What became of an action.
#[derive(Debug)]
pub enum Outcome {
    /// Nothing to change: the plan as it is now (open, start of a custom answer).
    Current(Loaded),
    /// The change to decision `decision` (its index in `plan`) is on disk: an answer, a skip, a note, a
    /// delegation; `tell` says who else must hear of it.
    Recorded {
        plan: Loaded,
        decision: usize,
        tell: Tell,
    },
    /// The actor's sign-off is on disk; more are needed before the plan is submitted.
    SignedOff(Loaded),
    /// The plan is completed: in completed/, with its notify file when notifications are on. `rule`: the standing
    /// rule its answer made (`🔁 Always allow this`, `⏱ Allow … for N min`), or why none could be made.
    Submitted {
        plan: Loaded,
        notify: Option<PathBuf>,
        rule: Option<Result<Box<Rule>, String>>,
    },
    /// The plan was sent back to its agent with the actor's feedback: in returned/, with its notify file when
    /// notifications are on.
    SentBack {
        plan: Loaded,
        notify: Option<PathBuf>,
    },
    /// Its agent took the plan back: in completed/ with `status: withdrawn`, no notify file.
    Withdrawn(Loaded),
    /// The daemon's bookkeeping (`reminded_at`) is on disk.
    Noted(Loaded),
    /// `escalated_at` is on disk: the plan goes to `to` (the members `escalate_to` names), who may answer it
    /// from now on.
    Escalated { plan: Loaded, to: Vec<u64> },
    /// The file changed since the actor's view was drawn: nothing was recorded; the plan as it is now.
    Stale(Loaded),
    /// The plan is no longer pending (completed, deleted, or it never existed).
    Gone,
    /// The actor may not do this; nothing was read or changed beyond what the check needed.
    Refused(Refusal),
    /// The action failed inside the daemon (a panic, a task that could not run): what it did is unknown, the
    /// actor is told it failed and may look again.
    Failed(String),
    /// A valid request that could not be applied (empty answer, unfinished plan, input that does not fit the
    /// decision, a write error); the plan as it is now.
    NotRecorded { plan: Loaded, error: StoreError },
}

impl Outcome {
    /// The refusal of the actor's input (a number out of range, a Done outside `min`…`max`, …), when that is why
    /// nothing was recorded: its text states what is accepted (`` `12abc` is not a number written in digits.
    /// Send a whole number from 1 to 10. ``), for the front end to show and to ask again.
    #[must_use]
    pub fn input_refusal(&self) -> Option<&InputRefusal> {
        match self {
            Outcome::NotRecorded {
                error: StoreError::Edit(e),
                ..
            } => e.input_refusal(),
            _ => None,
        }
    }
}

/// What [`Action::Open`] found: Open records nothing, so it ends in the plan, a refusal, or no plan to show.
#[derive(Debug)]
pub enum Opened {
    /// The pending plan as it is now.
    Plan(Box<Loaded>),
    /// The actor may not see it.
    Refused(Refusal),
    /// No pending plan to show: gone, or the look failed.
    Missing,
}

impl Outcome {
    /// This outcome as what an [`Action::Open`] found.
    #[must_use]
    pub fn opened(self) -> Opened {
        match self {
            Outcome::Current(plan) => Opened::Plan(Box::new(plan)),
            Outcome::Refused(refusal) => Opened::Refused(refusal),
            Outcome::Recorded { .. }
            | Outcome::SignedOff(_)
            | Outcome::Submitted { .. }
            | Outcome::SentBack { .. }
            | Outcome::Withdrawn(_)
            | Outcome::Noted(_)
            | Outcome::Escalated { .. }
            | Outcome::Stale(_)
            | Outcome::Gone
            | Outcome::Failed(_)
            | Outcome::NotRecorded { .. } => Opened::Missing,
        }
    }
}

/// People a recorded change concerns besides the actor.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tell {
    /// They had signed off; the changed answer cleared every sign-off.
    pub signoffs_cleared: Vec<u64>,
    /// The delegate answered: the person who delegated the decision to them.
    pub delegator: Option<u64>,
}

/// Who must hear of a recorded change: the signers whose sign-offs a changed answer cleared (`before` is the
/// list before the edit), and the delegator when their delegate answered.
pub(super) fn tell(
    actor: Actor,
    before: &[u64],
    after: &Plan,
    decision: usize,
    action: &Action,
) -> Tell {
    let answers = matches!(
        action,
        Action::Answer { .. }
            | Action::Custom { .. }
            | Action::Skip { .. }
            | Action::AnswerMulti { .. }
            | Action::AnswerInput { .. }
            | Action::Approve { .. }
    );
    let signoffs_cleared = if answers && after.approval.signoffs.is_empty() {
        before
            .iter()
            .copied()
            .filter(|u| Actor::User(*u) != actor)
            .collect()
    } else {
        Vec::new()
    };
    let delegator = match (actor, after.decisions.get(decision)) {
        (Actor::User(user), Some(d)) if answers && d.delegated_to == Some(user) => {
            d.delegated_by.filter(|by| *by != user)
        }
        _ => None,
    };
    Tell {
        signoffs_cleared,
        delegator,
    }
}
