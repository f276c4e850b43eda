//! `arbiter rules list|pause|resume|revoke` through the real binary, on a rule made through the action layer as
//! a tap makes it; the acting user is `--user`, else the config's only member.

use arbiter_zebu::actions::{Access, Action, Actions, Actor, Outcome, seen};
use arbiter_zebu::queue::Queue;
use arbiter_zebu::queue::audit;
use arbiter_zebu::queue::rules;
use serde_json::Value;

use crate::cli_support::Arbiter;
use crate::support::TempQueue;

const OWNER: u64 = 93533553;
const BOB: u64 = 4242;
const TOKEN: &str = "123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11";
const NOW: &str = "2026-02-01T10:00:00Z";

/// A queue whose config (in `<queue>/.arbiter/`, the binary's HOME) allows `users`, holding a rule the owner made
/// by submitting a permission plan with `🔁 Always allow this`. Returns the rule's id.
fn with_rule(q: &TempQueue, users: &[u64]) -> String {
    let home = q.root().join(".arbiter");
    std::fs::create_dir_all(&home).unwrap();
    let config = serde_json::json!({"telegram": {"token": TOKEN, "allowedUsers": users}});
    std::fs::write(home.join("config.json"), config.to_string()).unwrap();
    let text = "---\nid: p1\nagent: codex\nsession: s1\nproject: /home/me/app\nrule_tool: Bash\n\
                rule_command: npm test\n---\n# Bash: npm test\n\n## Run this command?\n\nid: permission\n\n\
                **Options:**\n- `allow` — ✅ Allow once\n- `always` — 🔁 Always allow this\n";
    let queue = Queue::open(q.root(), true).unwrap();
    queue.add_pending("p1.md", text).unwrap();
    let actions = Actions::new(queue.clone(), Access::new(users.iter().copied()));
    let plan = queue.find("p1").unwrap().plan;
    let d = &plan.decisions[0];
    let answer = Action::Answer {
        decision: 0,
        option: 1,
        seen: seen::of_option(d, &d.options[1]),
    };
    actions.take(Actor::User(OWNER), "p1", &answer, NOW);
    let plan = queue.find("p1").unwrap().plan;
    let submit = Action::Submit {
        seen: seen::of_answers(&plan),
    };
    match actions.take(Actor::User(OWNER), "p1", &submit, NOW) {
        Outcome::Submitted {
            rule: Some(Ok(rule)),
            ..
        } => rule.id,
        other => panic!("{other:?}"),
    }
}

fn arbiter(q: &TempQueue, args: &[&str]) -> crate::cli_support::Output {
    Arbiter::new(q).args(args).run()
}

