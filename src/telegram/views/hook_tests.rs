//! The plans agents' hooks push, as the owner sees them: a file edit as its diff (Claude Code's Edit and Write,
//! Gemini's replace, a diff too long for one message cut with `📄 Full context`), a command an agent can't take
//! back edited, Claude Code's plan with `✅ Approve` and `🔁 Request changes` side by side, a finished card. Each
//! built by the hook itself from an agent's input, each checked against Telegram's limits and MarkdownV2 rules.

use insta::assert_snapshot;
use serde_json::{Value, json};

use super::test_support::{assert_within_limits, render};
use super::*;
use crate::agent::hook::core::finished::{self, Finished, LastMessage};
use crate::agent::hook::core::{Origin, PlanOptions, Prompt};
use crate::agent::hook::named;
use crate::plan::{self, Plan};

const NOW: &str = "2026-02-01T10:00:00Z";
/// Where the snapshots say the project is (the test's own folder is a temp one).
const PROJECT: &str = "/home/dev/shop";

/// A project folder with `src/config.rs` (40 lines) on disk.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("src")).unwrap();
    let mut config = String::from("//! Settings.\n\n");
    for n in 1..=36 {
        config.push_str(&format!("pub const LIMIT_{n}: u32 = {n};\n"));
        if n == 20 {
            config.push_str("const MAX_RETRIES: u32 = 3;\n");
        }
    }
    std::fs::write(dir.path().join("src/config.rs"), config).unwrap();
    dir
}

/// The plan `agent`'s hook pushes for `payload` (its `cwd` set to `dir`).
fn pushed(agent: &str, mut payload: Value, dir: &std::path::Path) -> Plan {
    let cwd = dir.to_str().unwrap();
    for key in ["cwd"] {
        if payload.get(key).is_some() {
            payload[key] = json!(cwd);
        }
    }
    let prompt = named(agent)
        .unwrap()
        .parse(&payload.to_string(), None)
        .unwrap();
    let options = PlanOptions {
        tag: Some("shop".into()),
        ..PlanOptions::default()
    };
    let spec = prompt.spec(&options, None).unwrap();
    let text = crate::agent::spec::render(&spec, "h1", NOW);
    let text = text.replace(cwd, PROJECT);
    plan::parse(&text, "h1").unwrap()
}

fn snap(name: &str, view: &View) {
    assert_within_limits(view);
    assert_snapshot!(name, render(view));
}

fn claude(tool: &str, input: Value) -> Value {
    json!({"session_id": "s-1", "cwd": PROJECT, "hook_event_name": "PermissionRequest",
           "tool_name": tool, "tool_input": input})
}

#[test]
fn claude_codes_edit_is_shown_as_its_diff_in_the_file() {
    let dir = project();
    let file = dir.path().join("src/config.rs");
    let plan = pushed(
        "claude-code",
        claude(
            "Edit",
            json!({"file_path": file, "old_string": "const MAX_RETRIES: u32 = 3;",
                   "new_string": "/// Retries before giving up.\nconst MAX_RETRIES: u32 = 5;"}),
        ),
        dir.path(),
    );
    snap("hook_claude_edit_plan", &super::plan(&plan, &Drawn::now()));
    snap(
        "hook_claude_edit_decision",
        &decision(&plan, 0, None, &Drawn::now()),
    );
}

#[test]
fn claude_codes_write_of_a_new_file_is_every_line_added() {
    let dir = project();
    let plan = pushed(
        "claude-code",
        claude(
            "Write",
            json!({"file_path": dir.path().join("src/retry.rs"),
                   "content": "//! Retrying with backoff.\n\npub fn backoff(n: u32) -> u64 {\n    100 * 2u64.pow(n)\n}\n"}),
        ),
        dir.path(),
    );
    snap(
        "hook_claude_write_decision",
        &decision(&plan, 0, None, &Drawn::now()),
    );
}

#[test]
fn a_diff_too_long_for_a_message_is_cut_with_full_context() {
    let dir = project();
    let content: String = (0..400)
        .map(|n| format!("pub const NEW_LIMIT_{n}: u32 = {n}; // `tick` *{n}* _x_\n"))
        .collect();
    let plan = pushed(
        "claude-code",
        claude(
            "Write",
            json!({"file_path": dir.path().join("src/config.rs"), "content": content}),
        ),
        dir.path(),
    );
    assert!(
        plan.decisions[0]
            .context
            .contains("+pub const NEW_LIMIT_399")
    );
    let view = decision(&plan, 0, None, &Drawn::now());
    assert!(view.text.contains("… 📄 Full context"), "{}", view.text);
    snap("hook_claude_write_long_decision", &view);
}

