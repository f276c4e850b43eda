//! Codex, Gemini CLI, Qwen Code and Copilot CLI for real (pinned in .ci/agents), offline against the project's
//! fake model API (tests/support/model.rs), their hooks written by `arbiter hook AGENT install --project`, with
//! the real daemon on the fake Bot API: a command the owner allows on the phone runs; one allowed for the session
//! runs again with nobody asked; a command the owner denies with a reason does not, and the model reads the
//! reason; an edit (Codex's, a patch outside its writable folders) shows on the phone as its diff; the agent's
//! question tool, where it reaches a hook outside an interactive UI (Codex, Qwen Code), is answered on the phone.
//! (What next, when the agent finishes its turn: coding_agents_next.rs.)

use std::time::Duration;

use arbiter_zebu::fakebot::SentMessage;
use serde_json::{Value, json};

use crate::support::TempQueue;
use crate::support::agent_cli::{self, Agent, PROJECT, Project, Run};
use crate::support::daemon::Running;
use crate::support::model::{FakeModel, Turn};
use crate::support::owner::Owner;

/// How long an agent may take for anything (its start is slow on a busy 2-core machine).
pub const LONG: Duration = Duration::from_secs(120);
const REASON: &str = "Use the Makefile instead";

/// Waits for the agent to exit; fails with what it printed, what the model received and the owner's chat.
pub async fn exited(run: &mut Run, model: &FakeModel, d: Option<&Running>) {
    let status = run.wait(LONG).await;
    assert!(
        status.is_some_and(|s| s.success()),
        "the agent did not exit well ({status:?}); it printed:\n{}\nmodel requests:\n{}\nchat:\n{}",
        run.log(),
        model.log(),
        d.map(Running::transcript).unwrap_or_default()
    );
}

/// Taps the option labelled `label` on the decision view `view`: its button reads as the label when it is the
/// only option, else as the option's letter.
pub async fn tap_option(d: &Running, view: &SentMessage, label: &str) {
    if view.buttons().iter().any(|b| b.text == label) {
        return d.tap(view.message_id, label).await;
    }
    let letter = view
        .plain
        .lines()
        .find_map(|line| line.strip_suffix(label)?.strip_suffix(". "))
        .unwrap_or_else(|| panic!("no option {label}:\n{}", view.plain));
    d.tap(view.message_id, letter).await;
}

/// Submits the plan whose review is showing.
pub async fn submit(d: &Running) {
    let review = d
        .wait_message(|m| m.plain.contains("Tap to edit, or submit"))
        .await;
    d.tap(review.message_id, "📤 Submit").await;
}

/// The agent asks to run `touch allowed.txt`: the plan reaches the phone showing the project and the command, the
/// owner taps `✅ Allow once`, the command runs and the model reads its output.
async fn allowed_on_the_phone(agent: Agent) {
    let Some(cli) = agent_cli::cli(agent) else {
        return;
    };
    let d = Running::start(TempQueue::new()).await;
    let model = agent
        .model(vec![
            agent.shell("call_allow", "touch allowed.txt"),
            Turn::Text("Created the file.".to_owned()),
        ])
        .await;
    let project = Project::new(&cli, &model);
    let said = project.install(d.queue.root(), &["--no-stop"]);
    if agent == Agent::Codex {
        assert!(
            said.contains("/hooks"),
            "install must say Codex trusts hooks in /hooks: {said}"
        );
    }
    let mut run = project.start(&cli, "Create the file");
    let shown = d.open_announced("touch allowed.txt").await;
    assert!(shown.plain.contains(PROJECT), "{}", shown.plain);
    let id = shown.message_id;
    d.tap(id, "▶️ Continue").await;
    let decision = d
        .wait_message(|m| m.message_id == id && m.plain.contains("1/1 ·"))
        .await;
    assert!(
        decision.plain.contains("touch allowed.txt"),
        "{}",
        decision.plain
    );
    tap_option(&d, &decision, "✅ Allow once").await;
    submit(&d).await;
    exited(&mut run, &model, Some(&d)).await;
    assert!(
        project.dir().join("allowed.txt").exists(),
        "the allowed command did not run; the agent printed:\n{}",
        run.log()
    );
    assert!(
        model.tool_output("call_allow").is_some(),
        "the model never read the command's output:\n{}",
        model.log()
    );
}

