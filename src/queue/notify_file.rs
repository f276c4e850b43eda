//! The notification an agent reads when its plan is completed: `notify/{session-slug}--{plan-id}.md`.

use crate::plan::slug::file_component;
use crate::plan::yaml_value::scalar;
use crate::plan::{DecisionStatus, Plan};

/// The notify file name for a plan: the session slug (`notify_session`, else `session`, else `agent`), `--`,
/// then the plan id made file-safe.
#[must_use]
pub fn file_name(plan: &Plan) -> String {
    let session = plan.notify_target().unwrap_or("unknown");
    format!(
        "{}--{}.md",
        file_component(session),
        file_component(&plan.id)
    )
}

/// The notify file's text: the spec's frontmatter plus an `answers:` map (skipped decisions map to null), then
/// the spec's `## Answers` list.
#[must_use]
pub fn render(plan: &Plan) -> String {
    let opt = |v: &Option<String>| v.as_deref().map_or_else(|| "null".to_owned(), scalar);
    let mut out = String::from("---\n");
    out.push_str(&format!("plan_id: {}\n", scalar(&plan.id)));
    out.push_str(&format!("plan_title: {}\n", scalar(&plan.title)));
    out.push_str(&format!("agent: {}\n", opt(&plan.agent)));
    out.push_str(&format!("session: {}\n", opt(&plan.session)));
    out.push_str(&format!("notify_session: {}\n", opt(&plan.notify_session)));
    out.push_str(&format!("completed_at: {}\n", opt(&plan.completed_at)));
    out.push_str("answers:\n");
    for d in &plan.decisions {
        let value = match (d.status, &d.answer) {
            (DecisionStatus::Answered, Some(a)) => scalar(a),
            _ => "null".to_owned(),
        };
        out.push_str(&format!("  {}: {value}\n", scalar(&d.id)));
    }
    out.push_str("---\n\n## Answers\n\n");
    for d in &plan.decisions {
        let value = match (d.status, &d.answer) {
            (DecisionStatus::Answered, Some(a)) => a.replace('\n', " "),
            (DecisionStatus::Skipped, _) => "(skipped)".to_owned(),
            _ => "(unanswered)".to_owned(),
        };
        out.push_str(&format!("- {}: {value}\n", d.id));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_the_spec_shape() {
        let text = include_str!("../../tests/fixtures/spec-example.md")
            .replace(
                "status: pending\nanswer: null",
                "status: answered\nanswer: jwt",
            )
            .replace("completed_at: null", "completed_at: 2026-01-30T01:45:00Z");
        let mut plan = crate::plan::parse(&text, "x").unwrap();
        plan.decisions[1].status = DecisionStatus::Skipped;
        plan.decisions[2].answer = Some("a: b".into());
        assert_eq!(file_name(&plan), "agent-swe2-main--abc123.md");
        assert_eq!(
            render(&plan),
            "---\nplan_id: abc123\nplan_title: API Design Decisions\nagent: ceo\nsession: agent:ceo:main\nnotify_session: agent:swe2:main\ncompleted_at: 2026-01-30T01:45:00Z\nanswers:\n  auth-strategy: jwt\n  database: null\n  caching: \"a: b\"\n---\n\n## Answers\n\n- auth-strategy: jwt\n- database: (skipped)\n- caching: a: b\n"
        );
    }
}