#[test]
fn geminis_replace_is_shown_as_its_diff_with_its_instruction() {
    let dir = project();
    let payload = json!({"session_id": "g-1", "cwd": PROJECT, "hook_event_name": "BeforeTool",
        "tool_name": "replace", "tool_input": {"file_path": dir.path().join("src/config.rs"),
        "instruction": "Retry five times", "old_string": "const MAX_RETRIES: u32 = 3;",
        "new_string": "const MAX_RETRIES: u32 = 5;", "allow_multiple": false}});
    let plan = pushed("gemini", payload, dir.path());
    snap(
        "hook_gemini_replace_plan",
        &super::plan(&plan, &Drawn::now()),
    );
    snap(
        "hook_gemini_replace_decision",
        &decision(&plan, 0, None, &Drawn::now()),
    );
}

#[test]
fn a_command_the_agent_cant_take_back_edited_is_a_code_block() {
    let dir = project();
    let payload: Value = serde_json::from_str(include_str!(
        "../../../tests/fixtures/agents/codex/PermissionRequest.json"
    ))
    .unwrap();
    let plan = pushed("codex", payload, dir.path());
    snap(
        "hook_codex_command_decision",
        &decision(&plan, 0, None, &Drawn::now()),
    );
}

#[test]
fn claude_codes_plan_is_approved_or_sent_back_in_one_tap() {
    let dir = project();
    let plan = pushed(
        "claude-code",
        claude(
            "ExitPlanMode",
            json!({"plan": "# Cache the prices\n\n1. Add `moka`\n2. Wrap `fetch_price`\n3. Expire after **5 minutes**"}),
        ),
        dir.path(),
    );
    let view = decision(&plan, 0, None, &Drawn::now());
    let last_options = view
        .keyboard
        .iter()
        .find(|row| row.iter().any(|b| b.text == "🔁 Request changes"))
        .unwrap();
    let texts: Vec<&str> = last_options.iter().map(|b| b.text.as_str()).collect();
    assert_eq!(texts, ["✅ Approve", "🔁 Request changes"]);
    snap("hook_claude_plan_decision", &view);
}

#[test]
fn a_finished_card_shows_the_last_message_and_asks_what_next() {
    let finished = Finished {
        origin: Origin {
            agent: crate::agent::hook::dialect::codex::AGENT,
            session: Some("s-1".into()),
            cwd: Some(PROJECT.into()),
        },
        last: LastMessage::Text(None),
        cap: None,
    };
    let message = "## Done\n\nAdded the cache:\n\n- `moka` with a **5 minute** TTL\n- tests in `tests/cache.rs` (all green)\n\n```diff\n+let cache = Cache::new(1_000);\n```\n\nShall I open a PR?";
    let spec = finished::plan_spec(&finished, Some(message), None, &PlanOptions::default());
    let plan = plan::parse(&crate::agent::spec::render(&spec, "h1", NOW), "h1").unwrap();
    snap("hook_finished_plan", &super::plan(&plan, &Drawn::now()));
    snap(
        "hook_finished_decision",
        &decision(&plan, 0, None, &Drawn::now()),
    );
}

/// Every dialect's prompt for the same kinds of call reads back as one decision whatever its size (a sanity
/// check beside the snapshots).
#[test]
fn every_agents_permission_plan_fits_a_message() {
    let dir = project();
    for (agent, payload) in [
        (
            "qwen",
            include_str!("../../../tests/fixtures/agents/qwen/PermissionRequest-edit.json"),
        ),
        (
            "copilot",
            include_str!("../../../tests/fixtures/agents/copilot/permissionRequest-edit.json"),
        ),
        (
            "codex",
            include_str!(
                "../../../tests/fixtures/agents/codex/PermissionRequest-apply_patch-update.json"
            ),
        ),
    ] {
        let plan = pushed(agent, serde_json::from_str(payload).unwrap(), dir.path());
        let prompt_kind = matches!(
            named(agent).unwrap().parse(payload, None).unwrap(),
            Prompt::Permission(_)
        );
        assert!(prompt_kind, "{agent}");
        assert_eq!(plan.decisions.len(), 1);
        assert_within_limits(&decision(&plan, 0, None, &Drawn::now()));
        assert!(plan.decisions[0].context.contains("```diff"), "{agent}");
    }
}
