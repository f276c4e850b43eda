//! The hook shapes Claude Code set and Codex, Gemini CLI and Qwen Code follow: snake_case input
//! (`hook_event_name`, `session_id`, `cwd`, `tool_name`, `tool_input`, `permission_suggestions`,
//! `last_assistant_message`), answers in `hookSpecificOutput` (`permissionDecision` allow | deny | ask;
//! `decision.behavior` allow | deny with `updatedInput` and `updatedPermissions`; an elicitation's `action`), a
//! finished turn going on with `{"decision": "block"}`. Each of those dialects is a [`Family`]: its event names,
//! its tools, and how much of the output it reads. Read leniently: agents add fields between versions, and unknown
//! ones are ignored.

use serde::Serialize;
use serde_json::{Map, Value};

use crate::agent::hook::core::ask::Shape;
use crate::agent::hook::core::finished::{Finished, LastMessage};
use crate::agent::hook::core::{
    Act, Agent, AnswerBy, Event, FormInput, Grants, InputError, Origin, Prompt, SessionGrant,
    ToolCall, Verdict, plan_mode,
};

use crate::agent::hook::install::Install;

use super::{Dialect, object, patch, replacement, shell, string, write};

/// What a dialect of Claude Code's family reads and writes.
pub(super) struct Family {
    /// Its event names.
    pub events: &'static [(&'static str, Event)],
    /// Where a finished turn's last message is: the field, and whether it repeats earlier turns.
    pub last_message: (&'static str, bool),
    /// What a finished card says about how often the agent lets a hook send it on.
    pub cap: Option<&'static str>,
    /// The tools whose command the agent runs edited (`updatedInput`), and the key of the command.
    pub editable: &'static [&'static str],
    /// Shell tools, their command under `command`.
    pub shells: &'static [&'static str],
    /// Edit tools (one replacement: `file_path`, `old_string`, `new_string`).
    pub edits: &'static [&'static str],
    /// Whole-file writes (`file_path`, `content`).
    pub writes: &'static [&'static str],
    /// The question tool, and how its answers go back.
    pub question: Option<(&'static str, Shape, AnswerBy)>,
    /// The pre-tool hook asks only the question tool (permissions come through `PermissionRequest`).
    pub pre_tool_questions_only: bool,
    /// The agent's own session and project rules, made from its permission suggestions (Claude Code's); `None`:
    /// the agent keeps none a hook can give, and Arbiter keeps the session's allows.
    pub own_rules: Option<OwnRules>,
    /// The tool that asks to approve a plan (Claude Code's `ExitPlanMode`).
    pub plan_tool: Option<&'static str>,
    /// `PreToolUse` may answer `ask`; `systemMessage`, `updatedInput`, `updatedPermissions` are read.
    pub full_output: bool,
    /// Where a tool's failure is when its `PostToolUse` result does not say (Codex sends only the output text: the
    /// exit code is in its transcript): read from the hook input, `None` when it did not fail or can't be told.
    pub failure_elsewhere: Option<ReadFailure>,
}

/// An agent of Claude Code's family: its name and how its input and output differ ([`Family`]) make its
/// [`Dialect`]; only where its hooks go is its own code.
pub(super) trait Member: Sync {
    const AGENT: Agent;
    const FAMILY: &'static Family;
    /// Where its hooks go and which events they answer.
    fn hooks(&self) -> Install;
}

impl<M: Member> Dialect for M {
    fn agent(&self) -> Agent {
        M::AGENT
    }

    fn parse(&self, text: &str, event: Option<&str>) -> Result<Prompt, InputError> {
        parse(M::AGENT, M::FAMILY, text, event)
    }

    fn render(&self, event: Event, verdict: &Verdict) -> Option<String> {
        output(M::FAMILY, event, verdict)
    }

    fn install(&self) -> Install {
        self.hooks()
    }
}

/// Reads a tool's failure from a `PostToolUse` input whose result does not say.
pub(super) type ReadFailure = fn(&Map<String, Value>) -> Option<String>;

/// Makes the agent's own rules from the event, the tool, what it does and the agent's suggestions.
pub(super) type OwnRules = fn(Event, &str, &Act, &[Map<String, Value>]) -> Grants;

impl Family {
    /// The event named `name`.
    fn event_named(&self, name: &str) -> Option<Event> {
        self.events
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, event)| *event)
    }

    /// The name `event` has in this dialect.
    pub(super) fn event_name(&self, event: Event) -> &'static str {
        self.events
            .iter()
            .find(|(_, e)| *e == event)
            .map_or("?", |(name, _)| *name)
    }

    /// The event names, for a message.
    fn names(&self) -> String {
        let names: Vec<&str> = self.events.iter().map(|(n, _)| *n).collect();
        names.join(", ")
    }
}

