//! End-to-end benchmarks of the real `arbiter run` binary against the local fake Bot API, each beside what the
//! same machine allows in the same run (a bare durable write, `cat` of the same files), so the numbers mean
//! something on a noisy shared box. Run: `cargo bench --bench daemon` (release build); results go to stdout as a
//! Markdown table for BENCHMARKS.md. `ARBITER_BENCH_QUICK=1` takes fewer samples; `ARBITER_BENCH_ROWS=tap,start`
//! runs only those groups of rows (`scaling`, `notify`, `tap` with the memory rows it measures, `start` with the
//! queue rendering row); `ARBITER_BENCH_TAP_ONLY=1` and `ARBITER_BENCH_SCALING_ONLY=1` are `tap` and `scaling`.
//! `cargo bench --profile dist --bench daemon` measures the published binaries' profile.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::rss_kib;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::{Duration, Instant, SystemTime};

use arbiter_zebu::fakebot::FakeBot;
use arbiter_zebu::plan::parse;
use arbiter_zebu::queue::atomic;
use arbiter_zebu::telegram::callback::{Callback, fingerprint, plan_ref};
use arbiter_zebu::telegram::views;

const OWNER: i64 = 93533553;
const WAIT: Duration = Duration::from_secs(60);

fn plan_text(id: &str, decisions: usize) -> String {
    let mut out = format!(
        "---\nid: {id}\nagent: bench\nsession: bench\ntitle: Plan {id}\npriority: normal\nstatus: pending\n---\n\n# Plan {id}\n\nContext.\n\n"
    );
    for i in 1..=decisions {
        out.push_str(&format!(
            "## Decision {i}: Question {i}\n\nid: q{i}\nstatus: pending\nanswer: null\nanswered_at: null\n\n**Context:** Why {i}?\n\n**Options:**\n- `a` — First\n- `b` — Second\n\n"
        ));
    }
    out
}

struct Stats {
    samples: Vec<Duration>,
}

impl Stats {
    fn new(mut samples: Vec<Duration>) -> Stats {
        samples.sort();
        Stats { samples }
    }
    fn pct(&self, p: f64) -> Duration {
        let i = ((self.samples.len() as f64 - 1.0) * p).round() as usize;
        self.samples[i.min(self.samples.len() - 1)]
    }
    fn median(&self) -> Duration {
        self.pct(0.5)
    }
    fn p99(&self) -> Duration {
        self.pct(0.99)
    }
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}

struct Env {
    home: tempfile::TempDir,
    fake: FakeBot,
}

impl Env {
    async fn new() -> Env {
        let home = tempfile::tempdir().unwrap();
        for d in ["queue/pending", "queue/completed", "queue/notify"] {
            fs::create_dir_all(home.path().join(d)).unwrap();
        }
        Env {
            home,
            fake: FakeBot::start().await.unwrap(),
        }
    }
    fn pending(&self) -> PathBuf {
        self.home.path().join("queue/pending")
    }
    fn spawn(&self, polling: bool, interval_ms: u64) -> (Child, SystemTime) {
        let config = self.home.path().join("config.json");
        let json = serde_json::json!({
            "telegram": { "token": self.fake.token(), "allowedUsers": [OWNER], "apiUrl": self.fake.api_url() },
            "queue": { "dir": self.home.path().join("queue"), "watchInterval": interval_ms },
            "logs": { "dir": self.home.path().join("logs"), "level": "error" }
        });
        fs::write(&config, json.to_string()).unwrap();
        let started = SystemTime::now();
        let mut cmd = common::daemon(&config);
        if polling {
            cmd.env("ARBITER_WATCH", "poll");
        }
        (cmd.spawn().unwrap(), started)
    }
    async fn wait_polling(&self, since: SystemTime) -> SystemTime {
        let call = self
            .fake
            .wait_for_call(
                "getUpdates",
                |c| c.at >= since && c.params["offset"] != -1,
                WAIT,
            )
            .await
            .expect("daemon polls");
        call.at
    }
}

fn stop(mut child: Child) {
    let _ = Command::new("kill")
        .arg("-TERM")
        .arg(child.id().to_string())
        .status();
    let _ = child.wait();
}

