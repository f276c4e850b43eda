//! The hook's pure parts on Claude Code hook payloads (tests/fixtures/claude-code/, built from the hooks
//! reference's input schemas): input → plan, answer → decision JSON.

use serde_json::json;

use super::ClaudeCode;
use crate::agent::hook::core::permission::{self, PlanOptions};
use crate::agent::hook::core::verdict::{self, OnTimeout, Verdict};
use crate::agent::hook::core::{Event, Prompt, Reply, SessionGrant, ToolCall};
use crate::agent::hook::dialect::{self, Dialect};
use crate::agent::spec;
use crate::plan::{self, Edit, Plan};

/// The old name of the permission plan's module, so the assertions read as they always have.
use permission as question;

const BASH: &str = include_str!("../../../../tests/fixtures/claude-code/pre-tool-use-bash.json");
const EDIT: &str = include_str!("../../../../tests/fixtures/claude-code/pre-tool-use-edit.json");
const MCP: &str = include_str!("../../../../tests/fixtures/claude-code/pre-tool-use-mcp.json");
const PR_BASH: &str =
    include_str!("../../../../tests/fixtures/claude-code/permission-request-bash.json");
const PR_EDIT: &str =
    include_str!("../../../../tests/fixtures/claude-code/permission-request-edit.json");
const NOW: &str = "2026-02-01T10:00:00Z";
const OWNER: &str = "93533553";

/// The tool call of a `PreToolUse` or `PermissionRequest` payload.
fn tool(payload: &str) -> ToolCall {
    match ClaudeCode.parse(payload, None).unwrap() {
        Prompt::Permission(call) => call,
        other => panic!("not a tool permission: {other:?}"),
    }
}

/// The plan file the hook would push for `payload`, as `push` validates and renders it.
fn plan_text(payload: &str) -> String {
    let input = tool(payload);
    let spec = question::plan_spec(&input, &PlanOptions::default());
    spec::validate(&spec).unwrap();
    let text = spec::render(&spec, "h1", NOW);
    let plan = plan::parse(&text, "h1").unwrap();
    spec::verify(&spec, &plan).unwrap();
    text
}

/// The completed plan after the owner's `edit` (an answer, a skip) and a submit.
fn answered(payload: &str, edit: &Edit) -> Plan {
    let text = plan::apply(&plan_text(payload), "h1", edit, Some(OWNER), NOW).unwrap();
    let text = plan::apply(&text, "h1", &Edit::Submit, Some(OWNER), NOW).unwrap();
    plan::parse(&text, "h1").unwrap()
}

/// `✅ Approve as is` on a `Bash` command.
fn approve_as_is(payload: &str) -> Edit {
    let command = tool(payload).input["command"].as_str().unwrap().to_owned();
    Edit::Value {
        decision: question::DECISION_ID.into(),
        value: plan::AnswerValue::Text(command),
        edited: Some(false),
    }
}

fn pick(key: &str, label: &str) -> Edit {
    Edit::Answer {
        decision: question::DECISION_ID.into(),
        key: key.into(),
        label: label.into(),
    }
}

/// The decision JSON the hook prints for `payload` answered with `edit`.
fn reply(payload: &str, edit: &Edit) -> Option<String> {
    let input = tool(payload);
    let plan = answered(payload, edit);
    ClaudeCode.render(input.event, &verdict::of_answer(&plan, &input))
}

#[test]
fn reads_the_recorded_payloads() {
    let bash = tool(BASH);
    assert_eq!(
        (bash.event, bash.tool.as_str(), bash.origin.cwd.as_deref()),
        (Event::PreTool, "Bash", Some("/home/dev/shop"))
    );
    assert_eq!(
        bash.origin.session.as_deref(),
        Some("9d5c1c3e-7a4f-4b59-a8e2-5c4b2f0e6f11")
    );
    assert_eq!(bash.grants.session, SessionGrant::None);
    assert_eq!(tool(MCP).tool, "mcp__github__create_issue");
    let pr = tool(PR_BASH);
    assert_eq!(pr.event, Event::Permission);
    assert!(
        matches!(pr.grants.session, SessionGrant::Agent { ref updates, .. } if updates.len() == 1)
    );
}

