//! What a human may answer a decision with, by its kind: reading what they typed or picked into a typed value, or
//! a refusal that says what is accepted. Pure; every front end (Telegram, the dashboard) and the edit layer use
//! it, so the prompt and the refusal say the same thing everywhere.

use std::fmt;

use super::kind::{Kind, TextFormat};
use super::{AnswerValue, Decision, Number};

/// Why an input was not taken: `reason` (what was wrong) and `prompt` (what is accepted, [`prompt_for`]). The
/// display text is both: `` `12abc` is not a number. Send a whole number from 1 to 10. ``
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputRefusal {
    pub reason: String,
    pub prompt: String,
}

impl fmt::Display for InputRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.reason, self.prompt)
    }
}

impl std::error::Error for InputRefusal {}

/// The sentence stating what decision `d` accepts: the prompt of a force reply, repeated after a refusal.
#[must_use]
pub fn prompt_for(d: &Decision) -> String {
    match &d.kind {
        Kind::Choice if d.options.is_empty() => "Send your answer as text.".to_owned(),
        Kind::Choice => "Pick one option, or send your own answer as text.".to_owned(),
        Kind::Multi { min, max } => {
            let span = match (*min, *max) {
                (lo, hi) if lo == hi => format!("exactly {lo}"),
                (0, hi) => format!("up to {hi}"),
                (lo, hi) => format!("from {lo} to {hi}"),
            };
            let noun = if *min == 1 && *max == 1 {
                "option"
            } else {
                "options"
            };
            let custom = if d.allow_custom {
                " (your own text counts as one)"
            } else {
                ""
            };
            format!("Pick {span} {noun}{custom}, then tap Done.")
        }
        Kind::Text {
            min_length,
            max_length,
            format,
        } => {
            let what = match format {
                None => "a text".to_owned(),
                Some(TextFormat::Email) => "an email address (name@example.com)".to_owned(),
                Some(TextFormat::Uri) => {
                    "a URI with its scheme (https://example.com/page)".to_owned()
                }
                Some(TextFormat::Date) => "a date as YYYY-MM-DD (2026-01-30)".to_owned(),
                Some(TextFormat::DateTime) => {
                    "a date and time as RFC 3339 (2026-01-30T09:00:00Z)".to_owned()
                }
            };
            let length = match (*min_length, *max_length) {
                (0, hi) => format!("up to {hi} characters"),
                (lo, hi) if lo == hi => format!("exactly {lo} characters"),
                (lo, hi) => format!("{lo} to {hi} characters"),
            };
            if format.is_some() && *min_length == 0 {
                format!("Send {what}.")
            } else if format.is_some() {
                format!("Send {what}, {length}.")
            } else {
                format!("Send {what} of {length}.")
            }
        }
        Kind::Number {
            minimum,
            maximum,
            integer,
        } => {
            let what = if *integer {
                "a whole number"
            } else {
                "a number"
            };
            match (minimum, maximum) {
                (Some(lo), Some(hi)) => format!("Send {what} from {lo} to {hi}."),
                (Some(lo), None) => format!("Send {what} of at least {lo}."),
                (None, Some(hi)) => format!("Send {what} of at most {hi}."),
                (None, None) => format!("Send {what}."),
            }
        }
        Kind::Boolean => "Answer yes or no.".to_owned(),
        Kind::Edit { json, proposal } => {
            if *json {
                let shape = json_shape(&proposal.text).unwrap_or("JSON value");
                format!(
                    "Send the edited version of the proposal: JSON, {} {shape} like the proposal.",
                    article(shape)
                )
            } else {
                "Send the edited version of the proposal.".to_owned()
            }
        }
    }
}

/// Reads what the human typed for a decision whose answer is typed (`text`, `number`, `boolean`, `edit`; for
/// `choice` a custom answer): the value to record, or a refusal. Text is taken exactly as typed (an empty or
/// blank one is refused); numbers and yes/no are trimmed.
pub fn read_input(d: &Decision, typed: &str) -> Result<AnswerValue, InputRefusal> {
    let refuse = |reason: String| InputRefusal {
        reason,
        prompt: prompt_for(d),
    };
    match &d.kind {
        Kind::Choice | Kind::Multi { .. } => {
            if typed.trim().is_empty() {
                return Err(refuse("The answer can't be empty.".to_owned()));
            }
            Ok(AnswerValue::Text(typed.to_owned()))
        }
        Kind::Text { .. } => {
            let value = AnswerValue::Text(typed.to_owned());
            check_value(d, &value)?;
            Ok(value)
        }
        Kind::Number { .. } => {
            let n = read_number(typed.trim()).map_err(refuse)?;
            let value = AnswerValue::Number(n);
            check_value(d, &value)?;
            Ok(value)
        }
        Kind::Boolean => {
            let t = typed.trim().to_lowercase();
            match t.as_str() {
                "yes" | "y" | "true" | "✅" => Ok(AnswerValue::Bool(true)),
                "no" | "n" | "false" | "❌" => Ok(AnswerValue::Bool(false)),
                _ => Err(refuse(format!(
                    "`{}` is not yes or no.",
                    short(typed.trim())
                ))),
            }
        }
        Kind::Edit { .. } => {
            let value = AnswerValue::Text(typed.to_owned());
            check_value(d, &value)?;
            Ok(value)
        }
    }
}

