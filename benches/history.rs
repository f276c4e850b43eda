//! `arbiter history --grep` and `arbiter stats` with 100,000 completed plans (issue 25: each within 1 s), with the
//! history index (`<queue>/.history-index.jsonl`) warm, stale (one plan completed since it was written) and
//! missing (rebuilt from the files), beside `cat` of the same files; then the daemon's idle resident memory with
//! an empty `completed/` and with the 100,000 plans (it must not grow with `completed/`). Release build; prints
//! Markdown rows for BENCHMARKS.md.
//!
//! Run: `cargo bench --bench history`. `ARBITER_BENCH_PLANS=N` changes the count; `ARBITER_BENCH_QUEUE=DIR` generates
//! the queue there (once: an existing `DIR/completed` is used as it is) and keeps it, for measuring by hand.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{arbiter, rss_kib};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant, SystemTime};

use arbiter_zebu::fakebot::FakeBot;
use chrono::Utc;

const OWNER: i64 = 93533553;
/// The period the plans were completed over: a busy team's year.
const DAYS: i64 = 365;

fn ms(d: Duration) -> String {
    format!("{:.0} ms", d.as_secs_f64() * 1000.0)
}

/// The best of 3 runs of `run`, after `prepare` before each (untimed).
fn best(mut prepare: impl FnMut(), mut run: impl FnMut() -> Duration) -> Duration {
    (0..3)
        .map(|_| {
            prepare();
            run()
        })
        .min()
        .unwrap()
}

fn cat(dir: &Path) -> Duration {
    let t0 = Instant::now();
    let status = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "find {} -name '*.md' -exec cat {{}} + > /dev/null",
            dir.display()
        ))
        .status()
        .unwrap();
    assert!(status.success());
    t0.elapsed()
}

/// `arbiter run` on the queue at `root` against a fake Bot API, with 10 plans pending: its resident memory once
/// it polls and has settled (idle), and again after `/stats` (which reads the last 30 days of completed/).
async fn daemon_rss(root: &Path) -> (u64, u64) {
    let fake = FakeBot::start().await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let pending = root.join("pending");
    fs::create_dir_all(&pending).unwrap();
    for p in 0..10 {
        let text = format!(
            "---\nid: live{p}\nagent: bench\ntitle: Live {p}\n---\n# Live {p}\n\n## Q\n\nid: q\n\n**Options:**\n- `a` — A\n- `b` — B\n"
        );
        fs::write(pending.join(format!("live{p}.md")), text).unwrap();
    }
    let config = home.path().join("config.json");
    let json = serde_json::json!({
        "telegram": { "token": fake.token(), "allowedUsers": [OWNER], "apiUrl": fake.api_url() },
        "queue": { "dir": root },
        "logs": { "dir": home.path().join("logs"), "level": "error" }
    });
    fs::write(&config, json.to_string()).unwrap();
    let since = SystemTime::now();
    let mut child = common::daemon(&config).spawn().unwrap();
    fake.wait_for_call(
        "getUpdates",
        |c| c.at >= since && c.params["offset"] != -1,
        Duration::from_secs(120),
    )
    .await
    .expect("the daemon polls");
    // Let the start-up summary go out and the daemon settle, as the daemon bench does.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let idle = rss_kib(child.id());
    let asked = SystemTime::now();
    fake.send_text(OWNER, "/stats");
    fake.wait_for_call("sendPhoto", |c| c.at >= asked, Duration::from_secs(120))
        .await
        .expect("the /stats chart");
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let after_stats = rss_kib(child.id());
    let _ = Command::new("kill")
        .arg("-TERM")
        .arg(child.id().to_string())
        .status();
    let _ = child.wait();
    for p in 0..10 {
        let _ = fs::remove_file(pending.join(format!("live{p}.md")));
    }
    (idle, after_stats)
}

