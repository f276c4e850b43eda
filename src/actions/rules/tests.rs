//! Standing rules on a temp queue: made by a submit or an offer, honoured only with their line, answering in the
//! asking process, paused, resumed, revoked; checked on the files and the trail.

use std::fs;

use super::*;
use crate::actions::{Access, Action, Outcome};
use crate::queue::audit;
use crate::queue::rules::{Ask, Rules};
use crate::queue::{Location, Queue};

const NOW: &str = "2026-02-01T10:00:00Z";
const LATER: &str = "2026-02-01T10:05:00Z";
const OWNER: u64 = 93533553;
const BOB: u64 = 4242;
const OUTSIDER: u64 = 666;

/// A permission plan as a hook pushes it, for `command` in `/home/me/app`, session `s1`; `keys` go into the
/// frontmatter.
fn permission_text(id: &str, command: &str, keys: &str) -> String {
    format!(
        "---\nid: {id}\nagent: codex\nsession: s1\nproject: /home/me/app\nrule_tool: Bash\nrule_command: {command}\n\
         grant_minutes: 30\n{keys}---\n# Bash: {command}\n\n## Run this command?\n\nid: permission\n\n\
         **Options:**\n- `allow` — ✅ Allow once\n- `always` — 🔁 Always allow this\n\
         - `grant` — ⏱ Allow codex for 30 min\n- `deny` — ❌ Deny\n"
    )
}

/// A pushed one-decision plan of agent `builder`.
fn pushed_text(id: &str, keys: &str) -> String {
    format!(
        "---\nid: {id}\nagent: builder\n{keys}---\n# Deploy?\n\n## Target\n\nid: target\n\n**Options:**\n\
         - `staging` — Staging\n- `prod` — Production\n"
    )
}

struct Fixture {
    dir: tempfile::TempDir,
    actions: Actions,
}

fn fixture() -> Fixture {
    fixture_with(Access::new([OWNER, BOB]))
}

fn fixture_with(access: Access) -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let queue = Queue::open(dir.path(), true).unwrap();
    Fixture {
        actions: Actions::new(queue, access),
        dir,
    }
}

impl Fixture {
    fn queue(&self) -> &Queue {
        self.actions.queue()
    }

    /// Pushes `text` as plan `id` into pending/.
    fn push(&self, id: &str, text: &str) {
        self.queue().add_pending(&format!("{id}.md"), text).unwrap();
    }

    /// Answers plan `id`'s one decision with option `key` and submits it, by `user`.
    fn answer_and_submit(&self, id: &str, key: &str, user: u64) -> Outcome {
        let plan = self.queue().find(id).unwrap().plan;
        let d = &plan.decisions[0];
        let option = d.options.iter().position(|o| o.key == key).unwrap();
        let answer = Action::Answer {
            decision: 0,
            option,
            seen: seen::of_option(d, &d.options[option]),
        };
        let answered = self.actions.take(Actor::User(user), id, &answer, NOW);
        assert!(matches!(answered, Outcome::Recorded { .. }), "{answered:?}");
        let plan = self.queue().find(id).unwrap().plan;
        let submit = Action::Submit {
            seen: seen::of_answers(&plan),
        };
        self.actions.take(Actor::User(user), id, &submit, NOW)
    }

    fn rules(&self) -> Rules {
        crate::queue::rules::read(self.dir.path()).unwrap()
    }

    fn lines(&self) -> Vec<audit::Entry> {
        audit::read(self.dir.path()).unwrap().unwrap().1
    }

    /// The permission prompt for `command` (as the hook asks it), answered by a rule if one does.
    fn ask(&self, command: &str, project: &str, session: &str, now: &str) -> Looked {
        let ask = Ask {
            agent: "codex",
            project: Some(project),
            session: Some(session),
            tool: "Bash",
            command,
        };
        let id = format!("q{}", self.lines().len());
        answer_permission(
            self.queue(),
            &ask,
            || Ruled {
                name: format!("codex-{id}.md"),
                text: permission_text(&id, command, ""),
                read_here: false,
            },
            now,
        )
    }
}

