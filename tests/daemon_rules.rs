//! Standing rules through the real daemon, the fake Bot API and the real binary: a question answered the same way
//! three times offers `🔁 Always answer`, the rule answers the next push with nobody asked, `/rules` pauses,
//! resumes and revokes it; a permission plan's `🔁 Always allow this` makes a rule that answers the same prompt;
//! a garbage `rules.json` asks and warns; forged taps make nothing.

use std::time::Duration;

use arbiter_zebu::actions::rules::{Ruled, answer_permission, results};
use arbiter_zebu::queue::Queue;
use arbiter_zebu::queue::audit;
use arbiter_zebu::queue::rules::{self, Ask, State};
use serde_json::Value;

use crate::cli_support::Arbiter;
use crate::support::TempQueue;
use crate::support::daemon::{OWNER, Running, settings};

const BOB: i64 = 4242;

/// Now, as the files stamp it.
fn now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

/// A pushed question of agent `builder` with one `choice` decision.
const DEPLOY: &str = r#"{"title": "Deploy where?", "agent": "builder", "decisions": [{"id": "target",
  "title": "Target", "options": [{"key": "staging", "label": "Staging"}, {"key": "prod", "label": "Production"}]}]}"#;

/// `arbiter push --json` of `spec`: the id, and `answered_by` when a rule answered it.
fn push(q: &TempQueue, spec: &str) -> (String, Option<String>) {
    let out = Arbiter::new(q)
        .args(&["push", "-", "--json"])
        .stdin(spec)
        .run();
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let v: Value = serde_json::from_str(&out.stdout).unwrap();
    (
        v["id"].as_str().unwrap().to_owned(),
        v["answered_by"].as_str().map(str::to_owned),
    )
}

/// Number of messages the bot sent the owner so far.
fn sent(d: &Running) -> usize {
    d.chat().iter().filter(|m| m.from_bot()).count()
}

/// Opens the newest announcement of `title`, taps the option `letter`, submits; returns the completion message.
async fn answer_announced(
    d: &Running,
    title: &str,
    letter: &str,
) -> arbiter_zebu::fakebot::SentMessage {
    let id = d
        .wait_message(|m| {
            m.plain.contains(title) && m.buttons().iter().any(|b| b.text == "📂 Open")
        })
        .await
        .message_id;
    d.tap(id, "📂 Open").await;
    d.wait_message(|m| m.message_id == id && m.plain.contains("📄"))
        .await;
    d.tap(id, "▶️ Continue").await;
    d.wait_message(|m| m.message_id == id && m.plain.contains("1/1"))
        .await;
    d.tap(id, letter).await;
    d.wait_message(|m| m.message_id == id && m.plain.contains("Tap to edit, or submit"))
        .await;
    d.tap(id, "📤 Submit").await;
    d.wait_message(|m| m.message_id == id && m.plain.contains("Summary"))
        .await
}

/// `/rules`, as the owner sees it.
async fn rules_view(d: &Running, marker: &str) -> arbiter_zebu::fakebot::SentMessage {
    d.fake.send_text(OWNER, "/rules");
    d.wait_message(|m| m.plain.contains("Standing rules") && m.plain.contains(marker))
        .await
}

