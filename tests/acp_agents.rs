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
use crate::coding_agents_next::{is_card, open_card};
use crate::support::TempQueue;
use crate::support::acp::{Answer, Editor, client_installed};
use crate::support::agent_cli::{self, Agent, Cli, PROJECT, Project};
use crate::support::daemon::{OWNER, Running};
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

/// Waits for the agent's permission request to reach the editor (an agent's first start can be slow on a busy
/// machine: longer than the phone's wait).
async fn asked(editor: &Editor) {
    let asked = editor.wait(LONG, |e| e["event"] == "permission").await;
    assert!(
        asked.is_some(),
        "the agent asked nothing\n{}",
        editor.report()
    );
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
        .wait(LONG, |e| {
            e["event"] == "prompt_done" || e["event"] == "prompt_failed"
        })
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
    asked(&editor).await;
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
    assert!(
        has_cancel(&editor),
        "no $/cancel_request\n{}",
        editor.report()
    );
    assert!(
        editor
            .wait(LONG, |e| e["event"] == "permission")
            .await
            .is_some(),
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
    asked(&editor).await;
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
    asked(&editor).await;
    let shown = d.open_announced("touch editor.txt").await;
    turn_done(&editor).await;
    assert!(
        project.dir().join("editor.txt").exists(),
        "{}",
        editor.report()
    );
    assert!(!has_cancel(&editor), "{}", editor.report());
    let redrawn = d
        .wait_message(|m| {
            m.message_id == shown.message_id && m.plain.contains("answered in the editor")
        })
        .await;
    assert!(
        redrawn.buttons().is_empty() || !redrawn.plain.contains("Allow once"),
        "{}",
        redrawn.plain
    );
    editor.close(LONG).await;
    crate::support::assert_withdrawn(&d.queue, "answered in the editor");
}

/// The editor answers within `--phone-after`: nothing reaches the phone.
async fn the_editor_in_time_leaves_the_phone_alone(agent: Agent) {
    let Some((cli, _model, project)) = setup(agent, touch(agent, "quick.txt")).await else {
        return;
    };
    let d = Running::start(TempQueue::new()).await;
    let mut editor = Editor::start(
        &cli,
        &project,
        d.queue.root(),
        &["--phone-after", "40s"],
        Answer::Allow {
            after: Duration::from_secs(1),
        },
        "Create the file",
    );
    turn_done(&editor).await;
    assert!(
        project.dir().join("quick.txt").exists(),
        "{}",
        editor.report()
    );
    editor.close(LONG).await;
    assert!(d.chat().is_empty(), "{}", d.transcript());
    assert!(d.queue.files("pending").is_empty() && d.queue.files("completed").is_empty());
}

const INSTRUCTION: &str = "Now add a test for the empty cart";
const SECOND: &str = "The second part is done.";

/// The turn ends and the editor sends nothing within `--phone-after`: the finished card; the owner's typed
/// instruction reaches the model as the next prompt, and the editor's transcript shows it and the answer.
async fn what_next_from_the_phone(agent: Agent) {
    let script = vec![Turn::Text(DONE.to_owned()), Turn::Text(SECOND.to_owned())];
    let Some((cli, model, project)) = setup(agent, script).await else {
        return;
    };
    let d = Running::start(TempQueue::new()).await;
    let mut editor = Editor::start(
        &cli,
        &project,
        d.queue.root(),
        &["--phone-after", "1s"],
        Answer::Never,
        "Do the first part",
    );
    turn_done(&editor).await;
    let card = d.wait_message(is_card).await;
    let (shown, _) = open_card(&d, card.message_id).await;
    assert!(shown.plain.contains(DONE), "{}", shown.plain);
    d.tap(card.message_id, "✏️ Custom").await;
    let prompt = d
        .wait_message(|m| m.plain.contains("What next?") && m.message_id != card.message_id)
        .await;
    d.fake.send_reply(OWNER, INSTRUCTION, prompt.message_id);
    submit(&d).await;
    assert!(
        model.wait_requests(2, LONG).await,
        "the agent did not go on\n{}\n{}",
        editor.report(),
        model.log()
    );
    let (role, text) = model.last_message(1).expect("a message");
    assert_eq!(role, "user", "{text}");
    assert!(text.contains(INSTRUCTION), "{text}");
    let said = editor
        .wait(LONG, |e| {
            e["kind"] == "user_message_chunk" && e["text"] == INSTRUCTION
        })
        .await;
    assert!(said.is_some(), "{}", editor.report());
    let answer = editor
        .wait(LONG, |e| {
            e["kind"] == "agent_message_chunk"
                && e["text"].as_str().is_some_and(|t| t.contains(SECOND))
        })
        .await;
    assert!(answer.is_some(), "{}", editor.report());
    editor.close(LONG).await;
}

/// `🔁 Always allow this` on the phone; a second session's same command runs with nobody asked: neither the
/// editor nor the phone sees it, and the trail names the rule.
async fn a_rule_answers_the_next_session(agent: Agent) {
    let Some((cli, model, project)) = setup(agent, touch(agent, "ruled.txt")).await else {
        return;
    };
    let d = Running::start(TempQueue::new()).await;
    let mut first = Editor::start(
        &cli,
        &project,
        d.queue.root(),
        &["--phone-after", "0s"],
        Answer::Never,
        "Create the file",
    );
    let shown = decision(&d, "touch ruled.txt").await;
    tap_option(&d, &shown, "🔁 Always allow this").await;
    submit(&d).await;
    turn_done(&first).await;
    first.close(LONG).await;
    std::fs::remove_file(project.dir().join("ruled.txt")).expect("the first run made the file");
    let sent = d.chat().len();
    model.push(touch(agent, "ruled.txt"));
    let mut second = Editor::start(
        &cli,
        &project,
        d.queue.root(),
        &["--phone-after", "0s"],
        Answer::Never,
        "Create the file again",
    );
    turn_done(&second).await;
    assert!(
        project.dir().join("ruled.txt").exists(),
        "{}",
        second.report()
    );
    assert!(
        !second.events().iter().any(|e| e["event"] == "permission"),
        "the editor was asked\n{}",
        second.report()
    );
    second.close(LONG).await;
    let chat = d.chat();
    assert!(
        !chat[sent..]
            .iter()
            .any(|m| m.plain.contains("touch ruled.txt")),
        "the phone was asked again:\n{}",
        d.transcript()
    );
    let (_, entries) = arbiter_zebu::queue::audit::read(d.queue.root())
        .unwrap()
        .unwrap();
    assert!(
        entries
            .iter()
            .any(|e| e.action == "answer" && e.actor.starts_with("rule:")),
        "{entries:?}"
    );
}

/// `arbiter acp run`: no editor; the permission on the phone, the finished card, `🏁 Done` ends the session and
/// the agent, exit 0.
async fn headless_to_done(agent: Agent) {
    let Some((cli, _model, project)) = setup(agent, touch(agent, "headless.txt")).await else {
        return;
    };
    let d = Running::start(TempQueue::new()).await;
    let (command, env) = project.acp(&cli);
    let log = project.home().join("headless.log");
    let mut run = std::process::Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .arg("--queue")
        .arg(d.queue.root())
        .args(["acp", "run", "--prompt", "Create the file", "--cwd"])
        .arg(project.dir())
        .arg("--")
        .args(&command)
        .env_clear()
        .envs(env)
        .stdin(std::process::Stdio::null())
        .stdout(std::fs::File::create(&log).unwrap())
        .stderr(std::fs::File::create(log.with_extension("err")).unwrap())
        .spawn()
        .expect("arbiter acp run");
    let shown = decision(&d, "touch headless.txt").await;
    tap_option(&d, &shown, "✅ Allow once").await;
    submit(&d).await;
    let card = d.wait_message(is_card).await;
    let (shown, decision) = open_card(&d, card.message_id).await;
    assert!(shown.plain.contains(DONE), "{}", shown.plain);
    tap_option(&d, &decision, "🏁 Done").await;
    submit(&d).await;
    let start = std::time::Instant::now();
    let status = loop {
        if let Some(status) = run.try_wait().unwrap() {
            break status;
        }
        assert!(start.elapsed() < LONG, "acp run did not end");
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    let stderr = std::fs::read_to_string(log.with_extension("err")).unwrap_or_default();
    assert!(status.success(), "{status:?}\n{stderr}");
    assert!(project.dir().join("headless.txt").exists(), "{stderr}");
    assert!(
        d.queue.files("pending").is_empty(),
        "{:?}",
        d.queue.files("pending")
    );
}

/// No daemon: a plain relay that says so; the editor answers.
async fn no_daemon_a_plain_relay(agent: Agent) {
    let Some((cli, _model, project)) = setup(agent, touch(agent, "plain.txt")).await else {
        return;
    };
    let queue = TempQueue::new();
    let mut editor = Editor::start(
        &cli,
        &project,
        queue.root(),
        &["--phone-after", "0s"],
        Answer::Allow {
            after: Duration::from_secs(1),
        },
        "Create the file",
    );
    turn_done(&editor).await;
    assert!(
        project.dir().join("plain.txt").exists(),
        "{}",
        editor.report()
    );
    editor.close(LONG).await;
    assert!(
        editor
            .stderr()
            .contains("a plain relay, the editor answers everything"),
        "{}",
        editor.report()
    );
    assert!(queue.files("pending").is_empty() && queue.files("completed").is_empty());
}

/// The three tests every ACP agent runs: a phone-first allow, a phone deny, the editor first.
macro_rules! each_agent {
    ($($module:ident: $agent:expr;)*) => {$(
        mod $module {
            use super::*;

            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn a_permission_allowed_on_the_phone_runs_and_the_editors_copy_is_cancelled() {
                allowed_on_the_phone($agent).await;
            }

            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn a_permission_denied_on_the_phone_does_not_run() {
                denied_on_the_phone($agent).await;
            }

            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn an_answer_in_the_editor_first_withdraws_the_plan() {
                answered_in_the_editor_first($agent).await;
            }
        }
    )*};
}

each_agent! {
    gemini: Agent::Gemini;
    qwen: Agent::Qwen;
    opencode: Agent::OpenCode;
}

/// What one agent's run shows for all: Gemini CLI, the quickest to start.
mod gemini_only {
    use super::*;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn an_editor_answering_within_phone_after_leaves_the_phone_alone() {
        the_editor_in_time_leaves_the_phone_alone(Agent::Gemini).await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn what_next_typed_on_the_phone_reaches_the_model_and_the_editor() {
        what_next_from_the_phone(Agent::Gemini).await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_standing_rule_answers_a_second_session_unasked() {
        a_rule_answers_the_next_session(Agent::Gemini).await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn acp_run_goes_headless_to_done() {
        headless_to_done(Agent::Gemini).await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn without_a_daemon_it_is_a_plain_relay() {
        no_daemon_a_plain_relay(Agent::Gemini).await;
    }
}
