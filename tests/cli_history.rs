//! `arbiter history` through the real binary: search, filters, JSON, and the index beside the files kept in step
//! with completed/ (the files stay the truth).

use serde_json::Value;

use crate::cli_support::Arbiter;
use crate::support::{TempQueue, plan_answered as plan};

fn complete(q: &TempQueue, name: &str, front: &str, answer: &str) {
    let text = plan(
        front,
        &[(
            "engine",
            "answered",
            answer,
            "2026-11-01T10:00:00Z",
            "93533553",
        )],
    );
    std::fs::write(q.root().join("completed").join(name), text).unwrap();
}

fn queue() -> TempQueue {
    let q = TempQueue::new();
    complete(
        &q,
        "ceo-db.md",
        "id: db\nagent: ceo\ntitle: Production database\nstatus: completed\ncompleted_at: 2026-11-01T10:00:00Z",
        "\"use PostgreSQL 17\"",
    );
    complete(
        &q,
        "swe-cache.md",
        "id: cache\nagent: swe\ntitle: Cache layer\nstatus: completed\ncompleted_at: 2026-11-02T10:00:00Z",
        "a",
    );
    complete(
        &q,
        "swe-old.md",
        "id: old\nagent: swe\ntitle: Old one\nstatus: completed\ncompleted_at: 2026-01-02T10:00:00Z",
        "b",
    );
    q
}

fn ids(q: &TempQueue, args: &[&str]) -> Vec<String> {
    let mut all = vec!["history", "--json"];
    all.extend_from_slice(args);
    let out = Arbiter::new(q).args(&all).run();
    assert_eq!((out.code, out.stderr.as_str()), (Some(0), ""), "{all:?}");
    let v: Vec<Value> = serde_json::from_str(&out.stdout).unwrap();
    v.iter()
        .map(|p| p["id"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn search_filters_and_json() {
    let q = queue();
    assert_eq!(ids(&q, &[]), ["cache", "db", "old"]);
    // Case-insensitive, in answers, titles and contexts.
    assert_eq!(ids(&q, &["--grep", "postgresql"]), ["db"]);
    assert_eq!(ids(&q, &["--grep", "CACHE LAYER"]), ["cache"]);
    assert_eq!(ids(&q, &["--grep", "why?"]), ["cache", "db", "old"]);
    assert_eq!(ids(&q, &["--grep", "use postgresql 17"]), ["db"]);
    assert!(ids(&q, &["--grep", "nothing like this"]).is_empty());
    assert_eq!(ids(&q, &["--agent", "swe"]), ["cache", "old"]);
    assert_eq!(
        ids(&q, &["--agent", "swe", "--since", "2026-10-01"]),
        ["cache"]
    );
    let out = Arbiter::new(&q)
        .args(&["history", "--json", "--grep", "17"])
        .run();
    let v: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v[0]["answers"]["engine"], "use PostgreSQL 17");
    assert_eq!(v[0]["completed_at"], "2026-11-01T10:00:00Z");
    let table = Arbiter::new(&q).args(&["history", "--grep", "cache"]).run();
    assert_eq!(table.code, Some(0));
    assert!(
        table.stdout.starts_with("COMPLETED") && table.stdout.contains("Cache layer"),
        "{}",
        table.stdout
    );
    let bad = Arbiter::new(&q).args(&["history", "--since", "soon"]).run();
    assert_eq!(bad.code, Some(2), "{}", bad.stderr);
}

#[test]
fn the_index_follows_completed_and_is_rebuilt_when_lost_or_damaged() {
    let q = queue();
    assert_eq!(ids(&q, &["--grep", "layer"]), ["cache"]);
    let index = q.root().join(".history-index.jsonl");
    assert!(index.exists(), "the index is kept beside the files");
    // A plan completed since: found.
    complete(
        &q,
        "ops-layer.md",
        "id: ops\nagent: ops\ntitle: Network layer\nstatus: completed\ncompleted_at: 2026-11-03T10:00:00Z",
        "a",
    );
    assert_eq!(ids(&q, &["--grep", "layer"]), ["ops", "cache"]);
    // One removed: gone.
    std::fs::remove_file(q.root().join("completed").join("swe-cache.md")).unwrap();
    assert_eq!(ids(&q, &["--grep", "layer"]), ["ops"]);
    // A damaged or missing index is rebuilt from the files.
    std::fs::write(&index, "garbage\n{\"version\":1}\n").unwrap();
    assert_eq!(ids(&q, &[]), ["ops", "db", "old"]);
    std::fs::remove_file(&index).unwrap();
    assert_eq!(ids(&q, &["--grep", "postgresql"]), ["db"]);
}
