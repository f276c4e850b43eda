//! Test-only: how YAML 1.1 readers (PyYAML) and YAML 1.2 core-schema readers resolve what the project writes.
//!
//! The resolvers are the type regexes of the YAML 1.1 type repository (yaml.org/type: bool, int, float, null,
//! timestamp, merge, value) and of the YAML 1.2 core schema (spec 1.2.2, 10.3.2), written out as published.
//! [`read_flat`] reads the one shape the project writes (`key: value` lines, one level of nesting, explicit `? key`
//! entries, plain and double-quoted scalars on one line) the way a YAML 1.1 or 1.2 reader does, without
//! serde_yaml: a scalar that is not certainly a string comes back with the tag the schema gives it.

use std::sync::LazyLock;

use regex::Regex;

/// Which YAML a reader follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Schema {
    Yaml11,
    Yaml12Core,
}

/// A scalar as a reader resolves it: its tag (`str`, `bool`, `int`, …) and its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scalar {
    pub tag: &'static str,
    pub text: String,
}

impl Scalar {
    /// The string it is, when the reader takes it for a string.
    #[must_use]
    pub fn as_str(&self) -> Option<&str> {
        (self.tag == "str").then_some(self.text.as_str())
    }
}

/// A value of a top-level key: a scalar, or a mapping of scalars.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Node {
    Scalar(Scalar),
    Map(Vec<(Scalar, Scalar)>),
}

fn full(pattern: &str) -> Regex {
    // `(?x)`: the patterns keep YAML's published layout, one alternative a line.
    Regex::new(&format!("(?x)^(?:{pattern})$")).unwrap_or_else(|e| panic!("{pattern}: {e}"))
}

static YAML11: LazyLock<Vec<(&'static str, Regex)>> = LazyLock::new(|| {
    vec![
        (
            "bool",
            full(
                "y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF",
            ),
        ),
        (
            "int",
            full(
                r"[-+]?0b[0-1_]+
                 |[-+]?0[0-7_]+
                 |[-+]?(0|[1-9][0-9_]*)
                 |[-+]?0x[0-9a-fA-F_]+
                 |[-+]?[1-9][0-9_]*(:[0-5]?[0-9])+",
            ),
        ),
        (
            "float",
            full(
                r"[-+]?([0-9][0-9_]*)?\.[0-9.]*([eE][-+][0-9]+)?
                 |[-+]?[0-9][0-9_]*(:[0-5]?[0-9])+\.[0-9_]*
                 |[-+]?\.(inf|Inf|INF)
                 |\.(nan|NaN|NAN)",
            ),
        ),
        ("null", full(r"~|null|Null|NULL|")),
        (
            "timestamp",
            full(
                r"[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]
                 |[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?
                  ([Tt]|[\ \t]+)[0-9][0-9]?:[0-9][0-9]:[0-9][0-9](\.[0-9]*)?
                  (([\ \t]*)Z|[-+][0-9][0-9]?(:[0-9][0-9])?)?",
            ),
        ),
        ("merge", full("<<")),
        ("value", full("=")),
    ]
});

static YAML12_CORE: LazyLock<Vec<(&'static str, Regex)>> = LazyLock::new(|| {
    vec![
        ("null", full(r"null|Null|NULL|~|")),
        ("bool", full("true|True|TRUE|false|False|FALSE")),
        ("int", full(r"[-+]?[0-9]+ | 0o[0-7]+ | 0x[0-9a-fA-F]+")),
        (
            "float",
            full(
                r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?
                 |[-+]?\.(inf|Inf|INF)
                 |\.nan|\.NaN|\.NAN",
            ),
        ),
    ]
});

/// The tag a plain scalar resolves to.
#[must_use]
pub fn resolve(plain: &str, schema: Schema) -> &'static str {
    let table = match schema {
        Schema::Yaml11 => &*YAML11,
        Schema::Yaml12Core => &*YAML12_CORE,
    };
    table
        .iter()
        .find(|(_, re)| re.is_match(plain))
        .map_or("str", |(tag, _)| tag)
}

