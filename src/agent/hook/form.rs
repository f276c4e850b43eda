//! Claude Code's `Elicitation` hook: an MCP server's form, asked as an elicitation plan (each field a decision of
//! its kind, `❌ Decline` beside Submit), answered with the MCP result: `accept` with the typed content, or
//! `decline`.

use serde_json::{Value, json};

use crate::agent::report::elicitation_result;
use crate::agent::spec::{self, PlanSpec};
use crate::plan::Plan;

use super::input::FormInput;
use super::plan_mode::demote_headings;
use super::question::{AGENT, PlanOptions, code_span, cut, one_line};

/// The plan asking the server's form, or why it can't be asked here (a `url` form, a schema that isn't a form
/// of flat fields).
pub fn plan_spec(input: &FormInput, options: &PlanOptions) -> Result<PlanSpec, String> {
    if input.mode != "form" {
        return Err(format!(
            "`{}` asks for a {} elicitation, which must be opened in Claude Code",
            input.server, input.mode
        ));
    }
    let mut about = format!(
        "Asked by the MCP server {} through Claude Code",
        code_span(&one_line(&input.server))
    );
    if let Some(cwd) = &input.cwd {
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
        "agent": AGENT,
        "priority": options.priority.as_deref().unwrap_or("normal"),
    });
    let tag = options.tag.clone().or_else(|| {
        let cwd = input.cwd.as_deref()?.trim_end_matches('/');
        cwd.rsplit('/')
            .next()
            .filter(|n| !n.is_empty())
            .map(one_line)
    });
    for (key, value) in [
        ("session", input.session_id.clone()),
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
