//! `arbiter hook codex|gemini|qwen|copilot` (and claude-code's finished hook) through the real binary, on the
//! hook inputs the real CLIs sent (tests/fixtures/agents/): the question in pending/, the owner's answer written
//! through the action layer as a tap would, the agent's exact answer out. Whatever goes wrong — bad input, an
//! unknown agent, bad arguments, no daemon, an unwritable queue — the hook exits 0 with the agent's "no decision"
//! (a deny for Gemini, which has no prompt of its own) and one line on stderr.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::cli_support::{Arbiter, Output, collect};
use crate::support::TempQueue;
use crate::support::daemon::{Running, settings};
use crate::support::owner::Owner;

const CODEX_PERMISSION: &str = include_str!("fixtures/agents/codex/PermissionRequest.json");
const CODEX_STOP: &str = include_str!("fixtures/agents/codex/Stop.json");
const CODEX_PATCH: &str =
    include_str!("fixtures/agents/codex/PermissionRequest-apply_patch-update.json");
const GEMINI_SHELL: &str = include_str!("fixtures/agents/gemini/BeforeTool.json");
const GEMINI_DONE: &str = include_str!("fixtures/agents/gemini/AfterAgent.json");
const QWEN_ASK: &str = include_str!("fixtures/agents/qwen/PreToolUse-ask_user_question.json");
const COPILOT_PERMISSION: &str = include_str!("fixtures/agents/copilot/permissionRequest.json");
const COPILOT_STOP: &str = include_str!("fixtures/agents/copilot/agentStop.json");
const COPILOT_TRANSCRIPT: &str = include_str!("fixtures/agents/copilot/transcript-events.jsonl");
const WAIT: Duration = Duration::from_secs(20);

fn hook(q: &TempQueue, agent: &str, args: &[&str], payload: &str) -> Arbiter {
    let mut all = vec!["hook", agent];
    if !args.contains(&"--timeout") {
        all.extend(["--timeout", "60s"]);
    }
    all.extend_from_slice(args);
    Arbiter::new(q).args(&all).stdin(payload)
}

/// Runs the hook; when its question is pending, `owner` answers it; returns the hook's output and the plan as it
/// was pushed.
fn ask(
    q: &TempQueue,
    agent: &str,
    payload: &str,
    owner: impl FnOnce(&Owner, &str),
) -> (Output, String) {
    let child = hook(q, agent, &[], payload).spawn();
    let human = Owner::new(q.root());
    let plan = human
        .wait_for_plan(WAIT)
        .expect("the question reaches pending/");
    let text = std::fs::read_to_string(&plan.path).unwrap();
    owner(&human, &plan.plan.id);
    (collect(child), text)
}

fn pick(decision: &'static str, key: &'static str) -> impl FnOnce(&Owner, &str) {
    move |owner, id| {
        owner.answer(id, decision, key);
        owner.submit(id);
    }
}

fn typed(decision: &'static str, text: &'static str) -> impl FnOnce(&Owner, &str) {
    move |owner, id| {
        owner.custom(id, decision, text);
        owner.submit(id);
    }
}

/// `payload` with `key` set to `value`.
fn with(payload: &str, key: &str, value: Value) -> String {
    let mut v: Value = serde_json::from_str(payload).unwrap();
    v[key] = value;
    v.to_string()
}

