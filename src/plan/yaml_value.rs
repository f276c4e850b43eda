//! Writing values into `key: value` lines so that YAML reads back exactly the value that was written, and the
//! one reader of such values.
//!
//! Agents read plans and notify files with their own language's YAML library: YAML 1.2 ones (serde_yaml, Go's
//! yaml.v3, js-yaml 4) and YAML 1.1 ones (PyYAML, the default of Python agents, reads `yes` and `on` as `True`,
//! `12:30` as 750, `2026-01-30` as a date and refuses a file holding `=` or `<<`). So a string is written plain
//! only when its shape is on an allow-list that no YAML 1.1 or 1.2 resolver takes for anything but a string, and
//! double-quoted otherwise. Quoting more is always safe; every writer of a value goes through this module.

use serde_yaml::Value;

/// Longest string written plain: longer text reads better quoted.
const MAX_PLAIN: usize = 200;

/// The punctuation a plain string may hold after its first character, besides letters, digits and spaces.
/// `:` only when no space follows it and `#` only when no space precedes it (see [`is_plain_string`]).
const PLAIN_PUNCTUATION: &str = "_-./,'()+@:#";

/// The words YAML 1.1 reads as a bool or null (`y|Y|yes|Yes|YES|n|…|on|…|off|…`, `null`), and YAML 1.2 as a bool
/// or null (`true`, `false`, `null`): quoted in any case of letters.
const SPECIAL_WORDS: [&str; 9] = ["y", "n", "yes", "no", "on", "off", "true", "false", "null"];

/// `s` as a YAML string: plain when every YAML 1.1 and 1.2 reader reads it as exactly this string, double-quoted
/// otherwise. For answers, notes, ids, titles, sessions: any value that is text.
#[must_use]
pub fn scalar(s: &str) -> String {
    if is_plain_string(s) {
        s.to_owned()
    } else {
        double_quoted(s)
    }
}

/// `s` as an item of a YAML flow list (`[lint, tests]`): plain when [`scalar`] would write it plain and it holds
/// none of the characters a flow collection gives a meaning to (`,`, `[`, `]`, `{`, `}`, and `:`, `#`, which
/// PyYAML refuses or reads differently inside one), double-quoted otherwise.
#[must_use]
pub fn flow_item(s: &str) -> String {
    if is_plain_string(s) && !s.contains([',', '[', ']', '{', '}', ':', '#']) {
        s.to_owned()
    } else {
        double_quoted(s)
    }
}

/// `s` as a YAML integer when it is a decimal number every YAML reader takes for exactly this number (a Telegram
/// user id reads better as the number it is), else as the string [`scalar`] writes.
#[must_use]
pub fn integer_or_scalar(s: &str) -> String {
    let decimal =
        (1..19).contains(&s.len()) && !s.starts_with('0') && s.bytes().all(|b| b.is_ascii_digit());
    if decimal { s.to_owned() } else { scalar(s) }
}

/// `s` plain when it is an RFC 3339 date and time (`2026-01-30T01:45:00Z`, with an optional fraction and an
/// offset): the timestamps the project writes (docs/file-format.md). YAML 1.1 readers take it for a
/// timestamp (PyYAML: a `datetime`), YAML 1.2 readers for this string: the same time either way. Anything else is
/// written as the string [`scalar`] writes.
#[must_use]
pub fn timestamp(s: &str) -> String {
    if is_rfc3339(s) {
        s.to_owned()
    } else {
        scalar(s)
    }
}

/// The allow-list: a letter or `_` first (no YAML number, date, null, merge `<<` or value `=` starts so), then only
/// letters, digits, spaces and [`PLAIN_PUNCTUATION`]; no `: ` (a mapping), no ` #` (a comment), no `:` or space at
/// the end; not one of [`SPECIAL_WORDS`]. Nothing else is needed to know it is a string in YAML 1.1 and 1.2.
fn is_plain_string(s: &str) -> bool {
    let Some(first) = s.chars().next() else {
        return false;
    };
    s.len() <= MAX_PLAIN
        && (first.is_alphabetic() || first == '_')
        && s.chars()
            .all(|c| c.is_alphanumeric() || c == ' ' || PLAIN_PUNCTUATION.contains(c))
        && !s.contains(": ")
        && !s.contains(" #")
        && !s.ends_with([':', ' '])
        && !SPECIAL_WORDS.iter().any(|w| s.eq_ignore_ascii_case(w))
}

