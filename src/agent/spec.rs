//! The JSON plan spec an agent may push instead of Markdown, and its rendering into the decision file format.

use schemars::JsonSchema;
use serde::Deserialize;

use crate::plan::slug::slug;

mod elicitation;
mod error;
mod read;
mod render;
mod validate;
mod verify;

pub use error::SpecError;
pub use read::{from_json, from_value};
pub use render::render;
pub use validate::validate;
pub use verify::verify;

/// A plan as JSON: what `arbiter push` (given JSON) and the MCP tool `arbiter_push` accept.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PlanSpec {
    /// Plan id; default: a fresh 8-character id. Refused if a pending plan already has it.
    #[serde(default)]
    pub id: Option<String>,
    /// What the plan is about, shown as its heading (one line).
    pub title: String,
    /// Short project tag shown in brackets in the queue.
    #[serde(default)]
    pub tag: Option<String>,
    /// low | normal | high | urgent (default normal).
    #[serde(default)]
    #[schemars(extend("enum" = ["low", "normal", "high", "urgent"]))]
    pub priority: Option<String>,
    /// Who asks (default `agent`; over MCP on HTTP, the name of the bearer token); the first part of the file name.
    #[serde(default)]
    pub agent: Option<String>,
    /// The machine token the plan comes with (set by the daemon, never read from the JSON).
    #[serde(skip)]
    #[schemars(skip)]
    pub machine: Option<String>,
    /// The asking agent's session.
    #[serde(default)]
    pub session: Option<String>,
    /// The session to notify on completion (default: session, else agent).
    #[serde(default)]
    pub notify_session: Option<String>,
    /// Background for the human (Markdown).
    #[serde(default)]
    pub context: Option<String>,
    /// When the answers are due: an RFC 3339 time, or a duration from now (`45s`, `90m`, `4h`, `2d`, `1h30m`).
    #[serde(default)]
    pub deadline: Option<String>,
    /// wait (default: the plan stays pending, shown overdue) | submit (defaults or skips, then submitted).
    #[serde(default)]
    #[schemars(extend("enum" = ["wait", "submit"]))]
    pub on_deadline: Option<String>,
    /// Remind the human this often while pending (a duration).
    #[serde(default)]
    pub remind_every: Option<String>,
    /// When to escalate to `escalate_to` if still pending: a duration from now, or an RFC 3339 time.
    #[serde(default)]
    pub escalate_after: Option<String>,
    /// Who gets the plan at `escalate_after`: Telegram user ids (or names from the config's `people`).
    #[serde(default)]
    pub escalate_to: Vec<Person>,
    /// Who may see and answer the plan (user ids, or names from the config's `people`); default: every allowed
    /// user.
    #[serde(default)]
    pub approvers: Vec<Person>,
    /// How many distinct approvers must sign off before the plan is submitted (default 1: one Submit).
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub require: Option<u32>,
    /// The questions, at least one.
    pub decisions: Vec<DecisionSpec>,
    /// Set when the spec was an MCP elicitation request (`message` + `requestedSchema`): the plan may be declined.
    #[serde(skip)]
    #[schemars(skip)]
    pub elicitation: bool,
    /// The agent's project folder (a hook's permission plan: `project`).
    #[serde(skip)]
    #[schemars(skip)]
    pub project: Option<String>,
    /// What a hook's permission plan asks to allow, for the standing rule its `🔁 Always allow this` or `⏱ Allow
    /// … for N min` option makes (`rule_tool`, `rule_command`, `grant_minutes`).
    #[serde(skip)]
    #[schemars(skip)]
    pub ruling: Option<crate::plan::Ruling>,
    /// The plan this one follows up (a hook's finished card: the session's previous card), written as
    /// `reply_to`: the bot sends its announcement as a reply to that plan's. Not part of the JSON spec.
    #[serde(skip)]
    #[schemars(skip)]
    pub reply_to: Option<String>,
}

/// Someone a plan names: a Telegram user id, or a name.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum Person {
    Id(u64),
    Name(String),
}

/// One question of a [`PlanSpec`].
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DecisionSpec {
    /// Decision id; default: a slug of the title. Unique within the plan.
    #[serde(default)]
    pub id: Option<String>,
    /// The question in a few words (one line).
    pub title: String,
    /// Background for this question (Markdown).
    #[serde(default)]
    pub context: Option<String>,
    /// Whether the human may type an answer of their own (`choice` and `multi`).
    #[serde(default)]
    pub allow_custom: bool,
    /// What shape of answer: choice (default: one option), multi (a set of options), text, number, boolean
    /// (yes/no), edit (the `proposal` approved as is or edited).
    #[serde(default)]
    #[schemars(extend("enum" = ["choice", "multi", "text", "number", "boolean", "edit"]))]
    pub kind: Option<String>,
    /// multi: the fewest options to pick (default 1).
    #[serde(default)]
    pub min: Option<u32>,
    /// multi: the most options to pick (default: all).
    #[serde(default)]
    pub max: Option<u32>,
    /// text: the fewest characters (default 0).
    #[serde(default)]
    pub min_length: Option<u32>,
    /// text: the most characters (default 4000).
    #[serde(default)]
    pub max_length: Option<u32>,
    /// text: email | uri | date | date-time; edit: json (an edit must be JSON of the proposal's top-level type).
    #[serde(default)]
    #[schemars(extend("enum" = ["email", "uri", "date", "date-time", "json"]))]
    pub format: Option<String>,
    /// number: the smallest number accepted.
    #[serde(default)]
    pub minimum: Option<f64>,
    /// number: the largest number accepted.
    #[serde(default)]
    pub maximum: Option<f64>,
    /// number: whole numbers only.
    #[serde(default)]
    pub integer: bool,
    /// edit: the proposal the human approves as is or edits (shown as a code block).
    #[serde(default)]
    pub proposal: Option<String>,
    /// edit: the proposal's language (the code block's info string: `bash`, `json`, …).
    #[serde(default)]
    pub language: Option<String>,
    /// The answer the deadline gives (`on_deadline: submit`), a value of the decision's kind: an option key
    /// (choice), a list of option keys (multi), a string, a number, a boolean.
    #[serde(default)]
    pub default: Option<serde_json::Value>,
    /// The human must answer it: it can't be skipped.
    #[serde(default)]
    pub required: bool,
    /// The choices (choice, multi; beside an edit's proposal, e.g. `reject`); none makes a free-text question.
    #[serde(default)]
    pub options: Vec<OptionSpec>,
}

/// One choice of a [`DecisionSpec`].
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OptionSpec {
    /// What is recorded as the answer (one line, no backticks).
    pub key: String,
    /// What the human reads; default: the key.
    #[serde(default)]
    pub label: Option<String>,
}

impl OptionSpec {
    /// The label as written into the file: trimmed, the key when there is none.
    #[must_use]
    pub fn label_or_key(&self) -> &str {
        match self.label.as_deref().map(str::trim) {
            Some(label) if !label.is_empty() => label,
            _ => self.key.trim(),
        }
    }
}

/// The decision ids the spec asks for: given ones, else slugs of the titles (`decision-N` when the slug is empty).
#[must_use]
pub fn decision_ids(spec: &PlanSpec) -> Vec<String> {
    spec.decisions
        .iter()
        .enumerate()
        .map(|(n, d)| match &d.id {
            Some(id) => id.trim().to_owned(),
            None => {
                let s = slug(&d.title);
                if s.is_empty() {
                    format!("decision-{}", n + 1)
                } else {
                    s
                }
            }
        })
        .collect()
}

#[cfg(test)]
mod tests;