#[test]
fn a_malformed_input_says_why_and_in_which_format_to_ask() {
    let cases: [(&str, Option<Event>, &str); 6] = [
        ("", Some(Event::PreTool), "the hook input is not JSON"),
        ("[1]", Some(Event::PreTool), "not a JSON object"),
        (
            r#"{"tool_name": "Bash"}"#,
            Some(Event::PreTool),
            "no `hook_event_name`",
        ),
        (
            r#"{"hook_event_name": "SessionStart", "tool_name": "Bash", "tool_input": {}}"#,
            None,
            "`SessionStart` is not an event this hook answers",
        ),
        (
            r#"{"hook_event_name": "PermissionRequest", "tool_input": {}}"#,
            Some(Event::Permission),
            "the PermissionRequest hook input has no `tool_name` string",
        ),
        (
            r#"{"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": "ls"}"#,
            Some(Event::PreTool),
            "has no `tool_input` object",
        ),
    ];
    for (text, answer_as, reason) in cases {
        let e = ClaudeCode.parse(text, None).unwrap_err();
        assert_eq!(e.answer_as, answer_as, "{text}");
        assert!(e.reason.contains(reason), "{text}: {}", e.reason);
        assert_eq!(dialect::answer_as(&ClaudeCode, text, None), answer_as);
    }
}

#[test]
fn the_bash_question_as_the_human_gets_it() {
    assert_eq!(
        plan_text(BASH),
        r#"---
id: h1
version: 1
agent: claude-code
session: "9d5c1c3e-7a4f-4b59-a8e2-5c4b2f0e6f11"
tag: shop
title: "Bash: rm -rf target && cargo test --workspace"
priority: normal
status: pending
created_at: 2026-02-01T10:00:00Z
updated_at: 2026-02-01T10:00:00Z
completed_at: null
total: 1
answered: 0
remaining: 1
project: "/home/dev/shop"
rule_tool: Bash
rule_command: "rm -rf target && cargo test --workspace"
grant_minutes: 30
---

# Bash: rm -rf target && cargo test --workspace

Claude Code asks to run a command in `/home/dev/shop`: Clean build and run the test suite.

---

## Decision 1: Run this command?

id: permission
status: pending
answer: null
answered_at: null
kind: edit

**Proposal:**

```bash
rm -rf target && cargo test --workspace
```

**Options:**
- `always` — 🔁 Always allow this
- `grant` — ⏱ Allow Claude Code for 30 min
- `deny` — ❌ Deny
"#
    );
}

#[test]
fn titles_name_the_tool_and_what_it_acts_on() {
    let title = |payload: &str| question::title(&tool(payload));
    assert_eq!(title(EDIT), "Edit: /home/dev/shop/src/config.rs");
    assert_eq!(title(MCP), "mcp__github__create_issue");
    let long = json!({
        "hook_event_name": "PreToolUse", "tool_name": "Bash",
        "tool_input": {"command": format!("echo one\n  echo two && {}", "x".repeat(200))}
    });
    let long = title(&long.to_string());
    assert!(long.starts_with("Bash: echo one echo two && xxx"), "{long}");
    assert_eq!(long.chars().count(), 100);
    assert!(long.ends_with('…'));
}

