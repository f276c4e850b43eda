//! The agent commands through the real binary: push, status, get, list, notifications, and their errors.

use arbiter_zebu::plan::parse;
use serde_json::{Value, json};

use crate::cli_support::Arbiter;
use crate::support::owner::Owner;
use crate::support::{SPEC_EXAMPLE, TempQueue, plan_with};

const NOW: &str = "2026-02-01T10:00:00Z";
const OWNER: &str = "93533553";

/// The example plan (tests/fixtures/spec-example.md) as a JSON plan spec.
pub const SPEC_EXAMPLE_JSON: &str = r#"{
  "id": "abc123",
  "title": "API Design Decisions",
  "tag": "nft-marketplace",
  "priority": "normal",
  "agent": "ceo",
  "session": "agent:ceo:main",
  "notify_session": "agent:swe2:main",
  "context": "Context for the human reviewer.",
  "decisions": [
    {"id": "auth-strategy", "title": "Auth Strategy",
     "context": "How should we authenticate admin panel users?",
     "options": [
       {"key": "jwt", "label": "JWT tokens (stateless, scalable)"},
       {"key": "session", "label": "Server sessions (more control)"},
       {"key": "oauth", "label": "External OAuth provider"}]},
    {"title": "Database", "context": "Primary datastore for NFT metadata.",
     "options": [
       {"key": "postgresql", "label": "With JSONB for flexibility"},
       {"key": "mongodb", "label": "Document store"}]},
    {"id": "caching", "title": "Caching", "context": "API response caching strategy.", "allow_custom": true,
     "options": [
       {"key": "redis", "label": "In-memory cache"},
       {"key": "none", "label": "No caching initially"},
       {"key": "cdn", "label": "Edge caching only"}]}
  ]
}"#;

#[test]
fn push_json_from_stdin_writes_the_design_example() {
    let q = TempQueue::new();
    let out = Arbiter::new(&q)
        .args(&["push", "-"])
        .stdin(SPEC_EXAMPLE_JSON)
        .run();
    assert_eq!(
        (out.code, out.stdout.as_str(), out.stderr.as_str()),
        (Some(0), "abc123\n", "")
    );
    assert_eq!(q.files("pending"), ["ceo-api-design-decisions-abc123.md"]);
    let written = q.read("pending", "ceo-api-design-decisions-abc123.md");
    let plan = parse(&written, "x").unwrap();
    let created = plan.created_at.clone().unwrap();
    assert_eq!(plan.updated_at.as_deref(), Some(created.as_str()));
    assert!(created.ends_with('Z') && created.len() == 20, "{created}");
    // Exactly the example plan, without its comments and with this push's timestamps.
    let expected = SPEC_EXAMPLE
        .replace(
            "title: \"API Design Decisions\"",
            "title: API Design Decisions",
        )
        .replace("           # low | normal | high | urgent", "")
        .replace("            # pending | in_progress | completed", "")
        .replace("   # Optional: who to notify", "")
        .replace("2026-01-30T01:30:00Z", &created);
    assert_eq!(written, expected);
}

#[test]
fn push_json_without_id_gets_a_fresh_one_and_prints_id_and_path() {
    let q = TempQueue::new();
    let spec = r#"{"title": "Ship it?", "decisions": [{"title": "Now?", "options": [{"key": "yes"}, {"key": "no", "label": "Not yet"}]}]}"#;
    let out = Arbiter::new(&q).args(&["push", "--json"]).stdin(spec).run();
    assert_eq!((out.code, out.stderr.as_str()), (Some(0), ""));
    let v: Value = serde_json::from_str(&out.stdout).unwrap();
    let id = v["id"].as_str().unwrap();
    assert_eq!(id.len(), 8);
    let name = format!("agent-ship-it-{id}.md");
    assert_eq!(q.files("pending"), std::slice::from_ref(&name));
    assert_eq!(
        v,
        json!({"id": id, "path": q.root().join("pending").join(&name)})
    );
    let plan = parse(&q.read("pending", &name), "x").unwrap();
    assert_eq!(plan.id, id);
    assert_eq!(plan.decisions[0].id, "now");
    let options: Vec<(&str, &str)> = plan.decisions[0]
        .options
        .iter()
        .map(|o| (o.key.as_str(), o.label.as_str()))
        .collect();
    assert_eq!(options, [("yes", "yes"), ("no", "Not yet")]);
}

