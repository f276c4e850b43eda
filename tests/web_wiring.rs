//! What the dashboard's address serves besides pages, through the real daemon: MCP over HTTP for agents on other
//! machines (bearer tokens from `web.agentTokens`), and the Telegram Mini App's sign-in with `initData`.

use hmac::{Hmac, KeyInit, Mac};
use reqwest::StatusCode;
use serde_json::json;
use sha2::Sha256;

use crate::mcp_http::HttpClient;
use crate::support::TempQueue;
use crate::support::daemon::OWNER;
use crate::support::web::{AGENT_TOKEN, Dash};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_pushes_over_http_and_the_owner_is_asked_on_telegram() {
    let dash = Dash::start(TempQueue::new()).await;
    let url = format!("{}/mcp", dash.base);
    // Without a token, or with a wrong one: 401 and nothing written.
    for token in ["", "builder-token-wrong-0123456789"] {
        let mut request = dash.http.post(&url).json(&json!({
            "jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "x", "version": "1"}}
        }));
        if !token.is_empty() {
            request = request.bearer_auth(token);
        }
        let reply = request.send().await.unwrap();
        assert_eq!(reply.status(), StatusCode::UNAUTHORIZED);
        assert_eq!(reply.text().await.unwrap(), "");
    }
    assert!(dash.run.queue.files("pending").is_empty());
    // With the token: the plan lands in pending/ as the token's agent, and the daemon announces it.
    let mut client = HttpClient::new(&url, AGENT_TOKEN);
    client.initialize().await;
    let pushed = client
        .call(
            1,
            "arbiter_push",
            json!({"title": "Ship it", "decisions": [{"title": "Release now?", "options": [
                {"key": "yes", "label": "Yes"}, {"key": "no", "label": "No"}]}]}),
        )
        .await;
    assert_eq!(pushed["isError"], json!(false), "{pushed}");
    let id = pushed["structuredContent"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let files = dash.run.queue.files("pending");
    assert_eq!(files.len(), 1, "{files:?}");
    let text =
        std::fs::read_to_string(dash.run.queue.root().join("pending").join(&files[0])).unwrap();
    assert!(text.contains("agent: builder\n"), "{text}");
    let announced = dash
        .run
        .wait_message(|m| m.plain.contains("Ship it") && !m.plain.contains("Decision Queue"))
        .await;
    assert!(announced.plain.contains("Release now?") || announced.plain.contains("Ship it"));
    // The agent reads the same status over HTTP as over stdio.
    let status = client.call(2, "arbiter_status", json!({"id": id})).await;
    assert_eq!(status["structuredContent"]["status"], "pending", "{status}");
}

fn hmac(key: &[u8], message: &[u8]) -> Vec<u8> {
    let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(key).unwrap();
    mac.update(message);
    mac.finalize().into_bytes().to_vec()
}

/// Telegram's `initData` for `user`, signed with `bot_token` as Telegram documents it (fields but `hash`, sorted,
/// `key=value` joined by newlines; key HMAC("WebAppData", bot token)).
fn init_data(user: i64, auth_date: i64, bot_token: &str) -> String {
    let user_json = format!(r#"{{"id":{user},"first_name":"Ada"}}"#);
    let auth = auth_date.to_string();
    let fields = [
        ("auth_date", auth.as_str()),
        ("query_id", "AAF1"),
        ("user", user_json.as_str()),
    ];
    let check = fields
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join("\n");
    let hash = hex::encode(hmac(
        &hmac(b"WebAppData", bot_token.as_bytes()),
        check.as_bytes(),
    ));
    let mut query = url::form_urlencoded::Serializer::new(String::new());
    for (k, v) in fields {
        query.append_pair(k, v);
    }
    query.append_pair("hash", &hash);
    query.finish()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_mini_app_signs_in_with_telegrams_signed_init_data_only() {
    let dash = Dash::start(TempQueue::new()).await;
    let token = dash.run.fake.token();
    let now = chrono::Utc::now().timestamp();
    let sign_in = |data: String| {
        let dash = &dash;
        async move {
            dash.post(
                "/auth/telegram",
                None,
                Some(&dash.base),
                &[("initData", &data)],
            )
            .await
        }
    };
    let no_session = |reply: &crate::support::web::Reply| {
        reply.status == StatusCode::UNAUTHORIZED
            && reply.headers.get(reqwest::header::SET_COOKIE).is_none()
    };
    // Tampered after signing (another user id), signed with another bot's token, too old, an outsider: 401.
    let good = init_data(OWNER, now, token);
    let tampered = good.replace(&format!("%3A{OWNER}%2C"), "%3A666%2C");
    assert_ne!(tampered, good);
    assert!(no_session(&sign_in(tampered).await));
    assert!(no_session(
        &sign_in(init_data(OWNER, now, "999:OTHER")).await
    ));
    assert!(no_session(
        &sign_in(init_data(OWNER, now - 25 * 3600, token)).await
    ));
    assert!(no_session(&sign_in(init_data(666, now, token)).await));
    assert!(no_session(&sign_in(String::new()).await));
    // A foreign Origin is refused before anything is checked.
    let foreign = dash
        .post(
            "/auth/telegram",
            None,
            Some("https://evil.example"),
            &[("initData", &good)],
        )
        .await;
    assert!(foreign.headers.get(reqwest::header::SET_COOKIE).is_none());
    assert_ne!(foreign.status, StatusCode::SEE_OTHER);
    // The real thing: a session cookie, and the queue page opens with it.
    let ok = sign_in(good).await;
    assert_eq!(ok.status, StatusCode::SEE_OTHER, "{}", ok.body);
    assert_eq!(ok.location(), Some("/queue"));
    let cookie = ok.headers[reqwest::header::SET_COOKIE].to_str().unwrap();
    assert!(
        cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"),
        "{cookie}"
    );
    let cookie = cookie.split(';').next().unwrap().to_owned();
    let queue = dash.get("/queue", Some(&cookie)).await;
    assert_eq!(queue.status, StatusCode::OK);
}
