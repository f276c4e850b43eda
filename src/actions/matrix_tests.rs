//! The action matrix, table-driven: every action (each variant, by the actor who may take it and by one who may
//! not) either changes the queue's files and writes exactly one audit line, or changes nothing and writes none.

use std::fs;

use super::tests::{Fixture, fixture_with};
use super::*;

const OWNER: u64 = 93533553;
const BOB: u64 = 4242;

/// The variant of `action`, as a number: written without a wildcard, so a new action does not compile until it
/// is named here, and [`every_action_is_in_the_table`] fails until the table takes it.
fn variant(action: &Action) -> usize {
    match action {
        Action::Open => 0,
        Action::Answer { .. } => 1,
        Action::StartCustom { .. } => 2,
        Action::Custom { .. } => 3,
        Action::Skip { .. } => 4,
        Action::AnswerMulti { .. } => 5,
        Action::AnswerInput { .. } => 6,
        Action::Approve { .. } => 7,
        Action::Decline { .. } => 8,
        Action::StartRequestChanges { .. } => 9,
        Action::RequestChanges { .. } => 10,
        Action::Submit { .. } => 11,
        Action::SignOff { .. } => 12,
        Action::StartNote { .. } => 13,
        Action::Note { .. } => 14,
        Action::StartDelegate { .. } => 15,
        Action::Delegate { .. } => 16,
        Action::TakeBack { .. } => 17,
        Action::ApplyDeadline => 18,
        Action::Remind => 19,
        Action::Escalate => 20,
        Action::Withdraw { .. } => 21,
    }
}
const VARIANTS: usize = 22;

/// What the queue's files hold: every file under pending/, completed/ and returned/, with its bytes.
fn files(f: &Fixture) -> Vec<(String, Vec<u8>)> {
    let root = f.actions.queue().root();
    let mut out = Vec::new();
    for dir in ["pending", "completed", "returned"] {
        let Ok(entries) = fs::read_dir(root.join(dir)) else {
            continue;
        };
        for e in entries {
            let e = e.unwrap();
            out.push((
                format!("{dir}/{}", e.file_name().to_string_lossy()),
                fs::read(e.path()).unwrap(),
            ));
        }
    }
    out.sort();
    out
}

fn lines(f: &Fixture) -> usize {
    crate::queue::audit::read(f.actions.queue().root())
        .unwrap()
        .unwrap()
        .1
        .len()
}

/// One case: the frontmatter keys, the actions that set the plan up, then the action measured, by whom.
struct Case {
    keys: &'static str,
    setup: fn(&Fixture) -> Vec<(Actor, Action)>,
    action: fn(&Fixture) -> Action,
    actor: Actor,
}

fn none(_: &Fixture) -> Vec<(Actor, Action)> {
    Vec::new()
}

fn both_answered(f: &Fixture) -> Vec<(Actor, Action)> {
    let first = f.answer(0, 0);
    let second = {
        let plan = f.plan();
        let d = &plan.decisions[1];
        Action::Answer {
            decision: 1,
            option: 0,
            seen: seen::of_option(d, &d.options[0]),
        }
    };
    vec![(Actor::User(OWNER), first), (Actor::User(OWNER), second)]
}

fn delegated(f: &Fixture) -> Vec<(Actor, Action)> {
    let seen = seen::of_decision(&f.plan().decisions[0]);
    vec![(
        Actor::User(OWNER),
        Action::Delegate {
            decision: 0,
            to: BOB,
            seen,
        },
    )]
}

fn decision_seen(f: &Fixture, i: usize) -> String {
    seen::of_decision(&f.plan().decisions[i])
}

