//! An agent's revision of a plan (`push --revise`): the new text becomes revision N+1 of the previous one. It keeps
//! the previous plan's id, carries the answers of decisions whose id, kind and options did not change (marked
//! `carried: true`), and keeps the request for changes it answers (`feedback`, `feedback_by`, `feedback_at`).
//! Only those lines are written or inserted; everything else the agent wrote stays byte for byte.

use serde_yaml::Value;

use crate::plan::{Decision, DecisionStatus, Diagnostic, Kind, Plan, PlanStatus, yaml_value};

use super::Parsed;
use super::patch::Lines;

/// The new plan `text` (already completed with the frontmatter a push fills in) as the revision that follows
/// `previous`; returns the text and the plan it reads as, with the ids of the decisions whose answers were
/// carried over. Refused (with a diagnosis of the result) if the result would not read back as that revision.
pub fn revise(text: &str, previous: &Plan) -> Result<(String, Plan, Vec<String>), Diagnostic> {
    let parsed = Parsed::parse(text, &previous.id)?;
    let new = &parsed.plan;
    let mut file = Lines::new(text);
    // Bottom-up, so the line ranges of the decisions above stay where the parse found them.
    let mut carried = Vec::new();
    for d in new.decisions.iter().rev() {
        let Some(before) = previous.decision(&d.id).filter(|p| carries(p, d)) else {
            continue;
        };
        let mut block = d.meta_lines.clone();
        for (key, value) in carried_fields(before) {
            file.set(&mut block, key, &value, false, true);
        }
        carried.push(d.id.clone());
    }
    carried.reverse();
    let answered = new
        .decisions
        .iter()
        .filter(|d| {
            carried.contains(&d.id)
                && previous.decision(&d.id).map(|p| p.status) == Some(DecisionStatus::Answered)
                || !carried.contains(&d.id) && d.status == DecisionStatus::Answered
        })
        .count();
    let settled = new
        .decisions
        .iter()
        .filter(|d| carried.contains(&d.id) || d.status != DecisionStatus::Pending)
        .count();
    let status = if settled > 0 {
        PlanStatus::InProgress
    } else {
        PlanStatus::Pending
    };
    let mut keys: Vec<(&str, String)> = vec![
        ("id", yaml_value::scalar(&previous.id)),
        ("revision", (previous.revision + 1).to_string()),
        ("status", status.as_str().to_owned()),
        ("total", new.decisions.len().to_string()),
        ("answered", answered.to_string()),
        ("remaining", (new.decisions.len() - settled).to_string()),
    ];
    if let (None, Some(agent)) = (&new.agent, &previous.agent) {
        keys.push(("agent", yaml_value::scalar(agent)));
    }
    if let Some(f) = &previous.feedback {
        keys.push(("feedback", yaml_value::scalar(&f.text)));
        let by =
            f.by.as_deref()
                .map_or_else(|| "null".to_owned(), yaml_value::integer_or_scalar);
        keys.push(("feedback_by", by));
        let at =
            f.at.as_deref()
                .map_or_else(|| "null".to_owned(), yaml_value::timestamp);
        keys.push(("feedback_at", at));
    }
    let mut fm = new.frontmatter_lines.clone();
    for (key, value) in &keys {
        let known = parsed
            .frontmatter
            .contains_key(Value::String((*key).to_owned()));
        file.set(&mut fm, key, value, true, known);
    }
    let out = file.join();
    let after = Parsed::parse(&out, &previous.id)?.plan;
    let holds = after.id == previous.id
        && after.revision == previous.revision + 1
        && after.feedback == previous.feedback.clone().or_else(|| new.feedback.clone())
        && carried
            .iter()
            .all(|id| match (after.decision(id), previous.decision(id)) {
                (Some(a), Some(p)) => a.carried && a.status == p.status && a.answer == p.answer,
                _ => false,
            });
    if !holds {
        return Err(Diagnostic::new(
            0,
            "the revision does not read back with its id, revision number, feedback and carried answers",
        ));
    }
    Ok((out, after, carried))
}

/// True when `before`'s answer still answers `now`: it was answered or skipped, and the decision kept its kind
/// (with its constraints and proposal) and its options (keys and labels), and the new text leaves it pending.
#[must_use]
pub fn carries(before: &Decision, now: &Decision) -> bool {
    before.status != DecisionStatus::Pending
        && now.status == DecisionStatus::Pending
        && before.kind == now.kind
        && before.options == now.options
}

/// The lines of a carried answer: `status`, `answer` (as the previous revision recorded it), `answered_at`,
/// `answered_by`, `edited` (for an `edit` decision) and `carried: true`.
fn carried_fields(d: &Decision) -> Vec<(&'static str, String)> {
    let answer = match (&d.kind, &d.value, &d.answer) {
        (Kind::Choice, _, Some(a)) => yaml_value::scalar(a),
        (_, Some(v), _) => v.yaml(),
        (_, None, Some(a)) => yaml_value::scalar(a),
        _ => "null".to_owned(),
    };
    let mut fields = vec![("status", d.status.as_str().to_owned()), ("answer", answer)];
    if let Some(at) = &d.answered_at {
        fields.push(("answered_at", yaml_value::timestamp(at)));
    }
    if let Some(by) = &d.answered_by {
        fields.push(("answered_by", yaml_value::integer_or_scalar(by)));
    }
    if let Some(edited) = d.edited {
        fields.push(("edited", edited.to_string()));
    }
    fields.push(("carried", "true".to_owned()));
    fields
}
