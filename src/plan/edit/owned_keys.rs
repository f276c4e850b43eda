//! The frontmatter keys an edit owns (`status`, the counts, `updated_at`, `signoffs`, `completed_at`,
//! `reminded_at`, `escalated_at`): their new values, and writing them into the file.

use serde_yaml::{Mapping, Value};

use crate::plan::{OUTCOME_DECLINED, Plan, PlanStatus, people, yaml_value};

use super::counts::counts_after;
use super::patch::Lines;
use super::signoff::signoffs_after;
use super::{Edit, EditError};

/// A frontmatter key an edit owns: its value as YAML must read it back, and that value as YAML text.
pub(super) struct OwnedKey {
    pub(super) key: &'static str,
    pub(super) value: Value,
    pub(super) yaml: String,
}

/// What an edit writes into the frontmatter: the keys it owns, and whether it completes the plan.
pub(super) struct OwnedKeys {
    pub(super) fields: Vec<OwnedKey>,
    pub(super) completes: bool,
}

impl OwnedKeys {
    /// The keys `edit` owns on `plan` at `now` (refused if a sign-off's signer already signed).
    pub(super) fn of(
        plan: &Plan,
        edit: &Edit,
        by: Option<&str>,
        now: &str,
    ) -> Result<OwnedKeys, EditError> {
        let signoffs = signoffs_after(plan, edit)?;
        let completes = match edit {
            Edit::Submit | Edit::Decline => true,
            Edit::SignOff { .. } => signoffs
                .as_ref()
                .is_some_and(|s| s.len() >= plan.approval.require),
            _ => false,
        };
        let fields = match edit {
            Edit::Reminded => vec![time("reminded_at", now)],
            Edit::Escalated => vec![time("escalated_at", now)],
            Edit::RequestChanges { feedback } => feedback_keys(feedback, by, now),
            Edit::Withdraw { reason } => withdraw_keys(reason.as_deref(), by, now),
            _ => counted_keys(plan, edit, now, completes, signoffs.as_deref()),
        };
        Ok(OwnedKeys { fields, completes })
    }

    /// Writes every owned key into the frontmatter of `file` (the text `plan` was parsed from, whose frontmatter
    /// YAML read as `before`).
    pub(super) fn write(&self, file: &mut Lines, plan: &Plan, before: &Mapping) {
        let mut fm = plan.frontmatter_lines.clone();
        for field in &self.fields {
            // A key YAML does not see at the top level has no line of its own (a look-alike inside a quoted value
            // is not it): insert one.
            let known = before.contains_key(field.key);
            file.set(&mut fm, field.key, &field.yaml, true, known);
        }
    }
}

/// A request for changes: `status: changes_requested`, `feedback`, `feedback_by` (when known), `feedback_at` and
/// `updated_at`.
fn feedback_keys(feedback: &str, by: Option<&str>, now: &str) -> Vec<OwnedKey> {
    let status = PlanStatus::ChangesRequested.as_str();
    let text = |key, v: &str| OwnedKey {
        key,
        value: Value::String(v.to_owned()),
        yaml: yaml_value::scalar(v),
    };
    let mut fields = vec![text("status", status), text("feedback", feedback)];
    if let Some(by) = by {
        let yaml = yaml_value::integer_or_scalar(by);
        // Written plain only when it is a decimal integer, which YAML then reads as a number.
        let value = match by.parse::<u64>() {
            Ok(n) if yaml == by => Value::Number(n.into()),
            _ => Value::String(by.to_owned()),
        };
        fields.push(OwnedKey {
            key: "feedback_by",
            value,
            yaml,
        });
    }
    fields.push(time("feedback_at", now));
    fields.push(time("updated_at", now));
    fields
}

/// A withdrawal: `status: withdrawn`, `withdrawn_by` (when known), `withdrawn_at`, `withdraw_reason` (when
/// given) and `updated_at`.
fn withdraw_keys(reason: Option<&str>, by: Option<&str>, now: &str) -> Vec<OwnedKey> {
    let text = |key, v: &str| OwnedKey {
        key,
        value: Value::String(v.to_owned()),
        yaml: yaml_value::scalar(v),
    };
    let mut fields = vec![text("status", PlanStatus::Withdrawn.as_str())];
    if let Some(by) = by {
        fields.push(text("withdrawn_by", by));
    }
    fields.push(time("withdrawn_at", now));
    if let Some(reason) = reason {
        fields.push(text("withdraw_reason", reason));
    }
    fields.push(time("updated_at", now));
    fields
}

/// `key` set to the time `now`.
fn time(key: &'static str, now: &str) -> OwnedKey {
    OwnedKey {
        key,
        value: Value::String(now.to_owned()),
        yaml: yaml_value::timestamp(now),
    }
}

/// The keys of an edit that records something: the plan's status and counts, `updated_at`, and `signoffs` and
/// `completed_at` when they change.
fn counted_keys(
    plan: &Plan,
    edit: &Edit,
    now: &str,
    completes: bool,
    signoffs: Option<&[u64]>,
) -> Vec<OwnedKey> {
    // Counts come from the decisions as they stand after this edit; the read-back check confirms the edited file
    // holds exactly these counts.
    let counts = counts_after(plan, edit);
    let status = match edit {
        _ if completes => PlanStatus::Completed,
        Edit::SignOff { .. } => PlanStatus::InProgress,
        _ if counts.remaining < counts.total => PlanStatus::InProgress,
        _ => plan.status,
    };
    let count = |key, n: usize| OwnedKey {
        key,
        value: Value::Number(n.into()),
        yaml: n.to_string(),
    };
    let mut fields = vec![
        OwnedKey {
            key: "status",
            value: Value::String(status.as_str().to_owned()),
            yaml: yaml_value::scalar(status.as_str()),
        },
        count("total", counts.total),
        count("answered", counts.answered),
        count("remaining", counts.remaining),
        time("updated_at", now),
    ];
    if let Some(ids) = signoffs {
        fields.push(OwnedKey {
            key: "signoffs",
            value: Value::Sequence(ids.iter().map(|id| Value::Number((*id).into())).collect()),
            yaml: people::signoffs_yaml(ids),
        });
    }
    if completes {
        fields.push(time("completed_at", now));
    }
    if *edit == Edit::Decline {
        fields.push(OwnedKey {
            key: "outcome",
            value: Value::String(OUTCOME_DECLINED.to_owned()),
            yaml: yaml_value::scalar(OUTCOME_DECLINED),
        });
    }
    fields
}
