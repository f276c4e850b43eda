//! The dashboard's pages over HTTP as a signed-in owner: the queue's filters and order, the stats page, and bulk
//! answering's per-plan results when some plans changed or went away meanwhile.

use reqwest::StatusCode;

use crate::support::web::{Dash, field, values};
use crate::support::{TempQueue, plan_with};

fn tagged(id: &str, priority: &str, tag: &str) -> String {
    plan_with(id, "s", 1).replace(
        "priority: normal",
        &format!("priority: {priority}\ntag: {tag}"),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_queue_filters_and_puts_overdue_plans_first() {
    let queue = TempQueue::new();
    queue.drop_plan("a.md", &tagged("a", "urgent", "db"));
    queue.drop_plan("b.md", &tagged("b", "low", "ui"));
    let late =
        tagged("c", "low", "ui").replace("tag: ui", "tag: ui\ndeadline: 2026-01-01T00:00:00Z");
    queue.drop_plan("c.md", &late);
    let dash = Dash::start(queue).await;
    let cookie = dash.sign_in().await;
    let all = dash.get("/queue", Some(&cookie)).await.body;
    let order: Vec<usize> = ["Plan c", "Plan a", "Plan b"]
        .iter()
        .map(|t| all.find(t).unwrap())
        .collect();
    assert!(
        order[0] < order[1] && order[1] < order[2],
        "overdue first, then by priority"
    );
    assert!(all.contains("overdue by"));
    let ui = dash.get("/queue?tag=ui", Some(&cookie)).await.body;
    assert!(ui.contains("Plan b") && ui.contains("Plan c") && !ui.contains("Plan a"));
    let urgent = dash.get("/queue?priority=urgent", Some(&cookie)).await.body;
    assert!(urgent.contains("Plan a") && !urgent.contains("Plan b"));
    let text = dash.get("/queue?q=PLAN+B", Some(&cookie)).await.body;
    assert!(text.contains("Plan b") && !text.contains("Plan c"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_stats_page_shows_the_figures_of_arbiter_stats() {
    let queue = TempQueue::new();
    queue.drop_plan("a.md", &tagged("a", "urgent", "db"));
    queue.drop_plan("b.md", &tagged("b", "high", "ui"));
    let dash = Dash::start(queue).await;
    let cookie = dash.sign_in().await;
    let r = dash.get("/stats", Some(&cookie)).await;
    assert_eq!(r.status, StatusCode::OK);
    assert!(r.body.contains("id=\"charts\""), "{}", r.body);
    assert!(r.body.contains("<th>pending</th><td>2</td>"), "{}", r.body);
    assert!(r.body.contains("<th>urgent</th><td>1</td>"), "{}", r.body);
    assert!(
        r.body.contains("<th>plans completed</th><td>0</td>"),
        "{}",
        r.body
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bulk_answering_records_each_plan_or_says_why_not() {
    let queue = TempQueue::new();
    for id in ["b1", "b2", "b3", "b4"] {
        queue.drop_plan(&format!("{id}.md"), &plan_with(id, "s", 1));
    }
    let dash = Dash::start(queue).await;
    let cookie = dash.sign_in().await;
    let page = dash
        .get("/bulk?plan=b1&plan=b2&plan=b3&plan=b4", Some(&cookie))
        .await
        .body;
    assert!(page.contains("in 4 plans"), "{page}");
    let csrf = field(&page, "csrf").unwrap();
    let members = values(&page, "member0");
    let choice = values(&page, "choice0").into_iter().next().unwrap();
    // Meanwhile the agent of b2 relabels the options and b3 is removed.
    let changed = plan_with("b2", "s", 1).replace("`yes` — Yes", "`yes` — Yes, in production");
    dash.run.queue.drop_plan("b2.md", &changed);
    std::fs::remove_file(dash.run.queue.root().join("pending/b3.md")).unwrap();
    let mut form: Vec<(&str, &str)> = vec![
        ("csrf", &csrf),
        ("decision0", "q1"),
        ("choice0", &choice),
        ("submit", "1"),
    ];
    for id in ["b1", "b2", "b3", "b4"] {
        form.push(("plan", id));
    }
    for m in &members {
        form.push(("member0", m));
    }
    let r = dash
        .post("/bulk", Some(&cookie), Some(&dash.base), &form)
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.body.matches("<td>recorded</td>").count(), 2, "{}", r.body);
    assert_eq!(
        r.body.matches("<td>submitted</td>").count(),
        2,
        "{}",
        r.body
    );
    assert_eq!(r.body.matches("<td>stale</td>").count(), 1, "{}", r.body);
    assert_eq!(r.body.matches("<td>gone</td>").count(), 1, "{}", r.body);
    assert_eq!(dash.run.queue.read("pending", "b2.md"), changed);
    assert_eq!(dash.run.queue.files("completed"), ["b1.md", "b4.md"]);
    for id in ["b1", "b4"] {
        assert!(
            dash.run
                .queue
                .read("completed", &format!("{id}.md"))
                .contains("answer: \"yes\"")
        );
    }
}

/// The History page: completed plans the user may see, searched, each with its audit lines; a member who is not
/// among a plan's approvers does not see it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn history_searches_completed_plans_with_their_audit_lines() {
    use arbiter_zebu::queue::audit::{Change, append};
    const BOB: u64 = 11111111;
    let queue = TempQueue::new();
    let done = |id: &str, title: &str, extra: &str| {
        let text = crate::support::plan_answered(
            &format!(
                "id: {id}\nagent: ceo\ntitle: {title}\nstatus: completed\ncompleted_at: 2026-11-01T10:00:00Z{extra}"
            ),
            &[(
                "engine",
                "answered",
                "a",
                "2026-11-01T09:00:00Z",
                "93533553",
            )],
        );
        std::fs::write(
            queue.root().join("completed").join(format!("{id}.md")),
            &text,
        )
        .unwrap();
        let change = Change {
            at: "2026-11-01T09:00:00Z",
            actor: "93533553",
            action: "answer",
            plan: id,
            revision: 1,
            decision: Some("engine"),
            value: Some("a"),
            file: text.as_bytes(),
            ..Change::default()
        };
        append(queue.root(), &change).unwrap();
    };
    done("db", "Production database", "");
    done("secret", "Owner-only budget", "\napprovers: [93533553]");
    let dash = Dash::start_with_users(queue, &[BOB]).await;
    let owner = dash.sign_in().await;
    let page = dash.get("/history?q=production", Some(&owner)).await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(page.body.contains("Production database"), "{}", page.body);
    assert!(!page.body.contains("Owner-only budget"), "searched");
    assert!(page.body.contains("Audit trail (1)"), "{}", page.body);
    let all = dash.get("/history", Some(&owner)).await.body;
    assert!(all.contains("Owner-only budget") && all.contains("Production database"));
    let link = dash.login_link_for(BOB as i64).await;
    let bob = dash.sign_in_with(&link).await.expect("bob signed in");
    let theirs = dash.get("/history", Some(&bob)).await.body;
    assert!(theirs.contains("Production database"), "{theirs}");
    assert!(
        !theirs.contains("Owner-only budget"),
        "not an approver of it"
    );
    let anonymous = dash.get("/history", None).await;
    assert_ne!(anonymous.status, StatusCode::OK);
    assert!(!anonymous.body.contains("Production database"));
}

/// The History page remembers the audit trail's months it found intact, and a month changed since is read and
/// named again: a byte changed in a month holding no line of a plan on the page (so it is not read for its lines)
/// turns the page's next view into the broken-chain notice, as `arbiter audit verify` names it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_history_page_names_a_month_changed_after_it_was_found_intact() {
    use arbiter_zebu::queue::audit::{Change, append, read};
    let queue = TempQueue::new();
    for (id, title, at) in [
        ("old", "Quarterly budget", "2026-10-01T09:00:00Z"),
        ("db", "Production database", "2026-11-01T09:00:00Z"),
    ] {
        let text = crate::support::plan_answered(
            &format!("id: {id}\nagent: ceo\ntitle: {title}\nstatus: completed\ncompleted_at: {at}"),
            &[("engine", "answered", "a", at, "93533553")],
        );
        std::fs::write(
            queue.root().join("completed").join(format!("{id}.md")),
            &text,
        )
        .unwrap();
        let change = Change {
            at,
            actor: "93533553",
            action: "answer",
            plan: id,
            revision: 1,
            decision: Some("engine"),
            value: Some("a"),
            file: text.as_bytes(),
            ..Change::default()
        };
        append(queue.root(), &change).unwrap();
    }
    let october = queue.root().join("audit").join("2026-10.jsonl");
    let root = queue.root().to_owned();
    let dash = Dash::start(queue).await;
    let owner = dash.sign_in().await;
    for _ in 0..2 {
        let page = dash.get("/history?q=production", Some(&owner)).await;
        assert!(page.body.contains("Audit trail (1)"), "{}", page.body);
        assert!(!page.body.contains("audit trail broken"), "{}", page.body);
    }
    let text = std::fs::read_to_string(&october).unwrap();
    std::fs::write(
        &october,
        text.replacen(r#""value":"a""#, r#""value":"b""#, 1),
    )
    .unwrap();
    let broken = read(&root).unwrap().unwrap_err();
    let page = dash.get("/history?q=production", Some(&owner)).await;
    let named = broken.to_string().replace('`', "&#96;");
    assert!(
        page.body.contains(&broken.to_string()) || page.body.contains(&named),
        "{broken}\n{}",
        page.body
    );
    assert_eq!(broken.file, "audit/2026-11.jsonl");
}

/// A `multi` decision that allows answers of one's own: the plan page offers a text field beside the checkboxes,
/// and one form records the ticked options and the typed text (Enter in that field does the same).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_multi_with_allow_custom_takes_text_of_ones_own_on_the_plan_page() {
    let queue = TempQueue::new();
    let text = "---\nid: m1\ntitle: Checks\n---\n# Checks\n\n## Decision 1: Which\n\nid: which\nkind: multi\nallow_custom: true\n\n**Options:**\n- `lint` — Lint\n- `tests` — Tests\n";
    queue.drop_plan("m1.md", text);
    let dash = Dash::start(queue).await;
    let cookie = dash.sign_in().await;
    let page = dash.get("/plan?id=m1", Some(&cookie)).await.body;
    assert!(page.contains("name=\"other\""), "{page}");
    let csrf = field(&page, "csrf").expect("csrf");
    let seen = field(&page, "seen").expect("seen");
    let form = [
        ("csrf", csrf.as_str()),
        ("plan", "m1"),
        ("decision", "0"),
        ("seen", seen.as_str()),
        ("pick", "0"),
        ("other", "mutation testing"),
        ("do", "enter"),
    ];
    let r = dash
        .post("/plan/decide", Some(&cookie), Some(&dash.base), &form)
        .await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    let written = dash.run.queue.read("pending", "m1.md");
    assert!(
        written.contains("answer: [lint, mutation testing]"),
        "{written}"
    );
}
