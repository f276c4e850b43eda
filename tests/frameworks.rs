//! The agent frameworks' bridges (examples/arbiter_hitl.py) with the real packages: each example runs its
//! framework with a scripted model (no LLM, no network) against the real daemon and the fake Bot API, the owner
//! answers in the chat, and the example prints what the framework resumed with: which tools ran with which
//! arguments, what the model read for the others, what each interrupt got back.
//!
//! The packages (`langchain`, `langgraph`, `openai-agents`, pinned in `.ci/run`) are skipped with a message when
//! missing, unless `ARBITER_REQUIRE_FRAMEWORKS` is set (CI): then their absence is a failure.
//!
//! Typed answers to the `edit`, `text` and `multi` kinds go through the chat when the bot offers them
//! (`✏️ Edit`, `✏️ Answer`, the `☐` toggles); where it does not yet, through the owner-action layer in-process,
//! as the bot would record them (tests/support/owner.rs).

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use arbiter_zebu::fakebot::{Markup, SentMessage};
use arbiter_zebu::plan::parse;

use crate::cli_support::{Output, collect};
use crate::support::TempQueue;
use crate::support::daemon::{OWNER, Running, WAIT};
use crate::support::owner::Owner;

/// True when python3 imports `modules`; otherwise the test is skipped with a message (a failure in CI).
fn have_python(modules: &str, test: &str) -> bool {
    let found = Command::new("python3")
        .args(["-c", &format!("import {modules}")])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !found {
        assert!(
            std::env::var_os("ARBITER_REQUIRE_FRAMEWORKS").is_none(),
            "{test}: python3 can't import {modules}, and ARBITER_REQUIRE_FRAMEWORKS is set (.ci/run installs them)"
        );
        eprintln!("skipped {test}: python3 can't import {modules} (.ci/run installs them)");
    }
    found
}

