//! Notes, sign-offs and delegation through the action layer on a temp queue: the file on disk and the outcome.

use std::fs;

use super::*;
use crate::plan::{Edit, EditError};

const NOW: &str = "2026-02-01T10:00:00Z";
const ALICE: u64 = 93533553;
const BOB: u64 = 11111111;
const CAROL: u64 = 22222222;
const OUTSIDER: u64 = 666;

use super::tests::{Fixture, fixture_with, plan_text};

fn fixture(keys: &str) -> Fixture {
    let access = Access::new([ALICE, BOB, CAROL])
        .with_people([("alice".to_owned(), ALICE), ("bob".to_owned(), BOB)]);
    fixture_with(keys, access)
}

/// The people's own steps on a [`Fixture`].
impl Fixture {
    fn seen(&self, decision: usize) -> String {
        seen::of_decision(&self.plan().decisions[decision])
    }
    fn sign(&self) -> Action {
        Action::SignOff {
            seen: seen::of_answers(&self.plan()),
        }
    }
    fn delegate(&self, decision: usize, to: u64) -> Action {
        Action::Delegate {
            decision,
            to,
            seen: self.seen(decision),
        }
    }
}

#[test]
fn a_hostile_note_round_trips_byte_for_byte_and_leaves_the_answer() {
    let f = fixture("");
    f.take(Actor::User(ALICE), f.answer(0, 1));
    let before = f.text();
    let hostile = "line one: \"quoted\" # not a comment\n---\n## not a heading\n  'yes' \\ null\r\ntabs\there ~ \u{2028} end ";
    let outcome = f.take(
        Actor::User(ALICE),
        Action::Note {
            to: Typed::prompted_on(&f.plan(), "database"),
            text: hostile.into(),
        },
    );
    let Outcome::Recorded { plan, decision, .. } = outcome else {
        panic!("{outcome:?}");
    };
    assert_eq!(decision, 0);
    let d = &plan.plan.decisions[0];
    assert_eq!(d.note.as_deref(), Some(hostile));
    assert_eq!(
        d.answer.as_deref(),
        Some("sqlite"),
        "a note never changes the answer"
    );
    let after = f.text();
    assert_eq!(f.plan().decisions[0].note.as_deref(), Some(hostile));
    // Only the note line is new (and the frontmatter's updated_at is rewritten, to the same time).
    let note_line = after
        .lines()
        .find(|l| l.starts_with("note: "))
        .unwrap()
        .to_owned();
    assert_eq!(after.replace(&format!("{note_line}\n"), ""), before);
    // The note goes into the notify file and reads back the same there too.
    f.take(Actor::User(ALICE), f.answer(1, 0));
    let Outcome::Submitted { notify, .. } = f.take(Actor::User(ALICE), f.submit()) else {
        panic!("not submitted");
    };
    let notify = fs::read_to_string(notify.unwrap()).unwrap();
    let fm = notify.strip_prefix("---\n").unwrap();
    let fm = &fm[..fm.find("\n---\n").unwrap()];
    let map: serde_yaml::Mapping = serde_yaml::from_str(fm).unwrap();
    let notes = map
        .get("notes")
        .and_then(serde_yaml::Value::as_mapping)
        .unwrap();
    assert_eq!(
        notes.get("database").and_then(serde_yaml::Value::as_str),
        Some(hostile)
    );
    assert!(!notes.contains_key("cache"));
}

#[test]
fn an_empty_note_is_refused() {
    let f = fixture("");
    let before = f.text();
    let outcome = f.take(
        Actor::User(ALICE),
        Action::Note {
            to: Typed::prompted_on(&f.plan(), "cache"),
            text: " \n ".into(),
        },
    );
    assert!(
        matches!(
            outcome,
            Outcome::NotRecorded {
                error: StoreError::Edit(EditError::EmptyNote),
                ..
            }
        ),
        "{outcome:?}"
    );
    assert_eq!(f.text(), before);
}

