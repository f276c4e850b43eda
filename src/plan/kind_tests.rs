//! Answer kinds in the file: parsed, diagnosed, written as typed YAML and read back.

use proptest::prelude::*;

use super::yaml_readers::{Schema, flow_list, read_flat};
use super::*;

const NOW: &str = "2026-02-01T10:00:00Z";

/// A plan with one decision whose block is `keys`, followed by `body`.
fn plan_text(keys: &str, body: &str) -> String {
    format!("---\nid: p\nstatus: pending\n---\n\n# P\n\n## Q\n\n{keys}\n\n{body}")
}

fn one(keys: &str, body: &str) -> Decision {
    match parse(&plan_text(keys, body), "p") {
        Ok(mut plan) => plan.decisions.remove(0),
        Err(e) => panic!("{e}"),
    }
}

fn diag(keys: &str, body: &str) -> String {
    match parse(&plan_text(keys, body), "p") {
        Ok(_) => panic!("parsed: {keys}"),
        Err(e) => e.to_string(),
    }
}

fn num(x: f64) -> Number {
    Number::new(x).expect("a number")
}

const OPTIONS: &str = "**Options:**\n- `lint` — Lint\n- `tests` — Tests\n- `yes` — Yes\n";
const PROPOSAL: &str = "**Context:** Run it?\n\n**Proposal:**\n\n```bash\nrm -rf build/\n```\n\n**Options:**\n- `reject` — Don't run it\n";

#[test]
fn every_kind_is_read_with_its_keys() {
    assert_eq!(one("id: q", OPTIONS).kind, Kind::Choice);
    assert_eq!(
        one("kind: multi\nmin: 2", OPTIONS).kind,
        Kind::Multi { min: 2, max: 3 }
    );
    assert_eq!(
        one("kind: multi\nmax: 3\nallow_custom: true", OPTIONS).kind,
        Kind::Multi { min: 1, max: 3 }
    );
    assert_eq!(
        one("kind: text\nformat: email\nmin_length: 3", "").kind,
        Kind::Text {
            min_length: 3,
            max_length: 4000,
            format: Some(TextFormat::Email)
        }
    );
    assert_eq!(
        one("kind: number\nminimum: 1\nmaximum: 2.5\ninteger: false", "").kind,
        Kind::Number {
            minimum: Some(num(1.0)),
            maximum: Some(num(2.5)),
            integer: false
        }
    );
    assert_eq!(one("kind: boolean", "").kind, Kind::Boolean);
    let d = one("kind: edit", PROPOSAL);
    assert_eq!(
        d.kind,
        Kind::Edit {
            proposal: Proposal {
                text: "rm -rf build/".into(),
                language: Some("bash".into()),
                line: 14
            },
            json: false
        }
    );
    // The proposal is neither context nor options; the options beside it stay options.
    assert_eq!(d.context, "Run it?");
    assert_eq!(d.options.len(), 1);
    assert_eq!(d.options[0].key, "reject");
}

#[test]
fn a_proposal_keeps_every_byte_of_its_code_block() {
    let body = "**Proposal:**\n````\nline 1  \n\tindented\n```\n\n**Options:** not these\n````\n";
    let d = one("kind: edit", body);
    assert_eq!(
        d.kind.proposal().map(|p| p.text.as_str()),
        Some("line 1  \n\tindented\n```\n\n**Options:** not these")
    );
    assert!(d.options.is_empty());
}

