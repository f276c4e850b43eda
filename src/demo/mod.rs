//! `arbiter demo`: the whole loop offline. The real daemon runs against the embedded fake Bot API on 127.0.0.1
//! with the example plan (tests/fixtures/spec-example.md) in a throwaway queue, and a scripted owner answers,
//! skips, types a custom answer and submits. Every view is printed as the owner would see it (text and
//! buttons), then the files on disk.

use std::io::Write;
use std::time::Duration;

use crate::config::BotToken;
use crate::daemon::{self, Settings};
use crate::fakebot::{FakeBot, SentMessage};
use crate::queue::Queue;
use crate::queue::watcher::Mode;

/// The example plan (docs/file-format.md): "API Design Decisions", three decisions.
pub const EXAMPLE_PLAN: &str = include_str!("../../tests/fixtures/spec-example.md");
/// A plan whose context uses the Markdown agents write (bold, code, links, a table, a diff, a quote, a list).
const RICH_PLAN: &str = include_str!("../../tests/fixtures/rich-context.md");
const OWNER: i64 = 93533553;
const WAIT: Duration = Duration::from_secs(20);

/// Why the demo failed (it should not: every step has a generous timeout).
#[derive(Debug, thiserror::Error)]
pub enum DemoError {
    #[error("demo setup failed: {0}")]
    Setup(String),
    #[error("demo step failed: {0}")]
    Step(String),
}

mod phone;

/// Runs the demo, writing the transcript to `out`, and with `html` the conversation as the phone shows it
/// ([`phone`]).
pub fn run(out: &mut dyn Write, html: Option<&std::path::Path>) -> Result<(), DemoError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| DemoError::Setup(e.to_string()))?;
    let items = runtime.block_on(script(out))?;
    if let Some(path) = html {
        std::fs::write(path, phone::page(&items))
            .map_err(|e| DemoError::Step(format!("cannot write {}: {e}", path.display())))?;
    }
    Ok(())
}

struct Owner<'a> {
    fake: FakeBot,
    out: &'a mut dyn Write,
    /// The conversation, for the phone's picture.
    phone: Vec<phone::Item>,
}

impl Owner<'_> {
    fn say(&mut self, line: &str) {
        let _ = writeln!(self.out, "{line}");
    }

    fn show(&mut self, title: &str, m: &SentMessage) {
        self.phone.push(phone::Item::View(Box::new(m.clone())));
        let body = m
            .render()
            .lines()
            .map(|l| format!("  │ {l}"))
            .collect::<Vec<_>>()
            .join("\n");
        let _ = writeln!(self.out, "\n── {title} ──\n{body}");
    }

    /// Waits for a bot message matching `pred` (newest first).
    async fn wait(
        &self,
        what: &str,
        pred: impl Fn(&SentMessage) -> bool,
    ) -> Result<SentMessage, DemoError> {
        let found = self
            .fake
            .wait_until(
                |f| f.messages(OWNER).iter().any(|m| m.from_bot() && pred(m)),
                WAIT,
            )
            .await;
        if !found {
            return Err(DemoError::Step(format!("never saw {what}")));
        }
        self.fake
            .messages(OWNER)
            .into_iter()
            .rev()
            .find(|m| m.from_bot() && pred(m))
            .ok_or_else(|| DemoError::Step(format!("lost {what}")))
    }

    /// Taps a button and waits until Telegram (the fake) has the callback answered.
    async fn tap(&mut self, message: i32, label: &str) -> Result<(), DemoError> {
        self.say(&format!("\n👆 owner taps [{label}]"));
        self.phone.push(phone::Item::Tap(label.to_owned()));
        let id = self
            .fake
            .tap_label(OWNER, message, label)
            .map_err(DemoError::Step)?;
        let answered = self
            .fake
            .wait_until(
                |f| f.callback_answers().iter().any(|(q, _, _)| *q == id),
                WAIT,
            )
            .await;
        if answered {
            Ok(())
        } else {
            Err(DemoError::Step(format!("tap on [{label}] never answered")))
        }
    }

    /// Waits for message `id` to be edited into something matching `pred`, and prints it.
    async fn expect(
        &mut self,
        id: i32,
        title: &str,
        pred: impl Fn(&str) -> bool,
    ) -> Result<SentMessage, DemoError> {
        let m = self
            .wait(title, |m| m.message_id == id && pred(&m.plain))
            .await?;
        self.show(title, &m);
        Ok(m)
    }
}

/// A second plan whose context is Markdown: shown as Telegram formatting, its excerpt cut, and the whole file
/// sent as a document on 📄 Full context.
async fn rich_context(o: &mut Owner<'_>, queue: &Queue) -> Result<(), DemoError> {
    o.say("\nAnother agent drops a plan whose context is Markdown (bold, code, a link, a table, a diff…).");
    queue
        .add_pending("swe2-cache-rollout.md", RICH_PLAN)
        .map_err(|e| DemoError::Step(e.to_string()))?;
    let announced = o
        .wait("the announcement", |m| m.plain.contains("Cache rollout"))
        .await?;
    o.show("announcement", &announced);
    let id = announced.message_id;
    o.tap(id, "📂 Open").await?;
    let plan = o
        .expect(id, "plan view (Markdown rendered)", |t| {
            t.contains("📄 Cache rollout")
        })
        .await?;
    o.say(&format!("  ┆ formatting: {}", formatting(&plan)));
    o.tap(id, "📄 Full context").await?;
    let file = o.wait("the plan file", |m| m.document.is_some()).await?;
    o.show("document", &file);
    Ok(())
}

