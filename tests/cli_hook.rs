//! `arbiter hook claude-code` through the real binary: a Claude Code hook payload in, the question in
//! pending/, the owner's answer written through the action layer (as a tap would) or tapped on the real daemon's
//! fake Telegram, the exact decision JSON out. Every failure path still exits 0 with `ask`.

use std::time::Duration;

use crate::cli_support::{Arbiter, Output, collect};
use crate::support::TempQueue;
use crate::support::daemon::Running;
use crate::support::owner::Owner;

const BASH: &str = include_str!("fixtures/claude-code/pre-tool-use-bash.json");
const EDIT: &str = include_str!("fixtures/claude-code/pre-tool-use-edit.json");
const MCP: &str = include_str!("fixtures/claude-code/pre-tool-use-mcp.json");
const PR_BASH: &str = include_str!("fixtures/claude-code/permission-request-bash.json");
const PR_EDIT: &str = include_str!("fixtures/claude-code/permission-request-edit.json");
const WAIT: Duration = Duration::from_secs(20);

/// Runs the hook on `payload`; when the question is pending, `owner` answers it; returns the hook's output.
fn ask(q: &TempQueue, payload: &str, owner: impl FnOnce(&Owner, &str)) -> Output {
    assert!(q.is_served(), "a hook asks only where a daemon runs");
    let child = Arbiter::new(q)
        .args(&["hook", "claude-code", "--timeout", "60s"])
        .stdin(payload)
        .spawn();
    let human = Owner::new(q.root());
    let plan = human
        .wait_for_plan(WAIT)
        .expect("the question reaches pending/");
    owner(&human, &plan.plan.id);
    let out = collect(child);
    assert_eq!(q.files("pending"), Vec::<String>::new());
    assert_eq!(q.files("completed").len(), 1);
    assert_eq!(
        q.files("notify"),
        Vec::<String>::new(),
        "the hook reads its own notification"
    );
    out
}

fn answer(key: &'static str) -> impl FnOnce(&Owner, &str) {
    move |owner, id| {
        owner.answer(id, "permission", key);
        owner.submit(id);
    }
}

fn decision(out: &Output) -> (Option<i32>, &str, &str) {
    (out.code, out.stdout.as_str(), out.stderr.as_str())
}

#[test]
fn bash_allowed_on_telegram_is_allowed_in_claude_code() {
    let q = TempQueue::served();
    let out = ask(&q, BASH, |owner, id| {
        let text = q.read("pending", &q.files("pending")[0]);
        assert!(
            text.contains("# Bash: rm -rf target && cargo test --workspace\n"),
            "{text}"
        );
        assert!(text.contains("agent: claude-code\n"), "{text}");
        assert!(text.contains("priority: high\n"), "{text}");
        assert!(
            text.contains("kind: edit\n\n**Proposal:**\n\n```bash\nrm -rf target && cargo test --workspace\n```\n"),
            "{text}"
        );
        owner.approve(id, "permission");
        owner.submit(id);
    });
    assert_eq!(
        decision(&out),
        (
            Some(0),
            "{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"allow\",\"permissionDecisionReason\":\"Allowed by 93533553 via Arbiter\"}}\n",
            ""
        )
    );
    let done = q.read("completed", &q.files("completed")[0]);
    assert!(done.contains("answered_by: 93533553\n"), "{done}");
}

#[test]
fn an_edit_denied_is_denied_with_who_said_so() {
    let q = TempQueue::served();
    let out = ask(&q, EDIT, answer("deny"));
    assert_eq!(
        decision(&out),
        (
            Some(0),
            "{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"deny\",\"permissionDecisionReason\":\"Denied by 93533553 via Arbiter\"}}\n",
            ""
        )
    );
}