/// New file renamed into pending/ → sendMessage at the fake.
async fn notify_latency(polling: bool, samples: usize) -> Stats {
    let env = Env::new().await;
    let (child, since) = env.spawn(polling, 1000);
    env.wait_polling(since).await;
    let mut out = Vec::new();
    for i in 0..samples {
        let id = format!("n{i}");
        let staged = env.pending().join(format!(".{id}.tmp"));
        fs::write(&staged, plan_text(&id, 1)).unwrap();
        let t0 = SystemTime::now();
        fs::rename(&staged, env.pending().join(format!("{id}.md"))).unwrap();
        let needle = format!("Plan {id}");
        let call = env
            .fake
            .wait_for_call(
                "sendMessage",
                |c| {
                    c.params["text"]
                        .as_str()
                        .is_some_and(|t| t.contains(&needle))
                },
                WAIT,
            )
            .await
            .expect("announcement");
        out.push(call.at.duration_since(t0).unwrap_or_default());
        // Stay under the burst limit (3 announcements per 2 s are sent one by one); in polling mode, vary the phase
        // against the poll interval so the samples cover it instead of hitting the same spot every time.
        let pause = if polling {
            700 + (i as u64 * 379) % 1000
        } else {
            700
        };
        tokio::time::sleep(Duration::from_millis(pause)).await;
    }
    stop(child);
    Stats::new(out)
}

/// One bare durable write of `text` beside `target`: temp file + fsync + rename + directory fsync.
fn bare_write(target: &Path, text: &str) -> Duration {
    let t0 = Instant::now();
    atomic::write_atomic(target, text.as_bytes()).unwrap();
    t0.elapsed()
}

/// What the taps of one [`tap_latency`] run measured.
struct Taps {
    /// Tap → editMessageText at the fake (the whole tap, redraw included).
    edits: Stats,
    /// Tap → answerCallbackQuery at the fake: the daemon answers a tap only once its answer is durable on disk.
    answers: Stats,
    /// The bare durable write of the same file, once per tap.
    bare: Stats,
    idle_rss: u64,
    busy_rss: u64,
}

/// Tap → editMessageText and tap → answerCallbackQuery at the fake, with `plans` pending and `trail` lines already
/// in this month's audit file; beside them the bare durable write of the same file.
async fn tap_latency(plans: usize, samples: usize, trail: usize) -> Taps {
    let env = Env::new().await;
    if trail > 0 {
        let dir = env.pending().parent().unwrap().join("audit");
        fs::create_dir_all(&dir).unwrap();
        let month = chrono::Utc::now().format("%Y-%m");
        let mut lines = String::new();
        for i in 0..trail {
            lines.push_str(&format!(
                "{{\"at\":\"{month}-01T09:00:00Z\",\"actor\":\"{OWNER}\",\"action\":\"answer\",\"plan\":\"earlier-{i}\",\"revision\":1,\"decision\":\"storage\",\"value\":\"A\",\"seen\":\"0123456789abcdef\",\"file_sha256\":\"{:064x}\",\"prev\":\"{:064x}\"}}\n",
                i, i + 1
            ));
        }
        fs::write(dir.join(format!("{month}.jsonl")), lines).unwrap();
    }
    // Plans of the example plan's size (3 decisions); taps go round the plans and decisions, alternating the
    // option, so every tap changes an answer.
    for p in 0..plans {
        fs::write(
            env.pending().join(format!("p{p}.md")),
            plan_text(&format!("p{p}"), 3),
        )
        .unwrap();
    }
    let (child, since) = env.spawn(false, 1000);
    env.wait_polling(since).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let idle_rss = rss_kib(child.id());
    env.fake.send_text(OWNER, "/start");
    let view = env
        .fake
        .wait_for_call(
            "sendMessage",
            |c| {
                c.params["text"]
                    .as_str()
                    .is_some_and(|t| t.contains("Decision Queue"))
            },
            WAIT,
        )
        .await
        .expect("queue view");
    let _ = view;
    // The call is logged before the message is stored: wait for the message itself.
    let queue_message = |f: &arbiter_zebu::fakebot::FakeBot| {
        f.messages(OWNER)
            .iter()
            .rev()
            .find(|m| m.from_bot() && m.plain.contains("Decision Queue"))
            .map(|m| m.message_id)
    };
    assert!(
        env.fake
            .wait_until(|f| queue_message(f).is_some(), WAIT)
            .await
    );
    let message = queue_message(&env.fake).expect("queue view stored");
    let mut taps = Vec::new();
    let mut answers = Vec::new();
    let mut bare = Vec::new();
    for s in 0..samples {
        let used = plans.min(samples);
        let p = s % used;
        let d = (s / used) % 3;
        let option = (s / (used * 3)) % 2;
        let id = format!("p{p}");
        let path = env.pending().join(format!("{id}.md"));
        let text = fs::read_to_string(&path).unwrap();
        let plan = parse(&text, &id).unwrap();
        let dec = &plan.decisions[d];
        let data = Callback::Answer {
            plan: plan_ref(&id),
            index: d as u16,
            option: option as u16,
            seen: fingerprint(&[
                &dec.id,
                &dec.options[option].key,
                &dec.options[option].label,
            ]),
        }
        .encode();
        // Only the calls after this mark are looked at: copying every call of a long run on each wait would
        // load the machine more with every tap.
        let mark = env.fake.call_count();
        let t0 = SystemTime::now();
        let query = env.fake.tap_raw(OWNER, message, &data);
        let both = |f: &arbiter_zebu::fakebot::FakeBot| {
            let calls = f.calls_since(mark);
            let edit = calls
                .iter()
                .find(|c| c.method.eq_ignore_ascii_case("editMessageText"))
                .cloned();
            let answer = calls.into_iter().find(|c| {
                c.method.eq_ignore_ascii_case("answerCallbackQuery")
                    && c.params["callback_query_id"] == query.as_str()
            });
            edit.zip(answer)
        };
        let ok = env.fake.wait_until(|f| both(f).is_some(), WAIT).await;
        assert!(ok, "no edit and answer after a tap");
        let (edit, answer) = both(&env.fake).unwrap();
        taps.push(edit.at.duration_since(t0).unwrap_or_default());
        answers.push(answer.at.duration_since(t0).unwrap_or_default());
        // The same file, written durably by itself (in a scratch copy, not to disturb the daemon).
        let scratch = env.home.path().join("scratch.md");
        bare.push(bare_write(&scratch, &text));
    }
    let busy_rss = rss_kib(child.id());
    stop(child);
    Taps {
        edits: Stats::new(taps),
        answers: Stats::new(answers),
        bare: Stats::new(bare),
        idle_rss,
        busy_rss,
    }
}

