//! A fake Anthropic Messages API on 127.0.0.1 for the real `claude` CLI (`ANTHROPIC_BASE_URL`): every
//! request body is recorded; each request of Claude's main loop (one that offers the `Bash` tool) is answered
//! with the next scripted reply, streamed as Claude Code expects (`message_start`, `content_block_start` /
//! `content_block_delta` / `content_block_stop`, `message_delta` with the stop reason, `message_stop`); any
//! other request (titles, summaries) gets a short text.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

/// One scripted model turn.
#[derive(Debug, Clone)]
pub enum Turn {
    /// Claude calls `name` with `input` (its tool_use id is `id`).
    Tool {
        id: String,
        name: String,
        input: Value,
    },
    /// Claude says `text` and ends its turn.
    Text(String),
    /// Claude writes `content` to its plan file (plan mode; the path is the one the request's system prompt
    /// names), with the `Write` tool (its tool_use id is `id`).
    WritePlan { id: String, content: String },
}

impl Turn {
    #[must_use]
    pub fn tool(id: &str, name: &str, input: Value) -> Turn {
        Turn::Tool {
            id: id.to_owned(),
            name: name.to_owned(),
            input,
        }
    }
}

#[derive(Default)]
struct Shared {
    script: VecDeque<Turn>,
    /// Every request body of the main loop, in order.
    main: Vec<Value>,
    /// Every request: its path and body (for diagnosis).
    all: Vec<(String, Value)>,
    served: usize,
}

/// The running fake. Dropping it stops the server.
pub struct FakeAnthropic {
    pub url: String,
    shared: Arc<Mutex<Shared>>,
    task: tokio::task::JoinHandle<()>,
}

impl FakeAnthropic {
    /// Starts the server with `script` (the main loop's turns, in order; a text "Done." once it runs out).
    pub async fn start(script: Vec<Turn>) -> FakeAnthropic {
        let shared = Arc::new(Mutex::new(Shared {
            script: script.into(),
            ..Shared::default()
        }));
        let app = Router::new()
            .fallback(handle)
            .with_state(Arc::clone(&shared));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind the fake Anthropic API");
        let addr = listener.local_addr().expect("local addr");
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        FakeAnthropic {
            url: format!("http://{addr}"),
            shared,
            task,
        }
    }

    /// Adds turns to the script (for a second `claude` process on the same fake).
    pub fn push(&self, turns: Vec<Turn>) {
        self.lock().script.extend(turns);
    }

    /// The main loop's request bodies so far.
    #[must_use]
    pub fn requests(&self) -> Vec<Value> {
        self.lock().main.clone()
    }

    /// How many scripted turns were served.
    #[must_use]
    pub fn served(&self) -> usize {
        self.lock().served
    }

