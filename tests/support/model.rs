//! A fake model API on 127.0.0.1 for the coding agents' real CLIs, in the wire each one speaks: OpenAI Responses
//! (Codex), Chat Completions (Qwen Code, Copilot CLI), Gemini's `streamGenerateContent` (Gemini CLI) and Anthropic
//! Messages (Claude Code in `-p` mode; its interactive tests use `anthropic.rs`, which also scripts plan mode). Every
//! request body is recorded; each request of the agent's main loop (one that offers the agent's shell tool) is
//! answered with the next scripted turn, streamed as that wire streams it (`model/wire.rs`); any other request
//! (a title, a summary, an automatic reviewer) gets a short text.

mod wire;

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{Method, Uri, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

/// The API an agent speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wire {
    /// OpenAI Responses (`POST /v1/responses`, server-sent events).
    Responses,
    /// OpenAI Chat Completions (`POST /v1/chat/completions`).
    Chat,
    /// Gemini (`POST /v1beta/models/M:streamGenerateContent?alt=sse`, and `:generateContent`).
    Gemini,
    /// Anthropic Messages (`POST /v1/messages`).
    Anthropic,
}

/// One scripted model turn.
#[derive(Debug, Clone)]
pub enum Turn {
    /// The model calls tool `name` with `args` (its call id is `id`).
    Tool {
        id: String,
        name: String,
        args: Value,
    },
    /// The model says `text` and ends its turn.
    Text(String),
}

#[derive(Default)]
struct Shared {
    script: VecDeque<Turn>,
    /// Every request body of the main loop, in order.
    main: Vec<Value>,
    /// Every request: its method, path and body (for a failing test's message).
    all: Vec<(String, Value)>,
    /// The tool of each call served, by call id (Gemini's answers name the tool, not our id).
    calls: HashMap<String, String>,
}

/// The running fake. Dropping it stops the server.
pub struct FakeModel {
    pub url: String,
    wire: Wire,
    shared: Arc<Mutex<Shared>>,
    task: tokio::task::JoinHandle<()>,
}

#[derive(Clone)]
struct App {
    wire: Wire,
    main_tool: String,
    shared: Arc<Mutex<Shared>>,
}

impl FakeModel {
    /// Starts the server for `wire`; requests offering `main_tool` get `script`'s turns in order (a text "Done."
    /// once it runs out).
    pub async fn start(wire: Wire, main_tool: &str, script: Vec<Turn>) -> FakeModel {
        let shared = Arc::new(Mutex::new(Shared {
            script: script.into(),
            ..Shared::default()
        }));
        let app = App {
            wire,
            main_tool: main_tool.to_owned(),
            shared: Arc::clone(&shared),
        };
        let router = Router::new().fallback(handle).with_state(app);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind the fake model API");
        let addr = listener.local_addr().expect("local addr");
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, router).await;
        });
        FakeModel {
            url: format!("http://{addr}"),
            wire,
            shared,
            task,
        }
    }

    /// Adds turns to the script (ones that name a path known only once the project exists).
    pub fn push(&self, turns: Vec<Turn>) {
        self.lock().script.extend(turns);
    }

    /// The main loop's request bodies so far.
    #[must_use]
    pub fn requests(&self) -> Vec<Value> {
        self.lock().main.clone()
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

    /// The output of tool call `id` as the model received it, in any request so far.
    #[must_use]
    pub fn tool_output(&self, id: &str) -> Option<String> {
        let s = self.lock();
        let name = s.calls.get(id).cloned().unwrap_or_default();
        s.main
            .iter()
            .find_map(|body| wire::tool_output(self.wire, body, id, &name))
    }

    /// The last message of main-loop request `n` (0-based): its role (`user`, `assistant`, `tool`) and text.
    #[must_use]
    pub fn last_message(&self, n: usize) -> Option<(String, String)> {
        let s = self.lock();
        wire::last_message(self.wire, s.main.get(n)?)
    }

    /// Every request, for a failing test's message.
    #[must_use]
    pub fn log(&self) -> String {
        let s = self.lock();
        let mut out: Vec<String> = s
            .all
            .iter()
            .map(|(path, body)| format!("{path} {}", wire::tool_names(body).join(",")))
            .collect();
        if let Some(last) = s.main.last() {
            out.push(format!("last main request: {last}"));
        }
        out.join("\n")
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Shared> {
        self.shared.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Drop for FakeModel {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn handle(State(app): State<App>, method: Method, uri: Uri, body: Bytes) -> Response {
    let path = uri.path().to_owned();
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    if method == Method::GET {
        return axum::Json(json!({"object": "list", "data": [], "models": []})).into_response();
    }
    if path.ends_with(":countTokens") || path.ends_with("/count_tokens") {
        return axum::Json(json!({"totalTokens": 10, "input_tokens": 10})).into_response();
    }
    let is_main = wire::tool_names(&body).contains(&app.main_tool.as_str());
    let turn = {
        let mut s = app.shared.lock().unwrap_or_else(|e| e.into_inner());
        s.all.push((format!("{method} {uri}"), body.clone()));
        if is_main {
            s.main.push(body.clone());
            let turn = s
                .script
                .pop_front()
                .unwrap_or_else(|| Turn::Text("Done.".to_owned()));
            if let Turn::Tool { id, name, .. } = &turn {
                s.calls.insert(id.clone(), name.clone());
            }
            turn
        } else {
            Turn::Text("A test session".to_owned())
        }
    };
    let n = app.shared.lock().map_or(0, |s| s.all.len());
    let streamed = match app.wire {
        Wire::Gemini => path.contains(":streamGenerateContent"),
        Wire::Responses | Wire::Chat | Wire::Anthropic => body["stream"] == true,
    };
    if streamed {
        (
            [
                (header::CONTENT_TYPE, "text/event-stream"),
                (header::CACHE_CONTROL, "no-cache"),
            ],
            wire::events(app.wire, &turn, n),
        )
            .into_response()
    } else {
        axum::Json(wire::whole(app.wire, &turn, n)).into_response()
    }
}