fn made(outcome: Outcome) -> Rule {
    match outcome {
        Outcome::Submitted {
            rule: Some(Ok(rule)),
            ..
        } => *rule,
        other => panic!("no rule made: {other:?}"),
    }
}

#[test]
fn always_allow_makes_a_rule_on_record_and_the_same_prompt_is_answered_by_it() {
    let f = fixture();
    f.push("p1", &permission_text("p1", "npm test", ""));
    let rule = made(f.answer_and_submit("p1", "always", OWNER));
    assert_eq!(rule.created_by, OWNER);
    assert_eq!(rule.agent, "codex");
    assert_eq!(rule.project.as_deref(), Some("/home/me/app"));
    assert_eq!(rule.session, None);
    assert!(rule.is_on_record(f.dir.path()));
    // The submit's line, then the rule's, by the tapper.
    let lines = f.lines();
    let names: Vec<&str> = lines.iter().map(|l| l.action.as_str()).collect();
    assert_eq!(names[names.len() - 2..], ["submit", "rule"]);
    let line = lines.last().unwrap();
    assert_eq!(line.actor, OWNER.to_string());
    assert_eq!(line.value.as_deref(), Some(rule.binding().as_str()));

    // The same command in another session of the same agent and project: answered, nobody asked.
    let looked = f.ask("npm test", "/home/me/app", "s2", LATER);
    assert!(looked.warnings.is_empty(), "{:?}", looked.warnings);
    let fired = looked.fired.expect("answered by the rule");
    assert_eq!(fired.rule.id, rule.id);
    assert_eq!(fired.plan.location, Location::Completed);
    let d = &fired.plan.plan.decisions[0];
    assert_eq!(d.answer.as_deref(), Some("allow"));
    let by = format!("rule:{}", rule.id);
    assert_eq!(d.answered_by.as_deref(), Some(by.as_str()));
    let text = fs::read_to_string(&fired.plan.path).unwrap();
    assert!(text.contains("status: completed"), "{text}");
    assert!(fired.notify.as_ref().is_some_and(|n| n.exists()));
    assert!(
        fs::read_dir(f.queue().pending_dir())
            .unwrap()
            .next()
            .is_none()
    );
    let last = f.lines().pop().unwrap();
    assert_eq!(
        (last.actor.as_str(), last.action.as_str()),
        (by.as_str(), "answer")
    );
    assert_eq!(last.file_sha256, audit::sha256_hex(text.as_bytes()));
    let counted = f.rules().rules[0].clone();
    assert_eq!(
        (counted.fired, counted.last_fired.as_deref()),
        (1, Some(LATER))
    );
    assert_eq!(
        audit::read(f.dir.path()).unwrap().unwrap().0.entries,
        f.lines().len()
    );
}

#[test]
fn another_command_project_or_agent_still_asks() {
    let f = fixture();
    f.push("p1", &permission_text("p1", "npm test", ""));
    made(f.answer_and_submit("p1", "always", OWNER));
    for (command, project) in [
        ("npm test -- --watch", "/home/me/app"),
        ("npm tes", "/home/me/app"),
        ("npm test", "/home/me/other"),
    ] {
        let looked = f.ask(command, project, "s1", LATER);
        assert!(looked.fired.is_none(), "{command} in {project}");
    }
    let other_agent = Ask {
        agent: "gemini",
        project: Some("/home/me/app"),
        session: Some("s1"),
        tool: "Bash",
        command: "npm test",
    };
    let looked = answer_permission(f.queue(), &other_agent, || unreachable!(), LATER);
    assert!(looked.fired.is_none());
    assert_eq!(f.rules().rules[0].fired, 0);
}

