//! A decision block's `key: value` lines read into values, each with the line it was on (for diagnostics).

use std::collections::HashMap;
use std::ops::Range;

use super::meta_key;
use crate::plan::{DecisionStatus, Diagnostic, yaml_value};

/// The keys that may hold a flow list (a `multi` decision's answer and default); any other list is refused.
const LIST_KEYS: [&str; 2] = ["answer", "default"];

/// The keys of one decision's block: each key's value as read (`None` for null) and its line number.
pub(super) struct Fields<'a> {
    fields: Vec<(&'a str, Option<String>, usize)>,
    /// The keys of [`LIST_KEYS`] whose value is a flow list: the items, and the line.
    lists: Vec<(&'a str, Vec<String>, usize)>,
    /// The heading's line number: where a key that is not given is reported.
    heading_line: usize,
}

impl<'a> Fields<'a> {
    /// Reads the lines `meta_lines` of decision `n` (from 0), whose heading is on line `heading_line`. A key given
    /// twice is refused.
    pub(super) fn read(
        all: &[&'a str],
        meta_lines: Range<usize>,
        n: usize,
        heading_line: usize,
    ) -> Result<Fields<'a>, Diagnostic> {
        // A handful of keys: a list searched in order is cheaper than hashing each key. A block of many keys (only
        // a hostile file has them) is indexed, so the search does not grow with the square of its length.
        const FEW: usize = 16;
        let mut fields: Vec<(&str, Option<String>, usize)> = Vec::with_capacity(meta_lines.len());
        let mut index: HashMap<&str, usize> = HashMap::new();
        let mut lists = Vec::new();
        for i in meta_lines {
            let Some((key, raw)) = meta_key(all[i]) else {
                continue;
            };
            let list = if LIST_KEYS.contains(&key) {
                yaml_value::read_list(raw)
                    .map_err(|e| Diagnostic::new(i + 1, format!("`{key}`: {e}")))?
            } else {
                None
            };
            let value = match list {
                Some(items) => {
                    // Read as text too (a list is no single value): the kind decides whether a list is right.
                    lists.push((key, items, i + 1));
                    None
                }
                None => yaml_value::read(raw)
                    .map_err(|e| Diagnostic::new(i + 1, format!("`{key}`: {e}")))?,
            };
            // Like YAML, a key given twice is ambiguous: an edit would rewrite one line and a reader take the
            // other.
            if fields.len() == FEW {
                index.extend(fields.iter().map(|&(k, _, l)| (k, l)));
            }
            let first = if fields.len() < FEW {
                fields.iter().find(|(k, _, _)| *k == key).map(|f| f.2)
            } else {
                index.insert(key, i + 1)
            };
            if let Some(first) = first {
                return Err(Diagnostic::new(
                    i + 1,
                    format!(
                        "`{key}` given twice in decision {} (first on line {first})",
                        n + 1
                    ),
                ));
            }
            fields.push((key, value, i + 1));
        }
        Ok(Fields {
            fields,
            lists,
            heading_line,
        })
    }

    /// The items of `k` when its value is a flow list.
    pub(super) fn list(&self, k: &str) -> Option<&[String]> {
        self.lists
            .iter()
            .find(|(key, _, _)| *key == k)
            .map(|(_, items, _)| items.as_slice())
    }

    /// Refuses a list in `k` (for a kind whose `k` is one value), as any list in a decision block is refused.
    pub(super) fn no_list(&self, k: &str) -> Result<(), Diagnostic> {
        match self.lists.iter().find(|(key, _, _)| *key == k) {
            Some((_, _, line)) => Err(Diagnostic::new(
                *line,
                format!("`{k}`: expected a single value, found a list or a map"),
            )),
            None => Ok(()),
        }
    }

    /// True when `k` is in the block (with any value, null too).
    pub(super) fn has(&self, k: &str) -> bool {
        self.get(k).is_some()
    }

    /// `k` as a whole number of at least 0, when given.
    pub(super) fn count(&self, k: &str) -> Result<Option<usize>, Diagnostic> {
        match self.field(k) {
            None => Ok(None),
            Some(v) => v.trim().parse().map(Some).map_err(|_| {
                Diagnostic::new(
                    self.line(k),
                    format!("`{k}` must be a whole number of 0 or more, not `{v}`"),
                )
            }),
        }
    }

    /// `k` as a number, when given.
    pub(super) fn number(&self, k: &str) -> Result<Option<crate::plan::Number>, Diagnostic> {
        match self.field(k) {
            None => Ok(None),
            Some(v) => crate::plan::Number::read(&v).map(Some).ok_or_else(|| {
                Diagnostic::new(
                    self.line(k),
                    format!("`{k}` must be a number (below 2^53 in size), not `{v}`"),
                )
            }),
        }
    }

    /// `k` as `true` or `false`, when given.
    pub(super) fn boolean(&self, k: &str) -> Result<Option<bool>, Diagnostic> {
        match self.field(k).as_deref() {
            None => Ok(None),
            Some("true") => Ok(Some(true)),
            Some("false") => Ok(Some(false)),
            Some(other) => Err(Diagnostic::new(
                self.line(k),
                format!("`{k}` must be true or false, not `{other}`"),
            )),
        }
    }

    fn get(&self, k: &str) -> Option<&(&'a str, Option<String>, usize)> {
        self.fields.iter().find(|(key, _, _)| *key == k)
    }

    /// The value of `k` (`None`: not given, or null).
    pub(super) fn field(&self, k: &str) -> Option<String> {
        self.get(k).and_then(|(_, v, _)| v.clone())
    }

    /// The line of `k`, or the heading's when it is not given.
    pub(super) fn line(&self, k: &str) -> usize {
        self.get(k).map_or(self.heading_line, |(_, _, l)| *l)
    }

    /// `status`: pending when not given.
    pub(super) fn status(&self) -> Result<DecisionStatus, Diagnostic> {
        Ok(match self.field("status") {
            None => DecisionStatus::Pending,
            Some(s) => DecisionStatus::parse(&s).ok_or_else(|| {
                Diagnostic::new(
                    self.line("status"),
                    format!("unknown decision status `{s}`: use pending, answered or skipped"),
                )
            })?,
        })
    }

    /// `allow_custom`: false when not given.
    pub(super) fn allow_custom(&self) -> Result<bool, Diagnostic> {
        match self.field("allow_custom").as_deref() {
            None | Some("false") => Ok(false),
            Some("true") => Ok(true),
            Some(other) => Err(Diagnostic::new(
                self.line("allow_custom"),
                format!("`allow_custom` must be true or false, not `{other}`"),
            )),
        }
    }

    /// A Telegram user id (`delegated_to`, `delegated_by`), when given.
    pub(super) fn user(&self, k: &str) -> Result<Option<u64>, Diagnostic> {
        match self.field(k) {
            None => Ok(None),
            Some(v) => v
                .trim()
                .parse()
                .ok()
                .filter(|id| *id > 0)
                .map(Some)
                .ok_or_else(|| {
                    Diagnostic::new(
                        self.line(k),
                        format!("`{k}: {v}` must be a Telegram user id (a positive whole number)"),
                    )
                }),
        }
    }
}
