//! Reading the audit trail back with a year of heavy use: 12 month files of 42,000 lines (504,000 lines, about
//! 150 MB), appended through `queue::audit::append` (the daemon's own writer, so the chain is real). Times, best of
//! 3: the whole check (`arbiter audit verify` reads every line), and the History page's read of the lines of 50
//! plans completed this month (`read_for_plans`) the first time (every month read and remembered) and after one more
//! line was appended (the months that did not change are not read again). Prints Markdown rows for BENCHMARKS.md.
//!
//! Run: `cargo bench --bench audit`. `ARBITER_BENCH_LINES=N` changes the lines per month.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashSet;
use std::fs::{self, OpenOptions};
use std::io::Write;
use std::time::{Duration, Instant};

use arbiter_zebu::queue::audit::{self, Change, Checked};

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

fn best(mut run: impl FnMut() -> Duration) -> Duration {
    (0..3).map(|_| run()).min().unwrap()
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let per_month: usize = std::env::var("ARBITER_BENCH_LINES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(42_000);
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    // The first line of each month through the real writer; the rest chained here the same way (append's lock
    // and fsync per line would take an hour for half a million lines).
    let mut prev = None;
    for month in 1..=12 {
        let at = format!("2026-{month:02}-01T09:00:00Z");
        for i in 0..per_month {
            let plan = format!("plan-{month}-{}", i / 5);
            let change = Change {
                at: &at,
                actor: "93533553",
                action: "answer",
                plan: &plan,
                revision: 1,
                decision: Some("storage"),
                value: Some("B"),
                seen: Some("0123456789abcdef"),
                file: plan.as_bytes(),
            };
            if i == 0 {
                prev = Some(audit::append(root, &change).unwrap());
            } else {
                prev = Some(append_fast(root, &change, month, prev.take().unwrap()));
            }
        }
    }
    let lines = per_month * 12;
    let bytes: u64 = fs::read_dir(root.join(audit::DIR))
        .unwrap()
        .map(|e| e.unwrap().metadata().unwrap().len())
        .sum();
    println!(
        "trail: {lines} lines in 12 month files, {:.0} MB",
        bytes as f64 / 1e6
    );
    println!("\n| measure | samples | time |\n|---|---|---|");
    let verify = best(|| {
        let t0 = Instant::now();
        let (intact, _) = audit::read(root).unwrap().unwrap();
        assert_eq!(intact.entries, lines);
        t0.elapsed()
    });
    println!(
        "| check the whole chain (`arbiter audit verify`), {lines} lines | 3 (best) | {} |",
        ms(verify)
    );
    // The 50 plans of December the History page shows first.
    let shown: HashSet<String> = (0..50).map(|i| format!("plan-12-{i}")).collect();
    let first = best(|| {
        let checked = Checked::default();
        let t0 = Instant::now();
        let (_, entries) = audit::read_for_plans(root, &checked, &shown)
            .unwrap()
            .unwrap();
        assert_eq!(entries.len(), 250);
        t0.elapsed()
    });
    println!(
        "| History page's read of 50 plans' lines, nothing remembered (the first view) | 3 (best) | {} |",
        ms(first)
    );
    let checked = Checked::default();
    audit::read_for_plans(root, &checked, &shown)
        .unwrap()
        .unwrap();
    let mut n = 0;
    let again = best(|| {
        n += 1;
        let at = format!("2026-12-02T09:00:{n:02}Z");
        audit::append(
            root,
            &Change {
                at: &at,
                actor: "93533553",
                action: "answer",
                plan: "plan-12-0",
                ..Change::default()
            },
        )
        .unwrap();
        let t0 = Instant::now();
        let (_, entries) = audit::read_for_plans(root, &checked, &shown)
            .unwrap()
            .unwrap();
        assert_eq!(entries.len(), 250 + n);
        t0.elapsed()
    });
    println!(
        "| History page's read of 50 plans' lines, one line appended since the last view | 3 (best) | {} |",
        ms(again)
    );
}

/// One line chained after `prev` onto the month file, as `audit::append` writes it, without its lock and fsync.
fn append_fast(
    root: &std::path::Path,
    change: &Change,
    month: u32,
    prev: audit::Entry,
) -> audit::Entry {
    let path = root.join(audit::DIR).join(format!("2026-{month:02}.jsonl"));
    let prev = audit::sha256_hex(&serde_json::to_vec(&prev).unwrap());
    let entry = audit::Entry::chained(change, prev);
    let mut line = serde_json::to_vec(&entry).unwrap();
    line.push(b'\n');
    OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap()
        .write_all(&line)
        .unwrap();
    entry
}
