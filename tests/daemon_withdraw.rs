//! A plan leaving pending/ behind the owner's back: deleted by hand, or withdrawn by its agent. Every view drops
//! it, the trail records it, and a tap on an old view of it changes nothing.

use std::time::Duration;

use arbiter_zebu::queue::watcher::Mode;

use crate::support::daemon::{OWNER, Running, settings};
use crate::support::{TempQueue, plan_with};

/// Opens plan `n` (1-based, in queue order) through /queue and `▶️ Continue`; returns the message id.
async fn open_decision(d: &Running, n: usize) -> i32 {
    d.fake.send_text(OWNER, "/queue");
    let queue = d
        .wait_message(|m| m.plain.contains("Decision Queue") && m.plain.contains("Plan a"))
        .await;
    let id = queue.message_id;
    d.tap(id, &n.to_string()).await;
    let overview = d
        .wait_message(|m| m.message_id == id && m.plain.contains("📄"))
        .await;
    assert!(overview.plain.contains("Plan a"), "{}", overview.plain);
    d.tap(id, "▶️ Continue").await;
    d.wait_message(|m| m.message_id == id && m.plain.contains("1/"))
        .await;
    id
}

/// The newest queue view's text after asking for it with /queue.
async fn queue_text(d: &Running) -> String {
    let before = d
        .chat()
        .iter()
        .filter(|m| m.from_bot() && m.plain.contains("Decision Queue"))
        .count();
    d.fake.send_text(OWNER, "/queue");
    let shown = d
        .fake
        .wait_until(
            |f| {
                f.messages(OWNER)
                    .iter()
                    .filter(|m| m.from_bot() && m.plain.contains("Decision Queue"))
                    .count()
                    > before
            },
            Duration::from_secs(30),
        )
        .await;
    assert!(shown, "no queue view:\n{}", d.transcript());
    d.wait_message(|m| m.plain.contains("Decision Queue"))
        .await
        .plain
}

/// The scenario of the report: the owner is looking at a plan, its agent deletes the file, the owner's tap on it
/// says it is gone; /queue must not list it then, nor seconds later (it did, for good, once a tap had looked for
/// the plan before the watcher's look at the deletion).
async fn deleted_while_open_leaves_the_queue(watch: Mode) {
    let q = TempQueue::new();
    q.drop_plan("a.md", &plan_with("a", "s", 2));
    q.drop_plan("b.md", &plan_with("b", "s", 2));
    let fake = arbiter_zebu::fakebot::FakeBot::start().await.unwrap();
    let mut s = settings(&fake, &q);
    s.watch = watch;
    let d = Running::start_with(fake, q, s).await;
    d.wait_message(|_| true).await; // the start-up summary
    let id = open_decision(&d, 1).await;

    std::fs::remove_file(d.queue.root().join("pending/a.md")).unwrap();
    let (text, alert) = d.tap_answer(id, "A").await;
    assert!(alert, "the tap on a deleted plan is refused: {text:?}");
    for wait in [0, 1, 3] {
        tokio::time::sleep(Duration::from_secs(wait)).await;
        let queue = queue_text(&d).await;
        assert!(
            !queue.contains("Plan a") && queue.contains("Plan b"),
            "after {wait} s more, /queue shows:\n{queue}"
        );
    }
    // The trail says the plan was removed, by nobody it knows.
    let removed = wait_for_line(&d, "a", "removed").await;
    assert_eq!(removed.actor, "daemon");
}

/// Waits (generously) for the audit line `action` of plan `plan`.
async fn wait_for_line(d: &Running, plan: &str, action: &str) -> arbiter_zebu::queue::audit::Entry {
    for _ in 0..100 {
        if let Ok(Ok((_, entries))) = arbiter_zebu::queue::audit::read(d.queue.root())
            && let Some(e) = entries
                .into_iter()
                .find(|e| e.plan == plan && e.action == action)
        {
            return e;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    panic!("no `{action}` line for plan {plan}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plan_deleted_while_the_owner_looks_at_it_leaves_the_queue_with_events() {
    deleted_while_open_leaves_the_queue(Mode::Events {
        poll: Duration::from_secs(3600),
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plan_deleted_while_the_owner_looks_at_it_leaves_the_queue_polling() {
    deleted_while_open_leaves_the_queue(Mode::Polling {
        poll: Duration::from_millis(500),
    })
    .await;
}
