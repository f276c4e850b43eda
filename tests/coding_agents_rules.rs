//! Standing rules with the real agent CLIs (Codex, Gemini CLI, Qwen Code, Copilot CLI; pinned in .ci/agents),
//! offline against the fake model API, their hooks written by `arbiter hook AGENT install --project`, the real
//! daemon on the fake Bot API: `🔁 Always allow this` tapped on the phone, then a new run of the agent (a new
//! session) runs the same command with no plan and no message, and the audit trail names the rule; for the agents
//! that report tool results (Codex, Qwen Code), what the rule allowed failing twice in a row pauses it, the owner
//! is told, and the next run asks again.

use std::time::Duration;

use arbiter_zebu::queue::audit;
use arbiter_zebu::queue::rules::{self, State};

use crate::coding_agents::{exited, submit, tap_option};
use crate::support::TempQueue;
use crate::support::agent_cli::{self, Agent, Project};
use crate::support::daemon::Running;
use crate::support::model::Turn;

const COMMAND: &str = "touch always.txt";

/// Messages the bot sent the owner so far.
fn sent(d: &Running) -> usize {
    d.chat().iter().filter(|m| m.from_bot()).count()
}

async fn always_allow_this(agent: Agent, reports_results: bool) {
    let Some(cli) = agent_cli::cli(agent) else {
        return;
    };
    let d = Running::start(TempQueue::new()).await;
    let model = agent
        .model(vec![
            agent.shell("call_first", COMMAND),
            Turn::Text("Created the file.".to_owned()),
        ])
        .await;
    let project = Project::new(&cli, &model);
    let said = project.install(d.queue.root(), &["--no-stop"]);
    if reports_results {
        assert!(said.contains("PostToolUse (added)"), "{said}");
    }
    let mut run = project.start(&cli, "Create the file");
    let shown = d.open_announced(COMMAND).await;
    let id = shown.message_id;
    d.tap(id, "▶️ Continue").await;
    let decision = d
        .wait_message(|m| m.message_id == id && m.plain.contains("1/1 ·"))
        .await;
    tap_option(&d, &decision, "🔁 Always allow this").await;
    submit(&d).await;
    d.wait_message(|m| m.plain.contains("Standing rule")).await;
    exited(&mut run, &model, Some(&d)).await;
    assert!(project.dir().join("always.txt").exists(), "{}", run.log());
    let rule = rules::read(d.queue.root()).unwrap().rules[0].clone();
    assert_eq!(rule.agent, agent.name());

    // A new run is a new session: the same command runs, and nobody is asked.
    std::fs::remove_file(project.dir().join("always.txt")).unwrap();
    let before = sent(&d);
    model.push(vec![
        agent.shell("call_again", COMMAND),
        Turn::Text("Created it again.".to_owned()),
    ]);
    let mut run = project.start(&cli, "Create it again");
    exited(&mut run, &model, Some(&d)).await;
    assert!(project.dir().join("always.txt").exists(), "{}", run.log());
    assert!(d.queue.files("pending").is_empty());
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert_eq!(sent(&d), before, "asked again:\n{}", d.transcript());
    let by = format!("rule:{}", rule.id);
    let lines = audit::read(d.queue.root()).unwrap().unwrap().1;
    assert!(
        lines.iter().any(|l| l.actor == by && l.action == "answer"),
        "the trail does not name the rule: {lines:?}"
    );
    let answered = rules::read(d.queue.root()).unwrap().rules[0].fired;
    assert_eq!(answered, 1);
    if !reports_results {
        return;
    }

    // What it allowed fails twice in a row (the file is a link into a folder that does not exist): it pauses
    // itself, its maker is told, and the next run asks.
    std::fs::remove_file(project.dir().join("always.txt")).unwrap();
    std::os::unix::fs::symlink("/nonexistent-arbiter/x", project.dir().join("always.txt")).unwrap();
    for n in 0..2 {
        model.push(vec![
            agent.shell(&format!("call_fail{n}"), COMMAND),
            Turn::Text("It failed.".to_owned()),
        ]);
        let mut run = project.start(&cli, "Create it once more");
        exited(&mut run, &model, Some(&d)).await;
    }
    let told = d
        .wait_message(|m| m.plain.contains("A standing rule paused itself"))
        .await;
    assert!(told.plain.contains(&rule.id), "{}", told.plain);
    let now = rules::read(d.queue.root()).unwrap().rules[0].clone();
    assert_eq!((now.state, now.fired), (State::Paused, 3));
    let paused = audit::read(d.queue.root()).unwrap().unwrap().1;
    assert!(
        paused
            .iter()
            .any(|l| l.actor == by && l.action == "rule_pause")
    );
    model.push(vec![
        agent.shell("call_asked", COMMAND),
        Turn::Text("Asked.".to_owned()),
    ]);
    let _run = project.start(&cli, "And again");
    d.wait_message(|m| {
        m.plain.contains(COMMAND) && m.buttons().iter().any(|b| b.text == "📂 Open")
    })
    .await;
}

mod codex {
    use super::*;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn always_allow_this_runs_in_a_new_session_without_asking_and_pauses_after_two_failures()
    {
        always_allow_this(Agent::Codex, true).await;
    }
}

mod qwen {
    use super::*;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn always_allow_this_runs_in_a_new_session_without_asking_and_pauses_after_two_failures()
    {
        always_allow_this(Agent::Qwen, true).await;
    }
}

mod gemini {
    use super::*;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn always_allow_this_runs_in_a_new_session_without_asking() {
        always_allow_this(Agent::Gemini, false).await;
    }
}

mod copilot {
    use super::*;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn always_allow_this_runs_in_a_new_session_without_asking() {
        always_allow_this(Agent::Copilot, false).await;
    }
}
