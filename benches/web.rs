//! The web dashboard's queue page with 1,000 pending plans, rendered and served over HTTP by the real
//! `arbiter run` (release build), beside the same server answering for its stylesheet (the floor: one HTTP round
//! trip). Sign-in is the real path: `arbiter web-login`, then the link's Sign in POST. Run:
//! `cargo bench --bench web`; results go to stdout as a Markdown row for BENCHMARKS.md. `ARBITER_BENCH_QUICK=1`
//! takes fewer samples.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::fs;
use std::process::Command;
use std::time::{Duration, Instant};

use arbiter_zebu::fakebot::FakeBot;

const OWNER: i64 = 93533553;
const PLANS: usize = 1000;

fn plan_text(id: &str) -> String {
    let mut out = format!(
        "---\nid: {id}\nagent: bench\ntag: t{}\ntitle: Plan {id}\npriority: normal\nstatus: pending\ncreated_at: 2026-01-01T00:00:00Z\n---\n\n# Plan {id}\n\nContext.\n\n",
        id.len() % 7
    );
    for i in 1..=3 {
        out.push_str(&format!(
            "## Decision {i}: Question {i}\n\nid: q{i}\nstatus: pending\n\n**Context:** Why {i}?\n\n**Options:**\n- `a` — First\n- `b` — Second\n\n"
        ));
    }
    out
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}

async fn sample(client: &reqwest::Client, url: &str, cookie: &str, n: usize) -> Vec<Duration> {
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let t = Instant::now();
        let r = client
            .get(url)
            .header("cookie", cookie)
            .send()
            .await
            .unwrap();
        assert!(r.status().is_success(), "{url}: {}", r.status());
        let body = r.bytes().await.unwrap();
        assert!(!body.is_empty());
        out.push(t.elapsed());
    }
    out.sort();
    out
}

#[tokio::main]
async fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let n = if std::env::var("ARBITER_BENCH_QUICK").is_ok() {
        50
    } else {
        500
    };
    let home = tempfile::tempdir().unwrap();
    for d in ["queue/pending", "queue/completed", "queue/notify"] {
        fs::create_dir_all(home.path().join(d)).unwrap();
    }
    for i in 0..PLANS {
        let id = format!("p{i:04}");
        fs::write(
            home.path().join(format!("queue/pending/{id}.md")),
            plan_text(&id),
        )
        .unwrap();
    }
    let fake = FakeBot::start().await.unwrap();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let config = home.path().join("config.json");
    let json = serde_json::json!({
        "telegram": { "token": fake.token(), "allowedUsers": [OWNER], "apiUrl": fake.api_url() },
        "queue": { "dir": home.path().join("queue") },
        "logs": { "dir": home.path().join("logs"), "level": "error" },
        "web": { "listen": format!("127.0.0.1:{port}") }
    });
    fs::write(&config, json.to_string()).unwrap();
    let mut daemon = common::daemon(&config).spawn().unwrap();
    let base = format!("http://127.0.0.1:{port}");
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let started = Instant::now();
    while client.get(format!("{base}/login")).send().await.is_err() {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the dashboard never answered"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let link = Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args(["web-login", "--user", &OWNER.to_string(), "--config"])
        .arg(&config)
        .output()
        .unwrap();
    let link = String::from_utf8(link.stdout).unwrap().trim().to_owned();
    let signed = client
        .post(&link)
        .header("origin", &base)
        .send()
        .await
        .unwrap();
    let cookie = signed.headers()["set-cookie"]
        .to_str()
        .unwrap()
        .split(';')
        .next()
        .unwrap()
        .to_owned();

    let queue = sample(&client, &format!("{base}/queue"), &cookie, n).await;
    let page = client
        .get(format!("{base}/queue"))
        .header("cookie", &cookie)
        .send()
        .await
        .unwrap();
    let page = page.text().await.unwrap();
    assert_eq!(
        page.matches("data-item").count(),
        PLANS,
        "every plan is on the page"
    );
    let floor = sample(&client, &format!("{base}/assets/style.css"), &cookie, n).await;
    let _ = Command::new("kill")
        .arg("-TERM")
        .arg(daemon.id().to_string())
        .status();
    let _ = daemon.wait();

    println!(
        "machine: {} cores; date: {}",
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
    );
    println!(
        "\n| measure | samples | median | p99 | beside (stylesheet, same server) | page size |\n|---|---|---|---|---|---|"
    );
    println!(
        "| dashboard queue page, {PLANS} plans pending, rendered and served | {n} | {} | {} | {} / {} | {} KiB |",
        ms(percentile(&queue, 0.5)),
        ms(percentile(&queue, 0.99)),
        ms(percentile(&floor, 0.5)),
        ms(percentile(&floor, 0.99)),
        page.len() / 1024
    );
}