#[test]
fn a_grant_allows_every_call_of_its_session_until_it_expires() {
    let f = fixture();
    f.push("p1", &permission_text("p1", "npm test", ""));
    let rule = made(f.answer_and_submit("p1", "grant", OWNER));
    assert_eq!(rule.session.as_deref(), Some("s1"));
    assert_eq!(rule.expires_at.as_deref(), Some("2026-02-01T10:30:00Z"));
    assert!(
        f.ask("rm -rf build", "/home/me/app", "s1", LATER)
            .fired
            .is_some()
    );
    assert!(
        f.ask("rm -rf build", "/home/me/app", "s2", LATER)
            .fired
            .is_none()
    );
    assert!(
        f.ask("ls", "/home/me/app", "s1", "2026-02-01T10:30:00Z")
            .fired
            .is_none()
    );
    assert_eq!(f.rules().rules[0].fired, 1);
}

#[test]
fn a_grant_is_never_longer_than_the_config_allows() {
    let dir = tempfile::tempdir().unwrap();
    let queue = Queue::open(dir.path(), true).unwrap();
    let actions = Actions::new(queue, Access::new([OWNER])).with_grant_minutes(10);
    let f = Fixture { actions, dir };
    f.push("p1", &permission_text("p1", "npm test", ""));
    let rule = made(f.answer_and_submit("p1", "grant", OWNER));
    assert_eq!(rule.expires_at.as_deref(), Some("2026-02-01T10:10:00Z"));
}

#[test]
fn other_answers_plans_without_a_ruling_sign_offs_or_other_approvers_make_no_rule() {
    let f = fixture();
    f.push("p1", &permission_text("p1", "npm test", ""));
    let Outcome::Submitted { rule: None, .. } = f.answer_and_submit("p1", "allow", OWNER) else {
        panic!("allow once made a rule")
    };
    // An agent's own plan with an `always` option but nothing to rule on.
    let text = permission_text("p2", "x", "")
        .replace("rule_tool: Bash\n", "")
        .replace("rule_command: x\n", "");
    f.push("p2", &text);
    let Outcome::Submitted { rule: None, .. } = f.answer_and_submit("p2", "always", OWNER) else {
        panic!("a plan without rule_tool made a rule")
    };
    // Sign-offs: the owner's submit is a sign-off, Bob's completes the plan, and no rule is made.
    f.push("p3", &permission_text("p3", "make", "require: 2\n"));
    assert!(matches!(
        f.answer_and_submit("p3", "always", OWNER),
        Outcome::SignedOff(_)
    ));
    let plan = f.queue().find("p3").unwrap().plan;
    let sign = Action::SignOff {
        seen: seen::of_answers(&plan),
    };
    let Outcome::Submitted {
        rule: Some(Err(_)), ..
    } = f.actions.take(Actor::User(BOB), "p3", &sign, NOW)
    else {
        panic!("a plan that needs sign-offs made a rule")
    };
    assert!(f.rules().rules.is_empty());
    assert!(!f.lines().iter().any(|l| l.action == "rule"));
}

#[test]
fn an_outsider_or_a_non_approver_makes_no_rule() {
    let f = fixture();
    f.push(
        "p1",
        &permission_text("p1", "npm test", "approvers: [93533553]\n"),
    );
    let plan = f.queue().find("p1").unwrap().plan;
    let d = &plan.decisions[0];
    let answer = Action::Answer {
        decision: 0,
        option: 1,
        seen: seen::of_option(d, &d.options[1]),
    };
    for user in [OUTSIDER, BOB] {
        let outcome = f.actions.take(Actor::User(user), "p1", &answer, NOW);
        assert!(matches!(outcome, Outcome::Refused(_)), "{outcome:?}");
    }
    // The owner answers `always`; the outsider and the non-approver try to submit it.
    f.actions.take(Actor::User(OWNER), "p1", &answer, NOW);
    let plan = f.queue().find("p1").unwrap().plan;
    let submit = Action::Submit {
        seen: seen::of_answers(&plan),
    };
    for user in [OUTSIDER, BOB] {
        let outcome = f.actions.take(Actor::User(user), "p1", &submit, NOW);
        assert!(matches!(outcome, Outcome::Refused(_)), "{outcome:?}");
    }
    assert!(!crate::queue::rules::path(f.dir.path()).exists());
}

