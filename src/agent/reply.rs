//! What an action's [`Outcome`] says to an agent (`arbiter withdraw`, MCP's `arbiter_withdraw`): a sentence, never
//! the outcome's debug text. One total `match`, so a new outcome does not compile until it is said.

use crate::actions::Outcome;
use crate::queue::{Loaded, Queue};

use super::AgentError;

/// What became of an action, in a few plain words (lowercase, no full stop: it ends an error line).
#[must_use]
pub fn sentence(outcome: &Outcome) -> String {
    match outcome {
        Outcome::Current(_) => "nothing changed: the plan is pending as it was".to_owned(),
        Outcome::Recorded { .. } => "the change is recorded".to_owned(),
        Outcome::SignedOff(_) => "the sign-off is recorded; the plan waits for more".to_owned(),
        Outcome::Submitted { .. } => "the plan was submitted".to_owned(),
        Outcome::SentBack { .. } => "the plan was sent back to its agent".to_owned(),
        Outcome::Withdrawn(_) => "the plan was withdrawn".to_owned(),
        Outcome::Noted(_) => "the reminder is recorded".to_owned(),
        Outcome::Escalated { .. } => "the plan was escalated".to_owned(),
        Outcome::Stale(_) => "the plan changed meanwhile; nothing was recorded".to_owned(),
        Outcome::Gone => "the plan is no longer pending".to_owned(),
        Outcome::Refused(refusal) => refusal.to_string(),
        Outcome::Failed(why) => why.clone(),
        Outcome::NotRecorded { error, .. } => error.to_string(),
    }
}

/// A withdrawal's outcome for the agent that asked for it (plan `id` of `queue`): the plan, now withdrawn, or why
/// not: it is not pending (and where it is), or the withdrawal failed.
pub fn withdrawn(queue: &Queue, id: &str, outcome: Outcome) -> Result<Loaded, AgentError> {
    match outcome {
        Outcome::Withdrawn(loaded) => Ok(loaded),
        Outcome::Gone => {
            // Say where it is, if anywhere: answered already, sent back, or unknown.
            let loaded = queue.find(id)?;
            Err(AgentError::NotPending {
                id: id.to_owned(),
                status: loaded.plan.status.to_string(),
            })
        }
        Outcome::Current(_)
        | Outcome::Recorded { .. }
        | Outcome::SignedOff(_)
        | Outcome::Submitted { .. }
        | Outcome::SentBack { .. }
        | Outcome::Noted(_)
        | Outcome::Escalated { .. }
        | Outcome::Stale(_)
        | Outcome::Refused(_)
        | Outcome::Failed(_)
        | Outcome::NotRecorded { .. } => Err(AgentError::NotWithdrawn {
            id: id.to_owned(),
            reason: sentence(&outcome),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::actions::Refusal;

    #[test]
    fn an_outcome_is_said_in_words_not_its_debug_text() {
        assert_eq!(sentence(&Outcome::Failed("disk full".into())), "disk full");
        assert_eq!(
            sentence(&Outcome::Refused(Refusal::AgentOnly)),
            "⛔ Only the plan's agent withdraws it."
        );
        assert_eq!(sentence(&Outcome::Gone), "the plan is no longer pending");
    }
}
