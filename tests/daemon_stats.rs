//! `/stats` and the daily digest through the real daemon against the fake Bot API: the figures a member reads,
//! the chart photo's bytes, and a digest sent once a day (at its time, or at start when it was missed).

use std::time::Duration;

use arbiter_zebu::daemon::Settings;
use arbiter_zebu::digest::DigestAt;
use arbiter_zebu::fakebot::{FakeBot, SentMessage};
use chrono::{DateTime, SecondsFormat, Timelike, Utc};

use crate::support::daemon::{OUTSIDER, OWNER, Running, WAIT, settings};
use crate::support::{TempQueue, plan_answered as plan};

fn stamp(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Secs, true)
}

fn completed(q: &TempQueue, name: &str, text: &str) {
    std::fs::write(q.root().join("completed").join(name), text).unwrap();
}

/// Two plans completed in the last 30 days (times to decide 30 min, 1 h and 4 h; a skip; a deadline answer),
/// one 40 days ago, and one high-priority plan pending for 3 h.
fn stats_queue(now: DateTime<Utc>) -> TempQueue {
    let q = TempQueue::new();
    let h = chrono::Duration::hours;
    let m = chrono::Duration::minutes;
    let owner = OWNER.to_string();
    let c1 = now - chrono::Duration::days(2);
    completed(
        &q,
        "ceo-one.md",
        &plan(
            &format!(
                "id: one\nagent: ceo\nstatus: completed\ncreated_at: {}\ncompleted_at: {}",
                stamp(c1),
                stamp(c1 + h(2))
            ),
            &[
                ("d1", "answered", "a", stamp(c1 + m(30)), owner.clone()),
                (
                    "d2",
                    "answered",
                    "use redis",
                    stamp(c1 + h(1)),
                    owner.clone(),
                ),
                ("d3", "skipped", "null", stamp(c1 + h(2)), owner.clone()),
            ],
        ),
    );
    let c2 = now - chrono::Duration::days(1);
    completed(
        &q,
        "ceo-two.md",
        &plan(
            &format!(
                "id: two\nagent: ceo\nstatus: completed\ncreated_at: {}\ncompleted_at: {}",
                stamp(c2),
                stamp(c2 + h(10))
            ),
            &[
                ("d1", "answered", "b", stamp(c2 + h(4)), owner.clone()),
                (
                    "d2",
                    "answered",
                    "a",
                    stamp(c2 + h(10)),
                    "deadline".to_owned(),
                ),
            ],
        ),
    );
    let old = now - chrono::Duration::days(40);
    completed(
        &q,
        "swe-old.md",
        &plan(
            &format!(
                "id: old\nagent: swe\nstatus: completed\ncreated_at: {}\ncompleted_at: {}",
                stamp(old),
                stamp(old + h(1))
            ),
            &[("d1", "answered", "a", stamp(old + m(5)), owner.clone())],
        ),
    );
    waiting(&q, now);
    q
}

/// One high-priority plan, pending for 3 h.
fn waiting(q: &TempQueue, now: DateTime<Utc>) {
    q.drop_plan(
        "swe-waiting.md",
        &plan(
            &format!(
                "id: waiting\nagent: swe\ntitle: Waiting\npriority: high\nstatus: pending\ncreated_at: {}",
                stamp(now - chrono::Duration::hours(3))
            ),
            &[("d1", "pending", "null", "null", "null")],
        ),
    );
}

