//! The actions of the answer kinds on a temp queue: what is checked is the file on disk and the outcome.

use std::fs;

use super::*;
use crate::plan::AnswerValue;

const NOW: &str = "2026-02-01T10:00:00Z";
const OWNER: u64 = 93533553;
const OTHER: u64 = 11111111;
const OUTSIDER: u64 = 666;

/// One decision of each new kind; `keys` (whole lines) go into the frontmatter.
fn kinds_plan(keys: &str) -> String {
    format!(
        "---\nid: k1\ntitle: Kinds\n{keys}---\n# Kinds\n\n\
         ## Checks\n\nid: checks\nkind: multi\nmin: 2\n\n**Options:**\n- `lint` — Lint\n- `tests` — Tests\n- `yes` — Yes\n\n\
         ## Replicas\n\nid: replicas\nkind: number\nminimum: 1\nmaximum: 10\ninteger: true\n\n\
         ## Go\n\nid: go\nkind: boolean\n\n\
         ## Command\n\nid: command\nkind: edit\n\n**Proposal:**\n\n```bash\nrm -rf build/\n```\n\n\
         **Options:**\n- `reject` — Don't run it\n"
    )
}

struct Kinds {
    _dir: tempfile::TempDir,
    actions: Actions,
    file: std::path::PathBuf,
}

fn kinds(keys: &str, access: Access) -> Kinds {
    let dir = tempfile::tempdir().unwrap();
    let queue = Queue::open(dir.path(), true).unwrap();
    let file = queue.add_pending("k1.md", &kinds_plan(keys)).unwrap();
    Kinds {
        actions: Actions::new(queue, access),
        _dir: dir,
        file,
    }
}

impl Kinds {
    fn take(&self, actor: Actor, action: &Action) -> Outcome {
        self.actions.take(actor, "k1", action, NOW)
    }
    fn text(&self) -> String {
        fs::read_to_string(&self.file).unwrap()
    }
    fn plan(&self) -> Plan {
        crate::plan::parse(&self.text(), "k1").unwrap()
    }
    fn seen(&self, decision: usize) -> String {
        seen::of_decision(&self.plan().decisions[decision])
    }
    fn input(&self, decision: usize, input: &str) -> Action {
        Action::AnswerInput {
            decision,
            input: input.into(),
            seen: self.seen(decision),
        }
    }
    fn multi(&self, options: &[usize]) -> Action {
        Action::AnswerMulti {
            decision: 0,
            options: options.to_vec(),
            custom: None,
            seen: self.seen(0),
        }
    }
}

#[test]
fn each_kind_is_answered_by_one_action_and_written_typed() {
    let k = kinds("", Access::new([OWNER]));
    let me = Actor::User(OWNER);
    assert!(matches!(
        k.take(me, &k.multi(&[2, 0])),
        Outcome::Recorded { decision: 0, .. }
    ));
    assert!(matches!(
        k.take(me, &k.input(1, " 3 ")),
        Outcome::Recorded { decision: 1, .. }
    ));
    assert!(matches!(
        k.take(me, &k.input(2, "no")),
        Outcome::Recorded { decision: 2, .. }
    ));
    let approve = Action::Approve {
        decision: 3,
        seen: k.seen(3),
    };
    assert!(matches!(
        k.take(me, &approve),
        Outcome::Recorded { decision: 3, .. }
    ));
    let text = k.text();
    for line in [
        "answer: [lint, \"yes\"]\n",
        "answer: 3\n",
        "answer: false\n",
        "answer: rm -rf build/\nansw",
        "edited: false\n",
        "answered_by: 93533553\n",
    ] {
        assert!(text.contains(line), "{line:?} in\n{text}");
    }
    // Edited, then submitted.
    assert!(matches!(
        k.take(me, &k.input(3, "rm -rf build/ dist/")),
        Outcome::Recorded { .. }
    ));
    let plan = k.plan();
    assert_eq!(
        plan.decisions[3].value,
        Some(AnswerValue::Text("rm -rf build/ dist/".into()))
    );
    assert_eq!(plan.decisions[3].edited, Some(true));
    let submit = Action::Submit {
        seen: seen::of_answers(&plan),
    };
    assert!(matches!(k.take(me, &submit), Outcome::Submitted { .. }));
}

#[test]
fn input_that_does_not_fit_records_nothing_and_says_what_is_accepted() {
    let k = kinds("", Access::new([OWNER]));
    let me = Actor::User(OWNER);
    let before = k.text();
    for (action, refusal) in [
        (
            k.input(1, "12abc"),
            "`12abc` is not a number written in digits. Send a whole number from 1 to 10.",
        ),
        (
            k.input(1, "11"),
            "11 is out of range. Send a whole number from 1 to 10.",
        ),
        (
            k.input(1, "-0"),
            "`-0` is not a number I can record: send 0. Send a whole number from 1 to 10.",
        ),
        (
            k.input(2, "maybe"),
            "`maybe` is not yes or no. Answer yes or no.",
        ),
        (
            k.multi(&[1]),
            "You picked 1 option. Pick from 2 to 3 options, then tap Done.",
        ),
        (
            k.input(0, "lint"),
            "This is a multi decision: pick its options. Pick from 2 to 3 options, then tap Done.",
        ),
    ] {
        let outcome = k.take(me, &action);
        assert_eq!(
            outcome.input_refusal().map(ToString::to_string).as_deref(),
            Some(refusal),
            "{action:?}"
        );
        assert!(matches!(outcome, Outcome::NotRecorded { .. }));
        assert_eq!(k.text(), before, "nothing written for {action:?}");
    }
}

