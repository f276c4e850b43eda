//! The prompts beyond tool permissions, on their pure parts: AskUserQuestion, ExitPlanMode and Elicitation
//! payloads → plan → the owner's answers → Claude Code's hook output.

use serde_json::{Value, json};

use super::{Prompt, form, plan_mode};
use crate::agent::hook::dialect::Dialect;
use crate::agent::hook::dialect::claude_code::ClaudeCode;
use crate::agent::spec::{self, PlanSpec};
use crate::plan::{self, AnswerValue, Edit, Plan};

const NOW: &str = "2026-02-01T10:00:00Z";
const OWNER: &str = "93533553";

fn payload(event: &str, tool: &str, tool_input: &Value) -> String {
    json!({
        "session_id": "s-1", "cwd": "/home/dev/shop", "hook_event_name": event,
        "tool_name": tool, "tool_input": tool_input,
    })
    .to_string()
}

/// The plan the hook pushes for `input`, validated and rendered as `push` would.
fn pushed(input: &Prompt) -> (String, PlanSpec) {
    let spec = input.spec(&super::PlanOptions::default(), None).unwrap();
    spec::validate(&spec).unwrap();
    let text = spec::render(&spec, "h1", NOW);
    let plan = plan::parse(&text, "h1").unwrap();
    spec::verify(&spec, &plan).unwrap();
    (text, spec)
}

/// `text` after each edit by the owner, then a submit.
fn answered(text: &str, edits: &[Edit]) -> Plan {
    let mut text = text.to_owned();
    for edit in edits.iter().chain([&Edit::Submit]) {
        text = plan::apply(&text, "h1", edit, Some(OWNER), NOW).unwrap();
    }
    plan::parse(&text, "h1").unwrap()
}

fn output(input: &Prompt, plan: &Plan) -> Value {
    let verdict = input.verdict(plan);
    serde_json::from_str(&ClaudeCode.render(input.event(), &verdict).unwrap()).unwrap()
}

/// What Claude Code's hook reads from `text`.
fn parse(text: &str) -> Result<Prompt, super::InputError> {
    ClaudeCode.parse(text, None)
}

fn questions() -> Value {
    json!({"questions": [
        {"question": "Which database should the service use?", "header": "Database", "multiSelect": false,
         "options": [{"label": "Postgres", "description": "Relational, the team knows it"},
                     {"label": "SQLite", "description": "One file, no server"}]},
        {"question": "Which checks should run before merging?", "header": "Checks", "multiSelect": true,
         "options": [{"label": "Lint"}, {"label": "Unit tests"}, {"label": "E2E tests"}]},
        {"question": "What should the service be called?", "header": "Name", "multiSelect": false,
         "options": [{"label": "orders"}, {"label": "checkout"}]}
    ]})
}

#[test]
fn ask_user_question_is_one_plan_and_its_answers_go_back_as_updated_input() {
    let input = parse(&payload(
        "PermissionRequest",
        "AskUserQuestion",
        &questions(),
    ))
    .unwrap();
    let (text, _) = pushed(&input);
    assert!(text.contains("title: Claude asks 3 questions"), "{text}");
    assert!(
        text.contains("## Decision 1: Database: Which database should the service use?"),
        "{text}"
    );
    assert!(
        text.contains("- **Postgres**: Relational, the team knows it"),
        "{text}"
    );
    assert!(text.contains("- `unit-tests` — Unit tests"), "{text}");
    assert!(text.contains("kind: multi"), "{text}");
    assert_eq!(text.matches("allow_custom: true").count(), 3, "{text}");
    assert_eq!(text.matches("required: true").count(), 3, "{text}");

    let plan = answered(
        &text,
        &[
            Edit::Answer {
                decision: "q1".into(),
                key: "postgres".into(),
                label: "Postgres".into(),
            },
            Edit::Value {
                decision: "q2".into(),
                value: AnswerValue::List(vec!["lint".into(), "e2e-tests".into()]),
                edited: None,
            },
            Edit::Custom {
                decision: "q3".into(),
                text: "orders-api".into(),
            },
        ],
    );
    let out = output(&input, &plan);
    let decision = &out["hookSpecificOutput"]["decision"];
    assert_eq!(decision["behavior"], "allow");
    assert_eq!(
        decision["updatedInput"]["answers"],
        json!({
            "Which database should the service use?": "Postgres",
            "Which checks should run before merging?": "Lint, E2E tests",
            "What should the service be called?": "orders-api",
        })
    );
    // The questions go back unchanged beside the answers.
    assert_eq!(
        decision["updatedInput"]["questions"],
        questions()["questions"]
    );
}

#[test]
fn ask_user_question_that_cannot_be_asked_falls_back() {
    for bad in [
        json!({}),
        json!({"questions": []}),
        json!({"questions": [{"question": "x", "options": []}]}),
    ] {
        let err = parse(&payload("PermissionRequest", "AskUserQuestion", &bad)).unwrap_err();
        assert_eq!(err.answer_as, Some(super::Event::Permission), "{bad}");
    }
    let Prompt::Questions { questions, .. } = parse(&payload(
        "PermissionRequest",
        "AskUserQuestion",
        &questions(),
    ))
    .unwrap() else {
        panic!()
    };
    assert_eq!(questions.len(), 3);
}

const PLAN: &str = "# Add a cache\n\n## Steps\n\n1. Add `moka`\n2. Wrap `fetch`\n\n```md\n## not a heading\n```\n\n###### Deep\n";