/// The PNG's width and height, after checking its signature and that IHDR comes first.
fn png_size(bytes: &[u8]) -> (u32, u32) {
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "PNG signature");
    assert_eq!(&bytes[12..16], b"IHDR");
    let be = |at: usize| u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap());
    (be(16), be(20))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stats_sends_the_figures_and_a_chart_photo() {
    let d = Running::start(stats_queue(Utc::now())).await;
    d.wait_message(|m| m.plain.starts_with("📋 1 plan waiting"))
        .await;
    let commands = d.fake.commands().to_string();
    assert!(commands.contains("\"stats\""), "{commands}");
    d.fake.send_text(OWNER, "/stats");
    let text = d.wait_message(|m| m.plain.starts_with("📊 Stats")).await;
    let expected = [
        "📊 Stats, last 30 days\n\n✅ 2 plans completed\n",
        "🗳 3 decisions answered (1 custom) · 1 skipped · 1 by deadline\n",
        "⏱ Time to decide: p50 1h · p90 4h · max 4h\n📄 Time per plan: p50 2h · p90 10h · max 10h\n",
        "By agent\n• ceo: 2 (p50 2h)\n",
        &format!("By person\n• {OWNER}: 3 (p50 1h)\n"),
        "📥 Queue now: 1 pending\n🟠 1 high\n🐢 Oldest: waiting, waiting 3h\n",
        "Ages: < 1h 0 · 1h–1d 1 · 1–7d 0 · > 7d 0",
    ];
    for part in expected {
        assert!(
            text.plain.contains(part),
            "{part:?} not in:\n{}",
            text.plain
        );
    }
    let photo = d.wait_message(|m| m.document.is_some()).await;
    let file = photo.document.as_ref().unwrap();
    assert_eq!(file.photo, Some((800, 420)));
    assert_eq!(png_size(&file.bytes), (800, 420));
    assert!(
        photo.plain.starts_with("📈 Decisions answered per day"),
        "{}",
        photo.plain
    );
    assert!(
        photo.message_id > text.message_id,
        "the chart follows the text"
    );
    // Someone not in allowedUsers gets the fixed refusal, no figures and no chart.
    d.fake.send_text(OUTSIDER, "/stats");
    let refused = |f: &FakeBot| f.messages(OUTSIDER).iter().any(SentMessage::from_bot);
    assert!(d.fake.wait_until(refused, WAIT).await);
    let theirs: Vec<String> = d
        .fake
        .messages(OUTSIDER)
        .iter()
        .map(|m| m.render())
        .collect();
    assert_eq!(theirs, ["⛔ This bot is private."]);
}

/// A second allowed user, who is no approver of the private plan below.
const BOB: i64 = 11_111_111;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stats_name_people_and_count_only_the_plans_each_user_may_see() {
    let now = Utc::now();
    let q = stats_queue(now);
    let h = chrono::Duration::hours;
    // One more completed plan that only ada (the owner) approves: Bob's figures leave it out.
    completed(
        &q,
        "ceo-private.md",
        &plan(
            &format!(
                "id: private\nagent: ceo\nstatus: completed\napprovers: [ada]\ncreated_at: {}\ncompleted_at: {}",
                stamp(now - h(3)),
                stamp(now - h(1))
            ),
            &[("d1", "answered", "a", stamp(now - h(2)), OWNER.to_string())],
        ),
    );
    let fake = FakeBot::start().await.unwrap();
    let mut s = settings(&fake, &q);
    s.allowed_users = vec![OWNER as u64, BOB as u64];
    s.people = vec![("ada".to_owned(), OWNER as u64)];
    let d = Running::start_with(fake, q, s).await;
    d.wait_message(|m| m.plain.starts_with("📋 1 plan waiting"))
        .await;
    d.fake.send_text(OWNER, "/stats");
    let ada = d.wait_message(|m| m.plain.starts_with("📊 Stats")).await;
    assert!(
        ada.plain.contains("✅ 3 plans completed\n"),
        "{}",
        ada.plain
    );
    assert!(ada.plain.contains("By person\n• ada: 4 "), "{}", ada.plain);
    d.fake.send_text(BOB, "/stats");
    let bobs = |f: &FakeBot| {
        f.messages(BOB)
            .iter()
            .any(|m| m.from_bot() && m.plain.starts_with("📊 Stats"))
    };
    assert!(d.fake.wait_until(bobs, WAIT).await, "{}", d.transcript());
    let bob = d
        .fake
        .messages(BOB)
        .into_iter()
        .find(|m| m.from_bot() && m.plain.starts_with("📊 Stats"))
        .unwrap();
    assert!(
        bob.plain.contains("✅ 2 plans completed\n"),
        "{}",
        bob.plain
    );
    assert!(bob.plain.contains("By person\n• ada: 3 "), "{}", bob.plain);
}

/// A digest message in `f`'s owner chat.
fn digests(f: &FakeBot) -> Vec<SentMessage> {
    f.messages(OWNER)
        .into_iter()
        .filter(|m| m.from_bot() && m.plain.starts_with("☀️ Daily digest"))
        .collect()
}

/// Waits until the daemon has sent what it queued before a plan dropped now is announced: the announcer sends
/// in order, so any digest due at start is in the chat once this returns.
async fn settle(d: &Running, id: &str) {
    d.queue.drop_plan(
        &format!("{id}.md"),
        &plan(
            &format!("id: {id}\ntitle: Marker {id}\nstatus: pending"),
            &[("d1", "pending", "null", "null", "null")],
        ),
    );
    d.wait_message(|m| m.plain.contains(&format!("Marker {id}")))
        .await;
}

