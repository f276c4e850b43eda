//! The action layer on a temp queue: what is checked is the file on disk and the outcome.

use std::fs;
use std::path::PathBuf;

use super::*;
use crate::plan::EditError;

const NOW: &str = "2026-02-01T10:00:00Z";
const OWNER: u64 = 93533553;
const OUTSIDER: u64 = 666;

/// Two decisions; `keys` (whole lines) go into the frontmatter.
pub(super) fn plan_text(keys: &str) -> String {
    format!(
        "---\nid: p1\ntitle: Two things\n{keys}---\n# Two things\n\n## Decision 1: Database\n\n\
         **Options:**\n- `pg` — PostgreSQL\n- `sqlite` — SQLite\n\n## Decision 2: Cache\n\n**Options:**\n\
         - `redis` — Redis\n- `none` — No cache\n"
    )
}

/// A temp queue holding plan `p1` ([`plan_text`]), and the action layer over it.
pub(super) struct Fixture {
    _dir: tempfile::TempDir,
    pub(super) actions: Actions,
    pub(super) file: PathBuf,
}

/// [`Fixture`] with `keys` in the plan's frontmatter and these permissions.
pub(super) fn fixture_with(keys: &str, access: Access) -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let queue = Queue::open(dir.path(), true).unwrap();
    let file = queue.add_pending("p1.md", &plan_text(keys)).unwrap();
    Fixture {
        actions: Actions::new(queue, access),
        _dir: dir,
        file,
    }
}

fn fixture() -> Fixture {
    fixture_with("", Access::new([OWNER]))
}

impl Fixture {
    pub(super) fn take(&self, actor: Actor, action: Action) -> Outcome {
        self.actions.take(actor, "p1", &action, NOW)
    }
    pub(super) fn text(&self) -> String {
        fs::read_to_string(&self.file).unwrap()
    }
    pub(super) fn plan(&self) -> Plan {
        crate::plan::parse(&self.text(), "p1").unwrap()
    }
    /// An answer as a view would have offered it: position plus fingerprint of what was shown.
    pub(super) fn answer(&self, decision: usize, option: usize) -> Action {
        let plan = self.plan();
        let d = &plan.decisions[decision];
        Action::Answer {
            decision,
            option,
            seen: seen::of_option(d, &d.options[option]),
        }
    }
    /// 📤 Submit as the review view offers it: with the answers it showed.
    pub(super) fn submit(&self) -> Action {
        Action::Submit {
            seen: seen::of_answers(&self.plan()),
        }
    }
    fn skip(&self, decision: usize) -> Action {
        Action::Skip {
            decision,
            seen: seen::of_decision(&self.plan().decisions[decision]),
        }
    }
}

#[test]
fn an_answer_is_written_with_who_and_when() {
    let f = fixture();
    let outcome = f.take(Actor::User(OWNER), f.answer(0, 1));
    let Outcome::Recorded { plan, decision, .. } = outcome else {
        panic!("{outcome:?}");
    };
    assert_eq!(decision, 0);
    assert_eq!(plan.plan.decisions[0].answer.as_deref(), Some("sqlite"));
    let text = f.text();
    assert!(text.contains("answer: sqlite\n"), "{text}");
    assert!(text.contains("answered_by: 93533553\n"), "{text}");
    assert!(text.contains(&format!("answered_at: {NOW}\n")), "{text}");
}

#[test]
fn an_outsider_changes_nothing_and_learns_nothing() {
    let f = fixture();
    let before = f.text();
    let forged = f.answer(0, 0);
    for action in [Action::Open, forged, f.skip(1), f.submit()] {
        let outcome = f.take(Actor::User(OUTSIDER), action);
        assert!(
            matches!(outcome, Outcome::Refused(Refusal::Outsider)),
            "{outcome:?}"
        );
    }
    let custom = Action::Custom {
        to: Typed::prompted_on(&f.plan(), "database"),
        text: "mine".into(),
    };
    assert!(matches!(
        f.take(Actor::User(OUTSIDER), custom),
        Outcome::Refused(Refusal::Outsider)
    ));
    assert_eq!(f.text(), before);
}

