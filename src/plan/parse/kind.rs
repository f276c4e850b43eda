//! A decision's answer kind (`kind` and its keys), its `edit` proposal, and its answer and default read as values
//! of that kind.

use std::ops::Range;

use super::fields::Fields;
use crate::plan::kind::{DEFAULT_MAX_LENGTH, Kind, Proposal, TextFormat};
use crate::plan::{AnswerValue, DecisionOption, Diagnostic, Number, lines};

/// The keys each kind takes besides the common ones; given with another kind (named by `kind:`), a diagnosis.
const KIND_KEYS: [(&str, &[&str]); 4] = [
    ("multi", &["min", "max"]),
    ("text", &["min_length", "max_length", "format"]),
    ("number", &["minimum", "maximum", "integer"]),
    ("edit", &["format"]),
];

/// The kind named by `kind:` (`choice` when absent), before its keys are read.
pub(super) fn kind_name(fields: &Fields) -> Result<&'static str, Diagnostic> {
    match fields.field("kind") {
        None => Ok("choice"),
        Some(name) => Kind::NAMES.into_iter().find(|n| *n == name).ok_or_else(|| {
            Diagnostic::new(
                fields.line("kind"),
                format!(
                    "unknown kind `{name}`: use {}",
                    Kind::NAMES.join(", ").replacen(", edit", " or edit", 1)
                ),
            )
        }),
    }
}

/// The proposal of an `edit` decision: the fenced code block after the `**Proposal:**` line in `range`, with the
/// lines it takes (the marker to the closing fence), or `None` when there is no marker.
pub(super) fn proposal(
    all: &[&str],
    range: Range<usize>,
) -> Result<Option<(Proposal, Range<usize>)>, Diagnostic> {
    let Some(marker) = range.clone().find(|&i| {
        lines::content(all[i])
            .trim_start()
            .starts_with("**Proposal:**")
    }) else {
        return Ok(None);
    };
    let mut open = marker + 1;
    while open < range.end && lines::is_blank(all[open]) {
        open += 1;
    }
    let fence = (open < range.end)
        .then(|| opening_fence(lines::content(all[open])))
        .flatten()
        .ok_or_else(|| {
            Diagnostic::new(
                marker + 1,
                "`**Proposal:**` must be followed by a fenced code block (```) holding the proposal",
            )
        })?;
    let (indent, mark, len, info) = fence;
    let close = (open + 1..range.end)
        .find(|&i| closes(lines::content(all[i]), mark, len))
        .ok_or_else(|| {
            Diagnostic::new(
                open + 1,
                format!(
                    "the proposal's code block is not closed: end it with a {} line",
                    mark.to_string().repeat(len)
                ),
            )
        })?;
    let text = all[open + 1..close]
        .iter()
        .map(|l| strip_indent(lines::content(l), indent))
        .collect::<Vec<_>>()
        .join("\n");
    let language = info.split_whitespace().next().map(str::to_owned);
    Ok(Some((
        Proposal {
            text,
            language,
            line: marker + 1,
        },
        marker..close + 1,
    )))
}

/// A fence opening line: its indent (at most 3 spaces), its character, its length (3 or more) and its info
/// string (a backtick fence's has no backtick).
fn opening_fence(line: &str) -> Option<(usize, char, usize, &str)> {
    let t = line.trim_start_matches(' ');
    let indent = line.len() - t.len();
    let mark = t.chars().next().filter(|c| matches!(c, '`' | '~'))?;
    let len = t.len() - t.trim_start_matches(mark).len();
    let info = t[len..].trim();
    (indent <= 3 && len >= 3 && !(mark == '`' && info.contains('`')))
        .then_some((indent, mark, len, info))
}

fn closes(line: &str, mark: char, len: usize) -> bool {
    let t = line.trim_start_matches(' ');
    let run = t.len() - t.trim_start_matches(mark).len();
    line.len() - t.len() <= 3 && run >= len && t[run..].trim().is_empty()
}

/// `line` without up to `indent` leading spaces (CommonMark: a fence's indent is taken off its content).
fn strip_indent(line: &str, indent: usize) -> &str {
    let spaces = line.len() - line.trim_start_matches(' ').len();
    &line[spaces.min(indent)..]
}

/// The kind `name` with its keys, checked against the decision's options and proposal.
pub(super) fn read_kind(
    fields: &Fields,
    name: &str,
    options: &[DecisionOption],
    allow_custom: bool,
    proposal: Option<Proposal>,
) -> Result<Kind, Diagnostic> {
    if fields.field("kind").is_some() {
        for (kind, keys) in KIND_KEYS {
            for key in keys.iter().filter(|k| fields.has(k)) {
                let applies = KIND_KEYS
                    .iter()
                    .any(|(k, ks)| *k == name && ks.contains(key));
                if !applies {
                    return Err(Diagnostic::new(
                        fields.line(key),
                        format!(
                            "`{key}` does not apply to a {name} decision (it is a key of {kind})"
                        ),
                    ));
                }
            }
        }
    }
    let no_options = |what: &str| -> Result<(), Diagnostic> {
        if options.is_empty() {
            Ok(())
        } else {
            Err(Diagnostic::new(
                fields.line("kind"),
                format!(
                    "a {what} decision has no `**Options:**` list: remove it, or use kind choice"
                ),
            ))
        }
    };
    Ok(match name {
        "multi" => multi(fields, options, allow_custom)?,
        "text" => {
            no_options("text")?;
            text(fields)?
        }
        "number" => {
            no_options("number")?;
            number(fields)?
        }
        "boolean" => {
            no_options("boolean")?;
            Kind::Boolean
        }
        "edit" => edit(fields, proposal)?,
        _ => Kind::Choice,
    })
}

