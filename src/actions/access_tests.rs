//! The permission rules, on parsed plans: who sees a plan, and who may take which action on it.

use super::*;
use crate::actions::Typed;
use crate::plan::{Plan, parse};

const ALICE: u64 = 93533553;
const BOB: u64 = 11111111;
const CAROL: u64 = 22222222;
const OUTSIDER: u64 = 666;

fn access() -> Access {
    Access::new([ALICE, BOB, CAROL]).with_people([
        ("alice".to_owned(), ALICE),
        ("bob".to_owned(), BOB),
        // Not a member: left out.
        ("mallory".to_owned(), OUTSIDER),
    ])
}

/// A plan with two decisions and `keys` added to its frontmatter; `delegated` goes into decision 1's block.
fn plan(keys: &str, delegated: &str) -> Plan {
    let text = format!(
        "---\nid: p\n{keys}---\n# P\n\n## Database\n\n{delegated}**Options:**\n- `pg` — PostgreSQL\n\n\
         ## Cache\n\n**Options:**\n- `redis` — Redis\n"
    );
    parse(&text, "p").unwrap()
}

fn answer(decision: usize) -> Action {
    Action::Answer {
        decision,
        option: 0,
        seen: "000000".into(),
    }
}

#[test]
fn without_approvers_every_member_approves_and_outsiders_nothing() {
    let a = access();
    let p = plan("", "");
    assert_eq!(a.approvers(&p), vec![BOB, CAROL, ALICE]);
    for user in [ALICE, BOB, CAROL] {
        assert_eq!(a.role(Actor::User(user), &p), Role::Approver);
        assert!(a.receives(user, &p));
        assert_eq!(a.check(Actor::User(user), &p, &answer(0)), Ok(()));
    }
    assert_eq!(a.role(Actor::User(OUTSIDER), &p), Role::Nobody);
    assert_eq!(
        a.check(Actor::User(OUTSIDER), &p, &Action::Open),
        Err(Refusal::Outsider)
    );
    assert_eq!(
        a.resolve("mallory"),
        None,
        "a name for a non-member is nobody"
    );
}

#[test]
fn a_non_approver_sees_nothing_and_may_do_nothing() {
    let a = access();
    let p = plan("approvers: [alice, 11111111]\n", "");
    assert_eq!(a.approvers(&p), vec![BOB, ALICE]);
    assert!(!a.sees(Actor::User(CAROL), &p));
    assert!(!a.receives(CAROL, &p));
    for action in [
        Action::Open,
        answer(0),
        Action::Submit {
            seen: String::new(),
        },
        Action::SignOff {
            seen: "000000".into(),
        },
        Action::Note {
            to: Typed::prompted_on(&p, "database"),
            text: "x".into(),
        },
        Action::Delegate {
            decision: 0,
            to: CAROL,
            seen: "000000".into(),
        },
    ] {
        assert_eq!(
            a.check(Actor::User(CAROL), &p, &action),
            Err(Refusal::NotForYou),
            "{action:?}"
        );
    }
    assert_eq!(a.check(Actor::User(ALICE), &p, &answer(1)), Ok(()));
}

#[test]
fn a_delegate_may_act_on_their_decision_only() {
    let a = access();
    let p = plan(
        "approvers: [alice]\n",
        &format!("delegated_to: {CAROL}\ndelegated_by: {ALICE}\n\n"),
    );
    assert_eq!(a.role(Actor::User(CAROL), &p), Role::Delegate(vec![0]));
    assert!(a.sees(Actor::User(CAROL), &p), "the plan is in their queue");
    assert!(
        !a.receives(CAROL, &p),
        "but its announcements are not theirs"
    );
    let carol = Actor::User(CAROL);
    assert_eq!(a.check(carol, &p, &Action::Open), Ok(()));
    assert_eq!(a.check(carol, &p, &answer(0)), Ok(()));
    let note = |id: &str| Action::Note {
        to: Typed::prompted_on(&p, id),
        text: "n".into(),
    };
    assert_eq!(a.check(carol, &p, &note("database")), Ok(()));
    for action in [
        answer(1),
        note("cache"),
        Action::Submit {
            seen: String::new(),
        },
        Action::TakeBack {
            decision: 0,
            seen: "000000".into(),
        },
        Action::Delegate {
            decision: 0,
            to: BOB,
            seen: "000000".into(),
        },
    ] {
        assert_eq!(
            a.check(carol, &p, &action),
            Err(Refusal::NotDelegated),
            "{action:?}"
        );
    }
    assert!(a.delegates_for(CAROL, &p).is_empty());
    assert_eq!(a.delegates_for(ALICE, &p), vec![BOB, CAROL]);
    // Bob is neither approver nor delegate.
    assert_eq!(
        a.check(Actor::User(BOB), &p, &answer(0)),
        Err(Refusal::NotForYou)
    );
}

#[test]
fn delegating_to_an_outsider_or_oneself_is_refused() {
    let a = access();
    let p = plan("", "");
    for to in [OUTSIDER, ALICE] {
        let action = Action::Delegate {
            decision: 0,
            to,
            seen: "000000".into(),
        };
        assert_eq!(
            a.check(Actor::User(ALICE), &p, &action),
            Err(Refusal::NoSuchDelegate)
        );
    }
}

