//! Reading a decision file into a [`Plan`], or a [`Diagnostic`] saying why it can't be read.

use std::collections::HashMap;
use std::ops::Range;

use pulldown_cmark::{Event, HeadingLevel, Parser, Tag};

use super::lines::{self, LineIndex};
use super::{
    Decision, DecisionOption, DecisionStatus, Diagnostic, Plan, frontmatter, slug, yaml_value,
};

/// Parses raw file bytes; `stem` (the file name without `.md`) is the id when the frontmatter has none.
pub fn parse_bytes(bytes: &[u8], stem: &str) -> Result<Plan, Diagnostic> {
    match std::str::from_utf8(bytes) {
        Ok(text) => parse(text, stem),
        Err(e) => {
            let line = bytes[..e.valid_up_to()]
                .iter()
                .filter(|&&b| b == b'\n')
                .count()
                + 1;
            Err(Diagnostic::new(
                line,
                "not UTF-8 text: decision files must be UTF-8",
            ))
        }
    }
}

/// Parses a decision file; `stem` (the file name without `.md`) is the id when the frontmatter has none.
pub fn parse(text: &str, stem: &str) -> Result<Plan, Diagnostic> {
    parse_with_frontmatter(text, stem).map(|(plan, _)| plan)
}

/// [`parse`], also returning the frontmatter as YAML read it (an edit checks its keys before and after).
pub(super) fn parse_with_frontmatter(
    text: &str,
    stem: &str,
) -> Result<(Plan, serde_yaml::Mapping), Diagnostic> {
    let all = lines::split(text);
    let mut fm = frontmatter::parse(&all)?;
    let map = std::mem::take(&mut fm.map);
    let index = LineIndex::new(text);
    let body_offset: usize = all[..fm.body_start.min(all.len())]
        .iter()
        .map(|l| l.len())
        .sum();
    let (h1, h2s) = atx_headings(&text[body_offset..], body_offset, &index, &all);

    let mut decisions = Vec::with_capacity(h2s.len());
    let mut seen: HashMap<String, usize> = HashMap::new();
    for (n, &start) in h2s.iter().enumerate() {
        let end = h2s.get(n + 1).copied().unwrap_or(all.len());
        let decision = parse_decision(&all, start..end, n)?;
        if let Some(first) = seen.insert(decision.id.clone(), decision.line) {
            return Err(Diagnostic::new(
                decision.line,
                format!(
                    "duplicate decision id `{}` (first used on line {first})",
                    decision.id
                ),
            ));
        }
        decisions.push(decision);
    }
    if decisions.is_empty() {
        return Err(Diagnostic::new(
            fm.body_start + 1,
            "no decisions: add a `## ` section for each decision, with an `**Options:**` list",
        ));
    }

    let context_start = h1.map_or(fm.body_start, |h| h + 1);
    let context_end = h2s.first().copied().unwrap_or(all.len());
    let context = block_text(&all, context_start.min(context_end)..context_end);
    let id = fm.id.clone().unwrap_or_else(|| stem.to_owned());
    let title = fm
        .title
        .clone()
        .filter(|t| !t.trim().is_empty())
        .or_else(|| h1.map(|h| heading_text(all[h])))
        .filter(|t| !t.is_empty())
        .unwrap_or_else(|| id.clone());
    let plan = Plan {
        id,
        title,
        priority: fm.priority,
        status: fm.status,
        tag: fm.tag,
        agent: fm.agent,
        session: fm.session,
        notify_session: fm.notify_session,
        created_at: fm.created_at,
        updated_at: fm.updated_at,
        completed_at: fm.completed_at,
        timing: fm.timing,
        approval: fm.approval,
        context,
        decisions,
        frontmatter_lines: fm.lines,
    };
    Ok((plan, map))
}

/// Line indices of the first `# ` heading and of every `## ` heading in the body, ATX style only
/// (a setext underline is a `---` rule in these files) and never inside code blocks.
fn atx_headings(
    body: &str,
    offset: usize,
    index: &LineIndex,
    all: &[&str],
) -> (Option<usize>, Vec<usize>) {
    let mut h1 = None;
    let mut h2s = Vec::new();
    for (event, range) in Parser::new(body).into_offset_iter() {
        let Event::Start(Tag::Heading { level, .. }) = event else {
            continue;
        };
        let line = index.line_of(offset + range.start);
        // Only a line that opens an ATX heading itself: a setext heading can start with `#` too (`#:`, `#x`,
        // seven `#`), and an edit's inserted lines can turn a paragraph into one.
        if !opens_atx_heading(all[line]) {
            continue;
        }
        // A lone CR ends a line for CommonMark but not for these files: one line can hold two "headings".
        if h1 == Some(line) || h2s.last() == Some(&line) {
            continue;
        }
        match level {
            HeadingLevel::H1 if h1.is_none() && h2s.is_empty() => h1 = Some(line),
            HeadingLevel::H2 => h2s.push(line),
            _ => {}
        }
    }
    (h1, h2s)
}