fn mib(kib: u64) -> String {
    format!("{:.1} MiB", kib as f64 / 1024.0)
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    if std::env::args().any(|a| a == "--list") {
        return; // `cargo test --benches` asks benches to list themselves
    }
    let plans: usize = std::env::var("ARBITER_BENCH_PLANS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(100_000);
    let temp = tempfile::tempdir().unwrap();
    let root: PathBuf = std::env::var_os("ARBITER_BENCH_QUEUE")
        .map_or_else(|| temp.path().to_owned(), PathBuf::from);
    for d in ["pending", "completed", "notify"] {
        fs::create_dir_all(root.join(d)).unwrap();
    }
    let completed = root.join("completed");
    let generated = Instant::now();
    if fs::read_dir(&completed).unwrap().next().is_none() {
        common::fill_completed(&completed, plans, Utc::now(), DAYS);
    }
    let plans = fs::read_dir(&completed).unwrap().count();
    let bytes: u64 = fs::read_dir(&completed)
        .unwrap()
        .map(|e| e.unwrap().metadata().unwrap().len())
        .sum();
    eprintln!(
        "{plans} completed plans ({:.0} MiB) ready in {:.1} s",
        bytes as f64 / 1048576.0,
        generated.elapsed().as_secs_f64()
    );
    let index = root.join(".history-index.jsonl");
    let drop_index = || {
        let _ = fs::remove_file(&index);
    };
    // One more plan completed since the index was written: what a search after a day's use meets.
    let mut extra = 0;
    let mut complete_one = || {
        extra += 1;
        let now = Utc::now();
        let text = common::completed_plan(plans + extra, now - chrono::Duration::hours(1), now);
        fs::write(completed.join(format!("z{extra:06}.md")), text).unwrap();
    };
    let cat_time = {
        cat(&completed);
        best(|| {}, || cat(&completed))
    };
    println!(
        "machine: {} cores",
        std::thread::available_parallelism().map_or(0, |n| n.get())
    );
    println!(
        "date: {}",
        Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
    );
    println!(
        "plans: {plans} completed over {DAYS} days, {:.0} MiB",
        bytes as f64 / 1048576.0
    );
    println!();
    println!("| measure | samples | time | beside | target |");
    println!("|---|---|---|---|---|");
    let beside = format!("cat of the same files: {}", ms(cat_time));
    let searches = [
        ("kestrel", "a project's name"),
        ("ask dana", "words of an owner's own answer"),
    ];
    for (needle, what) in searches {
        let args = ["history", "--grep", needle];
        let (_, listed) = arbiter(&root, &args);
        let found = listed.lines().count().saturating_sub(1);
        let missing = best(drop_index, || arbiter(&root, &args).0);
        let warm = best(|| {}, || arbiter(&root, &args).0);
        let stale = best(&mut complete_one, || arbiter(&root, &args).0);
        let row = |state: &str, t: Duration| {
            println!(
                "| `arbiter history --grep \"{needle}\"` ({what}: {found} plans found), {plans} completed, index {state} | 3 (best) | {} | {beside} | ≤ 1 s |",
                ms(t)
            );
        };
        row("warm", warm);
        row("stale (one plan completed since)", stale);
        row("missing (rebuilt from the files)", missing);
    }
    for (since, what) in [
        (None, "the default 30 days"),
        (Some("365d"), "the whole year"),
    ] {
        let mut args = vec!["stats"];
        args.extend(since.map(|s| ["--since", s]).into_iter().flatten());
        let missing = best(drop_index, || arbiter(&root, &args).0);
        let warm = best(|| {}, || arbiter(&root, &args).0);
        let stale = best(&mut complete_one, || arbiter(&root, &args).0);
        let (_, shown) = arbiter(&root, &args);
        let counted = shown
            .lines()
            .next()
            .and_then(|l| l.rsplit(": ").next())
            .unwrap_or("")
            .to_owned();
        let row = |state: &str, t: Duration| {
            println!(
                "| `arbiter stats` ({what}: {counted}), {plans} completed, index {state} | 3 (best) | {} | {beside} | ≤ 1 s |",
                ms(t)
            );
        };
        row("warm", warm);
        row("stale (one plan completed since)", stale);
        row("missing (rebuilt from the files)", missing);
    }
    let empty = tempfile::tempdir().unwrap();
    let (idle_empty, stats_empty) = daemon_rss(empty.path()).await;
    let (idle_full, stats_full) = daemon_rss(&root).await;
    println!(
        "| daemon resident memory idle after start, 10 pending, completed/ empty | 1 | {} | | |",
        mib(idle_empty)
    );
    println!(
        "| daemon resident memory idle after start, 10 pending, {plans} completed | 1 | {} | empty completed/: {} | no growth |",
        mib(idle_full),
        mib(idle_empty)
    );
    println!(
        "| daemon resident memory after `/stats`, 10 pending, completed/ empty | 1 | {} | | |",
        mib(stats_empty)
    );
    println!(
        "| daemon resident memory after `/stats`, 10 pending, {plans} completed | 1 | {} | empty completed/: {} | |",
        mib(stats_full),
        mib(stats_empty)
    );
}