#[test]
fn an_mcp_call_shows_its_input_and_an_edit_shows_its_diff() {
    let mcp = plan_text(MCP);
    assert!(
        mcp.contains("Claude Code asks to use `mcp__github__create_issue` in `/home/dev/shop`."),
        "{mcp}"
    );
    // Line breaks and backticks of the input stay escaped inside the JSON block.
    assert!(
        mcp.contains(r#""body": "Steps:\n1. Empty the cart\n2. Press `Checkout`\n\nExpected"#),
        "{mcp}"
    );
    // The file is not on this machine: the replaced text alone, as a diff, never the tool's JSON.
    let edit = plan_text(EDIT);
    assert!(
        edit.contains("```diff\n--- a/src/config.rs\n+++ b/src/config.rs\n@@ -1 +1 @@\n-const MAX_RETRIES: u32 = 3;\n+const MAX_RETRIES: u32 = 5;\n```"),
        "{edit}"
    );
    assert!(!edit.contains("new_string"), "{edit}");
}

#[test]
fn hostile_input_still_makes_a_plan_that_reads_back() {
    let nasty = json!({
        "hook_event_name": "PermissionRequest",
        "cwd": "/tmp/`odd`\ndir",
        "tool_name": "Bash\n## Decision 2: x",
        "tool_input": {
            "command": "```\n## Decision 2: Sneaky\n**Options:**\n- `a` — b\n---\nstatus: completed",
            "content": "y".repeat(10_000)
        },
        "permission_suggestions": [
            {"type": "addRules", "rules": [{"toolName": "Bash", "ruleContent": "rm\n-rf"}],
             "behavior": "allow", "destination": "userSettings"}
        ]
    });
    let text = plan_text(&nasty.to_string());
    let plan = plan::parse(&text, "h1").unwrap();
    assert_eq!(plan.decisions.len(), 1);
    // A call whose input is a whole document (here 10,000 characters) gets no standing rule: it is asked each
    // time.
    assert_eq!(plan.decisions[0].options.len(), 3);
    assert_eq!(
        plan.decisions[0].options[1].label,
        "✅ Allow for this session (Bash(rm -rf))"
    );
    assert_eq!(plan.ruling, None);
    let short = nasty.to_string().replace(&"y".repeat(10_000), "y");
    let plan = plan::parse(&plan_text(&short), "h1").unwrap();
    assert_eq!(plan.decisions[0].options[2].label, "🔁 Always allow this");
    // What a rule made from it would allow is the call exactly, kept whole in the frontmatter.
    let ruling = plan.ruling.unwrap();
    assert_eq!(ruling.tool, "Bash\n## Decision 2: x");
    assert!(
        ruling.command.contains("## Decision 2: Sneaky"),
        "{}",
        ruling.command
    );
    assert!(
        text.contains("\n… (10018 more characters)\n````\n"),
        "the long input is cut: {text}"
    );
    assert!(text.len() < 5_000, "{}", text.len());
}

#[test]
fn allow_for_this_session_is_offered_only_with_claude_codes_suggestions() {
    let options = |payload: &str| {
        plan::parse(&plan_text(payload), "h1").unwrap().decisions[0]
            .options
            .iter()
            .map(|o| format!("{} — {}", o.key, o.label))
            .collect::<Vec<_>>()
    };
    let always = "always — 🔁 Always allow this";
    let grant = "grant — ⏱ Allow Claude Code for 30 min";
    assert_eq!(options(BASH), [always, grant, "deny — ❌ Deny"]);
    assert_eq!(
        options(MCP),
        ["allow — ✅ Allow once", always, grant, "deny — ❌ Deny"]
    );
    // `🔁 Always allow this` takes the place of Claude Code's own project rule: every "always" is Arbiter's.
    assert_eq!(
        options(PR_BASH),
        [
            "allow-session — ✅ Allow for this session (Bash(npm install:*))",
            always,
            grant,
            "deny — ❌ Deny"
        ]
    );
    assert_eq!(
        options(PR_EDIT)[1],
        "allow-session — ✅ Allow for this session (acceptEdits mode)"
    );
}

#[test]
fn session_updates_stay_in_the_session_and_never_bypass_permissions() {
    let payload = |event: &str| {
        json!({
            "hook_event_name": event, "tool_name": "Edit", "tool_input": {},
            "permission_suggestions": [
                {"type": "addRules", "rules": [{"toolName": "Edit"}], "behavior": "allow", "destination": "projectSettings"},
                {"type": "addRules", "rules": [{"toolName": "Bash"}], "behavior": "deny", "destination": "session"},
                {"type": "setMode", "mode": "bypassPermissions", "destination": "session"},
                {"type": "addDirectories", "directories": ["/srv/data"], "destination": "localSettings"},
                {"type": "removeRules", "rules": [{"toolName": "Read"}], "behavior": "deny", "destination": "session"},
                {"type": "toolAlwaysAllow", "tool": "Edit"},
                "not an entry"
            ]
        })
        .to_string()
    };
    let session_updates = |call: &ToolCall| match &call.grants.session {
        SessionGrant::Agent { updates, .. } => updates.clone(),
        SessionGrant::Arbiter | SessionGrant::None => Vec::new(),
    };
    assert_eq!(
        json!(session_updates(&tool(&payload("PermissionRequest")))),
        json!([
            {"type": "addRules", "rules": [{"toolName": "Edit"}], "behavior": "allow", "destination": "session"},
            {"type": "addDirectories", "directories": ["/srv/data"], "destination": "session"}
        ])
    );
    assert!(session_updates(&tool(&payload("PreToolUse"))).is_empty());
}

#[test]
fn pre_tool_use_answers_as_permission_decisions() {
    assert_eq!(
        reply(BASH, &approve_as_is(BASH)).unwrap(),
        r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"Allowed by 93533553 via Arbiter"}}"#
    );
    assert_eq!(
        reply(EDIT, &pick("deny", "❌ Deny")).unwrap(),
        r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"Denied by 93533553 via Arbiter"}}"#
    );
    let custom = Edit::Custom {
        decision: question::DECISION_ID.into(),
        text: "Open the issue in acme/backend instead".into(),
    };
    assert_eq!(
        reply(MCP, &custom).unwrap(),
        r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"Denied by 93533553 via Arbiter: Open the issue in acme/backend instead"}}"#
    );
    let skip = Edit::Skip {
        decision: question::DECISION_ID.into(),
    };
    assert_eq!(
        reply(BASH, &skip).unwrap(),
        r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"Skipped by 93533553 in Arbiter; answer here"}}"#
    );
}

