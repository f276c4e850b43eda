//! Answer kinds through the real binary: a JSON spec and an MCP elicitation request pushed, answered through the
//! owner-action layer (as a tap or a form would), and read back typed by `arbiter get --json`, the notify file and
//! `arbiter lint`.

use arbiter_zebu::actions::{Access, Action, Actions, Actor, Outcome, seen};
use arbiter_zebu::queue::Queue;
use serde_json::{Value, json};

use crate::cli_support::Arbiter;
use crate::support::TempQueue;

const OWNER: u64 = 93533553;
const NOW: &str = "2026-02-01T10:00:00Z";

fn push(q: &TempQueue, spec: &Value) -> String {
    let out = Arbiter::new(q)
        .args(&["push", "-", "--json"])
        .stdin(&spec.to_string())
        .run();
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let pushed: Value = serde_json::from_str(&out.stdout).unwrap();
    pushed["id"].as_str().unwrap().to_owned()
}

fn get(q: &TempQueue, id: &str) -> Value {
    let out = Arbiter::new(q).args(&["get", id, "--json"]).run();
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    serde_json::from_str(&out.stdout).unwrap()
}

/// The owner's actions on the queue, each as the view that showed the decision would send it.
struct Owner(Actions);

impl Owner {
    fn new(q: &TempQueue) -> Owner {
        Owner(Actions::new(
            Queue::open(q.root(), true).unwrap(),
            Access::new([OWNER]),
        ))
    }
    fn seen(&self, id: &str, decision: usize) -> String {
        let plan = self.0.queue().find_pending(id).unwrap().unwrap().plan;
        seen::of_decision(&plan.decisions[decision])
    }
    fn take(&self, id: &str, action: &Action) -> Outcome {
        self.0.take(Actor::User(OWNER), id, action, NOW)
    }
    fn input(&self, id: &str, decision: usize, input: &str) -> Outcome {
        let action = Action::AnswerInput {
            decision,
            input: input.into(),
            seen: self.seen(id, decision),
        };
        self.take(id, &action)
    }
    fn submit(&self, id: &str, decline: bool) -> Outcome {
        let plan = self.0.queue().find_pending(id).unwrap().unwrap().plan;
        let seen = seen::of_answers(&plan);
        let action = if decline {
            Action::Decline { seen }
        } else {
            Action::Submit { seen }
        };
        self.take(id, &action)
    }
}

