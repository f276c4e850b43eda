//! 🔁 Request changes on the dashboard's plan page, over real HTTP: one form (the request and the answers it was
//! written against) is one action; a non-approver's or a forged post changes nothing.

use reqwest::StatusCode;

use crate::support::web::{Dash, field, values};
use crate::support::{TempQueue, plan_with};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_plan_page_sends_a_plan_back_and_refuses_the_rest() {
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
    let owner = dash.sign_in().await;
    let page = dash.get("/plan?id=p1", Some(&owner)).await;
    assert_eq!(page.status, StatusCode::OK, "{}", page.body);
    assert!(page.body.contains("🔁 Request changes"), "{}", page.body);
    assert!(page.body.contains("action=\"/plan/request-changes\""));
    let csrf = field(&page.body, "csrf").unwrap();
    // The request-changes form is the page's last: its `seen` is the answers' fingerprint.
    let seen = values(&page.body, "seen").pop().unwrap();
    let before = dash.run.queue.read("pending", "p1.md");

    // A member who is no approver, with their own CSRF token: refused, nothing written.
    let link = dash.login_link_for(BOB).await;
    let bob = dash.sign_in_with(&link).await.expect("bob signed in");
    let listed = dash.get("/queue", Some(&bob)).await;
    let bob_csrf = field(&listed.body, "csrf").unwrap();
    let form = [
        ("csrf", bob_csrf.as_str()),
        ("plan", "p1"),
        ("seen", seen.as_str()),
        ("feedback", "no"),
    ];
    let r = dash
        .post("/plan/request-changes", Some(&bob), Some(&dash.base), &form)
        .await;
    assert_eq!(r.status, StatusCode::FORBIDDEN, "{}", r.body);
    assert_eq!(dash.run.queue.read("pending", "p1.md"), before);

    // A forged fingerprint: stale, back to the plan, nothing written.
    let form = [
        ("csrf", csrf.as_str()),
        ("plan", "p1"),
        ("seen", "abcdef"),
        ("feedback", "forged"),
    ];
    let r = dash
        .post(
            "/plan/request-changes",
            Some(&owner),
            Some(&dash.base),
            &form,
        )
        .await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    assert!(r.location().unwrap_or_default().contains("notice=stale"));
    assert_eq!(dash.run.queue.read("pending", "p1.md"), before);

    // The owner's form as the page drew it: the plan goes back to its agent.
    let form = [
        ("csrf", csrf.as_str()),
        ("plan", "p1"),
        ("seen", seen.as_str()),
        ("feedback", "Split it in two plans"),
    ];
    let r = dash
        .post(
            "/plan/request-changes",
            Some(&owner),
            Some(&dash.base),
            &form,
        )
        .await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    assert_eq!(r.location(), Some("/queue?notice=sent_back"));
    assert!(dash.run.queue.files("pending").is_empty());
    let sent = dash.run.queue.read("returned", "p1.md");
    assert!(sent.contains("status: changes_requested\n"), "{sent}");
    assert!(sent.contains("feedback: Split it in two plans\n"), "{sent}");
    let listed = dash.get("/queue?notice=sent_back", Some(&owner)).await;
    assert!(
        listed.body.contains("sent back to its agent"),
        "{}",
        listed.body
    );
}
