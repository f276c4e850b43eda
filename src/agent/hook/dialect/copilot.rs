//! GitHub Copilot CLI (npm `@github/copilot`): camelCase input (`sessionId`, `cwd`, `toolName`, `toolInput` or
//! `toolArgs`, a JSON object or a string holding one, `transcriptPath`). `permissionRequest` is answered FLAT,
//! `{"behavior": "allow"}` / `{"behavior": "deny", "message": …}` (Claude Code's nested `hookSpecificOutput` is
//! ignored and the call denied); `preToolUse` reaches its question tool `ask_user`, answered by denying it
//! (`{"permissionDecision": "deny", "permissionDecisionReason": …}`) with the answers; `agentStop` ends a turn,
//! whose last message is read from the transcript (JSONL; it may land a moment after the hook starts), and goes
//! on with `{"decision": "block", "reason": …}`, 8 times in a row at most. Copilot keeps no session rule a
//! hook can give, so `✅ Allow for this session` is Arbiter's. Hooks: the project's `.github/hooks/arbiter.json`
//! (`timeoutSec`); the input names no event, so each hook's command names it (`--event`).

use serde_json::{Map, Value, json};

use crate::agent::hook::core::ask::Shape;
use crate::agent::hook::core::finished::{Finished, LastMessage, Turn};
use crate::agent::hook::core::{
    Act, Agent, AnswerBy, Event, FormInput, Grants, InputError, Origin, Prompt, SessionGrant,
    ToolCall, Verdict,
};
use crate::agent::hook::install::{Hook, Install, Layout};

use super::{
    Dialect, arguments, first_string, line, own_diff, patch, replacement, shell, string, write,
};

pub const AGENT: Agent = Agent {
    name: "copilot",
    display: "Copilot CLI",
    short: "Copilot",
};

const EVENTS: [(&str, Event); 3] = [
    ("preToolUse", Event::PreTool),
    ("permissionRequest", Event::Permission),
    ("agentStop", Event::Finished),
];
const QUESTION_TOOL: &str = "ask_user";

/// Copilot CLI.
pub struct Copilot;

impl Dialect for Copilot {
    fn agent(&self) -> Agent {
        AGENT
    }

    fn parse(&self, text: &str, event: Option<&str>) -> Result<Prompt, InputError> {
        parse(text, event)
    }

    fn render(&self, event: Event, verdict: &Verdict) -> Option<String> {
        match (event, verdict) {
            (Event::Finished, verdict) => super::finished(verdict),
            (Event::Permission, Verdict::Allow { .. }) => line(&json!({"behavior": "allow"})),
            (Event::Permission, Verdict::Deny { reason }) => {
                line(&json!({"behavior": "deny", "message": reason}))
            }
            (Event::PreTool, Verdict::Allow { reason, .. }) => {
                line(&json!({"permissionDecision": "allow", "permissionDecisionReason": reason}))
            }
            (Event::PreTool, Verdict::Deny { reason }) => {
                line(&json!({"permissionDecision": "deny", "permissionDecisionReason": reason}))
            }
            _ => None,
        }
    }

    fn install(&self) -> Install {
        Install {
            user_file: None,
            project_file: ".github/hooks/arbiter.json",
            layout: Layout::Flat,
            hooks: &[
                Hook {
                    event: "permissionRequest",
                    matcher: None,
                    finished: false,
                },
                Hook {
                    event: "preToolUse",
                    matcher: None,
                    finished: false,
                },
                Hook {
                    event: "agentStop",
                    matcher: None,
                    finished: true,
                },
            ],
            enable: None,
            pass_event: true,
            notes: &["Copilot CLI reads the hooks of the repository it runs in (.github/hooks/)."],
        }
    }
}

fn event_named(name: &str) -> Option<Event> {
    EVENTS.iter().find(|(n, _)| *n == name).map(|(_, e)| *e)
}

fn parse(text: &str, hint: Option<&str>) -> Result<Prompt, InputError> {
    let hinted = hint.and_then(event_named);
    let unreadable = |reason: String| InputError {
        answer_as: Some(hinted.unwrap_or(Event::Permission)),
        reason,
    };
    let fields = super::object(text).map_err(unreadable)?;
    let named = first_string(&fields, &["hookName", "hookEventName", "hook_event_name"]);
    let event = match (named, hinted) {
        (Some(name), hinted) => match event_named(&name) {
            Some(event) => event,
            // A name this hook does not know, but the command line says which hook this is.
            None if hinted.is_some() => hinted.unwrap_or(Event::Permission),
            None => {
                return Err(InputError {
                    answer_as: None,
                    reason: format!(
                        "`{name}` is not an event this hook answers: configure it for permissionRequest, preToolUse or agentStop"
                    ),
                });
            }
        },
        (None, Some(event)) => event,
        (None, None) if fields.contains_key("toolName") => Event::Permission,
        (None, None) if fields.contains_key("transcriptPath") => Event::Finished,
        (None, None) => {
            return Err(unreadable(
                "the hook input names no event: give the hook `--event permissionRequest|preToolUse|agentStop`"
                    .to_owned(),
            ));
        }
    };
    let origin = Origin {
        agent: AGENT,
        session: first_string(&fields, &["sessionId", "session_id"]),
        cwd: string(&fields, "cwd"),
    };
    if event == Event::Finished {
        let last = match first_string(&fields, &["transcriptPath", "transcript_path"]) {
            Some(path) => LastMessage::Transcript {
                path: path.into(),
                call: fields.get("timestamp").map(Value::to_string),
                read: last_turn,
            },
            None => LastMessage::Text(first_string(&fields, &["lastAssistantMessage", "message"])),
        };
        return Ok(Prompt::Finished(Finished {
            origin,
            last,
            cap: Some("Copilot CLI lets a hook send it on 8 times in a row, then stops."),
        }));
    }
    let bad = |reason: &str| InputError {
        answer_as: Some(event),
        reason: format!("the Copilot hook input {reason}"),
    };
    let tool = string(&fields, "toolName").ok_or_else(|| bad("has no `toolName` string"))?;
    if event == Event::PreTool && tool != QUESTION_TOOL {
        return Ok(Prompt::Pass);
    }
    let input = arguments(fields.get("toolInput"))
        .or_else(|| arguments(fields.get("toolArgs")))
        .unwrap_or_default();
    // Its `ask_user` is a form (`message`, `requestedSchema`); a list of questions is read as one too.
    if tool == QUESTION_TOOL
        && let (Some(message), Some(schema)) =
            (string(&input, "message"), input.get("requestedSchema"))
    {
        return Ok(Prompt::Form(FormInput {
            origin,
            event,
            server: None,
            answer: AnswerBy::Deny,
            message,
            mode: "form".to_owned(),
            requested_schema: schema.clone(),
        }));
    }
    let cwd = origin.cwd.clone();
    let call = ToolCall {
        origin,
        event,
        act: act(&tool, &input, cwd.as_deref()),
        reason: string(&input, "description"),
        tool,
        input,
        grants: Grants {
            session: SessionGrant::Arbiter,
            ..Grants::default()
        },
    };
    if call.tool == QUESTION_TOOL {
        return Prompt::questions(call, Shape::Any, AnswerBy::Deny);
    }
    Ok(Prompt::Permission(call))
}

