//! The fast path against serde_yaml: whatever it reads, serde_yaml reads the same; and it does fire (each test
//! below that checks agreement also counts the inputs the fast path took, so a fast path that always declined
//! would fail them).

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, TestRunner};

use super::*;

/// serde_yaml's reading of a whole text.
fn serde(text: &str) -> Result<Value, String> {
    serde_yaml::from_str::<Value>(text).map_err(|e| e.to_string())
}

/// `Ok(true)` when the fast path read `raw` and serde_yaml agrees, `Ok(false)` when it declined.
fn value_agrees(raw: &str) -> Result<bool, String> {
    let Some(fast) = value(raw) else {
        return Ok(false);
    };
    match serde(raw) {
        Ok(slow) if slow == fast => Ok(true),
        slow => Err(format!("{raw:?}: fast {fast:?}, serde_yaml {slow:?}")),
    }
}

/// Same for a block of lines read as a mapping.
fn mapping_agrees(lines: &[&str]) -> Result<bool, String> {
    let Some(fast) = mapping(lines) else {
        return Ok(false);
    };
    let text = lines.concat();
    match serde(&text) {
        Ok(Value::Mapping(slow)) if slow == fast => Ok(true),
        slow => Err(format!("{text:?}: fast {fast:?}, serde_yaml {slow:?}")),
    }
}

fn string(s: &str) -> Value {
    Value::String(s.to_owned())
}

#[test]
fn reads_the_values_plans_are_made_of() {
    for (raw, want) in [
        ("", Value::Null),
        ("~", Value::Null),
        ("null", Value::Null),
        ("NULL", Value::Null),
        ("null  # not yet", Value::Null),
        ("   # only a comment", Value::Null),
        ("true", Value::Bool(true)),
        ("False", Value::Bool(false)),
        ("0", Value::Number(0u64.into())),
        ("93533553", Value::Number(93_533_553u64.into())),
        ("jwt", string("jwt")),
        ("auth-strategy", string("auth-strategy")),
        ("q_1", string("q_1")),
        ("pending", string("pending")),
        ("yes", string("yes")),
        ("Off", string("Off")),
        ("y", string("y")),
        ("4h", string("4h")),
        ("1h30m", string("1h30m")),
        ("1_000", string("1_000")),
        ("12:30", string("12:30")),
        ("2026-01-30", string("2026-01-30")),
        ("2026-01-30T01:30:00Z", string("2026-01-30T01:30:00Z")),
        (
            "2026-01-30T01:02:03.5+02:00",
            string("2026-01-30T01:02:03.5+02:00"),
        ),
        (
            "agent:swe2:main   # Optional: who to notify",
            string("agent:swe2:main"),
        ),
        ("normal           # low | normal", string("normal")),
        ("Use C#", string("Use C#")),
        (
            "don't (yet), v2.1/beta+1 @home",
            string("don't (yet), v2.1/beta+1 @home"),
        ),
        ("Привет мир", string("Привет мир")),
        ("trailing   ", string("trailing")),
        ("\"API Design Decisions\"", string("API Design Decisions")),
        ("\"a # b: c\"  # comment", string("a # b: c")),
        ("\"007\"", string("007")),
        ("\"\"", string("")),
        ("'it is'", string("it is")),
        ("'yes'", string("yes")),
    ] {
        assert_eq!(value(raw), Some(want), "{raw:?}");
        assert_eq!(value_agrees(raw), Ok(true), "{raw:?}");
    }
}

#[test]
fn declines_what_it_is_not_certain_of() {
    for raw in [
        "007",
        "-1",
        "+1",
        "1.5",
        "1e5",
        "1E5",
        "0x1F",
        "0o17",
        "0b101",
        ".inf",
        "inf",
        "NaN",
        "infinity",
        "123456789012345678901234",
        "a: b",
        "key:",
        "- x",
        "? x",
        "&a x",
        "*a",
        "!tag x",
        "|",
        ">",
        "[a, b]",
        "{a: b}",
        "%x",
        "@x",
        "`x",
        "a\tb",
        "\tx",
        "\"a\\nb\"",
        "\"unterminated",
        "\"a\"b",
        "\"a\"#c",
        "'it''s'",
        "'a'b",
        "x\u{feff}",
        "x\u{85}y",
        "x\u{2028}y",
        "\u{1}",
        "a\u{a0}",
        "a;b",
        "a=b",
    ] {
        assert_eq!(value(raw), None, "{raw:?}");
    }
}