#[test]
fn typed_answers_and_defaults_are_read_as_their_kind() {
    let d = one(
        "kind: multi\nstatus: answered\nanswer: [lint, \"yes\"]\ndefault: [tests]",
        OPTIONS,
    );
    assert_eq!(
        d.value,
        Some(AnswerValue::List(vec!["lint".into(), "yes".into()]))
    );
    assert_eq!(d.answer.as_deref(), Some("lint, yes"));
    assert_eq!(
        d.default_value,
        Some(AnswerValue::List(vec!["tests".into()]))
    );
    assert_eq!(d.picked_options(), vec![0, 2]);
    assert!(!d.is_custom_answer());
    let d = one(
        "kind: number\nstatus: answered\nanswer: 0.5\ndefault: 3",
        "",
    );
    assert_eq!(d.value, Some(AnswerValue::Number(num(0.5))));
    assert_eq!(d.default_value, Some(AnswerValue::Number(num(3.0))));
    let d = one(
        "kind: boolean\nstatus: answered\nanswer: false\ndefault: true",
        "",
    );
    assert_eq!(d.value, Some(AnswerValue::Bool(false)));
    let d = one(
        "kind: edit\nstatus: answered\nanswer: \"rm -rf build/ \\n\"\nedited: true",
        PROPOSAL,
    );
    assert_eq!(d.value, Some(AnswerValue::Text("rm -rf build/ \n".into())));
    assert_eq!(d.edited, Some(true));
    let d = one("id: q\nstatus: answered\nanswer: lint", OPTIONS);
    assert_eq!(d.value, Some(AnswerValue::Text("lint".into())));
    assert_eq!(d.chosen_option(), Some(0));
}

#[test]
fn nonsense_kinds_are_diagnosed_with_their_line() {
    // The decision block starts on line 10 (heading on 8).
    for (keys, body, expected) in [
        (
            "kind: poll",
            "",
            "10: unknown kind `poll`: use choice, multi, text, number, boolean or edit",
        ),
        (
            "kind: multi\nmin: 4",
            OPTIONS,
            "11: `min: 4` is more than this decision offers (3 options)",
        ),
        (
            "kind: multi\nmax: 4",
            OPTIONS,
            "11: `max: 4` is more than this decision offers (3 options)",
        ),
        (
            "kind: multi\nmin: 2\nmax: 1",
            OPTIONS,
            "12: `max: 1` is less than `min: 2`",
        ),
        (
            "kind: multi\nmin: two",
            OPTIONS,
            "11: `min` must be a whole number of 0 or more, not `two`",
        ),
        (
            "kind: multi",
            "",
            "10: a multi decision needs an `**Options:**` list to pick from",
        ),
        (
            "kind: number\nminimum: 5\nmaximum: 1",
            "",
            "11: `minimum: 5` is more than `maximum: 1`",
        ),
        (
            "kind: number\nminimum: ten",
            "",
            "11: `minimum` must be a number (below 2^53 in size), not `ten`",
        ),
        (
            "kind: number\ninteger: yes",
            "",
            "11: `integer` must be true or false, not `yes`",
        ),
        (
            "kind: number\ninteger: true\nminimum: 1.2\nmaximum: 1.8",
            "",
            "12: no whole number lies between `minimum: 1.2` and `maximum: 1.8`",
        ),
        (
            "kind: number\nmaximum: 10\ndefault: 12",
            "",
            "12: `default: 12` does not fit this decision: 12 is out of range.",
        ),
        (
            "kind: number\ndefault: lots",
            "",
            "11: `default: lots` is not a number (this is a number decision)",
        ),
        (
            "kind: text\nmin_length: 5\nmax_length: 2",
            "",
            "11: `min_length: 5` is more than `max_length: 2`",
        ),
        (
            "kind: text\nformat: phone",
            "",
            "11: unknown text format `phone`: use email, uri, date or date-time",
        ),
        (
            "kind: text\nformat: date\ndefault: 2026-02-30",
            "",
            "12: `default: \"2026-02-30\"` does not fit this decision: `2026-02-30` is not a date.",
        ),
        (
            "kind: text\nmin: 2",
            "",
            "11: `min` does not apply to a text decision (it is a key of multi)",
        ),
        (
            "kind: text",
            OPTIONS,
            "10: a text decision has no `**Options:**` list: remove it, or use kind choice",
        ),
        (
            "kind: boolean\ndefault: maybe",
            "",
            "11: `default: maybe` must be true or false (this is a boolean decision)",
        ),
        (
            "kind: multi\ndefault: [lint, docs]",
            OPTIONS,
            "11: `default: [lint, docs]` does not fit this decision: `docs` is not one of the options.",
        ),
        (
            "kind: multi\nmin: 2\ndefault: [lint]",
            OPTIONS,
            "12: `default: [lint]` does not fit this decision: You picked 1 option.",
        ),
        (
            "kind: text\nanswer: [a, b]",
            "",
            "11: `answer`: expected a single value, found a list or a map",
        ),
        (
            "kind: edit",
            "",
            "10: an edit decision needs its proposal: a `**Proposal:**` line followed by a fenced code block",
        ),
        (
            "kind: edit",
            "**Proposal:** none\n\nJust text.\n",
            "12: `**Proposal:**` must be followed by a fenced code block (```) holding the proposal",
        ),
        (
            "kind: edit",
            "**Proposal:**\n```\nnever closed\n",
            "13: the proposal's code block is not closed: end it with a ``` line",
        ),
        (
            "kind: edit\nformat: json",
            "**Proposal:**\n```json\n{nope}\n```\n",
            "13: the proposal is not JSON (`format: json`): key must be a string at line 1 column 2",
        ),
        (
            "kind: edit\nformat: yaml",
            PROPOSAL,
            "11: unknown edit format `yaml`: an edit decision takes only `format: json`",
        ),
    ] {
        assert_eq!(diag(keys, body), expected, "{keys}");
    }
}

