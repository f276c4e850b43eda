//! The daemon when things go wrong: outsiders, vanished files, agent rewrites, API faults, hostile content.

use std::time::Duration;

use arbiter_zebu::fakebot::Fault;
use arbiter_zebu::plan::{DecisionStatus, parse};

use crate::support::daemon::{OUTSIDER, OWNER, Running, WAIT, settings};
use crate::support::{SPEC_EXAMPLE, TempQueue, plan_with};

/// Opens the first decision of the only plan through /start → 1 → Continue; returns the message id.
async fn open_first_decision(d: &Running) -> i32 {
    d.fake.send_text(OWNER, "/start");
    let queue = d.wait_message(|m| m.plain.contains("Decision Queue")).await;
    let id = queue.message_id;
    d.tap(id, "1").await;
    d.wait_message(|m| m.message_id == id && m.plain.contains("📄"))
        .await;
    d.tap(id, "▶️ Continue").await;
    d.wait_message(|m| m.message_id == id && m.plain.contains("1/"))
        .await;
    id
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn outsiders_get_a_fixed_refusal_and_change_nothing() {
    let q = TempQueue::new();
    q.drop_plan("p.md", SPEC_EXAMPLE);
    let d = Running::start(q).await;
    d.wait_message(|_| true).await; // the owner's start-up summary
    let id = open_first_decision(&d).await;
    let before = d.queue.read("pending", "p.md");

    d.fake.send_text(OUTSIDER, "/start");
    d.fake.send_text(OUTSIDER, "/start plan_abc123");
    // An outsider forging the owner's buttons: a real answer's data, on the owner's message and on a fake one.
    let data: Vec<String> = d
        .chat()
        .iter()
        .flat_map(|m| {
            m.buttons()
                .into_iter()
                .filter_map(|b| b.callback_data.clone())
        })
        .collect();
    let mut taps = Vec::new();
    for data in data
        .iter()
        .chain([&"a:../../etc:0:0:000000".to_owned(), &"x".repeat(500)])
    {
        taps.push(d.fake.tap_raw(OUTSIDER, id, data));
        taps.push(d.fake.tap_raw(OUTSIDER, 999, data));
    }
    let all_answered = d
        .fake
        .wait_until(
            |f| {
                taps.iter()
                    .all(|t| f.callback_answers().iter().any(|(q, _, _)| q == t))
            },
            WAIT,
        )
        .await;
    assert!(all_answered);
    for (q, text, _) in d.fake.callback_answers() {
        if taps.contains(&q) {
            assert_eq!(text.as_deref(), Some("⛔ This bot is private."));
        }
    }
    d.fake
        .wait_until(|f| f.messages(OUTSIDER).iter().any(|m| m.from_bot()), WAIT)
        .await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let to_outsider: Vec<String> = d
        .fake
        .messages(OUTSIDER)
        .iter()
        .filter(|m| m.from_bot())
        .map(|m| m.plain.clone())
        .collect();
    assert_eq!(
        to_outsider,
        ["⛔ This bot is private."],
        "one fixed refusal, no plan data"
    );
    assert_eq!(d.queue.read("pending", "p.md"), before, "nothing recorded");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plan_deleted_mid_review_shows_plan_not_found_and_the_queue() {
    let q = TempQueue::new();
    q.drop_plan("p.md", SPEC_EXAMPLE);
    let d = Running::start(q).await;
    let id = open_first_decision(&d).await;
    std::fs::remove_file(d.queue.root().join("pending/p.md")).unwrap();
    let (text, alert) = d.tap_answer(id, "A").await; // the human saw A
    assert!(alert && text.unwrap().starts_with("Plan not found"));
    d.wait_message(|m| m.message_id == id && m.plain.contains("Decision Queue"))
        .await;
    assert!(d.queue.files("pending").is_empty() && d.queue.files("completed").is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_rewrite_between_view_and_tap_is_refused_and_redrawn() {
    let q = TempQueue::new();
    q.drop_plan("p.md", SPEC_EXAMPLE);
    let d = Running::start(q).await;
    let id = open_first_decision(&d).await;
    // The agent swaps the first two options of the decision on screen.
    let rewritten = SPEC_EXAMPLE.replace(
        "- `jwt` — JWT tokens (stateless, scalable)\n- `session` — Server sessions (more control)",
        "- `session` — Server sessions (more control)\n- `jwt` — JWT tokens (stateless, scalable)",
    );
    d.queue.drop_plan("p.md", &rewritten);
    let (text, alert) = d.tap_answer(id, "A").await; // the human saw A
    assert!(alert && text.unwrap().contains("changed since this view was drawn"));
    d.wait_message(|m| m.message_id == id && m.plain.contains("A. Server sessions"))
        .await;
    assert_eq!(
        d.queue.read("pending", "p.md"),
        rewritten,
        "no answer recorded, the agent's file untouched"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_429_on_edit_message_text_is_retried() {
    let q = TempQueue::new();
    q.drop_plan("p.md", SPEC_EXAMPLE);
    let d = Running::start(q).await;
    let id = open_first_decision(&d).await;
    d.fake.inject(
        "editMessageText",
        Fault::TooManyRequests {
            retry_after_secs: 1,
        },
        2,
    );
    d.tap(id, "A").await;
    d.wait_message(|m| m.message_id == id && m.plain.contains("2/3"))
        .await;
    let plan = parse(&d.queue.read("pending", "p.md"), "p").unwrap();
    assert_eq!(plan.decisions[0].answer.as_deref(), Some("jwt"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn long_ids_many_options_and_decisions_stay_within_telegram_limits() {
    let long = "x".repeat(80);
    let mut text = format!("---\nid: {long}\ntitle: Big plan\n---\n\n# Big plan\n\n");
    for i in 0..30 {
        text.push_str(&format!(
            "## Decision {i}: Question {i}\n\nid: {long}-{i}\n\n**Options:**\n"
        ));
        for o in 0..12 {
            text.push_str(&format!("- `{long}-option-{o}` — Option {o} label\n"));
        }
        text.push('\n');
    }
    let q = TempQueue::new();
    q.drop_plan("big.md", &text);
    let d = Running::start(q).await;
    let id = open_first_decision(&d).await;
    for i in 0..30 {
        d.wait_message(|m| m.message_id == id && m.plain.contains(&format!("{}/30", i + 1)))
            .await;
        d.tap(id, "L").await;
    }
    let review = d
        .wait_message(|m| m.message_id == id && m.plain.contains("Tap to edit, or submit"))
        .await;
    assert!(review.plain.contains("30 answered"), "{}", review.plain);
    d.tap(id, "📤 Submit").await;
    d.wait_message(|m| m.message_id == id && m.plain.contains("Summary"))
        .await;
    let q = d.stop().await;
    let plan = parse(&q.read("completed", "big.md"), "big").unwrap();
    assert!(
        plan.decisions
            .iter()
            .all(|d| d.answer.as_deref() == Some(&*format!("{long}-option-11")))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_markdown_in_every_field_renders() {
    let nasty = r"_*[]()~`>#+-=|{}.!\ \\ 😀 Привет";
    let text = format!(
        "---\nid: hostile\ntitle: \"{t}\"\ntag: \"{t}\"\n---\n\n# x\n\n{nasty}\n\n## Decision 1: {nasty}\n\nid: d1\nallow_custom: true\n\n**Context:** {nasty}\n\n**Options:**\n- `k{{1}}` — {nasty}\n- `k.2` — {nasty}\n",
        t = nasty.replace('\\', "\\\\").replace('"', "\\\"")
    );
    let q = TempQueue::new();
    q.drop_plan("h.md", &text);
    let d = Running::start(q).await;
    let id = open_first_decision(&d).await;
    d.tap(id, "B").await;
    let review = d
        .wait_message(|m| m.message_id == id && m.plain.contains("Tap to edit, or submit"))
        .await;
    assert!(review.plain.contains(nasty.trim()), "{}", review.plain);
    let plan = parse(&d.queue.read("pending", "h.md"), "h").unwrap();
    assert_eq!(plan.decisions[0].answer.as_deref(), Some("k.2"));
    assert_eq!(plan.decisions[0].status, DecisionStatus::Answered);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_malformed_plan_is_reported_once_per_version() {
    let d = Running::start(TempQueue::new()).await;
    d.queue
        .drop_plan("bad.md", "---\nid: bad\npriority: asap\n---\n## D\n");
    let warning = d.wait_message(|m| m.plain.contains("bad.md")).await;
    assert!(
        warning.plain.contains("unknown priority"),
        "{}",
        warning.plain
    );
    tokio::time::sleep(Duration::from_millis(2500)).await;
    let warnings = d
        .chat()
        .iter()
        .filter(|m| m.plain.contains("bad.md"))
        .count();
    assert_eq!(warnings, 1, "{}", d.transcript());
    d.queue
        .drop_plan("bad.md", "---\nid: bad\nstatus: done\n---\n## D\n");
    d.wait_message(|m| m.plain.contains("bad.md") && m.plain.contains("unknown status"))
        .await;
    // Everything else keeps working.
    d.queue.drop_plan("good.md", &plan_with("good", "s", 1));
    d.wait_message(|m| m.plain.contains("Plan good")).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_burst_of_new_plans_is_one_message_not_ten() {
    let d = Running::start(TempQueue::new()).await;
    for i in 0..10 {
        d.queue.drop_plan(
            &format!("p{i}.md"),
            &plan_with(&format!("burst-{i}"), "s", 1),
        );
    }
    d.fake
        .wait_until(
            |f| {
                let text: String = f.messages(OWNER).iter().map(|m| m.plain.clone()).collect();
                (0..10).all(|i| text.contains(&format!("Plan burst-{i}")))
            },
            WAIT,
        )
        .await;
    let sent = d.chat().iter().filter(|m| m.from_bot()).count();
    assert!(
        sent <= 4,
        "{sent} messages for 10 plans:\n{}",
        d.transcript()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_daemon_on_the_same_queue_refuses_to_start() {
    let d = Running::start(TempQueue::new()).await;
    let s = settings(&d.fake, &d.queue);
    let second =
        tokio::time::timeout(WAIT, arbiter_zebu::daemon::run(s, std::future::pending())).await;
    let err = second.expect("returns at once").unwrap_err();
    assert!(
        err.to_string()
            .starts_with("another arbiter daemon is already running"),
        "{err}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plans_pending_at_start_get_one_summary() {
    let q = TempQueue::new();
    for i in 0..5 {
        q.drop_plan(&format!("p{i}.md"), &plan_with(&format!("old-{i}"), "s", 1));
    }
    let d = Running::start(q).await;
    let summary = d.wait_message(|_| true).await;
    assert!(summary.plain.contains('5'), "{}", summary.plain);
    tokio::time::sleep(Duration::from_millis(700)).await;
    assert_eq!(
        d.chat().iter().filter(|m| m.from_bot()).count(),
        1,
        "{}",
        d.transcript()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn custom_mode_takes_the_next_message_and_cancel_leaves_it() {
    let q = TempQueue::new();
    q.drop_plan("p.md", SPEC_EXAMPLE);
    let d = Running::start(q).await;
    let id = open_first_decision(&d).await;
    d.tap(id, "✏️ Custom").await;
    d.wait_message(|m| m.plain.contains("Type your answer"))
        .await;
    d.fake.send_text(OWNER, "/cancel");
    d.wait_message(|m| m.plain.contains("cancelled")).await;
    d.fake.send_text(OWNER, "this is just chatter");
    tokio::time::sleep(Duration::from_millis(500)).await;
    let plan = parse(&d.queue.read("pending", "p.md"), "p").unwrap();
    assert_eq!(
        plan.decisions[0].status,
        DecisionStatus::Pending,
        "nothing recorded after /cancel"
    );

    d.tap(id, "✏️ Custom").await;
    let prompts = d
        .chat()
        .iter()
        .filter(|m| m.plain.contains("Type your answer"))
        .count();
    assert!(prompts >= 1);
    d.fake.send_text(OWNER, "Passkeys, no passwords"); // a plain message, not a reply
    d.wait_message(|m| m.plain.contains("Auth Strategy → Passkeys, no passwords"))
        .await;
    let plan = parse(&d.queue.read("pending", "p.md"), "p").unwrap();
    assert_eq!(
        plan.decisions[0].answer.as_deref(),
        Some("Passkeys, no passwords")
    );
    assert!(plan.decisions[0].is_custom_answer());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deep_link_opens_the_plan() {
    let q = TempQueue::new();
    q.drop_plan("p.md", SPEC_EXAMPLE);
    let d = Running::start(q).await;
    d.fake.send_text(OWNER, "/start plan_abc123");
    let plan = d
        .wait_message(|m| m.plain.contains("📄 API Design Decisions"))
        .await;
    assert!(plan.buttons().iter().any(|b| b.text == "▶️ Continue"));
    d.fake.send_text(OWNER, "/start plan_nope");
    d.wait_message(|m| m.plain.contains("Plan not found")).await;
    assert!(
        d.fake
            .wait_for_call("setMyCommands", |_| true, WAIT)
            .await
            .is_some()
    );
    let commands = d.fake.commands();
    let names: Vec<&str> = commands
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["command"].as_str())
        .collect();
    assert_eq!(
        names,
        ["start", "queue", "stats", "help", "cancel", "web", "rules"]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_telegram_refuses_stops_the_daemon_with_a_clear_error() {
    let fake = arbiter_zebu::fakebot::FakeBot::start().await.unwrap();
    let q = TempQueue::new();
    fake.inject("getMe", Fault::ServerError(401), 1); // Telegram answers 401 "Unauthorized"
    let run = arbiter_zebu::daemon::run(settings(&fake, &q), std::future::pending());
    let err = tokio::time::timeout(WAIT, run)
        .await
        .expect("returns")
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "Telegram refused the bot token (check telegram.token or ARBITER_TELEGRAM_TOKEN)"
    );
}

/// A custom answer typed after its force-reply prompt is taken for the decision as the prompt showed it: when the
/// agent changed the decision meanwhile, the reply is refused as stale and nothing is written; a reply to a fresh
/// prompt is recorded, and its audit line carries the fingerprint of what the prompt showed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_typed_reply_to_a_decision_changed_since_its_prompt_is_stale() {
    let q = TempQueue::new();
    q.drop_plan("p.md", SPEC_EXAMPLE);
    let d = Running::start(q).await;
    let id = open_first_decision(&d).await;
    d.tap(id, "✏️ Custom").await;
    let prompt = d
        .wait_message(|m| m.plain.contains("Type your answer"))
        .await;
    // The agent rewrites the decision under the prompt: another option now.
    let changed = SPEC_EXAMPLE.replace(
        "- `oauth` — External OAuth provider",
        "- `oauth` — External OAuth provider\n- `saml` — SAML single sign-on",
    );
    d.queue.drop_plan("p.md", &changed);
    tokio::time::sleep(Duration::from_millis(300)).await;
    d.fake.send_reply(OWNER, "Passkeys", prompt.message_id);
    d.wait_message(|m| {
        m.plain
            .contains("This decision changed since you opened it")
    })
    .await;
    assert_eq!(d.queue.read("pending", "p.md"), changed, "nothing written");

    // A fresh prompt on the decision as it is now: recorded, with what the prompt showed.
    let id = open_first_decision(&d).await;
    d.tap(id, "✏️ Custom").await;
    let prompts = |f: &arbiter_zebu::fakebot::FakeBot| {
        f.messages(OWNER)
            .iter()
            .filter(|m| m.plain.contains("Type your answer"))
            .count()
    };
    assert!(d.fake.wait_until(|f| prompts(f) >= 2, WAIT).await);
    let prompt = d
        .wait_message(|m| m.plain.contains("Type your answer"))
        .await;
    d.fake.send_reply(OWNER, "Passkeys", prompt.message_id);
    d.wait_message(|m| m.plain.contains("Auth Strategy → Passkeys"))
        .await;
    let plan = parse(&d.queue.read("pending", "p.md"), "p").unwrap();
    assert_eq!(plan.decisions[0].answer.as_deref(), Some("Passkeys"));
    let (_, entries) = arbiter_zebu::queue::audit::read(d.queue.root())
        .unwrap()
        .unwrap();
    let line = entries
        .iter()
        .find(|e| e.action == "custom")
        .expect("a custom line");
    assert_eq!(
        line.seen.as_deref(),
        Some(
            arbiter_zebu::actions::seen::of_prompt(&parse(&changed, "p").unwrap().decisions[0])
                .as_str()
        ),
        "{line:?}"
    );
}