#[test]
fn exit_plan_mode_shows_the_plan_and_approve_allows_with_the_input() {
    let tool_input = json!({"plan": PLAN, "planFilePath": "/home/dev/.claude/plans/cache.md"});
    let input = parse(&payload("PermissionRequest", "ExitPlanMode", &tool_input)).unwrap();
    let (text, _) = pushed(&input);
    assert!(text.contains("title: \"Plan: Add a cache\""), "{text}");
    // Claude's headings go two levels down: none of them opens a decision section.
    assert!(text.contains("\n### Add a cache\n\n#### Steps\n"), "{text}");
    assert!(text.contains("```md\n## not a heading\n```"), "{text}");
    assert!(text.contains("\n###### Deep\n"), "{text}");
    assert_eq!(plan::parse(&text, "h1").unwrap().decisions.len(), 1);

    let plan = answered(
        &text,
        &[Edit::Answer {
            decision: plan_mode::DECISION_ID.into(),
            key: plan_mode::APPROVE.into(),
            label: "✅ Approve".into(),
        }],
    );
    let out = output(&input, &plan);
    assert_eq!(out["hookSpecificOutput"]["decision"]["behavior"], "allow");
    assert_eq!(
        out["hookSpecificOutput"]["decision"]["updatedInput"],
        tool_input
    );
}

#[test]
fn exit_plan_mode_reads_the_plan_file_when_the_input_has_no_plan() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("plan.md");
    std::fs::write(&file, PLAN).unwrap();
    let with_file = json!({"planFilePath": file});
    let Prompt::PlanApproval(_, plan) =
        parse(&payload("PermissionRequest", "ExitPlanMode", &with_file)).unwrap()
    else {
        panic!()
    };
    assert_eq!(plan, PLAN);
    let missing = json!({"planFilePath": dir.path().join("gone.md")});
    assert!(parse(&payload("PermissionRequest", "ExitPlanMode", &missing)).is_err());
}

fn form_payload(schema: &Value, mode: &str) -> String {
    json!({
        "session_id": "s-1", "cwd": "/home/dev/shop", "hook_event_name": "Elicitation",
        "mcp_server_name": "bookings", "message": "Book a table\n\n## Details", "mode": mode,
        "requested_schema": schema,
    })
    .to_string()
}

fn schema() -> Value {
    json!({"type": "object", "properties": {
        "name": {"type": "string", "title": "Name"},
        "guests": {"type": "integer", "minimum": 1, "maximum": 12},
        "terrace": {"type": "boolean"},
        "time": {"type": "string", "enum": ["19:00", "20:30"]}
    }, "required": ["name", "guests"]})
}

#[test]
fn an_elicitation_is_a_form_plan_answered_with_typed_content_or_declined() {
    let input = parse(&form_payload(&schema(), "form")).unwrap();
    assert_eq!(input.event(), super::Event::Form);
    let (text, spec) = pushed(&input);
    assert!(spec.elicitation);
    assert!(text.contains("title: \"bookings: Book a table\""), "{text}");
    assert!(
        text.contains(
            "Asked by the MCP server `bookings` through Claude Code in `/home/dev/shop`."
        ),
        "{text}"
    );
    assert!(text.contains("\n#### Details\n"), "{text}");

    let plan = answered(
        &text,
        &[
            Edit::Value {
                decision: "name".into(),
                value: AnswerValue::Text("Ada".into()),
                edited: None,
            },
            Edit::Value {
                decision: "guests".into(),
                value: AnswerValue::Number(plan::Number::new(4.0).unwrap()),
                edited: None,
            },
            Edit::Value {
                decision: "terrace".into(),
                value: AnswerValue::Bool(true),
                edited: None,
            },
            Edit::Skip {
                decision: "time".into(),
            },
        ],
    );
    assert_eq!(
        output(&input, &plan),
        json!({"hookSpecificOutput": {"hookEventName": "Elicitation", "action": "accept",
               "content": {"name": "Ada", "guests": 4, "terrace": true}}})
    );

    let mut declined = text.clone();
    declined = plan::apply(&declined, "h1", &Edit::Decline, Some(OWNER), NOW).unwrap();
    let declined = plan::parse(&declined, "h1").unwrap();
    assert_eq!(
        output(&input, &declined),
        json!({"hookSpecificOutput": {"hookEventName": "Elicitation", "action": "decline"}})
    );
    assert!(form::result(&declined).is_some());
}

#[test]
fn a_url_elicitation_or_a_bad_schema_is_left_to_claude_code() {
    let url = parse(&form_payload(&schema(), "url")).unwrap();
    let Prompt::Form(form_input) = &url else {
        panic!()
    };
    let err = form::plan_spec(form_input, &super::PlanOptions::default()).unwrap_err();
    assert!(err.contains("url elicitation"), "{err}");
    let nested = json!({"type": "object", "properties": {"a": {"type": "object"}}});
    let bad = parse(&form_payload(&nested, "form")).unwrap();
    let Prompt::Form(form_input) = &bad else {
        panic!()
    };
    let err = form::plan_spec(form_input, &super::PlanOptions::default()).unwrap_err();
    assert!(
        err.starts_with("the form of `bookings` can't be asked as a plan"),
        "{err}"
    );
    // The fallback to an Elicitation prints nothing: Claude Code shows its own form.
    assert_eq!(
        super::Reply::fallback(&ClaudeCode, Some(super::Event::Form), &err).stdout,
        None
    );
}
