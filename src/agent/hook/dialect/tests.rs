//! Every dialect on the hook inputs its real CLI sent (tests/fixtures/agents/, captured offline from Codex
//! 0.169.0, Gemini CLI 0.61.0, Qwen Code 0.24.4 and Copilot CLI 1.0.102; tests/fixtures/claude-code/): what the
//! input reads as, and the exact output for each verdict.

use serde_json::{Value, json};

use super::{Dialect, named};
use crate::agent::hook::core::finished::LastMessage;
use crate::agent::hook::core::{Act, AnswerBy, Event, Prompt, SessionGrant, ToolCall, Verdict};

macro_rules! fixture {
    ($agent:literal, $name:literal) => {
        include_str!(concat!(
            "../../../../tests/fixtures/agents/",
            $agent,
            "/",
            $name
        ))
    };
}

fn dialect(name: &str) -> &'static dyn Dialect {
    named(name).unwrap()
}

fn permission(agent: &str, payload: &str) -> ToolCall {
    match dialect(agent).parse(payload, None).unwrap() {
        Prompt::Permission(call) => call,
        other => panic!("{agent}: not a permission: {other:?}"),
    }
}

/// `payload` with its project folder `from` moved to a fresh empty folder (the captures' folders may still exist
/// on the machine that made them).
fn moved(payload: &str, from: &str) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let text = payload.replace(from, dir.path().to_str().unwrap());
    (dir, text)
}

fn command(call: &ToolCall) -> &str {
    match &call.act {
        Act::Command { command, .. } => command,
        other => panic!("not a command: {other:?}"),
    }
}

fn diff(call: &ToolCall) -> (&[String], &str) {
    match &call.act {
        Act::Change(change) => (&change.files, &change.diff),
        other => panic!("not a change: {other:?}"),
    }
}

fn render(agent: &str, event: Event, verdict: &Verdict) -> Option<String> {
    dialect(agent).render(event, verdict)
}

fn allow() -> Verdict {
    Verdict::allow("Allowed by 93533553 via Arbiter".into())
}

fn deny() -> Verdict {
    Verdict::Deny {
        reason: "Denied by 93533553 via Arbiter: use /tmp".into(),
    }
}

fn ask() -> Verdict {
    Verdict::Ask {
        reason: "No answer via Arbiter within 9m".into(),
    }
}

fn go_on() -> Verdict {
    Verdict::Continue {
        instruction: "Now run the tests".into(),
    }
}

const BLOCK: &str = r#"{"decision":"block","reason":"Now run the tests"}"#;

#[test]
fn codex_asks_for_commands_and_patches_and_answers_in_its_permission_request_shape() {
    let call = permission("codex", fixture!("codex", "PermissionRequest.json"));
    assert_eq!(call.event, Event::Permission);
    assert_eq!(command(&call), "touch allowed.txt");
    assert_eq!(call.reason.as_deref(), Some("Create the marker file"));
    assert_eq!(call.grants.session, SessionGrant::Arbiter);
    assert_eq!(
        call.origin.session.as_deref(),
        Some("01a21e07-a8f1-7ae2-be99-b36fae354d49")
    );
    let added = permission(
        "codex",
        fixture!("codex", "PermissionRequest-apply_patch-add.json"),
    );
    assert_eq!(
        diff(&added),
        (
            &["/var/tmp/x34-outside.txt".to_owned()][..],
            "--- /dev/null\n+++ /var/tmp/x34-outside.txt\n@@ -0,0 +1,1 @@\n+outside\n"
        )
    );
    let updated = permission(
        "codex",
        fixture!("codex", "PermissionRequest-apply_patch-update.json"),
    );
    assert_eq!(
        diff(&updated).1,
        "--- /var/tmp/x34-outside.txt\n+++ /var/tmp/x34-outside.txt\n@@\n-outside\n+changed outside\n"
    );
    let p = Event::Permission;
    assert_eq!(
        render("codex", p, &allow()).unwrap(),
        r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}"#
    );
    assert_eq!(
        render("codex", p, &deny()).unwrap(),
        r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"Denied by 93533553 via Arbiter: use /tmp"}}}"#
    );
    assert_eq!(render("codex", p, &ask()), None);
}

