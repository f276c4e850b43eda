//! A plan leaving pending/ behind the owner's back: deleted by hand, or withdrawn by its agent. Every view drops
//! it, the trail records it, and a tap on an old view of it changes nothing.

use std::time::Duration;

use arbiter_zebu::queue::watcher::Mode;

use crate::cli_support::Arbiter;
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

/// `arbiter withdraw` while the owner has the plan open and an agent awaits it: the file goes to completed/ with
/// `status: withdrawn`, who and why; no notify file; one `withdraw` line; `await` exits 5; `/queue` drops it; a
/// tap on the open view says it was withdrawn and records nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_withdraws_a_plan_the_owner_is_looking_at() {
    let q = TempQueue::new();
    q.drop_plan("a.md", &plan_with("a", "s", 2));
    q.drop_plan("b.md", &plan_with("b", "s", 2));
    let d = Running::start(q).await;
    d.wait_message(|_| true).await;
    let id = open_decision(&d, 1).await;
    let waiting = Arbiter::at(d.queue.root())
        .args(&["await", "a", "--json"])
        .spawn();

    let out = Arbiter::at(d.queue.root())
        .args(&[
            "withdraw",
            "a",
            "--reason",
            "The build moved on: not needed",
        ])
        .run();
    assert_eq!(
        (out.code, out.stdout.as_str(), out.stderr.as_str()),
        (
            Some(0),
            "plan `a` was withdrawn by agent:tester: The build moved on: not needed\n",
            ""
        )
    );
    // The file, byte for byte where it matters: in completed/, the answers untouched.
    assert_eq!(d.queue.files("pending"), ["b.md"]);
    let text = d.queue.read("completed", "a.md");
    assert!(text.contains("\nstatus: withdrawn\n"), "{text}");
    assert!(text.contains("\nwithdrawn_by: agent:tester\n"), "{text}");
    assert!(
        text.contains("\nwithdraw_reason: \"The build moved on: not needed\"\n"),
        "{text}"
    );
    assert!(text.contains("\nwithdrawn_at: "), "{text}");
    assert_eq!(text.replace('\r', ""), text, "no stray carriage returns");
    assert!(d.queue.files("notify").is_empty(), "no notify file");
    // The agent that awaited it: exit 5, with the status and the reason.
    let waited = crate::cli_support::collect(waiting);
    assert_eq!(waited.code, Some(5), "{waited:?}");
    let json: serde_json::Value = serde_json::from_str(&waited.stdout).unwrap();
    assert_eq!(json["status"], "withdrawn");
    assert_eq!(json["withdrawn_by"], "agent:tester");
    assert_eq!(json["withdraw_reason"], "The build moved on: not needed");
    assert_eq!(
        waited.stderr,
        "arbiter: plan `a` was withdrawn by agent:tester: The build moved on: not needed\n"
    );
    // One line in the trail, by the agent, with the reason.
    let line = wait_for_line(&d, "a", "withdraw").await;
    assert_eq!(line.actor, "agent:tester");
    assert_eq!(
        line.value.as_deref(),
        Some("The build moved on: not needed")
    );

    // The owner's open view: the tap records nothing and says why.
    let queue = queue_text(&d).await;
    assert!(
        !queue.contains("Plan a") && queue.contains("Plan b"),
        "{queue}"
    );
    let before = d.queue.read("completed", "a.md");
    let (text, alert) = d.tap_answer(id, "A").await;
    assert!(alert);
    assert_eq!(
        text.as_deref(),
        Some("Its agent withdrew this plan: nobody needs to answer it. Nothing was recorded.")
    );
    let shown = d
        .wait_message(|m| m.message_id == id && m.plain.contains("↩️"))
        .await;
    assert!(
        shown.plain.contains("Withdrawn by agent:tester")
            && shown.plain.contains("The build moved on: not needed"),
        "{}",
        shown.plain
    );
    assert_eq!(
        d.queue.read("completed", "a.md"),
        before,
        "nothing recorded"
    );
    let (_, entries) = arbiter_zebu::queue::audit::read(d.queue.root())
        .unwrap()
        .unwrap();
    assert_eq!(
        entries.iter().filter(|e| e.plan == "a").count(),
        1,
        "no line but the withdrawal's (no `removed`): {entries:?}"
    );

    // History lists it as withdrawn; stats do not count it as answered.
    let history = Arbiter::at(d.queue.root()).args(&["history"]).run();
    assert!(
        history
            .stdout
            .lines()
            .any(|l| l.starts_with("withdrawn 20") && l.ends_with(" a")),
        "{}",
        history.stdout
    );
    let stats = Arbiter::at(d.queue.root()).args(&["stats", "--json"]).run();
    let stats: serde_json::Value = serde_json::from_str(&stats.stdout).unwrap();
    assert_eq!(stats["plans_completed"], 0, "{stats}");

    // Withdrawing it again, or an unknown plan: exit 1, saying why.
    let again = Arbiter::at(d.queue.root()).args(&["withdraw", "a"]).run();
    assert_eq!(
        (again.code, again.stderr.as_str()),
        (
            Some(1),
            "arbiter: plan `a` is not pending (withdrawn): nothing to withdraw\n"
        )
    );
    let unknown = Arbiter::at(d.queue.root()).args(&["withdraw", "zz"]).run();
    assert_eq!(unknown.code, Some(1), "{unknown:?}");
}

/// A plan announced while the daemon runs and then withdrawn: its announcement, unopened, is redrawn to say so,
/// and no new message is sent for it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_announcement_of_a_withdrawn_plan_says_it_was_withdrawn() {
    let q = TempQueue::new();
    let d = Running::start(q).await;
    d.queue.drop_plan("c.md", &plan_with("c", "s", 1));
    let announced = d.wait_message(|m| m.plain.contains("Plan c")).await;
    let before = d.chat().len();
    let out = Arbiter::at(d.queue.root())
        .args(&["withdraw", "c", "--reason", "answered in the terminal"])
        .run();
    assert_eq!(out.code, Some(0), "{out:?}");
    let redrawn = d
        .wait_message(|m| m.message_id == announced.message_id && m.plain.contains("↩️"))
        .await;
    assert!(
        redrawn.plain.contains("Withdrawn by agent:tester")
            && redrawn.plain.contains("answered in the terminal"),
        "{}",
        redrawn.plain
    );
    assert_eq!(
        d.chat().len(),
        before,
        "no new message:\n{}",
        d.transcript()
    );
}
