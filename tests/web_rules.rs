//! The dashboard's Rules page over HTTP, on the real daemon: `🔁 Always allow this` submitted on a plan page makes
//! a rule the Rules page lists; pause, resume and revoke are forms (the session's CSRF token, this dashboard's
//! Origin, a typed `op`), by the session's user id; a forged form changes nothing; three identical answers offer
//! `🔁 Always answer`.

use arbiter_zebu::actions::seen;
use arbiter_zebu::queue::rules::{self, State};
use reqwest::StatusCode;

use crate::support::TempQueue;
use crate::support::web::{Dash, field, values};

const BOB: u64 = 4242;

fn permission_plan() -> String {
    "---\nid: p1\nagent: codex\nsession: s1\ntitle: \"Bash: npm test\"\nproject: /home/me/app\nrule_tool: Bash\n\
     rule_command: npm test\ngrant_minutes: 30\n---\n# Bash: npm test\n\n## Run this command?\n\nid: permission\n\n\
     **Options:**\n- `allow` — ✅ Allow once\n- `always` — 🔁 Always allow this\n\
     - `grant` — ⏱ Allow Codex for 30 min\n- `deny` — ❌ Deny\n"
        .to_owned()
}

fn pushed(id: &str) -> String {
    format!(
        "---\nid: {id}\nagent: builder\n---\n# Deploy where?\n\n## Target\n\nid: target\n\n**Options:**\n\
         - `staging` — Staging\n- `prod` — Production\n"
    )
}

