//! A standing rule answers only for a maker the config still allows: Bob's rule answers the push while the
//! config lists him, and once he is removed from `telegram.allowedUsers` the same push stays pending, untouched,
//! and the owner is asked on the phone as usual. Through the real binary (`arbiter push` reading the owner's
//! config) and the real daemon against the fake Bot API.

use arbiter_zebu::actions::rules::{RuleAction, RuleOutcome};
use arbiter_zebu::actions::{Access, Action, Actions, Actor, Outcome, seen};
use arbiter_zebu::queue::Queue;
use arbiter_zebu::queue::audit;
use serde_json::Value;

use crate::cli_support::Arbiter;
use crate::support::TempQueue;
use crate::support::daemon::{OWNER, Running};

const BOB: u64 = 4242;
const TOKEN: &str = "123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11";
const NOW: &str = "2026-02-01T10:00:00Z";

/// A pushed question of agent `builder` with one `choice` decision.
const DEPLOY: &str = r#"{"title": "Deploy where?", "agent": "builder", "decisions": [{"id": "target",
  "title": "Target", "options": [{"key": "staging", "label": "Staging"}, {"key": "prod", "label": "Production"}]}]}"#;

/// `arbiter push --json` of [`DEPLOY`] with the owner's config at `config`: the id, and `answered_by` when a rule
/// answered it.
fn push(q: &TempQueue, config: &std::path::Path) -> (String, Option<String>) {
    let out = Arbiter::new(q)
        .env("ARBITER_CONFIG", config)
        .args(&["push", "-", "--json"])
        .stdin(DEPLOY)
        .run();
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let v: Value = serde_json::from_str(&out.stdout).unwrap();
    (
        v["id"].as_str().unwrap().to_owned(),
        v["answered_by"].as_str().map(str::to_owned),
    )
}

/// The owner's config, allowing `users`, at `<queue>/etc/<name>.json`.
fn config(q: &TempQueue, name: &str, users: &[u64]) -> std::path::PathBuf {
    let path = q.root().join("etc").join(format!("{name}.json"));
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let config = serde_json::json!({"telegram": {"token": TOKEN, "allowedUsers": users}});
    std::fs::write(&path, config.to_string()).unwrap();
    path
}

/// Bob answers three pushed questions `staging` and takes the `🔁 Always answer "Staging"` offer, while the
/// config allows him; returns the rule's id.
fn bobs_rule(q: &TempQueue, with_bob: &std::path::Path) -> String {
    let queue = Queue::open(q.root(), true).unwrap();
    let actions = Actions::new(queue.clone(), Access::new([OWNER as u64, BOB]));
    let mut last = String::new();
    for _ in 0..3 {
        let (id, by) = push(q, with_bob);
        assert_eq!(by, None);
        let plan = queue.find(&id).unwrap().plan;
        let d = &plan.decisions[0];
        let answer = Action::Answer {
            decision: 0,
            option: 0,
            seen: seen::of_option(d, &d.options[0]),
        };
        let answered = actions.take(Actor::User(BOB), &id, &answer, NOW);
        assert!(matches!(answered, Outcome::Recorded { .. }), "{answered:?}");
        let plan = queue.find(&id).unwrap().plan;
        let submit = Action::Submit {
            seen: seen::of_answers(&plan),
        };
        let submitted = actions.take(Actor::User(BOB), &id, &submit, NOW);
        assert!(
            matches!(submitted, Outcome::Submitted { .. }),
            "{submitted:?}"
        );
        last = id;
    }
    let done = queue.find(&last).unwrap().plan;
    let offer = actions.offer(Actor::User(BOB), &done).expect("an offer");
    let always = RuleAction::AlwaysAnswer {
        plan: last,
        seen: offer.seen,
    };
    match actions.take_rule(Actor::User(BOB), &always, NOW) {
        RuleOutcome::Done(rule) => rule.id,
        other => panic!("{other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rule_whose_maker_left_allowed_users_answers_nothing_and_the_owner_is_asked() {
    let q = TempQueue::new();
    let with_bob = config(&q, "with-bob", &[OWNER as u64, BOB]);
    let rule = bobs_rule(&q, &with_bob);

    // While the config lists Bob, his rule answers the push: nothing is left pending.
    let (_, by) = push(&q, &with_bob);
    assert_eq!(by.as_deref(), Some(format!("rule:{rule}").as_str()));
    assert!(q.files("pending").is_empty());
    let lines = audit::read(q.root()).unwrap().unwrap().1.len();

    // Bob is removed from allowedUsers: the daemon serves the owner alone, and the push reads that config.
    let d = Running::start(q).await;
    let without_bob = config(&d.queue, "without-bob", &[OWNER as u64]);
    let (id, by) = push(&d.queue, &without_bob);
    assert_eq!(by, None, "a removed maker's rule answered");
    let pending = d.queue.files("pending");
    assert_eq!(pending.len(), 1, "{pending:?}");
    let text = d.queue.read("pending", &pending[0]);
    assert!(text.contains("\nstatus: pending\n"), "{text}");
    assert!(!text.contains("answered_by"), "{text}");
    assert!(!text.contains(&format!("rule:{rule}")), "{text}");

    // Asked on the phone as usual; the trail has the push's line and no answer by the rule.
    let asked = d
        .wait_message(|m| {
            m.plain.contains("Deploy where?") && m.buttons().iter().any(|b| b.text == "📂 Open")
        })
        .await;
    assert!(asked.plain.contains("Deploy where?"), "{}", asked.plain);
    let after = audit::read(d.queue.root()).unwrap().unwrap().1;
    let new: Vec<(&str, &str)> = after[lines..]
        .iter()
        .map(|l| (l.action.as_str(), l.plan.as_str()))
        .collect();
    assert_eq!(new, [("push", id.as_str())]);
    // Announcing it changed nothing in the file.
    let bytes = std::fs::read(d.queue.root().join("pending").join(&pending[0])).unwrap();
    assert_eq!(bytes, text.as_bytes());
}