/// `YYYY-MM-DDTHH:MM:SS`, an optional `.` fraction, then `Z` or `±HH:MM`.
fn is_rfc3339(s: &str) -> bool {
    let b = s.as_bytes();
    let digits =
        |r: std::ops::Range<usize>| b.get(r).is_some_and(|d| d.iter().all(u8::is_ascii_digit));
    let head = b.len() >= 20
        && digits(0..4)
        && b[4] == b'-'
        && digits(5..7)
        && b[7] == b'-'
        && digits(8..10)
        && b[10] == b'T'
        && digits(11..13)
        && b[13] == b':'
        && digits(14..16)
        && b[16] == b':'
        && digits(17..19);
    if !head {
        return false;
    }
    let mut rest = &s[19..];
    if let Some(fraction) = rest.strip_prefix('.') {
        let n = fraction.len()
            - fraction
                .trim_start_matches(|c: char| c.is_ascii_digit())
                .len();
        if n == 0 {
            return false;
        }
        rest = &fraction[n..];
    }
    let z = rest.as_bytes();
    rest == "Z"
        || (z.len() == 6
            && matches!(z[0], b'+' | b'-')
            && z[1..3].iter().all(u8::is_ascii_digit)
            && z[3] == b':'
            && z[4..6].iter().all(u8::is_ascii_digit))
}

/// `s` as a YAML double-quoted scalar on one line. Every character a YAML reader refuses in a stream (controls,
/// U+FFFE, U+FFFF), takes for a line break (U+0085, U+2028, U+2029) or a byte order mark is escaped.
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
            c if !printable(c) => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The characters YAML 1.1 and 1.2 allow in a stream (`c-printable`), less the byte order mark and the
/// characters YAML takes for a line break.
fn printable(c: char) -> bool {
    matches!(c, '\u{20}'..='\u{7e}' | '\u{a0}'..='\u{d7ff}' | '\u{e000}'..='\u{fffd}' | '\u{10000}'..)
        && !matches!(c, '\u{2028}' | '\u{2029}' | '\u{feff}')
}

/// Reads one scalar value as written after `key:`; `None` for null or an empty value.
///
/// Numbers and booleans come back as their text, so `answer: 42` is the answer `"42"`.
pub fn read(value: &str) -> Result<Option<String>, String> {
    // The common values (nulls, ids, keys, statuses, timestamps, user ids, quoted text) are read without a YAML
    // parser, exactly as serde_yaml reads them: a plan has a few of them per decision.
    let parsed = match super::fast_yaml::value(value) {
        Some(v) => v,
        None => serde_yaml::from_str(value).map_err(|e| first_line(&e.to_string()))?,
    };
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

/// Reads a value written after `key:` that may be a flow list of scalars (`[lint, "yes"]`): `Ok(Some(items))`
/// for such a list (each item's text as [`read`] gives it; a null item is refused), `Ok(None)` for anything that
/// is not a list (read it with [`read`]).
pub fn read_list(value: &str) -> Result<Option<Vec<String>>, String> {
    let t = value.trim_start();
    if !t.starts_with('[') {
        return Ok(None);
    }
    let parsed: Value = serde_yaml::from_str(value).map_err(|e| first_line(&e.to_string()))?;
    let Value::Sequence(items) = parsed else {
        return Ok(None);
    };
    items
        .into_iter()
        .map(|item| match item {
            Value::String(s) => Ok(s),
            Value::Bool(b) => Ok(b.to_string()),
            Value::Number(n) => Ok(n.to_string()),
            Value::Null => Err("a list item is null".to_owned()),
            Value::Sequence(_) | Value::Mapping(_) | Value::Tagged(_) => {
                Err("a list item is itself a list or a map".to_owned())
            }
        })
        .collect::<Result<Vec<_>, _>>()
        .map(Some)
}

fn first_line(s: &str) -> String {
    s.lines().next().unwrap_or(s).to_owned()
}

#[cfg(test)]
mod tests;
