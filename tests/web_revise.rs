//! 🔁 Request changes on the dashboard's plan page, over real HTTP: one form (the request and the answers it was
//! written against) is one action; a non-approver's or a forged post changes nothing. The History page then lists
//! the plan's revisions and opens each earlier one read-only.

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
        .post_from_page("/plan/request-changes", &bob, &form)
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
        .post_from_page("/plan/request-changes", &owner, &form)
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
        .post_from_page("/plan/request-changes", &owner, &form)
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

/// The History page lists a completed plan's revisions (when each was pushed, the request that sent it back) and
/// opens an earlier one read-only, escaped, drawn like the plan page; nobody signed out, and no member who is not
/// among its approvers, gets anything of it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_history_page_lists_revisions_and_opens_each_read_only() {
    use crate::cli_support::Arbiter;
    const BOB: i64 = 11_111_111;
    let owner_id = crate::support::daemon::OWNER;
    let plan = |context: &str| {
        format!(
            "---\nid: dep1\nagent: builder\ntitle: Deploy <b>now</b> & co\napprovers: [{owner_id}]\n---\n# Deploy <b>now</b> & co\n\n{context}\n\n## Decision 1: Region\n\nid: region\n\n**Options:**\n- `eu` — Europe\n- `us` — <i>US</i>\n"
        )
    };
    let queue = TempQueue::new();
    let pushed = Arbiter::new(&queue)
        .args(&["push"])
        .stdin(&plan("Ship it on *Friday*."))
        .run();
    assert_eq!(pushed.code, Some(0), "{}", pushed.stderr);
    let dash = Dash::start_with_users(queue, &[BOB as u64]).await;
    let owner = dash.sign_in().await;

    // The owner sends revision 1 back; the agent answers with revision 2; the owner answers it and submits.
    let page = dash.get("/plan?id=dep1", Some(&owner)).await.body;
    let csrf = field(&page, "csrf").unwrap();
    let seen = values(&page, "seen").pop().unwrap();
    let feedback = "Not on Friday <script>alert(1)</script>";
    let form = [
        ("csrf", csrf.as_str()),
        ("plan", "dep1"),
        ("seen", seen.as_str()),
        ("feedback", feedback),
    ];
    let r = dash
        .post_from_page("/plan/request-changes", &owner, &form)
        .await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    let revised = Arbiter::new(&dash.run.queue)
        .args(&["push", "--revise", "dep1"])
        .stdin(&plan("Ship it on *Monday*."))
        .run();
    assert_eq!(revised.code, Some(0), "{}", revised.stderr);
    let page = dash.get("/plan?id=dep1", Some(&owner)).await.body;
    let option = values(&page, "option").remove(0);
    let decision_seen = values(&page, "seen").remove(0);
    let form = [
        ("csrf", csrf.as_str()),
        ("plan", "dep1"),
        ("decision", "0"),
        ("seen", decision_seen.as_str()),
        ("option", option.as_str()),
    ];
    let r = dash.post_from_page("/plan/decide", &owner, &form).await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    let page = dash.get("/plan?id=dep1", Some(&owner)).await.body;
    let seen = values(&page, "seen").pop().unwrap();
    let form = [
        ("csrf", csrf.as_str()),
        ("plan", "dep1"),
        ("seen", seen.as_str()),
    ];
    let r = dash.post_from_page("/plan/submit", &owner, &form).await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    assert_eq!(dash.run.queue.files("completed").len(), 1);

    // The History page: both revisions, the first with its request (escaped) and a link.
    let history = dash.get("/history", Some(&owner)).await;
    assert_eq!(history.status, StatusCode::OK);
    let body = &history.body;
    assert!(body.contains("Revisions (2)"), "{body}");
    let link = "/history/revision?id=dep1&amp;n=1";
    assert!(
        body.contains(&format!("<a href=\"{link}\">Revision 1</a> · pushed 20")),
        "{body}"
    );
    assert!(
        body.contains(&format!(" · 🔁 sent back by {owner_id} at 20")),
        "{body}"
    );
    assert!(
        body.contains(
            "<q class=\"feedback\">Not on Friday &lt;script&gt;alert(1)&lt;/script&gt;</q>"
        ),
        "{body}"
    );
    assert!(!body.contains("<script>alert"), "{body}");
    assert!(
        body.contains("Revision 2 (completed) · pushed 20"),
        "{body}"
    );

    // Revision 1, read-only: its own context and request, escaped; no form to answer it with.
    let url = link.replace("&amp;", "&");
    let r1 = dash.get(&url, Some(&owner)).await;
    assert_eq!(r1.status, StatusCode::OK, "{}", r1.body);
    let body = &r1.body;
    assert!(
        body.contains(
            "<title>Revision 1 · Deploy &lt;b&gt;now&lt;/b&gt; &amp; co · Arbiter</title>"
        ),
        "{body}"
    );
    assert!(
        body.contains("<h1>Deploy &lt;b&gt;now&lt;/b&gt; &amp; co</h1>"),
        "{body}"
    );
    assert!(body.contains("Ship it on <em>Friday</em>."), "{body}");
    assert!(!body.contains("Monday"), "{body}");
    assert!(body.contains("🔁 Sent back by "), "{body}");
    assert!(
        body.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
        "{body}"
    );
    assert!(
        body.contains("<li><code>us</code> — &lt;i&gt;US&lt;/i&gt;</li>"),
        "{body}"
    );
    assert!(body.contains("Not answered"), "{body}");
    assert!(!body.contains("action=\"/plan/"), "{body}");
    assert!(!body.contains("<script>alert"), "{body}");

    // Nobody signed in: sent to sign in, nothing of the plan. A member who is not an approver: the same page as a
    // revision that does not exist.
    let anonymous = dash.get(&url, None).await;
    assert_ne!(anonymous.status, StatusCode::OK);
    assert!(!anonymous.body.contains("Friday"), "{}", anonymous.body);
    let bob = dash
        .sign_in_with(&dash.login_link_for(BOB).await)
        .await
        .expect("bob signed in");
    let foreign = dash.get(&url, Some(&bob)).await;
    assert_eq!(foreign.status, StatusCode::NOT_FOUND);
    assert!(!foreign.body.contains("Friday") && !foreign.body.contains("Deploy"));
    assert!(
        foreign.body.contains("No such revision"),
        "{}",
        foreign.body
    );
    assert!(
        !dash
            .get("/history", Some(&bob))
            .await
            .body
            .contains("Deploy")
    );

    // Addresses typed by hand: a missing revision, a number that is none, an id that tries to leave revisions/.
    for path in [
        "/history/revision?id=dep1&n=2",
        "/history/revision?id=dep1&n=-1",
        "/history/revision?id=dep1&n=99999999999",
        "/history/revision?id=dep1",
        "/history/revision?id=..%2F..%2Fcompleted%2Fdep1&n=1",
    ] {
        let r = dash.get(path, Some(&owner)).await;
        assert_eq!(r.status, StatusCode::NOT_FOUND, "{path}");
        assert!(!r.body.contains("Friday"), "{path}");
    }
}