fn cases() -> Vec<Case> {
    let owner = Actor::User(OWNER);
    let case = |setup: fn(&Fixture) -> Vec<(Actor, Action)>,
                action: fn(&Fixture) -> Action,
                actor: Actor| Case {
        keys: "",
        setup,
        action,
        actor,
    };
    vec![
        case(none, |_| Action::Open, owner),
        case(none, |f| f.answer(0, 1), owner),
        case(none, |f| f.answer(0, 1), Actor::Agent),
        case(none, |f| f.answer(0, 1), Actor::User(666)),
        // The same answer again: a change of nothing in what was chosen, written again and recorded again.
        case(
            |f| vec![(Actor::User(OWNER), f.answer(0, 1))],
            |f| f.answer(0, 1),
            owner,
        ),
        case(
            none,
            |f| Action::StartCustom {
                decision: 1,
                seen: decision_seen(f, 1),
            },
            owner,
        ),
        case(
            none,
            |f| Action::Custom {
                to: Typed::prompted_on(&f.plan(), "cache"),
                text: "memcached".into(),
            },
            owner,
        ),
        // Typed after its prompt, on a decision changed since: stale, nothing written.
        case(
            none,
            |_| Action::Custom {
                to: Typed::Prompted {
                    id: "cache".into(),
                    seen: "000000".into(),
                },
                text: "memcached".into(),
            },
            owner,
        ),
        case(
            none,
            |f| Action::Skip {
                decision: 1,
                seen: decision_seen(f, 1),
            },
            owner,
        ),
        case(
            none,
            |f| Action::AnswerMulti {
                decision: 0,
                options: vec![0],
                custom: None,
                seen: decision_seen(f, 0),
            },
            owner,
        ),
        case(
            none,
            |f| Action::AnswerInput {
                decision: 1,
                input: "valkey".into(),
                seen: decision_seen(f, 1),
            },
            owner,
        ),
        case(
            none,
            |f| Action::Approve {
                decision: 0,
                seen: decision_seen(f, 0),
            },
            owner,
        ),
        case(
            none,
            |f| Action::Decline {
                seen: seen::of_answers(&f.plan()),
            },
            owner,
        ),
        case(
            none,
            |f| Action::StartRequestChanges {
                seen: seen::of_answers(&f.plan()),
            },
            owner,
        ),
        case(
            none,
            |f| Action::RequestChanges {
                seen: seen::of_answers(&f.plan()),
                feedback: "Use MySQL".into(),
            },
            owner,
        ),
        case(none, |f| f.submit(), owner),
        case(both_answered, |f| f.submit(), owner),
        case(
            both_answered,
            |f| Action::SignOff {
                seen: seen::of_answers(&f.plan()),
            },
            owner,
        ),
        case(
            none,
            |f| Action::StartNote {
                decision: 0,
                seen: decision_seen(f, 0),
            },
            owner,
        ),
        case(
            none,
            |f| Action::Note {
                to: Typed::prompted_on(&f.plan(), "database"),
                text: "ask ops".into(),
            },
            owner,
        ),
        case(
            none,
            |f| Action::StartDelegate {
                decision: 0,
                seen: decision_seen(f, 0),
            },
            owner,
        ),
        case(delegated, |_| Action::Open, owner),
        case(
            none,
            |f| Action::Delegate {
                decision: 0,
                to: BOB,
                seen: decision_seen(f, 0),
            },
            owner,
        ),
        case(
            delegated,
            |f| Action::TakeBack {
                decision: 0,
                seen: decision_seen(f, 0),
            },
            owner,
        ),
        Case {
            keys: "deadline: 2026-01-01T00:00:00Z\non_deadline: submit\n",
            setup: none,
            action: |_| Action::ApplyDeadline,
            actor: Actor::Deadline,
        },
        case(none, |_| Action::ApplyDeadline, owner),
        Case {
            keys: "created_at: 2026-01-01T00:00:00Z\nremind_every: 1h\n",
            setup: none,
            action: |_| Action::Remind,
            actor: Actor::Deadline,
        },
        Case {
            keys: "created_at: 2026-01-01T00:00:00Z\nescalate_after: 1h\nescalate_to: [4242]\n",
            setup: none,
            action: |_| Action::Escalate,
            actor: Actor::Deadline,
        },
        case(
            none,
            |_| Action::Withdraw {
                agent: "tester".into(),
                reason: Some("moved on".into()),
            },
            Actor::Agent,
        ),
        case(
            none,
            |_| Action::Withdraw {
                agent: "tester".into(),
                reason: None,
            },
            owner,
        ),
    ]
}

#[test]
fn every_action_is_in_the_table() {
    let f = fixture_with("", Access::new([OWNER, BOB]));
    let mut named = [false; VARIANTS];
    for case in cases() {
        named[variant(&(case.action)(&f))] = true;
    }
    let missing: Vec<usize> = (0..VARIANTS).filter(|&v| !named[v]).collect();
    assert!(
        missing.is_empty(),
        "actions missing from the table: {missing:?}"
    );
}

#[test]
fn an_action_that_changes_a_file_writes_exactly_one_line_and_one_that_does_not_writes_none() {
    for (n, case) in cases().into_iter().enumerate() {
        let f = fixture_with(case.keys, Access::new([OWNER, BOB]));
        for (actor, action) in (case.setup)(&f) {
            f.take(actor, action);
        }
        let (files_before, lines_before) = (files(&f), lines(&f));
        let action = (case.action)(&f);
        let outcome = f
            .actions
            .take(case.actor, "p1", &action, "2026-02-01T10:00:00Z");
        let changed = files(&f) != files_before;
        let written = lines(&f) - lines_before;
        assert_eq!(
            written,
            usize::from(changed),
            "case {n}: {action:?} by {:?} → {outcome:?}: files changed: {changed}, lines written: {written}",
            case.actor
        );
    }
}