fn multi(
    fields: &Fields,
    options: &[DecisionOption],
    allow_custom: bool,
) -> Result<Kind, Diagnostic> {
    if options.is_empty() {
        return Err(Diagnostic::new(
            fields.line("kind"),
            "a multi decision needs an `**Options:**` list to pick from",
        ));
    }
    let offered = options.len() + usize::from(allow_custom);
    let plural = if options.len() == 1 { "" } else { "s" };
    let what = if allow_custom {
        format!("{} option{plural} and a custom answer", options.len())
    } else {
        format!("{} option{plural}", options.len())
    };
    let min = fields.count("min")?.unwrap_or(1);
    let max = fields.count("max")?;
    if min > offered {
        return Err(Diagnostic::new(
            fields.line("min"),
            format!("`min: {min}` is more than this decision offers ({what})"),
        ));
    }
    if let Some(max) = max {
        if max == 0 {
            return Err(Diagnostic::new(
                fields.line("max"),
                "`max` must be at least 1",
            ));
        }
        if max < min {
            return Err(Diagnostic::new(
                fields.line("max"),
                format!("`max: {max}` is less than `min: {min}`"),
            ));
        }
        if max > offered {
            return Err(Diagnostic::new(
                fields.line("max"),
                format!("`max: {max}` is more than this decision offers ({what})"),
            ));
        }
    }
    Ok(Kind::Multi {
        min,
        max: max.unwrap_or(offered),
    })
}

fn text(fields: &Fields) -> Result<Kind, Diagnostic> {
    let min_length = fields.count("min_length")?.unwrap_or(0);
    let max_length = fields.count("max_length")?.unwrap_or(DEFAULT_MAX_LENGTH);
    if max_length == 0 {
        return Err(Diagnostic::new(
            fields.line("max_length"),
            "`max_length` must be at least 1",
        ));
    }
    if min_length > max_length {
        return Err(Diagnostic::new(
            fields.line("min_length"),
            format!("`min_length: {min_length}` is more than `max_length: {max_length}`"),
        ));
    }
    let format = match fields.field("format") {
        None => None,
        Some(f) => Some(TextFormat::parse(&f).ok_or_else(|| {
            Diagnostic::new(
                fields.line("format"),
                format!("unknown text format `{f}`: use email, uri, date or date-time"),
            )
        })?),
    };
    Ok(Kind::Text {
        min_length,
        max_length,
        format,
    })
}

fn number(fields: &Fields) -> Result<Kind, Diagnostic> {
    let minimum = fields.number("minimum")?;
    let maximum = fields.number("maximum")?;
    let integer = fields.boolean("integer")?.unwrap_or(false);
    if let (Some(lo), Some(hi)) = (minimum, maximum)
        && lo > hi
    {
        return Err(Diagnostic::new(
            fields.line("minimum"),
            format!("`minimum: {lo}` is more than `maximum: {hi}`"),
        ));
    }
    if integer
        && let (Some(lo), Some(hi)) = (minimum, maximum)
        && lo.get().ceil() > hi.get().floor()
    {
        return Err(Diagnostic::new(
            fields.line("minimum"),
            format!("no whole number lies between `minimum: {lo}` and `maximum: {hi}`"),
        ));
    }
    Ok(Kind::Number {
        minimum,
        maximum,
        integer,
    })
}

fn edit(fields: &Fields, proposal: Option<Proposal>) -> Result<Kind, Diagnostic> {
    let json = match fields.field("format").as_deref() {
        None => false,
        Some("json") => true,
        Some(other) => {
            return Err(Diagnostic::new(
                fields.line("format"),
                format!(
                    "unknown edit format `{other}`: an edit decision takes only `format: json`"
                ),
            ));
        }
    };
    let proposal = proposal.ok_or_else(|| {
        Diagnostic::new(
            fields.line("kind"),
            "an edit decision needs its proposal: a `**Proposal:**` line followed by a fenced code block",
        )
    })?;
    if json && let Err(e) = serde_json::from_str::<serde_json::Value>(&proposal.text) {
        return Err(Diagnostic::new(
            proposal.line,
            format!("the proposal is not JSON (`format: json`): {e}"),
        ));
    }
    Ok(Kind::Edit { proposal, json })
}

/// A value of `key` (`answer` or `default`) read as a value of `kind`: a flow list for `multi` (one value is a
/// list of one), a number for `number`, `true`/`false` for `boolean`, the text for the others. A list for a kind
/// that takes one value, or a value that is not of the kind, is a diagnosis.
pub(super) fn value_of(
    fields: &Fields,
    key: &str,
    kind: &Kind,
) -> Result<Option<AnswerValue>, Diagnostic> {
    if let Kind::Multi { .. } = kind {
        if let Some(items) = fields.list(key) {
            return Ok(Some(AnswerValue::List(items.to_vec())));
        }
        return Ok(fields.field(key).map(|s| AnswerValue::List(vec![s])));
    }
    fields.no_list(key)?;
    let Some(text) = fields.field(key) else {
        return Ok(None);
    };
    Ok(Some(match kind {
        Kind::Number { .. } => AnswerValue::Number(Number::read(&text).ok_or_else(|| {
            Diagnostic::new(
                fields.line(key),
                format!("`{key}: {text}` is not a number (this is a number decision)"),
            )
        })?),
        Kind::Boolean => AnswerValue::Bool(match text.as_str() {
            "true" => true,
            "false" => false,
            _ => {
                return Err(Diagnostic::new(
                    fields.line(key),
                    format!("`{key}: {text}` must be true or false (this is a boolean decision)"),
                ));
            }
        }),
        _ => AnswerValue::Text(text),
    }))
}