#[test]
fn reads_the_example_frontmatter() {
    let text = include_str!("../../../tests/fixtures/spec-example.md");
    let all = lines::split(text);
    let close = all
        .iter()
        .skip(1)
        .position(|l| l.starts_with("---"))
        .unwrap()
        + 1;
    let block = &all[1..close];
    assert_eq!(mapping_agrees(block), Ok(true));
    let m = mapping(block).unwrap();
    assert_eq!(m.get("title"), Some(&string("API Design Decisions")));
    assert_eq!(m.get("version"), Some(&Value::Number(1u64.into())));
    assert_eq!(m.get("completed_at"), Some(&Value::Null));
    assert_eq!(m.get("notify_session"), Some(&string("agent:swe2:main")));
    assert_eq!(m.len(), 15);
}

#[test]
fn mapping_declines_blocks_it_is_not_certain_of() {
    for block in [
        &["a: 1\n", "a: 2\n"][..],
        &["approvers:\n", "  - alice\n"],
        &["approvers:\n", "- alice\n"],
        &["a: [1, 2]\n"],
        &["a: {b: c}\n"],
        &["? a\n", ": b\n"],
        &["\"a\": b\n"],
        &["A: b\n"],
        &["null: b\n"],
        &["true: b\n"],
        &["inf: b\n"],
        &["a:b\n"],
        &["a :b\n"],
        &["a:\tb\n"],
        &["a: &x b\n"],
        &["a: b\n", "  c\n"],
        &["a: |\n", "  text\n"],
        &["%YAML 1.2\n"],
        &["# only comments\n"],
        &[],
    ] {
        assert_eq!(mapping(block), None, "{block:?}");
    }
    // Blank lines, comment lines and CRLF endings are fine.
    let block = ["# who\r\n", "\r\n", "a: b\r\n", "   \r\n", "c: 1"];
    assert_eq!(mapping_agrees(&block), Ok(true));
}

/// Values built from YAML's traps: the words YAML 1.1 and 1.2 resolve, numbers and dates of every shape, `: `
/// and `#` inside, comments, trailing spaces, tabs, quotes, escapes, unicode.
fn hostile_value() -> impl Strategy<Value = String> {
    let word = prop::sample::select(vec![
        "y",
        "Y",
        "n",
        "yes",
        "Yes",
        "YES",
        "no",
        "No",
        "on",
        "On",
        "ON",
        "off",
        "Off",
        "true",
        "True",
        "TRUE",
        "tRUE",
        "false",
        "FALSE",
        "null",
        "Null",
        "NULL",
        "nULL",
        "~",
        "inf",
        "Inf",
        ".inf",
        "-.inf",
        ".nan",
        "nan",
        "NaN",
        "infinity",
        "<<",
        "=",
        "0",
        "00",
        "007",
        "-0",
        "+1",
        "-1",
        "1.5",
        "1.",
        ".5",
        "1e5",
        "1E+5",
        "0x1F",
        "0o17",
        "0b11",
        "0x",
        "1_000",
        "12:30",
        "2026-01-30",
        "2026-01-30T01:30:00Z",
        "2026-1-3",
        "18446744073709551615",
        "18446744073709551616",
        "99999999999999999999",
        "jwt",
        "auth-strategy",
        "agent:ceo:main",
        "Use C#",
        "C:\\x",
        "a: b",
        "a:b",
        "a :b",
        "key:",
        "#x",
        " #x",
        "x #y",
        "x#y",
        "'q'",
        "'it''s'",
        "\"q\"",
        "\"a\\nb\"",
        "\"a # b\"",
        "\"",
        "'",
        "- x",
        "-x",
        "? x",
        "?x",
        ":x",
        "&a",
        "*a",
        "!t",
        "!!str 1",
        "|",
        ">",
        "[a]",
        "{a}",
        "a,b",
        "%x",
        "@x",
        "`x",
        "Привет",
        "😀",
        "é",
        "\u{a0}",
        "\u{feff}",
        "\t",
        " ",
        "  ",
        "(x)",
        "a/b",
        "a.b",
        "a+b",
        "_x",
    ]);
    (
        prop::collection::vec(word, 1..4),
        prop::sample::select(vec![
            "", " ", "  ", "\t", " # c", "  # c: d", "\t# c", " #", "#",
        ]),
    )
        .prop_map(|(words, tail)| {
            let mut s = String::new();
            for w in words {
                s.push_str(w);
            }
            s.push_str(tail);
            s
        })
}

