//! The recipes in examples/ run as a user would run them, against a temp queue, with the owner answering through
//! the action layer (as a tap would). Examples needing a tool the machine lacks (python3, jq) are skipped with
//! a message; CI has both (`.ci/run` checks).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use arbiter_zebu::cli::{Cli, Command as Sub};
use clap::Parser;
use serde_json::Value;

use crate::cli_support::{Output, collect};
use crate::support::TempQueue;
use crate::support::owner::Owner;

const WAIT: Duration = Duration::from_secs(20);

fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

/// True when `tool` runs here; otherwise says which test is skipped.
fn have(tool: &str, test: &str) -> bool {
    let found = Command::new(tool)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !found {
        eprintln!("skipped {test}: `{tool}` is not installed");
    }
    found
}

/// `program args…` with the example environment: ARBITER_BIN and ARBITER_QUEUE set, nothing else of arbiter's.
fn example(q: &TempQueue, program: &str, args: &[&str]) -> Command {
    let mut cmd = Command::new(program);
    cmd.args(args)
        .current_dir(repo(""))
        .env("ARBITER_BIN", env!("CARGO_BIN_EXE_arbiter"))
        .env("ARBITER_QUEUE", q.root())
        .env("HOME", q.root())
        .env_remove("ARBITER_HOME")
        .env_remove("ARBITER_TELEGRAM_TOKEN")
        .env_remove("RUST_LOG")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd
}

/// Runs `cmd`; once its plan is pending, `owner` answers it.
fn answered(q: &TempQueue, mut cmd: Command, owner: impl FnOnce(&Owner, &str)) -> Output {
    let child = cmd.spawn().expect("start the example");
    let human = Owner::new(q.root());
    let plan = human
        .wait_for_plan(WAIT)
        .expect("the example pushes a plan");
    owner(&human, &plan.plan.id);
    collect(child)
}

#[test]
fn the_claude_code_settings_run_the_hook_within_claude_codes_timeout() {
    let text = std::fs::read_to_string(repo("examples/claude-code/settings.json")).unwrap();
    let settings: Value = serde_json::from_str(&text).unwrap();
    let groups = settings["hooks"]["PermissionRequest"].as_array().unwrap();
    let handler = &groups[0]["hooks"][0];
    assert_eq!(handler["type"], "command");
    let command = handler["command"].as_str().unwrap();
    let words: Vec<&str> = command.split_whitespace().collect();
    let cli = Cli::try_parse_from(&words).unwrap_or_else(|e| panic!("{command}: {e}"));
    assert!(matches!(cli.command, Sub::Hook { .. }), "{command}");
    // The hook must answer before Claude Code cancels it (its `timeout`, in seconds).
    let wait = words[words.iter().position(|w| *w == "--timeout").unwrap() + 1];
    let minutes: u64 = wait.strip_suffix('m').unwrap().parse().unwrap();
    assert!(
        minutes * 60 < handler["timeout"].as_u64().unwrap(),
        "{text}"
    );
}

#[test]
fn the_hook_example_answers_bash_edit_and_mcp_payloads() {
    for payload in [
        "pre-tool-use-bash.json",
        "pre-tool-use-edit.json",
        "pre-tool-use-mcp.json",
    ] {
        // As with a daemon running: the hook asks only a queue someone serves.
        let q = TempQueue::served();
        let fixture = format!("tests/fixtures/claude-code/{payload}");
        let cmd = example(
            &q,
            "sh",
            &[
                "examples/claude-code/try-hook.sh",
                &fixture,
                "--timeout",
                "60s",
            ],
        );
        let out = answered(&q, cmd, |owner, id| {
            // A Bash command is approved as is; other tools are allowed once.
            if payload.contains("bash") {
                owner.approve(id, "permission");
            } else {
                owner.answer(id, "permission", "allow");
            }
            owner.submit(id);
        });
        assert_eq!(
            (out.code, out.stdout.as_str(), out.stderr.as_str()),
            (
                Some(0),
                "{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"allow\",\"permissionDecisionReason\":\"Allowed by 93533553 via Arbiter\"}}\n",
                ""
            ),
            "{payload}"
        );
    }
}

#[test]
fn the_shell_agent_gets_its_answers() {
    if !have("jq", "the_shell_agent_gets_its_answers") {
        return;
    }
    let q = TempQueue::new();
    let cmd = example(&q, "bash", &["examples/shell-agent.sh"]);
    let out = answered(&q, cmd, |owner, id| {
        owner.answer(id, "db", "postgresql");
        owner.custom(id, "name", "nft-indexer");
        owner.submit(id);
    });
    assert_eq!(
        (out.code, out.stdout.as_str()),
        (
            Some(0),
            "database: postgresql\nservice name: nft-indexer\ndecided by: 93533553\n"
        ),
        "{}",
        out.stderr
    );
}

#[test]
fn the_python_agent_gets_its_answers() {
    if !have("python3", "the_python_agent_gets_its_answers") {
        return;
    }
    let q = TempQueue::new();
    let cmd = example(&q, "python3", &["examples/python_agent.py"]);
    let out = answered(&q, cmd, |owner, id| {
        owner.answer(id, "ship", "ship");
        owner.custom(id, "note", "Thanks to the flaky-test hunters");
        owner.submit(id);
    });
    assert_eq!(
        (out.code, out.stdout.as_str()),
        (
            Some(0),
            "ship: ship (by 93533553)\nrelease note: Thanks to the flaky-test hunters\n"
        ),
        "{}",
        out.stderr
    );
}

#[test]
fn the_orchestrator_takes_the_humans_choice_or_its_default() {
    if !have(
        "python3",
        "the_orchestrator_takes_the_humans_choice_or_its_default",
    ) {
        return;
    }
    let q = TempQueue::new();
    let cmd = example(&q, "python3", &["examples/orchestrator.py"]);
    let out = answered(&q, cmd, |owner, id| {
        owner.answer(id, "next", "reviewer");
        owner.submit(id);
    });
    assert_eq!(
        (out.code, out.stdout.as_str()),
        (Some(0), "next step: reviewer (answered by 93533553)\n"),
        "{}",
        out.stderr
    );

    let q = TempQueue::new();
    let mut cmd = example(&q, "python3", &["examples/orchestrator.py"]);
    cmd.env("HUMAN_TIMEOUT", "1s");
    let out = collect(cmd.spawn().unwrap());
    assert_eq!(
        (out.code, out.stdout.as_str()),
        (
            Some(0),
            "next step: continue (default: no answer within 1s)\n"
        ),
        "{}",
        out.stderr
    );
    assert_eq!(q.files("pending"), Vec::<String>::new(), "withdrawn");
    crate::support::assert_withdrawn(&q, "no answer within 1s; default used");
}

#[test]
fn the_agent_sdk_configuration_starts_the_mcp_server() {
    if !have(
        "python3",
        "the_agent_sdk_configuration_starts_the_mcp_server",
    ) {
        return;
    }
    let q = TempQueue::new();
    let out = collect(
        example(&q, "python3", &["examples/agent_sdk.py", "--check"])
            .spawn()
            .unwrap(),
    );
    assert_eq!(
        (out.code, out.stdout.as_str()),
        (
            Some(0),
            "tools: arbiter_await, arbiter_get, arbiter_list, arbiter_notifications, arbiter_push, arbiter_status, \
             arbiter_withdraw\n"
        ),
        "{}",
        out.stderr
    );
}