#[test]
fn list_shows_every_rule_and_pause_resume_revoke_write_their_lines() {
    let q = TempQueue::new();
    let id = with_rule(&q, &[OWNER]);
    let out = arbiter(&q, &["rules", "list"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert!(out.stdout.starts_with("ID "), "{}", out.stdout);
    assert!(
        out.stdout.contains(&id)
            && out.stdout.contains("active")
            && out.stdout.contains("Bash: npm test → allow")
            && out.stdout.contains("/home/me/app"),
        "{}",
        out.stdout
    );
    let out = arbiter(&q, &["rules", "list", "--json"]);
    let listed: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(listed[0]["id"], id.as_str());
    assert_eq!(listed[0]["match"]["command"], "npm test");
    assert_eq!(listed[0]["state_now"], "active");
    assert_eq!(listed[0]["on_record"], true);

    let out = arbiter(&q, &["rules", "pause", &id]);
    assert_eq!(
        (out.code, out.stdout.as_str()),
        (Some(0), format!("{id} paused\n").as_str()),
        "{}",
        out.stderr
    );
    let out = arbiter(&q, &["rules", "pause", &id, "--json"]);
    let rule: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(rule["state"], "paused");
    assert_eq!(
        arbiter(&q, &["rules", "resume", &id]).stdout,
        format!("{id} active\n")
    );
    assert_eq!(
        arbiter(&q, &["rules", "revoke", &id]).stdout,
        format!("{id} revoked\n")
    );
    let out = arbiter(&q, &["rules", "resume", &id]);
    assert_eq!(out.code, Some(1));
    assert!(
        out.stderr.contains("is revoked: it can't be resumed"),
        "{}",
        out.stderr
    );
    let out = arbiter(&q, &["rules", "pause", "rnope"]);
    assert_eq!(out.code, Some(1));
    assert!(out.stderr.contains("no rule `rnope`"), "{}", out.stderr);

    let lines = audit::read(q.root()).unwrap().unwrap().1;
    let mine: Vec<(&str, &str)> = lines
        .iter()
        .filter(|l| l.action.starts_with("rule"))
        .map(|l| (l.action.as_str(), l.actor.as_str()))
        .collect();
    let owner = OWNER.to_string();
    assert_eq!(
        mine,
        [
            ("rule", owner.as_str()),
            ("rule_pause", owner.as_str()),
            ("rule_resume", owner.as_str()),
            ("rule_revoke", owner.as_str())
        ]
    );
}

#[test]
fn with_several_members_the_user_is_named_and_only_the_maker_resumes() {
    let q = TempQueue::new();
    let id = with_rule(&q, &[OWNER, BOB]);
    let out = arbiter(&q, &["rules", "pause", &id]);
    assert_eq!(out.code, Some(2));
    assert!(out.stderr.contains("--user"), "{}", out.stderr);
    let bob = BOB.to_string();
    assert_eq!(
        arbiter(&q, &["rules", "pause", &id, "--user", &bob]).code,
        Some(0)
    );
    let out = arbiter(&q, &["rules", "resume", &id, "--user", &bob]);
    assert_eq!(out.code, Some(2), "{}", out.stderr);
    let out = arbiter(&q, &["rules", "resume", &id, "--user", "666"]);
    assert_eq!(out.code, Some(2), "{}", out.stderr);
    assert_eq!(
        rules::read(q.root()).unwrap().rules[0].state,
        rules::State::Paused
    );
    let owner = OWNER.to_string();
    assert_eq!(
        arbiter(&q, &["rules", "resume", &id, "--user", &owner]).code,
        Some(0)
    );
}

#[test]
fn a_garbage_rules_file_is_an_error_not_an_empty_list() {
    let q = TempQueue::new();
    std::fs::write(q.root().join("rules.json"), "not json").unwrap();
    let out = arbiter(&q, &["rules", "list"]);
    assert_eq!(out.code, Some(1));
    assert!(out.stderr.contains("does not read"), "{}", out.stderr);
    let out = arbiter(&q, &["rules", "list", "--json"]);
    assert_eq!(out.code, Some(1));
}

#[test]
fn the_config_may_be_elsewhere_with_config_or_arbiter_config_and_its_absence_says_where_it_looked()
{
    let q = TempQueue::new();
    let id = with_rule(&q, &[OWNER]);
    // The daemon's config is not in the arbiter home: `arbiter run --config FILE` elsewhere, naming the queue.
    let elsewhere = q.root().join("etc/owner.json");
    std::fs::create_dir_all(elsewhere.parent().unwrap()).unwrap();
    let config = serde_json::json!({
        "telegram": {"token": TOKEN, "allowedUsers": [OWNER]},
        "queue": {"dir": q.root()},
    });
    std::fs::write(&elsewhere, config.to_string()).unwrap();
    let empty_home = q.root().join("empty-home");
    std::fs::create_dir_all(&empty_home).unwrap();
    let file = elsewhere.to_str().unwrap();

    let out = Arbiter::home(&empty_home)
        .args(&["rules", "pause", &id, "--config", file])
        .run();
    assert_eq!(
        (out.code, out.stdout.as_str(), out.stderr.as_str()),
        (Some(0), format!("{id} paused\n").as_str(), "")
    );
    let out = Arbiter::home(&empty_home)
        .env("ARBITER_CONFIG", file)
        .args(&["rules", "resume", &id])
        .run();
    assert_eq!(
        (out.code, out.stdout.as_str(), out.stderr.as_str()),
        (Some(0), format!("{id} active\n").as_str(), "")
    );

    // Without it, the error names the file it looked for and how to point at another.
    let out = Arbiter::home(&empty_home)
        .args(&["--queue", q.root().to_str().unwrap(), "rules", "pause", &id])
        .run();
    assert_eq!(out.code, Some(2));
    assert_eq!(
        out.stderr,
        format!(
            "arbiter: changing a rule is an owner action: it needs the config's telegram.allowedUsers, and no config \
             file at {} (the arbiter home's, ARBITER_HOME or ~/.arbiter; neither --config nor ARBITER_CONFIG was \
             given): run `arbiter init`, or point at the daemon's config with --config FILE or ARBITER_CONFIG\n",
            empty_home.join("config.json").display()
        )
    );
    let missing = q.root().join("nope.json");
    let out = Arbiter::home(&empty_home)
        .env("ARBITER_CONFIG", &missing)
        .args(&["--queue", q.root().to_str().unwrap(), "rules", "pause", &id])
        .run();
    assert!(
        out.stderr.contains(&format!(
            "no config file at {} (given with ARBITER_CONFIG)",
            missing.display()
        )),
        "{}",
        out.stderr
    );
    assert_eq!(
        rules::read(q.root()).unwrap().rules[0].state,
        rules::State::Active
    );
}
