//! The real `claude` CLI (pinned in .ci/claude), run interactively in tmux against the fake Anthropic API
//! (tests/support/anthropic.rs), with its hooks pointing at the real `arbiter` binary, the real daemon on the
//! fake Bot API, and the owner tapping: what Claude Code did and what the model received.

use std::time::Duration;

use serde_json::json;

use crate::support::TempQueue;
use crate::support::anthropic::{FakeAnthropic, ToolResult, Turn};
use crate::support::claude::{self, Project, Session};
use crate::support::daemon::OWNER;
use crate::support::daemon::Running;
use crate::support::owner::Owner;

const LONG: Duration = Duration::from_secs(90);

/// Answers the hook's question in Telegram: opens the plan announced with `title`, taps `option` (a button's
/// label) on its one decision, submits.
async fn answer_on_phone(d: &Running, title: &str, option: &str) {
    let id = d.open_decision(title, "1/1 ·").await.message_id;
    d.tap(id, option).await;
    let review = d
        .wait_message(|m| m.plain.contains("Tap to edit, or submit"))
        .await;
    d.tap(review.message_id, "📤 Submit").await;
}

/// Claude Code started in `project` against `api`, ready for a prompt.
async fn started(bin: &std::path::Path, project: &Project, api: &FakeAnthropic) -> Session {
    let session = Session::start(bin, project, &api.url);
    assert!(
        session.wait_screen("for shortcuts", LONG).await,
        "claude did not start:\n{}",
        session.screen()
    );
    session
}

/// Waits for the tool result of `id` as the model received it.
async fn result_of(api: &FakeAnthropic, session: &Session, id: &str) -> ToolResult {
    api.wait_tool_result(id, LONG).await.unwrap_or_else(|| {
        panic!(
            "no tool result for {id}; screen:\n{}\nrequests:\n{}",
            session.screen(),
            api.log()
        )
    })
}