#[test]
fn two_person_rule_signs_clears_on_a_changed_answer_and_submits_on_the_last_sign_off() {
    let f = fixture("approvers: [alice, bob]\nrequire: 2\n");
    f.take(Actor::User(ALICE), f.answer(0, 0));
    f.take(Actor::User(ALICE), f.answer(1, 0));
    // Alice signs: in_progress, signoffs on disk, not completed.
    let outcome = f.take(Actor::User(ALICE), f.submit());
    let Outcome::SignedOff(plan) = outcome else {
        panic!("{outcome:?}");
    };
    assert_eq!(plan.plan.approval.signoffs, vec![ALICE]);
    let text = f.text();
    assert!(text.contains(&format!("signoffs: [{ALICE}]\n")), "{text}");
    assert!(text.contains("status: in_progress\n"), "{text}");
    assert!(!text.contains("completed_at"), "{text}");
    // Twice: refused, nothing changes.
    let before = f.text();
    assert!(matches!(
        f.take(Actor::User(ALICE), f.sign()),
        Outcome::Refused(Refusal::AlreadySigned)
    ));
    // Carol is no approver; an outsider is nobody.
    assert!(matches!(
        f.take(Actor::User(CAROL), f.sign()),
        Outcome::Refused(Refusal::NotForYou)
    ));
    assert!(matches!(
        f.take(Actor::User(OUTSIDER), f.sign()),
        Outcome::Refused(Refusal::Outsider)
    ));
    assert_eq!(f.text(), before);
    // Bob changes an answer: the sign-offs are cleared and Alice is to be told.
    let outcome = f.take(Actor::User(BOB), f.answer(0, 1));
    let Outcome::Recorded { tell, .. } = outcome else {
        panic!("{outcome:?}");
    };
    assert_eq!(tell.signoffs_cleared, vec![ALICE]);
    assert!(f.text().contains("signoffs: []\n"), "{}", f.text());
    // A sign-off on the answers as they were before the change is stale.
    let old = Action::SignOff {
        seen: seen::of_answers(&crate::plan::parse(&before, "p1").unwrap()),
    };
    assert!(matches!(f.take(Actor::User(BOB), old), Outcome::Stale(_)));
    // Both sign again: the second submits, with both in the notify file in order.
    assert!(matches!(
        f.take(Actor::User(BOB), f.sign()),
        Outcome::SignedOff(_)
    ));
    let Outcome::Submitted { plan, notify, .. } = f.take(Actor::User(ALICE), f.sign()) else {
        panic!("not submitted");
    };
    assert_eq!(plan.plan.approval.signoffs, vec![BOB, ALICE]);
    let done = fs::read_to_string(&plan.path).unwrap();
    assert!(
        done.contains(&format!("signoffs: [{BOB}, {ALICE}]\n")),
        "{done}"
    );
    assert!(done.contains("status: completed\n"), "{done}");
    let notify = fs::read_to_string(notify.unwrap()).unwrap();
    assert!(
        notify.contains(&format!("signoffs:\n  - {BOB}\n  - {ALICE}\n")),
        "{notify}"
    );
}

#[test]
fn re_answering_the_same_option_keeps_the_sign_offs() {
    let f = fixture("require: 2\n");
    f.take(Actor::User(ALICE), f.answer(0, 0));
    f.take(Actor::User(ALICE), f.answer(1, 0));
    f.take(Actor::User(ALICE), f.submit());
    let outcome = f.take(Actor::User(BOB), f.answer(0, 0));
    let Outcome::Recorded { tell, .. } = outcome else {
        panic!("{outcome:?}");
    };
    assert!(tell.signoffs_cleared.is_empty());
    assert_eq!(f.plan().approval.signoffs, vec![ALICE]);
}