#[test]
fn codex_allowed_on_the_phone_is_allowed_and_a_deny_note_is_what_the_model_reads() {
    let q = TempQueue::served();
    let (out, plan) = ask(&q, "codex", CODEX_PERMISSION, pick("permission", "allow"));
    assert_eq!(
        (out.code, out.stdout.as_str(), out.stderr.as_str()),
        (
            Some(0),
            "{\"hookSpecificOutput\":{\"hookEventName\":\"PermissionRequest\",\"decision\":{\"behavior\":\"allow\"}}}\n",
            ""
        )
    );
    assert!(plan.contains("agent: codex\n"), "{plan}");
    assert!(plan.contains("# Bash: touch allowed.txt\n"), "{plan}");
    assert!(
        plan.contains("Codex asks to run a command in `/tmp/x34/codex/runs/allow/proj`: Create the marker file."),
        "{plan}"
    );
    assert!(plan.contains("```bash\ntouch allowed.txt\n```"), "{plan}");
    assert!(
        plan.contains("- `allow-session` — ✅ Allow for this session (touch allowed.txt)"),
        "{plan}"
    );
    assert_eq!(q.files("notify"), Vec::<String>::new());

    let (out, _) = ask(&q, "codex", CODEX_PERMISSION, |owner, id| {
        owner.note(id, "permission", "Not in this folder: use /tmp instead");
        owner.answer(id, "permission", "deny");
        owner.submit(id);
    });
    assert_eq!(
        out.stdout,
        "{\"hookSpecificOutput\":{\"hookEventName\":\"PermissionRequest\",\"decision\":{\"behavior\":\"deny\",\"message\":\"Denied by 93533553 via Arbiter: Not in this folder: use /tmp instead\"}}}\n"
    );
}

#[test]
fn allow_for_this_session_answers_the_same_command_at_once_and_audits_each_use() {
    let q = TempQueue::served();
    let (out, _) = ask(
        &q,
        "codex",
        CODEX_PERMISSION,
        pick("permission", "allow-session"),
    );
    assert!(out.stdout.contains("\"behavior\":\"allow\""), "{out:?}");
    let started = Instant::now();
    let again = hook(&q, "codex", &[], CODEX_PERMISSION).run();
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(
        (again.code, again.stdout.as_str()),
        (
            Some(0),
            "{\"hookSpecificOutput\":{\"hookEventName\":\"PermissionRequest\",\"decision\":{\"behavior\":\"allow\"}}}\n"
        )
    );
    assert_eq!(q.files("pending"), Vec::<String>::new(), "nobody was asked");
    assert_eq!(q.files("completed").len(), 1);
    let audit: String = q
        .files("audit")
        .iter()
        .map(|f| q.read("audit", f))
        .collect();
    assert!(audit.contains("\"action\":\"grant\""), "{audit}");
    assert!(
        audit.contains("\"action\":\"allow-for-session\""),
        "{audit}"
    );
    // Another command, or another session, is asked again.
    let other = with(CODEX_PERMISSION, "session_id", json!("another-session"));
    let child = hook(&q, "codex", &["--timeout", "1s"], &other).spawn();
    let out = collect(child);
    assert!(out.stderr.contains("no answer to plan"), "{out:?}");
}

#[test]
fn a_codex_patch_is_shown_as_its_diff() {
    let q = TempQueue::served();
    let (_, plan) = ask(&q, "codex", CODEX_PATCH, pick("permission", "deny"));
    assert!(
        plan.contains("```diff\n--- /var/tmp/x34-outside.txt\n+++ /var/tmp/x34-outside.txt\n@@\n-outside\n+changed outside\n```"),
        "{plan}"
    );
    assert!(!plan.contains("*** Begin Patch"), "{plan}");
}

#[test]
fn a_question_tool_is_asked_and_answered_by_denying_it_with_the_answer() {
    let q = TempQueue::served();
    let (out, plan) = ask(&q, "qwen", QWEN_ASK, pick("q1", "postgres"));
    assert!(
        plan.contains("title: \"Qwen asks: Which database should I use?\""),
        "{plan}"
    );
    assert_eq!(
        out.stdout,
        "{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"deny\",\"permissionDecisionReason\":\"The user answered: Postgres\"}}\n"
    );
}

#[test]
fn gemini_and_copilot_answer_in_their_own_shapes() {
    let q = TempQueue::served();
    let (out, _) = ask(&q, "gemini", GEMINI_SHELL, pick("permission", "allow"));
    assert_eq!(out.stdout, "{\"decision\":\"allow\"}\n");
    let (out, _) = ask(
        &q,
        "copilot",
        COPILOT_PERMISSION,
        pick("permission", "deny"),
    );
    assert_eq!(
        out.stdout,
        "{\"behavior\":\"deny\",\"message\":\"Denied by 93533553 via Arbiter\"}\n"
    );
    // Gemini's own prompt ignores an allow: unanswered, the call is denied, never run.
    let out = hook(&q, "gemini", &["--timeout", "1s"], GEMINI_SHELL).run();
    assert_eq!(
        (out.code, out.stdout.as_str()),
        (
            Some(0),
            "{\"decision\":\"deny\",\"reason\":\"No answer via Arbiter within 1s\"}\n"
        )
    );
    assert!(out.stderr.ends_with("answering `deny`\n"), "{}", out.stderr);
    assert_eq!(q.files("pending"), Vec::<String>::new(), "withdrawn");
}

