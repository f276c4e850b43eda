//! The human's answer as a neutral verdict, which each dialect prints in its agent's own hook output.

use serde_json::{Map, Value};

use crate::plan::{DecisionStatus, Plan};

use super::permission::{ALLOW, ALLOW_PROJECT, ALLOW_SESSION, DECISION_ID, DENY};
use super::ruling::{ALWAYS, GRANT};
use super::{SessionGrant, ToolCall};

/// What the hook tells the agent.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// Run the tool; `session` holds the permission updates the agent applies (Claude Code's
    /// `updatedPermissions`): for the session, or written to the project's local settings.
    Allow {
        reason: String,
        session: Vec<Map<String, Value>>,
        /// The tool input to run with instead of the model's (an edited command, AskUserQuestion's answers).
        updated_input: Option<Map<String, Value>>,
    },
    /// Don't run it; the reason is what the model reads. To a form: decline.
    Deny { reason: String },
    /// No decision here: the agent asks in its own prompt (the reason is shown there where the agent shows one;
    /// an agent with no prompt of its own denies).
    Ask { reason: String },
    /// An MCP form's result: `{"action": "accept", "content": {…}}` or `{"action": "decline"}`.
    Form(Value),
    /// The turn ended and the owner typed what to do next: the agent goes on with it as the user's next message.
    Continue { instruction: String },
    /// The turn ended and the agent may stop, as it would have without Arbiter.
    Stop,
}

impl Verdict {
    /// Allow, with nothing else granted or changed.
    #[must_use]
    pub fn allow(reason: String) -> Verdict {
        Verdict::Allow {
            reason,
            session: Vec::new(),
            updated_input: None,
        }
    }
}

/// What to answer when the human has not answered in time (`--on-timeout`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OnTimeout {
    Allow,
    Deny,
    /// Fall back to the agent's own permission prompt (deny where it has none).
    #[default]
    Ask,
}

/// The verdict a completed permission plan holds: its decision's answer, by whom. For an editable command (an
/// `edit` decision), the proposal approved as is allows it once, and an edited one allows the edited command.
#[must_use]
pub fn of_answer(plan: &Plan, call: &ToolCall) -> Verdict {
    let Some(decision) = plan.decision(DECISION_ID) else {
        return Verdict::Ask {
            reason: format!("The Arbiter plan lost its `{DECISION_ID}` decision; answer here"),
        };
    };
    let by = match decision.answered_by.as_deref() {
        Some(who) if !who.is_empty() => format!(" by {who}"),
        _ => String::new(),
    };
    let answer = decision.answer.as_deref().unwrap_or_default();
    match (decision.status, decision.edited) {
        (DecisionStatus::Answered, Some(false)) => {
            Verdict::allow(format!("Allowed{by} via Arbiter"))
        }
        (DecisionStatus::Answered, Some(true)) => {
            let mut updated = call.input.clone();
            updated.insert("command".to_owned(), Value::String(answer.to_owned()));
            Verdict::Allow {
                reason: format!("Allowed{by} via Arbiter, edited: {answer}"),
                session: Vec::new(),
                updated_input: Some(updated),
            }
        }
        (DecisionStatus::Answered, None) => match answer {
            ALLOW => Verdict::allow(format!("Allowed{by} via Arbiter")),
            ALLOW_SESSION => Verdict::Allow {
                reason: format!("Allowed for this session{by} via Arbiter"),
                session: match &call.grants.session {
                    SessionGrant::Agent { updates, .. } => updates.clone(),
                    SessionGrant::Arbiter | SessionGrant::None => Vec::new(),
                },
                updated_input: None,
            },
            // The standing rule its submit made answers the next such prompt; this one is allowed once.
            ALWAYS => Verdict::allow(format!(
                "Allowed{by} via Arbiter, and always from now on (a standing rule: /rules)"
            )),
            GRANT => Verdict::allow(format!(
                "Allowed{by} via Arbiter, with every call of this session for a while (a grant: /rules)"
            )),
            ALLOW_PROJECT => Verdict::Allow {
                reason: format!("Always allowed in this project{by} via Arbiter"),
                session: call.grants.project.clone(),
                updated_input: None,
            },
            // The decision's note, when the human left one, is the reason the model reads.
            DENY => Verdict::Deny {
                reason: match decision.note.as_deref().map(str::trim) {
                    Some(note) if !note.is_empty() => format!("Denied{by} via Arbiter: {note}"),
                    _ => format!("Denied{by} via Arbiter"),
                },
            },
            // A typed answer: the human's instruction, for the model to follow instead.
            text => Verdict::Deny {
                reason: format!("Denied{by} via Arbiter: {}", text.trim()),
            },
        },
        (DecisionStatus::Skipped, _) => Verdict::Ask {
            reason: format!("Skipped{by} in Arbiter; answer here"),
        },
        (DecisionStatus::Pending, _) => Verdict::Ask {
            reason: "The Arbiter plan was completed without an answer; answer here".to_owned(),
        },
    }
}

/// The verdict when no answer came within `waited` (a duration as the user reads it: `2s`, `9m`).
#[must_use]
pub fn of_timeout(on_timeout: OnTimeout, waited: &str) -> Verdict {
    let none = format!("No answer via Arbiter within {waited}");
    match on_timeout {
        OnTimeout::Allow => Verdict::allow(format!("{none}: allowed (--on-timeout allow)")),
        OnTimeout::Deny => Verdict::Deny {
            reason: format!("{none}: denied (--on-timeout deny)"),
        },
        OnTimeout::Ask => Verdict::Ask { reason: none },
    }
}
