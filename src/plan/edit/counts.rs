//! Decision counts (`total`, `answered`, `remaining`): as a plan has them, and as an edit leaves them.

use crate::plan::{Decision, DecisionStatus, Plan};

use super::Edit;

/// Decision counts as the frontmatter records them.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Counts {
    pub(super) total: usize,
    pub(super) answered: usize,
    pub(super) remaining: usize,
}

impl Counts {
    pub(super) fn of(plan: &Plan) -> Counts {
        Counts {
            total: plan.decisions.len(),
            answered: plan.answered(),
            remaining: plan.remaining(),
        }
    }
}

/// The counts of `plan` once `edit` holds: the edited decision takes its new status, the others keep theirs.
pub(super) fn counts_after(plan: &Plan, edit: &Edit) -> Counts {
    let decided = match edit {
        Edit::Answer { decision, .. }
        | Edit::Custom { decision, .. }
        | Edit::Value { decision, .. } => Some((decision, DecisionStatus::Answered)),
        Edit::Skip { decision } => Some((decision, DecisionStatus::Skipped)),
        _ => None,
    };
    let status = |d: &Decision| match decided {
        Some((id, s)) if d.id == *id => s,
        _ => d.status,
    };
    Counts {
        total: plan.decisions.len(),
        answered: plan
            .decisions
            .iter()
            .filter(|d| status(d) == DecisionStatus::Answered)
            .count(),
        remaining: plan
            .decisions
            .iter()
            .filter(|d| status(d) == DecisionStatus::Pending)
            .count(),
    }
}