/// Characters YAML takes for a line break: YAML 1.1 has NEL, LS and PS too.
fn is_break(c: char, schema: Schema) -> bool {
    matches!(c, '\n' | '\r')
        || (schema == Schema::Yaml11 && matches!(c, '\u{85}' | '\u{2028}' | '\u{2029}'))
}

/// `c-printable`: what a YAML stream may hold at all (a reader refuses the whole file otherwise).
fn is_printable(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{7e}' | '\u{85}' | '\u{a0}'..='\u{d7ff}'
        | '\u{e000}'..='\u{fffd}' | '\u{10000}'..)
}

/// Reads `key: value` lines (the frontmatter of a notify file, a decision's `answer:` line) as a YAML reader
/// following `schema` does; an error for anything outside that shape or that the reader would refuse.
pub fn read_flat(text: &str, schema: Schema) -> Result<Vec<(Scalar, Node)>, String> {
    if let Some(c) = text.chars().find(|&c| !is_printable(c)) {
        return Err(format!("{c:?} is not allowed in a YAML stream"));
    }
    let lines: Vec<&str> = text.split(|c| is_break(c, schema)).collect();
    let mut out: Vec<(Scalar, Node)> = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        i += 1;
        if line.trim().is_empty() {
            continue;
        }
        if line.starts_with(' ') {
            let indent = line.len() - line.trim_start_matches(' ').len();
            let Some((_, Node::Map(map))) = out.last_mut() else {
                return Err(format!("unexpected indented line {line:?}"));
            };
            if indent != 2 {
                return Err(format!("unexpected indentation in {line:?}"));
            }
            let (key, value) = entry(&line[2..], &lines, &mut i, "  ", schema)?;
            map.push((key, scalar_or_empty(value, schema)?));
            continue;
        }
        let (key, value) = entry(line, &lines, &mut i, "", schema)?;
        let node = if value.trim().is_empty() {
            Node::Map(Vec::new())
        } else {
            Node::Scalar(scalar(value, schema)?)
        };
        out.push((key, node));
    }
    Ok(out)
}

/// One `key: value` or `? key` / `: value` entry; returns the key and the raw value text.
fn entry<'a>(
    line: &'a str,
    lines: &[&'a str],
    next: &mut usize,
    indent: &str,
    schema: Schema,
) -> Result<(Scalar, &'a str), String> {
    if let Some(key) = line.strip_prefix("? ") {
        let key = scalar(key, schema)?;
        let value = lines
            .get(*next)
            .and_then(|l| l.strip_prefix(indent))
            .and_then(|l| l.strip_prefix(": "))
            .ok_or_else(|| format!("an explicit key without `: value` after {line:?}"))?;
        *next += 1;
        return Ok((key, value));
    }
    let (key, rest) = if line.starts_with('"') {
        let (key, len) = double_quoted(line)?;
        let rest = line[len..]
            .strip_prefix(':')
            .ok_or_else(|| format!("no `:` after the key in {line:?}"))?;
        (
            Scalar {
                tag: "str",
                text: key,
            },
            rest,
        )
    } else {
        let colon = line
            .char_indices()
            .find(|&(j, c)| c == ':' && line[j + 1..].chars().next().is_none_or(|n| n == ' '))
            .map(|(j, _)| j)
            .ok_or_else(|| format!("no `key: ` in {line:?}"))?;
        (plain(&line[..colon], schema)?, &line[colon + 1..])
    };
    if !(rest.is_empty() || rest.starts_with(' ')) {
        return Err(format!("no space after the key's `:` in {line:?}"));
    }
    if key.text.chars().count() > 1024 {
        return Err("a `key:` longer than 1024 characters".to_owned());
    }
    Ok((key, rest))
}

fn scalar_or_empty(value: &str, schema: Schema) -> Result<Scalar, String> {
    if value.trim().is_empty() {
        Ok(Scalar {
            tag: "null",
            text: String::new(),
        })
    } else {
        scalar(value, schema)
    }
}