#[test]
fn an_escalated_person_may_act_only_once_escalated() {
    let a = access();
    let keys = "created_at: 2026-02-01T09:00:00Z\napprovers: [alice]\nescalate_after: 1h\nescalate_to: [bob]\n";
    let before = plan(keys, "");
    assert!(!a.sees(Actor::User(BOB), &before));
    assert_eq!(
        a.check(Actor::User(BOB), &before, &answer(0)),
        Err(Refusal::NotForYou)
    );
    let after = plan(&format!("{keys}escalated_at: 2026-02-01T10:00:00Z\n"), "");
    assert!(a.receives(BOB, &after));
    assert_eq!(a.check(Actor::User(BOB), &after, &answer(0)), Ok(()));
    assert!(!a.sees(Actor::User(CAROL), &after));
}

#[test]
fn the_deadline_only_applies_the_clock() {
    let a = access();
    let p = plan("approvers: [alice]\n", "");
    assert_eq!(a.check(Actor::Deadline, &p, &Action::ApplyDeadline), Ok(()));
    assert_eq!(a.check(Actor::Deadline, &p, &Action::Open), Ok(()));
    for action in [
        answer(0),
        Action::Submit {
            seen: String::new(),
        },
        Action::TakeBack {
            decision: 0,
            seen: "000000".into(),
        },
    ] {
        assert_eq!(
            a.check(Actor::Deadline, &p, &action),
            Err(Refusal::ClockOnly)
        );
    }
    assert_eq!(
        a.check(Actor::User(ALICE), &p, &Action::Remind),
        Err(Refusal::ClockOnly)
    );
}

#[test]
fn one_sign_off_per_approver() {
    let a = access();
    let p = plan(&format!("require: 2\nsignoffs: [{ALICE}]\n"), "");
    let sign = Action::SignOff {
        seen: "000000".into(),
    };
    assert_eq!(
        a.check(Actor::User(ALICE), &p, &sign),
        Err(Refusal::AlreadySigned)
    );
    assert_eq!(
        a.check(
            Actor::User(ALICE),
            &p,
            &Action::Submit {
                seen: String::new()
            }
        ),
        Err(Refusal::AlreadySigned)
    );
    assert_eq!(a.check(Actor::User(BOB), &p, &sign), Ok(()));
}

#[test]
fn unknown_people_and_impossible_requires_are_diagnosed_with_their_line() {
    let a = access();
    let unknown = plan("title: T\napprovers: [alice, dave]\n", "");
    let d = a.unknown_people(&unknown).unwrap();
    assert_eq!(d.line, 4);
    assert!(d.reason.contains("`approvers`: `dave` is nobody"), "{d}");
    let escalate = plan("escalate_to: mallory\n", "");
    let d = a.unknown_people(&escalate).unwrap();
    assert_eq!(d.line, 3);
    assert!(d.reason.contains("`escalate_to`: `mallory`"), "{d}");
    // Three members approve by default: four sign-offs can never happen.
    let too_many = plan("require: 4\n", "");
    let d = a.unknown_people(&too_many).unwrap();
    assert_eq!(
        (d.line, d.reason.as_str()),
        (
            3,
            "`require: 4` needs more sign-offs than the plan has approvers (3)"
        )
    );
    assert!(
        a.unknown_people(&plan("require: 3\napprovers: [alice, bob, 22222222]\n", ""))
            .is_none()
    );
    // Without the config the plan core still sees a require larger than its own approvers list.
    let text = "---\nid: p\napprovers: [alice]\nrequire: 2\n---\n## D\n\n**Options:**\n- `a` — A\n";
    let d = parse(text, "p").unwrap_err();
    assert_eq!(d.line, 4, "{d}");
}

#[test]
fn names_show_instead_of_ids() {
    let a = access();
    assert_eq!(a.display(&ALICE.to_string()), "alice");
    assert_eq!(a.display(&CAROL.to_string()), CAROL.to_string());
    assert_eq!(a.display("deadline"), "deadline");
    assert_eq!(a.resolve("bob"), Some(BOB));
    assert_eq!(a.resolve(&CAROL.to_string()), Some(CAROL));
}

/// A completed plan known only by its summary (what the history index holds) is seen by exactly whoever sees the
/// plan itself: approvers by name or id, every member without a list, delegates, and escalated people only once
/// the plan was escalated.
#[test]
fn a_summary_is_seen_by_whoever_sees_the_plan() {
    let a = access();
    let escalation = "created_at: 2026-02-01T09:00:00Z\napprovers: [alice]\nescalate_after: 1h\nescalate_to: [bob]\n";
    let plans = [
        plan("", ""),
        plan("approvers: [alice, 11111111]\n", ""),
        plan(
            "approvers: [alice]\n",
            &format!("delegated_to: {CAROL}\ndelegated_by: {ALICE}\n\n"),
        ),
        plan(escalation, ""),
        plan(
            &format!("{escalation}escalated_at: 2026-02-01T10:00:00Z\n"),
            "",
        ),
    ];
    let actors = [ALICE, BOB, CAROL, OUTSIDER]
        .map(Actor::User)
        .into_iter()
        .chain([Actor::Deadline]);
    for p in &plans {
        let summary = crate::plan::Summary::of(p);
        for actor in actors.clone() {
            assert_eq!(
                a.sees_summary(actor, &summary),
                a.sees(actor, p),
                "{actor:?} on {:?} / {:?}",
                p.approval.approvers,
                p.timing.escalated_at
            );
        }
    }
}
