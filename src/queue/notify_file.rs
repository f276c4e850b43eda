//! The notification an agent reads when its plan is completed: `notify/{session-slug}--{plan-id}.md`.

use crate::plan::slug::file_component;
use crate::plan::yaml_value::{integer_or_scalar, scalar, timestamp};
use crate::plan::{DecisionStatus, Kind, Plan, PlanStatus};

/// Longest key written as `key: value`, well under YAML's limit of 1024 characters for such a key.
const MAX_IMPLICIT_KEY: usize = 512;

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

/// The notify file's text (docs/file-format.md): frontmatter with the plan's ids, sessions and `completed_at` plus
/// an `answers:` map (skipped decisions map to null), the `signoffs:` list (user ids, in order) when the plan
/// needed sign-offs and a `notes:` map (decision id → note) when any decision has a note; then the `## Answers`
/// list and, with notes, a `## Notes` list.
#[must_use]
pub fn render(plan: &Plan) -> String {
    let opt = |v: &Option<String>| v.as_deref().map_or_else(|| "null".to_owned(), scalar);
    let mut out = String::from("---\n");
    out.push_str(&format!("plan_id: {}\n", scalar(&plan.id)));
    out.push_str(&format!("plan_title: {}\n", scalar(&plan.title)));
    out.push_str(&format!("agent: {}\n", opt(&plan.agent)));
    out.push_str(&format!("session: {}\n", opt(&plan.session)));
    out.push_str(&format!("notify_session: {}\n", opt(&plan.notify_session)));
    let completed_at = plan
        .completed_at
        .as_deref()
        .map_or_else(|| "null".to_owned(), timestamp);
    out.push_str(&format!("completed_at: {completed_at}\n"));
    let sent_back = plan.status == PlanStatus::ChangesRequested;
    if sent_back {
        out.push_str(&format!(
            "outcome: {}\n",
            PlanStatus::ChangesRequested.as_str()
        ));
    } else if let Some(outcome) = &plan.outcome {
        out.push_str(&format!("outcome: {}\n", scalar(outcome)));
    }
    if plan.revision > 1 {
        out.push_str(&format!("revision: {}\n", plan.revision));
    }
    // The request for changes the agent must answer with a revision (a revision's own `feedback`, the request it
    // answered, is not repeated in its completion).
    if let Some(feedback) = plan.feedback.as_ref().filter(|_| sent_back) {
        out.push_str(&format!("feedback: {}\n", scalar(&feedback.text)));
        let by = feedback
            .by
            .as_deref()
            .map_or_else(|| "null".to_owned(), integer_or_scalar);
        out.push_str(&format!("feedback_by: {by}\n"));
        let at = feedback
            .at
            .as_deref()
            .map_or_else(|| "null".to_owned(), timestamp);
        out.push_str(&format!("feedback_at: {at}\n"));
    }
    out.push_str("answers:\n");
    for d in &plan.decisions {
        // Typed by the decision's kind: a list of keys, a number, a boolean, a string (docs/file-format.md).
        let value = match (d.status, &d.answer, &d.value) {
            (DecisionStatus::Answered, _, Some(v)) if d.kind != Kind::Choice => v.yaml(),
            (DecisionStatus::Answered, Some(a), _) => scalar(a),
            _ => "null".to_owned(),
        };
        let key = scalar(&d.id);
        // YAML allows at most 1024 characters in a `key:` on one line; a longer id is an explicit `? key`.
        if key.chars().count() > MAX_IMPLICIT_KEY {
            out.push_str(&format!("  ? {key}\n  : {value}\n"));
        } else {
            out.push_str(&format!("  {key}: {value}\n"));
        }
    }
    let edited: Vec<(&str, bool)> = plan
        .decisions
        .iter()
        .filter(|d| d.status == DecisionStatus::Answered)
        .filter_map(|d| Some((d.id.as_str(), d.edited?)))
        .collect();
    if !edited.is_empty() {
        out.push_str("edited:\n");
        for (id, e) in &edited {
            let key = scalar(id);
            if key.chars().count() > MAX_IMPLICIT_KEY {
                out.push_str(&format!("  ? {key}\n  : {e}\n"));
            } else {
                out.push_str(&format!("  {key}: {e}\n"));
            }
        }
    }
    if !plan.approval.signoffs.is_empty() {
        out.push_str("signoffs:\n");
        for id in &plan.approval.signoffs {
            out.push_str(&format!("  - {id}\n"));
        }
    }
    let noted: Vec<(&str, &str)> = plan
        .decisions
        .iter()
        .filter_map(|d| Some((d.id.as_str(), d.note.as_deref()?)))
        .collect();
    if !noted.is_empty() {
        out.push_str("notes:\n");
        for (id, note) in &noted {
            let key = scalar(id);
            if key.chars().count() > MAX_IMPLICIT_KEY {
                out.push_str(&format!("  ? {key}\n  : {}\n", scalar(note)));
            } else {
                out.push_str(&format!("  {key}: {}\n", scalar(note)));
            }
        }
    }
    out.push_str("---\n\n");
    if let Some(feedback) = plan.feedback.as_ref().filter(|_| sent_back) {
        out.push_str("## Changes requested\n\n");
        out.push_str(feedback.text.trim_end());
        out.push_str("\n\n");
    }
    out.push_str("## Answers\n\n");
    for d in &plan.decisions {
        let value = match (d.status, &d.answer) {
            (DecisionStatus::Answered, Some(a)) if d.edited == Some(true) => {
                format!("{} (edited)", a.replace('\n', " "))
            }
            (DecisionStatus::Answered, Some(a)) => a.replace('\n', " "),
            (DecisionStatus::Skipped, _) => "(skipped)".to_owned(),
            _ => "(unanswered)".to_owned(),
        };
        out.push_str(&format!("- {}: {value}\n", d.id));
    }
    if !noted.is_empty() {
        out.push_str("\n## Notes\n\n");
        for (id, note) in &noted {
            out.push_str(&format!("- {id}: {}\n", note.replace(['\r', '\n'], " ")));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::Decision;
    use crate::plan::yaml_readers::{Node, Schema, read_flat, top_str};
    use proptest::prelude::*;
    use serde_yaml::{Mapping, Value};

    fn spec_plan() -> Plan {
        let text = include_str!("../../tests/fixtures/spec-example.md")
            .replace("completed_at: null", "completed_at: 2026-01-30T01:45:00Z");
        crate::plan::parse(&text, "x").unwrap()
    }

    fn frontmatter(notify: &str) -> &str {
        let rest = notify.strip_prefix("---\n").unwrap();
        &rest[..rest.find("\n---\n").unwrap() + 1]
    }

    /// What serde_yaml, a YAML 1.1 reader (PyYAML) and a YAML 1.2 core-schema reader make of the notify file of
    /// `plan`, against what the plan holds: every text value and answer is exactly its string.
    fn reads_back_everywhere(plan: &Plan) -> Result<(), TestCaseError> {
        let text = render(plan);
        let fm = frontmatter(&text);
        let serde: Mapping =
            serde_yaml::from_str(fm).map_err(|e| TestCaseError::fail(format!("{e}\n{fm}")))?;
        let serde_str = |k: &str| serde.get(k).and_then(Value::as_str).map(str::to_owned);
        let texts = [
            ("plan_id", Some(plan.id.clone())),
            ("plan_title", Some(plan.title.clone())),
            ("agent", plan.agent.clone()),
            ("session", plan.session.clone()),
            ("notify_session", plan.notify_session.clone()),
        ];
        for (key, want) in &texts {
            prop_assert_eq!(&serde_str(key), want, "serde_yaml, {}\n{}", key, fm);
        }
        let answers = serde.get("answers").and_then(Value::as_mapping).unwrap();
        prop_assert_eq!(answers.len(), plan.decisions.len());
        for d in &plan.decisions {
            prop_assert_eq!(
                answers.get(d.id.as_str()).and_then(Value::as_str),
                d.answer.as_deref()
            );
        }
        for schema in [Schema::Yaml11, Schema::Yaml12Core] {
            let read = read_flat(fm, schema)
                .map_err(|e| TestCaseError::fail(format!("{schema:?}: {e}\n{fm}")))?;
            for (key, want) in &texts {
                let got = top_str(&read, key).unwrap();
                match want {
                    Some(w) => prop_assert_eq!(
                        got.as_str(),
                        Some(w.as_str()),
                        "{:?} {}\n{}",
                        schema,
                        key,
                        fm
                    ),
                    None => prop_assert_eq!(got.tag, "null"),
                }
            }
            let Some((_, Node::Map(answers))) =
                read.iter().find(|(k, _)| k.as_str() == Some("answers"))
            else {
                return Err(TestCaseError::fail(format!("no answers map\n{fm}")));
            };
            let got: Vec<(Option<&str>, Option<&str>)> = answers
                .iter()
                .map(|(k, v)| (k.as_str(), v.as_str()))
                .collect();
            let want: Vec<(Option<&str>, Option<&str>)> = plan
                .decisions
                .iter()
                .map(|d| (Some(d.id.as_str()), d.answer.as_deref()))
                .collect();
            prop_assert_eq!(got, want, "{:?}\n{}", schema, fm);
        }
        Ok(())
    }

    fn text() -> impl Strategy<Value = String> {
        prop_oneof![
            any::<String>(),
            "[0-9yYnN:._+~=<#x -]{0,10}",
            "(?i)(y|n|yes|no|on|off|true|false|null)",
            ".{600,700}",
        ]
    }

    proptest! {
        #[test]
        fn every_value_of_a_notify_file_reads_back_in_yaml_1_1_and_1_2(
            id in text(),
            title in text(),
            session in text(),
            decisions in prop::collection::vec((text(), text()), 1..4),
        ) {
            let mut plan = spec_plan();
            plan.id = id;
            plan.title = title;
            plan.session = Some(session);
            plan.notify_session = None;
            plan.decisions.truncate(1);
            let first = plan.decisions[0].clone();
            plan.decisions = decisions
                .into_iter()
                .enumerate()
                .map(|(n, (id, answer))| Decision {
                    id: format!("{id}{n}"),
                    status: DecisionStatus::Answered,
                    answer: Some(answer),
                    ..first.clone()
                })
                .collect();
            reads_back_everywhere(&plan)?;
        }
    }

    #[test]
    fn the_values_of_issue_17_read_back_in_yaml_1_1_and_1_2() {
        let mut plan = spec_plan();
        let hostile = [
            "yes",
            "007",
            "12:30",
            "=",
            "<<",
            "2026-01-30",
            "1_000",
            "~",
            "null",
            "on",
            "'quoted'",
            "a: b",
            "# x",
        ];
        let first = plan.decisions[0].clone();
        plan.decisions = hostile
            .iter()
            .map(|a| Decision {
                id: (*a).to_owned(),
                status: DecisionStatus::Answered,
                answer: Some((*a).to_owned()),
                ..first.clone()
            })
            .collect();
        plan.title = "Use C#".into();
        plan.session = Some("off".into());
        reads_back_everywhere(&plan).unwrap();
        let text = render(&plan);
        assert!(
            text.contains("\nplan_title: Use C#\nagent: ceo\nsession: \"off\"\n"),
            "{text}"
        );
        assert!(
            text.contains("\n  \"yes\": \"yes\"\n  \"007\": \"007\"\n"),
            "{text}"
        );
        // A key too long for `key: value` is written as an explicit `? key`.
        plan.decisions[0].id = "k".repeat(600);
        reads_back_everywhere(&plan).unwrap();
        assert!(render(&plan).contains(&format!("\n  ? \"{}\"\n  : \"yes\"\n", "k".repeat(600))));
    }

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

    #[test]
    fn notes_and_signoffs_read_back_everywhere() {
        let mut plan = spec_plan();
        let hostile = "yes\n---\n# \"x\": 'y' \u{2028} 12:30 ";
        plan.decisions[0].note = Some(hostile.to_owned());
        plan.decisions[2].note = Some("on".to_owned());
        let text = render(&plan);
        let fm = frontmatter(&text);
        for schema in [Schema::Yaml11, Schema::Yaml12Core] {
            let read = read_flat(fm, schema).unwrap();
            let Some((_, Node::Map(notes))) =
                read.iter().find(|(k, _)| k.as_str() == Some("notes"))
            else {
                panic!("no notes map\n{fm}");
            };
            let got: Vec<(Option<&str>, Option<&str>)> = notes
                .iter()
                .map(|(k, v)| (k.as_str(), v.as_str()))
                .collect();
            let want = vec![
                (Some(plan.decisions[0].id.as_str()), Some(hostile)),
                (Some(plan.decisions[2].id.as_str()), Some("on")),
            ];
            assert_eq!(got, want, "{schema:?}\n{fm}");
        }
        assert!(text.contains("\n## Notes\n\n"), "{text}");
        plan.approval.signoffs = vec![93533553, 11111111];
        let text = render(&plan);
        let map: Mapping = serde_yaml::from_str(frontmatter(&text)).unwrap();
        let signoffs: Vec<u64> = map
            .get("signoffs")
            .and_then(Value::as_sequence)
            .unwrap()
            .iter()
            .filter_map(Value::as_u64)
            .collect();
        assert_eq!(signoffs, vec![93533553, 11111111]);
    }
}
