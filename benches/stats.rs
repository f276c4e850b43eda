//! `arbiter stats` over 10,000 completed plans (2 to 5 decisions each, `benches/common`), beside `cat` of the same files: issue 15's
//! target is at most twice the time to read them. Also `stats::compute` alone, in process, on the plans' summaries,
//! and what `/stats` adds: the per-day series over the same plans and the chart of 30 days as PNG and SVG.
//! Prints Markdown rows for BENCHMARKS.md.
#![allow(clippy::unwrap_used)]

mod common;

use std::fs;
use std::process::Command;
use std::time::{Duration, Instant};

use arbiter_zebu::plan::{Summary, parse, timing::parse_time};
use arbiter_zebu::stats;

const PLANS: usize = 10_000;

/// A completed plan (the generator `benches/history.rs` uses too): created on the hour on 2026-02-01, completed the
/// next day.
fn completed(p: usize) -> String {
    let created = parse_time(&format!("2026-02-01T{:02}:00:00Z", p % 24)).unwrap();
    let done = parse_time(&format!("2026-02-02T{:02}:{:02}:00Z", p % 24, p % 60)).unwrap();
    common::completed_plan(p, created, done)
}

fn best(mut run: impl FnMut() -> Duration) -> Duration {
    run();
    (0..3).map(|_| run()).min().unwrap()
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let done = dir.path().join("completed");
    fs::create_dir_all(&done).unwrap();
    let texts: Vec<String> = (0..PLANS).map(completed).collect();
    for (p, text) in texts.iter().enumerate() {
        fs::write(done.join(format!("p{p:05}.md")), text).unwrap();
    }
    let cat = best(|| {
        let t0 = Instant::now();
        let status = Command::new("sh")
            .arg("-c")
            .arg(format!("cat {}/*.md > /dev/null", done.display()))
            .status()
            .unwrap();
        assert!(status.success());
        t0.elapsed()
    });
    let run = best(|| {
        let (elapsed, out) =
            common::arbiter(dir.path(), &["stats", "--json", "--since", "2026-01-01"]);
        assert!(out.contains(&format!("\"plans_completed\": {PLANS}")));
        elapsed
    });
    let plans: Vec<Summary> = texts
        .iter()
        .map(|t| Summary::of(&parse(t, "x").unwrap()))
        .collect();
    let since = parse_time("2026-01-01T00:00:00Z").unwrap();
    let now = parse_time("2026-02-10T00:00:00Z").unwrap();
    let compute = best(|| {
        let t0 = Instant::now();
        std::hint::black_box(stats::compute(&plans, &[], since, now, &str::to_owned));
        t0.elapsed()
    });
    let days = stats::daily(&plans, since, now, &chrono_tz::Tz::UTC);
    let daily = best(|| {
        let t0 = Instant::now();
        std::hint::black_box(stats::daily(&plans, since, now, &chrono_tz::Tz::UTC));
        t0.elapsed()
    });
    // Every day of the month with answers and a median, so every bar and point is drawn.
    let month: Vec<stats::Day> = days[days.len() - 30..]
        .iter()
        .zip(1..)
        .map(|(d, i)| stats::Day {
            date: d.date,
            answered: i,
            p50_seconds: Some(60 * i as i64),
        })
        .collect();
    let month = &month[..];
    let png = best(|| {
        let t0 = Instant::now();
        std::hint::black_box(stats::chart::png(month).unwrap());
        t0.elapsed()
    });
    let svg = best(|| {
        let t0 = Instant::now();
        std::hint::black_box(stats::chart::svg(month).unwrap());
        t0.elapsed()
    });
    println!("| measure | samples | time | beside | ratio | target |");
    println!("|---|---|---|---|---|---|");
    println!(
        "| `arbiter stats --json`, {PLANS} completed plans | 3 (best) | {} | cat of the same files: {} | {:.2} | ≤ 2 |",
        ms(run),
        ms(cat),
        run.as_secs_f64() / cat.as_secs_f64()
    );
    println!(
        "| `stats::compute` alone, {PLANS} plans' summaries | 3 (best) | {} | | | |",
        ms(compute)
    );
    println!(
        "| `stats::daily` alone, {PLANS} plans' summaries, {} days | 3 (best) | {} | | | |",
        days.len(),
        ms(daily)
    );
    println!(
        "| `stats::chart::png`, 30 days with data | 3 (best) | {} | | | |",
        ms(png)
    );
    println!(
        "| `stats::chart::svg`, 30 days with data | 3 (best) | {} | | | |",
        ms(svg)
    );
}
