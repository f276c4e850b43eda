//! Claude Code (code.claude.com/docs/en/hooks): `PreToolUse` and `PermissionRequest` decide a tool call,
//! `Elicitation` is an MCP server's form, `Stop` ends a turn. Input fields are snake_case (`hook_event_name`,
//! `session_id`, `cwd`, `tool_name`, `tool_input`, `permission_suggestions`, `last_assistant_message`); answers go
//! in `hookSpecificOutput` (`permissionDecision` allow | deny | ask; `decision.behavior` allow | deny with
//! `updatedInput` and `updatedPermissions`; an elicitation's `action`), a turn goes on with `{"decision":
//! "block"}`. Qwen Code speaks the same ([`super::qwen`]), Codex a part of it ([`super::codex`]). Read leniently:
//! Claude Code adds fields between versions, and unknown ones are ignored.

use serde::Serialize;
use serde_json::{Map, Value};

use crate::agent::hook::core::ask::{self, Shape};
use crate::agent::hook::core::finished::{Finished, LastMessage};
use crate::agent::hook::core::{
    Act, Agent, AnswerBy, Event, FormInput, Grants, InputError, Origin, Prompt, SessionGrant,
    ToolCall, Verdict, plan_mode,
};
use crate::agent::hook::install::{Hook, Install, Layout, Unit, UserFile};

use super::{Dialect, object, patch, replacement, shell, string, write};

pub const AGENT: Agent = Agent {
    name: "claude-code",
    display: "Claude Code",
    short: "Claude",
};

/// Claude Code.
pub struct ClaudeCode;

impl Dialect for ClaudeCode {
    fn agent(&self) -> Agent {
        AGENT
    }

    fn parse(&self, text: &str, event: Option<&str>) -> Result<Prompt, InputError> {
        parse(AGENT, &CLAUDE, text, event)
    }

    fn render(&self, event: Event, verdict: &Verdict) -> Option<String> {
        output(&CLAUDE, event, verdict)
    }

    fn install(&self) -> Install {
        Install {
            user_file: Some(UserFile {
                env: None,
                default: ".claude",
                file: "settings.json",
            }),
            project_file: ".claude/settings.local.json",
            layout: Layout::Groups {
                unit: Unit::Seconds,
            },
            hooks: &[
                // Fires exactly when Claude Code would show a dialog: tool permissions, AskUserQuestion,
                // ExitPlanMode.
                Hook {
                    event: "PermissionRequest",
                    matcher: Some("*"),
                    finished: false,
                },
                Hook {
                    event: "Elicitation",
                    matcher: Some("*"),
                    finished: false,
                },
                Hook {
                    event: "Stop",
                    matcher: None,
                    finished: true,
                },
            ],
            enable: None,
            pass_event: false,
            notes: &[],
        }
    }
}

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
    /// Permission suggestions become Claude Code's own session and project rules.
    pub own_rules: bool,
    /// `PreToolUse` may answer `ask`; `systemMessage`, `updatedInput`, `updatedPermissions` are read.
    pub full_output: bool,
}

const CLAUDE: Family = Family {
    events: &[
        ("PreToolUse", Event::PreTool),
        ("PermissionRequest", Event::Permission),
        ("Elicitation", Event::Form),
        ("Stop", Event::Finished),
    ],
    last_message: ("last_assistant_message", false),
    cap: None,
    editable: &["Bash"],
    shells: &["Bash"],
    edits: &["Edit"],
    writes: &["Write"],
    question: Some((
        ASK_USER_QUESTION,
        Shape::AskUserQuestion,
        AnswerBy::UpdatedInput,
    )),
    pre_tool_questions_only: false,
    own_rules: true,
    full_output: true,
};

