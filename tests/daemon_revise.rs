//! Send it back, then revise: the owner taps 🔁 Request changes and types what to change (the real daemon and the
//! fake Bot API), the agent reads it with `arbiter await` (exit 4) and answers with `arbiter push --revise`; the
//! approver is shown the revision with what changed.

use std::os::unix::fs::PermissionsExt;

use arbiter_zebu::plan::{DecisionStatus, PlanStatus, parse};
use serde_json::Value;

use crate::cli_support::Arbiter;
use crate::support::daemon::{OWNER, Running};
use crate::support::{SPEC_EXAMPLE, TempQueue};

const FEEDBACK: &str = "Use Postgres only: no Mongo.\nAnd add search.";

/// The agent's revision: the database decision loses an option and gets a new context, caching is gone, search
/// is new; auth is as it was.
fn revision() -> String {
    let text = SPEC_EXAMPLE
        .replace(
            "**Context:** Primary datastore for NFT metadata.",
            "**Context:** Primary datastore for NFT metadata.\nPostgres only, as asked.",
        )
        .replace("- `mongodb` — Document store\n", "");
    let caching = text.find("## Decision 3: Caching").unwrap();
    format!(
        "{}## Decision 3: Search\n\nid: search\n\n**Context:** Full-text search engine.\n\n**Options:**\n- `pg` — Postgres FTS\n- `meili` — Meilisearch\n",
        &text[..caching]
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn request_changes_then_revise_round_trip() {
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
    d.tap(id, "A").await;
    d.wait_message(|m| m.message_id == id && m.plain.contains("2/3 · Database"))
        .await;
    d.tap(id, "A").await;
    d.wait_message(|m| m.message_id == id && m.plain.contains("3/3 · Caching"))
        .await;
    d.tap(id, "⏭️ Skip").await;
    let review = d
        .wait_message(|m| m.plain.contains("Tap to edit, or submit"))
        .await;
    assert!(
        review
            .buttons()
            .iter()
            .any(|b| b.text == "🔁 Request changes"),
        "{}",
        d.transcript()
    );

    // 🔁 Request changes → force reply → the owner's text.
    d.tap(review.message_id, "🔁 Request changes").await;
    let prompt = d
        .wait_message(|m| m.plain.contains("What should the agent change"))
        .await;
    d.fake.send_reply(OWNER, FEEDBACK, prompt.message_id);
    let sent = d
        .wait_message(|m| m.plain.contains("Sent back to the agent"))
        .await;
    assert!(sent.plain.contains("Use Postgres only"), "{}", sent.plain);

    // The file left the queue for returned/, with the request in its frontmatter; the notify file says so.
    assert!(d.queue.files("pending").is_empty());
    let name = "ceo-api-design-decisions-abc123.md";
    assert_eq!(d.queue.files("returned"), [name]);
    let returned = d.queue.read("returned", name);
    assert!(returned.contains("status: changes_requested"), "{returned}");
    assert!(
        returned.contains("feedback: \"Use Postgres only: no Mongo.\\nAnd add search.\"\n"),
        "{returned}"
    );
    assert!(
        returned.contains(&format!("feedback_by: {OWNER}\n")),
        "{returned}"
    );
    assert!(returned.contains("feedback_at: "), "{returned}");
    let plan = parse(&returned, "x").unwrap();
    assert_eq!(plan.status, PlanStatus::ChangesRequested);
    assert_eq!(plan.feedback.as_ref().unwrap().text, FEEDBACK);
    let notify = d.queue.files("notify");
    assert_eq!(notify.len(), 1);
    let note = d.queue.read("notify", &notify[0]);
    assert!(note.contains("outcome: changes_requested\n"), "{note}");
    assert!(note.contains("feedback: \"Use Postgres only"), "{note}");

    // `arbiter await` returns at once, exit code 4, with the feedback.
    let awaited = Arbiter::new(&d.queue)
        .args(&["await", "abc123", "--json"])
        .run();
    assert_eq!(awaited.code, Some(4), "{}", awaited.stderr);
    let report: Value = serde_json::from_str(&awaited.stdout).unwrap();
    assert_eq!(report["status"], "changes_requested");
    assert_eq!(report["feedback"], FEEDBACK);
    assert_eq!(report["location"], "returned");
    assert!(
        awaited.stderr.contains("changes requested"),
        "{}",
        awaited.stderr
    );
    let got = Arbiter::new(&d.queue)
        .args(&["get", "abc123", "--json"])
        .run();
    let got: Value = serde_json::from_str(&got.stdout).unwrap();
    assert_eq!(got["status"], "changes_requested");
    assert_eq!(got["feedback"], FEEDBACK);

    // The agent revises: revision 2 in pending/, revision 1 kept read-only, auth's answer carried.
    let revised = Arbiter::new(&d.queue)
        .args(&["push", "--revise", "abc123", "--json"])
        .stdin(&revision())
        .run();
    assert_eq!(revised.code, Some(0), "{}", revised.stderr);
    let out: Value = serde_json::from_str(&revised.stdout).unwrap();
    assert_eq!(
        (out["id"].as_str(), out["revision"].as_u64()),
        (Some("abc123"), Some(2))
    );
    let kept = d.queue.root().join("revisions").join("abc123.r1.md");
    assert_eq!(std::fs::read_to_string(&kept).unwrap(), returned);
    assert_eq!(
        std::fs::metadata(&kept).unwrap().permissions().mode() & 0o777,
        0o444
    );
    assert!(d.queue.files("returned").is_empty());
    let pending = d.queue.files("pending");
    assert_eq!(pending.len(), 1);
    let text = d.queue.read("pending", &pending[0]);
    assert!(text.contains("revision: 2\n"), "{text}");
    let plan = parse(&text, "x").unwrap();
    assert_eq!(plan.id, "abc123");
    assert_eq!(plan.revision, 2);
    assert_eq!(plan.status, PlanStatus::InProgress);
    assert_eq!(plan.feedback.as_ref().unwrap().text, FEEDBACK);
    let auth = plan.decision("auth-strategy").unwrap();
    assert_eq!(
        (auth.status, auth.answer.as_deref(), auth.carried),
        (DecisionStatus::Answered, Some("jwt"), true)
    );
    // Database's options changed: pending again. Search is new.
    let db = plan.decision("database").unwrap();
    assert_eq!((db.status, db.carried), (DecisionStatus::Pending, false));
    assert_eq!(
        plan.decision("search").unwrap().status,
        DecisionStatus::Pending
    );
    assert_eq!((plan.answered(), plan.remaining()), (1, 2));

    // The approver is told: 🔁 Revision 2 with what changed and the context's diff.
    let told = d.wait_message(|m| m.plain.contains("Revision 2:")).await;
    let shown = &told.plain;
    assert!(
        shown.contains("🔁 Revision 2: API Design Decisions"),
        "{shown}"
    );
    assert!(shown.contains("Use Postgres only"), "{shown}");
    assert!(shown.contains("✏️ Database (options)"), "{shown}");
    assert!(shown.contains("➕ Search (added)"), "{shown}");
    assert!(shown.contains("➖ Caching (removed)"), "{shown}");
    assert!(shown.contains("+ Postgres only, as asked."), "{shown}");
    assert!(shown.contains("1 answer carried over"), "{shown}");
    assert!(told.text.contains("```diff\n"), "{}", told.text);
    assert!(told.buttons().iter().any(|b| b.text == "📂 Open"));

    let q = d.stop().await;
    // The trail: push r1, the owner's answers and request (r1), the agent's revise (r2).
    let export = Arbiter::new(&q).args(&["audit", "export"]).run();
    let entries: Vec<Value> = export
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let seen: Vec<(&str, &str, u64)> = entries
        .iter()
        .map(|e| {
            (
                e["actor"].as_str().unwrap(),
                e["action"].as_str().unwrap(),
                e["revision"].as_u64().unwrap(),
            )
        })
        .collect();
    let owner = OWNER.to_string();
    assert_eq!(
        seen,
        [
            ("agent:ceo", "push", 1),
            (owner.as_str(), "answer", 1),
            (owner.as_str(), "answer", 1),
            (owner.as_str(), "skip", 1),
            (owner.as_str(), "request_changes", 1),
            ("agent:ceo", "revise", 2),
        ]
    );
    assert_eq!(entries[4]["value"], FEEDBACK);
    let verify = Arbiter::new(&q).args(&["audit", "verify"]).run();
    assert_eq!(verify.code, Some(0), "{}", verify.stderr);
}

#[test]
fn revise_refuses_unknown_completed_and_foreign_plans_and_writes_nothing() {
    let q = TempQueue::new();
    let unknown = Arbiter::new(&q)
        .args(&["push", "--revise", "nope"])
        .stdin(SPEC_EXAMPLE)
        .run();
    assert_eq!(unknown.code, Some(2), "{}", unknown.stderr);
    assert!(
        unknown.stderr.contains("no plan `nope` to revise"),
        "{}",
        unknown.stderr
    );
    let pushed = Arbiter::new(&q).args(&["push"]).stdin(SPEC_EXAMPLE).run();
    assert_eq!(pushed.code, Some(0), "{}", pushed.stderr);
    let foreign = SPEC_EXAMPLE.replace("agent: ceo", "agent: intruder");
    let refused = Arbiter::new(&q)
        .args(&["push", "--revise", "abc123"])
        .stdin(&foreign)
        .run();
    assert_eq!(refused.code, Some(2), "{}", refused.stderr);
    assert!(
        refused.stderr.contains("only its agent may revise it"),
        "{}",
        refused.stderr
    );
    assert!(!q.root().join("revisions").exists());
    // A pending plan may be revised (the agent changed its mind): revision 2 in place, revision 1 kept.
    let before = q.read("pending", "ceo-api-design-decisions-abc123.md");
    let ok = Arbiter::new(&q)
        .args(&["push", "--revise", "abc123"])
        .stdin(&revision())
        .run();
    assert_eq!(ok.code, Some(0), "{}", ok.stderr);
    assert_eq!(
        std::fs::read_to_string(q.root().join("revisions/abc123.r1.md")).unwrap(),
        before
    );
    let now = q.read("pending", "ceo-api-design-decisions-abc123.md");
    assert!(
        now.contains("revision: 2\n") && !now.contains("feedback"),
        "{now}"
    );
    // Completed: refused.
    let path = q.root().join("pending/ceo-api-design-decisions-abc123.md");
    let done = now.replacen("status: pending", "status: completed", 1);
    std::fs::write(&path, done).unwrap();
    std::fs::rename(
        &path,
        q.root()
            .join("completed/ceo-api-design-decisions-abc123.md"),
    )
    .unwrap();
    let completed = Arbiter::new(&q)
        .args(&["push", "--revise", "abc123"])
        .stdin(&revision())
        .run();
    assert_eq!(completed.code, Some(2), "{}", completed.stderr);
    assert!(
        completed.stderr.contains("is completed"),
        "{}",
        completed.stderr
    );
    assert!(!q.root().join("revisions/abc123.r2.md").exists());
}
