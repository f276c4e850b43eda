//! The human's answer as Claude Code's hook output (code.claude.com/docs/en/hooks, "PreToolUse decision
//! control", "PermissionRequest decision control", "Permission update entries", "JSON output").

use serde::Serialize;
use serde_json::{Map, Value};

use crate::plan::{DecisionStatus, Plan};

use super::input::{Event, HookInput};
use super::question::{self, ALLOW, ALLOW_PROJECT, ALLOW_SESSION, DECISION_ID, DENY};

/// What the hook tells Claude Code.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// Run the tool; `session` holds the permission updates Claude Code applies (`PermissionRequest`): for the
    /// session, or written to the project's local settings.
    Allow {
        reason: String,
        session: Vec<Map<String, Value>>,
        /// The tool input to run with instead of Claude's (an edited command, AskUserQuestion's answers).
        updated_input: Option<Map<String, Value>>,
    },
    /// Don't run it; the reason is what Claude reads. To a form: decline.
    Deny { reason: String },
    /// No decision here: Claude Code asks in its own prompt (the reason is shown there on `PreToolUse`).
    Ask { reason: String },
    /// An MCP form's result: `{"action": "accept", "content": {…}}` or `{"action": "decline"}`.
    Form(Value),
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
    /// Fall back to Claude Code's own permission prompt.
    #[default]
    Ask,
}

/// The verdict a completed permission plan holds: its decision's answer, by whom. For a `Bash` command (an
/// `edit` decision), the proposal approved as is allows it once, and an edited one allows the edited command.
#[must_use]
pub fn of_answer(plan: &Plan, input: &HookInput) -> Verdict {
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
            let mut updated = input.tool_input.clone();
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
                session: question::session_updates(input),
                updated_input: None,
            },
            ALLOW_PROJECT => Verdict::Allow {
                reason: format!("Always allowed in this project{by} via Arbiter"),
                session: question::project_updates(input),
                updated_input: None,
            },
            // The decision's note, when the human left one, is the reason Claude reads.
            DENY => Verdict::Deny {
                reason: match decision.note.as_deref().map(str::trim) {
                    Some(note) if !note.is_empty() => format!("Denied{by} via Arbiter: {note}"),
                    _ => format!("Denied{by} via Arbiter"),
                },
            },
            // A typed answer: the human's instruction, for Claude to follow instead.
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

/// The JSON line to print for `verdict`, or `None` for nothing at all: a `PermissionRequest` hook has no
/// "ask", and one that returns no decision leaves Claude Code's permission dialog in place; an `Elicitation` hook
/// that returns nothing leaves Claude Code's own form in place.
#[must_use]
pub fn output(event: Event, verdict: &Verdict) -> Option<String> {
    let specific = match (event, verdict) {
        (Event::Elicitation, Verdict::Form(result)) => {
            let mut out = Map::new();
            out.insert("hookEventName".to_owned(), event.name().into());
            if let Value::Object(fields) = result {
                out.extend(fields.clone());
            }
            Value::Object(out)
        }
        (Event::Elicitation, Verdict::Deny { .. }) => {
            serde_json::json!({"hookEventName": event.name(), "action": "decline"})
        }
        (Event::Elicitation, _) | (_, Verdict::Form(_)) => return None,
        (Event::PreToolUse, _) => {
            let (decision, reason, updated_input) = match verdict {
                Verdict::Allow {
                    reason,
                    updated_input,
                    ..
                } => ("allow", reason, updated_input.as_ref()),
                Verdict::Deny { reason } => ("deny", reason, None),
                Verdict::Ask { reason } => ("ask", reason, None),
                Verdict::Form(_) => return None,
            };
            serde_json::to_value(Specific::PreToolUse {
                hook_event_name: event.name(),
                permission_decision: decision,
                permission_decision_reason: reason,
                updated_input,
            })
            .ok()?
        }
        (Event::PermissionRequest, _) => {
            let decision = match verdict {
                Verdict::Allow {
                    session,
                    updated_input,
                    ..
                } => Decision::Allow {
                    updated_input: updated_input.as_ref(),
                    updated_permissions: session,
                },
                Verdict::Deny { reason } => Decision::Deny { message: reason },
                Verdict::Ask { .. } | Verdict::Form(_) => return None,
            };
            serde_json::to_value(Specific::PermissionRequest {
                hook_event_name: event.name(),
                decision,
            })
            .ok()?
        }
    };
    // `decision` has no reason field for allow: the user sees who allowed as a system message.
    let system_message = match (event, verdict) {
        (Event::PermissionRequest, Verdict::Allow { reason, .. }) => Some(reason.as_str()),
        _ => None,
    };
    serde_json::to_string(&Output {
        hook_specific_output: specific,
        system_message,
    })
    .ok()
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Output<'a> {
    hook_specific_output: Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    system_message: Option<&'a str>,
}

#[derive(Serialize)]
#[serde(untagged, rename_all_fields = "camelCase")]
enum Specific<'a> {
    PreToolUse {
        hook_event_name: &'a str,
        permission_decision: &'a str,
        permission_decision_reason: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        updated_input: Option<&'a Map<String, Value>>,
    },
    PermissionRequest {
        hook_event_name: &'a str,
        decision: Decision<'a>,
    },
}

#[derive(Serialize)]
#[serde(
    tag = "behavior",
    rename_all = "lowercase",
    rename_all_fields = "camelCase"
)]
enum Decision<'a> {
    Allow {
        #[serde(skip_serializing_if = "Option::is_none")]
        updated_input: Option<&'a Map<String, Value>>,
        #[serde(skip_serializing_if = "<[_]>::is_empty")]
        updated_permissions: &'a [Map<String, Value>],
    },
    Deny {
        message: &'a str,
    },
}