    /// Waits until the main loop has made `n` requests (at most `timeout`).
    pub async fn wait_requests(&self, n: usize, timeout: Duration) -> bool {
        let start = Instant::now();
        while start.elapsed() < timeout {
            if self.lock().main.len() >= n {
                return true;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        false
    }

    /// The text of the `tool_result` for tool call `id`, as the model received it, once it has (at most
    /// `timeout`).
    pub async fn wait_tool_result(&self, id: &str, timeout: Duration) -> Option<ToolResult> {
        let start = Instant::now();
        while start.elapsed() < timeout {
            if let Some(found) = self.tool_result(id) {
                return Some(found);
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        None
    }

    /// The `tool_result` for tool call `id` in the requests so far.
    #[must_use]
    pub fn tool_result(&self, id: &str) -> Option<ToolResult> {
        self.lock().main.iter().find_map(|body| {
            body["messages"]
                .as_array()?
                .iter()
                .filter_map(|m| m["content"].as_array())
                .flatten()
                .find(|block| block["type"] == "tool_result" && block["tool_use_id"] == id)
                .map(|block| ToolResult {
                    text: text_of(&block["content"]),
                    is_error: block["is_error"].as_bool().unwrap_or(false),
                })
        })
    }

    /// Every path requested, for a failing test's message.
    #[must_use]
    pub fn log(&self) -> String {
        self.lock()
            .all
            .iter()
            .map(|(path, body)| {
                let tools = body["tools"].as_array().map_or(0, Vec::len);
                format!("{path} ({tools} tools)")
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Shared> {
        self.shared.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Drop for FakeAnthropic {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// A tool result as the model read it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolResult {
    pub text: String,
    pub is_error: bool,
}

/// A tool_result's content: a string, or text blocks joined.
fn text_of(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|b| b["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

async fn handle(State(shared): State<Arc<Mutex<Shared>>>, uri: Uri, body: Bytes) -> Response {
    let path = uri.path().to_owned();
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    if path.ends_with("/count_tokens") {
        return axum::Json(json!({"input_tokens": 100})).into_response();
    }
    if !path.ends_with("/v1/messages") {
        shared
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .all
            .push((path, body));
        return (StatusCode::NOT_FOUND, axum::Json(json!({"type": "error", "error": {"type": "not_found_error", "message": "not here"}}))).into_response();
    }
    let is_main = body["tools"]
        .as_array()
        .is_some_and(|tools| tools.iter().any(|t| t["name"] == "Bash"));
    let turn = {
        let mut s = shared.lock().unwrap_or_else(|e| e.into_inner());
        s.all.push((path, body.clone()));
        if is_main {
            s.main.push(body.clone());
            let next = s.script.pop_front();
            if next.is_some() {
                s.served += 1;
            }
            match next {
                Some(Turn::WritePlan { id, content }) => Turn::Tool {
                    id,
                    name: "Write".to_owned(),
                    input: json!({"file_path": plan_file(&body.to_string()), "content": content}),
                },
                Some(turn) => turn,
                None => Turn::Text("Done.".to_owned()),
            }
        } else {
            Turn::Text("A test session".to_owned())
        }
    };
    let model = body["model"]
        .as_str()
        .unwrap_or("claude-sonnet-4-5")
        .to_owned();
    if body["stream"] == true {
        (
            [(header::CONTENT_TYPE, "text/event-stream")],
            stream(&model, &turn),
        )
            .into_response()
    } else {
        axum::Json(message(&model, &turn)).into_response()
    }
}

/// The plan file Claude Code's plan-mode instructions name (`…/.claude/plans/<name>.md`) in `text`.
fn plan_file(text: &str) -> String {
    let Some(at) = text.find("/.claude/plans/") else {
        return "/nonexistent/plan.md".to_owned();
    };
    let stop = |c: char| c.is_whitespace() || c == '"' || c == '\\';
    let start = text[..at].rfind(stop).map_or(0, |i| i + 1);
    let end = text[at..].find(stop).map_or(text.len(), |i| at + i);
    text[start..end].trim_end_matches('.').to_owned()
}

fn usage() -> Value {
    json!({"input_tokens": 100, "output_tokens": 10, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0})
}

/// The whole message, for a request without `stream`.
fn message(model: &str, turn: &Turn) -> Value {
    let (content, stop) = match turn {
        Turn::Tool { id, name, input } => (
            json!([{"type": "tool_use", "id": id, "name": name, "input": input}]),
            "tool_use",
        ),
        Turn::Text(text) => (json!([{"type": "text", "text": text}]), "end_turn"),
        Turn::WritePlan { .. } => unreachable!("a plan write is a Write call by now"),
    };
    json!({"id": "msg_fake", "type": "message", "role": "assistant", "model": model, "content": content,
        "stop_reason": stop, "stop_sequence": null, "usage": usage()})
}

/// The message as server-sent events.
fn stream(model: &str, turn: &Turn) -> String {
    let mut events = vec![
        json!({"type": "message_start", "message": {"id": "msg_fake", "type": "message",
        "role": "assistant", "model": model, "content": [], "stop_reason": null, "stop_sequence": null,
        "usage": usage()}}),
    ];
    let stop = match turn {
        Turn::Tool { id, name, input } => {
            events.push(json!({"type": "content_block_start", "index": 0,
                "content_block": {"type": "tool_use", "id": id, "name": name, "input": {}}}));
            events.push(json!({"type": "content_block_delta", "index": 0,
                "delta": {"type": "input_json_delta", "partial_json": input.to_string()}}));
            "tool_use"
        }
        Turn::WritePlan { .. } => unreachable!("a plan write is a Write call by now"),
        Turn::Text(text) => {
            events.push(json!({"type": "content_block_start", "index": 0,
                "content_block": {"type": "text", "text": ""}}));
            events.push(json!({"type": "content_block_delta", "index": 0,
                "delta": {"type": "text_delta", "text": text}}));
            "end_turn"
        }
    };
    events.push(json!({"type": "content_block_stop", "index": 0}));
    events.push(
        json!({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": null},
        "usage": {"output_tokens": 10}}),
    );
    events.push(json!({"type": "message_stop"}));
    events
        .iter()
        .map(|e| {
            format!(
                "event: {}\ndata: {e}\n\n",
                e["type"].as_str().unwrap_or("ping")
            )
        })
        .collect()
}