#[test]
fn a_finished_turn_goes_on_with_the_typed_instruction_and_stops_on_done() {
    let q = TempQueue::served();
    let (out, card) = ask(&q, "codex", CODEX_STOP, typed("next", "Now run the tests"));
    assert_eq!(
        (out.code, out.stdout.as_str(), out.stderr.as_str()),
        (
            Some(0),
            "{\"decision\":\"block\",\"reason\":\"Now run the tests\"}\n",
            ""
        )
    );
    assert!(
        card.contains("title: \"🏁 Codex finished · proj\""),
        "{card}"
    );
    assert!(card.contains("\nCreated the file.\n"), "{card}");
    assert!(card.contains("## Decision 1: What next?"), "{card}");
    assert!(card.contains("- `done` — 🏁 Done"), "{card}");
    assert!(card.contains("allow_custom: true"), "{card}");
    assert!(card.contains("deadline: \"10m\""), "{card}");
    let first = q.files("completed")[0].clone();

    // The next turn of the session: a reply to the previous card; Done lets Codex stop.
    let next = with(CODEX_STOP, "last_assistant_message", json!("Tests pass."));
    let (out, card) = ask(&q, "codex", &next, pick("next", "done"));
    assert_eq!(
        (out.code, out.stdout.as_str(), out.stderr.as_str()),
        (Some(0), "", "")
    );
    let previous = q.read("completed", &first);
    let previous_id = previous
        .lines()
        .find_map(|l| l.strip_prefix("id: "))
        .unwrap()
        .trim_matches('"');
    assert!(
        card.contains(&format!("reply_to: {previous_id}\n")),
        "{card}"
    );
}

#[test]
fn a_finished_card_nobody_answers_is_withdrawn_and_the_agent_stops() {
    let q = TempQueue::served();
    let out = hook(
        &q,
        "claude-code",
        &["--stop-timeout", "1s"],
        include_str!("fixtures/claude-code/stop.json"),
    )
    .run();
    assert_eq!((out.code, out.stdout.as_str()), (Some(0), ""));
    assert!(
        out.stderr
            .contains("within 1s, withdrawn from the queue; letting Claude Code stop"),
        "{}",
        out.stderr
    );
    assert_eq!(q.files("pending"), Vec::<String>::new());
    // On the record: withdrawn by its agent, with why, and no notify file.
    let done = q.read("completed", &q.files("completed")[0]);
    assert!(done.contains("status: withdrawn\n"), "{done}");
    assert!(
        done.contains("withdrawn_by: \"agent:claude-code\"\n")
            || done.contains("withdrawn_by: agent:claude-code\n"),
        "{done}"
    );
    assert_eq!(q.files("notify"), Vec::<String>::new());
}

#[test]
fn the_same_turn_finishing_twice_is_one_card() {
    let q = TempQueue::served();
    let first = hook(
        &q,
        "qwen",
        &[],
        include_str!("fixtures/agents/qwen/Stop.json"),
    )
    .spawn();
    let owner = Owner::new(q.root());
    let card = owner.wait_for_plan(WAIT).unwrap();
    let second = hook(
        &q,
        "qwen",
        &[],
        include_str!("fixtures/agents/qwen/Stop.json"),
    )
    .spawn();
    std::thread::sleep(Duration::from_millis(1500));
    assert_eq!(q.files("pending").len(), 1, "{:?}", q.files("pending"));
    owner.custom(&card.plan.id, "next", "Add a README");
    owner.submit(&card.plan.id);
    for child in [first, second] {
        let out = collect(child);
        assert_eq!(
            out.stdout,
            "{\"decision\":\"block\",\"reason\":\"Add a README\"}\n"
        );
    }
}

