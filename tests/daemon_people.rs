//! People through the real daemon against the fake Bot API, with two and three users: approvers, delegation,
//! sign-offs (the two-person rule) and notes. Assertions are on the files and on what each person is sent.

use arbiter_zebu::actions::seen;
use arbiter_zebu::fakebot::{FakeBot, SentMessage};
use arbiter_zebu::telegram::callback::plan_ref;

use crate::cli_support::Arbiter;
use crate::support::TempQueue;
use crate::support::daemon::{OWNER, Running, WAIT, render, settings};

const ALICE: i64 = OWNER;
const BOB: i64 = 11111111;
const CAROL: i64 = 22222222;

/// Two decisions, Database and Cache; `keys` go into the frontmatter, `answered` answers both.
fn plan(id: &str, keys: &str, answered: bool) -> String {
    let state = |answer: &str| {
        if answered {
            format!("status: answered\nanswer: {answer}\n")
        } else {
            "status: pending\n".to_owned()
        }
    };
    format!(
        "---\nid: {id}\ntitle: Stack {id}\nagent: tester\nsession: s1\n{keys}---\n\n# Stack {id}\n\n\
         ## Decision 1: Database\n\nid: database\n{}\n**Options:**\n- `pg` — PostgreSQL\n- `sqlite` — SQLite\n\n\
         ## Decision 2: Cache\n\nid: cache\n{}\n**Options:**\n- `redis` — Redis\n- `none` — No cache\n",
        state("pg"),
        state("redis")
    )
}

/// The daemon with Alice, Bob and Carol allowed and named.
async fn start(q: TempQueue) -> Running {
    let fake = FakeBot::start().await.unwrap();
    let mut s = settings(&fake, &q);
    s.allowed_users = vec![ALICE as u64, BOB as u64, CAROL as u64];
    s.people = vec![
        ("alice".to_owned(), ALICE as u64),
        ("bob".to_owned(), BOB as u64),
        ("carol".to_owned(), CAROL as u64),
    ];
    Running::start_with(fake, q, s).await
}

/// One person's chat.
struct Person<'a> {
    d: &'a Running,
    id: i64,
}

impl Person<'_> {
    fn transcript(&self) -> String {
        self.d
            .fake
            .messages(self.id)
            .iter()
            .map(render)
            .collect::<Vec<_>>()
            .join("\n---\n")
    }

    fn bot_messages(&self) -> Vec<SentMessage> {
        self.d
            .fake
            .messages(self.id)
            .into_iter()
            .filter(SentMessage::from_bot)
            .collect()
    }

    /// The newest bot message satisfying `pred`, once there is one.
    async fn wait(&self, pred: impl Fn(&SentMessage) -> bool) -> SentMessage {
        let ok = self
            .d
            .fake
            .wait_until(
                |f| f.messages(self.id).iter().any(|m| m.from_bot() && pred(m)),
                WAIT,
            )
            .await;
        assert!(
            ok,
            "no such message for {}:\n{}",
            self.id,
            self.transcript()
        );
        self.bot_messages()
            .into_iter()
            .rev()
            .find(|m| pred(m))
            .unwrap()
    }

    /// Waits for message `id` to show the button `label`, taps it, returns the callback answer.
    async fn tap(&self, id: i32, label: &str) -> (Option<String>, bool) {
        self.wait(|m| m.message_id == id && m.buttons().iter().any(|b| b.text == label))
            .await;
        let qid = self
            .d
            .fake
            .tap_label(self.id, id, label)
            .unwrap_or_else(|e| panic!("{e}\n{}", self.transcript()));
        self.d.answer_of(&qid).await
    }

    /// Taps any callback data on message `id`.
    async fn tap_raw(&self, id: i32, data: &str) -> (Option<String>, bool) {
        let qid = self.d.fake.tap_raw(self.id, id, data);
        self.d.answer_of(&qid).await
    }

    /// Opens plan `id` with a deep link; returns the answer (a view, or a refusal), not an announcement.
    async fn open(&self, id: &str) -> SentMessage {
        let sent = self.d.fake.send_text(self.id, &format!("/start plan_{id}"));
        self.wait(|m| {
            m.message_id > sent
                && !m.plain.contains("plan waiting")
                && !m.plain.contains("New decision plan")
        })
        .await
    }
}

