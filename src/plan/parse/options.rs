//! A decision's `**Options:**` list: one option per list item, `` `key` — label ``.

use std::collections::HashMap;
use std::ops::Range;

use crate::plan::{DecisionOption, Diagnostic, lines};

pub(super) fn parse_options(
    all: &[&str],
    range: Range<usize>,
    decision: &str,
) -> Result<Vec<DecisionOption>, Diagnostic> {
    let mut options: Vec<(DecisionOption, usize)> = Vec::new();
    for i in range {
        let c = lines::content(all[i]);
        if c.trim().is_empty() {
            continue;
        }
        if let Some(item) = list_item(c) {
            options.push((parse_option(item), i + 1));
        } else if c.starts_with([' ', '\t']) && !options.is_empty() {
            if let Some((last, _)) = options.last_mut() {
                last.label = format!("{} {}", last.label, c.trim());
            }
        } else {
            break;
        }
    }
    let mut keys: HashMap<&str, usize> = HashMap::new();
    for (o, line) in &options {
        if o.key.is_empty() {
            return Err(Diagnostic::new(
                *line,
                format!("an option of decision `{decision}` has an empty key"),
            ));
        }
        if let Some(first) = keys.insert(o.key.as_str(), *line) {
            return Err(Diagnostic::new(
                *line,
                format!(
                    "duplicate option key `{}` in decision `{decision}` (first on line {first})",
                    o.key
                ),
            ));
        }
    }
    Ok(options.into_iter().map(|(o, _)| o).collect())
}

/// The text of a `- item`, `* item`, `+ item` or `1. item` line indented at most three spaces.
fn list_item(line: &str) -> Option<&str> {
    let indent = line.len() - line.trim_start_matches(' ').len();
    if indent > 3 {
        return None;
    }
    let t = &line[indent..];
    for marker in ["- ", "* ", "+ "] {
        if let Some(rest) = t.strip_prefix(marker) {
            return Some(rest.trim());
        }
    }
    let digits = t.len() - t.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    if digits > 0 && digits < 10 {
        let rest = &t[digits..];
        if let Some(rest) = rest.strip_prefix(". ").or_else(|| rest.strip_prefix(") ")) {
            return Some(rest.trim());
        }
    }
    None
}

/// `` `key` — label `` (or `–`, `-`, `:`); without a backticked key the text is key and label.
fn parse_option(item: &str) -> DecisionOption {
    if let Some(rest) = item.strip_prefix('`')
        && let Some(close) = rest.find('`')
    {
        {
            let key = rest[..close].trim().to_owned();
            let mut label = rest[close + 1..].trim();
            for sep in ["—", "–", "-", ":"] {
                if let Some(l) = label.strip_prefix(sep) {
                    label = l.trim();
                    break;
                }
            }
            let label = if label.is_empty() {
                key.clone()
            } else {
                label.to_owned()
            };
            return DecisionOption { key, label };
        }
    }
    DecisionOption {
        key: item.to_owned(),
        label: item.to_owned(),
    }
}