#[test]
fn codex_asks_request_user_input_before_the_tool_and_lets_other_tools_pass() {
    let codex = dialect("codex");
    let Prompt::Questions {
        call,
        questions,
        answer,
    } = codex
        .parse(
            fixture!("codex", "PreToolUse-request_user_input.json"),
            None,
        )
        .unwrap()
    else {
        panic!()
    };
    assert_eq!((call.event, answer), (Event::PreTool, AnswerBy::Deny));
    assert_eq!(questions[0].text, "Which database should I use?");
    assert_eq!(questions[0].header.as_deref(), Some("Database"));
    assert_eq!(questions[0].options[0].0, "Postgres (Recommended)");
    assert!(matches!(
        codex.parse(fixture!("codex", "PreToolUse.json"), None),
        Ok(Prompt::Pass)
    ));
    assert_eq!(
        render("codex", Event::PreTool, &deny()).unwrap(),
        r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"Denied by 93533553 via Arbiter: use /tmp"}}"#
    );
    assert_eq!(render("codex", Event::PreTool, &ask()), None);
}

#[test]
fn every_agents_finished_turn_reads_its_last_message_and_goes_on_only_when_told() {
    let last = |agent: &str, payload: &str| match dialect(agent).parse(payload, None).unwrap() {
        Prompt::Finished(f) => (f.origin.cwd.clone(), f.last, f.cap),
        other => panic!("{agent}: not finished: {other:?}"),
    };
    let text = |l: LastMessage| match l {
        LastMessage::Text(Some(t)) | LastMessage::Cumulative(t) => t,
        other => panic!("{other:?}"),
    };
    let (cwd, codex, cap) = last("codex", fixture!("codex", "Stop.json"));
    assert_eq!(
        (cwd.as_deref(), text(codex).as_str(), cap),
        (
            Some("/tmp/x34/codex/runs/allow/proj"),
            "Created the file.",
            None
        )
    );
    let (_, qwen, cap) = last("qwen", fixture!("qwen", "Stop.json"));
    assert!(cap.unwrap().contains("7 times"));
    assert_eq!(text(qwen), "Created the file.");
    let (_, claude, _) = last(
        "claude-code",
        include_str!("../../../../tests/fixtures/claude-code/stop.json"),
    );
    assert_eq!(text(claude), "First part done.");
    let (_, gemini, cap) = last("gemini", fixture!("gemini", "AfterAgent-after-block.json"));
    assert!(
        matches!(&gemini, LastMessage::Cumulative(all) if all == "The command was denied.\nListed.")
    );
    assert!(cap.unwrap().contains("15 continuations"));
    let (_, copilot, cap) = last("copilot", fixture!("copilot", "agentStop.json"));
    assert!(
        matches!(&copilot, LastMessage::Transcript { path, .. } if path.ends_with("events.jsonl")),
        "{copilot:?}"
    );
    assert!(cap.unwrap().contains("8 times"));
    for agent in super::NAMES {
        assert_eq!(
            render(agent, Event::Finished, &go_on()).as_deref(),
            Some(BLOCK),
            "{agent}"
        );
        assert_eq!(
            render(agent, Event::Finished, &Verdict::Stop),
            None,
            "{agent}"
        );
    }
}

#[test]
fn gemini_gates_shell_writes_and_edits_and_never_lets_an_undecided_call_run() {
    let shell = permission("gemini", fixture!("gemini", "BeforeTool.json"));
    assert_eq!(
        (shell.event, command(&shell)),
        (Event::PreTool, "touch allowed.txt")
    );
    // In an empty project folder a write is a new file, every line added.
    let (_dir, payload) = moved(
        fixture!("gemini", "BeforeTool-write_file.json"),
        "/tmp/x34/gemini/runs/edit/proj",
    );
    let write = permission("gemini", &payload);
    assert_eq!(
        diff(&write).1,
        "--- /dev/null\n+++ b/hello.txt\n@@ -0,0 +1,2 @@\n+hello\n+world\n"
    );
    let replace = permission("gemini", fixture!("gemini", "BeforeTool-replace.json"));
    assert_eq!(replace.reason.as_deref(), Some("Change world to there"));
    assert!(diff(&replace).1.contains("-world\n+there\n"));
    let Prompt::Questions {
        questions, answer, ..
    } = dialect("gemini")
        .parse(fixture!("gemini", "BeforeTool-ask_user.json"), None)
        .unwrap()
    else {
        panic!()
    };
    assert_eq!((questions.len(), answer), (1, AnswerBy::Deny));
    let t = Event::PreTool;
    assert_eq!(
        render("gemini", t, &allow()).unwrap(),
        r#"{"decision":"allow"}"#
    );
    assert_eq!(
        render("gemini", t, &deny()).unwrap(),
        r#"{"decision":"deny","reason":"Denied by 93533553 via Arbiter: use /tmp"}"#
    );
    assert_eq!(
        render("gemini", t, &ask()).unwrap(),
        r#"{"decision":"deny","reason":"No answer via Arbiter within 9m"}"#
    );
    assert_eq!(dialect("gemini").no_decision(t), "deny");
}

