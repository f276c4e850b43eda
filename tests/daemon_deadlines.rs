//! Deadlines, reminders and escalation through the real daemon against the fake Bot API. Durations are a few
//! seconds and every wait has a generous bound; nothing asserts how fast the machine is.

use std::time::Duration;

use arbiter_zebu::fakebot::FakeBot;

use crate::support::TempQueue;
use crate::support::daemon::{OWNER, Running, WAIT, settings};

const SECOND_USER: i64 = 11111111;

fn rfc3339(offset_secs: i64) -> String {
    (chrono::Utc::now() + chrono::Duration::seconds(offset_secs))
        .to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

/// Two decisions: the first has a default (`b`), the second none.
fn plan(id: &str, time_keys: &str) -> String {
    format!(
        "---\nid: {id}\ntitle: Release {id}\ncreated_at: {}\n{time_keys}---\n\n# Release {id}\n\n\
         ## Decision 1: Channel\n\nid: channel\nstatus: pending\ndefault: b\n\n**Options:**\n- `a` — Stable\n- `b` — Beta\n\n\
         ## Decision 2: Notes\n\nid: notes\nstatus: pending\n\n**Options:**\n- `short` — Short\n- `long` — Long\n",
        rfc3339(0)
    )
}

async fn wait_file(q: &TempQueue, sub: &str, name: &str) -> String {
    let path = q.root().join(sub).join(name);
    let until = std::time::Instant::now() + WAIT;
    while std::time::Instant::now() < until {
        if let Ok(text) = std::fs::read_to_string(&path) {
            return text;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("{sub}/{name} never appeared");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_deadline_answers_defaults_skips_the_rest_submits_and_old_views_say_so() {
    let q = TempQueue::new();
    q.drop_plan("r1.md", &plan("r1", "deadline: 3s\non_deadline: submit\n"));
    let d = Running::start(q).await;
    d.fake.send_text(OWNER, "/start plan_r1");
    let view = d.wait_message(|m| m.plain.contains("📄 Release r1")).await;

    let done = wait_file(&d.queue, "completed", "r1.md").await;
    assert!(d.queue.files("pending").is_empty());
    let channel = "id: channel\nstatus: answered\ndefault: b\nanswer: b\n";
    assert!(done.contains(channel), "{done}");
    assert!(
        done.contains("id: notes\nstatus: skipped\nanswer: null\n"),
        "{done}"
    );
    assert_eq!(done.matches("answered_by: deadline\n").count(), 2, "{done}");
    assert!(done.contains("status: completed\n"), "{done}");
    let notify = d.queue.files("notify");
    assert_eq!(notify.len(), 1, "{notify:?}");
    let summary = d
        .wait_message(|m| m.plain.starts_with("⏰ Deadline passed"))
        .await;
    assert_eq!(
        summary.plain,
        "⏰ Deadline passed: Release r1 submitted with 1 default, 1 skipped"
    );

    // The owner taps the plan view they still have: an alert, the completion view, nothing recorded.
    let (alert, shown) = d.tap_answer(view.message_id, "▶️ Continue").await;
    assert_eq!(
        alert.as_deref(),
        Some("This plan was already submitted. Nothing was recorded.")
    );
    assert!(shown);
    d.wait_message(|m| {
        m.message_id == view.message_id && m.plain.contains("✅ Release r1\n\nSummary:")
    })
    .await;
    assert_eq!(d.queue.read("completed", "r1.md"), done);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deadline_that_passed_while_the_daemon_was_down_is_applied_before_the_start_summary() {
    let q = TempQueue::new();
    let mut text = plan(
        "late",
        "deadline: 2020-01-01T00:00:00Z\non_deadline: submit\n",
    );
    text = text.replace("default: b\n", "");
    q.drop_plan("late.md", &text);
    q.drop_plan("wait.md", &plan("wait", "deadline: 2020-01-01T00:00:00Z\n"));
    let d = Running::start(q).await;
    let done = wait_file(&d.queue, "completed", "late.md").await;
    assert_eq!(done.matches("status: skipped\n").count(), 2, "{done}");
    // `on_deadline: wait` (the default) answers nothing.
    assert_eq!(d.queue.files("pending"), ["wait.md"]);
    let summary = d.wait_message(|m| m.plain.contains("plan waiting")).await;
    let deadline = d
        .wait_message(|m| m.plain.starts_with("⏰ Deadline passed"))
        .await;
    assert!(
        deadline.message_id < summary.message_id,
        "the deadline's message comes first\n{}",
        d.transcript()
    );
    assert!(
        summary.plain.contains("1 plan waiting"),
        "{}",
        summary.plain
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reminders_repeat_and_a_restart_neither_repeats_nor_forgets_them() {
    let q = TempQueue::new();
    q.drop_plan("rem.md", &plan("rem", "remind_every: 2s\n"));
    let d = Running::start(q).await;
    let reminders = |f: &FakeBot| {
        f.messages(OWNER)
            .iter()
            .filter(|m| m.from_bot() && m.plain.starts_with("⏰ Reminder"))
            .count()
    };
    assert!(d.fake.wait_until(|f| reminders(f) >= 2, WAIT).await);
    let first = d.wait_message(|m| m.plain.starts_with("⏰ Reminder")).await;
    assert!(
        first.plain.contains("Release rem\n2 of 2 decisions left"),
        "{}",
        first.plain
    );
    assert!(first.buttons().iter().any(|b| b.text == "📂 Open"));
    let q = d.stop().await;
    let stamped = q.read("pending", "rem.md");
    let line = stamped
        .lines()
        .find(|l| l.starts_with("reminded_at: "))
        .expect("reminded_at written")
        .to_owned();
    // Restarted at once: the last reminder is recent, so none is due yet; the next comes on schedule.
    let fake = FakeBot::start().await.unwrap();
    let s = settings(&fake, &q);
    let d = Running::start_with(fake, q, s).await;
    assert!(d.fake.wait_until(|f| reminders(f) >= 1, WAIT).await);
    let after = d.queue.read("pending", "rem.md");
    assert!(!after.contains(&line), "reminded_at moved on: {after}");
    assert_eq!(after.matches("reminded_at: ").count(), 1, "{after}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn escalation_goes_once_to_the_named_user_who_may_then_answer() {
    let q = TempQueue::new();
    let keys = format!("escalate_after: 2s\nescalate_to: [{SECOND_USER}]\n");
    q.drop_plan("esc.md", &plan("esc", &keys));
    let fake = FakeBot::start().await.unwrap();
    let mut s = settings(&fake, &q);
    s.allowed_users.push(SECOND_USER as u64);
    let d = Running::start_with(fake, q, s).await;
    let escalated = |f: &FakeBot, user| {
        f.messages(user)
            .iter()
            .filter(|m| m.from_bot() && m.plain.starts_with("🔺 Escalated to you"))
            .count()
    };
    assert!(
        d.fake
            .wait_until(|f| escalated(f, SECOND_USER) == 1, WAIT)
            .await
    );
    assert_eq!(escalated(&d.fake, OWNER), 0, "only escalate_to gets it");
    let text = d.queue.read("pending", "esc.md");
    assert_eq!(text.matches("escalated_at: ").count(), 1, "{text}");
    // The escalated user opens it from the message and answers.
    let message = d
        .fake
        .messages(SECOND_USER)
        .into_iter()
        .find(|m| m.plain.starts_with("🔺"))
        .unwrap();
    d.fake
        .tap_label(SECOND_USER, message.message_id, "📂 Open")
        .unwrap();
    assert!(
        d.fake
            .wait_until(
                |f| f
                    .messages(SECOND_USER)
                    .iter()
                    .any(|m| m.plain.contains("▶️")
                        || m.buttons().iter().any(|b| b.text == "▶️ Continue")),
                WAIT
            )
            .await
    );
    // Continue to the first decision and pick A: recorded as the escalated user's answer.
    for label in ["▶️ Continue", "A"] {
        // The view is redrawn beside the callback answer: wait for the button itself.
        let shown = |f: &FakeBot| {
            f.messages(SECOND_USER).iter().any(|m| {
                m.message_id == message.message_id && m.buttons().iter().any(|b| b.text == label)
            })
        };
        assert!(d.fake.wait_until(shown, WAIT).await, "no {label} button");
        let qid = d
            .fake
            .tap_label(SECOND_USER, message.message_id, label)
            .unwrap();
        assert!(d.wait_answered(std::slice::from_ref(&qid), WAIT).await);
    }
    let text = d.queue.read("pending", "esc.md");
    assert!(
        text.contains("id: channel\nstatus: answered\ndefault: b\nanswer: a\n"),
        "{text}"
    );
    assert!(
        text.contains(&format!("answered_by: {SECOND_USER}\n")),
        "{text}"
    );
    tokio::time::sleep(Duration::from_secs(3)).await;
    let sent = d
        .fake
        .calls_of("sendMessage")
        .into_iter()
        .filter(|c| {
            c.params["chat_id"] == SECOND_USER
                && c.params["text"]
                    .as_str()
                    .is_some_and(|t| t.starts_with("🔺"))
        })
        .count();
    assert_eq!(sent, 1, "escalated once, not every tick");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plan_escalating_to_nobody_the_bot_knows_is_warned_like_a_malformed_file() {
    let q = TempQueue::new();
    q.drop_plan(
        "who.md",
        &plan("who", "escalate_after: 1h\nescalate_to: [777]\n"),
    );
    let d = Running::start(q).await;
    let warning = d.wait_message(|m| m.plain.contains("who.md")).await;
    assert!(
        warning
            .plain
            .contains("`escalate_to`: `777` is nobody the bot may talk to"),
        "{}",
        warning.plain
    );
    d.fake.send_text(OWNER, "/queue");
    let queue = d.wait_message(|m| m.plain.contains("Decision Queue")).await;
    assert!(!queue.plain.contains("Release who"), "{}", queue.plain);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn quiet_hours_make_announcements_silent_except_for_urgent_plans() {
    use chrono::Timelike;
    let now = chrono::Utc::now();
    let hhmm = |t: chrono::DateTime<chrono::Utc>| format!("{:02}:{:02}", t.hour(), t.minute());
    // A quiet span from an hour ago to an hour from now, in UTC.
    let span = format!(
        "{}-{}",
        hhmm(now - chrono::Duration::hours(1)),
        hhmm(now + chrono::Duration::hours(1))
    );
    let q = TempQueue::new();
    let fake = FakeBot::start().await.unwrap();
    let mut s = settings(&fake, &q);
    s.quiet_hours = Some(arbiter_zebu::quiet::QuietHours::parse(&span, Some("UTC")).unwrap());
    let d = Running::start_with(fake, q, s).await;
    d.queue.drop_plan("calm.md", &plan("calm", ""));
    let calm = d.wait_message(|m| m.plain.contains("Release calm")).await;
    assert!(
        calm.disable_notification,
        "a normal plan is announced silently"
    );
    d.queue.drop_plan(
        "fire.md",
        &plan("fire", "priority: urgent\n").replace("priority: normal\n", ""),
    );
    let fire = d.wait_message(|m| m.plain.contains("Release fire")).await;
    assert!(!fire.disable_notification, "an urgent plan still rings");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn taps_racing_the_deadline_either_win_whole_or_record_nothing() {
    use arbiter_zebu::telegram::callback::{Callback, fingerprint, plan_ref};
    const PLANS: usize = 12;
    let q = TempQueue::new();
    let deadline = chrono::Utc::now() + chrono::Duration::seconds(3);
    let keys = format!(
        "deadline: {}\non_deadline: submit\n",
        deadline.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
    );
    for i in 0..PLANS {
        q.drop_plan(&format!("race{i}.md"), &plan(&format!("race{i}"), &keys));
    }
    let d = Running::start(q).await;
    // Tap "Stable" on every plan's first decision, spread around the deadline (250 ms apart, the middle one on it).
    let mut taps = Vec::new();
    for i in 0..PLANS {
        let at = deadline + chrono::Duration::milliseconds(250 * (i as i64 - PLANS as i64 / 2));
        if let Ok(wait) = (at - chrono::Utc::now()).to_std() {
            tokio::time::sleep(wait).await;
        }
        let data = Callback::Answer {
            plan: plan_ref(&format!("race{i}")),
            index: 0,
            option: 0,
            seen: fingerprint(&["channel", "a", "Stable"]),
        }
        .encode();
        taps.push(d.fake.tap_raw(OWNER, 0, &data));
    }
    assert!(d.wait_answered(&taps, WAIT).await, "every tap is answered");
    let answers = d.fake.callback_answers();
    let (mut won, mut lost) = (0, 0);
    for (i, qid) in taps.iter().enumerate() {
        let text = wait_file(&d.queue, "completed", &format!("race{i}.md")).await;
        let (_, _, alert) = answers.iter().find(|(q, ..)| q == qid).unwrap();
        let plan = arbiter_zebu::plan::parse(&text, "x").unwrap();
        let first = &plan.decisions[0];
        if *alert {
            // The deadline was first: the tap recorded nothing, the default stands.
            lost += 1;
            assert_eq!(first.answer.as_deref(), Some("b"), "{text}");
            assert_eq!(first.answered_by.as_deref(), Some("deadline"), "{text}");
        } else {
            // The tap was acknowledged: its answer is in the submitted file.
            won += 1;
            assert_eq!(first.answer.as_deref(), Some("a"), "{text}");
            assert_eq!(first.answered_by.as_deref(), Some("93533553"), "{text}");
        }
        assert_eq!(plan.decisions[1].answered_by.as_deref(), Some("deadline"));
        assert_eq!(plan.remaining(), 0);
    }
    assert!(d.queue.files("pending").is_empty());
    assert_eq!(d.queue.files("notify").len(), PLANS);
    eprintln!("race: {won} taps before the deadline, {lost} after");
}
