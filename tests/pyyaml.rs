//! What Python agents read: notify files and completed plans loaded with PyYAML (YAML 1.1, the default YAML
//! reader of Python), through its pure-Python and its libyaml loader. Every answer must come back as exactly the
//! string the human gave, never `True`, `7`, a date, or an error. Skipped, with a message, when `python3` or PyYAML
//! is missing (`pip install pyyaml` to run them).

use std::path::Path;
use std::process::Command;

use arbiter_zebu::plan::yaml_value::scalar;
use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::TestRunner;
use serde_json::{Value, json};

use crate::support::TempQueue;
use crate::support::owner::Owner;

const NOW: &str = "2026-02-01T10:00:00Z";

/// Loads every file given with each PyYAML safe loader, and prints, per loader and file, the frontmatter and each
/// decision's `key: value` block (the lines after a `## ` heading, as an agent would read them) with every value
/// as `[type name, text]`, so that `True`, `7` or a date can't pass for a string.
const READ_WITH_PYYAML: &str = r###"
import json, re, sys, yaml

def typed(v):
    if isinstance(v, dict):
        return [[typed(k), typed(x)] for k, x in v.items()]
    return [type(v).__name__, v if isinstance(v, str) else repr(v)]

def read(text, loader):
    lines = text.split("\n")
    end = lines.index("---", 1)
    out = {"frontmatter": typed(yaml.load("\n".join(lines[1:end]), Loader=loader)), "decisions": []}
    block = None
    for line in lines[end + 1:] + [""]:
        if line.startswith("## "):
            block = []
        elif block is not None and re.match(r"^[a-z_][a-z0-9_]*:( |$)", line):
            block.append(line)
        elif block is not None and (block or line.strip()):
            out["decisions"].append(typed(yaml.load("\n".join(block), Loader=loader)))
            block = None
    return out

loaders = {"SafeLoader": yaml.SafeLoader}
if getattr(yaml, "CSafeLoader", None):
    loaders["CSafeLoader"] = yaml.CSafeLoader
result = {}
for name, loader in loaders.items():
    result[name] = [read(open(path, encoding="utf-8").read(), loader) for path in sys.argv[1:]]
print(json.dumps(result))
"###;

/// PyYAML's reading of `files`, or `None` (with a message) when it can't run here.
fn pyyaml(files: &[&Path]) -> Option<Value> {
    let probe = Command::new("python3").args(["-c", "import yaml"]).output();
    match probe {
        Ok(out) if out.status.success() => {}
        _ => {
            eprintln!("skipped: python3 with PyYAML is not available (pip install pyyaml)");
            return None;
        }
    }
    let out = Command::new("python3")
        .arg("-c")
        .arg(READ_WITH_PYYAML)
        .args(files)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "PyYAML could not read the files: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(serde_json::from_slice(&out.stdout).unwrap())
}

fn string(s: &str) -> Value {
    json!(["str", s])
}

/// The value of `key` in a mapping read as `[[key, value], …]`.
fn get<'a>(map: &'a Value, key: &str) -> &'a Value {
    map.as_array()
        .unwrap()
        .iter()
        .find(|kv| kv[0] == string(key))
        .map_or(&Value::Null, |kv| &kv[1])
}

/// Answers the human gives: option keys a tap records, and custom text.
const TAPPED: [&str; 4] = ["yes", "007", "on", "="];
const TYPED: [&str; 20] = [
    "12:30",
    "<<",
    "2026-01-30",
    "1_000",
    "~",
    "null",
    "'quoted'",
    "a: b",
    "# x",
    "no",
    "OFF",
    "Use C#",
    "1e3",
    ".inf",
    "Привет, мир — ✓ 😀",
    "line one\nline two: x\n- three",
    " padded ",
    "tab\there \"dq\" \\ back",
    "x\u{2028}y\u{85}z",
    "-",
];