#[test]
fn gemini_shows_only_what_is_new_in_its_repeated_response() {
    let q = TempQueue::served();
    let (_, card) = ask(&q, "gemini", GEMINI_DONE, typed("next", "Run it again"));
    assert!(card.contains("\nCreated the file.\n"), "{card}");
    assert!(card.contains("15 continuations"), "{card}");
    let next = with(
        GEMINI_DONE,
        "prompt_response",
        json!("Created the file.\nRan it again: all green."),
    );
    let (_, card) = ask(&q, "gemini", &next, pick("next", "done"));
    assert!(card.contains("\nRan it again: all green.\n"), "{card}");
    assert!(!card.contains("Created the file."), "{card}");
}

#[test]
fn copilots_last_message_comes_from_its_transcript() {
    let q = TempQueue::served();
    let transcript = q.root().join("events.jsonl");
    std::fs::write(&transcript, COPILOT_TRANSCRIPT).unwrap();
    let payload = with(COPILOT_STOP, "transcriptPath", json!(transcript));
    let child = hook(&q, "copilot", &["--event", "agentStop"], &payload).spawn();
    let owner = Owner::new(q.root());
    let card = owner.wait_for_plan(WAIT).unwrap();
    let text = std::fs::read_to_string(&card.path).unwrap();
    assert!(text.contains("\nCreated the file.\n"), "{text}");
    assert!(text.contains("8 times in a row"), "{text}");
    owner.answer(&card.plan.id, "next", "done");
    owner.submit(&card.plan.id);
    assert_eq!(collect(child).stdout, "");
}

#[test]
fn no_daemon_falls_back_at_once_and_pushes_nothing() {
    let q = TempQueue::new();
    let started = Instant::now();
    let codex = hook(&q, "codex", &[], CODEX_PERMISSION).run();
    let gemini = hook(&q, "gemini", &[], GEMINI_SHELL).run();
    let stop = hook(&q, "codex", &[], CODEX_STOP).run();
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!((codex.code, codex.stdout.as_str()), (Some(0), ""));
    assert!(
        codex
            .stderr
            .starts_with("arbiter: no arbiter daemon is running on the queue ")
            && codex
                .stderr
                .ends_with("nobody would see the question; answering `ask`\n"),
        "{}",
        codex.stderr
    );
    assert!(
        gemini.stdout.starts_with("{\"decision\":\"deny\",\"reason\":\"Arbiter could not ask: no arbiter daemon is running"),
        "{}",
        gemini.stdout
    );
    assert_eq!((stop.code, stop.stdout.as_str()), (Some(0), ""));
    assert!(
        stop.stderr.ends_with("; letting Codex stop\n"),
        "{}",
        stop.stderr
    );
    assert_eq!(q.files("pending"), Vec::<String>::new());
}