#[test]
fn every_kind_pushed_as_json_reads_back_typed() {
    let q = TempQueue::new();
    let id = push(
        &q,
        &json!({
            "title": "Release",
            "decisions": [
                {"id": "checks", "title": "Checks", "kind": "multi", "min": 1,
                 "options": [{"key": "lint"}, {"key": "tests"}, {"key": "yes", "label": "Yes!"}]},
                {"id": "replicas", "title": "Replicas", "kind": "number", "minimum": 1, "maximum": 10,
                 "integer": true, "default": 3},
                {"id": "when", "title": "When", "kind": "text", "format": "date"},
                {"id": "go", "title": "Go?", "kind": "boolean"},
                {"id": "cmd", "title": "Command", "kind": "edit", "proposal": "deploy --env prod\n\tx  ",
                 "language": "bash", "options": [{"key": "reject", "label": "Don't run it"}]}
            ]
        }),
    );
    let file = q.files("pending").pop().unwrap();
    let text = q.read("pending", &file);
    for line in [
        "kind: multi\nmin: 1\n",
        "kind: number\nminimum: 1\nmaximum: 10\ninteger: true\ndefault: 3\n",
        "kind: text\nformat: date\n",
        "**Proposal:**\n\n```bash\ndeploy --env prod\n\tx  \n```\n",
    ] {
        assert!(text.contains(line), "{line:?} in\n{text}");
    }
    let owner = Owner::new(&q);
    let multi = Action::AnswerMulti {
        decision: 0,
        options: vec![2, 0],
        custom: None,
        seen: owner.seen(&id, 0),
    };
    assert!(matches!(owner.take(&id, &multi), Outcome::Recorded { .. }));
    let refused = owner.input(&id, 1, "1e3");
    assert_eq!(
        refused.input_refusal().map(ToString::to_string).as_deref(),
        Some("`1e3` is not a number written in digits. Send a whole number from 1 to 10.")
    );
    assert!(matches!(owner.input(&id, 1, "4"), Outcome::Recorded { .. }));
    assert!(owner.input(&id, 2, "2026-02-30").input_refusal().is_some());
    assert!(matches!(
        owner.input(&id, 2, "2026-03-01"),
        Outcome::Recorded { .. }
    ));
    assert!(matches!(
        owner.input(&id, 3, "yes"),
        Outcome::Recorded { .. }
    ));
    assert!(matches!(
        owner.input(&id, 4, "deploy --env staging\n\tx  "),
        Outcome::Recorded { .. }
    ));
    let text = q.read("pending", &file);
    assert!(text.contains("answer: [lint, \"yes\"]\n"), "{text}");
    assert!(text.contains("answer: 4\n"), "{text}");
    assert!(text.contains("answer: \"2026-03-01\"\n"), "{text}");
    assert!(text.contains("answer: true\n"), "{text}");
    assert!(
        text.contains("answer: \"deploy --env staging\\n\\tx  \"\n"),
        "{text}"
    );
    assert!(text.contains("edited: true\n"), "{text}");

    let got = get(&q, &id);
    assert_eq!(
        got["answers"],
        json!({
            "checks": ["lint", "yes"], "replicas": 4, "when": "2026-03-01", "go": true,
            "cmd": "deploy --env staging\n\tx  "
        })
    );
    assert_eq!(got["decisions"][4]["edited"], json!(true));
    assert_eq!(got["decisions"][4]["kind"], json!("edit"));
    assert!(got.get("elicitation").is_none());

    assert!(matches!(
        owner.submit(&id, false),
        Outcome::Submitted { .. }
    ));
    let notify = q.files("notify").pop().unwrap();
    let notify = q.read("notify", &notify);
    assert!(
        notify.contains(
            "answers:\n  checks: [lint, \"yes\"]\n  replicas: 4\n  when: \"2026-03-01\"\n  go: true\n  \
             cmd: \"deploy --env staging\\n\\tx  \"\nedited:\n  cmd: true\n"
        ),
        "{notify}"
    );
    let out = Arbiter::new(&q).args(&["notifications", "--json"]).run();
    let listed: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(
        listed[0]["answers"],
        json!({
            "checks": ["lint", "yes"], "replicas": 4, "when": "2026-03-01", "go": true,
            "cmd": "deploy --env staging\n\tx  "
        })
    );
    assert_eq!(listed[0]["edited"], json!({"cmd": true}));
}

fn elicitation() -> Value {
    json!({
        "message": "Where should we deploy?\nPick the details.",
        "agent": "mcp-server",
        "requestedSchema": {
            "type": "object",
            "properties": {
                "name": {"type": "string", "title": "Your name", "minLength": 2, "maxLength": 20},
                "email": {"type": "string", "format": "email", "description": "For the report"},
                "replicas": {"type": "integer", "minimum": 1, "maximum": 5, "default": 2},
                "ratio": {"type": "number"},
                "confirm": {"type": "boolean", "default": false},
                "region": {"type": "string", "enum": ["eu", "us"], "enumNames": ["Europe", "America"]},
                "tier": {"type": "string", "oneOf": [{"const": "s", "title": "Small"}, {"const": "l", "title": "Large"}]},
                "checks": {"type": "array", "minItems": 1, "maxItems": 2,
                           "items": {"anyOf": [{"const": "lint", "title": "Lint"}, {"const": "tests", "title": "Tests"}, {"const": "e2e", "title": "E2E"}]}},
                "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}}
            },
            "required": ["name", "region"]
        }
    })
}

