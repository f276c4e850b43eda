//! MCP over HTTP (`arbiter_zebu::mcp::http::router`) spoken to as a remote MCP client would: JSON-RPC POSTs
//! under the streamable HTTP transport's rules (`Accept` both JSON and event stream, the `Mcp-Session-Id` the
//! server handed out on initialize, answers read from the event stream), each with a bearer token.

use std::collections::BTreeMap;

use arbiter_zebu::config::SecretToken;
use arbiter_zebu::queue::Queue;
use reqwest::StatusCode;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use crate::mcp::Client as StdioClient;
use crate::support::TempQueue;
use crate::support::mcp_http::{HttpClient, snapshot};
use crate::support::owner::Owner;

const BUILDER_TOKEN: &str = "builder-token-6d1f0c";
const REVIEWER_TOKEN: &str = "reviewer-token-93ab27";

/// The MCP router served on 127.0.0.1 as the docs say to mount it, with two agents' tokens.
struct Served {
    /// The `/mcp` URL.
    url: String,
    stop: CancellationToken,
    server: tokio::task::JoinHandle<std::io::Result<()>>,
}

async fn serve_router(q: &TempQueue) -> Served {
    let tokens = BTreeMap::from([
        ("builder".to_owned(), SecretToken::new(BUILDER_TOKEN)),
        ("reviewer".to_owned(), SecretToken::new(REVIEWER_TOKEN)),
    ]);
    let queue = Queue::open(q.root(), true).unwrap();
    let stop = CancellationToken::new();
    let app = axum::Router::new().merge(arbiter_zebu::mcp::http::router(
        queue,
        &tokens,
        None,
        None,
        stop.clone(),
    ));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let server = tokio::spawn(
        axum::serve(listener, app)
            .with_graceful_shutdown(stop.clone().cancelled_owned())
            .into_future(),
    );
    Served {
        url: format!("http://{addr}/mcp"),
        stop,
        server,
    }
}

async fn serve(q: &TempQueue) -> String {
    serve_router(q).await.url
}