/// Start with `n` plans pending → first long poll; beside it `cat` of the same files.
async fn start_ratio(n: usize) -> (Duration, Duration) {
    let env = Env::new().await;
    for p in 0..n {
        fs::write(
            env.pending().join(format!("p{p:05}.md")),
            plan_text(&format!("p{p}"), 3),
        )
        .unwrap();
    }
    // Warm the page cache the same way for both.
    let cat = || {
        let t0 = Instant::now();
        let status = Command::new("sh")
            .arg("-c")
            .arg(format!("cat {}/*.md > /dev/null", env.pending().display()))
            .status()
            .unwrap();
        assert!(status.success());
        t0.elapsed()
    };
    cat();
    let cat_time = (0..3).map(|_| cat()).min().unwrap();
    let mut starts = Vec::new();
    for _ in 0..3 {
        let (child, since) = env.spawn(false, 1000);
        let first = env.wait_polling(since).await;
        starts.push(first.duration_since(since).unwrap_or_default());
        stop(child);
    }
    (starts.into_iter().min().unwrap(), cat_time)
}

/// With `plans` pending (3 decisions each): idle RSS after start, then the owner's `/queue` → the queue view's
/// sendMessage at the fake (end to end, what the owner waits for), then a plan dropped into pending/ → its
/// announcement. Returns (queue replies, announcements, idle RSS KiB).
async fn scaling(plans: usize, samples: usize) -> (Stats, Stats, u64) {
    let env = Env::new().await;
    for p in 0..plans {
        fs::write(
            env.pending().join(format!("p{p:05}.md")),
            plan_text(&format!("p{p}"), 3),
        )
        .unwrap();
    }
    let (child, since) = env.spawn(false, 1000);
    env.wait_polling(since).await;
    // Let the start-up summary go out and the daemon settle before reading its memory.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let idle = rss_kib(child.id());
    let mut replies = Vec::new();
    for _ in 0..samples {
        let t0 = SystemTime::now();
        env.fake.send_text(OWNER, "/queue");
        let call = env
            .fake
            .wait_for_call(
                "sendMessage",
                |c| {
                    c.at >= t0
                        && c.params["text"]
                            .as_str()
                            .is_some_and(|t| t.contains("Decision Queue"))
                },
                WAIT,
            )
            .await
            .expect("queue view");
        replies.push(call.at.duration_since(t0).unwrap_or_default());
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let mut announced = Vec::new();
    for i in 0..samples {
        let id = format!("new{i}");
        let staged = env.pending().join(format!(".{id}.tmp"));
        fs::write(&staged, plan_text(&id, 1)).unwrap();
        let t0 = SystemTime::now();
        fs::rename(&staged, env.pending().join(format!("{id}.md"))).unwrap();
        let needle = format!("Plan {id}");
        let call = env
            .fake
            .wait_for_call(
                "sendMessage",
                |c| {
                    c.params["text"]
                        .as_str()
                        .is_some_and(|t| t.contains(&needle))
                },
                WAIT,
            )
            .await
            .expect("announcement");
        announced.push(call.at.duration_since(t0).unwrap_or_default());
        tokio::time::sleep(Duration::from_millis(700)).await;
    }
    stop(child);
    (Stats::new(replies), Stats::new(announced), idle)
}

fn render_queue(n: usize) -> Stats {
    let plans: Vec<_> = (0..n)
        .map(|p| parse(&plan_text(&format!("p{p}"), 3), "x").unwrap())
        .collect();
    let refs: Vec<_> = plans.iter().collect();
    let samples = (0..50)
        .map(|_| {
            let t0 = Instant::now();
            std::hint::black_box(views::queue(&refs, 0));
            t0.elapsed()
        })
        .collect();
    Stats::new(samples)
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    if std::env::args().any(|a| a == "--list") {
        return; // `cargo test --benches` asks benches to list themselves
    }
    let quick = std::env::var("ARBITER_BENCH_QUICK").is_ok();
    let n = |full: usize, q: usize| if quick { q } else { full };
    let mut out = std::io::stdout();
    let host = fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|c| {
            c.lines()
                .find(|l| l.starts_with("model name"))
                .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_owned())
        })
        .unwrap_or_default();
    writeln!(
        out,
        "machine: {} cores, {host}",
        std::thread::available_parallelism().map_or(0, |n| n.get())
    )
    .unwrap();
    writeln!(
        out,
        "date: {}",
        chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
    )
    .unwrap();
    writeln!(out, "\n| measure | samples | median | p99 | beside | ratio | target |\n|---|---|---|---|---|---|---|").unwrap();

    let rows = row_groups();
    // Cost against the queue's size, each size beside the same run's 10 plans.
    let mut base: Option<(Duration, Duration, Duration)> = None;
    let sizes: &[usize] = if rows.contains(&"scaling") {
        &[10, 1000, 10_000]
    } else {
        &[]
    };
    for &plans in sizes {
        let (replies, announced, idle) = scaling(plans, n(20, 5)).await;
        let (q10, a10, a10_p99) =
            *base.get_or_insert((replies.median(), announced.median(), announced.p99()));
        let ratio = |d: Duration, b: Duration| d.as_secs_f64() / b.as_secs_f64();
        writeln!(
            out,
            "| `/queue` → queue view sent ({plans} plans pending) | {} | {} | {} | 10 plans: {} | {:.2} | ≤ 2 |",
            replies.samples.len(),
            ms(replies.median()),
            ms(replies.p99()),
            ms(q10),
            ratio(replies.median(), q10)
        )
        .unwrap();
        writeln!(
            out,
            "| plan dropped → announced ({plans} plans pending) | {} | {} | {} | 10 plans: {} median, {} p99 | {:.2} median, {:.2} p99 | ≤ 1.5 both |",
            announced.samples.len(),
            ms(announced.median()),
            ms(announced.p99()),
            ms(a10),
            ms(a10_p99),
            ratio(announced.median(), a10),
            ratio(announced.p99(), a10_p99)
        )
        .unwrap();
        let target = match plans {
            1000 => "≤ 14 MiB",
            10_000 => "≤ 32 MiB",
            _ => "",
        };
        writeln!(
            out,
            "| resident memory idle after start ({plans} plans pending) | 1 | {:.1} MiB | | | | {target} |",
            idle as f64 / 1024.0
        )
        .unwrap();
    }
    if rows.contains(&"notify") {
        notify_rows(&mut out, &n).await;
    }
    if rows.contains(&"tap") {
        tap_rows(&mut out, &n).await;
    }
    if rows.contains(&"start") {
        start_and_render_rows(&mut out, &n).await;
    }
}

