//! `arbiter acp` against a small agent that can misbehave (tests/fixtures/acp/fake_agent.py) and a raw editor
//! (this test, writing and reading the JSON lines itself, so it sees what a library would hide): the phone answers
//! with the agent's own option and the editor's copy gets `$/cancel_request`, a late editor answer is dropped;
//! lines that are not JSON-RPC, unknown methods and answers to nobody are passed on with one line on stderr; an
//! agent that exits mid-turn and an editor that closes leave no plan pending; a hook under the relay steps aside.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::coding_agents::{submit, tap_option};
use crate::support::TempQueue;
use crate::support::daemon::Running;

const WAIT: Duration = Duration::from_secs(60);

struct Relay {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
    seen: Vec<Value>,
    dir: tempfile::TempDir,
}

impl Relay {
    fn start(queue: &Path) -> Relay {
        let dir = tempfile::tempdir().unwrap();
        let agent = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/acp/fake_agent.py");
        let mut child = Command::new(env!("CARGO_BIN_EXE_arbiter"))
            .arg("--queue")
            .arg(queue)
            .args(["acp", "--phone-after", "0s", "--", "python3"])
            .arg(agent)
            .arg("--log")
            .arg(dir.path().join("agent.log"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(dir.path().join("stderr")).unwrap())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
        Relay {
            stdin: child.stdin.take(),
            child,
            lines,
            seen: Vec::new(),
            dir,
        }
    }

    fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
    }

    /// The first line from the relay `pred` holds (every line is kept in `seen`).
    fn expect(&mut self, pred: impl Fn(&Value) -> bool) -> Value {
        if let Some(v) = self.seen.iter().find(|v| pred(v)) {
            return v.clone();
        }
        let start = Instant::now();
        while start.elapsed() < WAIT {
            if let Ok(line) = self.lines.recv_timeout(Duration::from_millis(200)) {
                let value: Value = serde_json::from_str(&line).unwrap_or(Value::String(line));
                self.seen.push(value.clone());
                if pred(&value) {
                    return value;
                }
            }
        }
        panic!(
            "no such line; seen: {:?}\nstderr: {}",
            self.seen,
            self.stderr()
        );
    }

