//! The README's quick start, run as written as far as a test can, against the fake Bot API: the commands are read
//! from README.md (so the page and this test cannot drift apart) and each is run, with these differences:
//! - `cargo install` is not run: the binary under test is the one cargo built.
//! - `arbiter init --systemd` gets `--token` (a test has no terminal to paste it into) and `--api-url` (the fake);
//!   the owner's phone is the fake's user, who sends `/start pair-<code>` as pressing Start on the link does.
//! - `systemctl --user ...` is not run (no user manager here): the README's alternative, `arbiter run`, is; the unit
//!   file init wrote is checked to be there. The dashboard listens on a free port (`web.listen` set to
//!   `127.0.0.1:0` in the config init wrote) so that the test takes no fixed port from anything else running.
//! - `claude "..."` is not run (the real Claude Code against a fake model is tests/claude_code.rs): the hook
//!   command `arbiter hook claude-code install` wrote into `~/.claude/settings.json` is run as Claude Code runs
//!   it, on Claude Code's PermissionRequest input, and the owner allows it from the phone.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use arbiter_zebu::fakebot::{FakeBot, SentMessage};
use serde_json::Value;

use crate::cli_pair::{Pairing, TOKEN};
use crate::cli_support::{Arbiter, Output, collect};
use crate::support::daemon::{OWNER, WAIT};

const PERMISSION_REQUEST: &str = include_str!("fixtures/claude-code/permission-request-bash.json");