#[test]
fn a_forged_or_stale_fingerprint_records_nothing() {
    let f = fixture();
    let before = f.text();
    let forged = [
        Action::Answer {
            decision: 0,
            option: 0,
            seen: "000000".into(),
        },
        // The fingerprint of option 0 sent with option 1: a view never draws that.
        Action::Answer {
            decision: 0,
            option: 1,
            seen: seen::of_option(&f.plan().decisions[0], &f.plan().decisions[0].options[0]),
        },
        Action::Answer {
            decision: 7,
            option: 0,
            seen: "abcdef".into(),
        },
        Action::Skip {
            decision: 1,
            seen: seen::of_decision(&f.plan().decisions[0]),
        },
        Action::StartCustom {
            decision: 0,
            seen: "ffffff".into(),
        },
    ];
    for action in forged {
        let outcome = f.take(Actor::User(OWNER), action);
        assert!(matches!(outcome, Outcome::Stale(_)), "{outcome:?}");
    }
    assert_eq!(f.text(), before);
}

#[test]
fn an_option_the_agent_relabelled_is_refused() {
    let f = fixture();
    let tap = f.answer(0, 1);
    fs::write(&f.file, plan_text("").replace("SQLite", "SQLite (dropped)")).unwrap();
    let before = f.text();
    let outcome = f.take(Actor::User(OWNER), tap);
    assert!(matches!(outcome, Outcome::Stale(_)), "{outcome:?}");
    assert_eq!(f.text(), before);
}

#[test]
fn a_missing_plan_is_gone() {
    let f = fixture();
    let outcome = f
        .actions
        .take(Actor::User(OWNER), "nope", &Action::Open, NOW);
    assert!(matches!(outcome, Outcome::Gone), "{outcome:?}");
}

#[test]
fn submit_needs_every_decision_settled_then_completes() {
    let f = fixture();
    let outcome = f.take(Actor::User(OWNER), f.submit());
    let Outcome::NotRecorded { error, .. } = outcome else {
        panic!("{outcome:?}");
    };
    assert!(matches!(
        error,
        StoreError::Edit(EditError::NotFinished { remaining: 2 })
    ));
    f.take(Actor::User(OWNER), f.answer(0, 0));
    f.take(Actor::User(OWNER), f.skip(1));
    let Outcome::Submitted { plan, notify, .. } = f.take(Actor::User(OWNER), f.submit()) else {
        panic!("not submitted");
    };
    assert!(!f.file.exists());
    assert!(plan.path.ends_with("completed/p1.md"));
    let notify = fs::read_to_string(notify.unwrap()).unwrap();
    assert!(notify.contains("database: pg"), "{notify}");
    // A tap on an old view of it now finds nothing to change.
    let outcome = f.take(Actor::User(OWNER), Action::Open);
    assert!(matches!(outcome, Outcome::Gone), "{outcome:?}");
}

#[test]
fn a_submit_of_answers_that_changed_since_the_review_records_nothing() {
    let f = fixture();
    f.take(Actor::User(OWNER), f.answer(0, 0));
    f.take(Actor::User(OWNER), f.skip(1));
    let review = f.submit();
    // The answer changed after the review was drawn (another tap, another page): that review submits nothing.
    f.take(Actor::User(OWNER), f.answer(0, 1));
    let before = f.text();
    let outcome = f.take(Actor::User(OWNER), review);
    assert!(matches!(outcome, Outcome::Stale(_)), "{outcome:?}");
    assert_eq!(f.text(), before, "the plan is pending and unchanged");
    let forged = Action::Submit {
        seen: "0".repeat(16),
    };
    assert!(matches!(
        f.take(Actor::User(OWNER), forged),
        Outcome::Stale(_)
    ));
    assert_eq!(f.text(), before);
    let Outcome::Submitted { .. } = f.take(Actor::User(OWNER), f.submit()) else {
        panic!("the current review submits");
    };
}

