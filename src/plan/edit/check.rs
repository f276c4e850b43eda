//! The read-back check: the edited text is parsed again, and nothing is written unless it reads back as the edit
//! (the edit holds, the counts are right, every frontmatter key the edit does not own is unchanged).

use serde_yaml::Mapping;

use crate::plan::parse::parse_with_frontmatter;
use crate::plan::{DecisionStatus, Diagnostic, Plan, PlanStatus};

use super::counts::{Counts, counts_after};
use super::owned_keys::{OwnedKey, OwnedKeys};
use super::{Edit, EditError, Parsed};

/// `new_text`, the edit's result, parsed once for every read-back check against the plan as `parsed` before it.
pub(super) fn read_back(
    new_text: &str,
    stem: &str,
    parsed: &Parsed,
    edit: &Edit,
    owned: &OwnedKeys,
) -> Result<Plan, EditError> {
    let (after, after_map) =
        parse_with_frontmatter(new_text, stem).map_err(EditError::WouldCorrupt)?;
    verify(&after, edit, owned.completes).map_err(EditError::WouldCorrupt)?;
    if let Some(counts) = owned
        .fields
        .iter()
        .any(|f| f.key == "total")
        .then(|| counts_after(&parsed.plan, edit))
        && counts != Counts::of(&after)
    {
        return Err(EditError::WouldCorrupt(Diagnostic::new(
            0,
            "the edited file's decisions do not read back as the edit",
        )));
    }
    verify_frontmatter(&parsed.frontmatter, &after_map, &owned.fields)
        .map_err(EditError::WouldCorrupt)?;
    Ok(after)
}

/// Every frontmatter key the edit does not own reads as before, and the owned ones as written.
fn verify_frontmatter(
    before: &Mapping,
    after: &Mapping,
    fields: &[OwnedKey],
) -> Result<(), Diagnostic> {
    let changed =
        |what: &str| Diagnostic::new(0, format!("the edit would change frontmatter key `{what}`"));
    for (key, value) in before {
        let owned = key
            .as_str()
            .is_some_and(|k| fields.iter().any(|f| f.key == k));
        if !owned && after.get(key) != Some(value) {
            return Err(changed(key.as_str().unwrap_or("?")));
        }
    }
    for OwnedKey { key, value, .. } in fields {
        if after.get(*key) != Some(value) {
            return Err(changed(key));
        }
    }
    if after.len() > before.len() + fields.len() {
        return Err(Diagnostic::new(
            0,
            "the edit would add unexpected frontmatter keys",
        ));
    }
    Ok(())
}

/// The result must parse and hold the edit; otherwise nothing is written.
fn verify(plan: &Plan, edit: &Edit, completes: bool) -> Result<(), Diagnostic> {
    let holds = match edit {
        Edit::Answer { decision, key, .. } => plan.decision(decision).is_some_and(|d| {
            d.status == DecisionStatus::Answered && d.answer.as_ref() == Some(key)
        }),
        Edit::Custom { decision, text } => plan.decision(decision).is_some_and(|d| {
            d.status == DecisionStatus::Answered && d.answer.as_ref() == Some(text)
        }),
        Edit::Value {
            decision,
            value,
            edited,
        } => plan.decision(decision).is_some_and(|d| {
            d.status == DecisionStatus::Answered
                && d.value.as_ref() == Some(value)
                && d.edited == *edited
        }),
        Edit::Decline => plan.status == PlanStatus::Completed && plan.declined(),
        Edit::Skip { decision } => plan
            .decision(decision)
            .is_some_and(|d| d.status == DecisionStatus::Skipped),
        Edit::Submit | Edit::Deadline => plan.status == PlanStatus::Completed,
        Edit::RequestChanges { feedback } => {
            plan.status == PlanStatus::ChangesRequested
                && plan.feedback.as_ref().is_some_and(|f| f.text == *feedback)
        }
        Edit::Withdraw { reason } => {
            plan.status == PlanStatus::Withdrawn
                && plan
                    .withdrawal
                    .as_ref()
                    .is_some_and(|w| w.reason == *reason && w.at.is_some())
        }
        Edit::Reminded => plan.timing.reminded_at.is_some(),
        Edit::Escalated => plan.timing.escalated_at.is_some(),
        Edit::Note { decision, text } => plan
            .decision(decision)
            .is_some_and(|d| d.note.as_ref() == Some(text)),
        Edit::Delegate { decision, to, by } => plan
            .decision(decision)
            .is_some_and(|d| d.delegated_to == Some(*to) && d.delegated_by == Some(*by)),
        Edit::TakeBack { decision } => plan
            .decision(decision)
            .is_some_and(|d| d.delegated_to.is_none()),
        Edit::SignOff { user, .. } => {
            plan.approval.signoffs.last() == Some(user)
                && (plan.status == PlanStatus::Completed) == completes
        }
    };
    if holds {
        Ok(())
    } else {
        Err(Diagnostic::new(
            0,
            "the edited file does not read back as written",
        ))
    }
}