#[test]
fn outsiders_non_approvers_and_stale_views_change_nothing() {
    let k = kinds("approvers: [93533553]\n", Access::new([OWNER, OTHER]));
    let before = k.text();
    let actions = [
        k.multi(&[0, 1]),
        k.input(1, "3"),
        Action::Approve {
            decision: 3,
            seen: k.seen(3),
        },
        Action::Decline {
            seen: seen::of_answers(&k.plan()),
        },
    ];
    for action in &actions {
        assert!(matches!(
            k.take(Actor::User(OUTSIDER), action),
            Outcome::Refused(Refusal::Outsider)
        ));
        assert!(matches!(
            k.take(Actor::User(OTHER), action),
            Outcome::Refused(Refusal::NotForYou)
        ));
        assert!(matches!(
            k.take(Actor::Deadline, action),
            Outcome::Refused(Refusal::ClockOnly)
        ));
    }
    // Forged or stale fingerprints: the old choice fingerprint (id only), another decision's, garbage.
    let forged = [
        Action::AnswerMulti {
            decision: 0,
            options: vec![0, 1],
            custom: None,
            seen: seen::fingerprint(&["checks"]),
        },
        Action::AnswerInput {
            decision: 1,
            input: "3".into(),
            seen: k.seen(2),
        },
        Action::Approve {
            decision: 3,
            seen: "ffffff".into(),
        },
        Action::Decline {
            seen: "000000".into(),
        },
    ];
    for action in &forged {
        assert!(
            matches!(k.take(Actor::User(OWNER), action), Outcome::Stale(_)),
            "{action:?}"
        );
    }
    assert_eq!(k.text(), before);
    // The agent changes the proposal after the view was drawn: approving the old one records nothing.
    let approve = Action::Approve {
        decision: 3,
        seen: k.seen(3),
    };
    fs::write(&k.file, before.replace("rm -rf build/", "rm -rf /")).unwrap();
    assert!(matches!(
        k.take(Actor::User(OWNER), &approve),
        Outcome::Stale(_)
    ));
    assert!(!k.text().contains("answer: rm"));
}

#[test]
fn an_elicitation_is_declined_as_a_whole_by_an_approver() {
    let k = kinds("elicitation: true\n", Access::new([OWNER]));
    // It is accepted or declined, never sent back: MCP's result has no revision to wait for.
    let before = k.text();
    let send_back = Action::RequestChanges {
        seen: seen::of_answers(&k.plan()),
        feedback: "other fields".into(),
    };
    let outcome = k.take(Actor::User(OWNER), &send_back);
    assert!(
        matches!(&outcome, Outcome::NotRecorded { error, .. } if error.to_string().contains("not sent back")),
        "{outcome:?}"
    );
    assert_eq!(k.text(), before);
    let decline = Action::Decline {
        seen: seen::of_answers(&k.plan()),
    };
    match k.take(Actor::User(OWNER), &decline) {
        Outcome::Submitted { plan, .. } => {
            assert!(plan.plan.declined());
            let text = fs::read_to_string(&plan.path).unwrap();
            assert!(text.contains("\noutcome: declined\n"), "{text}");
            assert!(text.contains("\nstatus: completed\n"), "{text}");
        }
        other => panic!("{other:?}"),
    }
    // A plan that is no elicitation can't be declined.
    let k = kinds("", Access::new([OWNER]));
    let decline = Action::Decline {
        seen: seen::of_answers(&k.plan()),
    };
    let outcome = k.take(Actor::User(OWNER), &decline);
    assert!(
        matches!(&outcome, Outcome::NotRecorded { error, .. } if error.to_string() == "only an elicitation request can be declined"),
        "{outcome:?}"
    );
}

#[test]
fn text_of_ones_own_joins_a_multi_only_where_it_allows_custom() {
    let k = kinds("", Access::new([OWNER]));
    let me = Actor::User(OWNER);
    k.take(me, &k.multi(&[0, 1]));
    // Without allow_custom: refused, nothing written.
    let before = k.text();
    let refused = k.take(me, &k.input(0, "fuzz"));
    assert!(refused.input_refusal().is_some(), "{refused:?}");
    assert_eq!(k.text(), before);
    // With it: added to the options recorded so far.
    let allowing = before.replace(
        "kind: multi\nmin: 2\n",
        "kind: multi\nmin: 2\nallow_custom: true\n",
    );
    fs::write(&k.file, &allowing).unwrap();
    assert!(matches!(
        k.take(me, &k.input(0, "fuzz")),
        Outcome::Recorded { decision: 0, .. }
    ));
    assert!(
        k.text().contains("answer: [lint, tests, fuzz]"),
        "{}",
        k.text()
    );
}
