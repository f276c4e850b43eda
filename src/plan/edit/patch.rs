//! Surgical patches on a file's lines: a key's value rewritten on its own line (spacing and a trailing comment
//! kept), or a line inserted; every other byte stays as it was.

use std::ops::Range;

use serde_yaml::{Mapping, Value};

use crate::plan::lines;
use crate::plan::parse::meta_key;

/// The file as owned lines with their endings.
pub(super) struct Lines {
    lines: Vec<String>,
    eol: &'static str,
}

impl Lines {
    pub(super) fn new(text: &str) -> Lines {
        let split = lines::split(text);
        let eol = lines::file_ending(&split);
        Lines {
            lines: split.into_iter().map(str::to_owned).collect(),
            eol,
        }
    }

    pub(super) fn join(&self) -> String {
        self.lines.concat()
    }

    /// Sets `key` to the already-written YAML `value` inside `block`: rewrites the value on the key's line
    /// (keeping spacing and a trailing comment) or inserts a line at the end of the block, which then grows.
    /// In the frontmatter (`top_level`), indented continuation lines of the old value go too.
    pub(super) fn set(
        &mut self,
        block: &mut Range<usize>,
        key: &str,
        value: &str,
        top_level: bool,
        search: bool,
    ) {
        let candidates: Vec<usize> = block
            .clone()
            .filter(|_| search)
            .filter(|&i| line_key(&self.lines[i], top_level) == Some(key))
            .collect();
        let found = match candidates.as_slice() {
            [] => None,
            [one] => Some(*one),
            several if top_level => self.yaml_key_line(block, key, several),
            [first, ..] => Some(*first),
        };
        match found {
            Some(i) => {
                let new = replace_value(&self.lines[i], value);
                if new != self.lines[i] {
                    self.lines[i] = new;
                }
                if top_level {
                    while i + 1 < block.end && is_continuation(&self.lines[i + 1]) {
                        self.lines.remove(i + 1);
                        block.end -= 1;
                    }
                }
            }
            None => {
                let at = block.end;
                if at > 0 && at <= self.lines.len() && lines::ending(&self.lines[at - 1]).is_empty()
                {
                    self.lines[at - 1].push_str(self.eol);
                }
                let needs_gap = block.start == block.end
                    && !top_level
                    && self.lines.get(at).is_some_and(|l| !lines::is_blank(l));
                self.lines.insert(at, format!("{key}: {value}{}", self.eol));
                if needs_gap {
                    self.lines.insert(at + 1, self.eol.to_owned());
                }
                *block = block.start..at + 1;
            }
        }
    }

    /// Of several frontmatter lines that look like `key: …`, the one YAML reads as the key (the others are inside a
    /// multi-line quoted value): each is given a marker value in turn until YAML reads the marker back.
    fn yaml_key_line(
        &self,
        block: &Range<usize>,
        key: &str,
        candidates: &[usize],
    ) -> Option<usize> {
        const MARKER: &str = "arbiter-key-probe";
        candidates.iter().copied().find(|&at| {
            let mut yaml = String::new();
            let mut i = block.start;
            while i < block.end {
                if i == at {
                    yaml.push_str(&replace_value(&self.lines[i], MARKER));
                    // As `set` does: the old value's continuation lines go.
                    while i + 1 < block.end && is_continuation(&self.lines[i + 1]) {
                        i += 1;
                    }
                } else {
                    yaml.push_str(&self.lines[i]);
                }
                i += 1;
            }
            serde_yaml::from_str::<Mapping>(&yaml)
                .is_ok_and(|m| m.get(key).and_then(Value::as_str) == Some(MARKER))
        })
    }
}

/// The key of a `key: value` line; in the frontmatter only unindented keys, quoted or not.
fn line_key(line: &str, top_level: bool) -> Option<&str> {
    if !top_level {
        return meta_key(line).map(|(k, _)| k);
    }
    let c = lines::content(line);
    if c.starts_with([' ', '\t', '#', '-']) {
        return None;
    }
    // The key ends at the first `:` followed by white space or the end (`status:x: 1` is the key `status:x`).
    let colon = c
        .char_indices()
        .find(|&(i, ch)| ch == ':' && c[i + 1..].chars().next().is_none_or(char::is_whitespace))?
        .0;
    let key = c[..colon].trim_end();
    let key = key
        .strip_prefix('"')
        .and_then(|k| k.strip_suffix('"'))
        .unwrap_or(key);
    let key = key
        .strip_prefix('\'')
        .and_then(|k| k.strip_suffix('\''))
        .unwrap_or(key);
    Some(key)
}

fn is_continuation(line: &str) -> bool {
    !lines::is_blank(line) && line.starts_with([' ', '\t'])
}

/// `key:  old # note` → `key:  new # note`, keeping the line ending.
fn replace_value(line: &str, value: &str) -> String {
    let c = lines::content(line);
    let eol = lines::ending(line);
    let Some(colon) = c.find(':') else {
        return line.to_owned();
    };
    let (head, after) = c.split_at(colon + 1);
    let ws_len = after.len() - after.trim_start().len();
    let ws = if ws_len == 0 { " " } else { &after[..ws_len] };
    let old = &after[ws_len..];
    let comment = comment_start(old).map_or("", |i| &old[i..]);
    format!("{head}{ws}{value}{comment}{eol}")
}

/// Where a trailing `# comment` (with the white space before it) starts in a value, if there is one.
fn comment_start(value: &str) -> Option<usize> {
    let bytes = value.as_bytes();
    let mut i = 0;
    match bytes.first() {
        Some(b'"') => {
            i = 1;
            while i < bytes.len() && bytes[i] != b'"' {
                i += if bytes[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
        }
        Some(b'\'') => {
            i = 1;
            while i < bytes.len() {
                if bytes[i] == b'\'' {
                    if bytes.get(i + 1) == Some(&b'\'') {
                        i += 2;
                        continue;
                    }
                    break;
                }
                i += 1;
            }
            i += 1;
        }
        _ => {}
    }
    let i = i.min(bytes.len());
    let rest = &value[i..];
    let hash = rest
        .char_indices()
        .find(|&(j, ch)| ch == '#' && (j == 0 && i > 0 || rest[..j].ends_with([' ', '\t'])))?;
    let start = rest[..hash.0].trim_end_matches([' ', '\t']).len();
    Some(i + start)
}