/// Reads a hook input of Claude Code's family.
pub(super) fn parse(
    agent: Agent,
    family: &Family,
    text: &str,
    hint: Option<&str>,
) -> Result<Prompt, InputError> {
    let hinted = hint.and_then(|h| family.event_named(h));
    let unreadable = |reason: String| InputError {
        answer_as: Some(hinted.unwrap_or(Event::PreTool)),
        reason,
    };
    let fields = object(text).map_err(unreadable)?;
    let event = match (fields.get("hook_event_name"), hinted) {
        (Some(Value::String(name)), _) => match family.event_named(name) {
            Some(event) => event,
            None => {
                return Err(InputError {
                    answer_as: None,
                    reason: format!(
                        "`{name}` is not an event this hook answers: configure it for {}",
                        family.names()
                    ),
                });
            }
        },
        (_, Some(event)) => event,
        _ => {
            return Err(unreadable(
                "the hook input has no `hook_event_name` string".to_owned(),
            ));
        }
    };
    let bad = |reason: &str| InputError {
        answer_as: Some(event),
        reason: format!("the {} hook input {reason}", family.event_name(event)),
    };
    let origin = Origin {
        agent,
        session: string(&fields, "session_id"),
        cwd: string(&fields, "cwd"),
    };
    match event {
        Event::Finished => {
            let (field, cumulative) = family.last_message;
            let last = match string(&fields, field) {
                Some(all) if cumulative => LastMessage::Cumulative(all),
                text => LastMessage::Text(text),
            };
            return Ok(Prompt::Finished(Finished {
                origin,
                last,
                cap: family.cap,
            }));
        }
        Event::Form => {
            let server = string(&fields, "mcp_server_name")
                .ok_or_else(|| bad("has no `mcp_server_name` string"))?;
            let message =
                string(&fields, "message").ok_or_else(|| bad("has no `message` string"))?;
            let requested_schema = match fields.get("requested_schema") {
                Some(schema @ Value::Object(_)) => schema.clone(),
                _ => Value::Null,
            };
            return Ok(Prompt::Form(FormInput {
                origin,
                event,
                server: Some(server),
                answer: AnswerBy::UpdatedInput,
                message,
                mode: string(&fields, "mode").unwrap_or_else(|| "form".to_owned()),
                requested_schema,
            }));
        }
        Event::PreTool | Event::Permission | Event::PostTool => {}
    }
    let tool = string(&fields, "tool_name").ok_or_else(|| bad("has no `tool_name` string"))?;
    let input = match fields.get("tool_input") {
        Some(Value::Object(input)) => input.clone(),
        _ => return Err(bad("has no `tool_input` object")),
    };
    let question = family
        .question
        .filter(|(name, ..)| *name == tool && event != Event::PostTool);
    if family.pre_tool_questions_only && event == Event::PreTool && question.is_none() {
        return Ok(Prompt::Pass);
    }
    let suggestions: Vec<Map<String, Value>> = match fields.get("permission_suggestions") {
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(|item| item.as_object().cloned())
            .collect(),
        _ => Vec::new(),
    };
    let cwd = origin.cwd.clone();
    let act = act(family, &tool, &input, cwd.as_deref());
    let reason = super::first_string(&input, &["description", "justification", "instruction"]);
    let grants = if let Some(own) = family.own_rules {
        own(event, &tool, &act, &suggestions)
    } else {
        Grants {
            session: SessionGrant::Arbiter,
            ..Grants::default()
        }
    };
    let call = ToolCall {
        origin,
        event,
        tool,
        input,
        act,
        reason,
        grants,
    };
    // A tool's result (`PostToolUse`; `PostToolUseFailure` carries an `error`): the call as a permission would read
    // it, so the standing rule that allowed it is found.
    if event == Event::PostTool {
        let failure = crate::agent::hook::core::ruling::failure(
            fields.get("tool_response"),
            fields.get("error"),
        )
        .or_else(|| family.failure_elsewhere.and_then(|read| read(&fields)));
        return Ok(Prompt::Result(
            crate::agent::hook::core::ruling::ToolResult { call, failure },
        ));
    }
    if let Some((_, shape, answer)) = question {
        return Prompt::questions(call, shape, answer);
    }
    if family.plan_tool == Some(call.tool.as_str()) {
        return match plan_mode::plan_text(&call.input) {
            Some(plan) => Ok(Prompt::PlanApproval(call, plan)),
            None => Err(InputError {
                answer_as: Some(event),
                reason: format!(
                    "the {} input has no plan (nor a readable plan file)",
                    call.tool
                ),
            }),
        };
    }
    Ok(Prompt::Permission(call))
}

