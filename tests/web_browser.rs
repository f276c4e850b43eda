//! The dashboard in a real browser: headless Chromium over WebDriver (chromedriver), against the real daemon.
//! One chromedriver and one browser session for the whole file (they are slow to start); each scenario is a
//! function the one test runs in turn, checking the plan files on disk after every click.
//!
//! Needs `chromium` and `chromedriver` (Debian: chromium, chromium-driver); without them the test is skipped with
//! a message, unless `ARBITER_REQUIRE_BROWSER=1` (CI sets it) makes that a failure. `ARBITER_SCREENSHOTS=1`
//! rewrites the screenshots in docs/screenshots/.
//!
//! The queue, plan, bulk and stats pages are checked with axe-core's WCAG 2.1 A and AA rules. axe-core is the
//! version pinned in `.ci/axe/package-lock.json` (`npm ci --prefix .ci/axe` installs it; `ARBITER_AXE` names
//! another `axe.min.js`); without it that check is skipped with a message, unless `ARBITER_REQUIRE_AXE=1` (CI sets
//! it) makes that a failure.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::actions::{InputSource, KeyAction, KeyActions};
use fantoccini::key::Key;
use fantoccini::{Client, ClientBuilder, Locator};

use serde_json::json;

use crate::support::web::Dash;
use crate::support::{RICH_CONTEXT, TempQueue, plan_with};

const DRIVER: &str = "chromedriver";
/// One decision of each answer kind but `choice`, in an elicitation plan.
const KINDS: &str = include_str!("fixtures/kinds.md");
const WAIT: Duration = Duration::from_secs(20);

/// The chromedriver process; killed when dropped (also when a scenario panics).
struct Driver(Child);

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn installed(tool: &str) -> bool {
    Command::new(tool)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

async fn browser() -> Option<(Driver, Client)> {
    if !installed(DRIVER) {
        assert!(
            std::env::var_os("ARBITER_REQUIRE_BROWSER").is_none(),
            "ARBITER_REQUIRE_BROWSER is set but chromedriver is not installed"
        );
        eprintln!("skipped the browser tests: chromedriver is not installed");
        return None;
    }
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let child = Command::new(DRIVER)
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start chromedriver");
    let driver = Driver(child);
    let mut caps = serde_json::Map::new();
    let args = [
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--window-size=1200,900",
    ];
    caps.insert(
        "goog:chromeOptions".into(),
        serde_json::json!({ "args": args }),
    );
    let started = Instant::now();
    loop {
        let connector = hyper_util::client::legacy::connect::HttpConnector::new();
        match ClientBuilder::new(connector)
            .capabilities(caps.clone())
            .connect(&format!("http://127.0.0.1:{port}"))
            .await
        {
            Ok(client) => return Some((driver, client)),
            Err(e) if started.elapsed() > WAIT => panic!("can't start a browser session: {e}"),
            Err(_) => tokio::time::sleep(Duration::from_millis(100)).await,
        }
    }
}

/// axe-core's script, or `None` (with a message) when it is not installed.
fn axe_script() -> Option<String> {
    let path = std::env::var_os("ARBITER_AXE").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join(".ci/axe/node_modules/axe-core/axe.min.js"),
        PathBuf::from,
    );
    match std::fs::read_to_string(&path) {
        Ok(script) => Some(script),
        Err(e) => {
            assert!(
                std::env::var_os("ARBITER_REQUIRE_AXE").is_none(),
                "ARBITER_REQUIRE_AXE is set but axe-core is not installed: {}: {e}",
                path.display()
            );
            eprintln!(
                "skipped the accessibility check: {}: {e} (`npm ci --prefix .ci/axe` installs axe-core)",
                path.display()
            );
            None
        }
    }
}