#[test]
fn text_typed_on_a_form_names_the_decision_it_showed() {
    let f = fixture();
    let shown = |f: &Fixture, decision: usize| Typed::Shown {
        decision,
        seen: seen::of_decision(&f.plan().decisions[decision]),
    };
    let custom = Action::Custom {
        to: shown(&f, 1),
        text: "memcached".into(),
    };
    let Outcome::Recorded { decision: 1, .. } = f.take(Actor::User(OWNER), custom) else {
        panic!("the custom answer is recorded on the decision shown");
    };
    assert!(f.text().contains("answer: memcached"), "{}", f.text());
    // A note from a page drawn before the agent retitled the decision: nothing is written.
    let note = Action::Note {
        to: shown(&f, 0),
        text: "why not".into(),
    };
    let retitled = f
        .text()
        .replace("## Decision 1: Database", "## Decision 1: Datastore");
    fs::write(&f.file, &retitled).unwrap();
    let outcome = f.take(Actor::User(OWNER), note);
    assert!(matches!(outcome, Outcome::Stale(_)), "{outcome:?}");
    assert_eq!(f.text(), retitled);
    // Another decision's position with this one's fingerprint: nothing either.
    let forged = Action::Note {
        to: Typed::Shown {
            decision: 1,
            seen: seen::of_decision(&f.plan().decisions[0]),
        },
        text: "forged".into(),
    };
    let outcome = f.take(Actor::User(OWNER), forged);
    assert!(matches!(outcome, Outcome::Stale(_)), "{outcome:?}");
    assert_eq!(f.text(), retitled);
}

#[test]
fn custom_answers_by_decision_id_and_empty_ones_are_refused() {
    let f = fixture();
    let empty = Action::Custom {
        to: Typed::prompted_on(&f.plan(), "cache"),
        text: "  ".into(),
    };
    let outcome = f.take(Actor::User(OWNER), empty);
    assert!(
        matches!(
            outcome,
            Outcome::NotRecorded {
                error: StoreError::Edit(EditError::EmptyAnswer),
                ..
            }
        ),
        "{outcome:?}"
    );
    let custom = Action::Custom {
        to: Typed::prompted_on(&f.plan(), "cache"),
        text: "memcached".into(),
    };
    let Outcome::Recorded { decision, plan, .. } = f.take(Actor::User(OWNER), custom) else {
        panic!("not recorded");
    };
    assert_eq!(decision, 1);
    assert_eq!(plan.plan.decisions[1].answer.as_deref(), Some("memcached"));
}

/// `plan` with a deadline that passed an hour before [`NOW`].
fn due(plan: &str) -> String {
    plan.replace(
        "title: Two things\n",
        "title: Two things\ndeadline: 2026-02-01T09:00:00Z\non_deadline: submit\n",
    )
}

#[test]
fn nothing_is_applied_before_its_time() {
    let f = fixture();
    let later = plan_text("").replace(
        "title: Two things\n",
        "title: Two things\ncreated_at: 2026-02-01T09:50:00Z\ndeadline: 2026-02-01T11:00:00Z\non_deadline: submit\nremind_every: 30m\n",
    );
    fs::write(&f.file, &later).unwrap();
    for action in [Action::ApplyDeadline, Action::Remind, Action::Escalate] {
        let outcome = f.take(Actor::Deadline, action);
        assert!(
            matches!(
                &outcome,
                Outcome::NotRecorded {
                    error: StoreError::Edit(EditError::NotDue),
                    ..
                }
            ),
            "{outcome:?}"
        );
    }
    assert_eq!(f.text(), later);
}

#[test]
fn the_deadline_answers_defaults_skips_the_rest_and_submits_in_one_write() {
    let f = fixture();
    fs::write(
        &f.file,
        due(&plan_text("").replace(
            "**Options:**\n- `pg`",
            "default: sqlite\n\n**Options:**\n- `pg`",
        )),
    )
    .unwrap();
    f.take(Actor::User(OWNER), f.answer(1, 0));
    let Outcome::Submitted { plan, .. } = f.take(Actor::Deadline, Action::ApplyDeadline) else {
        panic!("not submitted");
    };
    let text = fs::read_to_string(&plan.path).unwrap();
    let d = &plan.plan.decisions;
    assert_eq!(d[0].answer.as_deref(), Some("sqlite"));
    assert_eq!(d[0].answered_by.as_deref(), Some("deadline"));
    // What the owner answered before the deadline stays theirs.
    assert_eq!(d[1].answer.as_deref(), Some("redis"));
    assert_eq!(d[1].answered_by.as_deref(), Some("93533553"));
    assert!(text.contains("status: completed"), "{text}");
    // Once submitted, a second deadline (or a tap) finds nothing.
    assert!(matches!(
        f.take(Actor::Deadline, Action::ApplyDeadline),
        Outcome::Gone
    ));
}