/// Reads a `multi` decision's picks (option indices; duplicates count once) and an optional custom text (with
/// `allow_custom`) into the list to record, in option order, the custom text last; or a refusal when the count
/// is outside `min`…`max`, an index is no option, or a custom text is not allowed.
pub fn read_picks(
    d: &Decision,
    picks: &[usize],
    custom: Option<&str>,
) -> Result<AnswerValue, InputRefusal> {
    let refuse = |reason: String| InputRefusal {
        reason,
        prompt: prompt_for(d),
    };
    if !matches!(d.kind, Kind::Multi { .. }) {
        return Err(refuse(format!(
            "This is a {} decision, not a multi one.",
            d.kind
        )));
    }
    if let Some(&bad) = picks.iter().find(|&&i| i >= d.options.len()) {
        return Err(refuse(format!("There is no option {}.", bad + 1)));
    }
    let mut keys: Vec<String> = d
        .options
        .iter()
        .enumerate()
        .filter(|(i, _)| picks.contains(i))
        .map(|(_, o)| o.key.clone())
        .collect();
    if let Some(text) = custom {
        if !d.allow_custom {
            return Err(refuse(
                "This decision takes no answer of your own.".to_owned(),
            ));
        }
        if text.trim().is_empty() {
            return Err(refuse("Your own answer can't be empty.".to_owned()));
        }
        if !keys.iter().any(|k| k == text) {
            keys.push(text.to_owned());
        }
    }
    let value = AnswerValue::List(keys);
    check_value(d, &value)?;
    Ok(value)
}

/// Checks that `value` is an answer `d` accepts (its kind, its constraints): used for what the human gave, and
/// for a `default`.
pub fn check_value(d: &Decision, value: &AnswerValue) -> Result<(), InputRefusal> {
    let refuse = |reason: String| {
        Err(InputRefusal {
            reason,
            prompt: prompt_for(d),
        })
    };
    let is_key = |k: &str| d.options.iter().any(|o| o.key == k);
    match (&d.kind, value) {
        (Kind::Choice, AnswerValue::Text(t)) => {
            if t.trim().is_empty() {
                return refuse("The answer can't be empty.".to_owned());
            }
        }
        (Kind::Multi { min, max }, AnswerValue::List(keys)) => {
            let custom: Vec<&String> = keys.iter().filter(|k| !is_key(k)).collect();
            if custom.len() > usize::from(d.allow_custom) {
                let key = custom.last().map_or("", |k| k.as_str());
                return refuse(format!("`{}` is not one of the options.", short(key)));
            }
            let mut distinct = keys.clone();
            distinct.sort();
            distinct.dedup();
            if distinct.len() != keys.len() {
                return refuse("An option is picked twice.".to_owned());
            }
            let n = keys.len();
            if n < *min || n > *max {
                let picked = match n {
                    0 => "nothing".to_owned(),
                    1 => "1 option".to_owned(),
                    n => format!("{n} options"),
                };
                return refuse(format!("You picked {picked}."));
            }
        }
        (
            Kind::Text {
                min_length,
                max_length,
                format,
            },
            AnswerValue::Text(t),
        ) => {
            if t.trim().is_empty() {
                return refuse("The answer can't be empty.".to_owned());
            }
            let n = t.chars().count();
            if n > *max_length {
                return refuse(format!(
                    "That text has {n} characters, more than {max_length}."
                ));
            }
            if n < *min_length {
                return refuse(format!(
                    "That text has {n} characters, fewer than {min_length}."
                ));
            }
            if let Some(f) = format
                && let Err(reason) = check_format(*f, t)
            {
                return refuse(reason);
            }
        }
        (
            Kind::Number {
                minimum,
                maximum,
                integer,
            },
            AnswerValue::Number(n),
        ) => {
            if *integer && !n.is_integer() {
                return refuse(format!("{n} is not a whole number."));
            }
            if minimum.is_some_and(|lo| *n < lo) || maximum.is_some_and(|hi| *n > hi) {
                return refuse(format!("{n} is out of range."));
            }
        }
        (Kind::Boolean, AnswerValue::Bool(_)) => {}
        (Kind::Edit { proposal, json }, AnswerValue::Text(t)) => {
            if is_key(t) {
                return Ok(());
            }
            if t.trim().is_empty() {
                return refuse("The edited version can't be empty.".to_owned());
            }
            if *json {
                let edited: serde_json::Value = match serde_json::from_str(t) {
                    Ok(v) => v,
                    Err(e) => return refuse(format!("That is not JSON ({e}).")),
                };
                let want = json_shape(&proposal.text);
                let got = shape_of(&edited);
                if want.is_some_and(|w| w != got) {
                    return refuse(format!(
                        "That is JSON, but {} {got}, not {} {} like the proposal.",
                        article(got),
                        article(want.unwrap_or("")),
                        want.unwrap_or("")
                    ));
                }
            }
        }
        (kind, other) => {
            return refuse(format!(
                "`{}` is not an answer of a {kind} decision.",
                short(&other.text())
            ));
        }
    }
    Ok(())
}