#[test]
fn paused_and_revoked_rules_ask_again_and_a_resume_holds_from_the_next_prompt() {
    let f = fixture();
    f.push("p1", &permission_text("p1", "npm test", ""));
    let rule = made(f.answer_and_submit("p1", "always", OWNER));
    let take =
        |user: u64, action: RuleAction| f.actions.take_rule(Actor::User(user), &action, LATER);
    let pause = RuleAction::Pause {
        rule: rule.id.clone(),
    };
    assert!(matches!(take(BOB, pause.clone()), RuleOutcome::Done(r) if r.state == State::Paused));
    assert!(matches!(take(OWNER, pause), RuleOutcome::Unchanged(_)));
    assert!(
        f.ask("npm test", "/home/me/app", "s1", LATER)
            .fired
            .is_none()
    );
    let resume = RuleAction::Resume {
        rule: rule.id.clone(),
    };
    // Only its maker resumes it.
    assert!(matches!(take(BOB, resume.clone()), RuleOutcome::Refused(_)));
    assert!(matches!(
        take(OUTSIDER, resume.clone()),
        RuleOutcome::Refused(_)
    ));
    assert!(matches!(take(OWNER, resume.clone()), RuleOutcome::Done(_)));
    assert!(
        f.ask("npm test", "/home/me/app", "s1", LATER)
            .fired
            .is_some()
    );
    let revoke = RuleAction::Revoke {
        rule: rule.id.clone(),
    };
    assert!(matches!(take(OWNER, revoke), RuleOutcome::Done(r) if r.state == State::Revoked));
    assert!(
        f.ask("npm test", "/home/me/app", "s1", LATER)
            .fired
            .is_none()
    );
    assert!(matches!(take(OWNER, resume), RuleOutcome::Final(_)));
    let names: Vec<String> = f.lines().into_iter().map(|l| l.action).collect();
    for name in ["rule_pause", "rule_resume", "rule_revoke"] {
        assert_eq!(names.iter().filter(|n| *n == name).count(), 1, "{names:?}");
    }
    assert!(matches!(
        take(
            OWNER,
            RuleAction::Pause {
                rule: "rnope".into()
            }
        ),
        RuleOutcome::NotFound
    ));
}

#[test]
fn a_rules_file_that_does_not_read_asks_and_warns_and_is_never_overwritten() {
    let f = fixture();
    f.push("p1", &permission_text("p1", "npm test", ""));
    made(f.answer_and_submit("p1", "always", OWNER));
    let path = crate::queue::rules::path(f.dir.path());
    fs::write(&path, "{\"version\": 1, \"rules\": [ garbage").unwrap();
    let looked = f.ask("npm test", "/home/me/app", "s1", LATER);
    assert!(looked.fired.is_none());
    assert!(
        looked.warnings[0].contains("does not read"),
        "{:?}",
        looked.warnings
    );
    f.push("p2", &permission_text("p2", "make", ""));
    let Outcome::Submitted {
        rule: Some(Err(why)),
        ..
    } = f.answer_and_submit("p2", "always", OWNER)
    else {
        panic!()
    };
    assert!(why.contains("does not read"), "{why}");
    assert_eq!(
        fs::read_to_string(&path).unwrap(),
        "{\"version\": 1, \"rules\": [ garbage"
    );
}

