//! `arbiter audit verify` and `export` through the real binary, on a trail written by the library's appender and
//! then tampered with as a person with the same Unix user could.

use arbiter_zebu::queue::audit::{Change, append};

use crate::cli_support::Arbiter;
use crate::support::TempQueue;

fn trail(q: &TempQueue) {
    for (at, actor, action, value) in [
        ("2026-10-31T23:00:00Z", "agent:ceo", "push", None),
        ("2026-11-01T09:00:00Z", "93533553", "answer", Some("pg")),
        (
            "2026-11-01T09:01:00Z",
            "93533553",
            "custom",
            Some("use \"redis\", not memcached"),
        ),
        ("2026-11-01T09:02:00Z", "93533553", "submit", None),
    ] {
        let change = Change {
            at,
            actor,
            action,
            plan: "deploy",
            revision: 1,
            decision: value.map(|_| "database"),
            value,
            seen: None,
            file: at.as_bytes(),
        };
        append(q.root(), &change).unwrap();
    }
}

#[test]
fn verify_says_intact_then_names_the_changed_line() {
    let q = TempQueue::new();
    trail(&q);
    let out = Arbiter::new(&q).args(&["audit", "verify"]).run();
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert!(
        out.stdout.starts_with("4 entries, chain intact (head "),
        "{}",
        out.stdout
    );
    // Someone rewrites who answered.
    let path = q.root().join("audit").join("2026-11.jsonl");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, text.replacen("\"pg\"", "\"sqlite\"", 1)).unwrap();
    let out = Arbiter::new(&q).args(&["audit", "verify"]).run();
    assert_eq!(out.code, Some(1));
    assert_eq!(out.stdout, "");
    assert!(
        out.stderr
            .starts_with("arbiter: audit trail broken at audit/2026-11.jsonl:2: "),
        "{}",
        out.stderr
    );
    // Export refuses a broken chain too.
    let out = Arbiter::new(&q).args(&["audit", "export"]).run();
    assert_eq!(out.code, Some(1), "{}", out.stdout);
}

#[test]
fn export_as_csv_and_json_lines_since_a_date() {
    let q = TempQueue::new();
    trail(&q);
    let out = Arbiter::new(&q)
        .args(&[
            "audit",
            "export",
            "--format",
            "csv",
            "--since",
            "2026-11-01",
        ])
        .run();
    assert_eq!((out.code, out.stderr.as_str()), (Some(0), ""));
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(
        lines[0],
        "at,actor,action,plan,revision,decision,value,seen,file_sha256,prev"
    );
    assert_eq!(lines.len(), 4, "{}", out.stdout);
    assert!(
        lines[2].starts_with(
            "2026-11-01T09:01:00Z,93533553,custom,deploy,1,database,\"use \"\"redis\"\", not memcached\",,"
        ),
        "{}",
        lines[2]
    );
    // Python's csv module reads every field back exactly.
    let mut python = std::process::Command::new("python3")
        .args([
            "-c",
            "import csv, json, sys; print(json.dumps(list(csv.DictReader(sys.stdin))))",
        ])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("python3");
    std::io::Write::write_all(&mut python.stdin.take().unwrap(), out.stdout.as_bytes()).unwrap();
    let read = python.wait_with_output().unwrap();
    let rows: serde_json::Value = serde_json::from_slice(&read.stdout).unwrap();
    assert_eq!(rows.as_array().unwrap().len(), 3, "{rows}");
    assert_eq!(rows[1]["value"], "use \"redis\", not memcached");
    assert_eq!(rows[1]["action"], "custom");
    assert_eq!(rows[1]["revision"], "1");
    assert_eq!(rows[1]["seen"], "");
    let out = Arbiter::new(&q).args(&["audit", "export"]).run();
    assert_eq!(out.code, Some(0));
    let file = std::fs::read_to_string(q.root().join("audit").join("2026-10.jsonl")).unwrap()
        + &std::fs::read_to_string(q.root().join("audit").join("2026-11.jsonl")).unwrap();
    assert_eq!(out.stdout, file, "JSON lines are the trail's own lines");
    let out = Arbiter::new(&q)
        .args(&["audit", "export", "--format", "xml"])
        .run();
    assert_eq!(out.code, Some(2));
}