fn with_digest(fake: &FakeBot, q: &TempQueue, at: &str) -> Settings {
    let mut s = settings(fake, q);
    s.digest = Some(DigestAt::parse(at, chrono_tz::Tz::UTC).unwrap());
    s
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_digest_fires_once_at_its_time_and_not_again_after_a_restart() {
    // A digest time a few seconds ahead, in UTC, with seconds: not across midnight (that would be tomorrow's).
    let mut now = Utc::now();
    if now.num_seconds_from_midnight() > 86_400 - 30 {
        tokio::time::sleep(Duration::from_secs(35)).await;
        now = Utc::now();
    }
    let at = now + chrono::Duration::seconds(4);
    let at_text = at.format("%H:%M:%S").to_string();
    let q = TempQueue::new();
    waiting(&q, now);
    // Yesterday (UTC): one plan completed, one decision answered 30 min after it was created.
    let yesterday = (now - chrono::Duration::days(1))
        .with_hour(12)
        .and_then(|t| t.with_minute(0))
        .unwrap();
    completed(
        &q,
        "y.md",
        &plan(
            &format!(
                "id: y\nstatus: completed\ncreated_at: {}\ncompleted_at: {}",
                stamp(yesterday - chrono::Duration::hours(1)),
                stamp(yesterday)
            ),
            &[(
                "d1",
                "answered",
                "a",
                stamp(yesterday - chrono::Duration::minutes(30)),
                OWNER.to_string(),
            )],
        ),
    );
    // And one a standing rule answered: counted apart, nobody's time.
    completed(
        &q,
        "r.md",
        &plan(
            &format!(
                "id: r\nstatus: completed\ncreated_at: {}\ncompleted_at: {}",
                stamp(yesterday),
                stamp(yesterday)
            ),
            &[(
                "d1",
                "answered",
                "a",
                stamp(yesterday),
                "rule:rab12cd3".to_owned(),
            )],
        ),
    );
    let fake = FakeBot::start().await.unwrap();
    let s = with_digest(&fake, &q, &at_text);
    let d = Running::start_with(fake, q, s.clone()).await;
    let digest = d
        .wait_message(|m| m.plain.starts_with("☀️ Daily digest"))
        .await;
    assert!(digest.date >= at.timestamp(), "sent before its time");
    let day = (now - chrono::Duration::days(1))
        .format("%A %-d %B")
        .to_string();
    let expected = format!(
        "📥 Queue now: 1 pending\n🟠 1 high\n🐢 Oldest: waiting, waiting 3h\n\n{day}\n✅ 2 plans completed\n🗳 1 decision answered · 0 skipped\n🔁 1 prompt answered by standing rules, nobody asked (/rules)\n⏱ Time to decide: p50 30m"
    );
    assert!(
        digest.plain.contains(&expected),
        "{expected:?} not in:\n{}",
        digest.plain
    );
    settle(&d, "m1").await;
    assert_eq!(digests(&d.fake).len(), 1);
    let q = d.stop().await;
    let sent_file = std::fs::read_to_string(q.root().join(".digest-sent")).unwrap();
    assert_eq!(sent_file, format!("{}\n", now.format("%Y-%m-%d")));

    // Restarted the same day: no second digest.
    let fake = FakeBot::start().await.unwrap();
    let s = with_digest(&fake, &q, &at_text);
    let d = Running::start_with(fake, q, s).await;
    settle(&d, "m2").await;
    assert!(digests(&d.fake).is_empty(), "{}", d.transcript());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_digest_missed_while_down_is_sent_once_at_start_after_the_summary() {
    let q = stats_queue(Utc::now());
    // Yesterday's digest was sent; today's time (midnight) has passed while the daemon was down.
    let yesterday = (Utc::now() - chrono::Duration::days(1)).format("%Y-%m-%d");
    std::fs::write(q.root().join(".digest-sent"), format!("{yesterday}\n")).unwrap();
    let fake = FakeBot::start().await.unwrap();
    let s = with_digest(&fake, &q, "00:00");
    let d = Running::start_with(fake, q, s).await;
    let digest = d
        .wait_message(|m| m.plain.starts_with("☀️ Daily digest"))
        .await;
    let summary = d
        .wait_message(|m| m.plain.starts_with("📋 1 plan waiting"))
        .await;
    assert!(summary.message_id < digest.message_id, "{}", d.transcript());
    assert!(
        digest.plain.contains("📥 Queue now: 1 pending"),
        "{}",
        digest.plain
    );
    settle(&d, "m1").await;
    assert_eq!(digests(&d.fake).len(), 1, "{}", d.transcript());
}
