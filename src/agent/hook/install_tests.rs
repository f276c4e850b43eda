//! The merge of Arbiter's hooks into each agent's hook file: the user's keys and hooks kept, idempotent, updated in
//! place, a finished hook taken out with `--no-stop`, and files that are not settings refused untouched.

use serde_json::{Value, json};

use super::*;
use crate::agent::hook::dialect::{Dialect, named};

const COMMAND: &str = "'/usr/bin/arbiter' --queue '/q' hook claude-code --timeout 9m";
const MARK: &str = " hook claude-code ";

fn claude() -> Install {
    named("claude-code").unwrap().install()
}

/// Claude Code's prompt hooks (not its finished hook) running `command`, killed after `timeout` seconds.
fn prompts(command: &str, timeout: u64) -> Vec<Entry> {
    ["PermissionRequest", "Elicitation"]
        .into_iter()
        .map(|event| Entry {
            event,
            matcher: Some("*"),
            command: command.to_owned(),
            timeout,
            remove: false,
        })
        .collect()
}

/// Every hook of `dialect`'s install, running `command --event E` where it names events.
fn all(dialect: &dyn Dialect, command: &str, no_stop: bool) -> Vec<Entry> {
    let timeout = |finished| if finished { 660 } else { 600 };
    dialect.install().entries(command, timeout, no_stop)
}

#[test]
fn merges_with_the_users_keys_and_hooks_and_is_idempotent() {
    let mine = r#"{
  "model": "opus",
  "permissions": {"allow": ["Bash(ls:*)"]},
  "hooks": {
    "PermissionRequest": [
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "my-logger"}]}
    ],
    "Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]
  }
}"#;
    let once = merge(Some(mine), &claude(), MARK, &prompts(COMMAND, 600)).unwrap();
    let value: Value = serde_json::from_str(&once.text).unwrap();
    assert_eq!(value["model"], "opus");
    assert_eq!(value["permissions"]["allow"][0], "Bash(ls:*)");
    assert_eq!(value["hooks"]["Stop"][0]["hooks"][0]["command"], "say done");
    let pr = value["hooks"]["PermissionRequest"].as_array().unwrap();
    assert_eq!(pr[0]["hooks"][0]["command"], "my-logger");
    assert_eq!(
        pr[1],
        json!({"matcher": "*", "hooks": [{"type": "command", "command": COMMAND, "timeout": 600}]})
    );
    assert_eq!(
        value["hooks"]["Elicitation"][0]["hooks"][0]["command"],
        COMMAND
    );
    assert_eq!(
        once.changes,
        vec![
            ("PermissionRequest", Change::Added),
            ("Elicitation", Change::Added)
        ]
    );
    // The keys keep their order: the user's first, hooks where they were.
    let keys: Vec<&String> = value.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["model", "permissions", "hooks"]);

    let twice = merge(Some(&once.text), &claude(), MARK, &prompts(COMMAND, 600)).unwrap();
    assert_eq!(twice.text, once.text);
    assert_eq!(
        twice.changes,
        vec![
            ("PermissionRequest", Change::Unchanged),
            ("Elicitation", Change::Unchanged)
        ]
    );

    // A new binary path or timeout updates the entry in place, never a second one.
    let moved = merge(
        Some(&once.text),
        &claude(),
        MARK,
        &prompts("'/opt/arbiter' hook claude-code --timeout 2m", 180),
    )
    .unwrap();
    let value: Value = serde_json::from_str(&moved.text).unwrap();
    let pr = value["hooks"]["PermissionRequest"].as_array().unwrap();
    assert_eq!(pr.len(), 2);
    assert_eq!(pr[1]["hooks"][0]["timeout"], 180);
    assert_eq!(moved.changes[0], ("PermissionRequest", Change::Updated));
}

#[test]
fn the_finished_hook_goes_beside_the_users_and_no_stop_takes_only_arbiters_out() {
    let mine = r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]}}"#;
    let claude_code = named("claude-code").unwrap();
    let with = merge(
        Some(mine),
        &claude(),
        MARK,
        &all(claude_code, COMMAND, false),
    )
    .unwrap();
    let value: Value = serde_json::from_str(&with.text).unwrap();
    assert_eq!(
        value["hooks"]["Stop"],
        json!([
            {"hooks": [{"type": "command", "command": "say done"}]},
            {"hooks": [{"type": "command", "command": COMMAND, "timeout": 660}]}
        ])
    );
    assert_eq!(with.changes[2], ("Stop", Change::Added));
    let without = merge(
        Some(&with.text),
        &claude(),
        MARK,
        &all(claude_code, COMMAND, true),
    )
    .unwrap();
    let value: Value = serde_json::from_str(&without.text).unwrap();
    assert_eq!(
        value["hooks"]["Stop"],
        json!([{"hooks": [{"type": "command", "command": "say done"}]}])
    );
    assert_eq!(without.changes[2], ("Stop", Change::Removed));
    // Nothing to take out: nothing said, nothing written.
    let again = merge(
        Some(&without.text),
        &claude(),
        MARK,
        &all(claude_code, COMMAND, true),
    )
    .unwrap();
    assert_eq!(again.text, without.text);
    assert_eq!(again.changes.len(), 4);
}

