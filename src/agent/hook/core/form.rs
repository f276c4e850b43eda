//! Claude Code's `Elicitation` hook: an MCP server's form, asked as an elicitation plan (each field a decision of
//! its kind, `❌ Decline` beside Submit), answered with the MCP result: `accept` with the typed content, or
//! `decline`.

use serde_json::{Value, json};

use crate::agent::report::elicitation_result;
use crate::agent::spec::{self, PlanSpec};
use crate::plan::Plan;

use super::Origin;
use super::permission::PlanOptions;
use super::plan_mode::demote_headings;
use super::text::{code_span, cut, one_line, project};

/// An MCP server's form request, as the agent relays it.
#[derive(Debug, Clone, PartialEq)]
pub struct FormInput {
    pub origin: Origin,
    /// The MCP server asking.
    pub server: String,
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
    if input.mode != "form" {
        return Err(format!(
            "`{}` asks for a {} elicitation, which must be opened in {}",
            input.server, input.mode, input.origin.agent.display
        ));
    }
    let mut about = format!(
        "Asked by the MCP server {} through {}",
        code_span(&one_line(&input.server)),
        input.origin.agent.display
    );
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
        "title": cut(&format!("{}: {}", one_line(&input.server), one_line(first)), 100),
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
    spec::from_value(request).map_err(|e| {
        format!(
            "the form of `{}` can't be asked as a plan: {e}",
            input.server
        )
    })
}

/// The MCP result of a completed form plan: `{"action": "accept", "content": {…}}` or `{"action": "decline"}`.
#[must_use]
pub fn result(plan: &Plan) -> Option<Value> {
    elicitation_result(plan)
}