#[test]
fn a_typed_answer_to_an_mcp_tool_denies_and_tells_claude_what_to_do() {
    let q = TempQueue::served();
    let out = ask(&q, MCP, |owner, id| {
        owner.custom(id, "permission", "File it in acme/backend instead");
        owner.submit(id);
    });
    assert_eq!(
        decision(&out),
        (
            Some(0),
            "{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"deny\",\"permissionDecisionReason\":\"Denied by 93533553 via Arbiter: File it in acme/backend instead\"}}\n",
            ""
        )
    );
}

#[test]
fn allow_for_this_session_hands_claude_codes_suggestion_back_for_the_session() {
    let q = TempQueue::served();
    let out = ask(&q, PR_BASH, answer("allow-session"));
    assert_eq!(
        decision(&out),
        (
            Some(0),
            "{\"hookSpecificOutput\":{\"hookEventName\":\"PermissionRequest\",\"decision\":{\"behavior\":\"allow\",\"updatedPermissions\":[{\"type\":\"addRules\",\"rules\":[{\"toolName\":\"Bash\",\"ruleContent\":\"npm install:*\"}],\"behavior\":\"allow\",\"destination\":\"session\"}]}},\"systemMessage\":\"Allowed for this session by 93533553 via Arbiter\"}\n",
            ""
        )
    );
}

/// Runs the hook with `args` on `payload` and nobody answering.
fn unanswered(payload: &str, args: &[&str]) -> (TempQueue, Output) {
    let q = TempQueue::served();
    let mut all = vec!["hook", "claude-code", "--timeout", "1s"];
    all.extend_from_slice(args);
    let out = Arbiter::new(&q).args(&all).stdin(payload).run();
    (q, out)
}

#[test]
fn no_answer_in_time_falls_back_to_claude_codes_prompt_by_default() {
    let (q, out) = unanswered(BASH, &[]);
    assert_eq!(
        (out.code, out.stdout.as_str()),
        (
            Some(0),
            "{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"ask\",\"permissionDecisionReason\":\"No answer via Arbiter within 1s\"}}\n"
        )
    );
    assert!(
        out.stderr
            .contains("within 1s (pending), withdrawn from the queue; answering `ask`"),
        "{}",
        out.stderr
    );
    assert_eq!(
        q.files("pending"),
        Vec::<String>::new(),
        "the question is withdrawn"
    );
    // PermissionRequest has no "ask": no decision leaves the dialog in place.
    let (_, out) = unanswered(PR_EDIT, &["--on-timeout", "ask"]);
    assert_eq!((out.code, out.stdout.as_str()), (Some(0), ""));
    assert!(out.stderr.contains("answering `ask`"), "{}", out.stderr);
}

#[test]
fn no_answer_in_time_allows_or_denies_when_told_to() {
    let (_, out) = unanswered(EDIT, &["--on-timeout", "allow"]);
    assert_eq!(
        (out.code, out.stdout.as_str()),
        (
            Some(0),
            "{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"allow\",\"permissionDecisionReason\":\"No answer via Arbiter within 1s: allowed (--on-timeout allow)\"}}\n"
        )
    );
    let (_, out) = unanswered(PR_BASH, &["--on-timeout", "deny"]);
    assert_eq!(
        (out.code, out.stdout.as_str()),
        (
            Some(0),
            "{\"hookSpecificOutput\":{\"hookEventName\":\"PermissionRequest\",\"decision\":{\"behavior\":\"deny\",\"message\":\"No answer via Arbiter within 1s: denied (--on-timeout deny)\"}}}\n"
        )
    );
}

#[test]
fn malformed_input_answers_ask_at_once_and_writes_nothing() {
    let q = TempQueue::new();
    let out = Arbiter::new(&q)
        .args(&["hook", "claude-code"])
        .stdin("{\"hook_event_name\": \"PreToolUse\", \"tool_name\": \"Bash\"")
        .run();
    assert_eq!(
        decision(&out),
        (
            Some(0),
            "{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"ask\",\"permissionDecisionReason\":\"Arbiter could not ask: the hook input is not JSON (EOF while parsing an object at line 1 column 53)\"}}\n",
            "arbiter: the hook input is not JSON (EOF while parsing an object at line 1 column 53); answering `ask`\n"
        )
    );
    let out = Arbiter::new(&q)
        .args(&["hook", "claude-code"])
        .stdin("{\"hook_event_name\": \"PermissionRequest\", \"tool_name\": \"Bash\"}")
        .run();
    assert_eq!(
        decision(&out),
        (
            Some(0),
            "",
            "arbiter: the PermissionRequest hook input has no `tool_input` object; answering `ask`\n"
        )
    );
    assert_eq!(q.files("pending"), Vec::<String>::new());
}

