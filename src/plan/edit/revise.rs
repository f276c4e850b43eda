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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::parse;

    const PREVIOUS: &str = "---\nid: p1\nagent: a\nrevision: 1\nstatus: changes_requested\nfeedback: \"Rename: it\"\nfeedback_by: 42\nfeedback_at: 2026-02-01T10:00:00Z\n---\n# T\n\n## Keep\n\nid: keep\nstatus: answered\nanswer: x\nanswered_at: 2026-02-01T09:00:00Z\nanswered_by: 42\n\n**Options:**\n- `x` — X\n- `y` — Y\n\n## Skipped\n\nid: skipped\nstatus: skipped\n\n**Options:**\n- `a` — A\n\n## Relabelled\n\nid: relabelled\nstatus: answered\nanswer: a\n\n**Options:**\n- `a` — A\n\n## Proposal\n\nid: proposal\nkind: edit\nstatus: answered\nanswer: ls\nedited: false\n\n**Proposal:**\n\n```bash\nls\n```\n";

    const NEW: &str = "---\n# the agent's own comment\ntitle: T2\n---\n# T2\n\n## Keep\n\nid: keep\n\n**Context:** new words\n\n**Options:**\n- `x` — X\n- `y` — Y\n\n## Skipped\n\nid: skipped\n\n**Options:**\n- `a` — A\n\n## Relabelled\n\nid: relabelled\n\n**Options:**\n- `a` — A, renamed\n\n## Proposal\n\nid: proposal\nkind: edit\n\n**Proposal:**\n\n```bash\nls -la\n```\n";

    #[test]
    fn unchanged_decisions_carry_their_answers_and_the_rest_is_pending_again() {
        let previous = parse(PREVIOUS, "p1").unwrap();
        let (text, plan, carried) = revise(NEW, &previous).unwrap();
        assert_eq!(carried, ["keep", "skipped"]);
        assert!(
            text.starts_with("---\n# the agent's own comment\ntitle: T2\n"),
            "{text}"
        );
        assert_eq!((plan.id.as_str(), plan.revision), ("p1", 2));
        assert_eq!(plan.agent.as_deref(), Some("a"));
        assert_eq!(plan.feedback, previous.feedback);
        let keep = plan.decision("keep").unwrap();
        assert_eq!(
            (
                keep.status,
                keep.answer.as_deref(),
                keep.answered_by.as_deref(),
                keep.carried
            ),
            (DecisionStatus::Answered, Some("x"), Some("42"), true)
        );
        assert_eq!(
            keep.context, "new words",
            "a new context alone does not stop the carry"
        );
        assert_eq!(
            plan.decision("skipped").unwrap().status,
            DecisionStatus::Skipped
        );
        // A label changed, a proposal changed: pending again.
        for id in ["relabelled", "proposal"] {
            let d = plan.decision(id).unwrap();
            assert_eq!(
                (d.status, d.carried),
                (DecisionStatus::Pending, false),
                "{id}"
            );
        }
        assert_eq!(plan.status, PlanStatus::InProgress);
        assert_eq!((plan.answered(), plan.remaining()), (1, 2));
        assert!(
            text.contains("total: 4\nanswered: 1\nremaining: 2\n"),
            "{text}"
        );
        // An answer the owner gives later is theirs: `carried` goes back to false.
        let (again, _, _) = revise(&text, &plan).unwrap();
        let answered = crate::plan::apply(
            &again,
            "p1",
            &crate::plan::Edit::Answer {
                decision: "keep".into(),
                key: "y".into(),
                label: "Y".into(),
            },
            Some("7"),
            "2026-02-02T10:00:00Z",
        )
        .unwrap();
        assert!(
            !parse(&answered, "p1")
                .unwrap()
                .decision("keep")
                .unwrap()
                .carried
        );
        let custom = crate::plan::apply(
            &again,
            "p1",
            &crate::plan::Edit::Custom {
                decision: "keep".into(),
                text: "my own".into(),
            },
            Some("7"),
            "2026-02-02T10:00:00Z",
        )
        .unwrap();
        let keep = parse(&custom, "p1").unwrap();
        assert!(!keep.decision("keep").unwrap().carried, "{custom}");
    }
}