/// A scalar value with its surrounding white space (and a `# comment`).
fn scalar(value: &str, schema: Schema) -> Result<Scalar, String> {
    let value = value.trim_matches([' ', '\t']);
    if value.starts_with('"') {
        let (text, len) = double_quoted(value)?;
        let after = &value[len..];
        let rest = after.trim_start_matches([' ', '\t']);
        let comment = rest.starts_with('#') && rest.len() < after.len();
        if !(rest.is_empty() || comment) {
            return Err(format!("text after a quoted scalar: {value:?}"));
        }
        return Ok(Scalar { tag: "str", text });
    }
    // A comment starts at a `#` after white space: what follows is not part of the value.
    let value = match value.find(" #").or_else(|| value.find("\t#")) {
        Some(at) => value[..at].trim_end_matches([' ', '\t']),
        None => value,
    };
    plain(value, schema)
}

/// A plain scalar on one line, refused where YAML would read something else (an indicator first, a `: ` inside).
fn plain(text: &str, schema: Schema) -> Result<Scalar, String> {
    let mut chars = text.chars();
    let first = chars.next();
    let second = chars.next();
    let refused = match first {
        None => false,
        Some(c) if ",[]{}#&*!|>'\"%@`".contains(c) => true,
        Some('-' | '?' | ':') => second.is_none_or(|c| c == ' ' || c == '\t'),
        _ => false,
    };
    if refused || text.contains(": ") || text.contains(":\t") || text.ends_with(':') {
        return Err(format!("{text:?} is not a plain scalar"));
    }
    if text.starts_with([' ', '\t']) || text.ends_with([' ', '\t']) {
        return Err(format!("{text:?} has white space a reader would trim"));
    }
    Ok(Scalar {
        tag: resolve(text, schema),
        text: text.to_owned(),
    })
}

/// Decodes a double-quoted scalar at the start of `s` (escapes of YAML 1.1, which 1.2 keeps); returns the text
/// and the length of the quoted scalar in `s`.
fn double_quoted(s: &str) -> Result<(String, usize), String> {
    let mut out = String::new();
    let mut chars = s.char_indices().skip(1);
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return Ok((out, i + 1)),
            '\\' => {
                let (_, e) = chars.next().ok_or("an escape at the end")?;
                let hex = |n: usize, chars: &mut dyn Iterator<Item = (usize, char)>| {
                    let digits: String = chars.take(n).map(|(_, c)| c).collect();
                    u32::from_str_radix(&digits, 16)
                        .ok()
                        .filter(|_| digits.len() == n)
                        .and_then(char::from_u32)
                        .ok_or(format!("a bad \\{e} escape"))
                };
                out.push(match e {
                    '0' => '\0',
                    'a' => '\u{7}',
                    'b' => '\u{8}',
                    't' | '\t' => '\t',
                    'n' => '\n',
                    'v' => '\u{b}',
                    'f' => '\u{c}',
                    'r' => '\r',
                    'e' => '\u{1b}',
                    ' ' => ' ',
                    '"' => '"',
                    '/' => '/',
                    '\\' => '\\',
                    'N' => '\u{85}',
                    '_' => '\u{a0}',
                    'L' => '\u{2028}',
                    'P' => '\u{2029}',
                    'x' => hex(2, &mut chars)?,
                    'u' => hex(4, &mut chars)?,
                    'U' => hex(8, &mut chars)?,
                    other => return Err(format!("unknown escape \\{other}")),
                });
            }
            c => out.push(c),
        }
    }
    Err(format!("unterminated double-quoted scalar {s:?}"))
}