#[test]
fn qwen_asks_at_its_permission_request_and_answers_questions_by_denying() {
    let shell = permission("qwen", fixture!("qwen", "PermissionRequest.json"));
    assert_eq!(command(&shell), "touch allowed.txt");
    assert_eq!(shell.grants.session, SessionGrant::Arbiter);
    let edit = permission("qwen", fixture!("qwen", "PermissionRequest-edit.json"));
    assert!(diff(&edit).1.contains("-world\n+there\n"));
    let (_dir, payload) = moved(
        fixture!("qwen", "PermissionRequest-write_file.json"),
        "/tmp/x34/qwen/runs/edit/proj",
    );
    let write = permission("qwen", &payload);
    assert!(
        diff(&write).1.starts_with("--- /dev/null\n"),
        "{}",
        diff(&write).1
    );
    let qwen = dialect("qwen");
    assert!(matches!(
        qwen.parse(fixture!("qwen", "PreToolUse.json"), None),
        Ok(Prompt::Pass)
    ));
    assert!(matches!(
        qwen.parse(fixture!("qwen", "PreToolUse-ask_user_question.json"), None),
        Ok(Prompt::Questions {
            answer: AnswerBy::Deny,
            ..
        })
    ));
    assert_eq!(
        render("qwen", Event::Permission, &allow()).unwrap(),
        r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}"#
    );
    assert_eq!(render("qwen", Event::Permission, &ask()), None);
}

#[test]
fn copilot_answers_flat_and_shows_its_own_diff() {
    let bash = permission("copilot", fixture!("copilot", "permissionRequest.json"));
    assert_eq!(
        (bash.event, command(&bash)),
        (Event::Permission, "touch allowed.txt")
    );
    let edit = permission(
        "copilot",
        fixture!("copilot", "permissionRequest-edit.json"),
    );
    assert_eq!(
        diff(&edit),
        (
            &["/tmp/x34/copilot/runs/edit/proj/hello.txt".to_owned()][..],
            "--- a/tmp/x34/copilot/runs/edit/proj/hello.txt\n+++ b/tmp/x34/copilot/runs/edit/proj/hello.txt\n@@ -1,3 +1,3 @@\n hello\n-world\n+there\n \n"
        )
    );
    let create = permission(
        "copilot",
        fixture!("copilot", "permissionRequest-create.json"),
    );
    assert!(
        diff(&create).1.starts_with("--- a/dev/null\n"),
        "{}",
        diff(&create).1
    );
    let copilot = dialect("copilot");
    // Its pre-tool hook asks only ask_user (its permissionRequest asks the rest).
    assert!(matches!(
        copilot.parse(fixture!("copilot", "preToolUse.json"), Some("preToolUse")),
        Ok(Prompt::Pass)
    ));
    let Prompt::Form(form) = copilot
        .parse(
            fixture!("copilot", "preToolUse-ask_user.json"),
            Some("preToolUse"),
        )
        .unwrap()
    else {
        panic!()
    };
    assert_eq!((form.event, form.answer), (Event::PreTool, AnswerBy::Deny));
    assert_eq!(form.message, "Which database should I use?");
    let p = Event::Permission;
    assert_eq!(
        render("copilot", p, &allow()).unwrap(),
        r#"{"behavior":"allow"}"#
    );
    assert_eq!(
        render("copilot", p, &deny()).unwrap(),
        r#"{"behavior":"deny","message":"Denied by 93533553 via Arbiter: use /tmp"}"#
    );
    assert_eq!(render("copilot", p, &ask()), None);
    assert_eq!(
        render("copilot", Event::PreTool, &deny()).unwrap(),
        r#"{"permissionDecision":"deny","permissionDecisionReason":"Denied by 93533553 via Arbiter: use /tmp"}"#
    );
}

