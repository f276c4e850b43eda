//! A permission prompt a standing rule answers, through the real binary: `arbiter hook codex` started with Codex's
//! `PermissionRequest` input on stdin, timed from the process's start to its answer on stdout (the line read by
//! this process), beside `arbiter --version`'s own start and exit in the same run. The rule was made as a tap
//! makes it (a permission plan submitted with `🔁 Always allow this` through the action layer), and each answer
//! writes what any answer writes: the plan into completed/ with its notify file, its audit line, the rule's count.
//! The trail holds `ARBITER_BENCH_LINES` lines (default 10,000) written since the rule was made, all read
//! before it answers (for its state on the record), and rules.json 20 other rules. No daemon runs: a rule needs none. Prints Markdown rows for BENCHMARKS.md.
//!
//! Run: `cargo bench --bench rules`. `ARBITER_BENCH_SAMPLES=N` changes the number of samples (default 200).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use arbiter_zebu::actions::{Access, Action, Actions, Actor, Outcome, seen};
use arbiter_zebu::queue::Queue;
use arbiter_zebu::queue::audit::{self, Change};

const OWNER: u64 = 93533553;
const PAYLOAD: &str = include_str!("../tests/fixtures/agents/codex/PermissionRequest.json");

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}

/// The median and the 99th percentile (nearest rank) of `samples`.
fn spread(mut samples: Vec<Duration>) -> (Duration, Duration) {
    samples.sort();
    let at =
        |q: f64| samples[((q * samples.len() as f64).ceil() as usize).clamp(1, samples.len()) - 1];
    (at(0.5), at(0.99))
}

/// A permission plan for `command` as the Codex hook pushes it, in session `session`.
fn permission_plan(id: &str, command: &str) -> String {
    format!(
        "---\nid: {id}\nagent: codex\nsession: s-{id}\nproject: /tmp/x34/codex/runs/allow/proj\nrule_tool: Bash\n\
         rule_command: {command}\n---\n# Bash: {command}\n\n## Run this command?\n\nid: permission\n\n\
         **Options:**\n- `allow` — ✅ Allow once\n- `always` — 🔁 Always allow this\n- `deny` — ❌ Deny\n"
    )
}

/// Makes the rule `always allow <command>` as the owner's tap does.
fn make_rule(actions: &Actions, id: &str, command: &str) {
    let now = "2026-11-27T10:00:00Z";
    let queue = actions.queue();
    queue
        .add_pending(&format!("{id}.md"), &permission_plan(id, command))
        .unwrap();
    let plan = queue.find(id).unwrap().plan;
    let d = &plan.decisions[0];
    let answer = Action::Answer {
        decision: 0,
        option: 1,
        seen: seen::of_option(d, &d.options[1]),
    };
    actions.take(Actor::User(OWNER), id, &answer, now);
    let plan = queue.find(id).unwrap().plan;
    let submit = Action::Submit {
        seen: seen::of_answers(&plan),
    };
    match actions.take(Actor::User(OWNER), id, &submit, now) {
        Outcome::Submitted {
            rule: Some(Ok(_)), ..
        } => {}
        other => panic!("no rule made: {other:?}"),
    }
}

/// Starts `args` (stdin `input`) and returns the time until its first line on stdout, and that line.
fn first_line(args: &[&str], input: &str) -> (Duration, String) {
    let started = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args(args)
        .env_remove("ARBITER_HOME")
        .env_remove("ARBITER_QUEUE")
        .env_remove("RUST_LOG")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let elapsed = started.elapsed();
    child.wait().unwrap();
    (elapsed, line)
}