/// The commands of the README's quick start block, without their comments.
fn quick_start() -> Vec<String> {
    let readme = include_str!("../README.md");
    let section = readme
        .split("\n## Quick start")
        .nth(1)
        .expect("README has a quick start");
    let block = section
        .split("```sh\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("a sh block");
    block
        .lines()
        .map(|line| line.split(" # ").next().unwrap_or(line).trim().to_owned())
        .filter(|line| !line.is_empty())
        .collect()
}

/// `arbiter ARGS` as the user runs it: HOME is `me`, everything else the default.
fn arbiter(me: &Path) -> Arbiter {
    Arbiter::home(me)
        .env("ARBITER_HOME", me.join(".arbiter"))
        .env("XDG_CONFIG_HOME", me.join(".config"))
}

async fn wait_message(fake: &FakeBot, pred: impl Fn(&SentMessage) -> bool) -> SentMessage {
    let found = fake
        .wait_until(|f| f.messages(OWNER).iter().any(&pred), WAIT)
        .await;
    let chat = fake.messages(OWNER);
    assert!(found, "no such message; chat: {chat:#?}");
    chat.into_iter().rev().find(|m| pred(m)).expect("found")
}

async fn tap(fake: &FakeBot, id: i32, label: &str) {
    let query = fake
        .tap_label(OWNER, id, label)
        .unwrap_or_else(|e| panic!("{e}: {:#?}", fake.messages(OWNER)));
    let answered = fake
        .wait_until(
            |f| f.callback_answers().iter().any(|(q, _, _)| *q == query),
            WAIT,
        )
        .await;
    assert!(answered, "tap {label} never answered");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_readmes_quick_start_reaches_the_owners_phone() {
    let commands = quick_start();
    assert_eq!(
        commands,
        [
            "cargo install --path . --profile dist",
            "arbiter init --systemd",
            "systemctl --user daemon-reload && systemctl --user enable --now arbiter",
            "arbiter hook claude-code install",
            "claude \"run the tests and fix what fails\"",
        ],
        "the README's quick start changed: change this test with it"
    );
    let dir = tempfile::tempdir().unwrap();
    let me = dir.path().join("me");
    std::fs::create_dir_all(&me).unwrap();
    let fake = FakeBot::start().await.unwrap();
    let api_url = fake.api_url();

    // 2. arbiter init --systemd: pairs with the phone.
    let mut init = Pairing::spawn(arbiter(&me).args(&[
        "init",
        "--systemd",
        "--token",
        TOKEN,
        "--api-url",
        &api_url,
    ]));
    let code = init.code().await;
    fake.send_text(OWNER, &format!("/start pair-{code}"));
    let out = init.finish().await;
    assert_eq!(out.code, Some(0), "{out:?}");
    assert!(
        out.stdout.contains(&format!("user id {OWNER}: added")),
        "{out:?}"
    );
    assert!(
        out.stdout
            .contains("systemctl --user daemon-reload && systemctl --user enable --now arbiter"),
        "{}",
        out.stdout
    );
    assert!(me.join(".config/systemd/user/arbiter.service").is_file());

    // 3. The daemon: `arbiter run`, the README's alternative to the unit.
    let config = me.join(".arbiter/config.json");
    let text = std::fs::read_to_string(&config).unwrap();
    assert!(text.contains("\"127.0.0.1:8470\""), "{text}");
    std::fs::write(&config, text.replace("127.0.0.1:8470", "127.0.0.1:0")).unwrap();
    let mark = fake.call_count();
    let _daemon = Killed(arbiter(&me).args(&["run"]).spawn());
    let polling = fake
        .wait_until(
            |f| {
                f.calls_since(mark)
                    .iter()
                    .any(|c| c.method == "getUpdates" && c.params["offset"] != -1)
            },
            WAIT,
        )
        .await;
    assert!(polling, "the daemon never polled");

    // 4. arbiter hook claude-code install.
    let out = arbiter(&me).args(&["hook", "claude-code", "install"]).run();
    assert_eq!(out.code, Some(0), "{out:?}");
    let settings: Value =
        serde_json::from_str(&std::fs::read_to_string(me.join(".claude/settings.json")).unwrap())
            .unwrap();
    let hook = settings["hooks"]["PermissionRequest"][0]["hooks"][0]["command"]
        .as_str()
        .expect("a PermissionRequest hook command")
        .to_owned();

    // 5. The agent's first prompt: Claude Code runs the hook with its PermissionRequest; the phone answers.
    let home = me.clone();
    let asking = tokio::task::spawn_blocking(move || {
        let mut child = Command::new("sh")
            .args(["-c", &hook])
            .env("HOME", &home)
            .env_remove("ARBITER_HOME")
            .env_remove("ARBITER_QUEUE")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run the hook");
        let mut stdin = child.stdin.take().expect("stdin");
        stdin
            .write_all(PERMISSION_REQUEST.as_bytes())
            .expect("hook input");
        drop(stdin);
        collect(child)
    });
    let id = wait_message(&fake, |m| {
        m.plain.contains("npm install left-pad") && m.buttons().iter().any(|b| b.text == "📂 Open")
    })
    .await
    .message_id;
    tap(&fake, id, "📂 Open").await;
    wait_message(&fake, |m| m.message_id == id && m.plain.contains("📄")).await;
    tap(&fake, id, "▶️ Continue").await;
    let question = wait_message(&fake, |m| m.message_id == id && m.plain.contains("1/1")).await;
    let allow = question
        .plain
        .lines()
        .find_map(|l| l.split_once(". ✅ Allow").map(|(letter, _)| letter))
        .unwrap_or_else(|| panic!("no ✅ Allow:\n{}", question.plain))
        .to_owned();
    tap(&fake, id, &allow).await;
    wait_message(&fake, |m| {
        m.message_id == id && m.plain.contains("Tap to edit, or submit")
    })
    .await;
    tap(&fake, id, "📤 Submit").await;
    let out: Output = tokio::time::timeout(WAIT, asking)
        .await
        .expect("the hook answers")
        .unwrap();
    assert_eq!(out.code, Some(0), "{out:?}");
    assert!(
        out.stdout.contains("\"behavior\":\"allow\""),
        "Claude Code reads allow: {out:?}"
    );
}

/// The daemon, stopped however the test ends.
struct Killed(std::process::Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}
