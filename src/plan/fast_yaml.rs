//! A fast path for reading the YAML that plans are made of, without giving up serde_yaml's verdict.
//!
//! Parsing a plan is the daemon's start-up cost, and most of a small plan's parse time was serde_yaml reading a
//! frontmatter of `key: value` lines. This module reads only shapes it is certain of, exactly as serde_yaml reads
//! them, and says `None` (not sure) for anything else, which then goes to serde_yaml as before:
//!
//! - a line is blank, a `# comment`, or `key: value` with a lowercase key (`[a-z_][a-z0-9_]*`) at the start of
//!   the line; any other line (indented, a list item, a flow collection, a directive, …) declines the whole block;
//! - a value is empty or `null`-like, a plain scalar of an allow-listed shape, a double-quoted string without
//!   escapes, or a single-quoted string without `''`, each optionally followed by spaces and a `# comment`;
//! - a plain scalar resolves like serde_yaml: `~`/`null`, `true`/`false` (three spellings each), a decimal
//!   integer without a leading zero, else a string only when neither an integer nor a float reading exists;
//! - no tabs, no characters YAML refuses or takes for a break, no duplicate keys.
//!
//! Property tests check that whatever this module reads, serde_yaml reads the same (`fast_yaml/tests.rs`).

use serde_yaml::{Mapping, Number, Value};

use super::lines;

/// Longest key read here (YAML limits implicit keys to 1024 characters; plans use short ones).
const MAX_KEY: usize = 128;

/// The `key: value` lines of a frontmatter (each with or without its ending) as serde_yaml reads them into a
/// mapping, or `None` when a line is not a shape this module is certain of (or there is no key at all).
#[must_use]
pub fn mapping(block: &[&str]) -> Option<Mapping> {
    let mut map = Mapping::with_capacity(block.len());
    for line in block {
        let c = lines::content(line);
        if !c.chars().all(safe_char) {
            return None;
        }
        if c.bytes().all(|b| b == b' ') || c.starts_with('#') {
            continue;
        }
        let colon = c.find(':')?;
        let key = &c[..colon];
        let rest = &c[colon + 1..];
        if !is_key(key) || !(rest.is_empty() || rest.starts_with(' ')) {
            return None;
        }
        let value = after_key(rest)?;
        let key = Value::String(key.to_owned());
        if map.contains_key(&key) {
            return None;
        }
        map.insert(key, value);
    }
    (!map.is_empty()).then_some(map)
}

/// One value as written after `key:` (leading and trailing spaces allowed, a `# comment` too), read as serde_yaml
/// reads that text as a document, or `None` when not certain.
#[must_use]
pub fn value(raw: &str) -> Option<Value> {
    if !raw.chars().all(safe_char) {
        return None;
    }
    after_key(raw)
}

/// What follows `key:` on a line whose characters are all [`safe_char`].
fn after_key(rest: &str) -> Option<Value> {
    let v = rest.trim_start_matches(' ');
    if v.is_empty() {
        return Some(Value::Null);
    }
    if v.starts_with('#') {
        // A comment needs white space before it; `key:#x` and a bare `#x` document are not this.
        return (v.len() < rest.len()).then_some(Value::Null);
    }
    match v.as_bytes()[0] {
        b'"' => quoted(v, '"', |c| c != '\\'),
        b'\'' => quoted(v, '\'', |_| true),
        _ => {
            let plain = match v.find(" #") {
                Some(at) => &v[..at],
                None => v,
            };
            resolve_plain(plain.trim_end_matches(' '))
        }
    }
}

/// A quoted string on one line: the text between the quotes when it holds only `allowed` characters (and no
/// doubled `''` in a single-quoted one), and nothing but spaces or a comment follows.
fn quoted(v: &str, quote: char, allowed: impl Fn(char) -> bool) -> Option<Value> {
    let body = &v[1..];
    let close = body.find(quote)?;
    let text = &body[..close];
    let after = &body[close + 1..];
    if after.starts_with(quote) || !text.chars().all(allowed) || !ends_cleanly(after) {
        return None;
    }
    Some(Value::String(text.to_owned()))
}

/// Nothing, spaces, or spaces then a `# comment`.
fn ends_cleanly(after: &str) -> bool {
    let t = after.trim_start_matches(' ');
    t.is_empty() || (t.starts_with('#') && t.len() < after.len())
}

/// A plain scalar (trimmed, comment removed) as serde_yaml resolves it, when its shape is on the allow-list.
fn resolve_plain(s: &str) -> Option<Value> {
    match s {
        "~" | "null" | "Null" | "NULL" => return Some(Value::Null),
        "true" | "True" | "TRUE" => return Some(Value::Bool(true)),
        "false" | "False" | "FALSE" => return Some(Value::Bool(false)),
        _ => {}
    }
    if !plain_shape(s) {
        return None;
    }
    let bytes = s.as_bytes();
    if bytes.iter().all(u8::is_ascii_digit) {
        // Leading zeros are a string to serde_yaml, long runs may not fit a u64: not sure, ask serde_yaml.
        let decimal = s == "0" || (bytes[0] != b'0' && bytes.len() <= 18);
        return decimal.then(|| {
            s.parse::<u64>()
                .ok()
                .map(|n| Value::Number(Number::from(n)))
        })?;
    }
    // serde_yaml reads an integer (decimal, 0x, 0o, 0b) or a finite float where Rust's parsers accept one; a
    // letter-first word Rust reads as a float is `inf`, `nan`, `infinity` (not finite, so a string, but not
    // worth being clever about).
    let radix_prefix = ["0x", "0o", "0b"].iter().any(|p| s.starts_with(p));
    (!radix_prefix && s.parse::<f64>().is_err()).then(|| Value::String(s.to_owned()))
}

/// The allow-list of plain scalars, in one pass: a letter, a digit or `_` first, then only letters, digits,
/// spaces and the writer's punctuation (`yaml_value.rs`: `_-./,()+@:#'`); no `: ` (a mapping) and no `:` at the end, no ` #` (a comment).
fn plain_shape(s: &str) -> bool {
    let b = s.as_bytes();
    let mut prev = b' ';
    for (i, c) in s.char_indices() {
        let ok = match c {
            'a'..='z' | 'A'..='Z' | '0'..='9' | '_' => true,
            _ if i == 0 => c.is_alphanumeric(),
            ' ' | '-' | '.' | '/' | ',' | '(' | ')' | '+' | '@' | '\'' => true,
            ':' => b.get(i + 1).is_some_and(|&n| n != b' '),
            '#' => prev != b' ',
            _ => c.is_alphanumeric(),
        };
        if !ok {
            return false;
        }
        prev = b[i];
    }
    !s.is_empty()
}

/// `[a-z_][a-z0-9_]*`, not a word YAML resolves to anything but a string.
fn is_key(key: &str) -> bool {
    let b = key.as_bytes();
    !b.is_empty()
        && b.len() <= MAX_KEY
        && (b[0].is_ascii_lowercase() || b[0] == b'_')
        && b.iter()
            .all(|&c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'_')
        && !matches!(key, "null" | "true" | "false")
        && key.parse::<f64>().is_err()
}

/// A character YAML allows in a stream and does not take for a break or a byte order mark; no tab.
fn safe_char(c: char) -> bool {
    matches!(c, '\u{20}'..='\u{7e}' | '\u{a0}'..='\u{d7ff}' | '\u{e000}'..='\u{fffd}' | '\u{10000}'..)
        && !matches!(c, '\u{2028}' | '\u{2029}' | '\u{feff}')
}

#[cfg(test)]
mod tests;