    fn stderr(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("stderr")).unwrap_or_default()
    }

    fn agent_log(&self) -> String {
        std::fs::read_to_string(self.agent_log_path()).unwrap_or_default()
    }

    fn agent_log_path(&self) -> PathBuf {
        self.dir.path().join("agent.log")
    }

    fn open_session(&mut self) {
        self.send(
            r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}"#,
        );
        self.expect(|v| v["id"] == 0 && v["result"]["agentInfo"]["name"] == "fake-agent");
        self.send(r#"{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/tmp/shop","mcpServers":[]}}"#);
        self.expect(|v| v["id"] == 1 && v["result"]["sessionId"] == "sess-1");
    }

    fn prompt(&mut self, id: u32, text: &str) {
        let line = json!({"jsonrpc": "2.0", "id": id, "method": "session/prompt",
            "params": {"sessionId": "sess-1", "prompt": [{"type": "text", "text": text}]}});
        self.send(&line.to_string());
    }

    /// Waits (at most `WAIT`) for the relay to exit.
    fn exited(&mut self) -> Option<i32> {
        let start = Instant::now();
        while start.elapsed() < WAIT {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status.code();
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        None
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_phone_answers_with_the_agents_own_option_and_a_late_editor_answer_is_dropped() {
    let d = Running::start(TempQueue::new()).await;
    let mut relay = Relay::start(d.queue.root());
    relay.open_session();
    relay.prompt(2, "ask");
    relay.expect(|v| v["method"] == "session/request_permission" && v["id"] == "perm-1");
    let shown = d.open_announced("touch x.txt").await;
    assert!(shown.plain.contains("Fake Agent"), "{}", shown.plain);
    d.tap(shown.message_id, "▶️ Continue").await;
    let decision = d
        .wait_message(|m| m.message_id == shown.message_id && m.plain.contains("1/1 ·"))
        .await;
    tap_option(&d, &decision, "✅ Allow once").await;
    submit(&d).await;
    relay.expect(|v| v["method"] == "$/cancel_request" && v["params"]["requestId"] == "perm-1");
    relay.expect(|v| v["id"] == 2 && v["result"]["stopReason"] == "end_turn");
    relay.expect(|v| v["params"]["update"]["content"]["text"] == "chose: yes");
    // The editor's answer comes late: dropped, never the agent's.
    relay.send(r#"{"jsonrpc":"2.0","id":"perm-1","result":{"outcome":{"outcome":"selected","optionId":"no"}}}"#);
    relay.prompt(3, "more");
    relay.expect(|v| v["id"] == 3);
    assert!(
        !relay.agent_log().contains(r#""optionId": "no""#),
        "{}",
        relay.agent_log()
    );
    assert!(
        !relay.agent_log().contains(r#""optionId":"no""#),
        "{}",
        relay.agent_log()
    );
    assert!(
        relay
            .stderr()
            .contains("after the phone did: its answer is dropped"),
        "{}",
        relay.stderr()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lines_that_are_not_json_rpc_unknown_methods_and_answers_to_nobody_are_passed_on() {
    let queue = TempQueue::new();
    let mut relay = Relay::start(queue.root());
    relay.send("this is not json");
    relay.expect(|v| v["error"]["code"] == -32700);
    relay.send(r#"{"jsonrpc":"2.0","id":7,"method":"made/up","params":{}}"#);
    relay.expect(|v| v["id"] == 7 && v["error"]["code"] == -32601);
    relay.send(r#"{"jsonrpc":"2.0","id":99,"result":{}}"#);
    relay.open_session();
    let said = relay.stderr();
    assert!(said.contains("a plain relay"), "{said}");
    assert!(said.contains("is not JSON-RPC (not JSON"), "{said}");
    assert!(
        said.contains("answered request 99, which the agent has not made"),
        "{said}"
    );
    assert!(
        relay.agent_log().contains("this is not json"),
        "passed on unchanged"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_that_exits_mid_turn_leaves_no_plan_pending() {
    let d = Running::start(TempQueue::new()).await;
    let mut relay = Relay::start(d.queue.root());
    relay.open_session();
    relay.prompt(2, "exit");
    let shown = d.wait_message(|m| m.plain.contains("touch x.txt")).await;
    let answer = relay.expect(|v| v["id"] == 2);
    assert_eq!(answer["error"]["code"], -32603, "{answer}");
    assert_eq!(relay.exited(), Some(3), "{}", relay.stderr());
    let start = Instant::now();
    while !d.queue.files("pending").is_empty() && start.elapsed() < WAIT {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(
        d.queue.files("pending").is_empty(),
        "{:?}",
        d.queue.files("pending")
    );
    d.wait_message(|m| {
        m.message_id == shown.message_id && m.plain.contains("the agent's process ended")
    })
    .await;
    crate::support::assert_withdrawn(&d.queue, "the agent's process ended");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_editor_that_closes_withdraws_the_plan_it_left() {
    let d = Running::start(TempQueue::new()).await;
    let mut relay = Relay::start(d.queue.root());
    relay.open_session();
    relay.prompt(2, "ask");
    let shown = d.wait_message(|m| m.plain.contains("touch x.txt")).await;
    relay.stdin = None;
    assert!(relay.exited().is_some(), "{}", relay.stderr());
    d.wait_message(|m| {
        m.message_id == shown.message_id && m.plain.contains("the editor closed the connection")
    })
    .await;
    crate::support::assert_withdrawn(&d.queue, "the editor closed the connection");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hook_under_the_relay_steps_aside() {
    let d = Running::start(TempQueue::new()).await;
    let input = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/agents/codex/PermissionRequest.json"),
    )
    .unwrap();
    let mut hook = Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .arg("--queue")
        .arg(d.queue.root())
        .args(["hook", "codex"])
        .env("ARBITER_ACP", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    hook.stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = hook.wait_with_output().unwrap();
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("runs under `arbiter acp`"), "{stderr}");
    assert!(d.queue.files("pending").is_empty() && d.queue.files("completed").is_empty());
    assert!(d.chat().is_empty(), "{}", d.transcript());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_editors_session_cancel_withdraws_the_sessions_plans() {
    let d = Running::start(TempQueue::new()).await;
    let mut relay = Relay::start(d.queue.root());
    relay.open_session();
    relay.prompt(2, "ask");
    let shown = d.wait_message(|m| m.plain.contains("touch x.txt")).await;
    relay.send(r#"{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"sess-1"}}"#);
    d.wait_message(|m| {
        m.message_id == shown.message_id && m.plain.contains("the editor cancelled the turn")
    })
    .await;
    crate::support::assert_withdrawn(&d.queue, "the editor cancelled the turn");
    assert!(
        relay.agent_log().contains("session/cancel"),
        "passed on to the agent"
    );
}