/// Runs axe-core in the page, resolving to its violations (rule, impact, help and the elements) or to an error.
const AXE_RUN: &str = "
const done = arguments[arguments.length - 1];
const tags = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];
axe.run(document, { runOnly: { type: 'tag', values: tags } }).then(
  (results) => done(results.violations.map((v) => ({
    rule: v.id, impact: v.impact, help: v.help, elements: v.nodes.map((n) => n.html),
  }))),
  (error) => done({ error: String(error) }),
);";

/// Checks the page `c` shows with axe-core (injected over WebDriver, which the page's CSP does not govern).
async fn assert_accessible(c: &Client, axe: &str, page: &str) {
    c.execute(axe, vec![]).await.unwrap();
    let violations = c.execute_async(AXE_RUN, vec![]).await.unwrap();
    assert_eq!(
        violations,
        json!([]),
        "axe-core finds WCAG 2.1 A/AA violations on the {page} page:\n{}",
        serde_json::to_string_pretty(&violations).unwrap()
    );
}

/// Waits until the page source contains `text`.
async fn wait_for(c: &Client, text: &str) {
    let started = Instant::now();
    loop {
        let source = c.source().await.unwrap();
        if source.contains(text) {
            return;
        }
        assert!(
            started.elapsed() < WAIT,
            "the page never showed {text:?}:\n{source}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn click(c: &Client, css: &str) {
    c.find(Locator::Css(css))
        .await
        .unwrap_or_else(|e| panic!("{css}: {e}"))
        .click()
        .await
        .unwrap();
}

async fn keys(c: &Client, typed: &str) {
    let mut actions = KeyActions::new("keyboard".to_owned());
    for ch in typed.chars() {
        actions = actions
            .then(KeyAction::Down { value: ch })
            .then(KeyAction::Up { value: ch });
    }
    c.perform_actions(actions).await.unwrap();
}

async fn screenshot(c: &Client, name: &str) {
    if std::env::var_os("ARBITER_SCREENSHOTS").is_none() {
        return;
    }
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/screenshots");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join(format!("{name}.png")),
        c.screenshot().await.unwrap(),
    )
    .unwrap();
}

/// A plan whose decisions take custom answers.
fn custom_plan(id: &str) -> String {
    plan_with(id, "s", 1).replace(
        "status: pending\nanswer: null",
        "status: pending\nallow_custom: true\nanswer: null",
    )
}

fn queue() -> TempQueue {
    let queue = TempQueue::new();
    queue.drop_plan("p1.md", &plan_with("p1", "s", 2));
    queue.drop_plan("c1.md", &custom_plan("c1"));
    queue.drop_plan("s1.md", &custom_plan("s1"));
    queue.drop_plan("rich.md", RICH_CONTEXT);
    queue.drop_plan("r1.md", &plan_with("r1", "s", 1));
    queue.drop_plan("kinds.md", KINDS);
    let urgent = plan_with("u1", "s", 1).replace(
        "priority: normal",
        "priority: urgent\ntag: deploy\ndeadline: 2026-01-01T00:00:00Z",
    );
    queue.drop_plan("u1.md", &urgent);
    for i in 0..10 {
        queue.drop_plan(&format!("b{i}.md"), &plan_with(&format!("b{i}"), "bulk", 2));
    }
    queue
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_dashboard_in_a_browser() {
    let Some((_driver, c)) = browser().await else {
        return;
    };
    let dash = Dash::start(queue()).await;
    sign_in(&dash, &c).await;
    if let Some(axe) = axe_script() {
        accessible_pages(&dash, &c, &axe).await;
    }
    answer_by_click_and_by_keyboard(&dash, &c).await;
    custom_answer_and_submit(&dash, &c).await;
    stale_view(&dash, &c).await;
    request_changes(&dash, &c).await;
    bulk_ten_plans(&dash, &c).await;
    live_update(&dash, &c).await;
    every_kind(&dash, &c, axe_script().as_deref()).await;
    c.close().await.unwrap();
}

async fn sign_in(dash: &Dash, c: &Client) {
    let link = dash.login_link().await;
    c.goto(&link).await.unwrap();
    click(c, "button[type=submit]").await;
    wait_for(c, "Decision queue").await;
    wait_for(c, "Plan b9").await;
    // Overdue plans come first.
    let rows = c
        .find_all(Locator::Css("table.queue tbody tr"))
        .await
        .unwrap();
    assert!(rows[0].text().await.unwrap().contains("Plan u1"));
    screenshot(c, "queue").await;
}

async fn accessible_pages(dash: &Dash, c: &Client, axe: &str) {
    let pages = [
        ("queue", "/queue", "Plan b9"),
        ("plan", "/plan?id=cache-rollout", "Decision 1"),
        ("bulk", "/bulk?plan=b0&plan=b1", "Answer 2 plans together"),
        ("stats", "/stats", "Stats"),
    ];
    for (page, path, shows) in pages {
        c.goto(&format!("{}{path}", dash.base)).await.unwrap();
        wait_for(c, shows).await;
        assert_accessible(c, axe, page).await;
    }
}

async fn answer_by_click_and_by_keyboard(dash: &Dash, c: &Client) {
    c.goto(&format!("{}/plan?id=cache-rollout", dash.base))
        .await
        .unwrap();
    wait_for(c, "Decision 1").await;
    c.execute("document.getElementById('d0').scrollIntoView()", vec![])
        .await
        .unwrap();
    screenshot(c, "plan").await;

    c.goto(&format!("{}/plan?id=p1", dash.base)).await.unwrap();
    click(c, "#d0 button[name=option][data-key='1']").await;
    wait_for(c, "Recorded").await;
    let text = dash.run.queue.read("pending", "p1.md");
    assert!(
        text.contains("answer: \"yes\"") && text.contains("answered_by: 93533553"),
        "{text}"
    );
    // j, j: the second decision; 2: its second option.
    keys(c, "jj2").await;
    wait_for(c, "Answer: <b>no — No</b>").await;
    let text = dash.run.queue.read("pending", "p1.md");
    assert!(
        text.contains("id: q2\nstatus: answered\nanswer: \"no\""),
        "{text}"
    );
    // s: submit.
    keys(c, "s").await;
    wait_for(c, "Plan submitted").await;
    assert!(dash.run.queue.files("pending").iter().all(|f| f != "p1.md"));
    assert!(
        dash.run
            .queue
            .files("completed")
            .contains(&"p1.md".to_owned())
    );
}

async fn custom_answer_and_submit(dash: &Dash, c: &Client) {
    c.goto(&format!("{}/plan?id=c1", dash.base)).await.unwrap();
    let input = c.find(Locator::Css("#d0 input[name=text]")).await.unwrap();
    input
        .send_keys("Ship it on Friday: after the freeze")
        .await
        .unwrap();
    click(c, "#d0 button[value=custom]").await;
    wait_for(c, "Recorded").await;
    let text = dash.run.queue.read("pending", "c1.md");
    assert!(
        text.contains("answer: \"Ship it on Friday: after the freeze\""),
        "{text}"
    );
    click(c, "button[data-submit]").await;
    wait_for(c, "Plan submitted").await;
    assert!(
        dash.run
            .queue
            .files("completed")
            .contains(&"c1.md".to_owned())
    );
}

async fn stale_view(dash: &Dash, c: &Client) {
    c.goto(&format!("{}/plan?id=s1", dash.base)).await.unwrap();
    wait_for(c, "data-sse=\"open\"").await;
    // The owner starts typing (so the page does not redraw itself under them) ...
    let input = c.find(Locator::Css("#d0 input[name=text]")).await.unwrap();
    input.send_keys("maybe").await.unwrap();
    // ... the agent relabels the options meanwhile ...
    let changed = custom_plan("s1").replace("`yes` — Yes", "`yes` — Yes, and delete the backups");
    dash.run.queue.drop_plan("s1.md", &changed);
    wait_for(c, "This page changed: reload").await;
    // ... and the owner picks the option as it was shown: nothing is recorded, the page shows the plan as it is.
    click(c, "#d0 button[name=option][data-key='1']").await;
    wait_for(c, "nothing was recorded").await;
    wait_for(c, "delete the backups").await;
    assert_eq!(dash.run.queue.read("pending", "s1.md"), changed);
}

/// 🔁 Request changes typed into the plan page's form, a line break included: the plan leaves the queue for
/// returned/ with `status: changes_requested` and the feedback as typed (the browser posts the line break as CRLF;
/// the file holds `\n`).
async fn request_changes(dash: &Dash, c: &Client) {
    c.goto(&format!("{}/plan?id=r1", dash.base)).await.unwrap();
    wait_for(c, "What should the agent change?").await;
    c.find(Locator::Css("form.request-changes textarea[name=feedback]"))
        .await
        .unwrap()
        .send_keys(&format!(
            "Split it: \"db\" first{}then the cache",
            char::from(Key::Enter)
        ))
        .await
        .unwrap();
    click(c, "form.request-changes button[type=submit]").await;
    wait_for(c, "sent back to its agent").await;
    assert!(dash.run.queue.files("pending").iter().all(|f| f != "r1.md"));
    let sent = dash.run.queue.read("returned", "r1.md");
    assert!(sent.contains("\nstatus: changes_requested\n"), "{sent}");
    assert!(
        sent.contains("\nfeedback: \"Split it: \\\"db\\\" first\\nthen the cache\"\n"),
        "{sent}"
    );
    assert!(sent.contains("\nfeedback_by: 93533553\n"), "{sent}");
}

async fn bulk_ten_plans(dash: &Dash, c: &Client) {
    c.goto(&format!("{}/queue", dash.base)).await.unwrap();
    wait_for(c, "Plan b9").await;
    for i in 0..10 {
        click(c, &format!("input[name=plan][value=b{i}]")).await;
    }
    click(c, "form[action='/bulk'] button[type=submit]").await;
    wait_for(c, "Answer 10 plans together").await;
    wait_for(c, "in 10 plans").await;
    screenshot(c, "bulk").await;
    click(c, "input[name=choice0][data-key='1']").await;
    click(c, "input[name=choice1][data-key='2']").await;
    click(c, "input[name=submit]").await;
    click(c, "button[data-submit]").await;
    wait_for(c, "Bulk answering: results").await;
    let source = c.source().await.unwrap();
    assert_eq!(source.matches("<td>recorded</td>").count(), 20, "{source}");
    assert_eq!(source.matches("<td>submitted</td>").count(), 10, "{source}");
    for i in 0..10 {
        let text = dash.run.queue.read("completed", &format!("b{i}.md"));
        assert!(
            text.contains("id: q1\nstatus: answered\nanswer: \"yes\""),
            "{text}"
        );
        assert!(
            text.contains("id: q2\nstatus: answered\nanswer: \"no\""),
            "{text}"
        );
        assert!(text.contains("status: completed"), "{text}");
    }
}

async fn live_update(dash: &Dash, c: &Client) {
    c.goto(&format!("{}/queue", dash.base)).await.unwrap();
    wait_for(c, "Plan u1").await;
    // Once the page's live connection is open, an agent drops a plan: the page shows it by itself.
    wait_for(c, "data-sse=\"open\"").await;
    dash.run
        .queue
        .drop_plan("live.md", &plan_with("live", "s", 1));
    wait_for(c, "Plan live").await;
    let refreshed = c
        .execute("return document.body.dataset.refreshed || '0'", vec![])
        .await
        .unwrap();
    assert_ne!(
        refreshed,
        serde_json::json!("0"),
        "the test did not reload; the script did"
    );
}

/// Waits until the browser shows the page a form's redirect leads to: its URL ends with `anchor` and it is loaded.
async fn wait_page(c: &Client, anchor: &str) {
    let started = Instant::now();
    loop {
        let url = c.current_url().await.unwrap();
        let ready = c
            .execute("return document.readyState", vec![])
            .await
            .unwrap();
        if url.as_str().ends_with(anchor) && ready == json!("complete") {
            return;
        }
        assert!(started.elapsed() < WAIT, "never got to {anchor}: {url}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Sets the field `css` to `value` as typing would (the `input` event fires), whatever the browser's own
/// editor for that field type is.
async fn set_value(c: &Client, css: &str, value: &str) {
    c.execute(
        "var el = document.querySelector(arguments[0]); el.value = arguments[1]; \
         el.dispatchEvent(new Event('input', { bubbles: true }));",
        vec![json!(css), json!(value)],
    )
    .await
    .unwrap();
}

/// Every answer kind on the dashboard: checkboxes, a number (refused out of range, then taken), a date, Yes,
/// an edited proposal with its live diff, then Decline. The file after each.
async fn every_kind(dash: &Dash, c: &Client, axe: Option<&str>) {
    let file = || dash.run.queue.read("pending", "kinds.md");
    // The page already says "Recorded" from the answer before: wait for the file instead.
    let wait_file = |want: &'static str| async move {
        let started = Instant::now();
        while !dash.run.queue.read("pending", "kinds.md").contains(want) {
            assert!(started.elapsed() < WAIT, "the file never got {want:?}");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    };
    c.goto(&format!("{}/plan?id=release-checks", dash.base))
        .await
        .unwrap();
    wait_for(c, "Cleanup command").await;
    if let Some(axe) = axe {
        assert_accessible(c, axe, "answer kinds").await;
    }
    screenshot(c, "kinds").await;

    click(c, "#d0 input[name=pick][value='0']").await;
    click(c, "#d0 input[name=pick][value='2']").await;
    click(c, "#d0 button[value=multi]").await;
    wait_file("\nanswer: [lint, fuzz]\n").await;
    wait_page(c, "#d0").await;

    // Out of range (the field's own max lifted, as an old page or a hand-made post would be): the notice says
    // what is accepted and nothing is written.
    c.execute(
        "document.querySelector('#d1 input[name=value]').removeAttribute('max')",
        vec![],
    )
    .await
    .unwrap();
    set_value(c, "#d1 input[name=value]", "11").await;
    let before = file();
    click(c, "#d1 button[value=input]").await;
    wait_for(c, "11 is out of range. Send a whole number from 1 to 10.").await;
    assert_eq!(file(), before);
    set_value(c, "#d1 input[name=value]", "3").await;
    click(c, "#d1 button[value=input]").await;
    wait_file("\nanswer: 3\n").await;
    wait_page(c, "#d1").await;

    set_value(c, "#d2 input[name=value]", "2026-03-01").await;
    click(c, "#d2 button[value=input]").await;
    wait_file("\nanswer: \"2026-03-01\"\n").await;
    wait_page(c, "#d2").await;

    click(c, "#d3 button[value=yes]").await;
    wait_file("id: migrate\nkind: boolean\nstatus: answered\nanswer: true\n").await;
    wait_page(c, "#d3").await;

    set_value(c, "#d4 textarea", "rm -rf build/\nmake release --dry-run").await;
    let diff = c
        .find(Locator::Css("#d4 pre.diff"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        diff.contains("- make release") && diff.contains("+ make release --dry-run"),
        "{diff}"
    );
    click(c, "#d4 button[value=input]").await;
    wait_file("\nedited: true\n").await;
    let text = file();
    assert!(
        text.contains("answer: \"rm -rf build/\\nmake release --dry-run\"\n")
            && text.contains("\nedited: true\n"),
        "{text}"
    );
    // The recorded edit is drawn as a diff by the server too.
    wait_for(c, "<ins>+ make release --dry-run").await;

    click(c, "button[value=decline]").await;
    wait_for(c, "Plan submitted").await;
    let completed = dash.run.queue.read("completed", "kinds.md");
    assert!(completed.contains("\noutcome: declined\n"), "{completed}");
}