/// The agent runs `touch session.txt` twice in one session: the owner taps `✅ Allow for this session` on the
/// first prompt, and the second runs with nobody asked (one plan in all, one announcement), the audit trail
/// recording the session's allowance and its use.
async fn allowed_for_the_session(agent: Agent) {
    let Some(cli) = agent_cli::cli(agent) else {
        return;
    };
    let d = Running::start(TempQueue::new()).await;
    let model = agent
        .model(vec![
            agent.shell("call_first", "touch session.txt"),
            agent.shell("call_again", "touch session.txt"),
            Turn::Text("Created it twice.".to_owned()),
        ])
        .await;
    let project = Project::new(&cli, &model);
    project.install(d.queue.root(), &["--no-stop"]);
    let mut run = project.start(&cli, "Create the file twice");
    let shown = d.open_announced("touch session.txt").await;
    let id = shown.message_id;
    d.tap(id, "▶️ Continue").await;
    let decision = d
        .wait_message(|m| m.message_id == id && m.plain.contains("1/1 ·"))
        .await;
    tap_option(
        &d,
        &decision,
        "✅ Allow for this session (touch session.txt)",
    )
    .await;
    submit(&d).await;
    exited(&mut run, &model, Some(&d)).await;
    for call in ["call_first", "call_again"] {
        assert!(
            model.tool_output(call).is_some(),
            "the model never read {call}'s output:\n{}\nthe agent printed:\n{}",
            model.log(),
            run.log()
        );
    }
    assert!(project.dir().join("session.txt").exists(), "{}", run.log());
    assert_eq!(d.queue.files("pending"), Vec::<String>::new());
    assert_eq!(d.queue.files("completed").len(), 1, "{}", d.transcript());
    // The one message is the announcement, opened, answered and now the plan's summary.
    let sent = d.chat().iter().filter(|m| m.from_bot()).count();
    assert_eq!(sent, 1, "{}", d.transcript());
    let audit: String = d
        .queue
        .files("audit")
        .iter()
        .map(|f| d.queue.read("audit", f))
        .collect();
    assert!(audit.contains("\"action\":\"grant\""), "{audit}");
    assert!(
        audit.contains("\"action\":\"allow-for-session\""),
        "{audit}"
    );
}

/// The agent asks to run `touch denied.txt`; the owner denies it with a note: the command does not run, and the
/// tool result the model reads carries the note.
async fn denied_with_a_reason(agent: Agent) {
    let Some(cli) = agent_cli::cli(agent) else {
        return;
    };
    // The hook asks only when a daemon serves the queue (else nobody would see the question).
    let d = Running::start(TempQueue::new()).await;
    let model = agent
        .model(vec![
            agent.shell("call_deny", "touch denied.txt"),
            Turn::Text("The command was denied.".to_owned()),
        ])
        .await;
    let project = Project::new(&cli, &model);
    project.install(d.queue.root(), &["--no-stop"]);
    let mut run = project.start(&cli, "Create the file");
    let owner = Owner::new(d.queue.root());
    let plan = owner
        .wait_for_plan(LONG)
        .unwrap_or_else(|| panic!("no permission plan; the agent printed:\n{}", run.log()));
    owner.note(&plan.plan.id, "permission", REASON);
    owner.answer(&plan.plan.id, "permission", "deny");
    owner.submit(&plan.plan.id);
    exited(&mut run, &model, Some(&d)).await;
    assert!(!project.dir().join("denied.txt").exists(), "{}", run.log());
    let output = model
        .tool_output("call_deny")
        .unwrap_or_else(|| panic!("no tool result reached the model:\n{}", model.log()));
    assert!(output.contains(REASON), "{output}");
}

const BEFORE: &str = "const MAX_RETRIES: u32 = 3;\n";
const AFTER: &str = "const MAX_RETRIES: u32 = 5;\n";

