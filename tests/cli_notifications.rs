//! `arbiter notifications`: listing, filtering by session, JSON, and `--ack` deleting only what was printed.

use arbiter_zebu::agent::notifications;
use arbiter_zebu::queue::Queue;
use serde_json::{Value, json};

use crate::cli_support::Arbiter;
use crate::support::owner::Owner;
use crate::support::{TempQueue, plan_with};

const DONE: &str = "2026-02-01T11:00:00Z";

/// Two completed plans for two sessions: notify files `agent-a-main--n1.md` and `agent-b-main--n2.md`.
fn two_completed(q: &TempQueue) -> Queue {
    let queue = Queue::open(q.root(), true).unwrap();
    for (id, session) in [("n1", "agent:a:main"), ("n2", "agent:b:main")] {
        q.drop_plan(&format!("{id}.md"), &plan_with(id, session, 1));
        let owner = Owner::new(q.root()).at(DONE);
        owner.answer(id, "q1", "yes");
        owner.submit(id);
    }
    assert_eq!(
        q.files("notify"),
        ["agent-a-main--n1.md", "agent-b-main--n2.md"]
    );
    queue
}

#[test]
fn lists_all_as_text_and_one_session_as_json() {
    let q = TempQueue::new();
    two_completed(&q);
    let (a, b) = (
        q.read("notify", "agent-a-main--n1.md"),
        q.read("notify", "agent-b-main--n2.md"),
    );
    let out = Arbiter::new(&q).args(&["notifications"]).run();
    assert_eq!((out.code, out.stderr.as_str()), (Some(0), ""));
    assert_eq!(
        out.stdout,
        format!("==> agent-a-main--n1.md <==\n{a}\n==> agent-b-main--n2.md <==\n{b}")
    );

    let out = Arbiter::new(&q)
        .args(&["notifications", "--session", "agent:b:main", "--json"])
        .run();
    assert_eq!((out.code, out.stderr.as_str()), (Some(0), ""));
    assert_eq!(
        serde_json::from_str::<Value>(&out.stdout).unwrap(),
        json!([{
            "file": "agent-b-main--n2.md",
            "path": q.root().join("notify/agent-b-main--n2.md"),
            "plan_id": "n2", "plan_title": "Plan n2", "agent": "tester", "session": "agent:b:main",
            "notify_session": null, "completed_at": DONE, "answers": {"q1": "yes"}
        }])
    );
    // Listing alone deletes nothing.
    assert_eq!(q.files("notify").len(), 2);

    let out = Arbiter::new(&q)
        .args(&["notifications", "--session", "nobody", "--json"])
        .run();
    assert_eq!((out.code, out.stdout.as_str()), (Some(0), "[]\n"));
}

#[test]
fn ack_deletes_exactly_what_was_printed() {
    let q = TempQueue::new();
    two_completed(&q);
    let a = q.read("notify", "agent-a-main--n1.md");
    let out = Arbiter::new(&q)
        .args(&["notifications", "--session", "agent:a:main", "--ack"])
        .run();
    assert_eq!(out.code, Some(0));
    assert_eq!(out.stdout, format!("==> agent-a-main--n1.md <==\n{a}"));
    assert_eq!(q.files("notify"), ["agent-b-main--n2.md"]);

    let out = Arbiter::new(&q)
        .args(&["notifications", "--ack", "--json"])
        .run();
    let v: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v[0]["plan_id"], json!("n2"));
    assert!(q.files("notify").is_empty());
}

#[test]
fn ack_keeps_a_file_that_changed_since_it_was_read() {
    let q = TempQueue::new();
    two_completed(&q);
    let dir = q.root().join("notify");
    let listed = notifications::list(&dir, None).unwrap();
    // A newer notification replaces one of them after the listing.
    std::fs::write(
        dir.join("agent-b-main--n2.md"),
        "---\nplan_id: n2\n---\nnewer\n",
    )
    .unwrap();
    let queue = Queue::open(q.root(), true).unwrap();
    let acked: Vec<bool> = listed.iter().map(|n| n.ack(&queue).unwrap()).collect();
    assert_eq!(acked, [true, false]);
    assert_eq!(q.files("notify"), ["agent-b-main--n2.md"]);
}
