//! An MCP client over HTTP, as a remote agent speaks to `/mcp`: JSON-RPC POSTs under the streamable HTTP
//! transport's rules (`Accept` both JSON and event stream, the `Mcp-Session-Id` the server handed out on
//! initialize, answers read from the event stream), each with a bearer token; and a snapshot of the queue's files
//! to show that a refused request changed nothing.

use std::collections::BTreeMap;

use reqwest::StatusCode;
use serde_json::{Value, json};

use super::TempQueue;

/// An MCP session over HTTP.
#[derive(Clone)]
pub(crate) struct HttpClient {
    pub(crate) http: reqwest::Client,
    url: String,
    token: String,
    pub(crate) session: Option<String>,
    /// Sent as `Origin` (as a browser page would): none unless asked.
    origin: Option<String>,
}

impl HttpClient {
    pub(crate) fn new(url: &str, token: &str) -> HttpClient {
        HttpClient {
            http: reqwest::Client::new(),
            url: url.to_owned(),
            token: token.to_owned(),
            session: None,
            origin: None,
        }
    }

    /// The same client, sending `Origin: origin` with every request.
    pub(crate) fn with_origin(mut self, origin: &str) -> HttpClient {
        self.origin = Some(origin.to_owned());
        self
    }

    /// POSTs one JSON-RPC message with the transport's headers.
    pub(crate) async fn post(&self, message: &Value) -> reqwest::Response {
        let mut request = self
            .http
            .post(&self.url)
            .bearer_auth(&self.token)
            .header("Accept", "application/json, text/event-stream")
            .json(message);
        if let Some(session) = &self.session {
            request = request
                .header("Mcp-Session-Id", session)
                .header("MCP-Protocol-Version", "2025-06-18");
        }
        if let Some(origin) = &self.origin {
            request = request.header("Origin", origin);
        }
        request.send().await.unwrap()
    }

    /// Sends a request and returns every message the server answered with (one JSON body, or all of an event
    /// stream's messages: notifications first, the response last) and the response's headers.
    pub(crate) async fn exchange(
        &self,
        id: u64,
        method: &str,
        params: Value,
    ) -> (Vec<Value>, reqwest::header::HeaderMap) {
        let response = self
            .post(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        assert_eq!(response.status(), StatusCode::OK, "{method}");
        let headers = response.headers().clone();
        let kind = headers[reqwest::header::CONTENT_TYPE]
            .to_str()
            .unwrap()
            .to_owned();
        let body = response.text().await.unwrap();
        let messages: Vec<Value> = if kind.starts_with("text/event-stream") {
            body.lines()
                .filter_map(|line| line.strip_prefix("data:"))
                .map(str::trim)
                .filter(|data| !data.is_empty())
                .map(|data| serde_json::from_str(data).unwrap())
                .collect()
        } else {
            vec![serde_json::from_str(&body).unwrap()]
        };
        (messages, headers)
    }

    /// Sends a request and returns the JSON-RPC response with its id, from a JSON body or an event stream.
    pub(crate) async fn request(
        &self,
        id: u64,
        method: &str,
        params: Value,
    ) -> (Value, reqwest::header::HeaderMap) {
        let (messages, headers) = self.exchange(id, method, params).await;
        let response = messages
            .iter()
            .find(|m| m["id"] == json!(id))
            .cloned()
            .unwrap_or_else(|| panic!("no response to {method} in {messages:?}"));
        assert_eq!(response["jsonrpc"], "2.0");
        (response, headers)
    }

    /// initialize, then notifications/initialized; keeps the session id the server gave.
    pub(crate) async fn initialize(&mut self) -> Value {
        let (init, headers) = self
            .request(
                0,
                "initialize",
                json!({
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "remote-agent", "version": "1.0.0"}
                }),
            )
            .await;
        self.session = Some(headers["mcp-session-id"].to_str().unwrap().to_owned());
        let initialized = self
            .post(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        assert_eq!(initialized.status(), StatusCode::ACCEPTED);
        init
    }

    /// Calls a tool and returns its result (`content`, `structuredContent`, `isError`).
    pub(crate) async fn call(&self, id: u64, tool: &str, arguments: Value) -> Value {
        let (response, _) = self
            .request(
                id,
                "tools/call",
                json!({"name": tool, "arguments": arguments}),
            )
            .await;
        assert!(response.get("error").is_none(), "{response}");
        response["result"].clone()
    }

    /// Pushes a plan spec with `arbiter_push`; returns the new plan's id.
    pub(crate) async fn push(&self, id: u64, spec: Value) -> String {
        let pushed = self.call(id, "arbiter_push", spec).await;
        assert_eq!(pushed["isError"], json!(false), "{pushed}");
        pushed["structuredContent"]["id"]
            .as_str()
            .unwrap()
            .to_owned()
    }
}

/// Every file under the queue folder with its bytes.
pub(crate) fn snapshot(q: &TempQueue) -> BTreeMap<String, Vec<u8>> {
    ["pending", "completed", "notify"]
        .into_iter()
        .flat_map(|sub| {
            q.files(sub).into_iter().map(move |name| {
                let bytes = std::fs::read(q.root().join(sub).join(&name)).unwrap();
                (format!("{sub}/{name}"), bytes)
            })
        })
        .collect()
}