/// The groups of rows to run: every one, or those `ARBITER_BENCH_ROWS` names (comma-separated).
fn row_groups() -> Vec<&'static str> {
    const GROUPS: [&str; 4] = ["scaling", "notify", "tap", "start"];
    if std::env::var("ARBITER_BENCH_TAP_ONLY").is_ok() {
        return vec!["tap"];
    }
    if std::env::var("ARBITER_BENCH_SCALING_ONLY").is_ok() {
        return vec!["scaling"];
    }
    let Ok(list) = std::env::var("ARBITER_BENCH_ROWS") else {
        return GROUPS.to_vec();
    };
    let wanted: Vec<&str> = list.split(',').map(str::trim).collect();
    for group in &wanted {
        assert!(
            GROUPS.contains(group),
            "ARBITER_BENCH_ROWS: no group {group:?} (there are {GROUPS:?})"
        );
    }
    GROUPS.into_iter().filter(|g| wanted.contains(g)).collect()
}

/// The tap rows (10 and 1,000 plans pending, and a long month's trail), then the memory rows they measure.
async fn tap_rows(out: &mut impl Write, n: &impl Fn(usize, usize) -> usize) {
    let mut rss = (0, 0);
    let tap_samples = |plans: usize| if plans == 10 { n(1000, 40) } else { n(300, 40) };
    // The last run: a month's trail already long (30,000 lines, ~10 MB): a tap costs the same.
    for (plans, trail) in [(10, 0), (1000, 0), (10, n(30_000, 3_000))] {
        let taps = tap_latency(plans, tap_samples(plans), trail).await;
        if plans == 10 && trail == 0 {
            rss = (taps.idle_rss, taps.busy_rss);
        }
        let pending = if trail == 0 {
            format!("{plans} plans pending")
        } else {
            format!("{plans} plans pending, {trail} lines in the month's trail before")
        };
        let bare = &taps.bare;
        let ratio = |d: Duration| d.as_secs_f64() / bare.median().as_secs_f64();
        // Every tap also appends its audit line (fsynced) before it is acknowledged (issue 25: ≤ 3 × the bare
        // write with it).
        let rows = [
            (
                format!("tap → editMessageText, answer and its audit line durable ({pending})"),
                &taps.edits,
            ),
            (
                format!(
                    "tap → answerCallbackQuery (answer and its audit line durable and acknowledged; {pending})"
                ),
                &taps.answers,
            ),
        ];
        for (label, stats) in rows {
            writeln!(
                out,
                "| {label} | {} | {} | {} | bare durable write: {} median, {} p99 | {:.2} | ≤ 3 |",
                stats.samples.len(),
                ms(stats.median()),
                ms(stats.p99()),
                ms(bare.median()),
                ms(bare.p99()),
                ratio(stats.median())
            )
            .unwrap();
        }
    }

    writeln!(
        out,
        "| resident memory idle after start (10 plans) | 1 | {:.1} MiB | | | | ≤ 15 MiB |",
        rss.0 as f64 / 1024.0
    )
    .unwrap();
    writeln!(
        out,
        "| resident memory after {} taps (10 plans) | 1 | {:.1} MiB | growth {:.1} MiB | | | growth ≤ 2 MiB |",
        tap_samples(10),
        rss.1 as f64 / 1024.0,
        (rss.1 as f64 - rss.0 as f64) / 1024.0
    )
    .unwrap();
}

