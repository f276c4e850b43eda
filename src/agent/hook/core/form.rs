//! A form: an MCP server's (Claude Code's `Elicitation` hook) or an agent's own question tool in that shape
//! (Copilot's `ask_user`), asked as an elicitation plan (each field a decision of its kind, `❌ Decline` beside
//! Submit). Claude Code takes the MCP result (`accept` with the typed content, or `decline`); an agent's tool call
//! is denied with the answers as the reason the model reads.

use serde_json::{Value, json};

use crate::agent::report::{elicitation_result, text_of};
use crate::agent::spec::{self, PlanSpec};
use crate::plan::Plan;

use super::permission::PlanOptions;
use super::plan_mode::demote_headings;
use super::text::{code_span, cut, one_line, project};
use super::{AnswerBy, Event, Origin, Verdict};

/// A form request, as the agent relays it.
#[derive(Debug, Clone, PartialEq)]
pub struct FormInput {
    pub origin: Origin,
    /// The hook event it came with.
    pub event: Event,
    /// The MCP server asking; `None`: the agent itself (its question tool).
    pub server: Option<String>,
    /// How the answers go back.
    pub answer: AnswerBy,
    /// What the server tells the user.
    pub message: String,
    /// `form` (a schema of fields) or `url` (a page to open: not a form the hook can fill).
    pub mode: String,
    /// The form's JSON schema (`requested_schema`).
    pub requested_schema: Value,
}

/// The plan asking the server's form, or why it can't be asked here (a `url` form, a schema that isn't a form
/// of flat fields).
pub fn plan_spec(input: &FormInput, options: &PlanOptions) -> Result<PlanSpec, String> {
    let agent = input.origin.agent;
    let asker = input.server.as_deref().unwrap_or(agent.short);
    if input.mode != "form" {
        return Err(format!(
            "`{asker}` asks for a {} elicitation, which must be opened in {}",
            input.mode, agent.display
        ));
    }
    let mut about = match &input.server {
        Some(server) => format!(
            "Asked by the MCP server {} through {}",
            code_span(&one_line(server)),
            agent.display
        ),
        None => format!("{} asks you", agent.display),
    };
    if let Some(cwd) = &input.origin.cwd {
        about.push_str(&format!(" in {}", code_span(&one_line(cwd))));
    }
    about.push('.');
    let first = input
        .message
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or_default();
    let mut request = json!({
        "message": demote_headings(&input.message),
        "requestedSchema": input.requested_schema,
        "title": cut(&match &input.server {
            Some(server) => format!("{}: {}", one_line(server), one_line(first)),
            None => format!("{} asks: {}", agent.short, one_line(first)),
        }, 100),
        "context": about,
        "agent": input.origin.agent.name,
        "priority": options.priority.as_deref().unwrap_or("normal"),
    });
    let tag = options
        .tag
        .clone()
        .or_else(|| project(input.origin.cwd.as_deref()));
    for (key, value) in [
        ("session", input.origin.session.clone()),
        ("tag", tag),
        ("deadline", options.deadline.clone()),
    ] {
        if let Some(value) = value {
            request[key] = Value::String(value);
        }
    }
    spec::from_value(request)
        .map_err(|e| format!("the form of `{asker}` can't be asked as a plan: {e}"))
}

/// The MCP result of a completed form plan: `{"action": "accept", "content": {…}}` or `{"action": "decline"}`.
#[must_use]
pub fn result(plan: &Plan) -> Option<Value> {
    elicitation_result(plan)
}

/// The verdict a completed form plan holds, as `input` takes its answers.
#[must_use]
pub fn verdict(plan: &Plan, input: &FormInput) -> Verdict {
    let Some(result) = result(plan) else {
        return Verdict::Ask {
            reason: "The Arbiter form has no result".to_owned(),
        };
    };
    if input.answer == AnswerBy::UpdatedInput {
        return Verdict::Form(result);
    }
    let content = match result.get("content") {
        Some(Value::Object(content)) if result["action"] == "accept" => content,
        _ => {
            return Verdict::Deny {
                reason: "The user declined to answer.".to_owned(),
            };
        }
    };
    let answers: Vec<(&String, String)> = content.iter().map(|(k, v)| (k, text_of(v))).collect();
    Verdict::Deny {
        reason: match answers.as_slice() {
            [] => "The user answered nothing.".to_owned(),
            [(_, answer)] => format!("The user answered: {answer}"),
            all => {
                let lines: Vec<String> = all.iter().map(|(k, a)| format!("- {k}: {a}")).collect();
                format!("The user answered:\n{}", lines.join("\n"))
            }
        },
    }
}