#[test]
fn without_a_default_the_deadline_skips() {
    let f = fixture();
    fs::write(&f.file, due(&plan_text(""))).unwrap();
    let Outcome::Submitted { plan, .. } = f.take(Actor::Deadline, Action::ApplyDeadline) else {
        panic!("not submitted");
    };
    let text = fs::read_to_string(&plan.path).unwrap();
    assert_eq!(text.matches("status: skipped").count(), 2, "{text}");
    assert_eq!(text.matches("answered_by: deadline").count(), 2, "{text}");
}

#[test]
fn the_clock_and_people_each_do_only_their_own_actions() {
    let f = fixture();
    let before = f.text();
    for action in [Action::ApplyDeadline, Action::Remind, Action::Escalate] {
        let outcome = f.take(Actor::User(OWNER), action);
        assert!(
            matches!(outcome, Outcome::Refused(Refusal::ClockOnly)),
            "{outcome:?}"
        );
    }
    for action in [f.answer(0, 0), f.skip(0), f.submit()] {
        let outcome = f.take(Actor::Deadline, action);
        assert!(
            matches!(outcome, Outcome::Refused(Refusal::ClockOnly)),
            "{outcome:?}"
        );
    }
    assert_eq!(f.text(), before);
    let remindable = plan_text("").replace(
        "title: Two things\n",
        "title: Two things\ncreated_at: 2026-02-01T09:00:00Z\nremind_every: 30m\n",
    );
    fs::write(&f.file, &remindable).unwrap();
    let before = f.text();
    let Outcome::Noted(plan) = f.take(Actor::Deadline, Action::Remind) else {
        panic!("reminder not noted");
    };
    assert!(plan.plan.timing.reminded_at.is_some());
    let text = f.text();
    assert_eq!(
        text.replace(&format!("reminded_at: {NOW}\n"), ""),
        before,
        "only reminded_at is added"
    );
}

#[test]
fn the_queue_shows_members_their_plans_and_outsiders_nothing() {
    let f = fixture();
    let plan = f.plan();
    assert_eq!(f.actions.visible(Actor::User(OWNER), [&plan]).len(), 1);
    assert!(f.actions.visible(Actor::User(OUTSIDER), [&plan]).is_empty());
}

#[test]
fn a_tap_and_the_deadline_racing_leave_one_consistent_file() {
    for round in 0..40 {
        let f = fixture();
        fs::write(&f.file, due(&plan_text(""))).unwrap();
        let tap = f.answer(0, 1);
        let (tapped, deadline) = std::thread::scope(|s| {
            let a = s.spawn(|| f.take(Actor::User(OWNER), tap));
            let b = s.spawn(|| f.take(Actor::Deadline, Action::ApplyDeadline));
            (a.join().unwrap(), b.join().unwrap())
        });
        assert!(
            matches!(deadline, Outcome::Submitted { .. }),
            "round {round}: the deadline always submits: {deadline:?}"
        );
        let completed = f.actions.queue().completed_dir().join("p1.md");
        let text = fs::read_to_string(&completed).unwrap();
        let plan = crate::plan::parse(&text, "p1").unwrap();
        assert!(!f.file.exists(), "round {round}");
        assert_eq!(plan.remaining(), 0, "round {round}: {text}");
        let first = &plan.decisions[0];
        match tapped {
            // The tap won: its answer stands and the deadline filled only the rest.
            Outcome::Recorded { .. } => {
                assert_eq!(first.answer.as_deref(), Some("sqlite"), "round {round}");
                assert_eq!(
                    first.answered_by.as_deref(),
                    Some("93533553"),
                    "round {round}"
                );
            }
            // The deadline won: the tap recorded nothing.
            Outcome::Gone | Outcome::NotRecorded { .. } => {
                assert_eq!(
                    first.status,
                    crate::plan::DecisionStatus::Skipped,
                    "round {round}"
                );
                assert_eq!(
                    first.answered_by.as_deref(),
                    Some("deadline"),
                    "round {round}"
                );
            }
            other => panic!("round {round}: {other:?}"),
        }
        assert_eq!(plan.decisions[1].answered_by.as_deref(), Some("deadline"));
    }
}