#[test]
fn a_rule_written_behind_arbiters_back_or_changed_is_ignored_with_a_warning() {
    let f = fixture();
    f.push("p1", &permission_text("p1", "npm test", ""));
    made(f.answer_and_submit("p1", "always", OWNER));
    let path = crate::queue::rules::path(f.dir.path());
    let original = fs::read_to_string(&path).unwrap();
    // Its command widened by hand: the line names `npm test`.
    fs::write(&path, original.replace("\"npm test\"", "\"rm -rf /\"")).unwrap();
    let looked = f.ask("rm -rf /", "/home/me/app", "s1", LATER);
    assert!(looked.fired.is_none());
    assert!(looked.warnings[0].contains("not in the audit trail"));
    // A copy under another id, pointing at the real line.
    let mut all: Rules = serde_json::from_str(&original).unwrap();
    let mut copy = all.rules[0].clone();
    copy.id = "rforged1".into();
    copy.project = Some("/elsewhere".into());
    all.rules.push(copy);
    fs::write(&path, serde_json::to_string(&all).unwrap()).unwrap();
    assert!(f.ask("npm test", "/elsewhere", "s1", LATER).fired.is_none());
    assert!(
        f.ask("npm test", "/home/me/app", "s1", LATER)
            .fired
            .is_some()
    );
}

/// A revoked or paused rule set `active` again in rules.json by hand answers nothing: the trail says what it is.
/// Resumed through Arbiter, it answers again.
#[test]
fn a_state_edited_back_to_active_behind_arbiters_back_answers_nothing() {
    let f = fixture();
    f.push("p1", &permission_text("p1", "npm test", ""));
    let rule = made(f.answer_and_submit("p1", "always", OWNER));
    let path = crate::queue::rules::path(f.dir.path());
    let take = |action: RuleAction| f.actions.take_rule(Actor::User(OWNER), &action, LATER);
    // Made it back to active by hand: state and the record of the change, as a copy from before would read.
    let revive = |from: &str| {
        let mut all: Rules = serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(all.rules[0].state.as_str(), from);
        all.rules[0].state = State::Active;
        all.rules[0].change = None;
        fs::write(&path, serde_json::to_string(&all).unwrap()).unwrap();
    };
    let pause = RuleAction::Pause {
        rule: rule.id.clone(),
    };
    assert!(matches!(take(pause), RuleOutcome::Done(_)));
    revive("paused");
    let looked = f.ask("npm test", "/home/me/app", "s1", LATER);
    assert!(looked.fired.is_none());
    assert!(
        looked.warnings[0].contains("is paused in the audit trail but active in rules.json"),
        "{:?}",
        looked.warnings
    );
    // Paused again and resumed through Arbiter: it answers.
    assert!(matches!(
        take(RuleAction::Pause {
            rule: rule.id.clone()
        }),
        RuleOutcome::Done(_)
    ));
    assert!(matches!(
        take(RuleAction::Resume {
            rule: rule.id.clone()
        }),
        RuleOutcome::Done(_)
    ));
    assert!(
        f.ask("npm test", "/home/me/app", "s1", LATER)
            .fired
            .is_some()
    );
    // Revoked is for good, whatever the file says afterwards.
    assert!(matches!(
        take(RuleAction::Revoke {
            rule: rule.id.clone()
        }),
        RuleOutcome::Done(_)
    ));
    revive("revoked");
    let looked = f.ask("npm test", "/home/me/app", "s1", LATER);
    assert!(looked.fired.is_none());
    assert!(
        looked.warnings[0].contains("is revoked in the audit trail"),
        "{:?}",
        looked.warnings
    );
}

#[test]
fn parallel_answers_lose_no_count() {
    let f = fixture();
    f.push("p1", &permission_text("p1", "npm test", ""));
    made(f.answer_and_submit("p1", "always", OWNER));
    std::thread::scope(|s| {
        for n in 0..8 {
            let f = &f;
            s.spawn(move || {
                let ask = Ask {
                    agent: "codex",
                    project: Some("/home/me/app"),
                    session: Some("s1"),
                    tool: "Bash",
                    command: "npm test",
                };
                let id = format!("par{n}");
                let looked = answer_permission(
                    f.queue(),
                    &ask,
                    || Ruled {
                        name: format!("codex-{id}.md"),
                        text: permission_text(&id, "npm test", ""),
                        read_here: false,
                    },
                    LATER,
                );
                assert!(looked.fired.is_some(), "{:?}", looked.warnings);
            });
        }
    });
    assert_eq!(f.rules().rules[0].fired, 8);
    assert_eq!(
        audit::read(f.dir.path()).unwrap().unwrap().0.entries,
        f.lines().len()
    );
}

