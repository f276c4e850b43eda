//! The web dashboard over real HTTP: who gets in, which requests may change anything, and that a refused
//! request leaves every plan file byte for byte as it was.

use std::process::Command;

use reqwest::StatusCode;

use crate::support::web::{Dash, Reply, field, values};
use crate::support::{TempQueue, plan_with};

fn queue_with(ids: &[&str]) -> TempQueue {
    let queue = TempQueue::new();
    for id in ids {
        queue.drop_plan(&format!("{id}.md"), &plan_with(id, "s", 2));
    }
    queue
}

/// The plan page's first answer form: csrf, the plan, decision 0 and its first option's value.
async fn first_answer(dash: &Dash, cookie: &str, id: &str) -> (String, String) {
    let page = dash.get(&format!("/plan?id={id}"), Some(cookie)).await;
    assert_eq!(page.status, StatusCode::OK, "{}", page.body);
    let csrf = field(&page.body, "csrf").expect("csrf field");
    let option = values(&page.body, "option")
        .into_iter()
        .next()
        .expect("option");
    (csrf, option)
}

/// Posts the answer form for decision 0 of `plan` (`option`, with `csrf`) as `cookie`, from the dashboard's origin.
async fn decide(dash: &Dash, cookie: &str, csrf: &str, plan: &str, option: &str) -> Reply {
    let form = [
        ("csrf", csrf),
        ("plan", plan),
        ("decision", "0"),
        ("option", option),
    ];
    dash.post("/plan/decide", Some(cookie), Some(&dash.base), &form)
        .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_session_pages_send_you_to_sign_in_and_posts_are_refused() {
    let dash = Dash::start(queue_with(&["p1"])).await;
    let before = dash.run.queue.read("pending", "p1.md");
    for path in ["/queue", "/plan?id=p1", "/stats", "/bulk?plan=p1"] {
        let r = dash.get(path, None).await;
        assert_eq!(r.status, StatusCode::SEE_OTHER, "{path}");
        assert_eq!(r.location(), Some("/login"), "{path}");
    }
    let login = dash.get("/login", None).await;
    assert_eq!(login.status, StatusCode::UNAUTHORIZED);
    assert!(login.body.contains("/web"));
    assert_eq!(
        dash.get("/events", None).await.status,
        StatusCode::UNAUTHORIZED
    );
    let form = [
        ("csrf", "x"),
        ("plan", "p1"),
        ("decision", "0"),
        ("option", "0:abc"),
    ];
    let r = dash
        .post("/plan/decide", None, Some(&dash.base), &form)
        .await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED);
    // A forged cookie is no session either.
    let forged = format!("arbiter_session={}", "ab".repeat(32));
    let r = dash.get("/queue", Some(&forged)).await;
    assert_eq!(r.location(), Some("/login"));
    let r = dash
        .post("/plan/decide", Some(&forged), Some(&dash.base), &form)
        .await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED);
    assert_eq!(dash.run.queue.read("pending", "p1.md"), before);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pages_carry_the_security_headers() {
    let dash = Dash::start(queue_with(&["p1"])).await;
    let cookie = dash.sign_in().await;
    for path in ["/queue", "/plan?id=p1", "/login"] {
        let r = dash.get(path, Some(&cookie)).await;
        let csp = r.headers["content-security-policy"].to_str().unwrap();
        assert!(
            csp.contains("script-src 'self'") && !csp.contains("unsafe-inline"),
            "{csp}"
        );
        assert!(csp.contains("frame-ancestors 'none'"), "{csp}");
        assert_eq!(r.headers["x-content-type-options"], "nosniff");
    }
    let page = dash.get("/queue", Some(&cookie)).await.body;
    assert!(!page.contains("<script>"), "no inline script");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_login_link_works_once_and_a_session_ends_at_logout() {
    let dash = Dash::start(queue_with(&["p1"])).await;
    let link = dash.login_link().await;
    let cookie = dash.sign_in_with(&link).await.expect("first use signs in");
    let again = dash.post_url(&link, None, Some(&dash.base), &[]).await;
    assert_eq!(again.status, StatusCode::FORBIDDEN);
    assert!(again.body.contains("does not work"));
    assert!(again.headers.get("set-cookie").is_none());
    assert_eq!(
        dash.get_url(&link, None).await.status,
        StatusCode::FORBIDDEN
    );

    let queue = dash.get("/queue", Some(&cookie)).await;
    assert_eq!(queue.status, StatusCode::OK);
    let (csrf, option) = first_answer(&dash, &cookie, "p1").await;
    let out = dash
        .post(
            "/logout",
            Some(&cookie),
            Some(&dash.base),
            &[("csrf", &csrf)],
        )
        .await;
    assert_eq!(out.status, StatusCode::OK);
    // The old cookie, replayed after logout, is nobody's.
    let before = dash.run.queue.read("pending", "p1.md");
    assert_eq!(
        dash.get("/queue", Some(&cookie)).await.location(),
        Some("/login")
    );
    let r = decide(&dash, &cookie, &csrf, "p1", &option).await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED);
    assert_eq!(dash.run.queue.read("pending", "p1.md"), before);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn state_changes_need_the_csrf_token_and_a_same_origin_request() {
    let dash = Dash::start(queue_with(&["p1"])).await;
    let cookie = dash.sign_in().await;
    let (csrf, option) = first_answer(&dash, &cookie, "p1").await;
    let before = dash.run.queue.read("pending", "p1.md");
    let base = dash.base.clone();
    let wrong = "0".repeat(64);
    let cases: [(&str, Option<&str>, Option<&str>); 5] = [
        ("no CSRF token", None, Some(&base)),
        ("a wrong CSRF token", Some(&wrong), Some(&base)),
        (
            "a foreign Origin",
            Some(&csrf),
            Some("https://evil.example"),
        ),
        ("no Origin", Some(&csrf), None),
        (
            "an Origin on another port",
            Some(&csrf),
            Some("http://127.0.0.1:1"),
        ),
    ];
    for (what, token, origin) in cases {
        let mut form = vec![
            ("plan", "p1"),
            ("decision", "0"),
            ("option", option.as_str()),
        ];
        if let Some(t) = token {
            form.push(("csrf", t));
        }
        let r = dash
            .post("/plan/decide", Some(&cookie), origin, &form)
            .await;
        assert_eq!(r.status, StatusCode::FORBIDDEN, "{what}");
        assert!(r.body.contains("Nothing was changed"), "{what}");
        assert_eq!(dash.run.queue.read("pending", "p1.md"), before, "{what}");
        let submit = [("csrf", token.unwrap_or("")), ("plan", "p1"), ("seen", "x")];
        let r = dash
            .post("/plan/submit", Some(&cookie), origin, &submit)
            .await;
        assert_eq!(r.status, StatusCode::FORBIDDEN, "{what}");
        assert_eq!(dash.run.queue.read("pending", "p1.md"), before, "{what}");
    }
    // The same request done right records the answer.
    let r = decide(&dash, &cookie, &csrf, "p1", &option).await;
    assert_eq!(r.status, StatusCode::SEE_OTHER);
    let after = dash.run.queue.read("pending", "p1.md");
    assert!(after.contains("answer: \"yes\""), "{after}");
    assert!(after.contains("answered_by: 93533553"), "{after}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_changed_plan_records_nothing_and_a_gone_one_says_so() {
    let dash = Dash::start(queue_with(&["p1", "p2"])).await;
    let cookie = dash.sign_in().await;
    let (csrf, option) = first_answer(&dash, &cookie, "p1").await;
    // The agent relabels the options after the page was drawn.
    let changed =
        plan_with("p1", "s", 2).replacen("`yes` — Yes", "`yes` — Yes, and drop the table", 1);
    dash.run.queue.drop_plan("p1.md", &changed);
    let r = decide(&dash, &cookie, &csrf, "p1", &option).await;
    assert_eq!(r.status, StatusCode::SEE_OTHER);
    assert!(r.location().unwrap().contains("notice=stale"));
    assert_eq!(dash.run.queue.read("pending", "p1.md"), changed);
    let page = dash.get(r.location().unwrap(), Some(&cookie)).await;
    assert!(page.body.contains("nothing was recorded"), "{}", page.body);
    assert!(page.body.contains("drop the table"));

    let (_, option2) = first_answer(&dash, &cookie, "p2").await;
    std::fs::remove_file(dash.run.queue.root().join("pending/p2.md")).unwrap();
    let r = decide(&dash, &cookie, &csrf, "p2", &option2).await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
    assert!(r.body.contains("no longer pending"));
    assert!(dash.run.queue.files("completed").is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn web_login_prints_a_link_the_running_daemon_accepts_and_refuses_outsiders() {
    let dash = Dash::start(queue_with(&["p1"])).await;
    let port = dash.base.rsplit(':').next().unwrap().to_owned();
    let config = dash.home.path().join("config.json");
    let json = serde_json::json!({
        "telegram": {"token": "123:abc", "allowedUsers": [93533553]},
        "queue": {"dir": dash.run.queue.root()},
        "web": {"listen": format!("127.0.0.1:{port}")},
    });
    std::fs::write(&config, json.to_string()).unwrap();
    let run = |user: &str| {
        Command::new(env!("CARGO_BIN_EXE_arbiter"))
            .args(["web-login", "--user", user, "--config"])
            .arg(&config)
            .env_remove("ARBITER_TELEGRAM_TOKEN")
            .output()
            .unwrap()
    };
    let logins = || {
        std::fs::read_dir(dash.state_dir().join("logins"))
            .unwrap()
            .count()
    };
    let before = logins();
    let refused = run("666");
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("not in telegram.allowedUsers"));
    assert!(refused.stdout.is_empty());
    assert_eq!(logins(), before);

    let ok = run("93533553");
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    let link = String::from_utf8(ok.stdout).unwrap().trim().to_owned();
    assert!(link.starts_with(&format!("{}/login/", dash.base)), "{link}");
    let cookie = dash
        .sign_in_with(&link)
        .await
        .expect("the daemon accepts the CLI's link");
    assert_eq!(
        dash.get("/queue", Some(&cookie)).await.status,
        StatusCode::OK
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_custom_answer_over_http() {
    let queue = TempQueue::new();
    let text = plan_with("c1", "s", 1).replace(
        "status: pending\nanswer: null",
        "status: pending\nallow_custom: true\nanswer: null",
    );
    queue.drop_plan("c1.md", &text);
    let dash = Dash::start(queue).await;
    let cookie = dash.sign_in().await;
    let page = dash.get("/plan?id=c1", Some(&cookie)).await;
    let csrf = field(&page.body, "csrf").unwrap();
    let seen = field(&page.body, "seen").unwrap();
    let form = [
        ("csrf", csrf.as_str()),
        ("plan", "c1"),
        ("decision", "0"),
        ("seen", &seen),
        ("text", "Ship it: Friday"),
        ("do", "custom"),
    ];
    let r = dash
        .post("/plan/decide", Some(&cookie), Some(&dash.base), &form)
        .await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    let after = dash.run.queue.read("pending", "c1.md");
    assert!(after.contains("answer: \"Ship it: Friday\""), "{after}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_survives_a_daemon_restart() {
    let dash = Dash::start(queue_with(&["p1"])).await;
    let cookie = dash.sign_in().await;
    let old = dash.base.clone();
    let dash = dash.restart().await;
    // The stopped daemon's dashboard stopped listening with it.
    let client = reqwest::Client::new();
    let gone = crate::support::daemon::WAIT;
    let started = std::time::Instant::now();
    while client.get(format!("{old}/login")).send().await.is_ok() {
        assert!(started.elapsed() < gone, "the old dashboard still answers");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let page = dash.get("/plan?id=p1", Some(&cookie)).await;
    assert_eq!(page.status, StatusCode::OK);
    let (csrf, option) = first_answer(&dash, &cookie, "p1").await;
    let r = decide(&dash, &cookie, &csrf, "p1", &option).await;
    assert_eq!(r.status, StatusCode::SEE_OTHER);
    assert!(
        dash.run
            .queue
            .read("pending", "p1.md")
            .contains("answer: \"yes\"")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_member_who_is_no_approver_sees_nothing_and_their_forged_posts_change_nothing() {
    const BOB: i64 = 11_111_111;
    let queue = TempQueue::new();
    let owner_only = plan_with("p1", "s", 2).replace(
        "priority: normal\n",
        &format!(
            "priority: normal\napprovers: [{}]\n",
            crate::support::daemon::OWNER
        ),
    );
    queue.drop_plan("p1.md", &owner_only);
    let dash = Dash::start_with_users(queue, &[BOB as u64]).await;
    // The owner's real form, the one a forger copies.
    let owner = dash.sign_in().await;
    let (_, option) = first_answer(&dash, &owner, "p1").await;
    let link = dash.login_link_for(BOB).await;
    let bob = dash.sign_in_with(&link).await.expect("bob signed in");
    let listed = dash.get("/queue", Some(&bob)).await;
    assert_eq!(listed.status, StatusCode::OK);
    assert!(!listed.body.contains("p1"), "{}", listed.body);
    let page = dash.get("/plan?id=p1", Some(&bob)).await;
    assert_eq!(page.status, StatusCode::FORBIDDEN, "{}", page.body);
    // Bob's own CSRF token (from his queue page) with the owner's option: refused, the file as it was.
    let csrf = field(&listed.body, "csrf").expect("csrf on bob's page");
    let before = dash.run.queue.read("pending", "p1.md");
    let r = decide(&dash, &bob, &csrf, "p1", &option).await;
    assert_eq!(r.status, StatusCode::FORBIDDEN, "{}", r.body);
    let r = dash
        .post(
            "/plan/submit",
            Some(&bob),
            Some(&dash.base),
            &[("csrf", csrf.as_str()), ("plan", "p1"), ("seen", "x")],
        )
        .await;
    assert_ne!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    assert_eq!(dash.run.queue.read("pending", "p1.md"), before);
}