#[test]
fn each_agent_gets_its_events_matchers_and_file_shape() {
    let command =
        |agent: &str| format!("'/usr/bin/arbiter' --queue '/q' hook {agent} --timeout 9m");
    let merged = |agent: &str, existing: Option<&str>| {
        let dialect = named(agent).unwrap();
        let once = merge(
            existing,
            &dialect.install(),
            &format!(" hook {agent} "),
            &all(dialect, &command(agent), false),
        )
        .unwrap();
        let twice = merge(
            Some(&once.text),
            &dialect.install(),
            &format!(" hook {agent} "),
            &all(dialect, &command(agent), false),
        )
        .unwrap();
        assert_eq!(
            twice.text, once.text,
            "{agent}: installing twice changes nothing"
        );
        serde_json::from_str::<Value>(&once.text).unwrap()
    };

    let codex = merged("codex", None);
    assert_eq!(
        codex["hooks"]["PreToolUse"],
        json!([{"matcher": "request_user_input", "hooks": [{"type": "command",
            "command": format!("{} --event PreToolUse", command("codex")), "timeout": 600}]}])
    );
    assert_eq!(codex["hooks"]["PermissionRequest"][0].get("matcher"), None);
    assert_eq!(codex["hooks"]["Stop"][0]["hooks"][0]["timeout"], 660);

    let gemini = merged(
        "gemini",
        Some(r#"{"hooksConfig": {"notifications": false}, "theme": "dark"}"#),
    );
    assert_eq!(gemini["theme"], "dark");
    assert_eq!(
        gemini["hooksConfig"],
        json!({"notifications": false, "enabled": true})
    );
    assert_eq!(
        gemini["hooks"]["BeforeTool"][0]["matcher"],
        "^(run_shell_command|write_file|replace|edit|ask_user)$"
    );
    assert!(gemini["hooks"]["AfterAgent"].is_array());

    let qwen = merged("qwen", None);
    assert_eq!(
        qwen["hooks"]["PreToolUse"][0]["matcher"],
        "ask_user_question"
    );

    let mine = r#"{"version": 1, "hooks": {"agentStop": [{"type": "command", "bash": "./notify.sh", "timeoutSec": 5}]}}"#;
    let copilot = merged("copilot", Some(mine));
    assert_eq!(copilot["version"], 1);
    assert_eq!(
        copilot["hooks"]["agentStop"],
        json!([
            {"type": "command", "bash": "./notify.sh", "timeoutSec": 5},
            {"type": "command", "bash": format!("{} --event agentStop", command("copilot")), "timeoutSec": 660}
        ])
    );
    assert_eq!(
        copilot["hooks"]["permissionRequest"][0]["bash"],
        format!("{} --event permissionRequest", command("copilot"))
    );
}

#[test]
fn a_file_that_is_not_settings_is_refused_with_where_and_why() {
    let err = merge(
        Some("{\n  \"hooks\": [,]\n}"),
        &claude(),
        MARK,
        &prompts(COMMAND, 600),
    )
    .unwrap_err();
    assert!(
        matches!(err, InstallError::NotJson { line: 2, .. }),
        "{err:?}"
    );
    assert!(err.to_string().starts_with("line 2, column"), "{err}");
    for (text, why) in [
        ("[1]", "the settings are not a JSON object"),
        (r#"{"hooks": 3}"#, "`hooks` is not a JSON object"),
        (
            r#"{"hooks": {"Elicitation": {}}}"#,
            "`hooks.Elicitation` is not a list",
        ),
    ] {
        let err = merge(Some(text), &claude(), MARK, &prompts(COMMAND, 600)).unwrap_err();
        assert!(err.to_string().starts_with(why), "{text}: {err}");
    }
    let gemini = named("gemini").unwrap();
    let err = merge(
        Some(r#"{"hooksConfig": true}"#),
        &gemini.install(),
        " hook gemini ",
        &[],
    )
    .unwrap_err();
    assert!(
        err.to_string()
            .starts_with("`hooksConfig` is not a JSON object"),
        "{err}"
    );
    assert!(merge(None, &claude(), MARK, &prompts(COMMAND, 600)).is_ok());
    assert!(merge(Some("  \n"), &claude(), MARK, &prompts(COMMAND, 600)).is_ok());
}

#[test]
fn shell_quoting_survives_quotes_and_spaces() {
    assert_eq!(shell_quote("/a b/it's"), r"'/a b/it'\''s'");
}