#[test]
fn push_json_takes_the_time_keys_and_status_reports_the_deadline() {
    let q = TempQueue::new();
    let spec = r#"{"id": "t1", "title": "Ship it?", "deadline": "2020-01-01T12:00:00+02:00", "on_deadline": "submit",
        "remind_every": "30m", "escalate_after": "2h", "escalate_to": [11111111, "alice"],
        "decisions": [{"title": "Now?", "default": "no", "options": [{"key": "yes"}, {"key": "no"}]}]}"#;
    let out = Arbiter::new(&q).args(&["push", "--json"]).stdin(spec).run();
    assert_eq!((out.code, out.stderr.as_str()), (Some(0), ""));
    let text = q.read("pending", "agent-ship-it-t1.md");
    for line in [
        "deadline: \"2020-01-01T12:00:00+02:00\"\n",
        "on_deadline: submit\n",
        "remind_every: \"30m\"\n",
        "escalate_after: \"2h\"\n",
        "escalate_to: [11111111, alice]\n",
        "default: \"no\"\n",
    ] {
        assert!(text.contains(line), "{line:?} in\n{text}");
    }
    let out = Arbiter::new(&q).args(&["status", "t1", "--json"]).run();
    let v: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["deadline"], "2020-01-01T10:00:00Z");
    assert_eq!(v["overdue"], true);
    let out = Arbiter::new(&q).args(&["status", "t1"]).run();
    assert!(
        out.stdout
            .contains("\ndeadline:  2020-01-01T10:00:00Z (overdue)\n"),
        "{}",
        out.stdout
    );

    let bad = r#"{"title": "Bad", "decisions": [{"title": "Q", "default": "maybe", "options": [{"key": "yes"}]}]}"#;
    let out = Arbiter::new(&q).args(&["push", "--json"]).stdin(bad).run();
    assert_eq!(out.code, Some(2), "{}", out.stderr);
    assert!(
        out.stderr
            .contains("`default: maybe` is not an option key of this decision: use one of yes"),
        "{}",
        out.stderr
    );
    let bad = r#"{"title": "Bad", "deadline": "soon", "decisions": [{"title": "Q"}]}"#;
    let out = Arbiter::new(&q).args(&["push", "--json"]).stdin(bad).run();
    assert_eq!(out.code, Some(2), "{}", out.stderr);
    assert!(
        out.stderr
            .contains("`deadline: soon` is neither an RFC 3339 time"),
        "{}",
        out.stderr
    );
    assert_eq!(q.files("pending").len(), 1, "nothing written for bad input");
}

const MARKDOWN_PLAN: &str = "---\ntitle: Ship it?\nagent: builder\n# the agent's own comment\npriority: high   # soon\n---\n\n# Ship it?\n\nContext.\n\n## Release now\n\n**Options:**\n- `yes` — Ship today\n- `no` — Wait\n";

#[test]
fn push_markdown_file_inserts_only_the_missing_keys() {
    let q = TempQueue::new();
    let input = q.root().join("plan.md");
    std::fs::write(&input, MARKDOWN_PLAN).unwrap();
    let out = Arbiter::new(&q)
        .args(&["push", input.to_str().unwrap()])
        .run();
    assert_eq!((out.code, out.stderr.as_str()), (Some(0), ""));
    let id = out.stdout.trim();
    let name = format!("builder-ship-it-{id}.md");
    assert_eq!(q.files("pending"), std::slice::from_ref(&name));
    let written = q.read("pending", &name);
    let created = parse(&written, "x").unwrap().created_at.unwrap();
    let inserted = format!(
        "id: {id}\nversion: 1\nstatus: pending\ncreated_at: {created}\nupdated_at: {created}\n\
         completed_at: null\ntotal: 1\nanswered: 0\nremaining: 1\n"
    );
    let expected = MARKDOWN_PLAN.replacen("---\n\n# Ship", &format!("{inserted}---\n\n# Ship"), 1);
    assert_eq!(written, expected);
}

