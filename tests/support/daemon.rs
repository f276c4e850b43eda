//! The real daemon, in-process, against the fake Bot API on 127.0.0.1.

use std::time::Duration;

use arbiter_zebu::config::BotToken;
use arbiter_zebu::daemon::{self, Settings};
use arbiter_zebu::fakebot::{FakeBot, SentMessage};
use arbiter_zebu::queue::watcher::Mode;
use tokio::sync::oneshot;

use super::TempQueue;

pub const OWNER: i64 = 93533553;
pub const OUTSIDER: i64 = 666;
pub const WAIT: Duration = Duration::from_secs(45);

/// A running daemon with its fake Telegram and its queue. Dropping it stops the daemon.
pub struct Running {
    pub fake: FakeBot,
    pub queue: TempQueue,
    stop: Option<oneshot::Sender<()>>,
    pub task: tokio::task::JoinHandle<Result<(), daemon::DaemonError>>,
}

/// Settings pointing at `fake`, with short timeouts so fault tests finish quickly.
#[must_use]
pub fn settings(fake: &FakeBot, queue: &TempQueue) -> Settings {
    let mut s = Settings::new(
        BotToken::new(fake.token()),
        vec![OWNER as u64],
        queue.root().to_owned(),
    );
    s.api_url = Some(fake.api_url().parse().expect("fake url"));
    s.poll_timeout = Duration::from_secs(1);
    s.http_timeout = Duration::from_secs(3);
    s.watch = Mode::Events {
        poll: Duration::from_millis(250),
    };
    s
}

impl Running {
    /// Starts the daemon on `queue` and waits until it polls.
    pub async fn start(queue: TempQueue) -> Running {
        let fake = FakeBot::start().await.expect("fake bot");
        let s = settings(&fake, &queue);
        Running::start_with(fake, queue, s).await
    }

    pub async fn start_with(fake: FakeBot, queue: TempQueue, settings: Settings) -> Running {
        let (tx, rx) = oneshot::channel();
        let task = tokio::spawn(daemon::run(settings, async {
            let _ = rx.await;
        }));
        let polling = fake
            .wait_for_call("getUpdates", |c| c.params["offset"] != -1, WAIT)
            .await;
        assert!(polling.is_some(), "the daemon never polled");
        Running {
            fake,
            queue,
            stop: Some(tx),
            task,
        }
    }

    /// Stops the daemon and waits for it to return.
    pub async fn stop(mut self) -> TempQueue {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
        let task = std::mem::replace(&mut self.task, tokio::spawn(async { Ok(()) }));
        tokio::time::timeout(WAIT, task)
            .await
            .expect("daemon stops")
            .expect("join")
            .expect("daemon ok");
        std::mem::replace(&mut self.queue, TempQueue::new())
    }

    /// The owner's chat as the owner sees it.
    #[must_use]
    pub fn chat(&self) -> Vec<SentMessage> {
        self.fake.messages(OWNER)
    }

    /// Waits for a bot message in the owner's chat whose plain text satisfies `pred`; returns the newest such.
    pub async fn wait_message(&self, pred: impl Fn(&SentMessage) -> bool) -> SentMessage {
        let ok = self
            .fake
            .wait_until(
                |f| f.messages(OWNER).iter().any(|m| m.from_bot() && pred(m)),
                WAIT,
            )
            .await;
        assert!(ok, "no such message; chat:\n{}", self.transcript());
        self.fake
            .messages(OWNER)
            .into_iter()
            .rev()
            .find(|m| m.from_bot() && pred(m))
            .expect("found")
    }

    /// Taps the button labelled `label` on message `id` as the owner, and waits for the callback to be answered.
    pub async fn tap(&self, id: i32, label: &str) {
        let qid = self
            .fake
            .tap_label(OWNER, id, label)
            .unwrap_or_else(|e| panic!("{e}\n{}", self.transcript()));
        let answered = self
            .fake
            .wait_until(
                |f| f.callback_answers().iter().any(|(q, _, _)| *q == qid),
                WAIT,
            )
            .await;
        assert!(answered, "callback {qid} never answered");
    }

    /// Opens the plan announced with `title` (`📂 Open`), returns its view (the announcement, edited in place).
    pub async fn open_announced(&self, title: &str) -> SentMessage {
        let id = self
            .wait_message(|m| m.plain.contains(title))
            .await
            .message_id;
        self.tap(id, "📂 Open").await;
        self.wait_message(|m| m.message_id == id && m.plain.contains("📄"))
            .await
    }

    /// Opens the plan announced with `title` and taps `▶️ Continue` until the decision view showing `heading`
    /// (`1/2 · Database`); returns that view.
    pub async fn open_decision(&self, title: &str, heading: &str) -> SentMessage {
        let id = self.open_announced(title).await.message_id;
        self.tap(id, "▶️ Continue").await;
        self.wait_message(|m| m.message_id == id && m.plain.contains(heading))
            .await
    }

    /// Taps `label` on message `id` as the owner; returns the callback answer's text and whether it was an alert.
    pub async fn tap_answer(&self, id: i32, label: &str) -> (Option<String>, bool) {
        let qid = self
            .fake
            .tap_label(OWNER, id, label)
            .unwrap_or_else(|e| panic!("{e}\n{}", self.transcript()));
        self.answer_of(&qid).await
    }

    /// Waits until callback query `qid` is answered; returns the answer's text and whether it was an alert.
    pub async fn answer_of(&self, qid: &str) -> (Option<String>, bool) {
        assert!(
            self.wait_answered(&[qid.to_owned()], WAIT).await,
            "callback {qid} never answered"
        );
        let (_, text, alert) = self
            .fake
            .callback_answers()
            .into_iter()
            .find(|(q, _, _)| q == qid)
            .expect("answer recorded");
        (text, alert)
    }

    /// Waits until every callback query in `ids` is answered.
    pub async fn wait_answered(&self, ids: &[String], timeout: Duration) -> bool {
        self.fake
            .wait_until(
                |f| {
                    ids.iter()
                        .all(|i| f.callback_answers().iter().any(|(q, _, _)| q == i))
                },
                timeout,
            )
            .await
    }

    /// Everything in the owner's chat, as text and buttons.
    #[must_use]
    pub fn transcript(&self) -> String {
        self.chat()
            .iter()
            .map(render)
            .collect::<Vec<_>>()
            .join("\n---\n")
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
    }
}

/// A message as the owner sees it: who sent it, its plain text, its buttons.
#[must_use]
pub fn render(m: &SentMessage) -> String {
    let who = if m.from_bot() { "bot" } else { "owner" };
    format!("[{who} #{}] {}", m.message_id, m.render())
}