#[test]
fn plans_without_kinds_ignore_the_new_keys_as_before() {
    // `min` and `**Proposal:**` mean nothing to a plan that names no kind: kept as they are.
    let d = one(
        "min: 9\nformat: nonsense",
        "**Proposal:**\n```\nx\n```\n\n**Options:**\n- `a` — A\n",
    );
    assert_eq!(d.kind, Kind::Choice);
    assert!(d.context.contains("**Proposal:**"));
    assert_eq!(d.options.len(), 1);
}

fn edit(text: &str, e: &Edit) -> Result<String, EditError> {
    apply(text, "p", e, Some("93533553"), NOW)
}

fn value(decision: &str, value: AnswerValue, edited: Option<bool>) -> Edit {
    Edit::Value {
        decision: decision.into(),
        value,
        edited,
    }
}

/// The lines of `after` that are not in `before`.
fn new_lines(before: &str, after: &str) -> Vec<String> {
    let old: Vec<&str> = before.lines().collect();
    after
        .lines()
        .filter(|l| !old.contains(l))
        .map(str::to_owned)
        .collect()
}

#[test]
fn typed_answers_are_written_surgically_as_yaml_of_their_type() {
    let multi = plan_text(
        "id: checks\nkind: multi\nstatus: pending\nanswer: null",
        OPTIONS,
    );
    let after = edit(
        &multi,
        &value(
            "checks",
            AnswerValue::List(vec!["lint".into(), "yes".into()]),
            None,
        ),
    )
    .unwrap();
    assert_eq!(
        new_lines(&multi, &after),
        [
            "status: in_progress",
            "total: 1",
            "answered: 1",
            "remaining: 0",
            "updated_at: 2026-02-01T10:00:00Z",
            "status: answered",
            "answer: [lint, \"yes\"]",
            "answered_at: 2026-02-01T10:00:00Z",
            "answered_by: 93533553"
        ]
    );

    let number = plan_text("id: n\nkind: number\nmaximum: 10", "");
    for (x, written) in [
        (7.0, "answer: 7"),
        (0.5, "answer: 0.5"),
        (-0.0, "answer: 0"),
        (1e-7, "answer: 0.0000001"),
    ] {
        let after = edit(&number, &value("n", AnswerValue::Number(num(x)), None)).unwrap();
        assert!(after.contains(&format!("\n{written}\n")), "{after}");
    }
    let refused = edit(&number, &value("n", AnswerValue::Number(num(12.0)), None)).unwrap_err();
    assert_eq!(
        refused.to_string(),
        "12 is out of range. Send a number of at most 10."
    );
    assert!(refused.input_refusal().is_some());

    let boolean = plan_text("id: b\nkind: boolean", "");
    let after = edit(&boolean, &value("b", AnswerValue::Bool(false), None)).unwrap();
    assert!(after.contains("\nanswer: false\n"));

    let proposal = plan_text("id: e\nkind: edit", PROPOSAL);
    let edited = "rm -rf build/ dist/  \n\tand this\r\nline";
    let after = edit(
        &proposal,
        &value("e", AnswerValue::Text(edited.into()), Some(true)),
    )
    .unwrap();
    assert!(after.contains("\nanswer: \"rm -rf build/ dist/  \\n\\tand this\\r\\nline\"\nanswered_at: 2026-02-01T10:00:00Z\nansw"));
    let read = parse(&after, "p").unwrap();
    assert_eq!(
        read.decisions[0].value,
        Some(AnswerValue::Text(edited.into()))
    );
    assert_eq!(read.decisions[0].edited, Some(true));
    // Picking the option beside the proposal afterwards clears `edited`.
    let picked = edit(
        &after,
        &Edit::Answer {
            decision: "e".into(),
            key: "reject".into(),
            label: "Don't run it".into(),
        },
    )
    .unwrap();
    let read = parse(&picked, "p").unwrap();
    assert_eq!(
        (
            read.decisions[0].answer.as_deref(),
            read.decisions[0].edited
        ),
        (Some("reject"), None)
    );
}

