//! Reading a decision file into a [`Plan`], or a [`Diagnostic`] saying why it can't be read.

use std::collections::HashMap;
use std::ops::Range;

use pulldown_cmark::{Event, HeadingLevel, Parser, Tag};

use super::lines::{self, LineIndex};
use super::{Decision, Diagnostic, Plan, frontmatter};

mod decision;
mod fields;
mod kind;
mod options;

use decision::parse_decision;

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
    let decisions = parse_decisions(&all, &h2s, fm.body_start)?;

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
        machine: fm.machine,
        session: fm.session,
        notify_session: fm.notify_session,
        created_at: fm.created_at,
        updated_at: fm.updated_at,
        completed_at: fm.completed_at,
        timing: fm.timing,
        approval: fm.approval,
        elicitation: fm.elicitation,
        outcome: fm.outcome,
        revision: fm.revision,
        feedback: fm.feedback,
        withdrawal: fm.withdrawal,
        project: fm.project,
        ruling: fm.ruling,
        reply_to: fm.reply_to,
        context,
        decisions,
        frontmatter_lines: fm.lines,
    };
    Ok((plan, map))
}

/// Every decision, one per `## ` heading (at lines `h2s`); ids must be unique, and there must be at least one.
fn parse_decisions(
    all: &[&str],
    h2s: &[usize],
    body_start: usize,
) -> Result<Vec<Decision>, Diagnostic> {
    let mut decisions = Vec::with_capacity(h2s.len());
    let mut seen: HashMap<String, usize> = HashMap::new();
    for (n, &start) in h2s.iter().enumerate() {
        let end = h2s.get(n + 1).copied().unwrap_or(all.len());
        let decision = parse_decision(all, start..end, n)?;
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
            body_start + 1,
            "no decisions: add a `## ` section for each decision, with an `**Options:**` list",
        ));
    }
    Ok(decisions)
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
