use super::*;

const NOW: &str = "2026-01-30T01:30:00Z";

/// The example plan (tests/fixtures/spec-example.md) as a JSON spec.
const SPEC_EXAMPLE_JSON: &str = r#"{
  "title": "API Design Decisions",
  "tag": "nft-marketplace",
  "priority": "normal",
  "agent": "ceo",
  "session": "agent:ceo:main",
  "notify_session": "agent:swe2:main",
  "context": "Context for the human reviewer.",
  "decisions": [
    {"id": "auth-strategy", "title": "Auth Strategy",
     "context": "How should we authenticate admin panel users?",
     "options": [
       {"key": "jwt", "label": "JWT tokens (stateless, scalable)"},
       {"key": "session", "label": "Server sessions (more control)"},
       {"key": "oauth", "label": "External OAuth provider"}]},
    {"title": "Database", "context": "Primary datastore for NFT metadata.",
     "options": [
       {"key": "postgresql", "label": "With JSONB for flexibility"},
       {"key": "mongodb", "label": "Document store"}]},
    {"id": "caching", "title": "Caching", "context": "API response caching strategy.", "allow_custom": true,
     "options": [
       {"key": "redis", "label": "In-memory cache"},
       {"key": "none", "label": "No caching initially"},
       {"key": "cdn", "label": "Edge caching only"}]}
  ]
}"#;

#[test]
fn renders_exactly_the_design_example() {
    let spec = from_json(SPEC_EXAMPLE_JSON).unwrap();
    validate(&spec).unwrap();
    let expected = include_str!("../../../tests/fixtures/spec-example.md")
        .replace(
            "title: \"API Design Decisions\"",
            "title: API Design Decisions",
        )
        .replace("           # low | normal | high | urgent", "")
        .replace("            # pending | in_progress | completed", "")
        .replace("   # Optional: who to notify", "");
    let rendered = render(&spec, "abc123", NOW);
    assert_eq!(rendered, expected);
    let plan = crate::plan::parse(&rendered, "x").unwrap();
    verify(&spec, &plan).unwrap();
}

fn error(json: &str) -> String {
    match from_json(json) {
        Err(e) => e.to_string(),
        Ok(spec) => validate(&spec)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default(),
    }
}