#[test]
fn copilots_transcript_gives_the_turns_last_message_once_it_is_there() {
    let transcript = fixture!("copilot", "transcript-events.jsonl");
    let last_turn = super::copilot::last_turn;
    // The agentStop hook's own line names its call (the input's timestamp).
    let call = Some("1795800314406");
    let turn = last_turn(transcript, call);
    assert_eq!(
        (turn.message.as_deref(), turn.complete),
        (Some("Created the file."), true)
    );
    // The hook started before Copilot wrote the turn: not there yet, even with an earlier turn's message.
    let early: String = transcript
        .lines()
        .take_while(|l| !l.contains("Created the file."))
        .map(|l| format!("{l}\n"))
        .collect();
    let early = last_turn(&early, call);
    assert_eq!((early.message, early.complete), (None, false));
    // A second finished call: its own line is not written yet, so the first turn's message is stale.
    let stale = last_turn(transcript, Some("1795800399999"));
    assert_eq!(
        (stale.message.as_deref(), stale.complete),
        (Some("Created the file."), false)
    );
    // Its turn written: the message after its prompt (none here: the continuation wrote no text).
    let second = format!(
        "{transcript}{}\n{}\n",
        json!({"type": "user.message", "data": {"content": "Now run the tests"}}),
        json!({"type": "hook.start", "data": {"hookType": "agentStop", "input": {"timestamp": 1795800399999_i64}}})
    );
    let second = last_turn(&second, Some("1795800399999"));
    assert_eq!((second.message, second.complete), (None, true));
    // Without a call to look for: the latest message, complete unless a prompt came after it.
    assert!(last_turn(transcript, None).complete);
    let next_prompt = format!(
        "{transcript}\n{}\nnot json\n",
        json!({"type": "user.message", "data": {"content": "go on"}})
    );
    let waiting = last_turn(&next_prompt, None);
    assert_eq!(
        (waiting.message.as_deref(), waiting.complete),
        (Some("Created the file."), false)
    );
}

#[test]
fn unreadable_input_answers_in_the_event_the_command_line_names() {
    for agent in super::NAMES {
        let e = dialect(agent).parse("not json", None).unwrap_err();
        assert!(e.reason.contains("not JSON"), "{agent}: {}", e.reason);
    }
    let gemini = dialect("gemini");
    assert_eq!(
        gemini.parse("", Some("AfterAgent")).unwrap_err().answer_as,
        Some(Event::Finished)
    );
    assert_eq!(
        gemini.parse("", None).unwrap_err().answer_as,
        Some(Event::PreTool)
    );
    let copilot = dialect("copilot");
    assert_eq!(
        copilot
            .parse("{}", Some("agentStop"))
            .ok()
            .map(|p| p.event()),
        Some(Event::Finished)
    );
    let unknown: Value = json!({"hook_event_name": "SessionStart"});
    let e = dialect("codex")
        .parse(&unknown.to_string(), None)
        .unwrap_err();
    assert_eq!(e.answer_as, None);
    assert!(
        e.reason
            .contains("`SessionStart` is not an event this hook answers"),
        "{}",
        e.reason
    );
}

/// A tool's result, as each agent that reports results sends it: the call it was, and whether it failed. Codex
/// sends only the output text (the exit code is in its transcript by then), Qwen an `Exit Code:` line, Claude Code
/// a `PostToolUseFailure` with the error.
#[test]
fn tool_results_say_the_call_and_whether_it_failed() {
    let result = |agent: &str, payload: &str| match dialect(agent).parse(payload, None).unwrap() {
        Prompt::Result(result) => result,
        other => panic!("{agent}: not a result: {other:?}"),
    };
    let ok = result("codex", fixture!("codex", "PostToolUse.json"));
    assert_eq!(
        ok.call.key(),
        ("Bash".to_owned(), "touch allowed.txt".to_owned())
    );
    assert_eq!(ok.failure, None);
    let dir = tempfile::tempdir().unwrap();
    let rollout = dir.path().join("rollout.jsonl");
    std::fs::write(&rollout, fixture!("codex", "rollout-failed.jsonl")).unwrap();
    let failed =
        fixture!("codex", "PostToolUse-failed.json").replace("ROLLOUT", rollout.to_str().unwrap());
    assert_eq!(
        result("codex", &failed).failure.as_deref(),
        Some("exit code 1")
    );
    // The transcript gone: the failure can't be told, and counts as none.
    std::fs::remove_file(&rollout).unwrap();
    assert_eq!(result("codex", &failed).failure, None);
    let qwen = result("qwen", fixture!("qwen", "PostToolUse.json"));
    assert_eq!(qwen.failure, None);
    let qwen_failed = fixture!("qwen", "PostToolUse.json").replace("Exit Code: 0", "Exit Code: 2");
    assert_eq!(
        result("qwen", &qwen_failed).failure.as_deref(),
        Some("exit code 2")
    );
    let claude = json!({"hook_event_name": "PostToolUseFailure", "session_id": "s", "cwd": "/p",
        "tool_name": "Bash", "tool_input": {"command": "npm test"}, "error": "Exit code 1\nnpm ERR!"});
    let claude = result("claude-code", &claude.to_string());
    assert_eq!(claude.failure.as_deref(), Some("Exit code 1 npm ERR!"));
    assert_eq!(
        dialect("claude-code").render(Event::PostTool, &allow()),
        None
    );
}