#[test]
fn an_mcp_elicitation_becomes_a_plan_and_reads_back_as_its_result() {
    let q = TempQueue::new();
    let id = push(&q, &elicitation());
    let file = q.files("pending").pop().unwrap();
    let text = q.read("pending", &file);
    assert!(text.contains("\nelicitation: true\n"), "{text}");
    assert!(
        text.contains("title: \"Where should we deploy?\"\n"),
        "{text}"
    );
    let plan = Owner::new(&q)
        .0
        .queue()
        .find_pending(&id)
        .unwrap()
        .unwrap()
        .plan;
    let ids: Vec<&str> = plan.decisions.iter().map(|d| d.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "name", "email", "replicas", "ratio", "confirm", "region", "tier", "checks", "tags"
        ],
        "in the schema's order"
    );
    let kinds: Vec<&str> = plan.decisions.iter().map(|d| d.kind.name()).collect();
    assert_eq!(
        kinds,
        [
            "text", "text", "number", "number", "boolean", "choice", "choice", "multi", "multi"
        ]
    );
    assert_eq!(plan.decisions[5].options[0].label, "Europe");
    assert_eq!(plan.decisions[6].options[1].label, "Large");
    assert!(plan.decisions[0].required && !plan.decisions[1].required);

    let owner = Owner::new(&q);
    // A required field can't be skipped.
    let skip = Action::Skip {
        decision: 0,
        seen: owner.seen(&id, 0),
    };
    assert!(matches!(
        owner.take(&id, &skip),
        Outcome::NotRecorded { .. }
    ));
    assert!(matches!(
        owner.input(&id, 0, "Ada"),
        Outcome::Recorded { .. }
    ));
    let skip = |d: usize| Action::Skip {
        decision: d,
        seen: owner.seen(&id, d),
    };
    assert!(matches!(
        owner.take(&id, &skip(1)),
        Outcome::Recorded { .. }
    ));
    assert!(matches!(owner.input(&id, 2, "3"), Outcome::Recorded { .. }));
    assert!(matches!(
        owner.input(&id, 3, "0.25"),
        Outcome::Recorded { .. }
    ));
    assert!(matches!(
        owner.input(&id, 4, "no"),
        Outcome::Recorded { .. }
    ));
    let region = plan.decisions[5].clone();
    let pick = Action::Answer {
        decision: 5,
        option: 0,
        seen: seen::of_option(&region, &region.options[0]),
    };
    assert!(matches!(owner.take(&id, &pick), Outcome::Recorded { .. }));
    assert!(matches!(
        owner.take(&id, &skip(6)),
        Outcome::Recorded { .. }
    ));
    let checks = Action::AnswerMulti {
        decision: 7,
        options: vec![1],
        custom: None,
        seen: owner.seen(&id, 7),
    };
    assert!(matches!(owner.take(&id, &checks), Outcome::Recorded { .. }));
    let none = Action::AnswerMulti {
        decision: 8,
        options: vec![],
        custom: None,
        seen: owner.seen(&id, 8),
    };
    assert!(matches!(owner.take(&id, &none), Outcome::Recorded { .. }));
    assert!(matches!(
        owner.submit(&id, false),
        Outcome::Submitted { .. }
    ));

    let got = get(&q, &id);
    assert_eq!(
        got["elicitation"],
        json!({"action": "accept", "content": {
            "name": "Ada", "replicas": 3, "ratio": 0.25, "confirm": false, "region": "eu",
            "checks": ["tests"], "tags": []
        }})
    );
}

#[test]
fn an_elicitation_declined_reads_back_as_decline_and_lint_names_bad_kinds() {
    let q = TempQueue::new();
    let id = push(&q, &elicitation());
    let owner = Owner::new(&q);
    assert!(matches!(owner.submit(&id, true), Outcome::Submitted { .. }));
    let got = get(&q, &id);
    assert_eq!(got["elicitation"], json!({"action": "decline"}));
    assert_eq!(got["outcome"], json!("declined"));

    let bad = q.drop_plan(
        "bad.md",
        "---\nid: bad\n---\n\n## Replicas\n\nkind: number\nminimum: 5\nmaximum: 1\n",
    );
    let out = Arbiter::new(&q)
        .args(&["lint", bad.to_str().unwrap()])
        .run();
    assert_eq!(out.code, Some(1));
    assert!(
        out.stdout
            .contains(":8: `minimum: 5` is more than `maximum: 1`")
            || out
                .stderr
                .contains(":8: `minimum: 5` is more than `maximum: 1`"),
        "{out:?}"
    );

    // A spec whose kind keys make no sense is refused with the decision's place, and nothing is written.
    let out = Arbiter::new(&q)
        .args(&["push", "-"])
        .stdin(
            &json!({"title": "T", "decisions": [
                {"title": "A", "kind": "multi", "min": 3, "options": [{"key": "a"}]}
            ]})
            .to_string(),
        )
        .run();
    assert_eq!(out.code, Some(2), "{out:?}");
    assert!(
        out.stderr
            .contains("decisions[0]: `min: 3` is more than this decision offers (1 option)"),
        "{}",
        out.stderr
    );
}