#[test]
fn two_failures_in_a_row_pause_a_rule_and_a_success_between_resets() {
    let f = fixture();
    f.push("p1", &permission_text("p1", "npm test", ""));
    let rule = made(f.answer_and_submit("p1", "always", OWNER));
    let ask = Ask {
        agent: "codex",
        project: Some("/home/me/app"),
        session: Some("s1"),
        tool: "Bash",
        command: "npm test",
    };
    let result = |failed: bool| results::record(f.queue(), &ask, failed, "exit 1", LATER).unwrap();
    // A result no rule allowed writes nothing.
    assert!(result(true).is_none());
    assert_eq!(f.rules().rules[0].failures, 0);
    for failed in [true, false, true] {
        assert!(
            f.ask("npm test", "/home/me/app", "s1", LATER)
                .fired
                .is_some()
        );
        assert!(result(failed).is_none());
    }
    assert!(
        f.ask("npm test", "/home/me/app", "s1", LATER)
            .fired
            .is_some()
    );
    let paused = result(true).expect("paused");
    assert_eq!(paused.rule.id, rule.id);
    let now = f.rules().rules[0].clone();
    assert_eq!(now.state, State::Paused);
    let change = now.change.unwrap();
    assert_eq!(
        (change.by, change.told),
        (format!("rule:{}", rule.id), false)
    );
    assert!(
        f.ask("npm test", "/home/me/app", "s1", LATER)
            .fired
            .is_none()
    );
    let line = f.lines().pop().unwrap();
    assert_eq!(line.action, "rule_pause");
    results::told(f.queue(), std::slice::from_ref(&rule.id), LATER).unwrap();
    assert!(f.rules().rules[0].change.as_ref().unwrap().told);
}

#[test]
fn three_identical_answers_offer_a_rule_that_answers_the_next_push() {
    let f = fixture();
    for n in 1..=3 {
        let id = format!("d{n}");
        f.push(&id, &pushed_text(&id, ""));
        let outcome = f.answer_and_submit(&id, "staging", OWNER);
        let Outcome::Submitted { plan, .. } = outcome else {
            panic!()
        };
        let offer = f.actions.offer(Actor::User(OWNER), &plan.plan);
        assert_eq!(offer.is_some(), n == 3, "after {n}");
        // Another approver is never offered the owner's streak.
        assert!(f.actions.offer(Actor::User(BOB), &plan.plan).is_none());
    }
    let done = f.queue().find("d3").unwrap();
    let offer = f.actions.offer(Actor::User(OWNER), &done.plan).unwrap();
    assert_eq!(offer.label, "Staging");
    let always = |user: u64, seen: &str| {
        f.actions.take_rule(
            Actor::User(user),
            &RuleAction::AlwaysAnswer {
                plan: "d3".into(),
                seen: seen.into(),
            },
            NOW,
        )
    };
    // A forged tap: an outsider, another member, a wrong fingerprint.
    assert!(matches!(
        always(OUTSIDER, &offer.seen),
        RuleOutcome::Refused(_)
    ));
    assert!(matches!(always(BOB, &offer.seen), RuleOutcome::Stale));
    assert!(matches!(always(OWNER, "000000"), RuleOutcome::Stale));
    assert!(!crate::queue::rules::path(f.dir.path()).exists());
    let RuleOutcome::Done(rule) = always(OWNER, &offer.seen) else {
        panic!()
    };
    assert_eq!(rule.answer, "staging");
    // Offered no more, once the rule exists.
    assert!(f.actions.offer(Actor::User(OWNER), &done.plan).is_none());

    let text = pushed_text("d4", "created_at: 2026-02-01T10:00:00Z\n");
    let plan = crate::plan::parse(&text, "d4").unwrap();
    let ruled = Ruled {
        name: "builder-d4.md".into(),
        text: text.clone(),
        read_here: false,
    };
    let looked = answer_pushed(f.queue(), &plan, ruled, LATER);
    let fired = looked.fired.expect("answered by the rule");
    assert_eq!(
        fired.plan.plan.decisions[0].answer.as_deref(),
        Some("staging")
    );
    // Another shape (a label changed), approvers without the maker: asked.
    for text in [
        pushed_text("d5", "").replace("Staging", "Staging (EU)"),
        pushed_text("d6", "approvers: [4242]\n"),
    ] {
        let plan = crate::plan::parse(&text, "d").unwrap();
        let ruled = Ruled {
            name: "builder-d.md".into(),
            text,
            read_here: false,
        };
        assert!(
            answer_pushed(f.queue(), &plan, ruled, LATER)
                .fired
                .is_none()
        );
    }
}