fn bash(id: &str, command: &str) -> Turn {
    Turn::tool(
        id,
        "Bash",
        json!({"command": command, "description": "A test command"}),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bash_command_allowed_on_the_phone_runs() {
    let Some(bin) = claude::binary() else { return };
    let d = Running::start(TempQueue::new()).await;
    let api = FakeAnthropic::start(vec![bash("toolu_allow", "touch allowed.txt")]).await;
    let project = Project::new(d.queue.root(), &["PermissionRequest"]);
    let session = started(&bin, &project, &api).await;
    session.prompt("Create the file").await;
    answer_on_phone(&d, "Bash: touch allowed.txt", "✅ Approve as is").await;
    let result = result_of(&api, &session, "toolu_allow").await;
    assert!(!result.is_error, "{result:?}");
    assert!(project.path().join("allowed.txt").exists());
    assert!(
        session
            .wait_screen("Allowed by PermissionRequest hook", LONG)
            .await,
        "{}",
        session.screen()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bash_command_denied_with_a_reason_does_not_run_and_the_model_reads_why() {
    let Some(bin) = claude::binary() else { return };
    let q = TempQueue::served();
    let api = FakeAnthropic::start(vec![bash("toolu_deny", "touch denied.txt")]).await;
    let project = Project::new(q.root(), &["PermissionRequest"]);
    let session = started(&bin, &project, &api).await;
    session.prompt("Create the file").await;
    let owner = Owner::new(q.root());
    let plan = owner.wait_for_plan(LONG).expect("the question is asked");
    owner.note(&plan.plan.id, "permission", "Use the Makefile instead");
    owner.answer(&plan.plan.id, "permission", "deny");
    owner.submit(&plan.plan.id);
    let result = result_of(&api, &session, "toolu_deny").await;
    assert!(result.is_error, "{result:?}");
    assert!(
        result
            .text
            .contains("Denied by 93533553 via Arbiter: Use the Makefile instead"),
        "{result:?}"
    );
    assert!(!project.path().join("denied.txt").exists());
}

/// `🔁 Always allow this` on the phone: Arbiter's standing rule (not Claude Code's own project rule), so the
/// same command in a new `claude` session runs with no prompt anywhere (no plan, no message, no dialog), and the
/// audit trail names the rule that answered; then what it allows fails twice in a row, and the rule pauses itself.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn always_allow_this_on_the_phone_runs_the_same_command_in_a_new_session_with_no_prompt() {
    let Some(bin) = claude::binary() else { return };
    let d = Running::start(TempQueue::new()).await;
    let api = FakeAnthropic::start(vec![bash("toolu_first", "touch always.txt")]).await;
    // PostToolUse and PostToolUseFailure report what a rule allowed: two failures in a row pause it.
    let project = Project::new(
        d.queue.root(),
        &["PermissionRequest", "PostToolUse", "PostToolUseFailure"],
    );
    let session = started(&bin, &project, &api).await;
    session.prompt("Create the file").await;
    let id = d
        .open_decision("Bash: touch always.txt", "1/1 ·")
        .await
        .message_id;
    let question = d.wait_message(|m| m.message_id == id).await;
    let letter = question
        .plain
        .lines()
        .find_map(|l| l.strip_suffix(". 🔁 Always allow this"))
        .unwrap_or_else(|| panic!("no 🔁 Always allow this:\n{}", question.plain))
        .to_owned();
    assert!(
        !question.plain.contains("Always allow in this project"),
        "every always is Arbiter's: {}",
        question.plain
    );
    d.tap(id, &letter).await;
    let review = d
        .wait_message(|m| m.plain.contains("Tap to edit, or submit"))
        .await;
    d.tap(review.message_id, "📤 Submit").await;
    let done = d.wait_message(|m| m.plain.contains("Standing rule")).await;
    let result = result_of(&api, &session, "toolu_first").await;
    assert!(!result.is_error, "{result:?}");
    assert!(project.path().join("always.txt").exists());
    let rule = arbiter_zebu::queue::rules::read(d.queue.root())
        .unwrap()
        .rules[0]
        .clone();
    assert!(done.plain.contains(&rule.id), "{}", done.plain);
    assert_eq!(
        (rule.agent.as_str(), rule.project.as_deref()),
        ("claude-code", project.path().to_str())
    );
    drop(session);

    // A new claude process, a new session, the same command: it runs, and nobody was asked.
    std::fs::remove_file(project.path().join("always.txt")).unwrap();
    let sent = |d: &Running| d.chat().iter().filter(|m| m.from_bot()).count();
    let before = sent(&d);
    api.push(vec![bash("toolu_again", "touch always.txt")]);
    let session = started(&bin, &project, &api).await;
    session.prompt("Create it again").await;
    let result = result_of(&api, &session, "toolu_again").await;
    assert!(!result.is_error, "{result:?}");
    assert!(project.path().join("always.txt").exists());
    assert!(
        !session.screen().contains("Do you want"),
        "Claude Code asked:\n{}",
        session.screen()
    );
    assert_eq!(
        d.queue.files("pending"),
        Vec::<String>::new(),
        "asked again"
    );
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert_eq!(
        sent(&d),
        before,
        "a message went to the owner:\n{}",
        d.transcript()
    );
    // The trail names the rule: the line that made it (the owner's), and the answer it gave (actor rule:<id>).
    let export = crate::cli_support::Arbiter::new(&d.queue)
        .args(&["audit", "export", "--format", "jsonl"])
        .run();
    let lines: Vec<serde_json::Value> = export
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let made = lines
        .iter()
        .find(|l| l["action"] == "rule")
        .unwrap_or_else(|| panic!("{}", export.stdout));
    assert_eq!(made["actor"], OWNER.to_string());
    let by = format!("rule:{}", rule.id);
    let answered = lines.last().unwrap();
    assert_eq!(
        (answered["actor"].as_str(), answered["action"].as_str()),
        (Some(by.as_str()), Some("answer")),
        "{}",
        export.stdout
    );
    let verify = crate::cli_support::Arbiter::new(&d.queue)
        .args(&["audit", "verify"])
        .run();
    assert_eq!(verify.code, Some(0), "{verify:?}");
    assert_eq!(
        arbiter_zebu::queue::rules::read(d.queue.root())
            .unwrap()
            .rules[0]
            .fired,
        1
    );
    drop(session);

    // What it allows fails twice in a row (the file is a link into a folder that does not exist), reported by
    // Claude Code's PostToolUseFailure: the rule pauses itself, its maker is told, and the next call is asked.
    std::fs::remove_file(project.path().join("always.txt")).unwrap();
    std::os::unix::fs::symlink("/nonexistent-arbiter/x", project.path().join("always.txt"))
        .unwrap();
    api.push(vec![
        bash("toolu_fail0", "touch always.txt"),
        bash("toolu_fail1", "touch always.txt"),
        bash("toolu_asked", "touch always.txt"),
    ]);
    let session = started(&bin, &project, &api).await;
    session.prompt("Create it once more").await;
    for id in ["toolu_fail0", "toolu_fail1"] {
        let result = result_of(&api, &session, id).await;
        assert!(result.is_error, "{id}: {result:?}");
    }
    let told = d
        .wait_message(|m| m.plain.contains("A standing rule paused itself"))
        .await;
    assert!(told.plain.contains(&rule.id), "{}", told.plain);
    let now = arbiter_zebu::queue::rules::read(d.queue.root())
        .unwrap()
        .rules[0]
        .clone();
    assert_eq!(
        (now.state, now.fired),
        (arbiter_zebu::queue::rules::State::Paused, 3)
    );
    d.wait_message(|m| {
        m.plain.contains("touch always.txt") && m.buttons().iter().any(|b| b.text == "📂 Open")
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bash_command_edited_on_the_phone_runs_as_edited() {
    let Some(bin) = claude::binary() else { return };
    let q = TempQueue::served();
    let api = FakeAnthropic::start(vec![bash("toolu_edit", "touch asked.txt")]).await;
    let project = Project::new(q.root(), &["PermissionRequest"]);
    let session = started(&bin, &project, &api).await;
    session.prompt("Create the file").await;
    let owner = Owner::new(q.root());
    let plan = owner.wait_for_plan(LONG).expect("the question is asked");
    owner.input(&plan.plan.id, "permission", "touch edited.txt");
    owner.submit(&plan.plan.id);
    let result = result_of(&api, &session, "toolu_edit").await;
    assert!(!result.is_error, "{result:?}");
    assert!(project.path().join("edited.txt").exists());
    assert!(!project.path().join("asked.txt").exists());
    let done = q.read("completed", &q.files("completed")[0]);
    assert!(
        done.contains("answer: touch edited.txt\n") && done.contains("edited: true\n"),
        "{done}"
    );
}

/// Claude's AskUserQuestion with a single-select, a multi-select and a question answered with typed text, in a
/// project whose hooks `arbiter hook claude-code install` wrote.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ask_user_question_is_answered_from_the_phone() {
    let Some(bin) = claude::binary() else { return };
    let q = TempQueue::served();
    let questions = json!({"questions": [
        {"question": "Which database should the service use?", "header": "Database", "multiSelect": false,
         "options": [{"label": "Postgres", "description": "Relational"}, {"label": "SQLite", "description": "One file"}]},
        {"question": "Which checks should run before merging?", "header": "Checks", "multiSelect": true,
         "options": [{"label": "Lint", "description": "Style"}, {"label": "Unit tests", "description": "Fast"},
                     {"label": "E2E tests", "description": "Slow"}]},
        {"question": "What should the service be called?", "header": "Name", "multiSelect": false,
         "options": [{"label": "orders", "description": "Short"}, {"label": "checkout", "description": "Clear"}]}
    ]});
    let api =
        FakeAnthropic::start(vec![Turn::tool("toolu_ask", "AskUserQuestion", questions)]).await;
    let project = Project::installed(q.root(), &json!({}));
    let session = started(&bin, &project, &api).await;
    session.prompt("Set up the service").await;
    let owner = Owner::new(q.root());
    let plan = owner.wait_for_plan(LONG).expect("the questions are asked");
    assert_eq!(plan.plan.title, "Claude asks 3 questions");
    let id = &plan.plan.id;
    owner.answer(id, "q1", "postgres");
    owner.pick(id, "q2", &["lint", "e2e-tests"]);
    owner.custom(id, "q3", "orders-api");
    owner.submit(id);
    let result = result_of(&api, &session, "toolu_ask").await;
    assert!(!result.is_error, "{result:?}");
    for answer in [
        r#""Which database should the service use?"="Postgres""#,
        r#""Which checks should run before merging?"="Lint, E2E tests""#,
        r#""What should the service be called?"="orders-api""#,
    ] {
        assert!(result.text.contains(answer), "{answer} not in {result:?}");
    }
}

const PLAN_1: &str = "# Add a cache\n\n## Steps\n\n1. Add moka in front of `fetch`\n";
const PLAN_2: &str =
    "# Add a cache\n\n## Steps\n\n1. Add Redis in front of `fetch`\n2. Expire after 5 minutes\n";
const FEEDBACK: &str = "Use Redis, not an in-process cache";

/// ExitPlanMode in plan mode: the plan shown on the phone, sent back with `🔁 Request changes` on its approval
/// decision and feedback the model reads, the next plan shown as revision 2 with what changed, approved.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plan_sent_back_from_the_phone_is_revised_then_approved() {
    let Some(bin) = claude::binary() else { return };
    let d = Running::start(TempQueue::new()).await;
    let write = |id: &str, content: &str| Turn::WritePlan {
        id: id.to_owned(),
        content: content.to_owned(),
    };
    let api = FakeAnthropic::start(vec![
        write("toolu_w1", PLAN_1),
        Turn::tool("toolu_plan1", "ExitPlanMode", json!({})),
        write("toolu_w2", PLAN_2),
        Turn::tool("toolu_plan2", "ExitPlanMode", json!({})),
    ])
    .await;
    let project = Project::installed(d.queue.root(), &json!({}));
    let session = Session::start_in(&bin, &project, &api.url, "plan");
    assert!(
        session.wait_screen("plan mode on", LONG).await,
        "{}",
        session.screen()
    );
    session.prompt("Plan a cache").await;

    // The plan on the phone: open it, tap 🔁 Request changes on the approval decision itself (one tap, beside
    // ✅ Approve), type what to change.
    let shown = d.open_announced("Plan: Add a cache").await;
    let id = shown.message_id;
    assert!(
        shown.plain.contains("Add moka in front of fetch"),
        "{}",
        shown.plain
    );
    d.tap(id, "▶️ Continue").await;
    d.wait_message(|m| m.message_id == id && m.plain.contains("1/1 · Approve this plan?"))
        .await;
    d.tap(id, "🔁 Request changes").await;
    let prompt = d
        .wait_message(|m| m.plain.contains("What should the agent change"))
        .await;
    d.fake.send_reply(OWNER, FEEDBACK, prompt.message_id);
    let first = result_of(&api, &session, "toolu_plan1").await;
    assert!(first.is_error, "{first:?}");
    assert!(first.text.contains(FEEDBACK), "{first:?}");

    // Claude plans again: the same plan, revision 2, with what changed.
    let revised = d.wait_message(|m| m.plain.contains("🔁 Revision 2")).await;
    assert!(
        revised.plain.contains(FEEDBACK)
            && revised.plain.contains("- 1. Add moka in front of `fetch`")
            && revised.plain.contains("+ 1. Add Redis in front of `fetch`"),
        "{}",
        revised.plain
    );
    let owner = Owner::new(d.queue.root());
    let plan = owner.wait_for_plan(LONG).expect("the revision is pending");
    assert_eq!(plan.plan.revision, 2);
    owner.answer(&plan.plan.id, "plan", "approve");
    owner.submit(&plan.plan.id);
    let second = result_of(&api, &session, "toolu_plan2").await;
    assert!(!second.is_error, "{second:?}");
    assert_eq!(d.queue.files("completed").len(), 1);
    assert_eq!(d.queue.files("revisions").len(), 1);
}

/// An MCP server (the official Python SDK, tests/fixtures/mcp_elicit_server.py) asks a form while Claude calls
/// its tool; the owner fills it in; the server receives the typed content.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_mcp_servers_form_is_filled_in_from_the_phone() {
    let Some(bin) = claude::binary() else { return };
    if !crate::mcp_python::sdk() {
        return;
    }
    let q = TempQueue::served();
    let api = FakeAnthropic::start(vec![Turn::tool(
        "toolu_book",
        "mcp__restaurant__book_table",
        json!({}),
    )])
    .await;
    // The user's own keys: the server enabled, its tool allowed; install merges the hooks in beside them.
    let project = Project::installed(
        q.root(),
        &json!({
            "enableAllProjectMcpServers": true,
            "permissions": {"allow": ["mcp__restaurant__book_table"]},
        }),
    );
    let log = project.path().join("elicit.log");
    project.write(
        ".mcp.json",
        &json!({"mcpServers": {"restaurant": {
            "command": "python3",
            "args": [concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/mcp_elicit_server.py")],
            "env": {"ELICIT_LOG": log},
        }}}),
    );
    let session = started(&bin, &project, &api).await;
    session.prompt("Book a table").await;
    let owner = Owner::new(q.root());
    let plan = owner.wait_for_plan(LONG).expect("the form is asked");
    assert!(plan.plan.elicitation, "{:?}", plan.plan);
    assert!(
        plan.plan.title.starts_with("restaurant: Book a table"),
        "{}",
        plan.plan.title
    );
    let id = &plan.plan.id;
    owner.input(id, "name", "Ada Lovelace");
    owner.input(id, "guests", "4");
    owner.input(id, "terrace", "yes");
    owner.answer(id, "time", "20:30");
    owner.submit(id);
    let result = result_of(&api, &session, "toolu_book").await;
    let expected = json!({"action": "accept", "content": {"name": "Ada Lovelace", "guests": 4, "terrace": true, "time": "20:30"}});
    assert!(!result.is_error, "{result:?}");
    let received: serde_json::Value =
        serde_json::from_str(std::fs::read_to_string(&log).unwrap().trim()).unwrap();
    assert_eq!(received, expected);
    let told: serde_json::Value = serde_json::from_str(result.text.trim()).unwrap();
    assert_eq!(told, expected);
}
