//! `arbiter init` pairing through the real binary against the fake Bot API: the link it prints, the user it adds,
//! and everything that must change nothing (a wrong code, a group, other messages, an expired code, a running
//! daemon, a refused token).

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::Child;
use std::sync::mpsc;
use std::time::Duration;

use arbiter_zebu::fakebot::{BOT_USERNAME, FakeBot, Fault};
use serde_json::{Value, json};

use crate::cli_support::{Arbiter, Output};
use crate::support::TempQueue;
use crate::support::daemon::{OUTSIDER, OWNER, WAIT};

pub const TOKEN: &str = "123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11";
const BOB: i64 = 4242;

/// `arbiter init` pairing, running in the background: its stderr line by line as it comes.
pub struct Pairing {
    child: Child,
    lines: mpsc::Receiver<String>,
    stderr: String,
}

impl Pairing {
    /// Starts `arbiter init ARGS` with ARBITER_HOME `home` (the queue is `q`).
    pub fn start(q: &TempQueue, home: &Path, args: &[&str]) -> Pairing {
        Pairing::spawn(
            Arbiter::new(q)
                .env("ARBITER_HOME", home)
                .env("XDG_CONFIG_HOME", q.root().join("xdg"))
                .args(args),
        )
    }

    /// Starts `command` (an `arbiter init` that pairs).
    pub fn spawn(command: Arbiter) -> Pairing {
        let mut child = command.spawn();
        let stderr = child.stderr.take().expect("stderr pipe");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Pairing {
            child,
            lines,
            stderr: String::new(),
        }
    }

    /// Waits for the link init prints; returns the code in it.
    pub async fn code(&mut self) -> String {
        let deadline = tokio::time::Instant::now() + WAIT;
        let prefix = format!("https://t.me/{BOT_USERNAME}?start=pair-");
        loop {
            while let Ok(line) = self.lines.try_recv() {
                self.stderr.push_str(&line);
                self.stderr.push('\n');
                if let Some(code) = line.trim().strip_prefix(&prefix) {
                    return code.to_owned();
                }
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "no link; stderr so far:\n{}",
                self.stderr
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// Waits for init to end; its whole output (stderr from the start).
    pub async fn finish(self) -> Output {
        let Pairing {
            child,
            lines,
            mut stderr,
        } = self;
        let out = tokio::task::spawn_blocking(move || {
            let out = child.wait_with_output().expect("wait for arbiter");
            for line in lines.iter() {
                stderr.push_str(&line);
                stderr.push('\n');
            }
            Output {
                code: out.status.code(),
                stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
                stderr,
            }
        });
        tokio::time::timeout(WAIT, out)
            .await
            .expect("init ends")
            .expect("join")
    }
}

fn config(home: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(home.join("config.json")).unwrap()).unwrap()
}

fn home_of(q: &TempQueue) -> PathBuf {
    q.root().join("home")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pairing_adds_exactly_the_user_who_sent_the_right_code() {
    let fake = FakeBot::start().await.unwrap();
    let q = TempQueue::new();
    let home = home_of(&q);
    let api_url = fake.api_url();
    let mut init = Pairing::start(
        &q,
        &home,
        &["init", "--token", TOKEN, "--api-url", &api_url],
    );
    let code = init.code().await;
    assert_eq!(code.len(), 10, "{code}");
    assert!(
        code.bytes()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
    );

    // Before the right one: a wrong code, the right code in a group, the bot added to a group, a plain message.
    let wrong = format!("{}x", &code[..9]);
    fake.send_text(BOB, &format!("/start pair-{wrong}"));
    fake.add_group(-1001, "Team", false, BOB);
    fake.send_group_text(-1001, None, BOB, &format!("/start pair-{code}"))
        .unwrap();
    fake.send_text(OUTSIDER, "hello");
    fake.send_text(OWNER, &format!("/start pair-{code}"));
    let out = init.finish().await;

    assert_eq!(out.code, Some(0), "{}\n{}", out.stdout, out.stderr);
    assert!(
        out.stderr.contains(&format!(
            "(or send @{BOT_USERNAME} the message `/start pair-{code}`). The code is valid for 10 minutes."
        )),
        "{}",
        out.stderr
    );
    assert!(
        out.stdout.starts_with(&format!(
            "paired   User {OWNER} (@user{OWNER}), user id {OWNER}: added to telegram.allowedUsers\n"
        )),
        "{}",
        out.stdout
    );
    let config = config(&home);
    assert_eq!(config["telegram"]["allowedUsers"], json!([OWNER]));
    assert_eq!(config["telegram"]["token"], TOKEN);
    assert_eq!(config["telegram"]["apiUrl"], api_url.trim_end_matches('/'));
    // The owner's phone says it worked; nobody else heard from the bot.
    let told = fake.messages(OWNER);
    assert!(
        told.len() == 1 && told[0].plain.starts_with("✅ Paired"),
        "{told:?}"
    );
    assert!(fake.messages(BOB).is_empty() && fake.messages(OUTSIDER).is_empty());
    assert!(fake.messages(-1001).is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_expired_code_writes_nothing() {
    let fake = FakeBot::start().await.unwrap();
    let q = TempQueue::new();
    let home = home_of(&q);
    let api_url = fake.api_url();
    let command = Arbiter::new(&q)
        .env("ARBITER_HOME", &home)
        .env("ARBITER_PAIR_TTL", "2s")
        .args(&["init", "--token", TOKEN, "--api-url", &api_url]);
    let out = tokio::task::spawn_blocking(move || command.run())
        .await
        .unwrap();
    assert_eq!(out.code, Some(1), "{}", out.stdout);
    assert!(
        out.stderr.contains("The code is valid for 2 seconds."),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.ends_with(
            "arbiter: the pairing code expired after 2 seconds with no `/start pair-<code>` from a private chat; \
             nothing was written: run `arbiter init` again\n"
        ),
        "{}",
        out.stderr
    );
    assert_eq!(out.stdout, "");
    assert!(!home.exists());
    assert!(!fake.calls_of("getUpdates").is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_running_daemon_or_a_refused_token_is_refused_with_nothing_written() {
    let fake = FakeBot::start().await.unwrap();
    let api_url = fake.api_url();
    let served = TempQueue::served();
    let home = home_of(&served);
    let init = |q: &TempQueue| {
        Arbiter::new(q).env("ARBITER_HOME", home_of(q)).args(&[
            "init",
            "--token",
            TOKEN,
            "--api-url",
            &api_url,
        ])
    };
    let command = init(&served);
    let out = tokio::task::spawn_blocking(move || command.run())
        .await
        .unwrap();
    assert_eq!(
        (out.code, out.stdout.as_str()),
        (Some(1), ""),
        "{}",
        out.stderr
    );
    assert_eq!(
        out.stderr,
        format!(
            "arbiter: a daemon serves the queue {} (it holds {}): stop it before pairing (systemctl --user stop \
             arbiter), as two readers of the bot's updates fight, or pass --user ID\n",
            served.root().display(),
            served.root().join(".arbiter.lock").display()
        )
    );
    assert!(!home.exists());
    assert!(fake.calls().is_empty(), "{:?}", fake.calls());

    let q = TempQueue::new();
    fake.inject("getMe", Fault::Unauthorized, 1);
    let command = init(&q);
    let out = tokio::task::spawn_blocking(move || command.run())
        .await
        .unwrap();
    assert_eq!(out.code, Some(1));
    assert_eq!(
        out.stderr,
        "arbiter: Telegram refused the bot token: copy it again from @BotFather (/mybots → API Token); nothing \
         was written\n"
    );
    assert!(!home_of(&q).exists());
}
