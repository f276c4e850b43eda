//! What next, from the phone, with Codex, Gemini CLI, Qwen Code, Copilot CLI and Claude Code (`claude -p`) for
//! real, as coding_agents.rs runs them: the agent finishes its turn, its card `🏁 … finished · shop` reaches the owner's chat, the owner
//! types the next instruction and the model reads it as the user's next message; the next card replies to the
//! first and `🏁 Done` lets the agent exit. Nobody answering lets it exit at `--stop-timeout`, and the card,
//! withdrawn, says so.

use std::time::{Duration, Instant};

use arbiter_zebu::fakebot::SentMessage;

use crate::coding_agents::{LONG, exited, submit, tap_option};
use crate::support::TempQueue;
use crate::support::agent_cli::{self, Agent, PROJECT, Project};
use crate::support::daemon::{OWNER, Running};
use crate::support::model::Turn;

const FIRST: &str = "The first part is done.";
const SECOND: &str = "The second part is done.";
const INSTRUCTION: &str = "Now add a test for the empty cart";

/// A finished card's announcement, not yet opened (not, say, the summary of one submitted).
pub fn is_card(m: &SentMessage) -> bool {
    m.plain.contains(&format!("finished · {PROJECT}"))
        && m.buttons().iter().any(|b| b.text == "📂 Open")
}

/// Opens the card announced as message `id` and shows its decision; returns the plan's view and the decision's.
pub async fn open_card(d: &Running, id: i32) -> (SentMessage, SentMessage) {
    d.tap(id, "📂 Open").await;
    let shown = d
        .wait_message(|m| m.message_id == id && m.plain.contains("📄"))
        .await;
    d.tap(id, "▶️ Continue").await;
    let decision = d
        .wait_message(|m| m.message_id == id && m.plain.contains("1/1 · What next?"))
        .await;
    (shown, decision)
}

async fn goes_on_then_stops_on_done(agent: Agent) {
    let Some(cli) = agent_cli::cli(agent) else {
        return;
    };
    let d = Running::start(TempQueue::new()).await;
    let model = agent
        .model(vec![
            Turn::Text(FIRST.to_owned()),
            Turn::Text(SECOND.to_owned()),
        ])
        .await;
    let project = Project::new(&cli, &model);
    project.install(d.queue.root(), &[]);
    let mut run = project.start(&cli, "Do the first part");

    // The first card: the agent's last message; the owner types what next.
    let first = d.wait_message(is_card).await;
    let (shown, decision) = open_card(&d, first.message_id).await;
    assert!(shown.plain.contains(FIRST), "{}", shown.plain);
    // Copilot CLI and Qwen Code follow a finished hook only so many times in a row (8 and 7, measured): the card
    // says so.
    if matches!(agent, Agent::Copilot | Agent::Qwen) {
        assert!(decision.plain.contains("times"), "{}", decision.plain);
    }
    d.tap(first.message_id, "✏️ Custom").await;
    let prompt = d
        .wait_message(|m| m.plain.contains("What next?") && m.message_id != first.message_id)
        .await;
    d.fake.send_reply(OWNER, INSTRUCTION, prompt.message_id);
    submit(&d).await;

    // The model reads it as the user's next message (inside the agent's own wrapping).
    assert!(
        model.wait_requests(2, LONG).await,
        "the agent did not go on; it printed:\n{}\nmodel requests:\n{}",
        run.log(),
        model.log()
    );
    let (role, text) = model.last_message(1).expect("a message");
    assert_eq!(role, "user", "{text}");
    assert!(text.contains(INSTRUCTION), "{text}");

    // The second card replies to the first, shows only the new message; Done lets the agent exit.
    let second = d
        .wait_message(|m| is_card(m) && m.message_id != first.message_id)
        .await;
    assert_eq!(
        second.reply_to,
        Some(first.message_id),
        "{}",
        d.transcript()
    );
    let (shown, decision) = open_card(&d, second.message_id).await;
    assert!(
        shown.plain.contains(SECOND) && !shown.plain.contains(FIRST),
        "{}",
        shown.plain
    );
    tap_option(&d, &decision, "🏁 Done").await;
    submit(&d).await;
    exited(&mut run, &model, Some(&d)).await;
    assert_eq!(model.requests().len(), 2, "{}", model.log());
}

