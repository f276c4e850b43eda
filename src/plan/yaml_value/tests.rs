use super::*;
use proptest::prelude::*;

use crate::plan::yaml_readers::{Schema, read_flat, resolve, top_str};

/// `s` as written after `key: `, read back by serde_yaml and by YAML 1.1 and 1.2 core-schema readers.
fn reads_back_everywhere(s: &str) -> Result<(), String> {
    let written = scalar(s);
    if written.contains(['\n', '\r']) {
        return Err(format!("{s:?} written on more than one line: {written}"));
    }
    let serde = read(&written)?;
    if serde.as_deref() != Some(s) {
        return Err(format!(
            "serde_yaml reads {written} as {serde:?}, not {s:?}"
        ));
    }
    for schema in [Schema::Yaml11, Schema::Yaml12Core] {
        let doc = read_flat(&format!("key: {written}\n"), schema)?;
        let back = top_str(&doc, "key").ok_or("no key")?;
        if back.as_str() != Some(s) {
            return Err(format!("{schema:?} reads {written} as {back:?}, not {s:?}"));
        }
    }
    Ok(())
}

#[test]
fn plain_when_certainly_a_string() {
    for s in [
        "jwt",
        "use redis please",
        "Use C#",
        "agent:swe2:main",
        "don't (yet), v2.1/beta+1 @home",
        "Привет мир",
        "_private",
        "yess",
        "Nope",
    ] {
        assert_eq!(scalar(s), s);
        reads_back_everywhere(s).unwrap();
    }
}

#[test]
fn quoted_when_any_yaml_reader_would_misread() {
    // Issue 17: the values seen written plain, then the older traps.
    for s in [
        "007",
        "yes",
        "no",
        "on",
        "off",
        "12:30",
        "1_000",
        "2026-01-30",
        "=",
        "<<",
        "Yes",
        "NO",
        "oN",
        "y",
        "N",
        "~",
        "null",
        "Null",
        "true",
        "FALSE",
        ".inf",
        ".NaN",
        "0x1F",
        "0o17",
        "+1",
        "-1",
        "1e3",
        "1.5",
        "2026-01-30T00:00:00Z",
        "a: b",
        "x #y",
        "'q",
        "\"q",
        " lead",
        "trail ",
        "a\nb",
        "",
        "-",
        "yes: no",
        "key:",
        "? x",
        "- x",
        "# x",
        "&a",
        "*a",
        "!tag",
        "|",
        ">",
        "%x",
        "@x",
        "`x",
        "[a]",
        "{a}",
        ",a",
        "a\tb",
        "C:\\x",
        "\u{feff}x",
        "x\u{2028}y",
        "\u{85}",
        "\u{fffe}",
        "😀",
    ] {
        let q = scalar(s);
        assert!(q.starts_with('"'), "{s:?} -> {q}");
        reads_back_everywhere(s).unwrap();
    }
}

#[test]
fn numbers_and_timestamps_the_project_writes() {
    assert_eq!(integer_or_scalar("93533553"), "93533553");
    assert_eq!(integer_or_scalar("007"), "\"007\"");
    assert_eq!(integer_or_scalar("deadline"), "deadline");
    assert_eq!(integer_or_scalar(""), "\"\"");
    for t in ["2026-01-30T00:00:00Z", "2026-01-30T01:02:03.5+02:00"] {
        assert_eq!(timestamp(t), t);
        assert_eq!(resolve(t, Schema::Yaml11), "timestamp");
        assert_eq!(read(t).unwrap().as_deref(), Some(t));
    }
    for not in [
        "2026-01-30",
        "2026-01-30T00:00:00",
        "2026-01-30T00:00:00.Z",
        "now",
        "2026-01-30 00:00:00Z",
    ] {
        assert_eq!(timestamp(not), scalar(not), "{not:?}");
    }
}

/// `read` as serde_yaml alone would read `v`.
fn read_by_serde(v: &str) -> Option<String> {
    match serde_yaml::from_str::<Value>(v).unwrap() {
        Value::Null => None,
        Value::String(s) => Some(s),
        Value::Bool(b) => Some(b.to_string()),
        Value::Number(n) => Some(n.to_string()),
        other => panic!("{other:?}"),
    }
}

/// `read` takes the fast path (`fast_yaml::value`) for the values a plan is made of and for YAML's traps that it
/// is sure of, declines the rest, and reads what serde_yaml reads either way. Each value says which path it
/// takes, so this fails if the fast path stops firing.
#[test]
fn read_agrees_with_yaml_on_either_path() {
    for (v, fast) in [
        ("", true),
        ("~", true),
        ("null", true),
        ("NULL", true),
        ("true", true),
        ("False", true),
        ("pending", true),
        ("answered", true),
        ("jwt", true),
        ("auth-strategy", true),
        ("q_1", true),
        ("a1-b2", true),
        ("0", true),
        ("42", true),
        ("93533553", true),
        ("2026-01-30T00:00:00Z", true),
        ("2026-01-30", true),
        ("2026-01-30T01:02:03.5+02:00", true),
        ("y", true),
        ("no", true),
        ("yes", true),
        ("\"use redis\"", true),
        ("007", false),
        ("1e5", false),
        ("0x10", false),
        (".inf", false),
        ("-1", false),
        ("\"a\\u00e9\"", false),
    ] {
        assert_eq!(
            super::super::fast_yaml::value(v).is_some(),
            fast,
            "{v:?} fast path"
        );
        assert_eq!(read(v).unwrap(), read_by_serde(v), "{v:?}");
    }
}

proptest! {
    #[test]
    fn any_string_reads_back_in_yaml_1_1_and_1_2(s in any::<String>()) {
        prop_assert_eq!(reads_back_everywhere(&s), Ok(()));
    }

    /// Strings made of what YAML's resolvers look for: digits, signs, `:`, `.`, `_`, and the special words.
    #[test]
    fn yaml_looking_strings_read_back_in_yaml_1_1_and_1_2(
        s in "[0-9yYnN:._+~=<#x -]{0,10}|((?i)y|n|yes|no|on|off|true|false|null|inf|nan)[.:0-9 ]{0,3}",
    ) {
        prop_assert_eq!(reads_back_everywhere(&s), Ok(()));
    }
}
