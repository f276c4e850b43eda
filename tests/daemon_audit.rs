//! The audit trail through the real front ends: an agent's push with the binary, the owner's taps through the
//! daemon and the fake Bot API, then `arbiter audit verify` and `export` as a user reads them.

use serde_json::Value;

use crate::cli_support::Arbiter;
use crate::support::daemon::{OWNER, Running};
use crate::support::{SPEC_EXAMPLE, TempQueue};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_change_has_its_line_before_the_tap_is_answered() {
    let q = TempQueue::new();
    let pushed = Arbiter::new(&q).args(&["push"]).stdin(SPEC_EXAMPLE).run();
    assert_eq!(pushed.code, Some(0), "{}", pushed.stderr);
    let d = Running::start(q).await;
    d.fake.send_text(OWNER, "/start");
    let queue = d.wait_message(|m| m.plain.contains("Decision Queue")).await;
    let id = queue.message_id;
    d.tap(id, "1").await;
    d.wait_message(|m| m.message_id == id && m.plain.contains("📄 API Design Decisions"))
        .await;
    d.tap(id, "▶️ Continue").await;
    d.wait_message(|m| m.message_id == id && m.plain.contains("1/3 · Auth Strategy"))
        .await;
    // The tap is acknowledged only once its line is on disk: read the trail right after the answer arrives.
    d.tap(id, "A").await;
    let lines = std::fs::read_dir(d.queue.root().join("audit"))
        .unwrap()
        .filter_map(|e| {
            let p = e.unwrap().path();
            p.extension().is_some_and(|x| x == "jsonl").then_some(p)
        })
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect::<String>();
    assert!(lines.contains(r#""action":"answer""#), "{lines}");
    d.wait_message(|m| m.message_id == id && m.plain.contains("2/3 · Database"))
        .await;
    d.tap(id, "⏭️ Skip").await;
    d.wait_message(|m| m.message_id == id && m.plain.contains("3/3 · Caching"))
        .await;
    d.tap(id, "⏭️ Skip").await;
    let review = d
        .wait_message(|m| m.plain.contains("Tap to edit, or submit"))
        .await;
    d.tap(review.message_id, "📤 Submit").await;
    d.wait_message(|m| m.plain.contains("Summary")).await;
    let q = d.stop().await;

    let verify = Arbiter::new(&q).args(&["audit", "verify"]).run();
    assert_eq!(verify.code, Some(0), "{}", verify.stderr);
    assert!(
        verify.stdout.starts_with("5 entries, chain intact"),
        "{}",
        verify.stdout
    );
    let export = Arbiter::new(&q).args(&["audit", "export"]).run();
    let entries: Vec<Value> = export
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let seen: Vec<(&str, &str, &str)> = entries
        .iter()
        .map(|e| {
            (
                e["actor"].as_str().unwrap(),
                e["action"].as_str().unwrap(),
                e["decision"].as_str().unwrap_or("-"),
            )
        })
        .collect();
    let owner = OWNER.to_string();
    assert_eq!(
        seen,
        [
            ("agent:ceo", "push", "-"),
            (owner.as_str(), "answer", "auth-strategy"),
            (owner.as_str(), "skip", "database"),
            (owner.as_str(), "skip", "caching"),
            (owner.as_str(), "submit", "-"),
        ]
    );
    assert_eq!(entries[1]["value"], "jwt");
    assert_eq!(entries[0]["plan"], "abc123");
    // The submit's digest is of the completed file, byte for byte.
    let completed =
        std::fs::read(q.root().join("completed").join(&q.files("completed")[0])).unwrap();
    assert_eq!(
        entries[4]["file_sha256"],
        arbiter_zebu::queue::audit::sha256_hex(&completed)
    );
}