/// True for a line that opens an ATX heading: up to three spaces, one to six `#`, then white space or the end of
/// the line (ASCII white space as pulldown-cmark reads it, so a lone CR ends the heading too).
fn opens_atx_heading(line: &str) -> bool {
    let c = lines::content(line);
    let t = c.trim_start_matches(' ');
    if c.len() - t.len() > 3 {
        return false;
    }
    let marks = t.len() - t.trim_start_matches('#').len();
    (1..=6).contains(&marks)
        && t.as_bytes()
            .get(marks)
            .is_none_or(|&b| b == b' ' || (0x09..=0x0d).contains(&b))
}

/// The text of an ATX heading line as CommonMark reads it: the opening `#` run and the spaces or tabs around the
/// text go, and so does a closing `#` run, but only when a space or tab precedes it or nothing else is left
/// (`## Use C#` is `Use C#`, `# Title #` is `Title`, `## #` is empty). Done here on the file's line rather than
/// taken from pulldown-cmark's ranges: pulldown-cmark 0.13 takes only a space before a closing run (CommonMark also
/// a tab, before or after it), and it ends a heading at a lone CR, which these files do not.
fn heading_text(line: &str) -> String {
    let blank = [' ', '\t'];
    let t = lines::content(line).trim_start_matches(' ');
    let t = t.trim_start_matches('#').trim_matches(blank);
    let before_closing = t.trim_end_matches('#');
    let t = if before_closing.is_empty() {
        before_closing
    } else if before_closing.ends_with(blank) {
        before_closing.trim_end_matches(blank)
    } else {
        t
    };
    // Titles are trimmed of any white space (a lone CR, U+00A0), as they always were.
    t.trim().to_owned()
}

/// `Decision 3: Caching` → `Caching`; `Decision 3` alone stays as it is.
fn decision_title(heading: &str) -> String {
    let Some(rest) = heading
        .strip_prefix("Decision")
        .or_else(|| heading.strip_prefix("decision"))
    else {
        return heading.to_owned();
    };
    let rest = rest.trim_start();
    let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    if digits == 0 {
        return heading.to_owned();
    }
    let after = rest[digits..].trim_start();
    for sep in ["—", "–", "-", ":", "."] {
        if let Some(title) = after.strip_prefix(sep) {
            let title = title.trim();
            if !title.is_empty() {
                return title.to_owned();
            }
        }
    }
    heading.to_owned()
}

/// The lines of a block as text, without `---` rules and surrounding blank lines.
fn block_text(all: &[&str], range: Range<usize>) -> String {
    let kept: Vec<&str> = all[range]
        .iter()
        .filter(|l| !lines::is_rule(l))
        .map(|l| lines::content(l))
        .collect();
    kept.join("\n").trim().to_owned()
}

/// A `key: value` line of a decision block: lowercase key, a colon, then a space or nothing.
pub(crate) fn meta_key(line: &str) -> Option<(&str, &str)> {
    let c = lines::content(line);
    let colon = c.find(':')?;
    let key = &c[..colon];
    let valid = !key.is_empty()
        && key.starts_with(|ch: char| ch.is_ascii_lowercase() || ch == '_')
        && key
            .chars()
            .all(|ch| ch.is_ascii_lowercase() || ch.is_ascii_digit() || ch == '_');
    let value = &c[colon + 1..];
    (valid && (value.is_empty() || value.starts_with([' ', '\t']))).then_some((key, value.trim()))
}