/// A number as a human types it: an optional sign, digits, an optional fraction (`42`, `-3.5`, `.5`); no
/// exponent, hex, `NaN`, infinity, `-0`, separators or trailing text, and below 2^53 in size.
fn read_number(t: &str) -> Result<Number, String> {
    let body = t.strip_prefix(['-', '+']).unwrap_or(t);
    let (whole, fraction) = body.split_once('.').unwrap_or((body, ""));
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    let written_out = !body.is_empty()
        && body != "."
        && digits(whole)
        && digits(fraction)
        && body.matches('.').count() <= 1;
    if !written_out {
        return Err(format!("`{}` is not a number written in digits.", short(t)));
    }
    let x: f64 = t
        .parse()
        .map_err(|_| format!("`{}` is not a number written in digits.", short(t)))?;
    if x == 0.0 && t.starts_with('-') {
        return Err(format!(
            "`{}` is not a number I can record: send 0.",
            short(t)
        ));
    }
    Number::new(x).ok_or_else(|| format!("`{}` is too large.", short(t)))
}

/// Checks a text against its `format`; the error is the reason.
fn check_format(format: TextFormat, t: &str) -> Result<(), String> {
    let ok = match format {
        TextFormat::Email => is_email(t),
        TextFormat::Uri => is_uri(t),
        TextFormat::Date => {
            t.len() == 10 && chrono::NaiveDate::parse_from_str(t, "%Y-%m-%d").is_ok()
        }
        TextFormat::DateTime => chrono::DateTime::parse_from_rfc3339(t).is_ok(),
    };
    if ok {
        return Ok(());
    }
    Err(match format {
        TextFormat::Email => format!("`{}` is not an email address.", short(t)),
        TextFormat::Uri => format!("`{}` is not a URI with a scheme.", short(t)),
        TextFormat::Date => format!("`{}` is not a date.", short(t)),
        TextFormat::DateTime => format!("`{}` is not an RFC 3339 date and time.", short(t)),
    })
}

/// `local@domain`: one `@`, no white space, something before it, and a domain with a dot inside.
fn is_email(t: &str) -> bool {
    let Some((local, domain)) = t.split_once('@') else {
        return false;
    };
    !local.is_empty()
        && !domain.contains('@')
        && !t.chars().any(char::is_whitespace)
        && domain
            .split_once('.')
            .is_some_and(|(a, b)| !a.is_empty() && !b.is_empty() && !domain.ends_with('.'))
}

/// `scheme:rest` (RFC 3986): a letter, then letters, digits, `+`, `-`, `.`; a colon; something after it; no white
/// space.
fn is_uri(t: &str) -> bool {
    let Some((scheme, rest)) = t.split_once(':') else {
        return false;
    };
    scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
        && !rest.is_empty()
        && !t.chars().any(char::is_whitespace)
}

/// The top-level type of the JSON text `t` (`object`, `array`, …), when it is JSON.
fn json_shape(t: &str) -> Option<&'static str> {
    serde_json::from_str::<serde_json::Value>(t)
        .ok()
        .map(|v| shape_of(&v))
}

fn shape_of(v: &serde_json::Value) -> &'static str {
    match v {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "boolean",
        serde_json::Value::Number(_) => "number",
        serde_json::Value::String(_) => "string",
        serde_json::Value::Array(_) => "array",
        serde_json::Value::Object(_) => "object",
    }
}

fn article(noun: &str) -> &'static str {
    if noun.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    }
}

/// At most 40 characters of what was typed, for quoting it back.
fn short(t: &str) -> String {
    let line = t.lines().next().unwrap_or("");
    if line.chars().count() > 40 || line.len() != t.len() {
        format!("{}…", line.chars().take(40).collect::<String>())
    } else {
        line.to_owned()
    }
}

#[cfg(test)]
mod tests;