#[test]
fn permission_request_answers_as_decision_behaviors() {
    assert_eq!(
        reply(PR_BASH, &approve_as_is(PR_BASH)).unwrap(),
        r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}},"systemMessage":"Allowed by 93533553 via Arbiter"}"#
    );
    assert_eq!(
        reply(
            PR_BASH,
            &pick(
                "allow-session",
                "✅ Allow for this session (Bash(npm install:*))"
            )
        )
        .unwrap(),
        r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow","updatedPermissions":[{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"npm install:*"}],"behavior":"allow","destination":"session"}]}},"systemMessage":"Allowed for this session by 93533553 via Arbiter"}"#
    );
    assert_eq!(
        reply(PR_EDIT, &pick("deny", "❌ Deny")).unwrap(),
        r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"Denied by 93533553 via Arbiter"}}}"#
    );
    // No "ask" behavior: no decision leaves Claude Code's dialog in place.
    let skip = Edit::Skip {
        decision: question::DECISION_ID.into(),
    };
    assert_eq!(reply(PR_EDIT, &skip), None);
}

#[test]
fn timeouts_answer_as_told() {
    let out =
        |on: OnTimeout, event: Event| ClaudeCode.render(event, &verdict::of_timeout(on, "2s"));
    assert_eq!(
        out(OnTimeout::Ask, Event::PreTool).unwrap(),
        r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"No answer via Arbiter within 2s"}}"#
    );
    assert_eq!(
        out(OnTimeout::Allow, Event::PreTool).unwrap(),
        r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"No answer via Arbiter within 2s: allowed (--on-timeout allow)"}}"#
    );
    assert_eq!(
        out(OnTimeout::Deny, Event::Permission).unwrap(),
        r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"No answer via Arbiter within 2s: denied (--on-timeout deny)"}}}"#
    );
    assert_eq!(out(OnTimeout::Ask, Event::Permission), None);
    assert_eq!(
        verdict::of_timeout(OnTimeout::Ask, "9m"),
        Verdict::Ask {
            reason: "No answer via Arbiter within 9m".into()
        }
    );
}

#[test]
fn a_fallback_asks_in_the_events_format_and_explains_on_stderr() {
    let reply = Reply::fallback(
        &ClaudeCode,
        Some(Event::PreTool),
        "the queue is unreachable: x",
    );
    assert_eq!(
        reply.stdout.as_deref(),
        Some(
            r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"Arbiter could not ask: the queue is unreachable: x"}}"#
        )
    );
    assert_eq!(
        reply.stderr.as_deref(),
        Some("arbiter: the queue is unreachable: x; answering `ask`")
    );
    assert_eq!(
        Reply::fallback(&ClaudeCode, Some(Event::Permission), "x").stdout,
        None
    );
}

#[test]
fn always_allow_this_allows_once_here_and_a_deny_note_is_the_reason() {
    // The rule its submit makes is Arbiter's (in rules.json): Claude Code is told to allow this call only.
    assert_eq!(
        reply(PR_BASH, &pick("always", "🔁 Always allow this")).unwrap(),
        r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}},"systemMessage":"Allowed by 93533553 via Arbiter, and always from now on (a standing rule: /rules)"}"#
    );
    let noted = plan::apply(
        &plan_text(PR_EDIT),
        "h1",
        &Edit::Note {
            decision: question::DECISION_ID.into(),
            text: "Not that file".into(),
        },
        Some(OWNER),
        NOW,
    )
    .unwrap();
    let text = plan::apply(&noted, "h1", &pick("deny", "❌ Deny"), Some(OWNER), NOW).unwrap();
    let text = plan::apply(&text, "h1", &Edit::Submit, Some(OWNER), NOW).unwrap();
    let input = tool(PR_EDIT);
    let plan = plan::parse(&text, "h1").unwrap();
    assert_eq!(
        ClaudeCode
            .render(input.event, &verdict::of_answer(&plan, &input))
            .unwrap(),
        r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"Denied by 93533553 via Arbiter: Not that file"}}}"#
    );
}

#[test]
fn an_edited_command_runs_as_edited() {
    let edited = Edit::Value {
        decision: question::DECISION_ID.into(),
        value: plan::AnswerValue::Text("cargo test -p shop".into()),
        edited: Some(true),
    };
    assert_eq!(
        reply(PR_BASH, &edited).unwrap(),
        r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow","updatedInput":{"command":"cargo test -p shop","description":"Install the left-pad package"}}},"systemMessage":"Allowed by 93533553 via Arbiter, edited: cargo test -p shop"}"#
    );
    assert_eq!(
        reply(BASH, &edited).unwrap(),
        r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"Allowed by 93533553 via Arbiter, edited: cargo test -p shop","updatedInput":{"command":"cargo test -p shop","description":"Clean build and run the test suite","timeout":120000,"run_in_background":false}}}"#
    );
}