#[test]
fn no_rule_types_for_the_owner_nor_answers_several_decisions_or_sign_offs() {
    let shapes = [
        pushed_text("a", "").replace("id: target\n", "id: target\nallow_custom: true\n"),
        pushed_text("b", "require: 2\n"),
        pushed_text("c", "") + "\n## Second\n\n**Options:**\n- `x` — X\n",
        "---\nid: d\nagent: builder\n---\n# Q\n\n## Name\n\nkind: text\n".to_owned(),
        "---\nid: e\nagent: builder\n---\n# Q\n\n## Count\n\nkind: number\n".to_owned(),
        "---\nid: f\nagent: builder\n---\n# Q\n\n## Pick\n\nkind: multi\n\n**Options:**\n- `a` — A\n- `b` — B\n"
            .to_owned(),
    ];
    for text in shapes {
        let plan = crate::plan::parse(&text, "x").unwrap();
        assert!(rules::Shape::of(&plan).is_none(), "{text}");
    }
    let boolean = "---\nid: g\nagent: builder\n---\n# Q\n\n## Ship\n\nkind: boolean\n";
    assert!(rules::Shape::of(&crate::plan::parse(boolean, "g").unwrap()).is_some());
}

/// The rule actions' matrix: each variant, by who may and by who may not, changes rules.json and writes exactly
/// one line, or changes nothing and writes none.
#[test]
fn a_rule_action_that_changes_rules_writes_exactly_one_line_and_one_that_does_not_writes_none() {
    fn variant(action: &RuleAction) -> usize {
        match action {
            RuleAction::AlwaysAnswer { .. } => 0,
            RuleAction::Pause { .. } => 1,
            RuleAction::Resume { .. } => 2,
            RuleAction::Revoke { .. } => 3,
        }
    }
    let f = fixture();
    f.push("p1", &permission_text("p1", "npm test", ""));
    let rule = made(f.answer_and_submit("p1", "always", OWNER));
    for n in 1..=3 {
        let id = format!("d{n}");
        f.push(&id, &pushed_text(&id, ""));
        f.answer_and_submit(&id, "prod", OWNER);
    }
    let offer = f
        .actions
        .offer(Actor::User(OWNER), &f.queue().find("d3").unwrap().plan)
        .unwrap();
    let id = || rule.id.clone();
    let cases: Vec<(u64, RuleAction)> = vec![
        (OUTSIDER, RuleAction::Pause { rule: id() }),
        (BOB, RuleAction::Pause { rule: id() }),
        (BOB, RuleAction::Pause { rule: id() }),
        (BOB, RuleAction::Resume { rule: id() }),
        (OWNER, RuleAction::Resume { rule: id() }),
        (OWNER, RuleAction::Resume { rule: id() }),
        (OWNER, RuleAction::Revoke { rule: id() }),
        (OWNER, RuleAction::Revoke { rule: id() }),
        (OWNER, RuleAction::Resume { rule: id() }),
        (
            BOB,
            RuleAction::AlwaysAnswer {
                plan: "d3".into(),
                seen: offer.seen.clone(),
            },
        ),
        (
            OWNER,
            RuleAction::AlwaysAnswer {
                plan: "d3".into(),
                seen: offer.seen.clone(),
            },
        ),
        (
            OWNER,
            RuleAction::AlwaysAnswer {
                plan: "d3".into(),
                seen: offer.seen.clone(),
            },
        ),
    ];
    let mut named = [false; 4];
    let file = crate::queue::rules::path(f.dir.path());
    for (user, action) in cases {
        named[variant(&action)] = true;
        let before = (fs::read(&file).ok(), f.lines().len());
        let outcome = f.actions.take_rule(Actor::User(user), &action, LATER);
        let changed = fs::read(&file).ok() != before.0;
        let written = f.lines().len() - before.1;
        assert_eq!(
            written,
            usize::from(changed),
            "{action:?} by {user} → {outcome:?}: rules changed {changed}, lines {written}"
        );
    }
    assert!(named.iter().all(|n| *n), "every variant is in the table");
}