#[test]
fn bad_input_unknown_agents_and_bad_arguments_exit_0_with_no_decision() {
    let q = TempQueue::served();
    for (agent, stdout) in [
        ("codex", ""),
        ("qwen", ""),
        ("copilot", ""),
        (
            "gemini",
            "{\"decision\":\"deny\",\"reason\":\"Arbiter could not ask: the hook input is not JSON (expected value at line 1 column 1)\"}\n",
        ),
    ] {
        let out = hook(&q, agent, &[], "garbage").run();
        assert_eq!(
            (out.code, out.stdout.as_str()),
            (Some(0), stdout),
            "{agent}"
        );
        assert_eq!(out.stderr.lines().count(), 1, "{agent}: {}", out.stderr);
    }
    // A finished hook that can't read its input lets the agent stop: it never goes on by itself.
    let out = hook(&q, "gemini", &["--event", "AfterAgent"], "").run();
    assert_eq!((out.code, out.stdout.as_str()), (Some(0), ""));
    assert!(
        out.stderr.ends_with("; letting Gemini CLI stop\n"),
        "{}",
        out.stderr
    );

    let out = Arbiter::new(&q)
        .args(&["hook", "codx"])
        .stdin(CODEX_PERMISSION)
        .run();
    assert_eq!((out.code, out.stdout.as_str()), (Some(0), ""));
    assert!(
        out.stderr
            .contains("`codx` is not an agent `arbiter hook` knows"),
        "{}",
        out.stderr
    );
    // An unknown name on Gemini's BeforeTool is still a deny: printing nothing would let the call run.
    let out = Arbiter::new(&q)
        .args(&["hook", "gemni"])
        .stdin(GEMINI_SHELL)
        .run();
    assert_eq!(out.code, Some(0));
    assert!(
        out.stdout.starts_with("{\"decision\":\"deny\""),
        "{}",
        out.stdout
    );

    let out = Arbiter::new(&q)
        .args(&["hook", "codex", "--timeout", "soon"])
        .stdin(CODEX_PERMISSION)
        .run();
    assert_eq!((out.code, out.stdout.as_str()), (Some(0), ""));
    assert!(
        out.stderr
            .starts_with("arbiter: bad arguments to `arbiter hook codex`: invalid value 'soon'"),
        "{}",
        out.stderr
    );
    assert_eq!(q.files("pending"), Vec::<String>::new());
}

#[test]
fn an_unwritable_queue_answers_no_decision() {
    let q = TempQueue::served();
    let not_a_folder = q.root().join("pending").join("file");
    std::fs::write(&not_a_folder, "").unwrap();
    let out = Arbiter::at(&not_a_folder)
        .args(&["hook", "copilot"])
        .stdin(COPILOT_PERMISSION)
        .run();
    assert_eq!((out.code, out.stdout.as_str()), (Some(0), ""));
    assert!(
        out.stderr
            .starts_with("arbiter: the queue is unreachable: "),
        "{}",
        out.stderr
    );
}

fn install(q: &TempQueue, home: &std::path::Path, agent: &str, args: &[&str]) -> Output {
    let mut all = vec!["hook", agent, "install"];
    all.extend_from_slice(args);
    Arbiter::new(q)
        .env("HOME", home)
        .env("CODEX_HOME", "")
        .args(&all)
        .run()
}