#[test]
fn push_refuses_bad_input_and_writes_nothing() {
    let q = TempQueue::new();
    let bad_md = q.root().join("bad.md");
    std::fs::write(&bad_md, "---\ntitle: T\npriority: asap\n---\n## A\n").unwrap();
    let bad_md = bad_md.to_str().unwrap().to_owned();
    let cases: Vec<(Vec<&str>, &str, String)> = vec![
        (
            vec!["push"],
            r#"{"title": "T", "#,
            "arbiter: <stdin>:1:15: EOF while parsing a value\n".into(),
        ),
        (
            vec!["push", "-"],
            r#"{"title": "T", "color": "red", "decisions": [{"title": "A"}]}"#,
            "arbiter: <stdin>:1:22: unknown field `color`, expected one of `id`, `title`, `tag`, `priority`, \
             `agent`, `session`, `notify_session`, `context`, `deadline`, `on_deadline`, `remind_every`, `escalate_after`, `escalate_to`, `approvers`, `require`, `decisions`\n"
                .into(),
        ),
        (
            vec!["push"],
            r#"{"title": "T", "priority": "asap", "decisions": [{"title": "A"}]}"#,
            "arbiter: <stdin>: priority: unknown priority `asap`: use low, normal, high or urgent\n".into(),
        ),
        (
            vec!["push"],
            r#"{"title": "T", "decisions": [{"id": "x", "title": "A"}, {"id": "x", "title": "B"}]}"#,
            "arbiter: <stdin>: decisions[1].id: duplicate decision id `x` (also decisions[0])\n".into(),
        ),
        (
            vec!["push", "-"],
            "---\nid: x\n---\n\n# No decisions\n",
            "arbiter: <stdin>:4: no decisions: add a `## ` section for each decision, with an `**Options:**` list\n"
                .into(),
        ),
        (
            vec!["push", &bad_md],
            "",
            format!(
                "arbiter: {bad_md}:3: unknown priority `asap`: use low, normal, high or urgent\n"
            ),
        ),
        (
            vec!["push", "--json"],
            "---\nid: done\nstatus: completed\n---\n## A\n",
            "arbiter: <stdin>: the plan says `status: completed`: push a pending plan\n".into(),
        ),
    ];
    for (args, stdin, stderr) in cases {
        let out = Arbiter::new(&q).args(&args).stdin(stdin).run();
        assert_eq!(
            (out.code, out.stdout.as_str(), out.stderr.as_str()),
            (Some(2), "", stderr.as_str()),
            "{args:?} {stdin}"
        );
    }
    assert!(q.files("pending").is_empty(), "{:?}", q.files("pending"));

    let out = Arbiter::new(&q)
        .args(&["push", "/nonexistent/plan.md"])
        .run();
    assert_eq!(out.code, Some(1));
    assert_eq!(
        out.stderr,
        "arbiter: /nonexistent/plan.md: No such file or directory (os error 2)\n"
    );
}

#[test]
fn push_refuses_an_id_that_is_already_pending() {
    let q = TempQueue::new();
    let first = Arbiter::new(&q)
        .args(&["push"])
        .stdin(SPEC_EXAMPLE_JSON)
        .run();
    assert_eq!(first.code, Some(0));
    let again = SPEC_EXAMPLE_JSON.replace("API Design Decisions", "Other title");
    let out = Arbiter::new(&q).args(&["push"]).stdin(&again).run();
    let existing = q.root().join("pending/ceo-api-design-decisions-abc123.md");
    assert_eq!(
        (out.code, out.stdout.as_str(), out.stderr),
        (
            Some(2),
            "",
            format!(
                "arbiter: <stdin>: a plan with id `abc123` is already pending ({}); pick another id or leave it out\n",
                existing.display()
            )
        )
    );
    assert_eq!(q.files("pending"), ["ceo-api-design-decisions-abc123.md"]);
}

/// The example plan with one answer, one skip and one custom answer.
fn answered_example(q: &TempQueue) -> Owner {
    q.drop_plan("ceo-api-abc123.md", SPEC_EXAMPLE);
    let owner = Owner::new(q.root()).at(NOW);
    owner.answer("abc123", "auth-strategy", "jwt");
    owner.skip("abc123", "database");
    owner.custom("abc123", "caching", "varnish: in front");
    owner
}

