//! Answer kinds (DESIGN.md Part 3): what shape of answer a decision takes, its constraints, and the typed answer
//! as the file records it.

use std::fmt;

use super::yaml_value;

/// What a decision asks for: decision key `kind` (default `choice`) with its keys.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Kind {
    /// One option (or a custom text): today's decisions.
    #[default]
    Choice,
    /// A set of options: at least `min`, at most `max` (both counted in options picked, a custom text counting
    /// as one). `max` is resolved at parse time (default: every option, plus one with `allow_custom`).
    Multi { min: usize, max: usize },
    /// A text: `min_length`..=`max_length` characters (Unicode scalar values), optionally of a `format`.
    Text {
        min_length: usize,
        max_length: usize,
        format: Option<TextFormat>,
    },
    /// A number within `minimum`..=`maximum`, a whole one when `integer`.
    Number {
        minimum: Option<Number>,
        maximum: Option<Number>,
        integer: bool,
    },
    /// Yes or no.
    Boolean,
    /// The agent's proposal, approved as is or edited. With `json` (`format: json`) an edit must be JSON of the
    /// proposal's top-level type.
    Edit { proposal: Proposal, json: bool },
}

/// Default `max_length` of a text answer.
pub const DEFAULT_MAX_LENGTH: usize = 4000;

impl Kind {
    /// Every kind's name as written after `kind:`.
    pub const NAMES: [&'static str; 6] = ["choice", "multi", "text", "number", "boolean", "edit"];

    /// The name written after `kind:`.
    #[must_use]
    pub fn name(&self) -> &'static str {
        match self {
            Kind::Choice => "choice",
            Kind::Multi { .. } => "multi",
            Kind::Text { .. } => "text",
            Kind::Number { .. } => "number",
            Kind::Boolean => "boolean",
            Kind::Edit { .. } => "edit",
        }
    }

    /// True for the kinds whose answer the human types (text, number) or approves/edits (edit), or says yes/no
    /// to: every kind but `choice` and `multi`.
    #[must_use]
    pub fn is_typed(&self) -> bool {
        matches!(
            self,
            Kind::Text { .. } | Kind::Number { .. } | Kind::Boolean | Kind::Edit { .. }
        )
    }

    /// The proposal of an `edit` decision.
    #[must_use]
    pub fn proposal(&self) -> Option<&Proposal> {
        match self {
            Kind::Edit { proposal, .. } => Some(proposal),
            _ => None,
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// `format` of a text answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextFormat {
    Email,
    Uri,
    /// `YYYY-MM-DD`, a real calendar date.
    Date,
    /// RFC 3339 (`2026-01-30T09:00:00Z`).
    DateTime,
}

impl TextFormat {
    pub const ALL: [TextFormat; 4] = [
        TextFormat::Email,
        TextFormat::Uri,
        TextFormat::Date,
        TextFormat::DateTime,
    ];

    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            TextFormat::Email => "email",
            TextFormat::Uri => "uri",
            TextFormat::Date => "date",
            TextFormat::DateTime => "date-time",
        }
    }

    #[must_use]
    pub fn parse(s: &str) -> Option<TextFormat> {
        TextFormat::ALL.into_iter().find(|f| f.as_str() == s)
    }
}

/// An `edit` decision's proposal: the fenced code block after `**Proposal:**`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Proposal {
    /// The code block's lines joined by `\n` (no final line break), exactly as written.
    pub text: String,
    /// The code block's info string (its first word): `bash`, `json`, …
    pub language: Option<String>,
    /// 1-based line of the `**Proposal:**` marker.
    pub line: usize,
}

/// Largest magnitude a [`Number`] may have: every whole number below it is exact in a 64-bit float, and is
/// written as a YAML integer every reader takes for that number.
pub const MAX_MAGNITUDE: f64 = 9_007_199_254_740_992.0; // 2^53

/// A finite number of at most [`MAX_MAGNITUDE`], never `-0`: what a `number` decision records.
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd)]
pub struct Number(f64);

// Never NaN (refused by `Number::new`), so equality is total.
impl Eq for Number {}

impl Number {
    /// `x` as a number an answer may hold: `None` for NaN, infinities and magnitudes of 2^53 and more; `-0` is `0`.
    #[must_use]
    pub fn new(x: f64) -> Option<Number> {
        (x.is_finite() && x.abs() < MAX_MAGNITUDE).then_some(Number(if x == 0.0 { 0.0 } else { x }))
    }

