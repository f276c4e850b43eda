//! `arbiter mcp` spoken to over its stdin/stdout as an MCP client would: newline-delimited JSON-RPC.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{Value, json};

use crate::support::TempQueue;
use crate::support::owner::Owner;

/// A running `arbiter mcp` and the JSON lines it wrote.
pub(crate) struct Client {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
    next_id: u64,
}

impl Client {
    pub(crate) fn start(q: &TempQueue) -> Client {
        let mut child = Command::new(env!("CARGO_BIN_EXE_arbiter"))
            .arg("--queue")
            .arg(q.root())
            .arg("mcp")
            .env_remove("ARBITER_QUEUE")
            .env_remove("ARBITER_HOME")
            .env("HOME", q.root())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Client {
            stdin: child.stdin.take(),
            child,
            lines,
            next_id: 1,
        }
    }

    pub(crate) fn send(&mut self, message: &Value) {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{message}").unwrap();
        stdin.flush().unwrap();
    }

    /// Sends a request and returns the response with its id; every line on stdout must be JSON-RPC.
    pub(crate) fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let line = self
                .lines
                .recv_timeout(Duration::from_secs(30))
                .expect("a response within 30 s");
            let message: Value = serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {line}"));
            assert_eq!(message["jsonrpc"], "2.0", "{line}");
            if message["id"] == json!(id) {
                return message;
            }
        }
    }

    /// Calls a tool and returns its result (`content`, `structuredContent`, `isError`).
    fn call(&mut self, tool: &str, arguments: Value) -> Value {
        let response = self.request("tools/call", json!({"name": tool, "arguments": arguments}));
        assert!(response.get("error").is_none(), "{response}");
        response["result"].clone()
    }
}

fn error_text(result: &Value) -> &str {
    assert_eq!(result["isError"], json!(true), "{result}");
    result["content"][0]["text"].as_str().unwrap()
}