#[test]
fn a_hook_that_reads_its_answer_itself_gets_no_notify_file_and_a_push_gets_one() {
    let f = fixture();
    f.push("p1", &permission_text("p1", "npm test", ""));
    made(f.answer_and_submit("p1", "always", OWNER));
    let before = f.queue().notify_dir().read_dir().unwrap().count();
    let ask = Ask {
        agent: "codex",
        project: Some("/home/me/app"),
        session: Some("s1"),
        tool: "Bash",
        command: "npm test",
    };
    let looked = answer_permission(
        f.queue(),
        &ask,
        || Ruled {
            name: "codex-h1.md".into(),
            text: permission_text("h1", "npm test", ""),
            read_here: true,
        },
        LATER,
    );
    let fired = looked.fired.expect("answered");
    assert_eq!(fired.notify, None);
    assert_eq!(f.queue().notify_dir().read_dir().unwrap().count(), before);
    let done = std::fs::read_to_string(&fired.plan.path).unwrap();
    assert!(done.contains("answered_by: rule:"), "{done}");
}

/// Claude Code's Bash is an `edit` decision: a rule is made only on the command as it stands (the proposal the
/// owner saw is the one ruled), never from an edited one.
#[test]
fn an_edited_command_makes_no_rule_and_a_rule_is_only_for_the_proposal_shown() {
    let edit_plan = |id: &str, proposal: &str| {
        format!(
            "---\nid: {id}\nagent: claude-code\nsession: s1\nproject: /home/me/app\nrule_tool: Bash\n\
             rule_command: npm test\n---\n# Bash: npm test\n\n## Run this command?\n\nid: permission\nkind: edit\n\n\
             **Proposal:**\n\n```bash\n{proposal}\n```\n\n**Options:**\n- `always` — 🔁 Always allow this\n\
             - `deny` — ❌ Deny\n"
        )
    };
    let f = fixture();
    f.push("e1", &edit_plan("e1", "npm test"));
    let plan = f.queue().find("e1").unwrap().plan;
    let d = &plan.decisions[0];
    let edited = Action::AnswerInput {
        decision: 0,
        input: "npm test -- --all".into(),
        seen: seen::of_decision(d),
    };
    assert!(matches!(
        f.actions.take(Actor::User(OWNER), "e1", &edited, NOW),
        Outcome::Recorded { .. }
    ));
    let plan = f.queue().find("e1").unwrap().plan;
    let submit = Action::Submit {
        seen: seen::of_answers(&plan),
    };
    let Outcome::Submitted { rule: None, .. } =
        f.actions.take(Actor::User(OWNER), "e1", &submit, NOW)
    else {
        panic!("an edited command made a rule")
    };
    // A proposal other than the command the plan says it rules: no rule.
    f.push("e2", &edit_plan("e2", "rm -rf /"));
    let Outcome::Submitted {
        rule: Some(Err(_)), ..
    } = f.answer_and_submit("e2", "always", OWNER)
    else {
        panic!("a rule for a command the owner did not see")
    };
    // The proposal as it stands: the rule.
    f.push("e3", &edit_plan("e3", "npm test"));
    made(f.answer_and_submit("e3", "always", OWNER));
    assert_eq!(f.rules().rules.len(), 1);
}