/// The same prompt from an agent on another machine: `arbiter --server URL hook codex`, its answer from the rule
/// on the daemon (`arbiter run`, the real binary, its HTTP server on loopback), one round trip; then a plan pushed
/// with `arbiter push` locally and with `--server`, each timed from the command's start to the owner's message at
/// the fake Bot API.
fn remote(root: &std::path::Path, samples: usize) {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let _entered = runtime.enter();
    let fake = runtime
        .block_on(arbiter_zebu::fakebot::FakeBot::start())
        .unwrap();
    let home = tempfile::tempdir().unwrap();
    let listen = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let config = home.path().join("config.json");
    let json = serde_json::json!({
        "telegram": { "token": fake.token(), "allowedUsers": [OWNER], "apiUrl": fake.api_url() },
        "queue": { "dir": root },
        "web": { "listen": listen.to_string() },
        "logs": { "dir": home.path().join("logs"), "level": "error" }
    });
    std::fs::write(&config, json.to_string()).unwrap();
    let since = std::time::SystemTime::now();
    let mut daemon = Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args(["run", "--config"])
        .arg(&config)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    runtime
        .block_on(fake.wait_for_call(
            "getUpdates",
            |c| c.at >= since && c.params["offset"] != -1,
            Duration::from_secs(30),
        ))
        .expect("the daemon polls");
    let made = Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args([
            "--config",
            config.to_str().unwrap(),
            "token",
            "add",
            "bench",
        ])
        .output()
        .unwrap();
    let token_file = home.path().join("token");
    std::fs::write(&token_file, &made.stdout).unwrap();
    let server = format!("http://{listen}");
    let token = token_file.to_str().unwrap();
    let hook = [
        "--server",
        &server,
        "--token-file",
        token,
        "hook",
        "codex",
        "--timeout",
        "60s",
    ];
    for _ in 0..5 {
        let (_, line) = first_line(&hook, PAYLOAD);
        assert!(line.contains("\"behavior\":\"allow\""), "{line}");
    }
    let mut answered = Vec::with_capacity(samples);
    for _ in 0..samples {
        let (t, line) = first_line(&hook, PAYLOAD);
        assert!(line.contains("\"behavior\":\"allow\""), "{line}");
        answered.push(t);
    }
    let (median, p99) = spread(answered);
    println!(
        "| the same prompt from another machine: `arbiter --server http://127.0.0.1:… hook codex` start → answer (the daemon's rule, one round trip) | {samples} | {} | {} | | median ≤ 50 ms |",
        ms(median),
        ms(p99)
    );
    // Push → the owner's message, locally and through the daemon.
    let pushes = samples.min(50);
    let queue_arg = root.to_str().unwrap();
    for (which, label, args) in [
        (
            "local",
            "local: `arbiter push`",
            vec!["--queue", queue_arg, "push", "-"],
        ),
        (
            "remote",
            "remote: `arbiter --server … push`",
            vec!["--server", &server, "--token-file", token, "push", "-"],
        ),
    ] {
        let mut times = Vec::with_capacity(pushes);
        for i in 0..pushes {
            let title = format!("Bench push {which} {i}");
            let plan = format!("---\ntitle: {title}\n---\n\n## Go\n\n**Options:**\n- `y` — Yes\n");
            let started = Instant::now();
            let mut child = Command::new(env!("CARGO_BIN_EXE_arbiter"))
                .args(&args)
                .stdin(Stdio::piped())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap();
            child
                .stdin
                .take()
                .unwrap()
                .write_all(plan.as_bytes())
                .unwrap();
            let sent = runtime.block_on(fake.wait_until(
                |f| {
                    f.messages(OWNER as i64)
                        .iter()
                        .any(|m| m.plain.contains(&title))
                },
                Duration::from_secs(30),
            ));
            assert!(sent, "no message for {title}");
            times.push(started.elapsed());
            child.wait().unwrap();
        }
        let (median, p99) = spread(times);
        println!(
            "| push → the owner's message, {label} | {pushes} | {} | {} | | |",
            ms(median),
            ms(p99)
        );
    }
    let _ = Command::new("kill")
        .arg("-TERM")
        .arg(daemon.id().to_string())
        .status();
    let _ = daemon.wait();
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let samples: usize = std::env::var("ARBITER_BENCH_SAMPLES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(200);
    let lines: usize = std::env::var("ARBITER_BENCH_LINES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(10_000);
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_owned();
    let root = root.as_path();
    let queue = Queue::open(root, true).unwrap();
    let actions = Actions::new(queue, Access::new([OWNER]));
    for n in 0..20 {
        make_rule(&actions, &format!("other{n}"), &format!("make target-{n}"));
    }
    make_rule(&actions, "bench", "touch allowed.txt");
    // The history written since the rules were made (appended through the real writer): before a rule answers,
    // the trail is read from the line that made it on, for the state it has there.
    for i in 0..lines {
        let plan = format!("old-{}", i / 4);
        let change = Change {
            at: "2026-11-27T11:00:00Z",
            actor: "93533553",
            action: "answer",
            plan: &plan,
            revision: 1,
            decision: Some("permission"),
            value: Some("allow"),
            seen: Some("abcdef"),
            file: plan.as_bytes(),
        };
        audit::append(root, &change).unwrap();
    }
    let queue_arg = root.to_str().unwrap();
    let hook = ["--queue", queue_arg, "hook", "codex", "--timeout", "60s"];
    // Warm the page cache and the binary.
    for _ in 0..5 {
        let (_, line) = first_line(&hook, PAYLOAD);
        assert!(line.contains("\"behavior\":\"allow\""), "{line}");
        first_line(&["--version"], "");
    }
    let mut answered = Vec::with_capacity(samples);
    let mut version = Vec::with_capacity(samples);
    for _ in 0..samples {
        let (t, line) = first_line(&hook, PAYLOAD);
        assert!(line.contains("\"behavior\":\"allow\""), "{line}");
        answered.push(t);
        version.push(first_line(&["--version"], "").0);
    }
    let (median, p99) = spread(answered);
    let (v_median, v_p99) = spread(version);
    let fired = arbiter_zebu::queue::rules::read(root)
        .unwrap()
        .rules
        .iter()
        .find(|r| r.plan == "bench")
        .unwrap()
        .fired;
    assert_eq!(fired as usize, samples + 5, "every answer counted");
    println!("| measure | samples | median | p99 | beside | target |");
    println!("|---|---|---|---|---|---|");
    println!(
        "| permission prompt answered by a rule: `arbiter hook codex` start → answer on stdout ({lines} audit lines since the rule was made, 21 rules) | {samples} | {} | {} | `arbiter --version` start → exit: {} median, {} p99 | median ≤ 20 ms |",
        ms(median),
        ms(p99),
        ms(v_median),
        ms(v_p99)
    );
    remote(root, samples);
    // ARBITER_BENCH_KEEP=1: the queue stays, for a closer look (`strace`, `perf`) at one hook.
    if std::env::var_os("ARBITER_BENCH_KEEP").is_some() {
        eprintln!("queue kept: {}", dir.keep().display());
    }
}