#[test]
fn push_get_await_over_stdio() {
    let q = TempQueue::new();
    let mut mcp = Client::start(&q);
    let init = mcp.request(
        "initialize",
        json!({
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "test-client", "version": "1.0.0"}
        }),
    );
    let result = &init["result"];
    assert_eq!(result["protocolVersion"], "2025-06-18", "{init}");
    assert_eq!(result["serverInfo"]["name"], "arbiter");
    assert!(result["capabilities"]["tools"].is_object(), "{init}");
    mcp.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));

    let tools = mcp.request("tools/list", json!({}));
    let tools = tools["result"]["tools"].as_array().unwrap().clone();
    let mut names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            "arbiter_await",
            "arbiter_get",
            "arbiter_list",
            "arbiter_notifications",
            "arbiter_push",
            "arbiter_status",
            "arbiter_withdraw"
        ]
    );
    let schema = |name: &str| {
        tools
            .iter()
            .find(|t| t["name"] == name)
            .map(|t| t["inputSchema"].clone())
            .unwrap()
    };
    let push = schema("arbiter_push");
    assert_eq!(push["type"], "object");
    // A plan spec, an MCP elicitation request, or a decision file's text.
    assert_eq!(
        push["anyOf"],
        json!([{"required": ["title", "decisions"]}, {"required": ["message", "requestedSchema"]},
               {"required": ["markdown"]}])
    );
    assert!(push["properties"]["requestedSchema"].is_object(), "{push}");
    assert!(push["properties"]["decisions"].is_object(), "{push}");
    assert_eq!(schema("arbiter_get")["required"], json!(["id"]));
    assert!(schema("arbiter_await")["properties"]["timeout_seconds"].is_object());

    let pushed = mcp.call(
        "arbiter_push",
        json!({
            "title": "Ship it?", "agent": "mcp-agent", "priority": "high",
            "decisions": [{"title": "Release now", "options": [{"key": "yes"}, {"key": "no", "label": "Wait"}]}]
        }),
    );
    assert_eq!(pushed["isError"], json!(false), "{pushed}");
    let id = pushed["structuredContent"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let name = format!("mcp-agent-ship-it-{id}.md");
    assert_eq!(q.files("pending"), std::slice::from_ref(&name));
    assert_eq!(
        pushed["structuredContent"]["path"],
        json!(q.root().join("pending").join(&name))
    );

    let got = mcp.call("arbiter_get", json!({"id": id}));
    let state = &got["structuredContent"];
    assert_eq!(
        (&state["status"], &state["priority"], &state["total"]),
        (&json!("pending"), &json!("high"), &json!(1))
    );
    assert_eq!(state["decisions"][0]["id"], "release-now");
    assert_eq!(state["answers"], json!({"release-now": null}));
    let status = mcp.call("arbiter_status", json!({"id": id}));
    assert_eq!(status["structuredContent"]["remaining"], json!(1));

    let waited = mcp.call("arbiter_await", json!({"id": id, "timeout_seconds": 1}));
    assert_eq!(waited["isError"], json!(false), "{waited}");
    assert_eq!(waited["structuredContent"]["status"], "pending");
    assert_eq!(
        waited["structuredContent"]["message"],
        "not completed after 1s; call arbiter_await again"
    );

    let again = mcp.call(
        "arbiter_push",
        json!({"id": id, "title": "T", "decisions": [{"title": "A"}]}),
    );
    assert_eq!(
        error_text(&again),
        format!(
            "a plan with id `{id}` is already pending ({}); pick another id or leave it out",
            q.root().join("pending").join(&name).display()
        )
    );

    let owner = Owner::new(q.root());
    owner.answer(&id, "release-now", "yes");
    owner.submit(&id);
    let done = mcp.call("arbiter_await", json!({"id": id, "timeout_seconds": 30}));
    assert_eq!(done["structuredContent"]["status"], "completed");
    assert_eq!(
        done["structuredContent"]["answers"],
        json!({"release-now": "yes"})
    );

    // An agent that moved on takes its question back: on the record, and an await on it says so at once.
    let second = mcp.call(
        "arbiter_push",
        json!({"title": "Later", "agent": "mcp-agent", "decisions": [{"title": "A", "options": [{"key": "x"}]}]}),
    );
    let second = second["structuredContent"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let gone = mcp.call(
        "arbiter_withdraw",
        json!({"id": second, "reason": "the user answered in the terminal"}),
    );
    assert_eq!(gone["isError"], json!(false), "{gone}");
    assert_eq!(gone["structuredContent"]["status"], "withdrawn");
    assert_eq!(gone["structuredContent"]["withdrawn_by"], "agent:mcp-agent");
    assert_eq!(
        gone["structuredContent"]["withdraw_reason"],
        "the user answered in the terminal"
    );
    let waited = mcp.call(
        "arbiter_await",
        json!({"id": second, "timeout_seconds": 30}),
    );
    assert_eq!(waited["structuredContent"]["status"], "withdrawn");
    let again = mcp.call("arbiter_withdraw", json!({"id": second}));
    assert_eq!(
        error_text(&again),
        format!("plan `{second}` is not pending (withdrawn): nothing to withdraw")
    );

    // Failures are tool errors with the CLI's messages, and the server keeps serving.
    let unknown = mcp.call("arbiter_get", json!({"id": "nope"}));
    assert_eq!(error_text(&unknown), "no plan with id `nope` in the queue");
    let unknown = mcp.call("arbiter_await", json!({"id": "nope", "timeout_seconds": 5}));
    assert_eq!(error_text(&unknown), "no plan with id `nope` in the queue");
    let bad = mcp.call(
        "arbiter_push",
        json!({"title": "T", "colour": "red", "decisions": []}),
    );
    assert!(
        error_text(&bad).starts_with("unknown field `colour`, expected one of `id`, `title`"),
        "{bad}"
    );
    let bad = mcp.call(
        "arbiter_push",
        json!({"title": "T", "priority": "asap", "decisions": [{"title": "A"}]}),
    );
    assert_eq!(
        error_text(&bad),
        "priority: unknown priority `asap`: use low, normal, high or urgent"
    );

    // People: approvers and require are written into the plan; get reports them with the sign-offs and notes.
    let pushed = mcp.call(
        "arbiter_push",
        json!({
            "title": "Two keys", "agent": "mcp-agent", "approvers": ["alice", 11111111], "require": 2,
            "decisions": [{"title": "Release now", "options": [{"key": "yes"}]}]
        }),
    );
    assert_eq!(pushed["isError"], json!(false), "{pushed}");
    assert!(push["properties"]["approvers"].is_object(), "{push}");
    assert!(push["properties"]["require"].is_object(), "{push}");
    let id = pushed["structuredContent"]["id"].as_str().unwrap();
    let path = pushed["structuredContent"]["path"].as_str().unwrap();
    let text = std::fs::read_to_string(path).unwrap();
    assert!(
        text.contains("approvers: [alice, 11111111]\nrequire: 2\n"),
        "{text}"
    );
    let got = mcp.call("arbiter_get", json!({"id": id}));
    let state = &got["structuredContent"];
    assert_eq!(
        (&state["require"], &state["signoffs"]),
        (&json!(2), &json!([]))
    );
    assert_eq!(state["decisions"][0]["note"], json!(null));
    assert_eq!(state["decisions"][0]["delegated_to"], json!(null));

    // Closing stdin ends the server cleanly.
    drop(mcp.stdin.take());
    let status = mcp.child.wait().unwrap();
    assert!(status.success(), "{status}");
}
