//! DNS rebinding, through the real daemon: a page on another site that resolves its own name to the owner's
//! machine must get nothing from the dashboard or from `/mcp`. A foreign `Origin` is refused (403) even with a
//! valid bearer token, a foreign `Host` on a loopback listener on every route (421); a request without `Origin`
//! (an MCP client, the CLI) and the dashboard's own pages, from its own address or from `publicUrl`, work as before.

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::support::mcp_http::{HttpClient, snapshot};
use crate::support::web::{AGENT_TOKEN, Dash, Reply, field, values};
use crate::support::{TempQueue, plan_with};

const PUBLIC: &str = "https://arbiter.example.org";

fn queue_with_p1() -> TempQueue {
    let queue = TempQueue::new();
    queue.drop_plan("p1.md", &plan_with("p1", "s", 2));
    queue
}

fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "page", "version": "1"}}})
}

fn push() -> Value {
    json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "arbiter_push", "arguments": {"title": "Sneaky", "decisions": [{"title": "A"}]}}})
}

/// A request to the daemon with these extra headers (`Host` included: it replaces the one the URL gives).
async fn send(
    dash: &Dash,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<&Value>,
) -> Reply {
    let mut request = dash
        .http
        .request(method.parse().unwrap(), format!("{}{path}", dash.base));
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    if let Some(body) = body {
        request = request
            .header("Accept", "application/json, text/event-stream")
            .json(body);
    }
    let r = request.send().await.unwrap();
    Reply {
        status: r.status(),
        headers: r.headers().clone(),
        body: r.text().await.unwrap_or_default(),
    }
}

/// The answer form of plan p1's first decision, as `headers` (Host, Origin) reach it: csrf and option.
async fn answer_form(dash: &Dash, cookie: &str, headers: &[(&str, &str)]) -> (String, String) {
    let mut with_cookie = headers.to_vec();
    with_cookie.push(("Cookie", cookie));
    let page = send(dash, "GET", "/plan?id=p1", &with_cookie, None).await;
    assert_eq!(page.status, StatusCode::OK, "{}", page.body);
    let csrf = field(&page.body, "csrf").expect("csrf field");
    let option = values(&page.body, "option").into_iter().next().unwrap();
    (csrf, option)
}