fn parse_decision(all: &[&str], section: Range<usize>, n: usize) -> Result<Decision, Diagnostic> {
    let heading = section.start;
    let line = heading + 1;
    let title = decision_title(&heading_text(all[heading]));

    let mut meta_start = heading + 1;
    while meta_start < section.end && lines::is_blank(all[meta_start]) {
        meta_start += 1;
    }
    let mut meta_end = meta_start;
    while meta_end < section.end && meta_key(all[meta_end]).is_some() {
        meta_end += 1;
    }
    let meta_lines = if meta_end > meta_start {
        meta_start..meta_end
    } else {
        heading + 1..heading + 1
    };

    // A handful of keys: a list searched in order is cheaper than hashing each key. A block of many keys (only a
    // hostile file has them) is indexed, so the search does not grow with the square of its length.
    const FEW: usize = 16;
    let mut fields: Vec<(&str, Option<String>, usize)> = Vec::with_capacity(meta_lines.len());
    let mut index: HashMap<&str, usize> = HashMap::new();
    for i in meta_lines.clone() {
        let Some((key, raw)) = meta_key(all[i]) else {
            continue;
        };
        let value =
            yaml_value::read(raw).map_err(|e| Diagnostic::new(i + 1, format!("`{key}`: {e}")))?;
        // Like YAML, a key given twice is ambiguous: an edit would rewrite one line and a reader take the other.
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
    let get = |k: &str| fields.iter().find(|(key, _, _)| *key == k);
    let field = |k: &str| get(k).and_then(|(_, v, _)| v.clone());
    let field_line = |k: &str| get(k).map_or(line, |(_, _, l)| *l);

    let id = match field("id") {
        Some(id) if !id.trim().is_empty() => id,
        _ => {
            if title.is_empty() {
                return Err(Diagnostic::new(
                    line,
                    format!("decision {} has neither an `id:` nor a title", n + 1),
                ));
            }
            let s = slug::slug(&title);
            if s.is_empty() {
                format!("decision-{}", n + 1)
            } else {
                s
            }
        }
    };
    let title = if title.is_empty() { id.clone() } else { title };
    let status = match field("status") {
        None => DecisionStatus::Pending,
        Some(s) => DecisionStatus::parse(&s).ok_or_else(|| {
            Diagnostic::new(
                field_line("status"),
                format!("unknown decision status `{s}`: use pending, answered or skipped"),
            )
        })?,
    };
    let allow_custom = match field("allow_custom").as_deref() {
        None | Some("false") => false,
        Some("true") => true,
        Some(other) => {
            return Err(Diagnostic::new(
                field_line("allow_custom"),
                format!("`allow_custom` must be true or false, not `{other}`"),
            ));
        }
    };

    let rest = meta_lines.end.max(heading + 1)..section.end;
    let options_at = rest.clone().find(|&i| {
        lines::content(all[i])
            .trim_start()
            .starts_with("**Options:**")
    });
    let context_end = options_at.unwrap_or(section.end);
    let context_range = rest.start..context_end;
    let context = match context_range.clone().find(|&i| {
        lines::content(all[i])
            .trim_start()
            .starts_with("**Context:**")
    }) {
        Some(at) => {
            let first = lines::content(all[at])
                .trim_start()
                .trim_start_matches("**Context:**")
                .trim();
            let more = block_text(all, at + 1..context_end);
            [first, more.as_str()]
                .iter()
                .filter(|s| !s.is_empty())
                .copied()
                .collect::<Vec<_>>()
                .join("\n")
        }
        None => block_text(all, context_range),
    };
    let options = match options_at {
        Some(at) => parse_options(all, at + 1..section.end, &id)?,
        None => Vec::new(),
    };
    let default = field("default");
    if let Some(key) = &default
        && !options.iter().any(|o| &o.key == key)
    {
        let keys: Vec<&str> = options.iter().map(|o| o.key.as_str()).collect();
        let reason = if keys.is_empty() {
            format!("`default: {key}`: this decision has no options to default to")
        } else {
            format!(
                "`default: {key}` is not an option key of this decision: use one of {}",
                keys.join(", ")
            )
        };
        return Err(Diagnostic::new(field_line("default"), reason));
    }

    let user = |k: &str| -> Result<Option<u64>, Diagnostic> {
        match field(k) {
            None => Ok(None),
            Some(v) => v
                .trim()
                .parse()
                .ok()
                .filter(|id| *id > 0)
                .map(Some)
                .ok_or_else(|| {
                    Diagnostic::new(
                        field_line(k),
                        format!("`{k}: {v}` must be a Telegram user id (a positive whole number)"),
                    )
                }),
        }
    };
    let delegated_to = user("delegated_to")?;
    let delegated_by = user("delegated_by")?;

    Ok(Decision {
        id,
        title,
        status,
        answer: field("answer"),
        answered_at: field("answered_at"),
        answered_by: field("answered_by"),
        allow_custom,
        default,
        note: field("note"),
        delegated_to,
        delegated_by,
        context,
        options,
        line,
        meta_lines,
    })
}

fn parse_options(
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