/// The stop timeout of the test: short, so the test is.
const STOP_TIMEOUT: Duration = Duration::from_secs(5);
/// What the agent may take beyond it to exit (a node CLI's shutdown on a busy machine).
const EXIT_SLACK: Duration = Duration::from_secs(10);

async fn stops_when_nobody_answers(agent: Agent) {
    let Some(cli) = agent_cli::cli(agent) else {
        return;
    };
    let d = Running::start(TempQueue::new()).await;
    let model = agent.model(vec![Turn::Text(FIRST.to_owned())]).await;
    let project = Project::new(&cli, &model);
    project.install(
        d.queue.root(),
        &["--stop-timeout", &format!("{}s", STOP_TIMEOUT.as_secs())],
    );
    let mut run = project.start(&cli, "Do the first part");
    let card = d.wait_message(is_card).await;
    let shown = Instant::now();
    let status = run.wait(STOP_TIMEOUT + EXIT_SLACK).await;
    assert!(
        status.is_some_and(|s| s.success()),
        "the agent did not exit well ({status:?}) {:?} after its card; it printed:\n{}",
        shown.elapsed(),
        run.log()
    );
    // The card says so when the owner looks: withdrawn by its agent (on the record), not a question still open,
    // nor a plan that is simply gone.
    let says_withdrawn =
        |m: &SentMessage| m.message_id == card.message_id && m.plain.contains("Withdrawn by");
    let now = d
        .chat()
        .into_iter()
        .find(|m| m.message_id == card.message_id)
        .expect("the card");
    if !says_withdrawn(&now) {
        let (alert, _) = d.tap_answer(card.message_id, "📂 Open").await;
        assert!(
            alert
                .as_deref()
                .is_some_and(|a| a.contains("withdrew") || a.contains("stopped waiting")),
            "{alert:?}\n{}",
            d.transcript()
        );
    }
    let stopped = d.wait_message(says_withdrawn).await;
    assert!(!stopped.plain.contains("What next?"), "{}", stopped.plain);
    assert_eq!(model.requests().len(), 1, "{}", model.log());
}

mod codex {
    use super::*;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn finished_goes_on_with_the_typed_instruction_then_stops_on_done() {
        goes_on_then_stops_on_done(Agent::Codex).await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn finished_stops_when_nobody_answers() {
        stops_when_nobody_answers(Agent::Codex).await;
    }
}

mod gemini {
    use super::*;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn finished_goes_on_with_the_typed_instruction_then_stops_on_done() {
        goes_on_then_stops_on_done(Agent::Gemini).await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn finished_stops_when_nobody_answers() {
        stops_when_nobody_answers(Agent::Gemini).await;
    }
}

mod qwen {
    use super::*;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn finished_goes_on_with_the_typed_instruction_then_stops_on_done() {
        goes_on_then_stops_on_done(Agent::Qwen).await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn finished_stops_when_nobody_answers() {
        stops_when_nobody_answers(Agent::Qwen).await;
    }
}

mod copilot {
    use super::*;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn finished_goes_on_with_the_typed_instruction_then_stops_on_done() {
        goes_on_then_stops_on_done(Agent::Copilot).await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn finished_stops_when_nobody_answers() {
        stops_when_nobody_answers(Agent::Copilot).await;
    }
}

mod claude_code {
    use super::*;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn finished_goes_on_with_the_typed_instruction_then_stops_on_done() {
        goes_on_then_stops_on_done(Agent::ClaudeCode).await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn finished_stops_when_nobody_answers() {
        stops_when_nobody_answers(Agent::ClaudeCode).await;
    }
}