/// The new-plan notification rows (inotify, then polling).
async fn notify_rows(out: &mut impl Write, n: &impl Fn(usize, usize) -> usize) {
    let inotify = notify_latency(false, n(60, 10)).await;
    writeln!(
        out,
        "| new plan → sendMessage (inotify) | {} | {} | {} | | | p99 ≤ 50 ms |",
        inotify.samples.len(),
        ms(inotify.median()),
        ms(inotify.p99())
    )
    .unwrap();
    let polling = notify_latency(true, n(30, 5)).await;
    writeln!(out, "| new plan → sendMessage (polling, watchInterval 1000 ms) | {} | {} | {} | | | p99 ≤ 1050 ms |", polling.samples.len(), ms(polling.median()), ms(polling.p99())).unwrap();
}

/// The start-up row and the queue rendering row.
async fn start_and_render_rows(out: &mut impl Write, n: &impl Fn(usize, usize) -> usize) {
    let (start, cat) = start_ratio(n(10_000, 1000)).await;
    writeln!(
        out,
        "| start with {} plans → first getUpdates | 3 (best) | {} | | cat of the same files: {} | {:.2} | ≤ 2 |",
        n(10_000, 1000),
        ms(start),
        ms(cat),
        start.as_secs_f64() / cat.as_secs_f64()
    )
    .unwrap();
    let render = render_queue(10_000);
    writeln!(
        out,
        "| render queue view, 10 000 plans | 50 | {} | {} | | | |",
        ms(render.median()),
        ms(render.p99())
    )
    .unwrap();
}