#[test]
fn install_writes_each_agents_file_in_its_unit_and_says_what_to_do_next() {
    let q = TempQueue::new();
    let home = tempfile::tempdir().unwrap();
    let out = install(&q, home.path(), "codex", &[]);
    assert_eq!(out.code, Some(0), "{out:?}");
    assert!(
        out.stdout
            .contains("PermissionRequest (added), PreToolUse (added), Stop (added)"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("trusted"), "{}", out.stdout);
    let codex: Value = serde_json::from_str(
        &std::fs::read_to_string(home.path().join(".codex/hooks.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        codex["hooks"]["PermissionRequest"][0]["hooks"][0]["timeout"],
        600
    );
    assert_eq!(codex["hooks"]["Stop"][0]["hooks"][0]["timeout"], 660);

    let out = install(
        &q,
        home.path(),
        "gemini",
        &["--timeout", "2m", "--stop-timeout", "5m"],
    );
    assert!(
        out.stdout.contains("--approval-mode yolo"),
        "{}",
        out.stdout
    );
    let gemini: Value = serde_json::from_str(
        &std::fs::read_to_string(home.path().join(".gemini/settings.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(gemini["hooksConfig"]["enabled"], true);
    let before = &gemini["hooks"]["BeforeTool"][0]["hooks"][0];
    assert_eq!(before["timeout"], 180_000, "milliseconds");
    assert!(
        before["command"]
            .as_str()
            .unwrap()
            .ends_with(" hook gemini --timeout 2m --stop-timeout 5m --event BeforeTool"),
        "{before}"
    );
    assert_eq!(
        gemini["hooks"]["AfterAgent"][0]["hooks"][0]["timeout"],
        360_000
    );

    let project = tempfile::tempdir().unwrap();
    let dir = project.path().to_str().unwrap();
    let out = install(&q, home.path(), "qwen", &["--project", dir, "--no-stop"]);
    assert!(
        out.stdout
            .contains("PermissionRequest (added), PreToolUse (added), PostToolUse (added), PostToolUseFailure (added)\n"),
        "{}",
        out.stdout
    );
    let qwen: Value = serde_json::from_str(
        &std::fs::read_to_string(project.path().join(".qwen/settings.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(qwen["hooks"].get("Stop"), None);

    let out = install(&q, home.path(), "copilot", &["--project", dir]);
    assert_eq!(out.code, Some(0), "{out:?}");
    let copilot: Value = serde_json::from_str(
        &std::fs::read_to_string(project.path().join(".github/hooks/arbiter.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(copilot["version"], 1);
    assert_eq!(copilot["hooks"]["agentStop"][0]["timeoutSec"], 660);
    let again = install(&q, home.path(), "copilot", &["--project", dir]);
    assert!(again.stdout.contains("permissionRequest (already there), preToolUse (already there), agentStop (already there)"), "{}", again.stdout);
}

/// The entry of plan `plan` in the daemon's `telegram-threads.json` (as `file` parsed).
fn announced<'a>(file: &'a Value, plan: &str) -> Option<&'a Value> {
    file["announced"]
        .as_array()?
        .iter()
        .find(|a| a["plan"] == plan)
}

/// Waits until the daemon's `telegram-threads.json` at `path` satisfies `pred` (the daemon is stopped only once it
/// has kept what it sent: one stopped between sending and keeping would forget that one message).
async fn kept_so(path: &std::path::Path, pred: impl Fn(&Value) -> bool) {
    let started = Instant::now();
    loop {
        let file = std::fs::read_to_string(path)
            .ok()
            .and_then(|t| serde_json::from_str::<Value>(&t).ok());
        if file.as_ref().is_some_and(&pred) {
            return;
        }
        assert!(started.elapsed() < WAIT, "never kept so: {file:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The whole way: each finished card of a session is announced by the real daemon as a reply to the session's
/// previous card, so the session reads as one thread on the phone — across restarts of the daemon too, and a card
/// its hook gave up on while the daemon was away is still redrawn to say it was withdrawn.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sessions_finished_cards_are_one_thread_in_the_chat() {
    let d = Running::start(TempQueue::new()).await;
    let owner = Owner::new(d.queue.root());
    let child = hook(&d.queue, "codex", &[], CODEX_STOP).spawn();
    let first = d.wait_message(|m| m.plain.contains("Codex finished")).await;
    assert_eq!(first.reply_to, None);
    let card = owner.wait_for_plan(WAIT).unwrap();
    owner.custom(&card.plan.id, "next", "Now run the tests");
    owner.submit(&card.plan.id);
    let out = tokio::task::spawn_blocking(move || collect(child))
        .await
        .unwrap();
    assert_eq!(
        out.stdout,
        "{\"decision\":\"block\",\"reason\":\"Now run the tests\"}\n"
    );

    // The daemon restarts between the two turns: the thread is kept in the queue folder.
    let fake = d.fake.clone();
    let queue = d.stop().await;
    let s = settings(&fake, &queue);
    let d = Running::start_with(fake, queue, s).await;
    let next = with(CODEX_STOP, "last_assistant_message", json!("Tests pass."));
    let child = hook(&d.queue, "codex", &[], &next).spawn();
    let second = d
        .wait_message(|m| m.plain.contains("Codex finished") && m.message_id != first.message_id)
        .await;
    assert_eq!(second.reply_to, Some(first.message_id));
    let card = owner.wait_for_plan(WAIT).unwrap();
    owner.custom(&card.plan.id, "next", "Now commit");
    owner.submit(&card.plan.id);
    let out = tokio::task::spawn_blocking(move || collect(child))
        .await
        .unwrap();
    assert_eq!(out.code, Some(0), "{out:?}");

    // The daemon restarts while the third card waits; its hook then gives up and withdraws it, and the daemon
    // redraws the card it sent before the restart to say so, sending nothing new.
    let last = with(CODEX_STOP, "last_assistant_message", json!("Committed."));
    let child = hook(&d.queue, "codex", &["--stop-timeout", "12s"], &last).spawn();
    let third = d
        .wait_message(|m| {
            m.plain.contains("Codex finished")
                && ![first.message_id, second.message_id].contains(&m.message_id)
        })
        .await;
    assert_eq!(third.reply_to, Some(second.message_id));
    // Stopped once the daemon has kept the card's message (a daemon stopped between sending and keeping it would
    // leave that one card outside its thread).
    let card = owner.wait_for_plan(WAIT).unwrap();
    let kept = d.queue.root().join("telegram-threads.json");
    kept_so(&kept, |v| announced(v, &card.plan.id).is_some()).await;
    let fake = d.fake.clone();
    let queue = d.stop().await;
    let s = settings(&fake, &queue);
    let d = Running::start_with(fake, queue, s).await;
    let out = tokio::task::spawn_blocking(move || collect(child))
        .await
        .unwrap();
    assert_eq!((out.code, out.stdout.as_str()), (Some(0), ""), "{out:?}");
    assert!(
        out.stderr.contains("withdrawn from the queue"),
        "{}",
        out.stderr
    );
    let redrawn = d
        .wait_message(|m| m.message_id == third.message_id && m.plain.contains("Withdrawn by"))
        .await;
    assert!(redrawn.plain.contains("agent:codex"), "{}", redrawn.plain);
    let cards = d.chat();
    let cards: Vec<_> = cards
        .iter()
        .filter(|m| m.plain.contains("Codex finished"))
        .collect();
    assert_eq!(cards.len(), 3, "edited, not sent again: {}", d.transcript());

    // The fourth card's hook gives up while the daemon is down: back, the daemon redraws that card too.
    let fourth_turn = with(CODEX_STOP, "last_assistant_message", json!("Pushed."));
    let child = hook(&d.queue, "codex", &["--stop-timeout", "8s"], &fourth_turn).spawn();
    let fourth = d
        .wait_message(|m| {
            m.plain.contains("Codex finished")
                && ![first.message_id, second.message_id, third.message_id].contains(&m.message_id)
        })
        .await;
    let card = owner.wait_for_plan(WAIT).unwrap();
    kept_so(&kept, |v| announced(v, &card.plan.id).is_some()).await;
    let fake = d.fake.clone();
    let queue = d.stop().await;
    let out = tokio::task::spawn_blocking(move || collect(child))
        .await
        .unwrap();
    assert!(
        out.stderr.contains("withdrawn from the queue"),
        "{}",
        out.stderr
    );
    let s = settings(&fake, &queue);
    let d = Running::start_with(fake, queue, s).await;
    let redrawn = d
        .wait_message(|m| m.message_id == fourth.message_id && m.plain.contains("Withdrawn by"))
        .await;
    assert!(redrawn.plain.contains("agent:codex"), "{}", redrawn.plain);
    // Seen to once (and kept so): the next start redraws nothing again.
    kept_so(&kept, |v| {
        announced(v, &card.plan.id).is_some_and(|a| a["settled"] == true)
    })
    .await;
    let fake = d.fake.clone();
    let edits = |f: &arbiter_zebu::fakebot::FakeBot| f.calls_of("editMessageText").len();
    let before = edits(&fake);
    let queue = d.stop().await;
    let s = settings(&fake, &queue);
    let d = Running::start_with(fake.clone(), queue, s).await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert_eq!(
        edits(&fake),
        before,
        "{:?}",
        &fake.calls_of("editMessageText")[before..]
    );
    d.stop().await;
}

#[test]
fn a_hook_its_agent_ends_withdraws_its_question() {
    let q = TempQueue::served();
    let child = hook(&q, "codex", &[], CODEX_STOP).spawn();
    let owner = Owner::new(q.root());
    owner.wait_for_plan(WAIT).expect("the card is pending");
    let killed = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let out = collect(child);
    assert_eq!((out.code, out.stdout.as_str()), (Some(0), ""));
    assert!(
        out.stderr.contains("the agent ended the hook (SIGTERM)"),
        "{}",
        out.stderr
    );
    assert_eq!(q.files("pending"), Vec::<String>::new(), "withdrawn");
}