fn hostile_key() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z_][a-z0-9_]{0,10}",
        prop::sample::select(vec![
            "id", "title", "null", "true", "false", "yes", "on", "y", "inf", "nan", "A", "Key",
            "a b", "a-b", "1", "_", "~", "\"q\"", "? k", "- k", "<<",
        ])
        .prop_map(str::to_owned),
    ]
}

fn hostile_line() -> impl Strategy<Value = String> {
    prop_oneof![
        // Lines of the shapes plans hold, so that whole blocks are often read fast.
        8 => (
            "[a-z_][a-z0-9_]{0,8}",
            prop::sample::select(vec![
                "null", "", "jwt", "pending", "2026-01-30T01:30:00Z", "42", "\"API Design\"", "yes",
                "agent:ceo:main   # who", "true", "'q'", "Use C#",
            ]),
        )
            .prop_map(|(k, v)| format!("{k}: {v}")),
        4 => (
            hostile_key(),
            prop::sample::select(vec![": ", ":", ":  ", ":\t", " : ", "::"]),
            hostile_value(),
        )
            .prop_map(|(k, sep, v)| format!("{k}{sep}{v}")),
        1 => prop::sample::select(vec![
            "", "   ", "# comment", "#", "  # indented comment", "  - item", "- item", "  nested: x",
            "? k", ": v", "---", "...", "%YAML 1.2", "a: [1, 2]", "a: {b: c}", "a: |", "\t",
        ])
        .prop_map(str::to_owned),
    ]
}

fn hostile_block() -> impl Strategy<Value = (Vec<String>, bool)> {
    (prop::collection::vec(hostile_line(), 1..8), any::<bool>())
}

fn lines_of(lines: &[String], crlf: bool) -> Vec<String> {
    let end = if crlf { "\r\n" } else { "\n" };
    lines.iter().map(|l| format!("{l}{end}")).collect()
}

proptest! {
    #![proptest_config(Config::with_cases(2000))]

    #[test]
    fn a_value_read_fast_is_what_serde_yaml_reads(raw in hostile_value()) {
        prop_assert_eq!(value_agrees(&raw).map(|_| ()), Ok(()));
    }

    #[test]
    fn any_value_read_fast_is_what_serde_yaml_reads(raw in any::<String>()) {
        prop_assert_eq!(value_agrees(&raw).map(|_| ()), Ok(()));
    }

    #[test]
    fn a_block_read_fast_is_what_serde_yaml_reads((lines, crlf) in hostile_block()) {
        let lines = lines_of(&lines, crlf);
        let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
        prop_assert_eq!(mapping_agrees(&refs).map(|_| ()), Ok(()));
    }
}

/// Runs `agrees` on `cases` generated inputs; returns how many the fast path read (every one must agree).
fn fired<T: std::fmt::Debug>(
    strategy: impl Strategy<Value = T>,
    cases: usize,
    agrees: impl Fn(&T) -> Result<bool, String>,
) -> usize {
    let mut runner = TestRunner::deterministic();
    let mut fired = 0;
    for _ in 0..cases {
        let input = strategy.new_tree(&mut runner).unwrap().current();
        if agrees(&input).unwrap() {
            fired += 1;
        }
    }
    fired
}

/// The agreement properties above would pass if the fast path never fired: here it must take a fair share of
/// the hostile inputs (and decline a fair share too, or the generators would not be hostile).
#[test]
fn the_fast_path_fires_on_the_generated_inputs() {
    let n = 2000;
    let values = fired(hostile_value(), n, |raw| value_agrees(raw));
    assert!(values > n / 10 && values < n * 9 / 10, "{values} of {n}");
    let blocks = fired(hostile_block(), n, |(lines, crlf)| {
        let lines = lines_of(lines, *crlf);
        let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
        mapping_agrees(&refs)
    });
    assert!(blocks > n / 20 && blocks < n * 9 / 10, "{blocks} of {n}");
}

/// Every fixture's frontmatter: read fast only as serde_yaml reads it.
#[test]
fn the_fixtures_frontmatter_agrees() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut read = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let all = lines::split(&text);
        if all.first().is_none_or(|l| lines::content(l) != "---") {
            continue;
        }
        let Some(close) = all.iter().skip(1).position(|l| lines::content(l) == "---") else {
            continue;
        };
        if mapping_agrees(&all[1..=close]).unwrap_or_else(|e| panic!("{}: {e}", path.display())) {
            read += 1;
        }
    }
    assert!(read > 0, "no fixture's frontmatter was read fast");
}