fn answer_and_submit(q: &TempQueue, id: &str) {
    let owner = Owner::new(q.root());
    owner.answer(id, "release-now", "yes");
    owner.submit(id);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn push_get_await_over_http_as_the_tokens_agent() {
    let q = TempQueue::new();
    let url = serve(&q).await;
    let mut mcp = HttpClient::new(&url, BUILDER_TOKEN);
    let init = mcp.initialize().await;
    assert_eq!(init["result"]["protocolVersion"], "2025-06-18", "{init}");
    assert_eq!(init["result"]["serverInfo"]["name"], "arbiter");
    assert!(
        init["result"]["capabilities"]["tools"].is_object(),
        "{init}"
    );

    // The same tools, with the same schemas, as `arbiter mcp` on stdio.
    let (tools, _) = mcp.request(1, "tools/list", json!({})).await;
    let stdio_tools = tokio::task::spawn_blocking(|| {
        let mut stdio = StdioClient::start(&TempQueue::new());
        stdio.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "test-client", "version": "1.0.0"}}),
        );
        stdio.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        stdio.request("tools/list", json!({}))
    })
    .await
    .unwrap();
    assert_eq!(tools["result"], stdio_tools["result"]);
    let mut names: Vec<&str> = tools["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
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

    // No `agent` in the spec: the plan is the token's agent's.
    let id = mcp.push(2, json!({
                "title": "Ship it?", "priority": "high",
                "decisions": [{"title": "Release now", "options": [{"key": "yes"}, {"key": "no", "label": "Wait"}]}]
            })).await;
    let name = format!("builder-ship-it-{id}.md");
    assert_eq!(q.files("pending"), std::slice::from_ref(&name));
    assert!(
        q.read("pending", &name).contains("\nagent: builder\n"),
        "{}",
        q.read("pending", &name)
    );

    let got = mcp.call(3, "arbiter_get", json!({"id": id})).await;
    assert_eq!(got["structuredContent"]["status"], "pending");
    assert_eq!(
        got["structuredContent"]["answers"],
        json!({"release-now": null})
    );
    let status = mcp.call(4, "arbiter_status", json!({"id": id})).await;
    assert_eq!(status["structuredContent"]["remaining"], json!(1));

    // An await in flight sees the answer the owner gives on disk, through the same edit path as the daemon.
    let waiting = tokio::spawn({
        let mcp = mcp.clone();
        let id = id.clone();
        async move {
            mcp.call(
                5,
                "arbiter_await",
                json!({"id": id, "timeout_seconds": 120}),
            )
            .await
        }
    });
    answer_and_submit(&q, &id);
    let done = waiting.await.unwrap();
    assert_eq!(done["isError"], json!(false), "{done}");
    assert_eq!(done["structuredContent"]["status"], "completed");
    assert_eq!(
        done["structuredContent"]["answers"],
        json!({"release-now": "yes"})
    );
    let got = mcp.call(6, "arbiter_get", json!({"id": id})).await;
    assert_eq!(got["structuredContent"], done["structuredContent"]);

    // An `agent` the spec gives wins over the token's name; another token names another agent.
    let named = &mcp
        .push(
            7,
            json!({"title": "Named", "agent": "nightly", "decisions": [{"title": "A"}]}),
        )
        .await;
    let mut reviewer = HttpClient::new(&url, REVIEWER_TOKEN);
    reviewer.initialize().await;
    let reviewed = &reviewer
        .push(1, json!({"title": "Review", "decisions": [{"title": "A"}]}))
        .await;
    assert_eq!(
        q.files("pending"),
        [
            format!("nightly-named-{named}.md"),
            format!("reviewer-review-{reviewed}.md")
        ]
    );

    // Tool failures are tool errors with the CLI's messages, as on stdio.
    let unknown = mcp.call(8, "arbiter_get", json!({"id": "nope"})).await;
    assert_eq!(unknown["isError"], json!(true));
    assert_eq!(
        unknown["content"][0]["text"],
        "no plan with id `nope` in the queue"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn arbiter_await_reports_progress_while_the_human_has_not_answered() {
    let q = TempQueue::new();
    let url = serve(&q).await;
    let mut mcp = HttpClient::new(&url, BUILDER_TOKEN);
    mcp.initialize().await;
    let id = mcp
        .push(
            1,
            json!({"title": "T", "decisions": [{"title": "A"}, {"title": "B"}]}),
        )
        .await;
    let is_progress = |m: &&Value| m["method"] == "notifications/progress";

    // A client that gives a progressToken hears at once that the human has not answered yet.
    let (messages, _) = mcp
        .exchange(
            2,
            "tools/call",
            json!({"name": "arbiter_await", "arguments": {"id": id, "timeout_seconds": 1},
                   "_meta": {"progressToken": "wait-1"}}),
        )
        .await;
    let progress: Vec<&Value> = messages.iter().filter(is_progress).collect();
    assert!(!progress.is_empty(), "{messages:?}");
    assert_eq!(
        progress[0]["params"],
        json!({"progressToken": "wait-1", "progress": 0.0, "total": 1.0,
               "message": "waiting for the human: 0 of 2 decisions answered, not submitted yet"})
    );
    let result = &messages.last().unwrap()["result"];
    assert_eq!(result["structuredContent"]["status"], "pending", "{result}");

    // Without one, nothing but the result.
    let (messages, _) = mcp
        .exchange(
            3,
            "tools/call",
            json!({"name": "arbiter_await", "arguments": {"id": id, "timeout_seconds": 1}}),
        )
        .await;
    assert_eq!(
        messages.iter().filter(is_progress).count(),
        0,
        "{messages:?}"
    );
    assert_eq!(messages.len(), 1, "{messages:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_or_wrong_token_gets_a_bare_401_and_changes_nothing() {
    let q = TempQueue::new();
    q.drop_plan(
        "tester-plan-p1.md",
        &crate::support::plan_with("p1", "s", 1),
    );
    let before = snapshot(&q);
    let url = serve(&q).await;
    let mut good = HttpClient::new(&url, BUILDER_TOKEN);
    good.initialize().await;

    let push = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "arbiter_push", "arguments": {"title": "Sneaky", "decisions": [{"title": "A"}]}}});
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "x", "version": "1"}}});
    let http = reqwest::Client::new();
    let session = good.session.clone().unwrap();
    let authorizations: [Option<String>; 6] = [
        None,
        Some(format!("Bearer {BUILDER_TOKEN}x")),
        Some("Bearer reviewer".to_owned()),
        Some(format!("Basic {BUILDER_TOKEN}")),
        Some(BUILDER_TOKEN.to_owned()),
        Some("Bearer ".to_owned()),
    ];
    for authorization in &authorizations {
        for (method, body) in [
            ("POST", &push),
            ("POST", &initialize),
            ("GET", &json!(null)),
            ("DELETE", &json!(null)),
        ] {
            // Also with the session a good token opened: the session is no key.
            let mut request = http
                .request(method.parse().unwrap(), &url)
                .header("Accept", "application/json, text/event-stream")
                .header("Mcp-Session-Id", &session)
                .header("MCP-Protocol-Version", "2025-06-18");
            if method == "POST" {
                request = request.json(body);
            }
            if let Some(value) = authorization {
                request = request.header("Authorization", value);
            }
            let response = request.send().await.unwrap();
            assert_eq!(
                response.status(),
                StatusCode::UNAUTHORIZED,
                "{method} with {authorization:?}"
            );
            assert!(response.headers().get("mcp-session-id").is_none());
            assert_eq!(
                response.text().await.unwrap(),
                "",
                "{method} with {authorization:?}"
            );
        }
    }
    assert_eq!(snapshot(&q), before);

    // The session the refused requests named is still there for its owner.
    let got = good.call(2, "arbiter_get", json!({"id": "p1"})).await;
    assert_eq!(got["structuredContent"]["status"], "pending", "{got}");
    assert_eq!(snapshot(&q), before);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stopping_ends_open_streams_so_the_server_shuts_down() {
    let q = TempQueue::new();
    let served = serve_router(&q).await;
    let mut mcp = HttpClient::new(&served.url, BUILDER_TOKEN);
    mcp.initialize().await;
    // The server's own event stream (GET), which stays open while the session lives.
    let stream = mcp
        .http
        .get(&served.url)
        .bearer_auth(BUILDER_TOKEN)
        .header("Accept", "text/event-stream")
        .header("Mcp-Session-Id", mcp.session.as_deref().unwrap())
        .header("MCP-Protocol-Version", "2025-06-18")
        .send()
        .await
        .unwrap();
    assert_eq!(stream.status(), StatusCode::OK);
    // And an await that would wait ten minutes for a plan nobody answers.
    let id = mcp
        .push(1, json!({"title": "T", "decisions": [{"title": "A"}]}))
        .await;
    let (accepted_tx, accepted) = tokio::sync::oneshot::channel();
    let waiting = tokio::spawn({
        let mcp = mcp.clone();
        async move {
            let request = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                "params": {"name": "arbiter_await", "arguments": {"id": id, "timeout_seconds": 600}}});
            let response = mcp.post(&request).await;
            let _ = accepted_tx.send(response.status());
            response.text().await
        }
    });
    // The response's head (an event stream) comes as soon as the call is taken; its answer would come later.
    assert_eq!(accepted.await.unwrap(), StatusCode::OK);

    served.stop.cancel();
    let shut_down = tokio::time::timeout(std::time::Duration::from_secs(60), served.server).await;
    assert!(
        matches!(shut_down, Ok(Ok(Ok(())))),
        "the server did not shut down: {shut_down:?}"
    );
    // The open streams ended rather than hanging.
    let ended = tokio::time::timeout(std::time::Duration::from_secs(60), async {
        let _ = stream.text().await;
        waiting.await
    })
    .await;
    assert!(ended.is_ok(), "a stream stayed open after the stop");
}
