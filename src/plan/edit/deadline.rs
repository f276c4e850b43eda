//! The deadline's edit (`on_deadline: submit`), and what the clock may do on a plan now.

use crate::plan::{AnswerValue, DecisionStatus, Due, Kind, Plan, PlanStatus, timing};

use super::{Edit, EditError, apply, apply_parsed};

/// The deadline's edit: defaults or skips for every pending decision, then the submit, applied one after the
/// other to the text (each checked as any edit is) and returned as one new text, so the file gets one write.
pub(super) fn apply_deadline(
    text: &str,
    plan: &Plan,
    stem: &str,
    by: Option<&str>,
    now: &str,
) -> Result<(String, Plan), EditError> {
    if plan.status == PlanStatus::Completed {
        return Err(EditError::Completed);
    }
    // Decided on the file as it is under the plan's lock: an agent that moved the deadline meanwhile wins.
    if !due_now(plan, now).deadline {
        return Err(EditError::NotDue);
    }
    // An elicitation whose required field has no default can't be accepted without it: the deadline declines.
    if plan.elicitation
        && plan
            .decisions
            .iter()
            .any(|d| d.status == DecisionStatus::Pending && d.required && d.default_value.is_none())
    {
        return apply_parsed(text, stem, &Edit::Decline, by, now);
    }
    let mut text = text.to_owned();
    for d in plan
        .decisions
        .iter()
        .filter(|d| d.status == DecisionStatus::Pending)
    {
        let default = d
            .default
            .as_ref()
            .and_then(|k| d.options.iter().find(|o| &o.key == k));
        let edit = match (&d.kind, default, &d.default_value) {
            // Any other kind: its typed default (checked against the decision when the file was read).
            (kind, _, Some(value)) if *kind != Kind::Choice => Edit::Value {
                decision: d.id.clone(),
                value: value.clone(),
                edited: match (kind, value) {
                    (Kind::Edit { proposal, .. }, AnswerValue::Text(t))
                        if d.chosen_option_of(t).is_none() =>
                    {
                        Some(*t != proposal.text)
                    }
                    _ => None,
                },
            },
            (_, Some(o), _) => Edit::Answer {
                decision: d.id.clone(),
                key: o.key.clone(),
                label: o.label.clone(),
            },
            _ => Edit::Skip {
                decision: d.id.clone(),
            },
        };
        text = apply(&text, stem, &edit, by, now)?;
    }
    apply_parsed(&text, stem, &Edit::Submit, by, now)
}

/// What the clock may do on `plan` at `now` (an RFC 3339 time; unreadable: nothing).
pub(super) fn due_now(plan: &Plan, now: &str) -> Due {
    timing::parse_time(now).map_or_else(Due::default, |now| plan.due(now))
}