async fn post_form(
    dash: &Dash,
    path: &str,
    headers: &[(&str, &str)],
    form: &[(&str, &str)],
) -> Reply {
    let body = url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(form)
        .finish();
    let mut request = dash
        .http
        .post(format!("{}{path}", dash.base))
        .header("Content-Type", "application/x-www-form-urlencoded")
        .body(body);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let r = request.send().await.unwrap();
    Reply {
        status: r.status(),
        headers: r.headers().clone(),
        body: r.text().await.unwrap_or_default(),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_refuses_a_foreign_origin_even_with_a_valid_token_and_writes_nothing() {
    let dash = Dash::start(queue_with_p1()).await;
    let url = format!("{}/mcp", dash.base);
    let before = snapshot(&dash.run.queue);
    // A session opened the usual way (no Origin), so a refused call could name it.
    let mut agent = HttpClient::new(&url, AGENT_TOKEN);
    agent.initialize().await;
    let session = agent.session.clone().unwrap();
    let bearer = format!("Bearer {AGENT_TOKEN}");
    let port = dash.base.rsplit(':').next().unwrap().to_owned();
    for origin in [
        "http://evil.example".to_owned(),
        format!("http://evil.example:{port}"),
        "https://evil.example".to_owned(),
        "http://127.0.0.1:1".to_owned(),
        "null".to_owned(),
    ] {
        for body in [initialize(), push()] {
            let headers = [
                ("Authorization", bearer.as_str()),
                ("Origin", origin.as_str()),
                ("Mcp-Session-Id", session.as_str()),
                ("MCP-Protocol-Version", "2025-11-25"),
            ];
            let r = send(&dash, "POST", "/mcp", &headers, Some(&body)).await;
            assert_eq!(r.status, StatusCode::FORBIDDEN, "{origin}: {}", r.body);
            assert!(r.headers.get("mcp-session-id").is_none(), "{origin}");
            let error: Value = serde_json::from_str(&r.body).unwrap();
            assert_eq!(error["error"]["code"], -32000, "{}", r.body);
            assert!(
                error["error"]["message"]
                    .as_str()
                    .unwrap()
                    .contains("another site"),
                "{}",
                r.body
            );
        }
        let stream = [("Authorization", bearer.as_str()), ("Origin", &origin)];
        let r = send(&dash, "GET", "/mcp", &stream, None).await;
        assert_eq!(r.status, StatusCode::FORBIDDEN, "GET from {origin}");
    }
    assert_eq!(snapshot(&dash.run.queue), before);

    // Without an Origin, and from the dashboard's own origin, the same token works.
    agent
        .push(
            3,
            json!({"title": "No origin", "decisions": [{"title": "A"}]}),
        )
        .await;
    let mut page = HttpClient::new(&url, AGENT_TOKEN).with_origin(&dash.base);
    page.initialize().await;
    page.push(
        1,
        json!({"title": "Own origin", "decisions": [{"title": "A"}]}),
    )
    .await;
    let names = dash.run.queue.files("pending");
    assert_eq!(names.len(), 3, "{names:?}");
    assert!(
        names.iter().any(|n| n.starts_with("builder-no-origin-")),
        "{names:?}"
    );
    assert!(
        names.iter().any(|n| n.starts_with("builder-own-origin-")),
        "{names:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_loopback_listener_refuses_a_foreign_host_on_every_route() {
    let dash = Dash::start(queue_with_p1()).await;
    let cookie = dash.sign_in().await;
    let (csrf, option) = answer_form(&dash, &cookie, &[]).await;
    let link = dash.login_link().await;
    let link_path = &link[dash.base.len()..];
    let before = snapshot(&dash.run.queue);
    let bearer = format!("Bearer {AGENT_TOKEN}");
    let port = dash.base.rsplit(':').next().unwrap().to_owned();

    let evil_with_port = format!("evil.example:{port}");
    for host in ["evil.example", evil_with_port.as_str(), "10.1.2.3"] {
        // No Origin at all: the Host alone is refused (and a page from the foreign name would send its own).
        for path in [
            "/",
            "/queue",
            "/login",
            "/plan?id=p1",
            "/stats",
            "/assets/app.js",
            "/no-such-page",
            link_path,
        ] {
            let r = send(
                &dash,
                "GET",
                path,
                &[("Host", host), ("Cookie", &cookie)],
                None,
            )
            .await;
            assert_eq!(r.status, StatusCode::MISDIRECTED_REQUEST, "{host} {path}");
            assert!(!r.body.contains("p1"), "{host} {path}: {}", r.body);
        }
        let r = send(
            &dash,
            "POST",
            "/mcp",
            &[("Host", host), ("Authorization", &bearer)],
            Some(&push()),
        )
        .await;
        assert_eq!(r.status, StatusCode::MISDIRECTED_REQUEST, "{host} /mcp");
        let origin = format!("http://{host}");
        let form = [
            ("csrf", csrf.as_str()),
            ("plan", "p1"),
            ("decision", "0"),
            ("option", &option),
        ];
        let r = post_form(
            &dash,
            "/plan/decide",
            &[("Host", host), ("Origin", &origin), ("Cookie", &cookie)],
            &form,
        )
        .await;
        assert_eq!(r.status, StatusCode::MISDIRECTED_REQUEST, "{host} decide");
        assert!(r.body.contains("Nothing was changed"), "{}", r.body);
    }
    assert_eq!(snapshot(&dash.run.queue), before);
    // The login link was not used up by the refused requests.
    assert!(dash.sign_in_with(&link).await.is_some());

    // Loopback names reach it, whatever the port they give.
    for host in [
        format!("localhost:{port}"),
        format!("127.0.0.1:{port}"),
        "localhost".to_owned(),
    ] {
        let r = send(
            &dash,
            "GET",
            "/queue",
            &[("Host", &host), ("Cookie", &cookie)],
            None,
        )
        .await;
        assert_eq!(r.status, StatusCode::OK, "{host}");
        assert!(r.body.contains("p1"), "{host}");
    }
    // A form posted from http://localhost:PORT (the same dashboard under its other name) records the answer.
    let origin = format!("http://localhost:{port}");
    let host = format!("localhost:{port}");
    let form = [
        ("csrf", csrf.as_str()),
        ("plan", "p1"),
        ("decision", "0"),
        ("option", &option),
    ];
    let r = post_form(
        &dash,
        "/plan/decide",
        &[("Host", &host), ("Origin", &origin), ("Cookie", &cookie)],
        &form,
    )
    .await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    assert!(
        dash.run
            .queue
            .read("pending", "p1.md")
            .contains("answer: \"yes\"")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn behind_a_proxy_at_the_public_url_pages_forms_and_mcp_work() {
    let dash = Dash::start_public(queue_with_p1(), PUBLIC).await;
    // What a reverse proxy serving https://arbiter.example.org forwards: the browser's Host and Origin.
    let proxied = [("Host", "arbiter.example.org"), ("Origin", PUBLIC)];

    let link = dash.login_link().await;
    assert!(link.starts_with(&format!("{PUBLIC}/login/")), "{link}");
    let path = &link[PUBLIC.len()..];
    let page = send(&dash, "GET", path, &proxied[..1], None).await;
    assert_eq!(page.status, StatusCode::OK, "{}", page.body);
    let signed_in = post_form(&dash, path, &proxied, &[]).await;
    let cookie = signed_in.headers["set-cookie"].to_str().unwrap();
    assert!(cookie.contains("Secure"), "{cookie}");
    let cookie = cookie.split(';').next().unwrap().to_owned();

    let (csrf, option) = answer_form(&dash, &cookie, &proxied[..1]).await;
    let mut headers = proxied.to_vec();
    headers.push(("Cookie", &cookie));
    let form = [
        ("csrf", csrf.as_str()),
        ("plan", "p1"),
        ("decision", "0"),
        ("option", &option),
    ];
    // A page of another site is refused, through the proxy too.
    let r = post_form(
        &dash,
        "/plan/decide",
        &[
            ("Host", "arbiter.example.org"),
            ("Origin", "https://evil.example"),
            ("Cookie", &cookie),
        ],
        &form,
    )
    .await;
    assert_eq!(r.status, StatusCode::FORBIDDEN, "{}", r.body);
    assert!(
        !dash
            .run
            .queue
            .read("pending", "p1.md")
            .contains("answer: \"yes\"")
    );
    let r = post_form(&dash, "/plan/decide", &headers, &form).await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    assert!(
        dash.run
            .queue
            .read("pending", "p1.md")
            .contains("answer: \"yes\"")
    );

    // The daemon's own address still works beside the public one (a proxy that sends its upstream's Host).
    let r = send(&dash, "GET", "/queue", &[("Cookie", &cookie)], None).await;
    assert_eq!(r.status, StatusCode::OK);
    // Another name is still refused.
    let r = send(
        &dash,
        "GET",
        "/queue",
        &[("Host", "evil.example"), ("Cookie", &cookie)],
        None,
    )
    .await;
    assert_eq!(r.status, StatusCode::MISDIRECTED_REQUEST);

    // An agent reached through the proxy: the public Origin is the dashboard's own.
    let url = format!("{}/mcp", dash.base);
    let mut agent = HttpClient::new(&url, AGENT_TOKEN).with_origin(PUBLIC);
    agent.initialize().await;
    agent
        .push(
            1,
            json!({"title": "Via proxy", "decisions": [{"title": "A"}]}),
        )
        .await;
    assert_eq!(dash.run.queue.files("pending").len(), 2);
}