/// Waits (up to 3 s) and says whether the bot sent the owner anything after `before` messages.
async fn anything_sent_after(d: &Running, before: usize) -> bool {
    tokio::time::sleep(Duration::from_millis(1500)).await;
    sent(d) > before
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_identical_answers_offer_a_rule_that_answers_the_next_push_until_paused_or_revoked() {
    let d = Running::start(TempQueue::new()).await;
    for n in 1..=3 {
        let (_, by) = push(&d.queue, DEPLOY);
        assert_eq!(by, None);
        let done = answer_announced(&d, "Deploy where?", "A").await;
        let offered = done
            .buttons()
            .iter()
            .any(|b| b.text.starts_with("🔁 Always answer"));
        assert_eq!(offered, n == 3, "after {n}: {}", done.render());
        // The announcement of the next one must not be mistaken for this one.
        d.fake.send_text(OWNER, "/queue");
        d.wait_message(|m| m.plain.contains("No pending decisions"))
            .await;
    }
    let done = d
        .wait_message(|m| {
            m.buttons()
                .iter()
                .any(|b| b.text == "🔁 Always answer \"Staging\"")
        })
        .await;
    let (alert, is_alert) = d
        .tap_answer(done.message_id, "🔁 Always answer \"Staging\"")
        .await;
    assert!(
        !is_alert && alert.as_deref().is_some_and(|a| a.starts_with("🔁 Rule r")),
        "{alert:?}"
    );
    d.wait_message(|m| m.message_id == done.message_id && m.plain.contains("Standing rule"))
        .await;
    let rule = rules::read(d.queue.root()).unwrap().rules[0].clone();
    assert_eq!(
        (rule.agent.as_str(), rule.answer.as_str()),
        ("builder", "staging")
    );
    assert_eq!(rule.created_by, OWNER as u64);

    // The same question again: answered by the rule, at once, nothing sent to the owner.
    let before = sent(&d);
    let (id, by) = push(&d.queue, DEPLOY);
    assert_eq!(by.as_deref(), Some(format!("rule:{}", rule.id).as_str()));
    let out = Arbiter::new(&d.queue)
        .args(&["await", &id, "--timeout", "2s", "--json"])
        .run();
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let answers: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(answers["answers"]["target"], "staging", "{answers}");
    assert!(d.queue.files("pending").is_empty());
    assert!(!anything_sent_after(&d, before).await, "{}", d.transcript());
    let line = audit::read(d.queue.root())
        .unwrap()
        .unwrap()
        .1
        .pop()
        .unwrap();
    assert_eq!((line.actor, line.plan), (format!("rule:{}", rule.id), id));
    let listed = rules_view(&d, "1×").await;
    assert!(
        listed.plain.contains("target → Staging"),
        "{}",
        listed.plain
    );

    // Paused: asked again. Resumed: answered again. Revoked: asked again, for good.
    d.tap(listed.message_id, "⏸ Pause 1").await;
    d.wait_message(|m| m.message_id == listed.message_id && m.plain.contains("0 active, 1 paused"))
        .await;
    let (_, by) = push(&d.queue, DEPLOY);
    assert_eq!(by, None);
    answer_announced(&d, "Deploy where?", "B").await;
    d.tap(listed.message_id, "▶️ Resume 1").await;
    d.wait_message(|m| m.message_id == listed.message_id && m.plain.contains("1 active"))
        .await;
    assert!(push(&d.queue, DEPLOY).1.is_some());
    d.tap(listed.message_id, "🗑 Revoke 1").await;
    d.wait_message(|m| m.message_id == listed.message_id && m.plain.contains("0 active, 0 paused"))
        .await;
    assert_eq!(push(&d.queue, DEPLOY).1, None);
    d.wait_message(|m| {
        m.plain.contains("Deploy where?") && m.buttons().iter().any(|b| b.text == "📂 Open")
    })
    .await;
    let names: Vec<String> = audit::read(d.queue.root())
        .unwrap()
        .unwrap()
        .1
        .into_iter()
        .map(|l| l.action)
        .collect();
    for name in ["rule", "rule_pause", "rule_resume", "rule_revoke"] {
        assert_eq!(names.iter().filter(|n| *n == name).count(), 1, "{names:?}");
    }
    assert_eq!(rules::read(d.queue.root()).unwrap().rules[0].fired, 2);

    // Set active again in rules.json by hand, as a copy from before the revoke would read: the trail has the
    // revoke, so the owner is warned and the next push is asked.
    let path = rules::path(d.queue.root());
    let mut all = rules::read(d.queue.root()).unwrap();
    all.rules[0].state = State::Active;
    all.rules[0].change = None;
    std::fs::write(&path, serde_json::to_string(&all).unwrap()).unwrap();
    let warned = d
        .wait_message(|m| m.plain.contains("paused or revoked in the audit trail"))
        .await;
    assert!(
        warned
            .plain
            .contains(&format!("Rule {} (revoked) is active in", rule.id)),
        "{}",
        warned.plain
    );
    assert_eq!(push(&d.queue, DEPLOY).1, None);
}

/// A permission plan as the hooks push it (Codex's Bash, the command `npm test` in `/home/me/app`).
fn permission_plan(id: &str, session: &str) -> String {
    format!(
        "---\nid: {id}\nagent: codex\nsession: {session}\ntitle: \"Bash: npm test\"\nproject: /home/me/app\n\
         rule_tool: Bash\nrule_command: npm test\ngrant_minutes: 30\n---\n# Bash: npm test\n\nCodex asks to run a \
         command.\n\n## Run this command?\n\nid: permission\n\n```bash\nnpm test\n```\n\n**Options:**\n\
         - `allow` — ✅ Allow once\n- `always` — 🔁 Always allow this\n- `grant` — ⏱ Allow codex for 30 min\n\
         - `deny` — ❌ Deny\n"
    )
}

/// The permission prompt `npm test` of Codex in `/home/me/app`, session `session`, as the hook asks the rules.
fn ask_rules(root: &std::path::Path, command: &str, session: &str, id: &str) -> Option<String> {
    let queue = Queue::open(root, true).unwrap();
    let ask = Ask {
        agent: "codex",
        project: Some("/home/me/app"),
        session: Some(session),
        tool: "Bash",
        command,
    };
    let looked = answer_permission(
        &queue,
        &ask,
        || Ruled {
            name: format!("codex-bash-{id}.md"),
            text: permission_plan(id, session),
            read_here: true,
        },
        &now(),
    );
    looked.fired.map(|f| f.rule.id)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn always_allow_this_on_the_phone_makes_a_rule_the_next_prompt_is_answered_by() {
    let d = Running::start(TempQueue::new()).await;
    d.queue
        .drop_plan("codex-bash-p1.md", &permission_plan("p1", "s1"));
    let done = answer_announced(&d, "Bash: npm test", "B").await;
    assert!(done.plain.contains("Standing rule"), "{}", done.render());
    let rule = rules::read(d.queue.root()).unwrap().rules[0].clone();
    assert_eq!(rule.project.as_deref(), Some("/home/me/app"));
    assert!(rule.is_on_record(d.queue.root()));

    // The same command in a new session: answered by the rule; another command, project or agent asks.
    let before = sent(&d);
    assert_eq!(
        ask_rules(d.queue.root(), "npm test", "s2", "p2"),
        Some(rule.id.clone())
    );
    assert_eq!(
        ask_rules(d.queue.root(), "npm test && rm -rf /", "s2", "p3"),
        None
    );
    assert!(!anything_sent_after(&d, before).await, "{}", d.transcript());
    let done = d.queue.read("completed", "codex-bash-p2.md");
    assert!(
        done.contains(&format!("answered_by: rule:{}\n", rule.id)),
        "{done}"
    );

    // Two failures in a row of what it allowed: it pauses itself, and its maker is told.
    let queue = Queue::open(d.queue.root(), true).unwrap();
    let ask = Ask {
        agent: "codex",
        project: Some("/home/me/app"),
        session: Some("s2"),
        tool: "Bash",
        command: "npm test",
    };
    let now = now();
    assert!(
        results::record(&queue, &ask, true, "exit 1", &now)
            .unwrap()
            .is_none()
    );
    assert_eq!(
        ask_rules(d.queue.root(), "npm test", "s2", "p4"),
        Some(rule.id.clone())
    );
    assert!(
        results::record(&queue, &ask, true, "exit 1", &now)
            .unwrap()
            .is_some()
    );
    let told = d
        .wait_message(|m| m.plain.contains("A standing rule paused itself"))
        .await;
    assert!(told.plain.contains("exit 1"), "{}", told.plain);
    assert_eq!(ask_rules(d.queue.root(), "npm test", "s2", "p5"), None);
    // Noted as told (the clock writes it once the notice is queued, so shortly after the message may be seen).
    let told_at = std::time::Instant::now();
    while !rules::read(d.queue.root()).unwrap().rules[0]
        .change
        .as_ref()
        .is_some_and(|c| c.told)
    {
        assert!(
            told_at.elapsed() < Duration::from_secs(30),
            "never noted as told"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    d.tap(told.message_id, "▶️ Resume").await;
    d.wait_message(|m| m.message_id == told.message_id && m.plain.contains("1 active"))
        .await;
    assert_eq!(
        rules::read(d.queue.root()).unwrap().rules[0].state,
        State::Active
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_grant_covers_every_call_of_its_session_and_a_garbage_rules_file_asks_and_warns() {
    let d = Running::start(TempQueue::new()).await;
    d.queue
        .drop_plan("codex-bash-p1.md", &permission_plan("p1", "s1"));
    let done = answer_announced(&d, "Bash: npm test", "C").await;
    assert!(done.plain.contains("Grant"), "{}", done.render());
    assert!(ask_rules(d.queue.root(), "cargo build", "s1", "p2").is_some());
    assert!(ask_rules(d.queue.root(), "cargo build", "s9", "p3").is_none());

    std::fs::write(rules::path(d.queue.root()), "{\"version\": 1, \"rules\": [").unwrap();
    let warned = d
        .wait_message(|m| {
            m.plain.contains("⚠️ Standing rules") && m.plain.contains("does not read")
        })
        .await;
    assert!(warned.buttons().iter().any(|b| b.text == "🔁 Rules"));
    assert!(ask_rules(d.queue.root(), "cargo build", "s1", "p4").is_none());
    let (_, by) = push(&d.queue, DEPLOY);
    assert_eq!(by, None);
    rules_view(&d, "does not read").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forged_taps_of_an_outsider_or_a_non_approver_make_and_change_no_rule() {
    let fake = arbiter_zebu::fakebot::FakeBot::start().await.unwrap();
    let queue = TempQueue::new();
    let mut s = settings(&fake, &queue);
    s.allowed_users = vec![OWNER as u64, BOB as u64];
    let d = Running::start_with(fake, queue, s).await;
    d.queue.drop_plan(
        "codex-bash-p1.md",
        &permission_plan("p1", "s1").replace("---\n# Bash", "approvers: [93533553]\n---\n# Bash"),
    );
    answer_announced(&d, "Bash: npm test", "B").await;
    let rule = rules::read(d.queue.root()).unwrap().rules[0].clone();
    let file = std::fs::read(rules::path(d.queue.root())).unwrap();
    let lines = audit::read(d.queue.root()).unwrap().unwrap().1.len();

    // Bob is a member but no approver of the plan, and not the rule's maker.
    d.fake.send_text(BOB, "/rules");
    let bobs = d
        .fake
        .wait_until(
            |f| f.messages(BOB).iter().any(|m| m.from_bot()),
            crate::support::daemon::WAIT,
        )
        .await;
    assert!(bobs);
    let bob_message = d
        .fake
        .messages(BOB)
        .into_iter()
        .rev()
        .find(|m| m.from_bot())
        .unwrap();
    let forged = [
        format!("h:r:{}", rule.id),
        format!(
            "l:{}:abcdef",
            arbiter_zebu::telegram::callback::plan_ref("p1")
        ),
    ];
    for data in &forged {
        let qid = d.fake.tap_raw(BOB, bob_message.message_id, data);
        assert!(d.wait_answered(&[qid], crate::support::daemon::WAIT).await);
        let qid = d.fake.tap_raw(crate::support::daemon::OUTSIDER, 1, data);
        assert!(d.wait_answered(&[qid], crate::support::daemon::WAIT).await);
    }
    let qid = d.fake.tap_raw(
        crate::support::daemon::OUTSIDER,
        1,
        &format!("h:v:{}", rule.id),
    );
    assert!(d.wait_answered(&[qid], crate::support::daemon::WAIT).await);
    assert_eq!(std::fs::read(rules::path(d.queue.root())).unwrap(), file);
    assert_eq!(audit::read(d.queue.root()).unwrap().unwrap().1.len(), lines);
    assert_eq!(rules::read(d.queue.root()).unwrap().rules.len(), 1);
}

/// Each agent's permission prompt as its real CLI sent it: the agent, the payload, its session id, and a result
/// of the same call that failed (`PostToolUse`, Claude Code's `PostToolUseFailure`).
fn agents() -> [(&'static str, String, &'static str, Option<String>); 5] {
    let codex = include_str!("fixtures/agents/codex/PermissionRequest.json");
    let gemini = include_str!("fixtures/agents/gemini/BeforeTool.json");
    let copilot = include_str!("fixtures/agents/copilot/permissionRequest.json");
    let qwen = include_str!("fixtures/agents/qwen/PermissionRequest.json");
    let claude = include_str!("fixtures/claude-code/permission-request-bash.json");
    let failed = |payload: &str, event: &str, extra: Value| {
        let mut v: Value = serde_json::from_str(payload).unwrap();
        v["hook_event_name"] = event.into();
        for (k, x) in extra.as_object().unwrap() {
            v[k] = x.clone();
        }
        v.to_string()
    };
    [
        (
            "codex",
            codex.to_owned(),
            "01a21e07-a8f1-7ae2-be99-b36fae354d49",
            Some(failed(
                codex,
                "PostToolUse",
                serde_json::json!({"tool_response": "Exit code: 1\nOutput:\ntouch: denied"}),
            )),
        ),
        (
            "qwen",
            qwen.to_owned(),
            "ca772693-392f-40c6-81e8-e5f96acfb0e4",
            Some(failed(
                qwen,
                "PostToolUse",
                serde_json::json!({"tool_response": {"llmContent": "Command: touch allowed.txt\nExit Code: 1\n", "returnDisplay": ""}}),
            )),
        ),
        (
            "claude-code",
            claude.to_owned(),
            "9d5c1c3e-7a4f-4b59-a8e2-5c4b2f0e6f11",
            Some(failed(
                claude,
                "PostToolUseFailure",
                serde_json::json!({"error": "Exit code 1: npm ERR! 404"}),
            )),
        ),
        // Gemini and Copilot report no results to Arbiter's hooks: their rules never pause themselves.
        (
            "gemini",
            gemini.to_owned(),
            "66a3061a-50d2-4b50-ae8b-37f2bf0ef7c2",
            None,
        ),
        (
            "copilot",
            copilot.to_owned(),
            "e80a413a-cda4-4778-87ae-a4a1d1e52b23",
            None,
        ),
    ]
}

/// Runs `arbiter hook AGENT` on `payload` and returns its output (the hook's own `--timeout`: `timeout`).
fn hook_run(
    q: &TempQueue,
    agent: &str,
    payload: &str,
    timeout: &str,
) -> crate::cli_support::Output {
    Arbiter::new(q)
        .args(&["hook", agent, "--timeout", timeout])
        .stdin(payload)
        .run()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_agents_always_allow_this_answers_the_same_command_in_a_new_session_without_asking() {
    for (agent, payload, session, failed) in agents() {
        let d = Running::start(TempQueue::new()).await;
        let child = Arbiter::new(&d.queue)
            .args(&["hook", agent, "--timeout", "60s"])
            .stdin(&payload)
            .spawn();
        let id = d
            .wait_message(|m| m.buttons().iter().any(|b| b.text == "📂 Open"))
            .await
            .message_id;
        d.tap(id, "📂 Open").await;
        d.wait_message(|m| m.message_id == id && m.plain.contains("📄"))
            .await;
        d.tap(id, "▶️ Continue").await;
        let question = d
            .wait_message(|m| m.message_id == id && m.plain.contains("1/1"))
            .await;
        let letter = question
            .plain
            .lines()
            .find_map(|l| l.strip_suffix(". 🔁 Always allow this"))
            .unwrap_or_else(|| panic!("{agent}: no 🔁 Always allow this\n{}", question.plain))
            .to_owned();
        assert!(question.plain.contains("⏱ Allow "), "{}", question.plain);
        d.tap(id, &letter).await;
        d.wait_message(|m| m.message_id == id && m.plain.contains("Tap to edit, or submit"))
            .await;
        d.tap(id, "📤 Submit").await;
        let done = d
            .wait_message(|m| m.message_id == id && m.plain.contains("Standing rule"))
            .await;
        let first = tokio::task::spawn_blocking(move || crate::cli_support::collect(child))
            .await
            .unwrap();
        assert!(first.stdout.contains("allow"), "{agent}: {first:?}");
        assert!(
            !first.stdout.contains("updatedPermissions"),
            "{agent}: Arbiter keeps the rule: {first:?}"
        );
        let rule = rules::read(d.queue.root()).unwrap().rules[0].clone();
        assert_eq!(rule.agent, agent);
        assert!(done.plain.contains(&rule.id), "{}", done.plain);

        // The same command in a new session: answered by the hook itself, nothing sent to the owner.
        let before = sent(&d);
        let again = payload.replace(session, "a-new-session");
        let out = hook_run(&d.queue, agent, &again, "60s");
        assert_eq!(out.code, Some(0));
        assert!(
            out.stdout.contains("allow") && !out.stdout.contains("deny"),
            "{agent}: {out:?}"
        );
        assert!(d.queue.files("pending").is_empty(), "{agent}");
        assert!(
            !anything_sent_after(&d, before).await,
            "{agent}: {}",
            d.transcript()
        );
        let line = audit::read(d.queue.root())
            .unwrap()
            .unwrap()
            .1
            .pop()
            .unwrap();
        assert_eq!(
            (line.actor.as_str(), line.action.as_str()),
            (format!("rule:{}", rule.id).as_str(), "answer"),
            "{agent}"
        );
        let ruled = d
            .queue
            .files("completed")
            .into_iter()
            .map(|f| d.queue.read("completed", &f))
            .find(|t| t.contains(&format!("answered_by: rule:{}", rule.id)))
            .unwrap_or_else(|| panic!("{agent}: no plan answered by the rule"));
        assert!(ruled.contains("session: a-new-session"), "{ruled}");
        assert!(
            d.queue.files("notify").is_empty(),
            "{agent}: the hook read its notification"
        );

        // Another command still asks (the hook gives up after 1 s and withdraws its question).
        let other = payload.replacen("\"command\": \"", "\"command\": \"rm -rf / && ", 1);
        let out = hook_run(&d.queue, agent, &other, "1s");
        assert!(out.stderr.contains("no answer to plan"), "{agent}: {out:?}");

        // Two failures in a row of what it allowed: it pauses itself and the owner is told; the next asks.
        let Some(failed) = failed else {
            d.stop().await;
            continue;
        };
        for _ in 0..2 {
            assert!(
                hook_run(&d.queue, agent, &again, "60s")
                    .stdout
                    .contains("allow")
            );
            let out = hook_run(
                &d.queue,
                agent,
                &failed.replace(session, "a-new-session"),
                "60s",
            );
            assert_eq!(
                (out.code, out.stdout.as_str()),
                (Some(0), ""),
                "{agent}: {out:?}"
            );
        }
        d.wait_message(|m| m.plain.contains("A standing rule paused itself"))
            .await;
        let out = hook_run(&d.queue, agent, &again, "1s");
        assert!(out.stderr.contains("no answer to plan"), "{agent}: {out:?}");
        assert_eq!(
            rules::read(d.queue.root()).unwrap().rules[0].fired,
            3,
            "{agent}"
        );
        d.stop().await;
    }
}