#[test]
fn errors_name_the_place_and_the_reason() {
    assert_eq!(
        error(r#"{"title": "T", "colour": "red", "decisions": []}"#),
        "1:23: unknown field `colour`, expected one of `id`, `title`, `tag`, `priority`, `agent`, `session`, \
         `notify_session`, `context`, `deadline`, `on_deadline`, `remind_every`, `escalate_after`, `escalate_to`, `approvers`, `require`, `decisions`"
    );
    assert_eq!(
        error(
            "{\"title\": \"T\",\n \"decisions\": [{\"title\": \"A\", \"options\": [{\"key\": \"a\", \"lable\": \"x\"}]}]}"
        ),
        "2:62: decisions[0].options[0]: unknown field `lable`, expected `key` or `label`"
    );
    assert_eq!(
        error(r#"{"title": "T", "decisions": [{"title": "A"}], "priority": "asap"}"#),
        "priority: unknown priority `asap`: use low, normal, high or urgent"
    );
    assert_eq!(
        error(r#"{"title": "T", "decisions": [{"title": "A b"}, {"title": "a-B"}]}"#),
        "decisions[1].id: duplicate decision id `a-b` (also decisions[0])"
    );
    assert_eq!(
        error(
            r#"{"title": "T", "decisions": [{"title": "A", "options": [{"key": "x"}, {"key": " x "}]}]}"#
        ),
        "decisions[0].options[1].key: duplicate option key `x` (also decisions[0].options[0])"
    );
    assert_eq!(
        error(r#"{"title": "Two\nlines", "decisions": [{"title": "A"}]}"#),
        "title: must be one line (it contains a line break)"
    );
    assert_eq!(
        error(r#"{"title": "T", "decisions": []}"#),
        "decisions: a plan needs at least one decision"
    );
    assert_eq!(
        error(r#"{"title": "T"}"#),
        "1:14: missing field `decisions`"
    );
    assert_eq!(
        error(r#"{"title": "T", "decisions": [{"title": "A"}]} x"#),
        "1:47: trailing characters"
    );
    assert_eq!(
        error(r#"{"title": "T", "decisions": [{"title": "A", "options": [{"key": "`a`"}]}]}"#),
        "decisions[0].options[0].key: a key can't contain a backtick"
    );
}

#[test]
fn a_context_that_would_change_the_structure_is_refused() {
    let json = r#"{"title": "T", "context": "intro\n\n## Sneaky", "decisions": [{"title": "A"}]}"#;
    let spec = from_json(json).unwrap();
    validate(&spec).unwrap();
    let plan = crate::plan::parse(&render(&spec, "x", NOW), "x").unwrap();
    let e = verify(&spec, &plan).unwrap_err().to_string();
    assert!(e.contains("instead of [\"a\"]"), "{e}");

    let json = r#"{"title": "T", "decisions": [{"title": "A", "context": "see\n**Options:**\n- `z` — Z", "options": [{"key": "a"}]}]}"#;
    let spec = from_json(json).unwrap();
    let plan = crate::plan::parse(&render(&spec, "x", NOW), "x").unwrap();
    assert!(
        verify(&spec, &plan)
            .unwrap_err()
            .to_string()
            .starts_with("decisions[0]:")
    );
}

#[test]
fn values_yaml_would_misread_are_quoted_and_read_back() {
    let json = r#"{"title": "null: or #not", "agent": "a: b", "tag": "yes", "session": "'s",
        "decisions": [{"id": "true", "title": "Free text?", "allow_custom": true},
                      {"title": "🚀"}]}"#;
    let spec = from_json(json).unwrap();
    validate(&spec).unwrap();
    let text = render(&spec, "42", NOW);
    assert!(text.contains("id: \"42\"\n"), "{text}");
    let plan = crate::plan::parse(&text, "x").unwrap();
    verify(&spec, &plan).unwrap();
    assert_eq!(plan.id, "42");
    assert_eq!(plan.title, "null: or #not");
    assert_eq!(plan.agent.as_deref(), Some("a: b"));
    assert_eq!(plan.tag.as_deref(), Some("yes"));
    assert_eq!(plan.session.as_deref(), Some("'s"));
    assert_eq!(plan.decisions[0].id, "true");
    assert!(plan.decisions[0].options.is_empty());
    assert_eq!(plan.decisions[1].id, "decision-2");
}

#[test]
fn titles_ending_in_a_hash_read_back_whole() {
    // Issue 17: `## Decision 1: issue #` reads as `issue` (CommonMark drops a closing `#` run after a space).
    let json = r##"{"title": "Fix issue #", "decisions": [{"title": "Use C#"}, {"title": "issue #"},
        {"title": "#"}, {"title": "keep##"}, {"title": "Decision 7: F# #"}]}"##;
    let spec = from_json(json).unwrap();
    validate(&spec).unwrap();
    let text = render(&spec, "x", NOW);
    assert!(text.contains("\n# Fix issue # #\n"), "{text}");
    assert!(text.contains("\n## Decision 2: issue # #\n"), "{text}");
    let plan = crate::plan::parse(&text, "x").unwrap();
    verify(&spec, &plan).unwrap();
    let titles: Vec<&str> = plan.decisions.iter().map(|d| d.title.as_str()).collect();
    assert_eq!(
        titles,
        ["Use C#", "issue #", "#", "keep##", "Decision 7: F# #"]
    );
    // A title that would still read back otherwise is refused rather than changed.
    let mut changed = plan.clone();
    changed.decisions[1].title = "issue".into();
    assert_eq!(
        verify(&spec, &changed).unwrap_err().to_string(),
        "decisions[1].title: the plan would read back with the title \"issue\" instead of \"issue #\"; rephrase it"
    );
}

proptest::proptest! {
    #[test]
    fn any_one_line_title_reads_back(title in "[^\r\n]{1,40}") {
        proptest::prop_assume!(!title.trim().is_empty());
        let spec = PlanSpec {
            id: None,
            title: title.clone(),
            tag: None,
            priority: None,
            agent: None,
            machine: None,
            session: None,
            notify_session: None,
            context: None,
            deadline: None,
            on_deadline: None,
            remind_every: None,
            escalate_after: None,
            escalate_to: Vec::new(),
            approvers: Vec::new(),
            require: None,
            elicitation: false,
            project: None,
            ruling: None,
            reply_to: None,
            decisions: vec![DecisionSpec {
                id: Some("d".into()),
                title: title.clone(),
                context: None,
                allow_custom: true,
                default: None,
                options: Vec::new(),
                ..DecisionSpec::default()
            }],
        };
        let text = render(&spec, "x", NOW);
        let plan = crate::plan::parse(&text, "x").unwrap();
        proptest::prop_assert_eq!(verify(&spec, &plan), Ok(()));
        proptest::prop_assert_eq!(plan.title.as_str(), title.trim());
        proptest::prop_assert_eq!(plan.decisions[0].title.as_str(), title.trim());
    }
}

#[test]
fn approvers_and_require_are_written_and_read_back() {
    let spec = from_json(
        r#"{"title": "T", "approvers": ["alice", 11111111], "require": 2,
            "decisions": [{"title": "A", "options": [{"key": "a"}]}]}"#,
    )
    .unwrap();
    validate(&spec).unwrap();
    let text = render(&spec, "x", NOW);
    assert!(
        text.contains("approvers: [alice, 11111111]\nrequire: 2\n"),
        "{text}"
    );
    let plan = crate::plan::parse(&text, "x").unwrap();
    assert_eq!(plan.approval.approvers, ["alice", "11111111"]);
    assert_eq!(plan.approval.require, 2);
    let error = |json: &str| validate(&from_json(json).unwrap()).unwrap_err().to_string();
    assert_eq!(
        error(
            r#"{"title": "T", "approvers": ["alice"], "require": 2, "decisions": [{"title": "A"}]}"#
        ),
        "require: 2 sign-offs needs at least 2 approvers (approvers names 1)"
    );
    assert_eq!(
        error(r#"{"title": "T", "require": 0, "decisions": [{"title": "A"}]}"#),
        "require: must be at least 1"
    );
    assert_eq!(
        error(r#"{"title": "T", "approvers": [" "], "decisions": [{"title": "A"}]}"#),
        "approvers[0]: must not be empty"
    );
}