const ASK_USER_QUESTION: &str = "AskUserQuestion";
const EXIT_PLAN_MODE: &str = "ExitPlanMode";

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
        Event::PreTool | Event::Permission => {}
    }
    let tool = string(&fields, "tool_name").ok_or_else(|| bad("has no `tool_name` string"))?;
    let input = match fields.get("tool_input") {
        Some(Value::Object(input)) => input.clone(),
        _ => return Err(bad("has no `tool_input` object")),
    };
    let question = family.question.filter(|(name, ..)| *name == tool);
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
    let grants = if family.own_rules {
        own_grants(event, &tool, &act, &suggestions)
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
    if let Some((_, shape, answer)) = question {
        let questions = ask::questions(&call.tool, &call.input, shape).map_err(|e| InputError {
            answer_as: Some(event),
            reason: e,
        })?;
        return Ok(Prompt::Questions {
            call,
            questions,
            answer,
        });
    }
    if family.own_rules && call.tool == EXIT_PLAN_MODE {
        return match plan_mode::plan_text(&call.input) {
            Some(plan) => Ok(Prompt::PlanApproval(call, plan)),
            None => Err(InputError {
                answer_as: Some(event),
                reason: "the ExitPlanMode input has no plan (nor a readable plan file)".to_owned(),
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

/// Claude Code's own rules for a `PermissionRequest`: its suggestions kept for the session
/// (`destination: "session"`) or written to the project's `.claude/settings.local.json`
/// (`destination: "localSettings"`). Only updates that widen what this request needs are kept: allow rules, a
/// mode other than `bypassPermissions` (for the session only), added directories; a `Bash` call without a
/// suggested rule gets a rule for its exact command.
fn own_grants(event: Event, tool: &str, act: &Act, suggestions: &[Map<String, Value>]) -> Grants {
    let session = updates(event, tool, act, suggestions, "session", true);
    let project = updates(event, tool, act, suggestions, "localSettings", false);
    Grants {
        session: if session.is_empty() {
            SessionGrant::None
        } else {
            SessionGrant::Agent {
                label: describe(&session),
                updates: session,
            }
        },
        project_label: describe(&project),
        project,
    }
}

fn updates(
    event: Event,
    tool: &str,
    act: &Act,
    suggestions: &[Map<String, Value>],
    destination: &str,
    with_mode: bool,
) -> Vec<Map<String, Value>> {
    if event != Event::Permission {
        return Vec::new();
    }
    let mut updates: Vec<Map<String, Value>> = suggestions
        .iter()
        .filter(|entry| {
            let field = |key: &str| entry.get(key).and_then(Value::as_str);
            match field("type") {
                Some("addRules") => field("behavior") == Some("allow"),
                Some("setMode") => {
                    with_mode && field("mode").is_some_and(|m| m != "bypassPermissions")
                }
                Some("addDirectories") => true,
                _ => false,
            }
        })
        .cloned()
        .collect();
    let has_rule = updates
        .iter()
        .any(|e| e.get("type").and_then(Value::as_str) == Some("addRules"));
    if !has_rule
        && tool == "Bash"
        && let Act::Command { command, .. } = act
    {
        let rule = serde_json::json!({
            "type": "addRules",
            "rules": [{"toolName": "Bash", "ruleContent": command}],
            "behavior": "allow",
        });
        if let Value::Object(rule) = rule {
            updates.insert(0, rule);
        }
    }
    for entry in &mut updates {
        entry.insert("destination".to_owned(), Value::from(destination));
    }
    updates
}

/// `Bash(npm install:*)`, `acceptEdits mode`, `access to /tmp/x`: what the updates grant, for the label.
fn describe(updates: &[Map<String, Value>]) -> String {
    let mut parts = Vec::new();
    for entry in updates {
        let field = |key: &str| entry.get(key).and_then(Value::as_str).unwrap_or_default();
        let list = |key: &str| entry.get(key).and_then(Value::as_array).cloned();
        match field("type") {
            "addRules" => {
                for rule in list("rules").unwrap_or_default() {
                    let tool = rule.get("toolName").and_then(Value::as_str).unwrap_or("?");
                    parts.push(match rule.get("ruleContent").and_then(Value::as_str) {
                        Some(content) => format!("{tool}({content})"),
                        None => tool.to_owned(),
                    });
                }
            }
            "setMode" => parts.push(format!("{} mode", field("mode"))),
            _ => {
                let dirs: Vec<String> = list("directories")
                    .unwrap_or_default()
                    .iter()
                    .filter_map(|d| d.as_str().map(str::to_owned))
                    .collect();
                parts.push(format!("access to {}", dirs.join(", ")));
            }
        }
    }
    parts.join(", ")
}

/// The JSON line to print for `verdict`, or `None` for nothing at all: a `PermissionRequest` hook has no "ask",
/// and one that returns no decision leaves the agent's permission dialog in place; an `Elicitation` hook that
/// returns nothing leaves Claude Code's own form in place; a finished turn stops unless told to go on.
pub(super) fn output(family: &Family, event: Event, verdict: &Verdict) -> Option<String> {
    let name = family.event_name(event);
    let specific = match (event, verdict) {
        (Event::Finished, verdict) => return super::finished(verdict),
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

#[cfg(test)]
#[path = "claude_code_tests.rs"]
mod tests;