fn callback_data(m: &SentMessage) -> Vec<String> {
    m.buttons()
        .iter()
        .filter_map(|b| b.callback_data.clone())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_approvers_get_see_and_answer_a_plan() {
    let d = start(TempQueue::new()).await;
    let (alice, bob, carol) = (
        Person { d: &d, id: ALICE },
        Person { d: &d, id: BOB },
        Person { d: &d, id: CAROL },
    );
    d.queue
        .drop_plan("p.md", &plan("p1", "approvers: [alice, bob]\n", false));
    // Announcements go to the members in id order (Bob, Carol, Alice): once Alice has hers, Carol would have
    // had hers.
    bob.wait(|m| m.plain.contains("Stack p1")).await;
    alice.wait(|m| m.plain.contains("Stack p1")).await;
    assert!(carol.bot_messages().is_empty(), "{}", carol.transcript());

    d.fake.send_text(CAROL, "/queue");
    let queue = carol.wait(|_| true).await;
    assert!(!queue.plain.contains("Stack p1"), "{}", queue.plain);
    d.fake.send_text(BOB, "/queue");
    let theirs = bob
        .wait(|m| m.plain.contains("Stack p1") && m.plain.contains("1."))
        .await;
    assert!(!theirs.buttons().is_empty());

    // Carol taps what Alice's buttons carry (valid refs and fingerprints): alerts, nothing changes.
    let view = alice.open("p1").await;
    alice.tap(view.message_id, "▶️ Continue").await;
    let decision = alice
        .wait(|m| m.message_id == view.message_id && m.plain.contains("1/2 · Database"))
        .await;
    let mut forged = callback_data(&decision);
    forged.extend(callback_data(&view));
    let p = plan_ref("p1").0;
    forged.push(format!("o:{p}"));
    let before = d.queue.read("pending", "p.md");
    for data in forged
        .iter()
        .filter(|c| c.as_str() != "n" && !c.starts_with("q:"))
    {
        let (text, alert) = carol.tap_raw(queue.message_id, data).await;
        assert!(alert, "{data}: {text:?}");
        assert_eq!(
            text.as_deref(),
            Some("⛔ This plan is not yours to answer."),
            "{data}"
        );
    }
    // `/start plan_p1` tells Carol the same and shows nothing of the plan.
    let refused = carol.open("p1").await;
    assert_eq!(refused.plain, "⛔ This plan is not yours to answer.");
    assert_eq!(d.queue.read("pending", "p.md"), before);
    assert!(
        carol
            .bot_messages()
            .iter()
            .all(|m| !m.plain.contains("Database")),
        "{}",
        carol.transcript()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn delegation_end_to_end() {
    let q = TempQueue::new();
    q.drop_plan("p.md", &plan("p2", "approvers: [alice]\n", false));
    let d = start(q).await;
    let (alice, bob) = (Person { d: &d, id: ALICE }, Person { d: &d, id: BOB });
    let view = alice.open("p2").await;
    let id = view.message_id;
    alice.tap(id, "▶️ Continue").await;
    alice.tap(id, "👉 Delegate").await;
    let picker = alice
        .wait(|m| m.message_id == id && m.plain.starts_with("👉 Delegate Database to:"))
        .await;
    let names: Vec<&str> = picker.buttons().iter().map(|b| b.text.as_str()).collect();
    assert_eq!(names, ["bob", "carol", "↩️ Back"]);
    alice.tap(id, "bob").await;
    let delegated = alice
        .wait(|m| m.message_id == id && m.plain.starts_with("👉 Delegated to bob"))
        .await;
    assert!(
        delegated.plain.contains("👉 Delegated to bob by alice"),
        "{}",
        delegated.plain
    );
    assert!(delegated.buttons().iter().any(|b| b.text == "↩️ Take back"));
    let text = d.queue.read("pending", "p.md");
    assert!(
        text.contains(&format!("delegated_to: {BOB}\ndelegated_by: {ALICE}\n")),
        "{text}"
    );

    // Bob gets the decision, and only what he may use on it.
    let his = bob
        .wait(|m| {
            m.plain
                .starts_with("👉 alice delegated this decision to you")
        })
        .await;
    assert!(his.plain.contains("1/2 · Database"), "{}", his.plain);
    let labels: Vec<&str> = his.buttons().iter().map(|b| b.text.as_str()).collect();
    assert_eq!(labels, ["A", "B", "✏️ Custom", "⏭️ Skip", "💬 Note"]);

    // Bob on the other decision (a forged answer with its true fingerprint): refused, nothing changes.
    let parsed = arbiter_zebu::plan::parse(&text, "p").unwrap();
    let cache = &parsed.decisions[1];
    let p = plan_ref("p2").0;
    let forged = format!("a:{p}:1:0:{}", seen::of_option(cache, &cache.options[0]));
    let (alert, shown) = bob.tap_raw(his.message_id, &forged).await;
    assert_eq!(
        (alert.as_deref(), shown),
        (
            Some("⛔ Only the decision delegated to you is yours to answer."),
            true
        )
    );
    let submit = format!("x:{p}:{}", seen::of_answers(&parsed));
    let (alert, _) = bob.tap_raw(his.message_id, &submit).await;
    assert_eq!(
        alert.as_deref(),
        Some("⛔ Only the decision delegated to you is yours to answer.")
    );
    // Other users' delegation refs: Bob can't take back, re-delegate or sign off with Alice's buttons, and
    // Carol (neither approver nor delegate) can't use Bob's.
    let alices = callback_data(&delegated);
    let take_back = alices.iter().find(|c| c.starts_with("b:")).unwrap();
    let dfp = take_back.rsplit(':').next().unwrap();
    for data in [
        take_back.clone(),
        format!("g:{p}:0:{CAROL}:{dfp}"),
        format!("d:{p}:0:{dfp}"),
    ] {
        let (alert, _) = bob.tap_raw(his.message_id, &data).await;
        assert_eq!(
            alert.as_deref(),
            Some("⛔ Only the decision delegated to you is yours to answer."),
            "{data}"
        );
    }
    let carol = Person { d: &d, id: CAROL };
    d.fake.send_text(CAROL, "/queue");
    let carols = carol.wait(|_| true).await;
    for data in callback_data(&his) {
        let (alert, _) = carol.tap_raw(carols.message_id, &data).await;
        assert_eq!(
            alert.as_deref(),
            Some("⛔ This plan is not yours to answer."),
            "{data}"
        );
    }
    // Opening the plan shows him his decision only.
    let opened = bob.open("p2").await;
    assert!(opened.plain.contains("1/2 · Database"), "{}", opened.plain);
    assert!(!opened.plain.contains("Cache"), "{}", opened.plain);
    assert_eq!(d.queue.read("pending", "p.md"), text);

    // Bob answers: recorded as his; Alice is told.
    bob.tap(his.message_id, "B").await;
    let told = alice.wait(|m| m.plain.starts_with("✅ bob answered")).await;
    assert_eq!(told.plain, "✅ bob answered Database → sqlite");
    let text = d.queue.read("pending", "p.md");
    assert!(text.contains("answer: sqlite\nanswered_at: "), "{text}");
    assert!(text.contains(&format!("answered_by: {BOB}\n")), "{text}");

    // Alice takes it back: Bob's old buttons change nothing any more.
    alice.tap(id, "↩️ Take back").await;
    alice
        .wait(|m| m.message_id == id && m.plain.starts_with("↩️ Taken back"))
        .await;
    let text = d.queue.read("pending", "p.md");
    assert!(text.contains("delegated_to: null\n"), "{text}");
    let (alert, _) = bob.tap(his.message_id, "A").await;
    assert_eq!(
        alert.as_deref(),
        Some("⛔ This plan is not yours to answer.")
    );
    assert_eq!(d.queue.read("pending", "p.md"), text);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_person_rule() {
    let q = TempQueue::new();
    q.drop_plan(
        "p.md",
        &plan("p3", "approvers: [alice, bob]\nrequire: 2\n", true),
    );
    let d = start(q).await;
    let (alice, bob, carol) = (
        Person { d: &d, id: ALICE },
        Person { d: &d, id: BOB },
        Person { d: &d, id: CAROL },
    );
    let view = alice.open("p3").await;
    let (alert, _) = alice.tap(view.message_id, "✅ Sign off (0/2)").await;
    assert_eq!(alert.as_deref(), Some("✍️ Signed off: ✅ Sign off (1/2)"));
    let text = d.queue.read("pending", "p.md");
    assert!(text.contains(&format!("signoffs: [{ALICE}]\n")), "{text}");
    assert!(text.contains("status: in_progress\n"), "{text}");
    assert_eq!(d.queue.files("completed"), Vec::<String>::new());

    // Bob is asked; Carol (no approver) is not.
    let asked = bob
        .wait(|m| m.plain.starts_with("✍️ alice signed off (1/2)"))
        .await;
    assert!(
        asked.plain.contains("Sign-offs 1/2: alice"),
        "{}",
        asked.plain
    );
    assert!(
        asked
            .buttons()
            .iter()
            .any(|b| b.text == "✅ Sign off (1/2)")
    );
    assert!(
        carol
            .bot_messages()
            .iter()
            .all(|m| !m.plain.contains("signed off"))
    );

    // Alice again: refused, nothing changes. Carol with Bob's button: refused.
    let review = alice
        .wait(|m| m.message_id == view.message_id && m.plain.contains("Sign-offs 1/2"))
        .await;
    let (alert, shown) = alice.tap(review.message_id, "✅ Sign off (1/2)").await;
    assert_eq!(
        (alert.as_deref(), shown),
        (Some("⛔ You already signed off this plan."), true)
    );
    let sign = callback_data(&asked)
        .into_iter()
        .find(|c| c.starts_with("v:"))
        .unwrap();
    d.fake.send_text(CAROL, "/queue");
    let carols = carol.wait(|_| true).await;
    let (alert, _) = carol.tap_raw(carols.message_id, &sign).await;
    assert_eq!(
        alert.as_deref(),
        Some("⛔ This plan is not yours to answer.")
    );
    assert_eq!(d.queue.read("pending", "p.md"), text);

    // Bob changes an answer before signing: the sign-offs are cleared and Alice is told.
    bob.tap(asked.message_id, "1. ✓ Database").await;
    bob.tap(asked.message_id, "B").await;
    let cleared = alice
        .wait(|m| {
            m.plain
                .starts_with("✍️ bob changed Database: the sign-offs")
        })
        .await;
    assert!(
        cleared
            .buttons()
            .iter()
            .any(|b| b.text == "✅ Sign off (0/2)")
    );
    let text = d.queue.read("pending", "p.md");
    assert!(text.contains("signoffs: []\n"), "{text}");
    // Bob's old sign-off button (drawn before his change) is stale now.
    let (alert, _) = bob.tap_raw(asked.message_id, &sign).await;
    assert_eq!(
        alert.as_deref(),
        Some(
            "This plan changed since this view was drawn. Nothing was recorded; here is the current version."
        )
    );

    // Both sign the new answers: the second submits, and the notify file lists both in order.
    alice.tap(cleared.message_id, "✅ Sign off (0/2)").await;
    let asked = bob
        .wait(|m| {
            m.plain.starts_with("✍️ alice signed off (1/2)") && m.message_id > asked.message_id
        })
        .await;
    let (alert, _) = bob.tap(asked.message_id, "✅ Sign off (1/2)").await;
    assert_eq!(alert.as_deref(), Some("📤 Submitted"));
    assert_eq!(d.queue.files("completed"), ["p.md"]);
    let done = d.queue.read("completed", "p.md");
    assert!(
        done.contains(&format!("signoffs: [{ALICE}, {BOB}]\n")),
        "{done}"
    );
    assert!(done.contains("status: completed\n"), "{done}");
    let notify = d.queue.read("notify", "s1--p3.md");
    assert!(
        notify.contains(&format!("signoffs:\n  - {ALICE}\n  - {BOB}\n")),
        "{notify}"
    );
    assert!(notify.contains("  database: sqlite\n"), "{notify}");
    // Alice, who signed first, hears that it went out.
    let done = alice.wait(|m| m.plain.starts_with("✅ Stack p3")).await;
    assert!(done.plain.contains("Database → sqlite"), "{}", done.plain);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hostile_note_round_trips_to_the_file_the_notify_file_and_get_json() {
    let q = TempQueue::new();
    q.drop_plan("p.md", &plan("p4", "", false));
    let d = start(q).await;
    let alice = Person { d: &d, id: ALICE };
    let view = alice.open("p4").await;
    let id = view.message_id;
    alice.tap(id, "▶️ Continue").await;
    alice.tap(id, "A").await;
    alice.tap(id, "⬅️ Prev").await;
    alice
        .wait(|m| m.message_id == id && m.plain.starts_with("1/2 · Database"))
        .await;
    alice.tap(id, "💬 Note").await;
    let prompt = alice
        .wait(|m| m.plain.starts_with("💬 Type your note for Database"))
        .await;
    let hostile =
        "Use \"pg\": it's #1\n---\n## not a decision\nkey: value # comment\n  'yes' ~ null \\ end";
    d.fake.send_reply(ALICE, hostile, prompt.message_id);
    let saved = alice.wait(|m| m.plain.starts_with("💬 Note saved")).await;
    assert!(
        saved
            .plain
            .contains("💬 Note: Use \"pg\": it's #1 --- ## not a decision"),
        "{}",
        saved.plain
    );
    let text = d.queue.read("pending", "p.md");
    let parsed = arbiter_zebu::plan::parse(&text, "p").unwrap();
    assert_eq!(parsed.decisions[0].note.as_deref(), Some(hostile));
    assert_eq!(
        parsed.decisions[0].answer.as_deref(),
        Some("pg"),
        "the answer stays"
    );

    let json = Arbiter::new(&d.queue).args(&["get", "p4", "--json"]).run();
    assert_eq!(json.code, Some(0), "{}", json.stderr);
    let got: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(got["decisions"][0]["note"], hostile);
    assert_eq!(got["decisions"][1]["note"], serde_json::Value::Null);
    assert_eq!(got["decisions"][0]["delegated_to"], serde_json::Value::Null);
    assert_eq!(got["signoffs"], serde_json::json!([]));

    // Submit: the notify file carries the note, exactly.
    alice.tap(saved.message_id, "Next ➡️").await;
    alice.tap(saved.message_id, "A").await;
    alice.tap(saved.message_id, "📤 Submit").await;
    let notify = d.queue.read("notify", "s1--p4.md");
    let fm = notify.strip_prefix("---\n").unwrap();
    let fm = &fm[..fm.find("\n---\n").unwrap()];
    let map: serde_yaml::Mapping = serde_yaml::from_str(fm).unwrap();
    assert_eq!(
        map.get("notes")
            .and_then(|n| n.get("database"))
            .and_then(serde_yaml::Value::as_str),
        Some(hostile),
        "{notify}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plan_naming_an_unknown_approver_is_warned_like_a_malformed_file() {
    let q = TempQueue::new();
    q.drop_plan("who.md", &plan("who", "approvers: [alice, dave]\n", false));
    let d = start(q).await;
    let alice = Person { d: &d, id: ALICE };
    let warning = alice.wait(|m| m.plain.contains("who.md")).await;
    assert!(
        warning
            .plain
            .contains("line 6: `approvers`: `dave` is nobody the bot may talk to"),
        "{}",
        warning.plain
    );
    d.fake.send_text(ALICE, "/queue");
    let queue = alice.wait(|m| m.plain.contains("Decision Queue")).await;
    assert!(!queue.plain.contains("Stack who"), "{}", queue.plain);
}