/// The model edits `src/config.rs` with the agent's edit tool: the phone shows the change as a diff (not the
/// tool's JSON), the owner allows it, the file changes.
async fn an_edit_shows_its_diff(agent: Agent) {
    let Some(cli) = agent_cli::cli(agent) else {
        return;
    };
    let d = Running::start(TempQueue::new()).await;
    let model = agent.model(Vec::new()).await;
    let project = Project::new(&cli, &model);
    let file = project.dir().join("src/config.rs");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, BEFORE).unwrap();
    let path = file.to_string_lossy().into_owned();
    let (tool, args) = match agent {
        Agent::Gemini => (
            "replace",
            json!({"file_path": path, "instruction": "Retry five times",
            "old_string": "3;", "new_string": "5;"}),
        ),
        Agent::Qwen => (
            "edit",
            json!({"file_path": path, "old_string": "3;", "new_string": "5;"}),
        ),
        Agent::Copilot => (
            "edit",
            json!({"path": path, "old_str": "3;", "new_str": "5;"}),
        ),
        Agent::Codex | Agent::ClaudeCode | Agent::OpenCode => {
            unreachable!("not an edit this test makes")
        }
    };
    if agent == Agent::Qwen {
        // Qwen Code edits only a file read in the session.
        model.push(vec![Turn::Tool {
            id: "call_read".to_owned(),
            name: "read_file".to_owned(),
            args: json!({"file_path": path}),
        }]);
    }
    model.push(vec![
        Turn::Tool {
            id: "call_edit".to_owned(),
            name: tool.to_owned(),
            args,
        },
        Turn::Text("Edited.".to_owned()),
    ]);
    project.install(d.queue.root(), &["--no-stop"]);
    let mut run = project.start(&cli, "Retry five times");
    let plan = Owner::new(d.queue.root())
        .wait_for_plan(LONG)
        .unwrap_or_else(|| panic!("no permission plan; the agent printed:\n{}", run.log()));
    allowed_as_its_diff(&d, &plan.plan.title, "old_str", &mut run, &model, &file).await;
}

/// The permission plan `title` shows the edit of [`BEFORE`] into [`AFTER`] as a diff (not `raw`, the tool's own
/// words); allowed, the agent changes `file`.
async fn allowed_as_its_diff(
    d: &Running,
    title: &str,
    raw: &str,
    run: &mut Run,
    model: &FakeModel,
    file: &std::path::Path,
) {
    let view = d.open_decision(title, "1/1 ·").await;
    for line in [
        "-const MAX_RETRIES: u32 = 3;",
        "+const MAX_RETRIES: u32 = 5;",
    ] {
        assert!(view.plain.contains(line), "{line} not in:\n{}", view.plain);
    }
    assert!(!view.plain.contains(raw), "{}", view.plain);
    tap_option(d, &view, "✅ Allow once").await;
    submit(d).await;
    exited(run, model, Some(d)).await;
    assert_eq!(
        std::fs::read_to_string(file).unwrap(),
        AFTER,
        "{}",
        run.log()
    );
}

/// Codex's `apply_patch` on a file outside its writable folders (the only patch Codex asks about): the phone shows
/// the patch as a diff, the owner allows it, the file changes.
async fn a_codex_patch_shows_its_diff() {
    let Some(cli) = agent_cli::cli(Agent::Codex) else {
        return;
    };
    let d = Running::start(TempQueue::new()).await;
    // Outside the project and /tmp (both writable in Codex's sandbox): /var/tmp.
    let outside = tempfile::Builder::new()
        .prefix("arbiter-codex-patch-")
        .tempdir_in("/var/tmp")
        .unwrap();
    let file = outside.path().join("config.rs");
    std::fs::write(&file, BEFORE).unwrap();
    let patch = format!(
        "*** Begin Patch\n*** Update File: {}\n@@\n-const MAX_RETRIES: u32 = 3;\n+const MAX_RETRIES: u32 = 5;\n*** End Patch\n",
        file.display()
    );
    let model = Agent::Codex
        .model(vec![
            // Codex offers a model it has no metadata for no `apply_patch` tool; a patch through its shell tool
            // is still read as a patch (and asked about as one).
            Turn::Tool {
                id: "call_patch".to_owned(),
                name: "exec_command".to_owned(),
                args: json!({"cmd": format!("apply_patch <<'EOF'\n{patch}EOF\n")}),
            },
            Turn::Text("Patched.".to_owned()),
        ])
        .await;
    let project = Project::new(&cli, &model);
    project.install(d.queue.root(), &["--no-stop"]);
    let mut run = project.start(&cli, "Retry five times");
    let plan = Owner::new(d.queue.root())
        .wait_for_plan(LONG)
        .unwrap_or_else(|| {
            panic!(
                "no permission plan; the agent printed:\n{}\nmodel:\n{}",
                run.log(),
                model.log()
            )
        });
    allowed_as_its_diff(
        &d,
        &plan.plan.title,
        "*** Begin Patch",
        &mut run,
        &model,
        &file,
    )
    .await;
}

const QUESTION: &str = "Which database should the service use?";

