//! Writing values into `key: value` lines so that YAML reads back exactly the string that was written.

use serde_yaml::Value;

/// The YAML form of `s`: plain when YAML reads it back unchanged as a string, double-quoted otherwise.
#[must_use]
pub fn scalar(s: &str) -> String {
    if is_safe_plain(s) {
        s.to_owned()
    } else {
        double_quoted(s)
    }
}

fn is_safe_plain(s: &str) -> bool {
    let Some(first) = s.chars().next() else {
        return false;
    };
    if s.trim() != s || s.len() > 200 {
        return false;
    }
    if "-?:,[]{}#&*!|>'\"%@`".contains(first) {
        return false;
    }
    if s.contains(": ") || s.contains(" #") || s.ends_with(':') {
        return false;
    }
    if s.chars()
        .any(|c| c.is_control() || matches!(c, '\u{85}' | '\u{2028}' | '\u{2029}' | '\u{feff}'))
    {
        return false;
    }
    // Whatever YAML would read as null, a bool, a number or anything but this very string is quoted.
    matches!(serde_yaml::from_str::<Value>(s), Ok(Value::String(back)) if back == s)
}

/// `s` as a YAML double-quoted scalar on one line.
#[must_use]
pub fn double_quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\0' => out.push_str("\\0"),
            c if c.is_control() || matches!(c, '\u{85}' | '\u{2028}' | '\u{2029}' | '\u{feff}') => {
                out.push_str(&format!("\\u{:04x}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Reads one scalar value as written after `key:`; `None` for null or an empty value.
///
/// Numbers and booleans come back as their text, so `answer: 42` is the answer `"42"`.
pub fn read(value: &str) -> Result<Option<String>, String> {
    if let Some(fast) = read_plain(value) {
        return Ok(fast);
    }
    let parsed: Value = serde_yaml::from_str(value).map_err(|e| first_line(&e.to_string()))?;
    match parsed {
        Value::Null => Ok(None),
        Value::String(s) => Ok(Some(s)),
        Value::Bool(b) => Ok(Some(b.to_string())),
        Value::Number(n) => Ok(Some(n.to_string())),
        Value::Sequence(_) | Value::Mapping(_) | Value::Tagged(_) => {
            Err("expected a single value, found a list or a map".to_owned())
        }
    }
}

/// The common values (`null`, ids, keys, statuses, RFC 3339 timestamps, user ids) read without a YAML parser:
/// a plan has a few of them per decision and parsing is the daemon's start-up cost. `None` = not sure, ask YAML.
/// Each shape is one YAML 1.2 reads as exactly this text (tested against serde_yaml below).
fn read_plain(value: &str) -> Option<Option<String>> {
    match value {
        "" | "~" | "null" | "Null" | "NULL" => return Some(None),
        "true" | "True" | "TRUE" => return Some(Some("true".to_owned())),
        "false" | "False" | "FALSE" => return Some(Some("false".to_owned())),
        _ => {}
    }
    let bytes = value.as_bytes();
    let word = bytes[0].is_ascii_alphabetic()
        && bytes
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-'));
    let number = bytes.len() < 19
        && (value == "0" || (bytes[0] != b'0' && bytes.iter().all(u8::is_ascii_digit)));
    let timestamp = bytes.len() >= 10
        && bytes[..4].iter().all(u8::is_ascii_digit)
        && bytes[4] == b'-'
        && bytes
            .iter()
            .all(|b| b.is_ascii_digit() || matches!(b, b'-' | b':' | b'T' | b'Z' | b'.' | b'+'));
    (word || number || timestamp).then(|| Some(value.to_owned()))
}

fn first_line(s: &str) -> String {
    s.lines().next().unwrap_or(s).to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn plain_when_safe() {
        assert_eq!(scalar("jwt"), "jwt");
        assert_eq!(scalar("use redis please"), "use redis please");
        assert_eq!(scalar("2026-01-30T00:00:00Z"), "2026-01-30T00:00:00Z");
    }

    #[test]
    fn quoted_when_yaml_would_misread() {
        for s in [
            "null", "true", "~", "42", "a: b", "x #y", "'q", "\"q", " lead", "trail ", "a\nb", "",
            "-", "yes: no",
        ] {
            let q = scalar(s);
            assert!(q.starts_with('"'), "{s:?} -> {q}");
            assert_eq!(read(&q).unwrap().as_deref(), Some(s));
        }
    }

    #[test]
    fn the_fast_path_agrees_with_yaml() {
        for v in [
            "",
            "~",
            "null",
            "NULL",
            "true",
            "False",
            "jwt",
            "auth-strategy",
            "q_1",
            "a1-b2",
            "0",
            "42",
            "93533553",
            "007",
            "1e5",
            "0x10",
            "2026-01-30T00:00:00Z",
            "2026-01-30",
            "2026-01-30T01:02:03.5+02:00",
            "y",
            "no",
            ".inf",
            "-1",
            "yes",
        ] {
            let slow: Option<String> = match serde_yaml::from_str::<Value>(v).unwrap() {
                Value::Null => None,
                Value::String(s) => Some(s),
                Value::Bool(b) => Some(b.to_string()),
                Value::Number(n) => Some(n.to_string()),
                other => panic!("{other:?}"),
            };
            if let Some(fast) = read_plain(v) {
                assert_eq!(fast, slow, "{v:?}");
            }
        }
    }

    proptest! {
        #[test]
        fn fast_path_agrees_on_arbitrary_values(s in "[a-zA-Z0-9_:.+TZ-]{1,24}") {
            if let (Some(fast), Ok(parsed)) = (read_plain(&s), serde_yaml::from_str::<Value>(&s)) {
                let slow = match parsed {
                    Value::Null => None,
                    Value::String(x) => Some(x),
                    Value::Bool(b) => Some(b.to_string()),
                    Value::Number(n) => Some(n.to_string()),
                    _ => None,
                };
                prop_assert_eq!(fast, slow);
            }
        }

        #[test]
        fn round_trips(s in any::<String>()) {
            let written = scalar(&s);
            prop_assert!(!written.contains('\n'));
            prop_assert_eq!(read(&written).unwrap(), Some(s));
        }
    }
}
