//! What the dashboard's address serves besides pages, through the real daemon: MCP over HTTP for agents on other
//! machines (bearer tokens from `web.agentTokens`), and the Telegram Mini App's sign-in with `initData`.

use hmac::{Hmac, KeyInit, Mac};
use reqwest::StatusCode;
use serde_json::json;
use sha2::Sha256;

use crate::support::TempQueue;
use crate::support::daemon::OWNER;
use crate::support::mcp_http::HttpClient;
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
    let id = client
        .push(
            1,
            json!({"title": "Ship it", "decisions": [{"title": "Release now?", "options": [
                {"key": "yes", "label": "Yes"}, {"key": "no", "label": "No"}]}]}),
        )
        .await;
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

/// The plan page's decision form fields for decision 0 of `id`: csrf and seen.
async fn decision_form(dash: &Dash, cookie: &str, id: &str) -> (String, String) {
    let page = dash.get(&format!("/plan?id={id}"), Some(cookie)).await;
    assert_eq!(page.status, StatusCode::OK, "{}", page.body);
    (
        crate::support::web::field(&page.body, "csrf").unwrap(),
        crate::support::web::field(&page.body, "seen").unwrap(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn enter_in_a_text_field_never_picks_an_option_and_notes_and_delegation_work_from_the_page() {
    let queue = TempQueue::new();
    queue.drop_plan("n1.md", &crate::support::plan_with("n1", "s", 1));
    let dash = Dash::start(queue).await;
    let cookie = dash.sign_in().await;
    let post = |form: Vec<(&'static str, String)>| {
        let (dash, cookie) = (&dash, cookie.clone());
        async move {
            let form: Vec<(&str, &str)> = form.iter().map(|(k, v)| (*k, v.as_str())).collect();
            dash.post("/plan/decide", Some(&cookie), Some(&dash.base), &form)
                .await
        }
    };
    let base = |csrf: &str, seen: &str| {
        vec![
            ("csrf", csrf.to_owned()),
            ("plan", "n1".to_owned()),
            ("decision", "0".to_owned()),
            ("seen", seen.to_owned()),
        ]
    };
    // Enter with nothing typed (the hidden first button): nothing recorded, not option 1.
    let before = dash.run.queue.read("pending", "n1.md");
    let (csrf, seen) = decision_form(&dash, &cookie, "n1").await;
    let mut form = base(&csrf, &seen);
    form.push(("do", "enter".to_owned()));
    let r = post(form).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.body);
    assert_eq!(dash.run.queue.read("pending", "n1.md"), before);
    // Enter in the note field: a note, hostile text kept exactly; the answer stays pending.
    let note = "why: \"ok\" # not a comment\n---";
    let mut form = base(&csrf, &seen);
    form.extend([("note", note.to_owned()), ("do", "enter".to_owned())]);
    let r = post(form).await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    let after = dash.run.queue.read("pending", "n1.md");
    let plan = arbiter_zebu::plan::parse(&after, "n1").unwrap();
    assert_eq!(plan.decisions[0].note.as_deref(), Some(note));
    assert_eq!(plan.decisions[0].answer, None);
    let page = dash.get("/plan?id=n1", Some(&cookie)).await;
    assert!(
        page.body.contains("💬 why: &quot;ok&quot; # not a comment"),
        "{}",
        page.body
    );
    // Delegation needs someone to delegate to: only the owner is allowed here, so the page offers nobody.
    assert!(!page.body.contains("👉 Delegate"));
    // A delegation to someone who is no member is refused by the action layer; nothing changes.
    let (csrf, seen) = decision_form(&dash, &cookie, "n1").await;
    let mut form = base(&csrf, &seen);
    form.extend([("to", "666".to_owned()), ("do", "delegate".to_owned())]);
    let before = dash.run.queue.read("pending", "n1.md");
    let r = post(form).await;
    assert_ne!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    assert_eq!(dash.run.queue.read("pending", "n1.md"), before);
}