/// What a tool of the family does.
fn act(family: &Family, tool: &str, input: &Map<String, Value>, cwd: Option<&str>) -> Act {
    let named = |names: &[&str]| names.contains(&tool);
    if named(family.shells) {
        if let Some(change) = patch(input) {
            return change;
        }
        return shell(input, "command", named(family.editable));
    }
    if named(family.edits) {
        return replacement(input, cwd);
    }
    if named(family.writes) {
        return write(input, cwd);
    }
    if tool == "MultiEdit" {
        return multi_edit(input, cwd);
    }
    patch(input).unwrap_or(Act::Other)
}

/// Claude Code's `MultiEdit`: several replacements in one file, in order.
fn multi_edit(input: &Map<String, Value>, cwd: Option<&str>) -> Act {
    use crate::agent::hook::core::change::{self, Replace};
    let Some(path) = string(input, "file_path") else {
        return Act::Other;
    };
    let Some(edits) = input.get("edits").and_then(Value::as_array) else {
        return Act::Other;
    };
    let edits: Option<Vec<Replace>> = edits
        .iter()
        .map(|e| {
            Some(Replace {
                old: e.get("old_string")?.as_str()?.to_owned(),
                new: e.get("new_string")?.as_str()?.to_owned(),
                all: e.get("replace_all").and_then(Value::as_bool) == Some(true),
            })
        })
        .collect();
    match edits {
        Some(edits) if !edits.is_empty() => Act::Change(change::replace(&path, cwd, &edits)),
        _ => Act::Other,
    }
}

/// The JSON line to print for `verdict`, or `None` for nothing at all: a `PermissionRequest` hook has no "ask",
/// and one that returns no decision leaves the agent's permission dialog in place; an `Elicitation` hook that
/// returns nothing leaves Claude Code's own form in place; a finished turn stops unless told to go on.
pub(super) fn output(family: &Family, event: Event, verdict: &Verdict) -> Option<String> {
    let name = family.event_name(event);
    let specific = match (event, verdict) {
        (Event::Finished, verdict) => return super::finished(verdict),
        // A tool's result is answered with nothing.
        (Event::PostTool, _) => return None,
        (_, Verdict::Continue { .. } | Verdict::Stop) => return None,
        (Event::Form, Verdict::Form(result)) => {
            let mut out = Map::new();
            out.insert("hookEventName".to_owned(), name.into());
            if let Value::Object(fields) = result {
                out.extend(fields.clone());
            }
            Value::Object(out)
        }
        (Event::Form, Verdict::Deny { .. }) => {
            serde_json::json!({"hookEventName": name, "action": "decline"})
        }
        (Event::Form, _) | (_, Verdict::Form(_)) => return None,
        (Event::PreTool, _) => {
            let (decision, reason, updated_input) = match verdict {
                Verdict::Allow {
                    reason,
                    updated_input,
                    ..
                } => ("allow", reason, updated_input.as_ref()),
                Verdict::Deny { reason } => ("deny", reason, None),
                Verdict::Ask { reason } if family.full_output => ("ask", reason, None),
                _ => return None,
            };
            serde_json::to_value(Specific::PreToolUse {
                hook_event_name: name,
                permission_decision: decision,
                permission_decision_reason: reason,
                updated_input: updated_input.filter(|_| family.full_output),
            })
            .ok()?
        }
        (Event::Permission, _) => {
            let decision = match verdict {
                Verdict::Allow {
                    session,
                    updated_input,
                    ..
                } if family.full_output => Decision::Allow {
                    updated_input: updated_input.as_ref(),
                    updated_permissions: session,
                },
                Verdict::Allow { .. } => Decision::Allow {
                    updated_input: None,
                    updated_permissions: &[],
                },
                Verdict::Deny { reason } => Decision::Deny { message: reason },
                _ => return None,
            };
            serde_json::to_value(Specific::PermissionRequest {
                hook_event_name: name,
                decision,
            })
            .ok()?
        }
    };
    // `decision` has no reason field for allow: the user sees who allowed as a system message.
    let system_message = match (event, verdict) {
        (Event::Permission, Verdict::Allow { reason, .. }) if family.full_output => {
            Some(reason.as_str())
        }
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
