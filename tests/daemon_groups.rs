//! The team's group chat through the real daemon and the fake Bot API: three users in one forum supergroup with two
//! topics, plan cards posted into the right topic, quick answers decided by the tapper's id, cards kept in step
//! with the plan, notices in the topic, and a group that throws the bot out. Assertions are on the files' bytes,
//! the cards as the group sees them, and the callback answers.

use arbiter_zebu::actions::seen;
use arbiter_zebu::config::{GroupConfig, TopicRule};
use arbiter_zebu::fakebot::{FakeBot, SentMessage};
use arbiter_zebu::telegram::callback::plan_ref;

use crate::support::TempQueue;
use crate::support::daemon::{OUTSIDER, OWNER, Running, WAIT, render, settings};

const ALICE: i64 = OWNER;
const BOB: i64 = 11111111;
const CAROL: i64 = 22222222;
const GROUP: i64 = -1_001_234_567_890;
/// What the group reads when a button from the private chat is tapped there.
const PRIVATE_ONLY: &str =
    "This is done in the private chat with the bot: tap 📂 Open. Nothing was recorded.";

/// A plan with one `choice` decision (Database: pg or sqlite); `keys` go into the frontmatter.
fn one_choice(id: &str, keys: &str) -> String {
    format!(
        "---\nid: {id}\ntitle: Pick {id}\nsession: s1\n{keys}---\n\n# Pick {id}\n\nWhich database?\n\n\
         ## Decision 1: Database\n\nid: database\nstatus: pending\n\n**Options:**\n- `pg` — PostgreSQL\n\
         - `sqlite` — SQLite\n"
    )
}

/// The forum: Alice created it and added the bot; Bob, Carol and an outsider are members. Topics Builder and Infra.
struct Forum {
    fake: FakeBot,
    builder: i32,
    infra: i32,
}

async fn forum() -> Forum {
    let fake = FakeBot::start().await.unwrap();
    fake.add_group(GROUP, "Team", true, ALICE);
    for user in [BOB, CAROL, OUTSIDER] {
        fake.add_member(GROUP, user);
    }
    let builder = fake.create_topic(GROUP, "Builder", ALICE).unwrap();
    let infra = fake.create_topic(GROUP, "Infra", ALICE).unwrap();
    Forum {
        fake,
        builder,
        infra,
    }
}

/// The daemon with Alice, Bob and Carol allowed and named, cards by agent `builder`, tag `infra`, the rest (`*`)
/// in the General topic.
async fn start(f: &Forum, q: TempQueue) -> Running {
    let mut s = settings(&f.fake, &q);
    s.allowed_users = vec![ALICE as u64, BOB as u64, CAROL as u64];
    s.people = vec![
        ("alice".to_owned(), ALICE as u64),
        ("bob".to_owned(), BOB as u64),
        ("carol".to_owned(), CAROL as u64),
    ];
    s.groups = vec![GroupConfig {
        chat: GROUP,
        topics: vec![
            (TopicRule::Any, 1),
            (TopicRule::Agent("builder".to_owned()), f.builder),
            (TopicRule::Tag("infra".to_owned()), f.infra),
        ],
    }];
    Running::start_with(f.fake.clone(), q, s).await
}

fn group_transcript(fake: &FakeBot) -> String {
    fake.messages(GROUP)
        .iter()
        .map(|m| format!("(topic {:?}) {}", m.thread, render(m)))
        .collect::<Vec<_>>()
        .join("\n---\n")
}

/// The newest card in `topic` whose text satisfies `pred`, once there is one.
async fn card(
    fake: &FakeBot,
    topic: Option<i32>,
    pred: impl Fn(&SentMessage) -> bool,
) -> SentMessage {
    let ok = fake
        .wait_until(|f| f.topic_messages(GROUP, topic).iter().any(&pred), WAIT)
        .await;
    assert!(
        ok,
        "no such card in topic {topic:?}:\n{}",
        group_transcript(fake)
    );
    fake.topic_messages(GROUP, topic)
        .into_iter()
        .rev()
        .find(|m| pred(m))
        .unwrap()
}

