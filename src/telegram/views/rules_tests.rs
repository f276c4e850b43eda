//! `/rules`, the completion view's rule line and offer, and the rule notices: snapshots, and Telegram's limits on
//! hostile rules (every string full of MarkdownV2's reserved characters, many rules).

use insta::assert_snapshot;

use super::test_support::{assert_within_limits, render};
use super::*;

const SPECIALS: &str = "_*[]()~`>#+-=|{}.!\\ ";

fn rule(id: &str, standing: Standing) -> Shown {
    Shown {
        id: id.to_owned(),
        standing,
        what: "Bash: npm test".to_owned(),
        answer: "allow".to_owned(),
        agent: "claude-code".to_owned(),
        project: Some("/home/me/app".to_owned()),
        session: None,
        expires_at: None,
        fired: 12,
        last_fired: Some("2026-02-01T10:05:00Z".to_owned()),
        by: "alice".to_owned(),
        paused_itself: None,
        on_record: true,
    }
}

fn grant() -> Shown {
    Shown {
        what: "every permission prompt of the session".to_owned(),
        session: Some("5f1c-session".to_owned()),
        expires_at: Some("2026-02-01T10:30:00Z".to_owned()),
        fired: 3,
        ..rule("rg7k2m9q", Standing::Active)
    }
}

fn hostile(n: usize) -> Shown {
    Shown {
        id: format!("r{n:07}"),
        standing: if n.is_multiple_of(2) {
            Standing::Active
        } else {
            Standing::Paused
        },
        what: SPECIALS.repeat(40),
        answer: SPECIALS.repeat(10),
        agent: SPECIALS.repeat(10),
        project: Some(SPECIALS.repeat(30)),
        session: Some(SPECIALS.repeat(10)),
        expires_at: Some(SPECIALS.to_owned()),
        fired: u64::MAX,
        last_fired: Some(SPECIALS.to_owned()),
        by: SPECIALS.repeat(5),
        paused_itself: Some(SPECIALS.repeat(50)),
        on_record: !n.is_multiple_of(3),
    }
}

#[test]
fn rules_list() {
    let mut paused = rule("rp4x8w2e", Standing::Paused);
    paused.what = "target → Staging".to_owned();
    paused.answer = "staging".to_owned();
    paused.agent = "builder".to_owned();
    paused.project = None;
    paused.paused_itself = Some("exit status 1".to_owned());
    let revoked = rule("rr1a2b3c", Standing::Revoked);
    let view = rules(
        &[revoked, rule("ra9c3d2e", Standing::Active), paused, grant()],
        0,
    );
    assert_snapshot!("rules_list", render(&view));
    assert_within_limits(&view);
}

#[test]
fn rules_none() {
    let view = rules(&[], 0);
    assert_snapshot!("rules_none", render(&view));
    assert_within_limits(&view);
}

#[test]
fn completion_with_a_rule_made_or_offered() {
    let plan = crate::plan::parse(
        "---\nid: p1\nagent: codex\nstatus: completed\n---\n# Bash: npm test\n\n## Run this command?\n\n\
         id: permission\nstatus: answered\nanswer: always\n\n**Options:**\n- `allow` — ✅ Allow once\n\
         - `always` — 🔁 Always allow this\n",
        "p1",
    )
    .unwrap();
    let made = AfterSubmit {
        made: Some(Ok(rule("ra9c3d2e", Standing::Active))),
        offer: None,
    };
    assert_snapshot!(
        "completion_rule_made",
        render(&completion_ruled(&plan, &made))
    );
    let granted = AfterSubmit {
        made: Some(Ok(grant())),
        offer: None,
    };
    assert_snapshot!(
        "completion_grant_made",
        render(&completion_ruled(&plan, &granted))
    );
    let failed = AfterSubmit {
        made: Some(Err("rules.json does not read".to_owned())),
        offer: None,
    };
    assert!(render(&completion_ruled(&plan, &failed)).contains("No standing rule was made"));
    let offered = AfterSubmit {
        made: None,
        offer: Some(("Staging".to_owned(), "abc123".to_owned())),
    };
    assert_snapshot!(
        "completion_offer",
        render(&completion_ruled(&plan, &offered))
    );
}

#[test]
fn notices() {
    let mut paused = rule("ra9c3d2e", Standing::Paused);
    paused.paused_itself = Some("Exit code 1".to_owned());
    assert_snapshot!("rule_paused", render(&rule_paused(&paused, "Exit code 1")));
    assert_snapshot!(
        "rules_warning",
        render(&rules_warning(
            "/q/rules.json does not read (expected value at line 1 column 2): no rule answers anything until it \
             is fixed or removed"
        ))
    );
}

#[test]
fn hostile_rules_stay_within_telegrams_limits() {
    let all: Vec<Shown> = (0..40).map(hostile).collect();
    for page in 0..6 {
        assert_within_limits(&rules(&all, page));
    }
    let plan = crate::plan::parse(
        &format!(
            "---\nid: p1\nstatus: completed\n---\n# {}\n\n## Q\n\nstatus: answered\nanswer: a\n\n**Options:**\n\
             - `a` — A\n",
            "x".repeat(3000)
        ),
        "p1",
    )
    .unwrap();
    let after = AfterSubmit {
        made: Some(Ok(hostile(0))),
        offer: Some((SPECIALS.repeat(20), "abc123".to_owned())),
    };
    assert_within_limits(&completion_ruled(&plan, &after));
    assert_within_limits(&rule_paused(&hostile(1), &SPECIALS.repeat(200)));
    assert_within_limits(&rules_warning(&SPECIALS.repeat(500)));
}
