//! An edit's lines in its decision's block: `status`, `answer`, `answered_at`, `answered_by`, `note`, the
//! delegation; and the checks that refuse an edit before anything is written.

use crate::plan::{Plan, yaml_value};

use super::patch::Lines;
use super::signoff::answers_of;
use super::{Edit, EditError};

/// Writes the decision lines `edit` changes into `file` (the text `plan` was parsed from), or refuses the edit:
/// a decision gone, an option changed, an empty answer or note, a sign-off on answers that changed, a submit with
/// decisions still pending. Edits of the frontmatter alone write nothing here.
pub(super) fn write(
    file: &mut Lines,
    plan: &Plan,
    edit: &Edit,
    by: Option<&str>,
    now: &str,
) -> Result<(), EditError> {
    match edit {
        Edit::Answer {
            decision,
            key,
            label,
        } => {
            check_option(plan, decision, key, label)?;
            set(file, plan, decision, &stamp("answered", Some(key), by, now))?;
        }
        Edit::Custom { decision, text } => {
            if text.trim().is_empty() {
                return Err(EditError::EmptyAnswer);
            }
            set(
                file,
                plan,
                decision,
                &stamp("answered", Some(text), by, now),
            )?;
        }
        Edit::Skip { decision } => set(file, plan, decision, &stamp("skipped", None, by, now))?,
        Edit::Note { decision, text } => {
            if text.trim().is_empty() {
                return Err(EditError::EmptyNote);
            }
            set(file, plan, decision, &[("note", yaml_value::scalar(text))])?;
        }
        Edit::Delegate { decision, to, by } => {
            let fields = [
                ("delegated_to", to.to_string()),
                ("delegated_by", by.to_string()),
            ];
            set(file, plan, decision, &fields)?;
        }
        Edit::TakeBack { decision } => {
            set(file, plan, decision, &[("delegated_to", "null".to_owned())])?;
        }
        Edit::SignOff { answers, .. } if *answers != answers_of(plan) => {
            return Err(EditError::AnswersChanged);
        }
        Edit::Submit | Edit::SignOff { .. } => {
            if plan.remaining() > 0 {
                return Err(EditError::NotFinished {
                    remaining: plan.remaining(),
                });
            }
        }
        Edit::Deadline | Edit::Reminded | Edit::Escalated => {}
    }
    Ok(())
}

/// The option the human tapped is still in the decision, with the label they saw.
fn check_option(plan: &Plan, decision: &str, key: &str, label: &str) -> Result<(), EditError> {
    let d = plan
        .decision(decision)
        .ok_or_else(|| EditError::DecisionGone {
            decision: decision.to_owned(),
        })?;
    if !d.options.iter().any(|o| o.key == key && o.label == label) {
        return Err(EditError::OptionChanged {
            decision: decision.to_owned(),
            key: key.to_owned(),
        });
    }
    Ok(())
}

/// Sets `fields` (values as YAML text, written by `yaml_value`) in the block of `decision`.
fn set(
    file: &mut Lines,
    plan: &Plan,
    decision: &str,
    fields: &[(&str, String)],
) -> Result<(), EditError> {
    let Some(d) = plan.decision(decision) else {
        return Err(EditError::DecisionGone {
            decision: decision.to_owned(),
        });
    };
    let mut block = d.meta_lines.clone();
    for (key, written) in fields {
        file.set(&mut block, key, written, false, true);
    }
    Ok(())
}

/// The fields of an answer or a skip: `status`, `answer`, `answered_at` and (when known) `answered_by`.
fn stamp(
    status: &str,
    answer: Option<&str>,
    by: Option<&str>,
    now: &str,
) -> Vec<(&'static str, String)> {
    let mut fields = vec![
        ("status", yaml_value::scalar(status)),
        (
            "answer",
            answer.map_or_else(|| "null".to_owned(), yaml_value::scalar),
        ),
        ("answered_at", yaml_value::timestamp(now)),
    ];
    if let Some(by) = by {
        fields.push(("answered_by", yaml_value::integer_or_scalar(by)));
    }
    fields
}
