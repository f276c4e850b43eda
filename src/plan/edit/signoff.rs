//! Sign-offs (`require` > 1): what an approver approves, and the `signoffs` list an edit leaves.

use crate::plan::{DecisionStatus, Plan};

use super::{Edit, EditError};

/// Each decision's id, status and answer: what a sign-off approves.
#[must_use]
pub fn answers_of(plan: &Plan) -> Vec<(String, DecisionStatus, Option<String>)> {
    plan.decisions
        .iter()
        .map(|d| (d.id.clone(), d.status, d.answer.clone()))
        .collect()
}

/// The `signoffs` list after `edit`, when the edit rewrites it: a sign-off adds the signer (refused if they
/// already signed); a change of any answer clears the list. `None`: the key is left alone.
pub(super) fn signoffs_after(plan: &Plan, edit: &Edit) -> Result<Option<Vec<u64>>, EditError> {
    let signed = &plan.approval.signoffs;
    let changes = |decision: &str, status: DecisionStatus, answer: Option<&str>| {
        plan.decision(decision)
            .is_some_and(|d| d.status != status || d.answer.as_deref() != answer)
    };
    let cleared = match edit {
        Edit::SignOff { user, .. } => {
            if signed.contains(user) {
                return Err(EditError::AlreadySigned);
            }
            let mut ids = signed.clone();
            ids.push(*user);
            return Ok(Some(ids));
        }
        Edit::Answer { decision, key, .. } => {
            changes(decision, DecisionStatus::Answered, Some(key))
        }
        Edit::Custom { decision, text } => changes(decision, DecisionStatus::Answered, Some(text)),
        Edit::Value {
            decision, value, ..
        } => changes(decision, DecisionStatus::Answered, Some(&value.text())),
        Edit::Skip { decision } => changes(decision, DecisionStatus::Skipped, None),
        _ => false,
    };
    Ok((cleared && !signed.is_empty()).then(Vec::new))
}
