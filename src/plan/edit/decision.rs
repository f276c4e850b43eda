//! An edit's lines in its decision's block: `status`, `answer`, `answered_at`, `answered_by`, `note`, the
//! delegation; and the checks that refuse an edit before anything is written.

use crate::plan::{AnswerValue, Plan, input, yaml_value};

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
            let mut fields = stamp("answered", Some(key), by, now);
            clear_edited(plan, decision, &mut fields);
            set(file, plan, decision, &fields)?;
        }
        Edit::Value {
            decision,
            value,
            edited,
        } => {
            let d = plan
                .decision(decision)
                .ok_or_else(|| EditError::DecisionGone {
                    decision: decision.clone(),
                })?;
            input::check_value(d, value).map_err(EditError::Input)?;
            let mut fields = stamp_value("answered", value, by, now);
            match edited {
                Some(e) => {
                    fields.push(("edited", e.to_string()));
                    clear_carried(plan, decision, &mut fields);
                }
                None => clear_edited(plan, decision, &mut fields),
            }
            set(file, plan, decision, &fields)?;
        }
        Edit::Custom { decision, text } => {
            if text.trim().is_empty() {
                return Err(EditError::EmptyAnswer);
            }
            let mut fields = stamp("answered", Some(text), by, now);
            clear_carried(plan, decision, &mut fields);
            set(file, plan, decision, &fields)?;
        }
        Edit::Skip { decision } => {
            // The deadline (`answered_by: deadline`, never a user id) skips what it has no default for.
            if by != Some("deadline") && plan.decision(decision).is_some_and(|d| d.required) {
                return Err(EditError::Required {
                    decision: decision.clone(),
                });
            }
            let mut fields = stamp("skipped", None, by, now);
            clear_edited(plan, decision, &mut fields);
            set(file, plan, decision, &fields)?;
        }
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
        Edit::Decline => {
            if !plan.elicitation {
                return Err(EditError::NotDeclinable);
            }
        }
        Edit::RequestChanges { feedback } => {
            // MCP's elicitation result has accept and decline only: there is no revision to wait for.
            if plan.elicitation {
                return Err(EditError::NotSendable);
            }
            if feedback.trim().is_empty() {
                return Err(EditError::EmptyFeedback);
            }
        }
        Edit::Deadline | Edit::Reminded | Edit::Escalated | Edit::Withdraw { .. } => {}
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

/// `edited: null` added to `fields` when decision `decision` has an `edited` value the new answer makes wrong (an
/// option picked or a skip after an edited proposal).
fn clear_edited(plan: &Plan, decision: &str, fields: &mut Vec<(&'static str, String)>) {
    if plan.decision(decision).is_some_and(|d| d.edited.is_some()) {
        fields.push(("edited", "null".to_owned()));
    }
    clear_carried(plan, decision, fields);
}

/// `carried: false` added to `fields` when decision `decision`'s answer was carried over from the previous
/// revision: the new answer is the owner's own.
fn clear_carried(plan: &Plan, decision: &str, fields: &mut Vec<(&'static str, String)>) {
    if plan.decision(decision).is_some_and(|d| d.carried) {
        fields.push(("carried", "false".to_owned()));
    }
}

/// The fields of a typed answer: `status`, `answer` (YAML of the value's type), `answered_at`, `answered_by`.
fn stamp_value(
    status: &str,
    value: &AnswerValue,
    by: Option<&str>,
    now: &str,
) -> Vec<(&'static str, String)> {
    let mut fields = stamp(status, None, by, now);
    fields[1].1 = value.yaml();
    fields
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