/// A plan with one decision per answer: the tapped ones offer their answer as an option key, the typed ones are
/// free-text questions. Decision ids are hostile too (`yes`, `<<`, `007`…, quoted as an agent must).
fn hostile_plan() -> (String, Vec<(String, &'static str)>) {
    let mut text = String::from(
        "---\nid: py\ntitle: \"Use C#\"\nagent: \"on\"\nsession: \"12:30\"\nnotify_session: \"::\"\n---\n\n# Use C#\n\n",
    );
    let mut expected = Vec::new();
    for (n, answer) in TAPPED.iter().chain(&TYPED).enumerate() {
        let id = match n {
            0 => "yes".to_owned(),
            1 => "<<".to_owned(),
            2 => "007".to_owned(),
            3 => "2026-01-30".to_owned(),
            n => format!("d{n}"),
        };
        text.push_str(&format!(
            "## Decision {}: Question {n}\n\nid: {}\nallow_custom: true\n\n",
            n + 1,
            scalar(&id)
        ));
        if n < TAPPED.len() {
            text.push_str(&format!(
                "**Options:**\n- `{answer}` — Answer {n}\n- `other` — Other\n\n"
            ));
        }
        expected.push((id, *answer));
    }
    (text, expected)
}

#[test]
fn pyyaml_reads_every_answer_of_a_submitted_plan_as_the_exact_string() {
    let q = TempQueue::new();
    let (text, expected) = hostile_plan();
    q.drop_plan("py.md", &text);
    let owner = Owner::new(q.root()).at(NOW);
    for (n, (id, answer)) in expected.iter().enumerate() {
        if n < TAPPED.len() {
            owner.answer("py", id, answer);
        } else {
            owner.custom("py", id, answer);
        }
    }
    owner.submit("py");
    let notify = q.root().join("notify/_--py.md");
    let completed = q.files("completed");
    assert_eq!(completed.len(), 1, "{completed:?}");
    let plan_path = q.root().join("completed").join(&completed[0]);
    assert_eq!(q.files("notify"), ["_--py.md"]);
    let Some(read) = pyyaml(&[&notify, &plan_path]) else {
        return;
    };
    for (loader, files) in read.as_object().unwrap() {
        let [notify_file, completed] = files.as_array().unwrap().as_slice() else {
            panic!("{files}")
        };
        let fm = &notify_file["frontmatter"];
        assert_eq!(get(fm, "plan_title"), &string("Use C#"), "{loader}");
        assert_eq!(get(fm, "agent"), &string("on"), "{loader}");
        assert_eq!(get(fm, "session"), &string("12:30"), "{loader}");
        let answers = get(fm, "answers").as_array().unwrap();
        assert_eq!(answers.len(), expected.len(), "{loader}: {fm}");
        for (kv, (id, answer)) in answers.iter().zip(&expected) {
            assert_eq!(
                kv,
                &json!([string(id), string(answer)]),
                "{loader}: notify file"
            );
        }
        let decisions = completed["decisions"].as_array().unwrap();
        assert_eq!(decisions.len(), expected.len(), "{loader}: {completed}");
        for (block, (id, answer)) in decisions.iter().zip(&expected) {
            assert_eq!(get(block, "id"), &string(id), "{loader}: {block}");
            assert_eq!(get(block, "answer"), &string(answer), "{loader}: {block}");
            assert_eq!(
                get(block, "status"),
                &string("answered"),
                "{loader}: {block}"
            );
        }
        assert_eq!(get(&completed["frontmatter"], "title"), &string("Use C#"));
    }
}

#[test]
fn pyyaml_reads_every_written_string_back() {
    // Two thousand strings, the same every run: arbitrary text and strings made of what YAML's resolvers look for.
    let strategy = proptest::prop_oneof![
        proptest::arbitrary::any::<String>(),
        "[0-9yYnN:._+~=<#x -]{0,10}",
        "(?i)(y|n|yes|no|on|off|true|false|null|inf|nan)[.:0-9 ]{0,3}",
        "[a-zA-Z_][a-zA-Z0-9 _./,'()+@:#-]{0,12}",
    ];
    let mut runner = TestRunner::deterministic();
    let strings: Vec<String> = (0..2000)
        .map(|_| strategy.new_tree(&mut runner).unwrap().current())
        .collect();
    let mut doc = String::from("---\n");
    for (i, s) in strings.iter().enumerate() {
        doc.push_str(&format!("k{i}: {}\n", scalar(s)));
    }
    doc.push_str("---\n");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("strings.md");
    std::fs::write(&path, &doc).unwrap();
    let Some(read) = pyyaml(&[&path]) else {
        return;
    };
    for (loader, files) in read.as_object().unwrap() {
        let fm = &files[0]["frontmatter"];
        for (i, s) in strings.iter().enumerate() {
            assert_eq!(
                get(fm, &format!("k{i}")),
                &string(s),
                "{loader}: {s:?} written as {}",
                scalar(s)
            );
        }
    }
}

/// Loads each file given (a YAML document per file) with each PyYAML safe loader and prints every value as JSON,
/// a boolean as a boolean, a list as a list, and a number as `{"int": text}` or `{"float": repr}` (exact, not
/// through a JSON float); a date or anything JSON can't hold fails.
const READ_TYPED_WITH_PYYAML: &str = r###"
import json, sys, yaml
def enc(v):
    if isinstance(v, bool) or v is None or isinstance(v, str):
        return v
    if isinstance(v, float):
        return {"float": repr(v)}
    if isinstance(v, int):
        return {"int": str(v)}
    if isinstance(v, list):
        return [enc(x) for x in v]
    if isinstance(v, dict):
        return {k: enc(x) for k, x in v.items()}
    raise TypeError(type(v).__name__)
loaders = {"SafeLoader": yaml.SafeLoader}
if getattr(yaml, "CSafeLoader", None):
    loaders["CSafeLoader"] = yaml.CSafeLoader
print(json.dumps({name: [enc(yaml.load(open(p, encoding="utf-8").read(), Loader=l)) for p in sys.argv[1:]]
                  for name, l in loaders.items()}))
"###;

/// Every typed answer the writer produces (hostile list keys, numbers, booleans, byte-exact text) reads back in
/// PyYAML as the same type and value: one `answer:` line per value, as the plan file holds it.
#[test]
fn pyyaml_reads_typed_answers_as_their_type_and_value() {
    use arbiter_zebu::plan::{AnswerValue, Number};
    let probe = Command::new("python3").args(["-c", "import yaml"]).output();
    if !probe.is_ok_and(|o| o.status.success()) {
        eprintln!("skipped: python3 with PyYAML is not available (pip install pyyaml)");
        return;
    }
    let keys = [
        "lint",
        "yes",
        "007",
        "1e3",
        "null",
        "~",
        "on",
        "Off",
        "a, b",
        "[x]",
        "k: v",
        "a:b",
        "#1",
        "2026-01-30",
        "12:30",
        "<<",
        "=",
        "-",
        "",
        " lead",
        "tab\there",
        "ünï",
        "'q'",
        "\"d\"",
    ];
    let n = |x: f64| AnswerValue::Number(Number::new(x).unwrap());
    let mut values = vec![
        AnswerValue::List(keys.iter().map(|k| (*k).to_owned()).collect()),
        AnswerValue::List(Vec::new()),
        n(0.0),
        n(-0.0),
        n(7.0),
        n(-42.0),
        n(0.1),
        n(1e-7),
        n(123_456.789),
        n(9_007_199_254_740_991.0),
        AnswerValue::Bool(true),
        AnswerValue::Bool(false),
        AnswerValue::Text("rm -rf build/ \n\tsecond line  \r\nthird\u{2028}".into()),
        AnswerValue::Text("yes".into()),
        AnswerValue::Text("1e3".into()),
        AnswerValue::Text(String::new()),
    ];
    let mut runner = TestRunner::deterministic();
    let text = "(\\PC|[\n\t\r ]){0,30}";
    for _ in 0..100 {
        values.push(AnswerValue::Text(
            text.new_tree(&mut runner).unwrap().current(),
        ));
        let key = "\\PC{1,8}".new_tree(&mut runner).unwrap().current();
        values.push(AnswerValue::List(vec![key, "x".into()]));
        let x = (-1e9f64..1e9).new_tree(&mut runner).unwrap().current();
        values.push(n(x));
    }
    let dir = tempfile::tempdir().unwrap();
    let paths: Vec<std::path::PathBuf> = values
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let path = dir.path().join(format!("{i}.yaml"));
            std::fs::write(&path, format!("answer: {}\n", v.yaml())).unwrap();
            path
        })
        .collect();
    let out = Command::new("python3")
        .arg("-c")
        .arg(READ_TYPED_WITH_PYYAML)
        .args(&paths)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let read: Value = serde_json::from_slice(&out.stdout).unwrap();
    for (loader, docs) in read.as_object().unwrap() {
        for (v, doc) in values.iter().zip(docs.as_array().unwrap()) {
            let got = &doc["answer"];
            match v {
                AnswerValue::Number(x) => {
                    let tag = if x.is_integer() { "int" } else { "float" };
                    let text = got[tag]
                        .as_str()
                        .unwrap_or_else(|| panic!("{loader}: {} read as {got}", v.yaml()));
                    assert_eq!(
                        text.parse::<f64>().ok(),
                        Some(x.get()),
                        "{loader}: {}",
                        v.yaml()
                    );
                }
                other => assert_eq!(got, &other.to_json(), "{loader}: {}", v.yaml()),
            }
        }
    }
}