/// A flow list of scalars on one line (`[lint, "yes"]`, what a `multi` answer is written as) as a YAML reader
/// following `schema` reads it: each item's tag and text. Items are double-quoted, or plain without the flow
/// indicators `,[]{}` (and without `:` or `#`, which PyYAML refuses or reads differently inside a flow list).
pub fn flow_list(value: &str, schema: Schema) -> Result<Vec<Scalar>, String> {
    let inner = value
        .trim()
        .strip_prefix('[')
        .and_then(|v| v.strip_suffix(']'))
        .ok_or_else(|| format!("{value:?} is not a flow list"))?;
    let mut items = Vec::new();
    let mut rest = inner.trim_start_matches(' ');
    while !rest.is_empty() {
        let (item, after) = if rest.starts_with('"') {
            let (text, len) = double_quoted(rest)?;
            (Scalar { tag: "str", text }, &rest[len..])
        } else {
            let end = rest.find(',').unwrap_or(rest.len());
            let text = rest[..end].trim_end_matches(' ');
            if text.contains([':', '#', '[', ']', '{', '}']) {
                return Err(format!("{text:?} is not a plain scalar inside a flow list"));
            }
            (plain(text, schema)?, &rest[end..])
        };
        items.push(item);
        let after = after.trim_start_matches(' ');
        rest = match after.strip_prefix(',') {
            Some(r) => r.trim_start_matches(' '),
            None if after.is_empty() => after,
            None => return Err(format!("text after an item of {value:?}")),
        };
    }
    Ok(items)
}

/// The string a top-level key holds, when the reader takes it for one.
#[must_use]
pub fn top_str<'a>(read: &'a [(Scalar, Node)], key: &str) -> Option<&'a Scalar> {
    read.iter().find_map(|(k, v)| match v {
        Node::Scalar(s) if k.as_str() == Some(key) => Some(s),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_resolvers_know_the_traps() {
        for (plain, yaml11, yaml12) in [
            ("yes", "bool", "str"),
            ("On", "bool", "str"),
            ("y", "bool", "str"),
            ("True", "bool", "bool"),
            ("007", "int", "int"),
            ("12:30", "int", "str"),
            ("1_000", "int", "str"),
            ("0x1F", "int", "int"),
            ("0o17", "str", "int"),
            ("1.5", "float", "float"),
            ("1e5", "str", "float"),
            (".inf", "float", "float"),
            ("2026-01-30", "timestamp", "str"),
            ("2026-01-30T01:45:00Z", "timestamp", "str"),
            ("~", "null", "null"),
            ("", "null", "null"),
            ("<<", "merge", "str"),
            ("=", "value", "str"),
            ("jwt", "str", "str"),
            ("Use C#", "str", "str"),
        ] {
            assert_eq!(resolve(plain, Schema::Yaml11), yaml11, "{plain:?}");
            assert_eq!(resolve(plain, Schema::Yaml12Core), yaml12, "{plain:?}");
        }
    }

    #[test]
    fn reads_the_shape_the_project_writes() {
        let text = "plan_id: \"007\"\nplan_title: Use C#\nanswers:\n  db: yes\n  \"a: b\": \"x\\u2028y\" # c\n  ? \"k\"\n  : null\n";
        let read = read_flat(text, Schema::Yaml11).unwrap();
        assert_eq!(top_str(&read, "plan_id").unwrap().as_str(), Some("007"));
        assert_eq!(
            top_str(&read, "plan_title").unwrap().as_str(),
            Some("Use C#")
        );
        let Node::Map(answers) = &read[2].1 else {
            panic!("{read:?}")
        };
        assert_eq!(answers[0].1.tag, "bool");
        assert_eq!(answers[1].0.as_str(), Some("a: b"));
        assert_eq!(answers[1].1.as_str(), Some("x\u{2028}y"));
        assert_eq!(
            (answers[2].0.as_str(), answers[2].1.tag),
            (Some("k"), "null")
        );
        for refused in [
            "a: - x\n",
            "a: x: y\n",
            "a: 'q\n",
            "a: \"q\n",
            "a: \"q\"x\n",
            "a: \u{fffe}\n",
        ] {
            assert!(read_flat(refused, Schema::Yaml11).is_err(), "{refused:?}");
        }
    }
}