#[test]
fn status_and_get_report_state_and_answers() {
    let q = TempQueue::new();
    answered_example(&q);
    let path = q.root().join("pending/ceo-api-abc123.md");
    let status = json!({
        "id": "abc123", "title": "API Design Decisions", "status": "in_progress", "priority": "normal",
        "tag": "nft-marketplace", "agent": "ceo", "session": "agent:ceo:main",
        "notify_session": "agent:swe2:main", "location": "pending", "path": path,
        "created_at": "2026-01-30T01:30:00Z", "updated_at": NOW, "completed_at": null,
        "deadline": null, "overdue": false, "total": 3, "answered": 2, "skipped": 1, "remaining": 0,
        "require": 1, "signoffs": []
    });
    let out = Arbiter::new(&q).args(&["status", "abc123", "--json"]).run();
    assert_eq!((out.code, out.stderr.as_str()), (Some(0), ""));
    assert_eq!(serde_json::from_str::<Value>(&out.stdout).unwrap(), status);

    let mut get = status.clone();
    get["decisions"] = json!([
        {"id": "auth-strategy", "title": "Auth Strategy", "status": "answered", "answer": "jwt",
         "custom": false, "answered_at": NOW, "answered_by": OWNER, "note": null, "delegated_to": null},
        {"id": "database", "title": "Database", "status": "skipped", "answer": null,
         "custom": false, "answered_at": NOW, "answered_by": OWNER, "note": null, "delegated_to": null},
        {"id": "caching", "title": "Caching", "status": "answered", "answer": "varnish: in front",
         "custom": true, "answered_at": NOW, "answered_by": OWNER, "note": null, "delegated_to": null}
    ]);
    get["answers"] =
        json!({"auth-strategy": "jwt", "database": null, "caching": "varnish: in front"});
    let out = Arbiter::new(&q).args(&["get", "abc123", "--json"]).run();
    assert_eq!((out.code, out.stderr.as_str()), (Some(0), ""));
    assert_eq!(serde_json::from_str::<Value>(&out.stdout).unwrap(), get);

    let head = format!(
        "abc123  API Design Decisions\nstatus:    in_progress (in pending/)\npriority:  normal\n\
         tag:       nft-marketplace\nprogress:  2/3 answered, 1 skipped, 0 remaining\nfile:      {}\n",
        path.display()
    );
    let out = Arbiter::new(&q).args(&["status", "abc123"]).run();
    assert_eq!((out.code, out.stdout.as_str()), (Some(0), head.as_str()));
    let out = Arbiter::new(&q).args(&["get", "abc123"]).run();
    let by = format!("  — {NOW} by {OWNER}");
    assert_eq!(
        out.stdout,
        format!(
            "{head}\n1. Auth Strategy [auth-strategy]: jwt{by}\n2. Database [database]: (skipped){by}\n\
             3. Caching [caching]: varnish: in front (custom){by}\n"
        )
    );
}

#[test]
fn status_finds_completed_plans_and_unknown_ids_fail() {
    let q = TempQueue::new();
    answered_example(&q)
        .at("2026-02-01T11:00:00Z")
        .submit("abc123");
    let out = Arbiter::new(&q).args(&["status", "abc123", "--json"]).run();
    let v: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(
        (&v["status"], &v["location"], &v["completed_at"]),
        (
            &json!("completed"),
            &json!("completed"),
            &json!("2026-02-01T11:00:00Z")
        )
    );
    assert_eq!(
        v["path"],
        json!(q.root().join("completed/ceo-api-abc123.md"))
    );
    for cmd in ["status", "get"] {
        let out = Arbiter::new(&q).args(&[cmd, "nope"]).run();
        assert_eq!(
            (out.code, out.stdout.as_str(), out.stderr.as_str()),
            (
                Some(1),
                "",
                "arbiter: no plan with id `nope` in the queue\n"
            )
        );
    }
}

#[test]
fn list_shows_the_pending_queue_and_warns_about_broken_files() {
    let q = TempQueue::new();
    q.drop_plan("p1.md", &plan_with("p1", "s", 2));
    let urgent = plan_with("p2", "s", 1).replace("priority: normal", "priority: urgent\ntag: ops");
    q.drop_plan("p2.md", &urgent);
    q.drop_plan("broken.md", "---\nid: x\npriority: asap\n---\n## D\n");
    Owner::new(q.root()).at(NOW).answer("p1", "q1", "yes");
    let out = Arbiter::new(&q).args(&["list"]).run();
    assert_eq!(out.code, Some(0));
    assert_eq!(
        out.stdout,
        "PRIORITY  TAG  TITLE    PROGRESS  AGE  ID\n\
         urgent    ops  Plan p2  0/1       -    p2\n\
         normal    -    Plan p1  1/2       -    p1\n"
    );
    assert_eq!(
        out.stderr,
        format!(
            "arbiter: warning: {}:3: unknown priority `asap`: use low, normal, high or urgent\n",
            q.root().join("pending/broken.md").display()
        )
    );
    let out = Arbiter::new(&q).args(&["list", "--json"]).run();
    let v: Value = serde_json::from_str(&out.stdout).unwrap();
    let ids: Vec<&str> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["p2", "p1"]);

    let empty = TempQueue::new();
    let out = Arbiter::new(&empty).args(&["list"]).run();
    assert_eq!(
        (out.code, out.stdout.as_str()),
        (Some(0), "no pending plans\n")
    );
}
