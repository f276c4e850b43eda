//! Every prompt Claude Code raises, through the real `arbiter hook claude-code` and the real daemon on the fake
//! Bot API: what the owner sees on the phone, the taps, and the exact hook output Claude Code reads. And
//! `hook claude-code install` on real settings files.

use serde_json::{Value, json};

use crate::cli_support::{Arbiter, Output, collect};
use crate::support::TempQueue;
use crate::support::daemon::{OWNER, Running};
use crate::support::owner::Owner;

const PR_BASH: &str = include_str!("fixtures/claude-code/permission-request-bash.json");
const ASK: &str = include_str!("fixtures/claude-code/permission-request-ask-user-question.json");
const PLAN: &str = include_str!("fixtures/claude-code/permission-request-exit-plan-mode.json");
const FORM: &str = include_str!("fixtures/claude-code/elicitation.json");

/// The hook's output as JSON (it exits 0 and says nothing on stderr).
async fn hook_output(child: std::process::Child) -> Value {
    let out: Output = tokio::task::spawn_blocking(move || collect(child))
        .await
        .unwrap();
    assert_eq!((out.code, out.stderr.as_str()), (Some(0), ""), "{out:?}");
    serde_json::from_str(out.stdout.trim()).unwrap_or_else(|e| panic!("{e}: {out:?}"))
}

fn hook(d: &Running, payload: &str) -> std::process::Child {
    Arbiter::new(&d.queue)
        .args(&["hook", "claude-code", "--timeout", "60s"])
        .stdin(payload)
        .spawn()
}