/// Answers plan `id`'s one decision with its option `option` and submits it on the dashboard, as the owner;
/// returns where the submit redirected.
async fn answer_and_submit(dash: &Dash, cookie: &str, id: &str, option: usize) -> String {
    let page = dash.get(&format!("/plan?id={id}"), Some(cookie)).await.body;
    let csrf = field(&page, "csrf").unwrap();
    let choice = values(&page, "option")[option].clone();
    let r = dash
        .post_from_page(
            "/plan/decide",
            cookie,
            &[
                ("csrf", &csrf),
                ("plan", id),
                ("decision", "0"),
                ("option", &choice),
            ],
        )
        .await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    let plan = dash.run.queue.root().join("pending");
    let file = std::fs::read_dir(&plan)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| {
            std::fs::read_to_string(p)
                .unwrap()
                .contains(&format!("id: {id}\n"))
        })
        .unwrap();
    let answers = seen::of_answers(
        &arbiter_zebu::plan::parse(&std::fs::read_to_string(file).unwrap(), id).unwrap(),
    );
    let r = dash
        .post_from_page(
            "/plan/submit",
            cookie,
            &[("csrf", &csrf), ("plan", id), ("seen", &answers)],
        )
        .await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    r.location().unwrap().to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_rules_page_lists_pauses_resumes_and_revokes_and_refuses_forged_forms() {
    let queue = TempQueue::new();
    queue.drop_plan("codex-p1.md", &permission_plan());
    let dash = Dash::start_with_users(queue, &[BOB]).await;
    let cookie = dash.sign_in().await;
    let to = answer_and_submit(&dash, &cookie, "p1", 1).await;
    assert!(to.starts_with("/rules?notice=made&rule=r"), "{to}");
    let rule = rules::read(dash.run.queue.root()).unwrap().rules[0].clone();
    assert_eq!(rule.created_by, crate::support::daemon::OWNER as u64);
    let page = dash.get(&to, Some(&cookie)).await.body;
    assert!(page.contains(&format!("Rule {} made.", rule.id)), "{page}");
    assert!(
        page.contains("Bash: npm test") && page.contains("⏸ Pause"),
        "{page}"
    );
    let csrf = field(&page, "csrf").unwrap();

    let change = |op: &'static str| {
        let (csrf, id) = (csrf.clone(), rule.id.clone());
        let (dash, cookie) = (&dash, cookie.clone());
        async move {
            dash.post_from_page(
                "/rules/change",
                &cookie,
                &[("csrf", &csrf), ("rule", &id), ("op", op)],
            )
            .await
        }
    };
    let state = || rules::read(dash.run.queue.root()).unwrap().rules[0].state;
    // Forged: no CSRF token, another Origin, an op that is none: refused, nothing changed.
    let r = dash
        .post_from_page(
            "/rules/change",
            &cookie,
            &[("rule", &rule.id), ("op", "pause")],
        )
        .await;
    assert_eq!(r.status, StatusCode::FORBIDDEN);
    let r = dash
        .post(
            "/rules/change",
            Some(&cookie),
            Some("http://evil.example"),
            &[("csrf", &csrf), ("rule", &rule.id), ("op", "pause")],
        )
        .await;
    assert_eq!(r.status, StatusCode::FORBIDDEN);
    let r = change("delete").await;
    assert!(r.status.is_client_error(), "{:?}", r.status);
    assert_eq!(state(), State::Active);

    let r = change("pause").await;
    assert_eq!(
        r.location(),
        Some(format!("/rules?notice=paused&rule={}", rule.id).as_str())
    );
    assert_eq!(state(), State::Paused);
    // Bob may pause and revoke, not resume the owner's rule.
    let bob = dash
        .sign_in_with(&dash.login_link_for(BOB as i64).await)
        .await
        .unwrap();
    let bob_csrf = field(&dash.get("/rules", Some(&bob)).await.body, "csrf").unwrap();
    let r = dash
        .post_from_page(
            "/rules/change",
            &bob,
            &[("csrf", &bob_csrf), ("rule", &rule.id), ("op", "resume")],
        )
        .await;
    assert_eq!(r.status, StatusCode::FORBIDDEN);
    assert_eq!(state(), State::Paused);
    change("resume").await;
    assert_eq!(state(), State::Active);
    change("revoke").await;
    assert_eq!(state(), State::Revoked);
    let page = dash.get("/rules", Some(&cookie)).await.body;
    assert!(
        page.contains("revoked") && !page.contains("⏸ Pause"),
        "{page}"
    );
    let lines = arbiter_zebu::queue::audit::read(dash.run.queue.root())
        .unwrap()
        .unwrap()
        .1;
    let names: Vec<&str> = lines
        .iter()
        .map(|l| l.action.as_str())
        .filter(|a| a.starts_with("rule"))
        .collect();
    assert_eq!(names, ["rule", "rule_pause", "rule_resume", "rule_revoke"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_identical_answers_on_the_dashboard_offer_always_answer() {
    let dash = Dash::start(TempQueue::new()).await;
    let cookie = dash.sign_in().await;
    let mut to = String::new();
    for n in 1..=3 {
        let id = format!("d{n}");
        dash.run
            .queue
            .drop_plan(&format!("builder-{id}.md"), &pushed(&id));
        // The dashboard reads pending/ on each page.
        to = answer_and_submit(&dash, &cookie, &id, 0).await;
        assert_eq!(to.contains("offer="), n == 3, "after {n}: {to}");
    }
    let page = dash.get(&to, Some(&cookie)).await.body;
    assert!(
        page.contains("🔁 Always answer &quot;Staging&quot;"),
        "{page}"
    );
    let csrf = field(&page, "csrf").unwrap();
    let seen = values(&page, "seen")[0].clone();
    // A forged fingerprint makes nothing.
    let r = dash
        .post_from_page(
            "/rules/always",
            &cookie,
            &[("csrf", &csrf), ("plan", "d3"), ("seen", "000000")],
        )
        .await;
    assert_eq!(r.location(), Some("/rules?notice=stale&rule="));
    assert!(!rules::path(dash.run.queue.root()).exists());
    let r = dash
        .post_from_page(
            "/rules/always",
            &cookie,
            &[("csrf", &csrf), ("plan", "d3"), ("seen", &seen)],
        )
        .await;
    assert!(
        r.location().unwrap().starts_with("/rules?notice=made"),
        "{r:?}"
    );
    let rule = rules::read(dash.run.queue.root()).unwrap().rules[0].clone();
    assert_eq!(
        (rule.agent.as_str(), rule.answer.as_str()),
        ("builder", "staging")
    );
}
