//! Every answer kind through the real daemon and the fake Bot API: what the owner sees, what they may type, and
//! the file's bytes after each answer (nothing written for a toggle or a refused reply).

use arbiter_zebu::plan::{AnswerValue, DecisionStatus, parse};

use serde_json::{Value, json};

use crate::cli_support::Arbiter;
use crate::support::TempQueue;
use crate::support::daemon::{OWNER, Running};

const FILE: &str = "builder-kinds-k1.md";

/// A plan with one decision whose key block is `keys`, then `body`.
fn plan(keys: &str, body: &str) -> String {
    format!(
        "---\nid: k1\ntitle: Kinds\nagent: builder\n---\n\n# Kinds\n\n## Decision 1: Q\n\nid: q\n{keys}\n\n{body}"
    )
}

/// Starts the daemon with `text` pending and opens its first decision; returns the daemon and the message id.
async fn open(text: &str) -> (Running, i32) {
    let queue = TempQueue::new();
    queue.drop_plan(FILE, text);
    let d = Running::start(queue).await;
    d.fake.send_text(OWNER, "/queue");
    let q = d.wait_message(|m| m.plain.contains("Kinds — 0/1")).await;
    let id = q.message_id;
    d.tap(id, "1").await;
    d.wait_message(|m| m.message_id == id && m.plain.contains("📄 Kinds"))
        .await;
    d.tap(id, "▶️ Continue").await;
    d.wait_message(|m| m.message_id == id && m.plain.contains("1/1 · Q"))
        .await;
    (d, id)
}

fn has_button(m: &arbiter_zebu::fakebot::SentMessage, label: &str) -> bool {
    m.buttons().iter().any(|b| b.text == label)
}

/// `arbiter get k1 --json`, as an agent reads the answers.
fn get_json(queue: &TempQueue) -> Value {
    let out = Arbiter::new(queue).args(&["get", "k1", "--json"]).run();
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    serde_json::from_str(&out.stdout).expect("JSON")
}

fn pending(d: &Running) -> String {
    d.queue.read("pending", FILE)
}

