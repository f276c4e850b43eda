//! Agents' Markdown in Telegram, and 📄 Full context: a long context is cut, and the tap sends the plan file.

use arbiter_zebu::fakebot::SentMessage;
use arbiter_zebu::telegram::entity::EntityKind;

use crate::support::daemon::{OUTSIDER, OWNER, Running};
use crate::support::{RICH_CONTEXT, TempQueue};

const FULL_CONTEXT: &str = "… 📄 Full context";

/// The rich fixture with decision 1's context made far longer than a message can hold.
fn long_plan() -> String {
    let paragraph = "**Measured** on `staging`: p99 fell from 230 ms to 38 ms, see [the graph](https://example.com/g).";
    let long = vec![paragraph; 80].join("\n\n");
    RICH_CONTEXT.replace(
        "**Context:** How long may",
        &format!("**Context:** {long}\n\nHow long may"),
    )
}

/// The document messages in the owner's chat.
fn documents(d: &Running) -> Vec<SentMessage> {
    d.chat()
        .into_iter()
        .filter(|m| m.document.is_some())
        .collect()
}

/// Taps 📄 Full context on message `id` and returns the document that arrives (the `n`-th, 1-based).
async fn full_context(d: &Running, id: i32, n: usize) -> SentMessage {
    let (alert, _) = d.tap_answer(id, "📄 Full context").await;
    assert_eq!(alert, None);
    d.wait_message(|m| m.document.is_some() && documents(d).len() >= n)
        .await;
    documents(d).remove(n - 1)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_context_is_cut_and_full_context_sends_the_file() {
    let d = Running::start(TempQueue::new()).await;
    let text = long_plan();
    let path = d.queue.drop_plan("swe2-cache-rollout.md", &text);
    d.wait_message(|m| m.plain.contains("Cache rollout")).await;

    d.fake.send_text(OWNER, "/start");
    let queue = d.wait_message(|m| m.plain.contains("Decision Queue")).await;
    let id = queue.message_id;
    d.tap(id, "1").await;
    let plan = d
        .wait_message(|m| m.message_id == id && m.plain.contains("📄 Cache rollout"))
        .await;
    // The plan's Markdown arrives as entities, and its 300-character excerpt is cut safely.
    assert!(
        plan.plain
            .contains("Important: the cache layer ships this week"),
        "{}",
        plan.plain
    );
    assert!(!plan.plain.contains("**"), "{}", plan.plain);
    let kinds: Vec<&str> = plan.entities.iter().map(|e| e.kind.api_name()).collect();
    for kind in [
        "bold",
        "italic",
        "code",
        "text_link",
        "strikethrough",
        "pre",
    ] {
        assert!(kinds.contains(&kind), "{kind} missing in {kinds:?}");
    }
    assert!(plan.entities.iter().any(|e| e.kind
        == EntityKind::TextLink {
            url: "https://example.com/design_(v2)".into()
        }));
    assert!(plan.plain.contains(FULL_CONTEXT), "{}", plan.plain);

    let doc = full_context(&d, id, 1).await;
    let file = doc.document.as_ref().unwrap();
    assert_eq!(file.file_name.as_deref(), Some("swe2-cache-rollout.md"));
    assert_eq!(
        file.bytes,
        std::fs::read(&path).unwrap(),
        "the file's bytes"
    );
    assert_eq!(doc.plain, "📄 Full context of Cache rollout");
    // The tapped view stays as it was.
    let still = d.chat().into_iter().find(|m| m.message_id == id).unwrap();
    assert_eq!(still.plain, plan.plain);

    // The decision whose context cannot fit: cut with the line and the button, within Telegram's limit.
    d.tap(id, "▶️ Continue").await;
    let decision = d
        .wait_message(|m| m.message_id == id && m.plain.contains("1/2 · TTL"))
        .await;
    assert!(
        decision
            .plain
            .contains(&format!("{FULL_CONTEXT}\n\nA. 60 seconds")),
        "{}",
        decision.plain
    );
    assert!(decision.plain.encode_utf16().count() <= 4096);
    assert!(
        decision.plain.encode_utf16().count() > 3000,
        "cut only as much as needed"
    );
    let doc = full_context(&d, id, 2).await;
    assert_eq!(doc.document.unwrap().bytes, text.as_bytes());
    d.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn full_context_is_refused_to_outsiders_and_for_gone_plans() {
    let d = Running::start(TempQueue::new()).await;
    let path = d.queue.drop_plan("swe2-cache-rollout.md", &long_plan());
    d.wait_message(|m| m.plain.contains("Cache rollout")).await;
    d.fake.send_text(OWNER, "/start");
    let queue = d.wait_message(|m| m.plain.contains("Decision Queue")).await;
    let id = queue.message_id;
    d.tap(id, "1").await;
    let plan = d
        .wait_message(|m| m.message_id == id && m.plain.contains(FULL_CONTEXT))
        .await;
    let data = plan
        .buttons()
        .into_iter()
        .find(|b| b.text == "📄 Full context")
        .and_then(|b| b.callback_data.clone())
        .unwrap();

    let forged = d.fake.tap_raw(OUTSIDER, id, &data);
    assert!(
        d.wait_answered(std::slice::from_ref(&forged), crate::support::daemon::WAIT)
            .await
    );
    let answer = d
        .fake
        .callback_answers()
        .into_iter()
        .find(|(q, _, _)| *q == forged);
    assert_eq!(
        answer.unwrap().1.as_deref(),
        Some("⛔ This bot is private.")
    );

    std::fs::remove_file(&path).unwrap();
    let (alert, shown) = d.tap_answer(id, "📄 Full context").await;
    assert_eq!(
        alert.as_deref(),
        Some("Plan not found: it was submitted, withdrawn or deleted.")
    );
    assert!(shown);
    assert!(d.fake.calls_of("sendDocument").is_empty(), "no file sent");
    d.stop().await;
}