/// The entities of a message as `bold "text"`, for the transcript.
fn formatting(m: &SentMessage) -> String {
    let units: Vec<u16> = m.plain.encode_utf16().collect();
    let shown: Vec<String> = m
        .entities
        .iter()
        .map(|e| {
            let end = (e.offset + e.length).min(units.len());
            let text = String::from_utf16_lossy(&units[e.offset.min(end)..end]);
            let first = text.lines().next().unwrap_or_default();
            let more = if text.contains('\n') { "…" } else { "" };
            format!("{} \"{first}{more}\"", e.kind.api_name())
        })
        .collect();
    shown.join(" · ")
}

async fn script(out: &mut dyn Write) -> Result<Vec<phone::Item>, DemoError> {
    let home = tempfile::tempdir().map_err(|e| DemoError::Setup(e.to_string()))?;
    let queue_dir = home.path().join("queue");
    let queue = Queue::open(&queue_dir, true).map_err(|e| DemoError::Setup(e.to_string()))?;
    queue
        .add_pending("ceo-api-design-decisions-abc123.md", EXAMPLE_PLAN)
        .map_err(|e| DemoError::Setup(e.to_string()))?;
    let fake = FakeBot::start()
        .await
        .map_err(|e| DemoError::Setup(e.to_string()))?;

    let mut settings = Settings::new(
        BotToken::new(fake.token()),
        vec![OWNER as u64],
        queue_dir.clone(),
    );
    // Never Telegram's: the demo talks to its own fake server or to nobody.
    let api_url = fake
        .api_url()
        .parse()
        .map_err(|e: url::ParseError| DemoError::Setup(e.to_string()))?;
    settings.api_url = Some(api_url);
    settings.poll_timeout = Duration::from_secs(1);
    settings.watch = Mode::Events {
        poll: Duration::from_millis(500),
    };
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let daemon = tokio::spawn(daemon::run(settings, async {
        let _ = stop_rx.await;
    }));

    let mut o = Owner {
        fake: fake.clone(),
        out,
        phone: Vec::new(),
    };
    o.say("Arbiter Zebu demo — the real daemon against an embedded fake Telegram on 127.0.0.1.");
    o.say(&format!(
        "Queue: {} (a temporary folder)",
        queue_dir.display()
    ));
    o.say("An agent has left the example plan in pending/. The daemon starts and tells the owner:");
    let summary = o.wait("the start-up summary", |_| true).await?;
    o.show("start-up message", &summary);

    o.say("\n💬 owner sends /start");
    o.phone.push(phone::Item::Sent("/start".to_owned()));
    fake.send_text(OWNER, "/start");
    let q = o
        .wait("the queue view", |m| m.plain.contains("Decision Queue"))
        .await?;
    o.show("queue view", &q);
    let id = q.message_id;

    o.tap(id, "1").await?;
    o.expect(id, "plan view", |t| t.contains("📄")).await?;
    o.tap(id, "▶️ Continue").await?;
    o.expect(id, "decision 1", |t| t.contains("1/3")).await?;
    o.tap(id, "A").await?;
    o.expect(id, "after answering A → decision 2", |t| {
        t.contains("2/3")
    })
    .await?;
    o.tap(id, "⏭️ Skip").await?;
    o.expect(id, "after skipping → decision 3", |t| t.contains("3/3"))
        .await?;
    o.tap(id, "✏️ Custom").await?;
    let prompt = o
        .wait("the custom-answer prompt", |m| m.message_id > id)
        .await?;
    o.show("custom-answer prompt", &prompt);
    let answer = "Redis, with a 60s TTL: cache only GET /nfts";
    o.say(&format!("\n💬 owner replies: {answer}"));
    fake.send_reply(OWNER, answer, prompt.message_id);
    let review = o
        .wait("the review summary", |m| {
            m.message_id > prompt.message_id && m.from_bot()
        })
        .await?;
    o.show("review summary", &review);
    o.tap(review.message_id, "📤 Submit").await?;
    o.expect(review.message_id, "completion", |t| t.contains("Summary"))
        .await?;

    rich_context(&mut o, &queue).await?;

    let _ = stop_tx.send(());
    let stopped = tokio::time::timeout(WAIT, daemon).await;
    if !matches!(stopped, Ok(Ok(Ok(())))) {
        return Err(DemoError::Step(format!(
            "the daemon did not stop cleanly: {stopped:?}"
        )));
    }

    for (folder, label) in [
        ("completed", "plan file in completed/"),
        ("notify", "notification for the agent"),
    ] {
        let dir = queue_dir.join(folder);
        let mut names: Vec<_> = std::fs::read_dir(&dir)
            .map_err(|e| DemoError::Step(e.to_string()))?
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "md"))
            .collect();
        names.sort();
        let Some(path) = names.first() else {
            return Err(DemoError::Step(format!("no {label}")));
        };
        let text = std::fs::read_to_string(path).map_err(|e| DemoError::Step(e.to_string()))?;
        o.say(&format!(
            "\n── {label}: {}/{} ──",
            folder,
            path.file_name()
                .map(|n| n.to_string_lossy())
                .unwrap_or_default()
        ));
        let shown: Vec<&str> = if folder == "completed" {
            text.lines()
                .filter(|l| {
                    l.starts_with("status:")
                        || l.starts_with("answer")
                        || l.starts_with("id:")
                        || l.starts_with("completed_at")
                })
                .collect()
        } else {
            text.lines().collect()
        };
        for l in shown {
            o.say(&format!("  │ {l}"));
        }
    }
    o.say("\nDone: every answer is in the file, the plan is in completed/, and the agent has its notification;");
    o.say("the Markdown plan is still pending, its file sent to the owner as a document.");
    Ok(o.phone)
}