/// The model calls the agent's question tool (`tool`, with `args` asking [`QUESTION`]): the question reaches the
/// phone as a plan, the owner taps `SQLite`, and the model reads the answer as the tool's result.
async fn question_answered_on_the_phone(agent: Agent, tool: &str, args: Value) {
    let Some(cli) = agent_cli::cli(agent) else {
        return;
    };
    let d = Running::start(TempQueue::new()).await;
    let model = agent
        .model(vec![
            Turn::Tool {
                id: "call_ask".to_owned(),
                name: tool.to_owned(),
                args,
            },
            Turn::Text("SQLite it is.".to_owned()),
        ])
        .await;
    let project = Project::new(&cli, &model);
    project.install(d.queue.root(), &["--no-stop"]);
    let mut run = project.start(&cli, "Set up the service");
    let plan = Owner::new(d.queue.root())
        .wait_for_plan(LONG)
        .unwrap_or_else(|| panic!("no question plan; the agent printed:\n{}", run.log()));
    let view = d.open_decision(&plan.plan.title, "1/1 ·").await;
    assert!(view.plain.contains(QUESTION), "{}", view.plain);
    tap_option(&d, &view, "SQLite").await;
    submit(&d).await;
    exited(&mut run, &model, Some(&d)).await;
    let output = model
        .tool_output("call_ask")
        .unwrap_or_else(|| panic!("no tool result reached the model:\n{}", model.log()));
    assert!(output.contains("The user answered: SQLite"), "{output}");
}

mod codex {
    use super::*;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_command_allowed_on_the_phone_runs() {
        allowed_on_the_phone(Agent::Codex).await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_command_denied_with_a_reason_does_not_run_and_the_model_reads_why() {
        denied_with_a_reason(Agent::Codex).await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_same_command_allowed_for_the_session_runs_again_unasked() {
        allowed_for_the_session(Agent::Codex).await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_patch_outside_the_workspace_shows_its_diff_on_the_phone() {
        a_codex_patch_shows_its_diff().await;
    }

    /// `request_user_input` works only in Codex's Plan mode, but its `PreToolUse` comes first in any mode.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn request_user_input_is_answered_on_the_phone() {
        let args = json!({"questions": [{"id": "db", "header": "Database", "question": QUESTION,
            "options": [{"label": "Postgres (Recommended)", "description": "Relational"},
                        {"label": "SQLite", "description": "One file"}]}]});
        question_answered_on_the_phone(Agent::Codex, "request_user_input", args).await;
    }
}

mod gemini {
    use super::*;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_command_allowed_on_the_phone_runs() {
        allowed_on_the_phone(Agent::Gemini).await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_command_denied_with_a_reason_does_not_run_and_the_model_reads_why() {
        denied_with_a_reason(Agent::Gemini).await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_same_command_allowed_for_the_session_runs_again_unasked() {
        allowed_for_the_session(Agent::Gemini).await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn an_edit_shows_its_diff_on_the_phone() {
        an_edit_shows_its_diff(Agent::Gemini).await;
    }
}

mod qwen {
    use super::*;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_command_allowed_on_the_phone_runs() {
        allowed_on_the_phone(Agent::Qwen).await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_command_denied_with_a_reason_does_not_run_and_the_model_reads_why() {
        denied_with_a_reason(Agent::Qwen).await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_same_command_allowed_for_the_session_runs_again_unasked() {
        allowed_for_the_session(Agent::Qwen).await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn an_edit_shows_its_diff_on_the_phone() {
        an_edit_shows_its_diff(Agent::Qwen).await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn ask_user_question_is_answered_on_the_phone() {
        let args = json!({"questions": [{"question": QUESTION, "header": "Database", "multiSelect": false,
            "options": [{"label": "Postgres", "description": "Relational"},
                        {"label": "SQLite", "description": "One file"}]}]});
        question_answered_on_the_phone(Agent::Qwen, "ask_user_question", args).await;
    }
}

mod copilot {
    use super::*;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_command_allowed_on_the_phone_runs() {
        allowed_on_the_phone(Agent::Copilot).await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_command_denied_with_a_reason_does_not_run_and_the_model_reads_why() {
        denied_with_a_reason(Agent::Copilot).await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_same_command_allowed_for_the_session_runs_again_unasked() {
        allowed_for_the_session(Agent::Copilot).await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn an_edit_shows_its_diff_on_the_phone() {
        an_edit_shows_its_diff(Agent::Copilot).await;
    }
}
