//! The real `claude` CLI (pinned in .ci/claude), run interactively in tmux against the fake Anthropic API
//! (tests/support/anthropic.rs), with its hooks pointing at the real `arbiter` binary, the real daemon on the
//! fake Bot API, and the owner tapping: what Claude Code did and what the model received.

use std::time::Duration;

use serde_json::json;

use crate::support::TempQueue;
use crate::support::anthropic::{FakeAnthropic, ToolResult, Turn};
use crate::support::claude::{self, Project, Session};
use crate::support::daemon::Running;
use crate::support::owner::Owner;

const LONG: Duration = Duration::from_secs(90);

/// Answers the hook's question in Telegram: opens the plan announced with `title`, taps `option` on its one
/// decision, submits.
async fn answer_on_phone(d: &Running, title: &str, option: &str) {
    let announced = d.wait_message(|m| m.plain.contains(title)).await;
    let id = announced.message_id;
    d.tap(id, "📂 Open").await;
    d.wait_message(|m| m.message_id == id && m.plain.contains("📄"))
        .await;
    d.tap(id, "▶️ Continue").await;
    d.wait_message(|m| m.message_id == id && m.plain.contains("1/1 ·"))
        .await;
    d.tap(id, option).await;
    let review = d
        .wait_message(|m| m.plain.contains("Tap to edit, or submit"))
        .await;
    d.tap(review.message_id, "📤 Submit").await;
}

/// Claude Code started in `project` against `api`, ready for a prompt.
async fn started(bin: &std::path::Path, project: &Project, api: &FakeAnthropic) -> Session {
    let session = Session::start(bin, project, &api.url);
    assert!(
        session.wait_screen("for shortcuts", LONG).await,
        "claude did not start:\n{}",
        session.screen()
    );
    session
}

/// Waits for the tool result of `id` as the model received it.
async fn result_of(api: &FakeAnthropic, session: &Session, id: &str) -> ToolResult {
    api.wait_tool_result(id, LONG).await.unwrap_or_else(|| {
        panic!(
            "no tool result for {id}; screen:\n{}\nrequests:\n{}",
            session.screen(),
            api.log()
        )
    })
}

fn bash(id: &str, command: &str) -> Turn {
    Turn::tool(
        id,
        "Bash",
        json!({"command": command, "description": "A test command"}),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bash_command_allowed_on_the_phone_runs() {
    let Some(bin) = claude::binary() else { return };
    let d = Running::start(TempQueue::new()).await;
    let api = FakeAnthropic::start(vec![bash("toolu_allow", "touch allowed.txt")]).await;
    let project = Project::new(d.queue.root(), &["PermissionRequest"]);
    let session = started(&bin, &project, &api).await;
    session.prompt("Create the file").await;
    answer_on_phone(&d, "Bash: touch allowed.txt", "A").await;
    let result = result_of(&api, &session, "toolu_allow").await;
    assert!(!result.is_error, "{result:?}");
    assert!(project.path().join("allowed.txt").exists());
    assert!(
        session
            .wait_screen("Allowed by PermissionRequest hook", LONG)
            .await,
        "{}",
        session.screen()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bash_command_denied_with_a_reason_does_not_run_and_the_model_reads_why() {
    let Some(bin) = claude::binary() else { return };
    let q = TempQueue::new();
    let api = FakeAnthropic::start(vec![bash("toolu_deny", "touch denied.txt")]).await;
    let project = Project::new(q.root(), &["PermissionRequest"]);
    let session = started(&bin, &project, &api).await;
    session.prompt("Create the file").await;
    let owner = Owner::new(q.root());
    let plan = owner.wait_for_plan(LONG).expect("the question is asked");
    owner.custom(&plan.plan.id, "permission", "Use the Makefile instead");
    owner.submit(&plan.plan.id);
    let result = result_of(&api, &session, "toolu_deny").await;
    assert!(result.is_error, "{result:?}");
    assert!(
        result
            .text
            .contains("Denied by 93533553 via Arbiter: Use the Makefile instead"),
        "{result:?}"
    );
    assert!(!project.path().join("denied.txt").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn always_allow_in_this_project_is_kept_by_claude_code_for_the_next_process() {
    let Some(bin) = claude::binary() else { return };
    let q = TempQueue::new();
    let api = FakeAnthropic::start(vec![bash("toolu_first", "touch always.txt")]).await;
    let project = Project::new(q.root(), &["PermissionRequest"]);
    let session = started(&bin, &project, &api).await;
    session.prompt("Create the file").await;
    let owner = Owner::new(q.root());
    let plan = owner.wait_for_plan(LONG).expect("the question is asked");
    owner.answer(&plan.plan.id, "permission", "allow-project");
    owner.submit(&plan.plan.id);
    let result = result_of(&api, &session, "toolu_first").await;
    assert!(!result.is_error, "{result:?}");
    assert!(project.path().join("always.txt").exists());
    let local = std::fs::read_to_string(project.path().join(".claude/settings.local.json"))
        .expect("Claude Code wrote its local settings");
    assert!(local.contains("\"Bash(touch always.txt)\""), "{local}");
    drop(session);

    // A new claude process in the same project runs the same command without asking.
    std::fs::remove_file(project.path().join("always.txt")).unwrap();
    api.push(vec![bash("toolu_again", "touch always.txt")]);
    let session = started(&bin, &project, &api).await;
    session.prompt("Create it again").await;
    let result = result_of(&api, &session, "toolu_again").await;
    assert!(!result.is_error, "{result:?}");
    assert!(project.path().join("always.txt").exists());
    assert_eq!(q.files("pending"), Vec::<String>::new(), "asked again");
    assert_eq!(q.files("completed").len(), 1, "asked again");
}