fn act(tool: &str, input: &Map<String, Value>, cwd: Option<&str>) -> Act {
    match tool {
        "bash" | "shell" | "powershell" => {
            patch(input).unwrap_or_else(|| shell(input, "command", false))
        }
        // At `permissionRequest` Copilot sends its own diff for an edit or a new file.
        "edit" | "str_replace" | "str_replace_editor" => {
            own_diff(input).unwrap_or_else(|| match replacement(input, cwd) {
                Act::Other => write(input, cwd),
                change => change,
            })
        }
        "create" | "write" => write(input, cwd),
        _ => patch(input).unwrap_or(Act::Other),
    }
}

/// The turn's last message in a Copilot transcript (`events.jsonl`), and whether the turn is all there. Copilot
/// writes each hook call into it (`hook.start`, its input with the call's `timestamp`), a few hundred milliseconds
/// late at times: with `call` (this call's timestamp) the turn is the assistant's last message before this call's
/// `hook.start`, complete once that line is there. Without it, the latest assistant message, complete when no
/// user message came after it. Lines are read leniently: the role from `type` (`assistant.message`,
/// `user.message`), `role` or `message.role`; the text from `data.content`, `content`, `message.content` or `text`
/// (a string, or a list of `{"type": "text", "text": …}` parts). A line that does not read is skipped.
#[must_use]
pub fn last_turn(transcript: &str, call: Option<&str>) -> Turn {
    let mut message = None;
    let mut complete = false;
    for line in transcript.lines() {
        let Ok(Value::Object(event)) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        if let Some(call) = call
            && is_call(&event, call)
        {
            return Turn {
                message,
                complete: true,
            };
        }
        let role = role(&event);
        let text = text_of(&event);
        match role.as_deref() {
            Some(r) if r.starts_with("user") => {
                complete = false;
                // Looking for this call's turn: a message before the turn's prompt is an earlier turn's.
                if call.is_some() {
                    message = None;
                }
            }
            Some(r) if r.starts_with("assistant") => {
                if let Some(text) = text.filter(|t| !t.trim().is_empty()) {
                    message = Some(text);
                    complete = true;
                }
            }
            _ => {}
        }
    }
    Turn {
        message,
        // This call's own line is not there yet: the turn may not be either.
        complete: complete && call.is_none(),
    }
}

/// Whether a transcript line is the `hook.start` of the `agentStop` call whose input's `timestamp` is `call`.
fn is_call(event: &Map<String, Value>, call: &str) -> bool {
    let data = event.get("data");
    event.get("type").and_then(Value::as_str) == Some("hook.start")
        && data.and_then(|d| d.get("hookType")).and_then(Value::as_str) == Some("agentStop")
        && data
            .and_then(|d| d.get("input"))
            .and_then(|i| i.get("timestamp"))
            .and_then(Value::as_i64)
            .is_some_and(|t| call.parse() == Ok(t))
}

fn role(event: &Map<String, Value>) -> Option<String> {
    let kind = event.get("type").and_then(Value::as_str);
    let role = event
        .get("role")
        .or_else(|| event.get("message").and_then(|m| m.get("role")))
        .or_else(|| event.get("data").and_then(|d| d.get("role")))
        .and_then(Value::as_str);
    match (kind, role) {
        (Some(kind), _) if kind.starts_with("user") || kind.starts_with("assistant") => {
            Some(kind.to_owned())
        }
        (_, Some(role)) => Some(role.to_owned()),
        _ => None,
    }
}

fn text_of(event: &Map<String, Value>) -> Option<String> {
    let candidates = [
        event.get("data").and_then(|d| d.get("content")),
        event.get("content"),
        event.get("message").and_then(|m| m.get("content")),
        event.get("text"),
    ];
    candidates
        .into_iter()
        .flatten()
        .find_map(|value| match value {
            Value::String(s) => Some(s.clone()),
            Value::Array(parts) => {
                let texts: Vec<&str> = parts
                    .iter()
                    .filter_map(|p| p.get("text").and_then(Value::as_str))
                    .collect();
                (!texts.is_empty()).then(|| texts.join("\n"))
            }
            _ => None,
        })
}
