//! One decision: its `## ` section read into a [`Decision`] — heading, keys, context, options.

use std::ops::Range;

use super::fields::Fields;
use super::kind::{kind_name, proposal, read_kind, value_of};
use super::options::parse_options;
use super::{block_text, heading_text, meta_key};
use crate::plan::{AnswerValue, Decision, DecisionOption, Diagnostic, Kind, input, lines, slug};

/// Reads decision `n` (from 0): the lines `section` of the file, from its `## ` heading to the next.
pub(super) fn parse_decision(
    all: &[&str],
    section: Range<usize>,
    n: usize,
) -> Result<Decision, Diagnostic> {
    let heading = section.start;
    let line = heading + 1;
    let title = decision_title(&heading_text(all[heading]));
    let meta_lines = meta_block(all, &section);
    let fields = Fields::read(all, meta_lines.clone(), n, line)?;
    let id = decision_id(&fields, &title, n, line)?;
    let title = if title.is_empty() { id.clone() } else { title };
    let status = fields.status()?;
    let allow_custom = fields.allow_custom()?;

    let kind_name = kind_name(&fields)?;

    let rest = meta_lines.end.max(heading + 1)..section.end;
    // An edit decision's proposal is a code block: its lines are neither context nor options.
    let (proposal, proposal_lines) = match kind_name {
        "edit" => match proposal(all, rest.clone())? {
            Some((p, lines)) => (Some(p), lines),
            None => (None, section.end..section.end),
        },
        _ => (None, section.end..section.end),
    };
    let options_at = rest.clone().find(|&i| {
        !proposal_lines.contains(&i)
            && lines::content(all[i])
                .trim_start()
                .starts_with("**Options:**")
    });
    let context_end = options_at.unwrap_or(section.end).min(proposal_lines.start);
    let context = decision_context(all, rest.start..context_end);
    let options = match options_at {
        Some(at) => {
            let end = if proposal_lines.start > at {
                proposal_lines.start
            } else {
                section.end
            };
            parse_options(all, at + 1..end, &id)?
        }
        None => Vec::new(),
    };
    let kind = read_kind(&fields, kind_name, &options, allow_custom, proposal)?;
    let value = value_of(&fields, "answer", &kind)?;
    let default_value = value_of(&fields, "default", &kind)?;
    // `answer` and `default` as text: exactly as written for a choice, the typed value's text for the others.
    let (answer, default) = match kind {
        Kind::Choice => (fields.field("answer"), fields.field("default")),
        _ => (
            value.as_ref().map(AnswerValue::text),
            default_value.as_ref().map(AnswerValue::text),
        ),
    };
    if kind == Kind::Choice {
        check_default(&fields, default.as_deref(), &options)?;
    }
    let edited = fields.boolean("edited")?;
    let required = fields.boolean("required")?.unwrap_or(false);
    let carried = fields.boolean("carried")?.unwrap_or(false);
    let delegated_to = fields.user("delegated_to")?;
    let delegated_by = fields.user("delegated_by")?;

    let decision = Decision {
        id,
        title,
        status,
        answer,
        answered_at: fields.field("answered_at"),
        answered_by: fields.field("answered_by"),
        allow_custom,
        default,
        note: fields.field("note"),
        delegated_to,
        delegated_by,
        context,
        options,
        kind,
        value,
        default_value,
        edited,
        required,
        carried,
        line,
        meta_lines,
    };
    if decision.kind != Kind::Choice
        && let Some(value) = &decision.default_value
        && let Err(refusal) = input::check_value(&decision, value)
    {
        return Err(Diagnostic::new(
            fields.line("default"),
            format!(
                "`default: {}` does not fit this decision: {}",
                value.yaml(),
                refusal.reason
            ),
        ));
    }
    Ok(decision)
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

/// The block of `key: value` lines after the heading (blank lines before it skipped); empty, just after the
/// heading, when there is none.
fn meta_block(all: &[&str], section: &Range<usize>) -> Range<usize> {
    let heading = section.start;
    let mut meta_start = heading + 1;
    while meta_start < section.end && lines::is_blank(all[meta_start]) {
        meta_start += 1;
    }
    let mut meta_end = meta_start;
    while meta_end < section.end && meta_key(all[meta_end]).is_some() {
        meta_end += 1;
    }
    if meta_end > meta_start {
        meta_start..meta_end
    } else {
        heading + 1..heading + 1
    }
}

/// The decision's id: `id:` when given, else a slug of the title (`decision-N` when the slug is empty); a decision
/// with neither is refused.
fn decision_id(fields: &Fields, title: &str, n: usize, line: usize) -> Result<String, Diagnostic> {
    Ok(match fields.field("id") {
        Some(id) if !id.trim().is_empty() => id,
        _ => {
            if title.is_empty() {
                return Err(Diagnostic::new(
                    line,
                    format!("decision {} has neither an `id:` nor a title", n + 1),
                ));
            }
            let s = slug::slug(title);
            if s.is_empty() {
                format!("decision-{}", n + 1)
            } else {
                s
            }
        }
    })
}

/// The decision's context: the text after `**Context:**` when there is such a line, else every line of
/// `range` (between the keys and the options).
fn decision_context(all: &[&str], range: Range<usize>) -> String {
    let context_end = range.end;
    match range.clone().find(|&i| {
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
        None => block_text(all, range),
    }
}

/// `default:` names one of the decision's options.
fn check_default(
    fields: &Fields,
    default: Option<&str>,
    options: &[DecisionOption],
) -> Result<(), Diagnostic> {
    if let Some(key) = default
        && !options.iter().any(|o| o.key == key)
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
        return Err(Diagnostic::new(fields.line("default"), reason));
    }
    Ok(())
}