/// `user` taps `data` on message `id` in the group; returns the callback answer (text, alert).
async fn tap(d: &Running, user: i64, id: i32, data: &str) -> (Option<String>, bool) {
    let qid = d.fake.tap_in_group(GROUP, user, id, data).unwrap();
    d.answer_of(&qid).await
}

fn data_of(m: &SentMessage, label: &str) -> String {
    m.buttons()
        .iter()
        .find(|b| b.text == label)
        .and_then(|b| b.callback_data.clone())
        .unwrap_or_else(|| panic!("no button {label:?}: {}", m.render()))
}

/// The `answered_at` the daemon wrote (the one value of an answer a test can't know beforehand).
fn answered_at(text: &str) -> String {
    text.lines()
        .find_map(|l| l.strip_prefix("answered_at: "))
        .unwrap_or_else(|| panic!("no answered_at in\n{text}"))
        .to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cards_go_to_the_topic_of_their_agent_or_tag() {
    let f = forum().await;
    let d = start(&f, TempQueue::new()).await;
    d.queue
        .drop_plan("b.md", &one_choice("build-1", "agent: builder\n"));
    d.queue
        .drop_plan("i.md", &one_choice("infra-1", "agent: ops\ntag: infra\n"));
    // The agent's topic wins over the tag's.
    d.queue.drop_plan(
        "bi.md",
        &one_choice("both-1", "agent: builder\ntag: infra\n"),
    );
    d.queue
        .drop_plan("m.md", &one_choice("misc-1", "agent: ops\n"));

    let build = card(&f.fake, Some(f.builder), |m| {
        m.plain.contains("Pick build-1")
    })
    .await;
    assert_eq!(
        build.render(),
        "🟡 normal\nPick build-1\n🤖 builder asks · 1 decision\n📊 0/1 answered\n\
         [A. PostgreSQL]\n[B. SQLite]\n[📂 Open]"
    );
    let open = build.buttons().last().and_then(|b| b.url.clone());
    assert_eq!(
        open.as_deref(),
        Some("https://t.me/arbiter_fake_bot?start=plan_build-1")
    );
    card(&f.fake, Some(f.builder), |m| {
        m.plain.contains("Pick both-1")
    })
    .await;
    card(&f.fake, Some(f.infra), |m| m.plain.contains("Pick infra-1")).await;
    // `*` is topic 1, the General topic: sent without a thread id.
    card(&f.fake, None, |m| m.plain.contains("Pick misc-1")).await;
    let cards = f.fake.messages(GROUP);
    let bot_cards: Vec<_> = cards.iter().filter(|m| m.from_bot()).collect();
    assert_eq!(bot_cards.len(), 4, "{}", group_transcript(&f.fake));
    // The private chats still get their announcements.
    d.wait_message(|m| m.plain.contains("Pick misc-1")).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_approvers_quick_answer_is_recorded_and_the_card_redrawn_for_everyone() {
    let f = forum().await;
    let d = start(&f, TempQueue::new()).await;
    let original = one_choice("db", "agent: builder\napprovers: [alice, bob]\n");
    let path = d.queue.drop_plan("db.md", &original);
    let c = card(&f.fake, Some(f.builder), |m| m.plain.contains("Pick db")).await;

    let answer = tap(&d, BOB, c.message_id, &data_of(&c, "A. PostgreSQL")).await;
    assert_eq!(answer, (Some("✅ Database → PostgreSQL".to_owned()), false));
    let text = std::fs::read_to_string(&path).unwrap();
    let at = answered_at(&text);
    // The decision's block gets the answer and who gave it; the frontmatter its derived counts.
    let expected = original
        .replace(
            "status: pending\n",
            &format!("status: answered\nanswer: pg\nanswered_at: {at}\nanswered_by: {BOB}\n"),
        )
        .replace(
            "approvers: [alice, bob]\n---",
            &format!(
                "approvers: [alice, bob]\nstatus: in_progress\ntotal: 1\nanswered: 1\nremaining: 0\n\
                 updated_at: {at}\n---"
            ),
        );
    assert_eq!(text, expected);

    // The same message, edited: who answered what, the choice ticked, still open for Submit in private.
    let redrawn = card(&f.fake, Some(f.builder), |m| {
        m.message_id == c.message_id && m.plain.contains("bob")
    })
    .await;
    assert_eq!(
        redrawn.render(),
        "🟡 normal\nPick db\n🤖 builder asks · 1 decision\n📊 1/1 answered\n\n✅ Database → PostgreSQL · bob\n\
         [✓ A. PostgreSQL]\n[B. SQLite]\n[📂 Open]"
    );
    assert!(redrawn.edited);
    assert_eq!(f.fake.topic_messages(GROUP, Some(f.builder)).len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn non_approvers_outsiders_and_forged_taps_change_nothing() {
    let f = forum().await;
    let d = start(&f, TempQueue::new()).await;
    let original = one_choice("db", "agent: builder\napprovers: [alice, bob]\n");
    let path = d.queue.drop_plan("db.md", &original);
    let c = card(&f.fake, Some(f.builder), |m| m.plain.contains("Pick db")).await;
    let pick = data_of(&c, "A. PostgreSQL");
    let r = plan_ref("db");

    // Carol is allowed but no approver; the outsider is in the group but not in allowedUsers.
    let not_yours = (
        Some("⛔ This plan is not yours to answer.".to_owned()),
        true,
    );
    let private = (Some("⛔ This bot is private.".to_owned()), true);
    assert_eq!(tap(&d, CAROL, c.message_id, &pick).await, not_yours);
    assert_eq!(tap(&d, OUTSIDER, c.message_id, &pick).await, private);
    // Forged data: an answer with a made-up fingerprint, Submit and Skip — none of them on the card.
    let forged_answer = format!("a:{r}:0:1:abcdef");
    assert_eq!(
        tap(&d, CAROL, c.message_id, &forged_answer).await,
        not_yours
    );
    assert_eq!(
        tap(&d, OUTSIDER, c.message_id, &forged_answer).await,
        private
    );
    let submit = format!("x:{r}:{}", "000000");
    let skip = format!("k:{r}:0:{}", seen::fingerprint(&["database"]));
    let private_only = (Some(PRIVATE_ONLY.to_owned()), true);
    for user in [BOB, CAROL] {
        assert_eq!(tap(&d, user, c.message_id, &submit).await, private_only);
        assert_eq!(tap(&d, user, c.message_id, &skip).await, private_only);
    }
    assert_eq!(tap(&d, OUTSIDER, c.message_id, &skip).await, private);

    // Text in the group is never an answer or a command, and an outsider gets no reply there.
    f.fake
        .send_group_text(GROUP, Some(f.builder), CAROL, "pg")
        .unwrap();
    f.fake
        .send_group_text(GROUP, Some(f.builder), OUTSIDER, "/start plan_db")
        .unwrap();
    // A tap after them is answered once they were handled (updates are taken in order).
    assert_eq!(tap(&d, CAROL, c.message_id, &pick).await, not_yours);

    assert_eq!(std::fs::read_to_string(&path).unwrap(), original);
    let bot_messages = f
        .fake
        .messages(GROUP)
        .into_iter()
        .filter(|m| m.from_bot())
        .count();
    assert_eq!(bot_messages, 1, "{}", group_transcript(&f.fake));
    assert!(f.fake.messages(OUTSIDER).is_empty());
    let card_now = card(&f.fake, Some(f.builder), |m| m.message_id == c.message_id).await;
    assert!(!card_now.edited, "{}", card_now.render());
}

/// Plan `db` dropped and carded in the Builder topic; Alice opens it from the card and answers B in private.
/// Returns the daemon and the card.
async fn card_answered_in_private(f: &Forum) -> (Running, SentMessage) {
    let d = start(f, TempQueue::new()).await;
    d.queue
        .drop_plan("db.md", &one_choice("db", "agent: builder\n"));
    let c = card(&f.fake, Some(f.builder), |m| m.plain.contains("Pick db")).await;
    d.wait_message(|m| m.plain.contains("Pick db")).await;
    answer_b_in_private(&d).await;
    (d, c)
}

/// Alice follows the card's Open link to the bot's private chat at plan `db` and answers B there.
async fn answer_b_in_private(d: &Running) {
    let sent = d.fake.send_text(ALICE, "/start plan_db");
    let view = d
        .wait_message(|m| {
            m.message_id > sent && m.buttons().iter().any(|b| b.text == "▶️ Continue")
        })
        .await;
    d.tap(view.message_id, "▶️ Continue").await;
    let decision = d
        .wait_message(|m| {
            m.message_id == view.message_id && m.buttons().iter().any(|b| b.text == "B")
        })
        .await;
    d.tap(decision.message_id, "B").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plan_answered_in_private_updates_its_card_and_says_when_submitted() {
    let f = forum().await;
    let (d, c) = card_answered_in_private(&f).await;
    card(&f.fake, Some(f.builder), |m| {
        m.message_id == c.message_id && m.plain.contains("✅ Database → SQLite · alice")
    })
    .await;

    let review = d
        .wait_message(|m| m.buttons().iter().any(|b| b.text == "📤 Submit"))
        .await;
    d.tap(review.message_id, "📤 Submit").await;
    let done = card(&f.fake, Some(f.builder), |m| {
        m.message_id == c.message_id && m.plain.contains("Submitted")
    })
    .await;
    assert_eq!(
        done.render(),
        "🟡 normal\nPick db\n🤖 builder asks · 1 decision\n📊 1/1 answered\n\n✅ Database → SQLite · alice\n\n\
         📤 Submitted"
    );
    // A tap on the retired card's old buttons (kept by a client that had not refreshed) records nothing.
    let (text, alert) = tap(&d, BOB, c.message_id, "n").await;
    assert_eq!((text, alert), (None, false));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plan_sent_back_in_private_says_so_on_its_card() {
    let f = forum().await;
    let (d, c) = card_answered_in_private(&f).await;
    // The review (the plan and decision views offer 🔁 Request changes too, drawn on the answers before).
    let review = d
        .wait_message(|m| {
            let buttons = m.buttons();
            buttons.iter().any(|b| b.text == "🔁 Request changes")
                && buttons.iter().any(|b| b.text == "📤 Submit")
        })
        .await;
    d.tap(review.message_id, "🔁 Request changes").await;
    let prompt = d
        .wait_message(|m| m.plain.contains("What should the agent change"))
        .await;
    d.fake
        .send_reply(ALICE, "Use PostgreSQL, not SQLite", prompt.message_id);
    let back = card(&f.fake, Some(f.builder), |m| {
        m.message_id == c.message_id && m.plain.contains("Sent back")
    })
    .await;
    assert!(
        back.render().ends_with("🔁 Sent back for changes"),
        "{}",
        back.render()
    );
    assert!(
        back.buttons().is_empty(),
        "a sent-back card offers no answer"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reminders_go_to_the_topic_silently_in_quiet_hours() {
    use chrono::Timelike;
    let now = chrono::Utc::now();
    let hhmm = |t: chrono::DateTime<chrono::Utc>| format!("{:02}:{:02}", t.hour(), t.minute());
    let span = format!(
        "{}-{}",
        hhmm(now - chrono::Duration::hours(1)),
        hhmm(now + chrono::Duration::hours(1))
    );
    let f = forum().await;
    let q = TempQueue::new();
    let created = now.to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    let keys = format!("tag: infra\ncreated_at: {created}\nremind_every: 1s\n");
    q.drop_plan("r.md", &one_choice("rem", &keys));
    let mut s = settings(&f.fake, &q);
    s.quiet_hours = Some(arbiter_zebu::quiet::QuietHours::parse(&span, Some("UTC")).unwrap());
    s.groups = vec![GroupConfig {
        chat: GROUP,
        topics: vec![(TopicRule::Tag("infra".to_owned()), f.infra)],
    }];
    let _d = Running::start_with(f.fake.clone(), q, s).await;
    let c = card(&f.fake, Some(f.infra), |m| m.plain.contains("Pick rem")).await;
    assert!(c.disable_notification, "a card in quiet hours is silent");
    let reminder = card(&f.fake, Some(f.infra), |m| m.plain.contains("Reminder")).await;
    assert!(reminder.disable_notification, "{}", reminder.render());
    assert!(reminder.plain.contains("Pick rem"), "{}", reminder.render());
    // Only the link to the private chat: no button that would draw a private view in the group.
    let buttons = reminder.buttons();
    assert_eq!(buttons.len(), 1);
    assert_eq!(
        buttons[0].url.as_deref(),
        Some("https://t.me/arbiter_fake_bot?start=plan_rem")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_group_that_threw_the_bot_out_does_not_stop_the_private_chat() {
    let f = forum().await;
    // Removed before the daemon starts: the daemon drops that update with the other stale ones, so it first
    // hears of it as Telegram's 403.
    f.fake.kick_bot(GROUP, ALICE);
    let d = start(&f, TempQueue::new()).await;
    let to_group = |c: &arbiter_zebu::fakebot::Call| c.params["chat_id"] == GROUP;
    d.queue
        .drop_plan("one.md", &one_choice("one", "agent: builder\n"));
    assert!(
        d.fake
            .wait_for_call("sendMessage", to_group, WAIT)
            .await
            .is_some(),
        "the card was never tried"
    );
    // The private flow goes on: announced, answered, submitted.
    let announced = d.wait_message(|m| m.plain.contains("Pick one")).await;
    d.tap(announced.message_id, "📂 Open").await;
    let view = d
        .wait_message(|m| m.buttons().iter().any(|b| b.text == "▶️ Continue"))
        .await;
    d.tap(view.message_id, "▶️ Continue").await;
    let decision = d
        .wait_message(|m| m.buttons().iter().any(|b| b.text == "A"))
        .await;
    d.tap(decision.message_id, "A").await;
    let review = d
        .wait_message(|m| m.buttons().iter().any(|b| b.text == "📤 Submit"))
        .await;
    d.tap(review.message_id, "📤 Submit").await;
    d.wait_message(|m| m.plain.contains("Notifying")).await;
    assert_eq!(d.queue.files("completed").len(), 1);
    // A second plan is announced in private and not tried in the group again.
    d.queue
        .drop_plan("two.md", &one_choice("two", "agent: builder\n"));
    d.wait_message(|m| m.plain.contains("Pick two")).await;
    let tries = d
        .fake
        .calls_of("sendMessage")
        .into_iter()
        .filter(to_group)
        .count();
    assert_eq!(tries, 1, "{}", group_transcript(&f.fake));
    assert!(!d.task.is_finished());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cards_are_remembered_across_a_restart() {
    let f = forum().await;
    let d = start(&f, TempQueue::new()).await;
    d.queue
        .drop_plan("db.md", &one_choice("db", "agent: builder\n"));
    let c = card(&f.fake, Some(f.builder), |m| m.plain.contains("Pick db")).await;
    let cards_file = d.queue.root().join("telegram-cards.json");
    let written = d.fake.wait_until(|_| cards_file.exists(), WAIT).await;
    assert!(written, "the cards file was never written");
    let q = d.stop().await;
    assert!(
        q.read("", "telegram-cards.json")
            .contains(&format!("\"message\": {}", c.message_id)),
        "{}",
        q.read("", "telegram-cards.json")
    );

    let mark = f.fake.call_count();
    let d = start(&f, q).await;
    // The fake is the first run's too: wait for this run's own polling (after it dropped stale updates).
    let polling = f
        .fake
        .wait_until(
            |fake| {
                fake.calls_since(mark)
                    .iter()
                    .any(|c| c.method == "getUpdates" && c.params["offset"] != -1)
            },
            WAIT,
        )
        .await;
    assert!(polling, "the restarted daemon never polled");
    let answer = tap(&d, BOB, c.message_id, &data_of(&c, "B. SQLite")).await;
    assert_eq!(answer, (Some("✅ Database → SQLite".to_owned()), false));
    card(&f.fake, Some(f.builder), |m| {
        m.message_id == c.message_id && m.plain.contains("SQLite · bob")
    })
    .await;
    assert_eq!(
        f.fake.topic_messages(GROUP, Some(f.builder)).len(),
        1,
        "{}",
        group_transcript(&f.fake)
    );
}