async fn submit(d: &Running) {
    let review = d
        .wait_message(|m| m.plain.contains("Tap to edit, or submit"))
        .await;
    d.tap(review.message_id, "📤 Submit").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bash_command_edited_on_the_phone_goes_back_as_updated_input() {
    let d = Running::start(TempQueue::new()).await;
    let child = hook(&d, PR_BASH);
    let view = d
        .open_decision("Bash: npm install left-pad", "1/1 · Run this command?")
        .await;
    let id = view.message_id;
    assert!(
        view.plain.contains("npm install left-pad"),
        "{}",
        view.plain
    );
    d.tap(id, "✏️ Edit").await;
    let prompt = d
        .wait_message(|m| {
            m.plain
                .contains("Send the edited version of Run this command?")
        })
        .await;
    d.fake.send_reply(
        OWNER,
        "npm install --save-exact left-pad",
        prompt.message_id,
    );
    d.wait_message(|m| m.plain.contains("Run this command? → edited"))
        .await;
    submit(&d).await;
    assert_eq!(
        hook_output(child).await["hookSpecificOutput"]["decision"],
        json!({"behavior": "allow", "updatedInput": {
            "command": "npm install --save-exact left-pad",
            "description": "Install the left-pad package",
        }})
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ask_user_question_is_a_choice_and_toggles_on_the_phone() {
    let d = Running::start(TempQueue::new()).await;
    let child = hook(&d, ASK);
    let view = d
        .open_decision(
            "Claude asks 2 questions",
            "1/2 · Database: Which database should the service use?",
        )
        .await;
    let id = view.message_id;
    assert!(
        view.plain
            .contains("Postgres: Relational, the team knows it"),
        "{}",
        view.plain
    );
    d.tap(id, "A").await;
    d.wait_message(|m| m.message_id == id && m.plain.contains("2/2 · Checks"))
        .await;
    d.tap(id, "☐ A. Lint").await;
    d.wait_message(|m| m.message_id == id && m.buttons().iter().any(|b| b.text == "✅ Done (1)"))
        .await;
    d.tap(id, "☐ C. E2E tests").await;
    d.wait_message(|m| m.message_id == id && m.buttons().iter().any(|b| b.text == "✅ Done (2)"))
        .await;
    d.tap(id, "✅ Done (2)").await;
    submit(&d).await;
    let out = hook_output(child).await;
    let decision = &out["hookSpecificOutput"]["decision"];
    assert_eq!(decision["behavior"], "allow");
    assert_eq!(
        decision["updatedInput"]["answers"],
        json!({
            "Which database should the service use?": "Postgres",
            "Which checks should run before merging?": "Lint, E2E tests",
        })
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plan_is_shown_whole_and_approved_on_the_phone() {
    let d = Running::start(TempQueue::new()).await;
    let child = hook(&d, PLAN);
    let shown = d.open_announced("Plan: Add a cache").await;
    let id = shown.message_id;
    assert!(
        shown.plain.contains(
            "Steps\n\n1. Add moka in front of fetch_prices\n2. Expire entries after 5 minutes"
        ),
        "{}",
        shown.plain
    );
    d.tap(id, "▶️ Continue").await;
    d.wait_message(|m| m.message_id == id && m.plain.contains("1/1 · Approve this plan?"))
        .await;
    // The lone option reads as itself, beside 🔁 Request changes.
    d.tap(id, "✅ Approve").await;
    submit(&d).await;
    let out = hook_output(child).await;
    let payload: Value = serde_json::from_str(PLAN).unwrap();
    assert_eq!(
        out["hookSpecificOutput"]["decision"],
        json!({"behavior": "allow", "updatedInput": payload["tool_input"]})
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plan_is_sent_back_in_one_tap_and_claude_reads_the_request() {
    let d = Running::start(TempQueue::new()).await;
    let child = hook(&d, PLAN);
    let view = d
        .open_decision("Plan: Add a cache", "1/1 · Approve this plan?")
        .await;
    d.tap(view.message_id, "🔁 Request changes").await;
    let prompt = d
        .wait_message(|m| m.plain.contains("What should the agent change in"))
        .await;
    d.fake
        .send_reply(OWNER, "Use Redis, not moka", prompt.message_id);
    let out = hook_output(child).await;
    assert_eq!(
        out["hookSpecificOutput"]["decision"],
        json!({"behavior": "deny", "message": "The user asked for changes: Use Redis, not moka"})
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_mcp_form_is_answered_or_declined_on_the_phone() {
    let d = Running::start(TempQueue::new()).await;
    let child = hook(&d, FORM);
    let id = d
        .open_decision("restaurant: Book a table at Chez Arbiter", "1/4 · Name")
        .await
        .message_id;
    let owner = Owner::new(d.queue.root());
    let plan = owner.wait_for_plan(crate::support::daemon::WAIT).unwrap();
    owner.input(&plan.plan.id, "name", "Ada Lovelace");
    owner.input(&plan.plan.id, "guests", "4");
    owner.skip(&plan.plan.id, "terrace");
    owner.answer(&plan.plan.id, "time", "20:30");
    owner.submit(&plan.plan.id);
    assert_eq!(
        hook_output(child).await,
        json!({"hookSpecificOutput": {"hookEventName": "Elicitation", "action": "accept",
               "content": {"name": "Ada Lovelace", "guests": 4, "time": "20:30"}}})
    );

    // ❌ Decline, from the plan's view (a new announcement: the first one shows the plan that was answered).
    let child = hook(&d, FORM);
    let announced = d
        .wait_message(|m| m.plain.contains("restaurant: Book a table") && m.message_id != id)
        .await;
    let plan = announced.message_id;
    d.tap(plan, "📂 Open").await;
    d.wait_message(|m| m.message_id == plan && m.plain.contains("📄"))
        .await;
    d.tap(plan, "❌ Decline").await;
    assert_eq!(
        hook_output(child).await,
        json!({"hookSpecificOutput": {"hookEventName": "Elicitation", "action": "decline"}})
    );
}

/// `hook claude-code install` through the real binary, with HOME at `home`.
fn install(q: &TempQueue, home: &std::path::Path, args: &[&str]) -> Output {
    let mut all = vec!["hook", "claude-code", "install"];
    all.extend_from_slice(args);
    Arbiter::new(q).env("HOME", home).args(&all).run()
}

#[test]
fn install_merges_into_the_users_settings_once_and_dry_run_writes_nothing() {
    let q = TempQueue::new();
    let home = tempfile::tempdir().unwrap();
    let settings = home.path().join(".claude/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    let mine = r#"{"model": "opus", "hooks": {"PermissionRequest": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "my-logger"}]}]}}"#;
    std::fs::write(&settings, mine).unwrap();

    let dry = install(&q, home.path(), &["--dry-run", "--timeout", "5m"]);
    assert_eq!(dry.code, Some(0), "{dry:?}");
    assert_eq!(
        std::fs::read_to_string(&settings).unwrap(),
        mine,
        "dry run wrote"
    );
    assert!(dry.stderr.contains("nothing was written"), "{dry:?}");
    let printed: Value = serde_json::from_str(&dry.stdout).unwrap();

    let done = install(&q, home.path(), &["--timeout", "5m"]);
    assert_eq!(done.code, Some(0), "{done:?}");
    assert!(
        done.stdout
            .contains("PermissionRequest (added), Elicitation (added), Stop (added)"),
        "{done:?}"
    );
    let text = std::fs::read_to_string(&settings).unwrap();
    let written: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(written, printed, "the dry run printed what install writes");
    assert_eq!(written["model"], "opus");
    let groups = written["hooks"]["PermissionRequest"].as_array().unwrap();
    assert_eq!(groups[0]["hooks"][0]["command"], "my-logger");
    let ours = &groups[1]["hooks"][0];
    let command = ours["command"].as_str().unwrap();
    assert!(
        command.starts_with(&format!("'{}' --queue '", env!("CARGO_BIN_EXE_arbiter")))
            && command.ends_with(" hook claude-code --timeout 5m"),
        "{command}"
    );
    assert_eq!(
        ours["timeout"], 360,
        "a minute above the hook's own timeout"
    );
    assert_eq!(written["hooks"]["Elicitation"][0]["hooks"][0], *ours);

    // Again: nothing changes, byte for byte.
    let again = install(&q, home.path(), &["--timeout", "5m"]);
    assert!(
        again
            .stdout
            .contains("PermissionRequest (already there), Elicitation (already there)"),
        "{again:?}"
    );
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), text);
}

#[test]
fn install_into_a_project_and_a_broken_settings_file_is_refused_untouched() {
    let q = TempQueue::new();
    let home = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    let dir = project.path().to_str().unwrap();
    let out = install(&q, home.path(), &["--project", dir]);
    assert_eq!(out.code, Some(0), "{out:?}");
    let local = project.path().join(".claude/settings.local.json");
    let written: Value = serde_json::from_str(&std::fs::read_to_string(&local).unwrap()).unwrap();
    assert_eq!(
        written["hooks"]["PermissionRequest"][0]["hooks"][0]["timeout"],
        600
    );
    assert!(!home.path().join(".claude").exists());

    let broken = "{\n  \"permissions\": {\"allow\": [\"Bash(ls)\",]}\n}\n";
    std::fs::write(&local, broken).unwrap();
    let out = install(&q, home.path(), &["--project", dir]);
    assert_eq!(out.code, Some(2), "{out:?}");
    assert!(
        out.stderr
            .starts_with(&format!("arbiter: {}: line 2, column", local.display()))
            && out.stderr.contains("nothing was written"),
        "{out:?}"
    );
    assert_eq!(std::fs::read_to_string(&local).unwrap(), broken);

    let out = install(&q, home.path(), &["--project", "/nonexistent/dir"]);
    assert_eq!(out.code, Some(2), "{out:?}");
    assert!(
        out.stderr
            .contains("--project /nonexistent/dir: not a folder"),
        "{out:?}"
    );
}