#[test]
fn required_decisions_cannot_be_skipped_and_only_elicitations_decline() {
    let text = plan_text("id: r\nkind: boolean\nrequired: true", "");
    assert_eq!(
        edit(
            &text,
            &Edit::Skip {
                decision: "r".into()
            }
        )
        .unwrap_err(),
        EditError::Required {
            decision: "r".into()
        }
    );
    assert_eq!(
        edit(&text, &Edit::Decline).unwrap_err(),
        EditError::NotDeclinable
    );
    let text = text.replace("status: pending\n", "status: pending\nelicitation: true\n");
    let declined = edit(&text, &Edit::Decline).unwrap();
    let plan = parse(&declined, "p").unwrap();
    assert!(plan.declined());
    assert_eq!(plan.status, PlanStatus::Completed);
    assert!(declined.contains("\noutcome: declined\n"));
}

#[test]
fn the_deadline_gives_typed_defaults() {
    let text = format!(
        "---\nid: p\ncreated_at: 2026-02-01T09:00:00Z\ndeadline: 1m\non_deadline: submit\n---\n\n# P\n\n\
         ## A\n\nid: a\nkind: multi\ndefault: [tests, lint]\n\n{OPTIONS}\n\
         ## B\n\nid: b\nkind: number\ndefault: 2.5\n\n\
         ## C\n\nid: c\nkind: edit\ndefault: rm -rf dist/\n\n{PROPOSAL}"
    );
    let done = apply(&text, "p", &Edit::Deadline, Some("deadline"), NOW).unwrap();
    let plan = parse(&done, "p").unwrap();
    assert_eq!(plan.status, PlanStatus::Completed);
    assert_eq!(
        plan.decisions[0].value,
        Some(AnswerValue::List(vec!["tests".into(), "lint".into()]))
    );
    assert!(done.contains("\nanswer: [tests, lint]\n"));
    assert_eq!(plan.decisions[1].value, Some(AnswerValue::Number(num(2.5))));
    assert_eq!(
        plan.decisions[2].value,
        Some(AnswerValue::Text("rm -rf dist/".into()))
    );
    assert_eq!(plan.decisions[2].edited, Some(true));
}

