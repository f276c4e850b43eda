//! Agents over ACP for real: Gemini CLI (`gemini --acp`), Qwen Code (`qwen --acp`) and OpenCode (`opencode acp`),
//! pinned in .ci/agents, offline against the fake model API, started by a real ACP client library as the editor
//! (tests/support/acp.rs) through `arbiter acp`, with the real daemon on the fake Bot API. For each agent: a
//! permission the editor leaves waiting is allowed on the phone (the editor's copy cancelled, the command run),
//! denied on the phone, or answered in the editor first (the plan withdrawn). With Gemini CLI: `--phone-after`
//! honoured, What next with a typed instruction reaching the model and the editor, a standing rule answering a
//! second session unasked, headless `acp run` to Done, and no daemon.

use std::time::Duration;

use serde_json::Value;

use crate::coding_agents::{LONG, submit, tap_option};
use crate::support::TempQueue;
use crate::support::acp::{Answer, Editor, client_installed};
use crate::support::agent_cli::{self, Agent, Cli, PROJECT, Project};
use crate::support::daemon::Running;
use crate::support::model::{FakeModel, Turn};

const DONE: &str = "Created the file.";

async fn setup(agent: Agent, script: Vec<Turn>) -> Option<(Cli, FakeModel, Project)> {
    let cli = agent_cli::cli(agent)?;
    if !client_installed() {
        return None;
    }
    let model = agent.model(script).await;
    let project = Project::new(&cli, &model);
    Some((cli, model, project))
}

fn touch(agent: Agent, name: &str) -> Vec<Turn> {
    vec![
        agent.shell("call_1", &format!("touch {name}")),
        Turn::Text(DONE.to_owned()),
    ]
}

/// The permission plan's decision on the phone, opened from its announcement.
async fn decision(d: &Running, command: &str) -> arbiter_zebu::fakebot::SentMessage {
    let shown = d.open_announced(command).await;
    assert!(shown.plain.contains(PROJECT), "{}", shown.plain);
    let id = shown.message_id;
    d.tap(id, "▶️ Continue").await;
    d.wait_message(|m| m.message_id == id && m.plain.contains("1/1 ·"))
        .await
}

fn has_cancel(editor: &Editor) -> bool {
    editor
        .raw()
        .iter()
        .any(|m| m["method"] == "$/cancel_request")
}

async fn turn_done(editor: &Editor) -> Value {
    editor
        .wait(LONG, |e| e["event"] == "prompt_done" || e["event"] == "prompt_failed")
        .await
        .unwrap_or_else(|| panic!("the turn never ended\n{}", editor.report()))
}

/// The editor never answers: the phone does, `✅ Allow once`; the command runs, the editor's copy is cancelled.
async fn allowed_on_the_phone(agent: Agent) {
    let Some((cli, model, project)) = setup(agent, touch(agent, "phone.txt")).await else {
        return;
    };
    let d = Running::start(TempQueue::new()).await;
    let mut editor = Editor::start(
        &cli,
        &project,
        d.queue.root(),
        &["--phone-after", "1s"],
        Answer::Never,
        "Create the file",
    );
    let shown = decision(&d, "touch phone.txt").await;
    tap_option(&d, &shown, "✅ Allow once").await;
    submit(&d).await;
    let done = turn_done(&editor).await;
    assert_eq!(done["stopReason"], "end_turn", "{}", editor.report());
    assert!(
        project.dir().join("phone.txt").exists(),
        "the command did not run\n{}\n{}",
        editor.report(),
        model.log()
    );
    assert!(model.tool_output("call_1").is_some(), "{}", model.log());
    assert!(has_cancel(&editor), "no $/cancel_request\n{}", editor.report());
    assert!(
        editor.wait(LONG, |e| e["event"] == "permission").await.is_some(),
        "the editor saw the request too"
    );
    // Closing the editor's connection ends the relay and the agent (the code is the agent's, or 1 when it had to
    // be stopped).
    assert!(editor.close(LONG).await.is_some(), "{}", editor.report());
}

/// The phone denies: the command does not run, the turn goes on.
async fn denied_on_the_phone(agent: Agent) {
    let Some((cli, model, project)) = setup(agent, touch(agent, "denied.txt")).await else {
        return;
    };
    let d = Running::start(TempQueue::new()).await;
    let mut editor = Editor::start(
        &cli,
        &project,
        d.queue.root(),
        &["--phone-after", "1s"],
        Answer::Never,
        "Create the file",
    );
    let shown = decision(&d, "touch denied.txt").await;
    tap_option(&d, &shown, "❌ Deny").await;
    submit(&d).await;
    turn_done(&editor).await;
    assert!(
        !project.dir().join("denied.txt").exists(),
        "a denied command ran\n{}",
        editor.report()
    );
    assert!(has_cancel(&editor), "{}", editor.report());
    let _ = model;
    editor.close(LONG).await;
}

/// The editor answers after the plan reached the phone: its answer goes to the agent, the plan is withdrawn and
/// the phone's view says so.
async fn answered_in_the_editor_first(agent: Agent) {
    let Some((cli, _model, project)) = setup(agent, touch(agent, "editor.txt")).await else {
        return;
    };
    let d = Running::start(TempQueue::new()).await;
    let mut editor = Editor::start(
        &cli,
        &project,
        d.queue.root(),
        &["--phone-after", "1s"],
        Answer::Allow {
            after: Duration::from_secs(8),
        },
        "Create the file",
    );
    let shown = d.open_announced("touch editor.txt").await;
    turn_done(&editor).await;
    assert!(project.dir().join("editor.txt").exists(), "{}", editor.report());
    assert!(!has_cancel(&editor), "{}", editor.report());
    let redrawn = d
        .wait_message(|m| m.message_id == shown.message_id && m.plain.contains("answered in the editor"))
        .await;
    assert!(redrawn.buttons().is_empty() || !redrawn.plain.contains("Allow once"), "{}", redrawn.plain);
    editor.close(LONG).await;
    crate::support::assert_withdrawn(&d.queue, "answered in the editor");
}

mod gemini {
    use super::*;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_permission_allowed_on_the_phone_runs_and_the_editors_copy_is_cancelled() {
        allowed_on_the_phone(Agent::Gemini).await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_permission_denied_on_the_phone_does_not_run() {
        denied_on_the_phone(Agent::Gemini).await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn an_answer_in_the_editor_first_withdraws_the_plan() {
        answered_in_the_editor_first(Agent::Gemini).await;
    }
}

mod qwen {
    use super::*;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_permission_allowed_on_the_phone_runs_and_the_editors_copy_is_cancelled() {
        allowed_on_the_phone(Agent::Qwen).await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_permission_denied_on_the_phone_does_not_run() {
        denied_on_the_phone(Agent::Qwen).await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn an_answer_in_the_editor_first_withdraws_the_plan() {
        answered_in_the_editor_first(Agent::Qwen).await;
    }
}

mod opencode {
    use super::*;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_permission_allowed_on_the_phone_runs_and_the_editors_copy_is_cancelled() {
        allowed_on_the_phone(Agent::OpenCode).await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_permission_denied_on_the_phone_does_not_run() {
        denied_on_the_phone(Agent::OpenCode).await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn an_answer_in_the_editor_first_withdraws_the_plan() {
        answered_in_the_editor_first(Agent::OpenCode).await;
    }
}