/// Starts `examples/<script>` on the daemon's queue, as a user would run it.
fn start_example(q: &TempQueue, script: &str) -> Child {
    Command::new("python3")
        .arg(format!("examples/{script}"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("ARBITER_BIN", env!("CARGO_BIN_EXE_arbiter"))
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .env("ARBITER_QUEUE", q.root())
        .env("HOME", q.root())
        .env("OPENAI_API_KEY", "sk-not-used")
        .env_remove("ARBITER_HOME")
        .env_remove("ARBITER_TELEGRAM_TOKEN")
        .env_remove("RUST_LOG")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the example")
}

/// The owner in the chat, answering the plans an example pushes.
struct Chat<'a> {
    d: &'a Running,
    opened: Vec<String>,
}

impl Chat<'_> {
    /// Waits for the next plan the example pushes; returns its id. Fails with the example's output if it ends
    /// first.
    async fn next_plan(&mut self, example: &mut Child) -> String {
        let start = Instant::now();
        loop {
            for name in self.d.queue.files("pending") {
                if name.starts_with('.') || !name.ends_with(".md") {
                    continue;
                }
                let Ok(plan) = parse(&self.d.queue.read("pending", &name), &name) else {
                    continue;
                };
                if !self.opened.contains(&plan.id) {
                    self.opened.push(plan.id.clone());
                    return plan.id;
                }
            }
            if let Ok(Some(status)) = example.try_wait() {
                let mut err = String::new();
                if let Some(mut e) = example.stderr.take() {
                    let _ = std::io::Read::read_to_string(&mut e, &mut err);
                }
                panic!("the example ended ({status}) before pushing a plan:\n{err}");
            }
            assert!(start.elapsed() < WAIT, "no plan pushed");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Opens plan `id` with its deep link and taps ▶️ Continue: the message now shows its first decision.
    async fn open(&self, id: &str, first: &str) -> i32 {
        let sent = self.d.fake.send_text(OWNER, &format!("/start plan_{id}"));
        let plan = self
            .d
            .wait_message(|m| {
                m.message_id > sent && m.buttons().iter().any(|b| b.text == "▶️ Continue")
            })
            .await;
        self.d.tap(plan.message_id, "▶️ Continue").await;
        self.on(plan.message_id, first).await;
        plan.message_id
    }

    /// Waits until message `id` shows decision view `heading` (`2/4 · archive_file`).
    async fn on(&self, id: i32, heading: &str) -> SentMessage {
        self.d
            .wait_message(|m| m.message_id == id && m.plain.contains(heading))
            .await
    }

    /// Whether message `id` has a button labelled `label`.
    fn offers(&self, id: i32, label: &str) -> bool {
        self.d
            .chat()
            .iter()
            .find(|m| m.message_id == id)
            .is_some_and(|m| m.buttons().iter().any(|b| b.text == label))
    }

    /// Taps `label` (a force-reply button) on message `id` and replies `text` to the prompt that follows.
    async fn reply(&self, id: i32, label: &str, text: &str) {
        let before = self
            .d
            .chat()
            .iter()
            .map(|m| m.message_id)
            .max()
            .unwrap_or(0);
        self.d.tap(id, label).await;
        let prompt = self
            .d
            .wait_message(|m| {
                m.message_id > before && matches!(m.reply_markup, Some(Markup::ForceReply { .. }))
            })
            .await;
        self.d.fake.send_reply(OWNER, text, prompt.message_id);
    }

    /// 💬 Note on the decision shown in message `id`; returns the message that shows the decision again.
    async fn note(&self, id: i32, text: &str) -> i32 {
        self.reply(id, "💬 Note", text).await;
        self.d
            .wait_message(|m| m.plain.starts_with("💬 Note saved"))
            .await
            .message_id
    }

    /// Taps 📤 Submit on the review that follows the last answer.
    async fn submit(&self) {
        let review = self
            .d
            .wait_message(|m| m.buttons().iter().any(|b| b.text == "📤 Submit"))
            .await;
        self.d.tap(review.message_id, "📤 Submit").await;
    }
}

async fn finished(example: Child) -> Output {
    tokio::task::spawn_blocking(move || collect(example))
        .await
        .expect("join")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn langchain_resumes_with_the_owners_approve_edit_reject_and_reply() {
    let test = "langchain_resumes_with_the_owners_approve_edit_reject_and_reply";
    if !have_python("langchain.agents, langgraph", test) {
        return;
    }
    let d = Running::start(TempQueue::new()).await;
    let mut example = start_example(&d.queue, "langchain_hitl.py");
    let mut chat = Chat {
        d: &d,
        opened: Vec::new(),
    };
    // One interrupt with four tool calls: one plan, one decision per call.
    let id = chat.next_plan(&mut example).await;
    let msg = chat.open(&id, "1/4 · send_email").await;

    // send_email (every decision allowed): its arguments edited.
    let edited =
        r#"{"to": "bob@example.com", "subject": "Q3 report (final)", "body": "Attached."}"#;
    if chat.offers(msg, "✏️ Edit") {
        chat.reply(msg, "✏️ Edit", edited).await;
        chat.on(msg, "1/4 · send_email").await;
        d.tap(msg, "Next ➡️").await;
    } else {
        // This bot has no ✏️ Edit yet: the edited reply goes through the owner-action layer.
        Owner::new(d.queue.root()).input(&id, "a1-send-email", edited);
        d.tap(msg, "Next ➡️").await;
    }
    // archive_file: approved.
    chat.on(msg, "2/4 · archive_file").await;
    d.tap(msg, "A").await;
    // delete_file: rejected, with a note the model reads.
    chat.on(msg, "3/4 · delete_file").await;
    let msg = chat
        .note(msg, "Keep the report: it is on legal hold.")
        .await;
    d.tap(msg, "B").await;
    // ask_owner (respond only): the owner's typed text is the tool's result.
    chat.on(msg, "4/4 · ask_owner").await;
    let typed = if chat.offers(msg, "✏️ Answer") {
        "✏️ Answer"
    } else {
        "✏️ Custom"
    };
    chat.reply(msg, typed, "Blue, like the logo.").await;
    chat.submit().await;

    let out = finished(example).await;
    assert_eq!(
        (out.code, out.stdout.as_str()),
        (
            Some(0),
            concat!(
                "ran archive_file {\"path\": \"reports/q3-draft.pdf\"}\n",
                "ran send_email {\"body\": \"Attached.\", \"subject\": \"Q3 report (final)\", \"to\": \"bob@example.com\"}\n",
                "model read for delete_file (error): User rejected the tool call for `delete_file` with reason: Keep the report: it is on legal hold.\n",
                "model read for ask_owner (success): Blue, like the logo.\n",
                "final: Done.\n",
            )
        ),
        "{}\n{}",
        out.stderr,
        d.transcript()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn langgraph_interrupts_resume_with_the_owners_text_choice_and_picks() {
    let test = "langgraph_interrupts_resume_with_the_owners_text_choice_and_picks";
    if !have_python("langgraph", test) {
        return;
    }
    let d = Running::start(TempQueue::new()).await;
    let mut example = start_example(&d.queue, "langgraph_interrupt.py");
    let mut chat = Chat {
        d: &d,
        opened: Vec::new(),
    };

    // interrupt("What should the release be called?"): a free-text question.
    let id = chat.next_plan(&mut example).await;
    let msg = chat
        .open(&id, "1/1 · What should the release be called?")
        .await;
    if chat.offers(msg, "✏️ Answer") {
        chat.reply(msg, "✏️ Answer", "Zebu 2.0").await;
    } else {
        // This bot has no ✏️ Answer for a text decision yet: through the owner-action layer.
        Owner::new(d.queue.root()).input(&id, "answer", "Zebu 2.0");
        d.tap(msg, "📋 Review").await;
    }
    chat.submit().await;

    // interrupt({"question", "options"}): a choice; the answer is the option itself.
    let id = chat.next_plan(&mut example).await;
    let msg = chat.open(&id, "1/1 · Where does Zebu 2.0 go first?").await;
    d.tap(msg, "B").await;
    chat.submit().await;

    // interrupt({"question", "options", "multi": true}): the list of options picked.
    let id = chat.next_plan(&mut example).await;
    let msg = chat.open(&id, "1/1 · Which checks must pass?").await;
    if chat.offers(msg, "☐ A. lint") {
        // Each toggle redraws the message: the next tap waits for the redraw it follows.
        let shows = |label: &'static str| {
            move |m: &arbiter_zebu::fakebot::SentMessage| {
                m.message_id == msg && m.buttons().iter().any(|b| b.text == label)
            }
        };
        d.tap(msg, "☐ A. lint").await;
        d.wait_message(shows("☑ A. lint")).await;
        d.tap(msg, "☐ C. e2e").await;
        d.wait_message(shows("✅ Done (2)")).await;
        d.tap(msg, "✅ Done (2)").await;
    } else {
        // This bot has no multi toggles yet: through the owner-action layer.
        Owner::new(d.queue.root()).pick(&id, "answer", &["lint", "e2e"]);
        d.tap(msg, "📋 Review").await;
    }
    chat.submit().await;

    let out = finished(example).await;
    assert_eq!(
        (out.code, out.stdout.as_str()),
        (
            Some(0),
            "name: \"Zebu 2.0\"\nenvironment: \"production\"\nchecks: [\"lint\", \"e2e\"]\n"
        ),
        "{}\n{}",
        out.stderr,
        d.transcript()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn openai_agents_resume_with_the_owners_approval_and_rejection_message() {
    let test = "openai_agents_resume_with_the_owners_approval_and_rejection_message";
    if !have_python("agents", test) {
        return;
    }
    let d = Running::start(TempQueue::new()).await;
    let mut example = start_example(&d.queue, "openai_agents_approval.py");
    let mut chat = Chat {
        d: &d,
        opened: Vec::new(),
    };
    let id = chat.next_plan(&mut example).await;
    let msg = chat.open(&id, "1/2 · deploy").await;
    d.tap(msg, "A").await;
    chat.on(msg, "2/2 · drop_table").await;
    let msg = chat
        .note(msg, "Keep orders: finance still reads them.")
        .await;
    d.tap(msg, "B").await;
    chat.submit().await;

    let out = finished(example).await;
    assert_eq!(
        (out.code, out.stdout.as_str()),
        (
            Some(0),
            concat!(
                "ran deploy {\"environment\": \"production\", \"service\": \"shop\"}\n",
                "model read for call_deploy: shop deployed to production\n",
                "model read for call_drop: Keep orders: finance still reads them.\n",
                "final: Done.\n",
            )
        ),
        "{}\n{}",
        out.stderr,
        d.transcript()
    );
}

#[test]
fn a_bridge_gives_up_after_its_timeout_and_withdraws_the_question() {
    let test = "a_bridge_gives_up_after_its_timeout_and_withdraws_the_question";
    if !have_python("json", test) {
        return;
    }
    let q = TempQueue::new();
    let script = concat!(
        "import sys; sys.path.insert(0, 'examples'); import arbiter_hitl\n",
        "try:\n",
        "    arbiter_hitl.ask_langgraph('Anyone there?', timeout=0.5)\n",
        "except TimeoutError as e:\n",
        "    print('TimeoutError')\n",
    );
    let out = collect(
        Command::new("python3")
            .args(["-c", script])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .env("ARBITER_BIN", env!("CARGO_BIN_EXE_arbiter"))
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .env("ARBITER_QUEUE", q.root())
            .env("HOME", q.root())
            .env_remove("ARBITER_HOME")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    assert_eq!(
        (out.code, out.stdout.as_str()),
        (Some(0), "TimeoutError\n"),
        "{}",
        out.stderr
    );
    assert_eq!(q.files("pending"), Vec::<String>::new(), "withdrawn");
    crate::support::assert_withdrawn(&q, "no answer within 0.5 s");
}