#[test]
fn an_unreachable_queue_or_bad_arguments_answer_ask() {
    let q = TempQueue::new();
    let not_a_folder = q.root().join("pending").join("file");
    std::fs::write(&not_a_folder, "").unwrap();
    let out = Arbiter::at(&not_a_folder)
        .args(&["hook", "claude-code"])
        .stdin(BASH)
        .run();
    assert_eq!(out.code, Some(0));
    assert!(
        out.stdout.starts_with("{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"ask\",\"permissionDecisionReason\":\"Arbiter could not ask: the queue is unreachable: "),
        "{}",
        out.stdout
    );
    assert!(
        out.stderr
            .starts_with("arbiter: the queue is unreachable: "),
        "{}",
        out.stderr
    );
    let out = Arbiter::new(&q)
        .args(&["hook", "claude-code", "--on-timeout", "maybe"])
        .stdin(PR_BASH)
        .run();
    assert_eq!(
        decision(&out),
        (
            Some(0),
            "",
            "arbiter: bad arguments to `arbiter hook claude-code`: invalid value 'maybe' for '--on-timeout <ON_TIMEOUT>'; answering `ask`\n"
        )
    );
    assert_eq!(q.files("pending"), vec!["file".to_owned()]);
}

/// The whole way: the hook's question announced by the real daemon on (fake) Telegram, the owner's taps, the
/// decision JSON out.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn taps_in_telegram_answer_claude_code() {
    let d = Running::start(TempQueue::new()).await;
    let child = Arbiter::new(&d.queue)
        .args(&["hook", "claude-code", "--timeout", "60s"])
        .stdin(PR_BASH)
        .spawn();
    let announced = d
        .wait_message(|m| m.plain.contains("Bash: npm install left-pad"))
        .await;
    let id = announced.message_id;
    d.tap(id, "📂 Open").await;
    let plan = d
        .wait_message(|m| m.message_id == id && m.plain.contains("📄"))
        .await;
    assert!(
        plan.plain.contains(
            "Claude Code asks to run a command in /home/dev/shop: Install the left-pad package."
        ),
        "{}",
        plan.plain
    );
    d.tap(id, "▶️ Continue").await;
    let question = d
        .wait_message(|m| m.message_id == id && m.plain.contains("1/1 · Run this command?"))
        .await;
    assert!(
        question
            .plain
            .contains("A. ✅ Allow for this session (Bash(npm install:*))\nB. 🔁 Always allow this\nC. ⏱ Allow Claude Code for 30 min\nD. ❌ Deny"),
        "{}",
        question.plain
    );
    d.tap(id, "A").await;
    let review = d
        .wait_message(|m| m.plain.contains("Tap to edit, or submit"))
        .await;
    d.tap(review.message_id, "📤 Submit").await;
    let out = tokio::task::spawn_blocking(move || collect(child))
        .await
        .unwrap();
    assert_eq!(
        decision(&out),
        (
            Some(0),
            "{\"hookSpecificOutput\":{\"hookEventName\":\"PermissionRequest\",\"decision\":{\"behavior\":\"allow\",\"updatedPermissions\":[{\"type\":\"addRules\",\"rules\":[{\"toolName\":\"Bash\",\"ruleContent\":\"npm install:*\"}],\"behavior\":\"allow\",\"destination\":\"session\"}]}},\"systemMessage\":\"Allowed for this session by 93533553 via Arbiter\"}\n",
            ""
        )
    );
}
