//! The daemon against the fake Bot API: what the owner sees in Telegram and what lands on disk.

use arbiter_zebu::plan::{DecisionStatus, PlanStatus, parse};

use crate::support::daemon::{OWNER, Running};
use crate::support::{SPEC_EXAMPLE, TempQueue};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_whole_story_from_dropped_plan_to_notify_file() {
    let d = Running::start(TempQueue::new()).await;
    d.queue.drop_plan("ceo-api-design-abc123.md", SPEC_EXAMPLE);

    let announced = d
        .wait_message(|m| m.plain.contains("API Design Decisions"))
        .await;
    assert!(
        announced.plain.contains("nft-marketplace"),
        "{}",
        announced.plain
    );
    assert!(
        announced.plain.contains('3'),
        "decision count: {}",
        announced.plain
    );

    d.fake.send_text(OWNER, "/start");
    let queue = d.wait_message(|m| m.plain.contains("Decision Queue")).await;
    assert!(
        queue.plain.contains("API Design Decisions — 0/3"),
        "{}",
        queue.plain
    );
    let id = queue.message_id;

    d.tap(id, "1").await;
    let plan = d
        .wait_message(|m| m.message_id == id && m.plain.contains("📄 API Design Decisions"))
        .await;
    assert!(plan.plain.contains("0/3"), "{}", plan.plain);
    d.tap(id, "▶️ Continue").await;
    let first = d
        .wait_message(|m| m.message_id == id && m.plain.contains("1/3 · Auth Strategy"))
        .await;
    assert!(
        first.plain.contains("A. JWT tokens (stateless, scalable)"),
        "{}",
        first.plain
    );

    d.tap(id, "A").await;
    let second = d
        .wait_message(|m| m.message_id == id && m.plain.contains("2/3 · Database"))
        .await;
    assert!(
        second.plain.contains("Auth Strategy → jwt"),
        "{}",
        second.plain
    );

    d.tap(id, "⏭️ Skip").await;
    d.wait_message(|m| m.message_id == id && m.plain.contains("3/3 · Caching"))
        .await;

    d.tap(id, "✏️ Custom").await;
    let prompt = d
        .wait_message(|m| m.plain.contains("Caching") && m.message_id != id)
        .await;
    d.fake
        .send_reply(OWNER, "Varnish: 60s TTL # edge", prompt.message_id);
    let review = d
        .wait_message(|m| m.plain.contains("Tap to edit, or submit"))
        .await;
    assert!(
        review.plain.contains("2 answered") && review.plain.contains("1 skipped"),
        "{}",
        review.plain
    );

    d.tap(review.message_id, "📤 Submit").await;
    let done = d.wait_message(|m| m.plain.contains("Summary")).await;
    assert!(
        done.plain.contains("Notifying: agent:swe2:main"),
        "{}",
        done.plain
    );
    assert!(done.buttons().iter().any(|b| b.text == "📋 Back to Queue"));

    let q = d.stop().await;
    assert!(q.files("pending").is_empty());
    assert_eq!(q.files("completed"), ["ceo-api-design-abc123.md"]);
    let text = q.read("completed", "ceo-api-design-abc123.md");
    let plan = parse(&text, "x").unwrap();
    assert_eq!(plan.status, PlanStatus::Completed);
    assert!(plan.completed_at.is_some());
    let owner = OWNER.to_string();
    let auth = plan.decision("auth-strategy").unwrap();
    assert_eq!(
        (auth.status, auth.answer.as_deref()),
        (DecisionStatus::Answered, Some("jwt"))
    );
    assert_eq!(auth.answered_by.as_deref(), Some(owner.as_str()));
    assert!(auth.answered_at.is_some());
    let db = plan.decision("database").unwrap();
    assert_eq!(
        (db.status, db.answer.as_deref()),
        (DecisionStatus::Skipped, None)
    );
    let caching = plan.decision("caching").unwrap();
    assert_eq!(caching.answer.as_deref(), Some("Varnish: 60s TTL # edge"));
    assert!(
        text.contains("\nanswer: \"Varnish: 60s TTL # edge\"\n"),
        "{text}"
    );
    let notify = q.read("notify", "agent-swe2-main--abc123.md");
    assert!(
        notify.contains(
            "\n  auth-strategy: jwt\n  database: null\n  caching: \"Varnish: 60s TTL # edge\"\n"
        ),
        "{notify}"
    );
}