    #[must_use]
    pub fn get(self) -> f64 {
        self.0
    }

    /// True when it has no fraction.
    #[must_use]
    pub fn is_integer(self) -> bool {
        self.0.fract() == 0.0
    }

    /// The number as JSON: an integer when whole, else a float.
    #[must_use]
    pub fn to_json(self) -> serde_json::Value {
        if self.is_integer() {
            // Exact: a whole number below 2^53 in magnitude.
            #[allow(clippy::cast_possible_truncation)]
            serde_json::Value::from(self.0 as i64)
        } else {
            serde_json::Number::from_f64(self.0)
                .map_or(serde_json::Value::Null, serde_json::Value::Number)
        }
    }

    /// Reads a number as a YAML reader or an agent wrote it (`42`, `-3.5`, `1e3`, `1_000` is not one); `None` when
    /// it is not a decimal number [`Number::new`] accepts.
    #[must_use]
    pub fn read(text: &str) -> Option<Number> {
        let t = text.trim();
        let body = t.strip_prefix(['-', '+']).unwrap_or(t);
        let decimal = body.starts_with(|c: char| c.is_ascii_digit() || c == '.')
            && body
                .chars()
                .all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '-' | '+'));
        if !decimal {
            return None;
        }
        t.parse::<f64>().ok().and_then(Number::new)
    }
}

impl fmt::Display for Number {
    /// The number as the file records it: a whole number as an integer (`42`, `-7`), any other as a plain
    /// decimal with a point and no exponent (`0.5`, `0.0000001`): a YAML 1.1 reader (PyYAML) and a YAML 1.2
    /// reader both read it as this very number (1.1 needs the point of a float and an exponent's sign; shortest
    /// round-trip digits, so reading it back gives the same float).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_integer() {
            // Exact below 2^53.
            #[allow(clippy::cast_possible_truncation)]
            let whole = self.0 as i64;
            write!(f, "{whole}")
        } else {
            write!(f, "{}", self.0)
        }
    }
}

/// A recorded answer, typed by the decision's kind. For `choice` the option key (or custom text).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AnswerValue {
    /// `choice`, `text`, `edit` (the final text, or the key of an option picked beside the proposal).
    Text(String),
    /// `number`.
    Number(Number),
    /// `boolean`.
    Bool(bool),
    /// `multi`: the option keys picked, in option order (then a custom text, with `allow_custom`).
    List(Vec<String>),
}

impl AnswerValue {
    /// The value as YAML text after `answer:` (or `default:`): a string as [`yaml_value::scalar`] writes it, a
    /// number as [`Number`] displays, `true`/`false`, a flow list of [`yaml_value::flow_item`]s.
    #[must_use]
    pub fn yaml(&self) -> String {
        match self {
            AnswerValue::Text(s) => yaml_value::scalar(s),
            AnswerValue::Number(n) => n.to_string(),
            AnswerValue::Bool(b) => b.to_string(),
            AnswerValue::List(items) => {
                let items: Vec<String> = items.iter().map(|s| yaml_value::flow_item(s)).collect();
                format!("[{}]", items.join(", "))
            }
        }
    }

    /// The value as one text (what [`super::Decision::answer`] holds): the string, the number as written,
    /// `true`/`false`, a list's items joined by `, `.
    #[must_use]
    pub fn text(&self) -> String {
        match self {
            AnswerValue::Text(s) => s.clone(),
            AnswerValue::Number(n) => n.to_string(),
            AnswerValue::Bool(b) => b.to_string(),
            AnswerValue::List(items) => items.join(", "),
        }
    }

    /// The value as JSON: a string, a number, a boolean, a list of strings.
    #[must_use]
    pub fn to_json(&self) -> serde_json::Value {
        match self {
            AnswerValue::Text(s) => serde_json::Value::String(s.clone()),
            AnswerValue::Number(n) => n.to_json(),
            AnswerValue::Bool(b) => serde_json::Value::Bool(*b),
            AnswerValue::List(items) => serde_json::Value::from(items.clone()),
        }
    }
}

impl fmt::Display for AnswerValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text())
    }
}