/// How a YAML 1.1 or 1.2 reader reads `answer: {yaml}`: a list's items, or one scalar, each as (tag, text).
fn read_answer(yaml: &str, schema: Schema) -> Result<Vec<(&'static str, String)>, String> {
    if yaml.starts_with('[') {
        return Ok(flow_list(yaml, schema)?
            .into_iter()
            .map(|s| (s.tag, s.text))
            .collect());
    }
    let read = read_flat(&format!("answer: {yaml}\n"), schema)?;
    match read.first() {
        Some((_, yaml_readers::Node::Scalar(s))) => Ok(vec![(s.tag, s.text.clone())]),
        other => Err(format!("{other:?}")),
    }
}

fn arb_value() -> impl Strategy<Value = AnswerValue> {
    let key = prop_oneof![
        "[a-z][a-z0-9_-]{0,10}",
        Just("yes".to_owned()),
        Just("007".to_owned()),
        Just("1e3".to_owned()),
        Just("null".to_owned()),
        Just("~".to_owned()),
        Just("on".to_owned()),
        Just("a, b".to_owned()),
        Just("[x]".to_owned()),
        Just("k: v".to_owned()),
        Just("a:b".to_owned()),
        Just("#1".to_owned()),
        Just("2026-01-30".to_owned()),
        Just("12:30".to_owned()),
        "\\PC{1,12}",
    ];
    prop_oneof![
        "(\\PC|[\n\t\r ]){0,40}".prop_map(AnswerValue::Text),
        (-9_007_199_254_740_991i64..9_007_199_254_740_991).prop_map(|i| {
            #[allow(clippy::cast_precision_loss)]
            let x = i as f64;
            AnswerValue::Number(num(x))
        }),
        (-1e12f64..1e12).prop_map(|x| AnswerValue::Number(num(x))),
        (-1.0f64..1.0).prop_map(|x| AnswerValue::Number(num(x / 1e6))),
        any::<bool>().prop_map(AnswerValue::Bool),
        proptest::collection::vec(key, 0..6).prop_map(AnswerValue::List),
    ]
}

proptest! {
    /// Every typed value the writer produces reads back as the same type and value with the YAML 1.1 (PyYAML) and
    /// 1.2 core resolvers, and with the project's own reader.
    #[test]
    fn typed_values_read_back_the_same_in_yaml_1_1_and_1_2(v in arb_value()) {
        let yaml = v.yaml();
        for schema in [Schema::Yaml11, Schema::Yaml12Core] {
            let read = read_answer(&yaml, schema).map_err(|e| TestCaseError::fail(format!("{yaml}: {e}")))?;
            match &v {
                AnswerValue::Text(t) => prop_assert_eq!(&read, &vec![("str", t.clone())], "{}", yaml),
                AnswerValue::Bool(b) => prop_assert_eq!(&read, &vec![("bool", b.to_string())], "{}", yaml),
                AnswerValue::List(items) => {
                    let want: Vec<(&str, String)> = items.iter().map(|k| ("str", k.clone())).collect();
                    prop_assert_eq!(&read, &want, "{}", yaml);
                }
                AnswerValue::Number(n) => {
                    prop_assert_eq!(read.len(), 1);
                    let (tag, text) = &read[0];
                    let want = if n.is_integer() { "int" } else { "float" };
                    prop_assert_eq!(*tag, want, "{}", yaml);
                    prop_assert_eq!(text.parse::<f64>().ok(), Some(n.get()), "{}", yaml);
                }
            }
        }
        // The project's own reader, through a decision of the matching kind.
        let (keys, body) = match &v {
            AnswerValue::Text(_) => ("kind: text\nmax_length: 100000", ""),
            AnswerValue::Number(_) => ("kind: number", ""),
            AnswerValue::Bool(_) => ("kind: boolean", ""),
            AnswerValue::List(_) => ("kind: multi\nmin: 0", "**Options:**\n- `only` — Only\n"),
        };
        let text = plan_text(&format!("{keys}\nstatus: answered\nanswer: {yaml}"), body);
        let plan = parse(&text, "p").map_err(|e| TestCaseError::fail(format!("{yaml}: {e}")))?;
        let read = plan.decisions[0].value.clone();
        prop_assert_eq!(read, Some(v.clone()), "{}", yaml);
    }
}