#[test]
fn delegation_end_to_end_in_the_file() {
    let f = fixture("approvers: [alice]\n");
    // Bob is no approver: he can't touch it before the delegation.
    assert!(matches!(
        f.take(Actor::User(BOB), f.answer(0, 0)),
        Outcome::Refused(Refusal::NotForYou)
    ));
    let before = f.text();
    let Outcome::Recorded { plan, decision, .. } = f.take(Actor::User(ALICE), f.delegate(0, BOB))
    else {
        panic!("not delegated");
    };
    assert_eq!(decision, 0);
    assert_eq!(plan.plan.decisions[0].delegated_to, Some(BOB));
    let text = f.text();
    let lines = format!("delegated_to: {BOB}\ndelegated_by: {ALICE}\n");
    assert!(text.contains(&lines), "{text}");
    // Delegation lines inserted in the decision's block; the frontmatter's updated_at and counts rewritten.
    assert_eq!(
        text.replace(&lines, "").replace("\n\n\n", "\n\n"),
        before
            .replace(
                "approvers: [alice]\n",
                &format!("approvers: [alice]\nstatus: pending\ntotal: 2\nanswered: 0\nremaining: 2\nupdated_at: {NOW}\n")
            )
            .replace("\n\n\n", "\n\n"),
    );
    // Bob may answer decision 1 (Database) only.
    let cache = f.answer(1, 0);
    assert!(matches!(
        f.take(Actor::User(BOB), cache),
        Outcome::Refused(Refusal::NotDelegated)
    ));
    assert!(matches!(
        f.take(Actor::User(BOB), f.submit()),
        Outcome::Refused(Refusal::NotDelegated)
    ));
    let outcome = f.take(Actor::User(BOB), f.answer(0, 0));
    let Outcome::Recorded { tell, .. } = outcome else {
        panic!("{outcome:?}");
    };
    assert_eq!(tell.delegator, Some(ALICE), "the delegator is told");
    let d = &f.plan().decisions[0];
    assert_eq!(
        (d.answer.as_deref(), d.answered_by.as_deref()),
        (Some("pg"), Some("11111111"))
    );
    // Alice takes it back: Bob can't answer any more; delegated_by stays as the audit trail.
    let back = Action::TakeBack {
        decision: 0,
        seen: f.seen(0),
    };
    assert!(matches!(
        f.take(Actor::User(ALICE), back),
        Outcome::Recorded { .. }
    ));
    let d = &f.plan().decisions[0];
    assert_eq!((d.delegated_to, d.delegated_by), (None, Some(ALICE)));
    assert!(f.text().contains("delegated_to: null\n"));
    let before = f.text();
    assert!(matches!(
        f.take(Actor::User(BOB), f.answer(0, 1)),
        Outcome::Refused(Refusal::NotForYou)
    ));
    assert_eq!(f.text(), before);
}

#[test]
fn forged_delegations_change_nothing() {
    let f = fixture("approvers: [alice]\n");
    let before = f.text();
    // To an outsider, to oneself, with a stale fingerprint, by a non-approver, by an outsider.
    let stale = Action::Delegate {
        decision: 0,
        to: BOB,
        seen: f.seen(1),
    };
    let cases = [
        (ALICE, f.delegate(0, OUTSIDER)),
        (ALICE, f.delegate(0, ALICE)),
        (ALICE, stale),
        (BOB, f.delegate(0, BOB)),
        (CAROL, f.delegate(0, BOB)),
        (OUTSIDER, f.delegate(0, BOB)),
    ];
    for (user, action) in cases {
        let outcome = f.take(Actor::User(user), action.clone());
        assert!(
            matches!(outcome, Outcome::Refused(_) | Outcome::Stale(_)),
            "{user} {action:?}: {outcome:?}"
        );
    }
    assert_eq!(f.text(), before);
}

#[test]
fn a_sign_off_under_the_lock_checks_the_answers_it_approves() {
    let text = plan_text("require: 2\n")
        .replace(
            "**Options:**\n- `pg`",
            "status: answered\nanswer: pg\n\n**Options:**\n- `pg`",
        )
        .replace(
            "**Options:**\n- `redis`",
            "status: skipped\n\n**Options:**\n- `redis`",
        );
    let plan = crate::plan::parse(&text, "p1").unwrap();
    let seen = crate::plan::answers_of(&plan);
    let signed = crate::plan::apply(
        &text,
        "p1",
        &Edit::SignOff {
            user: ALICE,
            answers: seen.clone(),
        },
        None,
        NOW,
    )
    .unwrap();
    assert!(
        signed.contains(&format!("signoffs: [{ALICE}]\n")),
        "{signed}"
    );
    // The agent (or another approver) changed an answer between the view and the write: nothing is recorded.
    let changed = text.replace("answer: pg", "answer: sqlite");
    let refused = crate::plan::apply(
        &changed,
        "p1",
        &Edit::SignOff {
            user: ALICE,
            answers: seen,
        },
        None,
        NOW,
    );
    assert_eq!(refused, Err(EditError::AnswersChanged));
    assert!(EditError::AnswersChanged.is_stale());
}
