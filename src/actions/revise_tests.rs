//! 🔁 Request changes through the action layer: who may send a plan back, on what they saw, and the files it
//! leaves (the plan in returned/ with the request in its frontmatter, the notify file, the audit line).

use std::fs;

use super::tests::{Fixture, fixture_with};
use super::*;
use crate::plan::{EditError, PlanStatus};

const ALICE: u64 = 93533553;
const BOB: u64 = 11111111;
const CAROL: u64 = 22222222;
const OUTSIDER: u64 = 666;

fn fixture() -> Fixture {
    let access = Access::new([ALICE, BOB, CAROL])
        .with_people([("alice".to_owned(), ALICE), ("bob".to_owned(), BOB)]);
    fixture_with("approvers: [alice]\n", access)
}

fn request(f: &Fixture, feedback: &str) -> Action {
    Action::RequestChanges {
        seen: seen::of_answers(&f.plan()),
        feedback: feedback.to_owned(),
    }
}

/// The files in returned/ (made by the first plan sent back: none before).
fn returned(f: &Fixture) -> Vec<String> {
    fs::read_dir(f.actions.queue().returned_dir())
        .map(|d| {
            d.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn an_approver_sends_the_plan_back_with_the_request_written_surgically() {
    let f = fixture();
    f.take(Actor::User(ALICE), f.answer(0, 1));
    let before = f.text();
    let feedback = "Use: Postgres # really\nand \"quote\" this";
    let outcome = f.take(Actor::User(ALICE), request(&f, feedback));
    let Outcome::SentBack { plan, notify } = outcome else {
        panic!("{outcome:?}");
    };
    assert_eq!(plan.location, queue::Location::Returned);
    assert!(!f.file.exists(), "it left pending/");
    assert_eq!(returned(&f), ["p1.md"]);
    let after = fs::read_to_string(&plan.path).unwrap();
    // Only status and updated_at are rewritten and the request's three keys inserted; the rest is as it was.
    let expected = before
        .replace("status: in_progress\n", "status: changes_requested\n")
        .replace(
            "updated_at: 2026-02-01T10:00:00Z\n",
            &format!(
                "updated_at: 2026-02-01T10:00:00Z\nfeedback: \"Use: Postgres # really\\nand \\\"quote\\\" this\"\nfeedback_by: {ALICE}\nfeedback_at: 2026-02-01T10:00:00Z\n"
            ),
        );
    let sorted = |s: &str| {
        let mut l: Vec<&str> = s.lines().collect();
        l.sort_unstable();
        l.join("\n")
    };
    assert_eq!(sorted(&after), sorted(&expected), "{after}");
    let read = crate::plan::parse(&after, "p1").unwrap();
    assert_eq!(read.status, PlanStatus::ChangesRequested);
    let f_ = read.feedback.unwrap();
    assert_eq!(
        (f_.text.as_str(), f_.by, f_.at.as_deref()),
        (
            feedback,
            Some(ALICE.to_string()),
            Some("2026-02-01T10:00:00Z")
        )
    );
    assert_eq!(
        read.decisions[0].answer.as_deref(),
        Some("sqlite"),
        "answers stay"
    );
    let notify = fs::read_to_string(notify.unwrap()).unwrap();
    assert!(notify.contains("outcome: changes_requested\n"), "{notify}");
    assert!(
        notify.contains(&format!("feedback_by: {ALICE}\n")),
        "{notify}"
    );
    let fm: serde_yaml::Value = serde_yaml::from_str(
        notify
            .strip_prefix("---\n")
            .unwrap()
            .split("\n---\n")
            .next()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(fm["feedback"].as_str(), Some(feedback));
    // Gone from the queue: another tap finds nothing.
    assert!(matches!(
        f.take(Actor::User(ALICE), f_answer_blind()),
        Outcome::Gone
    ));
    let trail = fs::read_dir(f.actions.queue().root().join("audit"))
        .unwrap()
        .map(|e| fs::read_to_string(e.unwrap().path()).unwrap())
        .collect::<String>();
    assert!(trail.contains(r#""action":"request_changes""#), "{trail}");
    assert!(trail.contains(r#""revision":1"#), "{trail}");
}

/// An answer on a view drawn before (any fingerprint: the plan is not pending any more).
fn f_answer_blind() -> Action {
    Action::Answer {
        decision: 0,
        option: 0,
        seen: "000000".into(),
    }
}

#[test]
fn outsiders_non_approvers_delegates_the_clock_and_forged_or_stale_views_change_nothing() {
    let f = fixture();
    f.take(Actor::User(ALICE), f.answer(0, 1));
    let deleg = Action::Delegate {
        decision: 1,
        to: CAROL,
        seen: seen::of_decision(&f.plan().decisions[1]),
    };
    assert!(matches!(
        f.take(Actor::User(ALICE), deleg),
        Outcome::Recorded { .. }
    ));
    let before = f.text();
    let cases = [
        (Actor::User(OUTSIDER), request(&f, "x"), "outsider"),
        (Actor::User(BOB), request(&f, "x"), "non-approver"),
        (Actor::User(CAROL), request(&f, "x"), "delegate"),
        (Actor::Deadline, request(&f, "x"), "clock"),
        (
            Actor::User(ALICE),
            Action::RequestChanges {
                seen: "abcdef".into(),
                feedback: "x".into(),
            },
            "forged",
        ),
    ];
    for (actor, action, who) in cases {
        let outcome = f.take(actor, action);
        assert!(
            matches!(outcome, Outcome::Refused(_) | Outcome::Stale(_)),
            "{who}: {outcome:?}"
        );
        assert_eq!(f.text(), before, "{who}");
        assert!(returned(&f).is_empty(), "{who}");
    }
    // Stale: the answers changed after the review was drawn.
    let shown = request(&f, "x");
    f.take(Actor::User(ALICE), f.answer(0, 0));
    let changed = f.text();
    assert!(matches!(
        f.take(Actor::User(ALICE), shown),
        Outcome::Stale(_)
    ));
    assert_eq!(f.text(), changed);
    // An empty request is not recorded, and says why.
    let outcome = f.take(Actor::User(ALICE), request(&f, "  \n"));
    assert!(
        matches!(
            &outcome,
            Outcome::NotRecorded {
                error: StoreError::Edit(EditError::EmptyFeedback),
                ..
            }
        ),
        "{outcome:?}"
    );
    assert_eq!(f.text(), changed);
    // The prompt's check: the approver on the answers shown may start; a delegate may not.
    let start = Action::StartRequestChanges {
        seen: seen::of_answers(&f.plan()),
    };
    assert!(matches!(
        f.take(Actor::User(ALICE), start.clone()),
        Outcome::Current(_)
    ));
    assert!(matches!(
        f.take(Actor::User(CAROL), start),
        Outcome::Refused(_)
    ));
}