/// The decision's lines from `id: q` to the blank line after its key block.
fn block(text: &str) -> String {
    let start = text.find("\nid: q\n").expect("the decision") + 1;
    let end = text[start..].find("\n\n").map_or(text.len(), |e| start + e);
    let owner = OWNER.to_string();
    text[start..end]
        .lines()
        .filter(|l| !l.starts_with("answered_at:"))
        .map(|l| l.replace(&owner, "OWNER"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Sends `text` as the owner's reply and waits for the bot's next message containing `want`.
async fn reply(d: &Running, text: &str, want: &str) -> String {
    let before = d.chat().len();
    d.fake.send_text(OWNER, text);
    let ok = d
        .fake
        .wait_until(
            |f| {
                f.messages(OWNER)
                    .iter()
                    .skip(before)
                    .any(|m| m.from_bot() && m.plain.contains(want))
            },
            crate::support::daemon::WAIT,
        )
        .await;
    assert!(ok, "no {want:?} after {text:?}:\n{}", d.transcript());
    d.chat()
        .into_iter()
        .skip(before)
        .filter(|m| m.from_bot())
        .map(|m| m.plain)
        .collect::<Vec<_>>()
        .join("\n---\n")
}

/// `allow_custom` on a `multi`: ✏️ Custom types an answer of one's own, recorded beside the options toggled.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_multi_that_allows_custom_takes_text_of_ones_own_beside_the_toggles() {
    let body = "**Options:**\n- `lint` — Lint\n- `tests` — Tests\n";
    let text = plan("kind: multi\nallow_custom: true", body);
    let (d, id) = open(&text).await;
    let view = d.wait_message(|m| m.message_id == id).await;
    assert!(has_button(&view, "✏️ Custom"), "{}", view.plain);
    d.tap(id, "☐ B. Tests").await;
    d.wait_message(|m| m.message_id == id && has_button(m, "✅ Done (1)"))
        .await;
    d.tap(id, "✏️ Custom").await;
    d.wait_message(|m| m.plain.contains("Type your answer"))
        .await;
    assert_eq!(pending(&d), text, "toggles and the prompt write nothing");
    let after = reply(&d, "mutation testing", "Q →").await;
    assert!(after.contains("tests, mutation testing"), "{after}");
    assert_eq!(
        block(&pending(&d)),
        "id: q\nkind: multi\nallow_custom: true\nstatus: answered\nanswer: [tests, mutation testing]\nanswered_by: OWNER"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn multi_toggles_write_nothing_until_done_and_done_below_min_is_refused() {
    let body = "**Options:**\n- `lint` — Lint\n- `tests` — Tests\n- `yes` — Fuzz\n";
    let text = plan("kind: multi\nmin: 2", body);
    let (d, id) = open(&text).await;
    let view = d.wait_message(|m| m.message_id == id).await;
    assert!(view.plain.contains("☐ A. Lint"), "{}", view.plain);
    assert!(
        view.plain
            .contains("Pick from 2 to 3 options, then tap Done."),
        "{}",
        view.plain
    );

    d.tap(id, "☐ A. Lint").await;
    let toggled = d
        .wait_message(|m| m.message_id == id && has_button(m, "✅ Done (1)"))
        .await;
    assert!(toggled.plain.contains("☑ A. Lint"), "{}", toggled.plain);
    assert_eq!(pending(&d), text, "a toggle writes nothing");

    let (alert, is_alert) = d.tap_answer(id, "✅ Done (1)").await;
    assert!(is_alert);
    let alert = alert.unwrap_or_default();
    assert!(alert.contains("You picked 1 option."), "{alert}");
    assert!(alert.contains("Pick from 2 to 3 options"), "{alert}");
    assert_eq!(pending(&d), text, "a refused Done writes nothing");

    d.tap(id, "☐ C. Fuzz").await;
    d.wait_message(|m| m.message_id == id && has_button(m, "✅ Done (2)"))
        .await;
    d.tap(id, "✅ Done (2)").await;
    let review = d
        .wait_message(|m| m.message_id == id && m.plain.contains("Tap to edit, or submit"))
        .await;
    assert!(review.plain.contains("Q → lint, yes"), "{}", review.plain);
    let written = pending(&d);
    assert_eq!(
        block(&written),
        "id: q\nkind: multi\nmin: 2\nstatus: answered\nanswer: [lint, \"yes\"]\nanswered_by: OWNER"
    );
    let q = parse(&written, "k1").unwrap().decisions.remove(0);
    assert_eq!(
        q.value,
        Some(AnswerValue::List(vec!["lint".into(), "yes".into()]))
    );
    assert_eq!(get_json(&d.queue)["answers"], json!({"q": ["lint", "yes"]}));

    // Toggles are memory only: a restart between toggles loses them, never the recorded answer.
    d.tap(id, "1. ✓ Q").await;
    d.wait_message(|m| m.message_id == id && m.plain.contains("☑ C. Fuzz"))
        .await;
    d.tap(id, "☑ C. Fuzz").await;
    d.wait_message(|m| m.message_id == id && has_button(m, "✅ Done (1)"))
        .await;
    let q = d.stop().await;
    assert_eq!(q.read("pending", FILE), written);
    let d = Running::start(q).await;
    d.fake.send_text(OWNER, "/queue");
    let q = d.wait_message(|m| m.plain.contains("Kinds — 1/1")).await;
    d.tap(q.message_id, "1").await;
    d.wait_message(|m| m.message_id == q.message_id && m.plain.contains("📄 Kinds"))
        .await;
    d.tap(q.message_id, "✅ 1. Q").await;
    let view = d
        .wait_message(|m| m.message_id == q.message_id && m.plain.contains("1/1 · Q"))
        .await;
    // The toggle made before the restart is gone; the recorded answer is there.
    assert!(
        view.plain.contains("☑ A. Lint\n☐ B. Tests\n☑ C. Fuzz"),
        "{}",
        view.plain
    );
    assert!(has_button(&view, "✅ Done (2)"));
    assert_eq!(d.queue.read("pending", FILE), written);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_number_reply_that_does_not_fit_is_refused_and_asked_again() {
    let text = plan(
        "kind: number\nminimum: 1\nmaximum: 10\ninteger: true",
        "**Context:** How many?\n",
    );
    let (d, id) = open(&text).await;
    d.tap(id, "✏️ Answer").await;
    let prompt = d
        .wait_message(|m| m.message_id != id && m.plain.contains("Send your answer for Q"))
        .await;
    assert!(
        prompt.plain.contains("Send a whole number from 1 to 10."),
        "{}",
        prompt.plain
    );
    for (typed, why) in [
        ("12abc", "`12abc` is not a number written in digits."),
        ("11", "11 is out of range."),
        ("2.5", "2.5 is not a whole number."),
        ("1e3", "`1e3` is not a number written in digits."),
    ] {
        let said = reply(&d, typed, "Nothing was recorded").await;
        assert!(said.contains(why), "{typed}: {said}");
        assert!(said.contains("Send a whole number from 1 to 10."), "{said}");
        assert_eq!(pending(&d), text, "{typed} writes nothing");
    }
    let said = reply(&d, "7", "Tap to edit, or submit").await;
    assert!(said.contains("Q → 7"), "{said}");
    assert_eq!(
        block(&pending(&d)),
        "id: q\nkind: number\nminimum: 1\nmaximum: 10\ninteger: true\nstatus: answered\nanswer: 7\nanswered_by: OWNER"
    );
    assert_eq!(get_json(&d.queue)["answers"], json!({"q": 7}));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn text_formats_and_lengths_are_checked_before_anything_is_written() {
    let text = plan("kind: text\nformat: date", "**Context:** By when?\n");
    let (d, id) = open(&text).await;
    d.tap(id, "✏️ Answer").await;
    d.wait_message(|m| m.plain.contains("a date as YYYY-MM-DD"))
        .await;
    let said = reply(&d, "2026-02-30", "Nothing was recorded").await;
    assert!(said.contains("`2026-02-30` is not a date."), "{said}");
    assert_eq!(pending(&d), text);
    let said = reply(&d, "2026-03-01", "Tap to edit, or submit").await;
    assert!(said.contains("Q → 2026-03-01"), "{said}");
    assert_eq!(
        block(&pending(&d)),
        "id: q\nkind: text\nformat: date\nstatus: answered\nanswer: \"2026-03-01\"\nanswered_by: OWNER"
    );
    d.stop().await;

    let text = plan("kind: text\nformat: email\nmax_length: 12", "");
    let (d, id) = open(&text).await;
    d.tap(id, "✏️ Answer").await;
    d.wait_message(|m| m.plain.contains("an email address"))
        .await;
    let said = reply(&d, "bobexample", "Nothing was recorded").await;
    assert!(said.contains("is not an email address."), "{said}");
    let said = reply(&d, "robert@example.com", "Nothing was recorded").await;
    assert!(
        said.contains("That text has 18 characters, more than 12."),
        "{said}"
    );
    assert_eq!(pending(&d), text);
    reply(&d, "bob@ex.com", "Tap to edit, or submit").await;
    let q = parse(&pending(&d), "k1").unwrap().decisions.remove(0);
    assert_eq!(q.value, Some(AnswerValue::Text("bob@ex.com".into())));
    assert_eq!(get_json(&d.queue)["answers"], json!({"q": "bob@ex.com"}));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn boolean_is_yes_or_no() {
    let text = plan("kind: boolean", "**Context:** Migrate?\n");
    let (d, id) = open(&text).await;
    d.tap(id, "❌ No").await;
    let review = d
        .wait_message(|m| m.message_id == id && m.plain.contains("Tap to edit, or submit"))
        .await;
    assert!(review.plain.contains("Q → No"), "{}", review.plain);
    assert_eq!(
        block(&pending(&d)),
        "id: q\nkind: boolean\nstatus: answered\nanswer: false\nanswered_by: OWNER"
    );
    d.tap(id, "1. ✓ Q").await;
    let view = d
        .wait_message(|m| m.message_id == id && m.plain.contains("Answer: No ✓"))
        .await;
    assert!(view.buttons().iter().any(|b| b.text == "❌ No ✓"));
    d.tap(id, "✅ Yes").await;
    d.wait_message(|m| m.message_id == id && m.plain.contains("Q → Yes"))
        .await;
    assert!(block(&pending(&d)).contains("\nanswer: true\n"));
    assert_eq!(get_json(&d.queue)["answers"], json!({"q": true}));
}

const PROPOSAL: &str = "**Context:** Run it?\n\n**Proposal:**\n\n```bash\nrm -rf build/\nmake release\n```\n\n**Options:**\n- `reject` — Don't run it\n";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn edit_sends_the_proposal_to_copy_and_shows_the_change_as_a_diff() {
    let text = plan("kind: edit", PROPOSAL);
    let (d, id) = open(&text).await;
    let view = d.wait_message(|m| m.message_id == id).await;
    assert!(
        view.plain.contains("rm -rf build/\nmake release"),
        "{}",
        view.plain
    );
    let labels: Vec<String> = view.buttons().iter().map(|b| b.text.clone()).collect();
    // The plan's lone option reads as itself, beside 🔁 Request changes (the plan has one decision).
    for want in [
        "✅ Approve as is",
        "✏️ Edit",
        "Don't run it",
        "🔁 Request changes",
    ] {
        assert!(labels.iter().any(|l| l == want), "{want}: {labels:?}");
    }
    d.tap(id, "✏️ Edit").await;
    let prompt = d
        .wait_message(|m| m.plain.contains("Send the edited version of Q"))
        .await;
    let chat = d.chat();
    let copy = chat
        .iter()
        .find(|m| m.from_bot() && m.plain.trim() == "rm -rf build/\nmake release")
        .unwrap_or_else(|| panic!("the proposal alone:\n{}", d.transcript()));
    assert!(copy.message_id < prompt.message_id);
    let edited = "rm -rf build/\nmake release --dry-run  \n\tdone";
    d.fake.send_reply(OWNER, edited, prompt.message_id);
    // The answer to a typed reply comes as a new message: the review from here on.
    let id = d
        .wait_message(|m| m.plain.contains("Q → edited"))
        .await
        .message_id;
    let written = pending(&d);
    assert_eq!(
        block(&written),
        "id: q\nkind: edit\nstatus: answered\nanswer: \"rm -rf build/\\nmake release --dry-run  \\n\\tdone\"\nanswered_by: OWNER\nedited: true"
    );
    let q = parse(&written, "k1").unwrap().decisions.remove(0);
    assert_eq!(q.value, Some(AnswerValue::Text(edited.into())));
    let got = get_json(&d.queue);
    assert_eq!(got["answers"], json!({"q": edited}));
    assert_eq!(got["decisions"][0]["edited"], json!(true));
    d.tap(id, "1. ✓ Q").await;
    let shown = d
        .wait_message(|m| m.message_id == id && m.plain.contains("Your edit:"))
        .await;
    assert!(
        shown
            .plain
            .contains("  rm -rf build/\n- make release\n+ make release --dry-run  \n+ \tdone"),
        "{}",
        shown.plain
    );
    d.tap(id, "✅ Approve as is").await;
    d.wait_message(|m| m.message_id == id && m.plain.contains("Q → approved as is"))
        .await;
    assert_eq!(
        block(&pending(&d)),
        "id: q\nkind: edit\nstatus: answered\nanswer: \"rm -rf build/\\nmake release\"\nanswered_by: OWNER\nedited: false"
    );
    d.tap(id, "1. ✓ Q").await;
    d.wait_message(|m| m.message_id == id && m.plain.contains("Approved as is"))
        .await;
    d.tap(id, "Don't run it").await;
    d.wait_message(|m| m.message_id == id && m.plain.contains("Q → reject"))
        .await;
    let q = parse(&pending(&d), "k1").unwrap().decisions.remove(0);
    assert_eq!(
        (q.status, q.answer.as_deref()),
        (DecisionStatus::Answered, Some("reject"))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_elicitation_plan_can_be_declined_from_the_review() {
    let text = plan("kind: boolean", "")
        .replace("agent: builder\n", "agent: builder\nelicitation: true\n");
    let (d, id) = open(&text).await;
    d.tap(id, "📋 Review").await;
    let review = d
        .wait_message(|m| m.message_id == id && m.plain.contains("📋 Kinds"))
        .await;
    assert!(review.buttons().iter().all(|b| b.text != "📤 Submit"));
    d.tap(id, "❌ Decline").await;
    let done = d
        .wait_message(|m| m.message_id == id && m.plain.contains("Declined"))
        .await;
    assert!(done.plain.contains("❌ Kinds"), "{}", done.plain);
    let q = d.stop().await;
    assert!(q.files("pending").is_empty());
    let completed = q.read("completed", FILE);
    assert!(completed.contains("\noutcome: declined\n"), "{completed}");
    assert_eq!(get_json(&q)["elicitation"], json!({"action": "decline"}));
}
