//! The ACP relay's cost, through the real binary: `arbiter acp -- AGENT` against the same agent on a direct pipe.
//! The agent is this program run again (`ARBITER_BENCH_ACP_AGENT`): `echo` answers each request at once (a
//! request's round trip through the relay crosses it twice: the added latency per message is half the difference),
//! `stream` writes 10 MB of `session/update` notifications (agent message chunks of 1 KiB) as fast as it can and
//! exits. No daemon runs: the relay is a plain relay, and its cost per message is the same either way (it reads
//! only lines that may be requests, answers or message text). Prints Markdown rows for BENCHMARKS.md.
//!
//! Run: `cargo bench --bench acp`. `ARBITER_BENCH_SAMPLES=N` changes the number of round trips (default 2000).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const STREAM_BYTES: usize = 10 * 1024 * 1024;

fn agent(kind: &str) {
    let stdin = std::io::stdin();
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    if kind == "stream" {
        let chunk = "x".repeat(1024);
        let line = format!(
            r#"{{"jsonrpc":"2.0","method":"session/update","params":{{"sessionId":"s","update":{{"sessionUpdate":"tool_call_update","toolCallId":"t","content":[{{"type":"content","content":{{"type":"text","text":"{chunk}"}}}}]}}}}}}"#
        );
        let mut written = 0;
        while written < STREAM_BYTES {
            writeln!(out, "{line}").unwrap();
            written += line.len() + 1;
        }
        out.flush().unwrap();
        return;
    }
    for line in stdin.lock().lines() {
        let line = line.unwrap();
        let value: serde_json::Value = serde_json::from_str(&line).unwrap();
        let answer = serde_json::json!({"jsonrpc": "2.0", "id": value["id"], "result": {}});
        writeln!(out, "{answer}").unwrap();
        out.flush().unwrap();
    }
}

fn command(kind: &str, relayed: bool) -> Command {
    let me = std::env::current_exe().unwrap();
    let queue = std::env::temp_dir().join(format!("arbiter-acp-bench-{}", std::process::id()));
    let mut cmd = if relayed {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_arbiter"));
        cmd.arg("--queue").arg(&queue).args(["acp", "--"]).arg(&me);
        cmd
    } else {
        Command::new(&me)
    };
    cmd.env("ARBITER_BENCH_ACP_AGENT", kind)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    cmd
}

/// Round trips of one request each: their times.
fn round_trips(relayed: bool, n: usize) -> Vec<Duration> {
    let mut child = command("echo", relayed).spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut times = Vec::with_capacity(n);
    let mut line = String::new();
    for i in 0..n + 50 {
        let request = format!(
            r#"{{"jsonrpc":"2.0","id":{i},"method":"session/set_mode","params":{{"sessionId":"s","modeId":"default"}}}}"#
        );
        let start = Instant::now();
        writeln!(stdin, "{request}").unwrap();
        stdin.flush().unwrap();
        line.clear();
        stdout.read_line(&mut line).unwrap();
        if i >= 50 {
            times.push(start.elapsed());
        }
    }
    drop(stdin);
    let _ = child.wait();
    times
}

/// Seconds to read the whole stream: from the first byte to the last (the processes' start apart), and from the
/// start.
fn stream(relayed: bool) -> (f64, f64) {
    let start = Instant::now();
    let mut child = command("stream", relayed).spawn().unwrap();
    let mut bytes = 0;
    let mut buf = vec![0; 1 << 16];
    let mut stdout = child.stdout.take().unwrap();
    let mut first = None;
    loop {
        let n = stdout.read(&mut buf).unwrap();
        if n == 0 {
            break;
        }
        first.get_or_insert_with(Instant::now);
        bytes += n;
    }
    let end = Instant::now();
    assert!(bytes >= STREAM_BYTES, "read {bytes} bytes");
    drop(child.stdin.take());
    let _ = child.wait();
    let first = first.unwrap();
    ((end - first).as_secs_f64(), (end - start).as_secs_f64())
}

fn spread(mut samples: Vec<Duration>) -> (f64, f64) {
    samples.sort();
    let at = |q: f64| samples[((samples.len() as f64 * q).ceil() as usize).saturating_sub(1)];
    (at(0.5).as_secs_f64() * 1e3, at(0.99).as_secs_f64() * 1e3)
}

fn main() {
    if let Ok(kind) = std::env::var("ARBITER_BENCH_ACP_AGENT") {
        return agent(&kind);
    }
    let n: usize = std::env::var("ARBITER_BENCH_SAMPLES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(2000);
    let (direct_median, direct_p99) = spread(round_trips(false, n));
    let (relay_median, relay_p99) = spread(round_trips(true, n));
    println!("| round trip of a request, {n} samples | median | p99 |");
    println!("|---|---|---|");
    println!("| direct pipe | {direct_median:.3} ms | {direct_p99:.3} ms |");
    println!("| through `arbiter acp` | {relay_median:.3} ms | {relay_p99:.3} ms |");
    println!(
        "| added per message (half the difference: a round trip crosses the relay twice) | {:.3} ms | {:.3} ms |",
        (relay_median - direct_median) / 2.0,
        (relay_p99 - direct_p99) / 2.0
    );
    let runs = 9;
    let median = |relayed: bool| {
        let mut all: Vec<(f64, f64)> = (0..runs).map(|_| stream(relayed)).collect();
        all.sort_by(|a, b| a.0.total_cmp(&b.0));
        all[runs / 2]
    };
    let (d, d_all) = median(false);
    let (r, r_all) = median(true);
    let mb = STREAM_BYTES as f64 / 1024.0 / 1024.0;
    println!();
    println!(
        "| 10 MB of `session/update`s (1 KiB lines), median of {runs} runs | first byte → last | rate | with the processes' start |"
    );
    println!("|---|---|---|---|");
    println!(
        "| direct pipe | {:.1} ms | {:.0} MB/s | {:.1} ms |",
        d * 1e3,
        mb / d,
        d_all * 1e3
    );
    println!(
        "| through `arbiter acp` | {:.1} ms | {:.0} MB/s ({:.0}% of direct) | {:.1} ms |",
        r * 1e3,
        mb / r,
        d / r * 100.0,
        r_all * 1e3
    );
}
