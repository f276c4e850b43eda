//! What Claude Code sends a hook on stdin: the two events that decide a tool call, `PreToolUse` and
//! `PermissionRequest`, and `Elicitation`, an MCP server's form (code.claude.com/docs/en/hooks, "Common input
//! fields", "PreToolUse input", "PermissionRequest input", "Elicitation input"). Read leniently: only the fields
//! the hook uses; Claude Code adds fields between versions, and unknown ones are ignored.

use serde_json::{Map, Value};

/// The hook events this hook answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    /// Before every tool call; answered with `permissionDecision` allow | deny | ask.
    PreToolUse,
    /// When Claude Code is about to show its permission dialog; answered with `decision.behavior` allow | deny.
    PermissionRequest,
    /// An MCP server asks the user to fill in a form; answered with `action` accept (and `content`) | decline.
    Elicitation,
}

impl Event {
    /// The event's name as Claude Code writes it in `hook_event_name` and expects back in `hookEventName`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Event::PreToolUse => "PreToolUse",
            Event::PermissionRequest => "PermissionRequest",
            Event::Elicitation => "Elicitation",
        }
    }

    fn parse(name: &str) -> Option<Event> {
        [
            Event::PreToolUse,
            Event::PermissionRequest,
            Event::Elicitation,
        ]
        .into_iter()
        .find(|e| e.name() == name)
    }
}

/// What a hook call asks: a tool call to allow, or an MCP server's form to fill in.
#[derive(Debug, Clone, PartialEq)]
pub enum Input {
    Tool(HookInput),
    Form(FormInput),
}

impl Input {
    #[must_use]
    pub fn event(&self) -> Event {
        match self {
            Input::Tool(tool) => tool.event,
            Input::Form(_) => Event::Elicitation,
        }
    }
}

/// An `Elicitation` hook call: the MCP server's form request.
#[derive(Debug, Clone, PartialEq)]
pub struct FormInput {
    pub session_id: Option<String>,
    pub cwd: Option<String>,
    /// The MCP server asking (the hook's matcher).
    pub server: String,
    /// What the server tells the user.
    pub message: String,
    /// `form` (a schema of fields) or `url` (a page to open: not a form the hook can fill).
    pub mode: String,
    /// The form's JSON schema (`requested_schema`).
    pub requested_schema: Value,
}

/// One tool call (`PreToolUse`, `PermissionRequest`) as the hook needs it.
#[derive(Debug, Clone, PartialEq)]
pub struct HookInput {
    pub event: Event,
    pub session_id: Option<String>,
    /// Claude Code's working directory (the project).
    pub cwd: Option<String>,
    /// `Bash`, `Edit`, `Write`, … or `mcp__<server>__<tool>`.
    pub tool_name: String,
    /// The tool's arguments, as Claude built them.
    pub tool_input: Map<String, Value>,
    /// `PermissionRequest` only: the permission updates Claude Code suggests ("always allow" rules, a mode
    /// change). Empty when absent.
    pub permission_suggestions: Vec<Map<String, Value>>,
}

/// Why the input can't be used, and in which event's format the hook should still answer `ask`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{reason}")]
pub struct InputError {
    /// The event to answer `ask` for: the input's own when it names one of ours; `PreToolUse` when it names
    /// none (not JSON, no `hook_event_name`); `None` for another event, which gets no decision at all.
    pub answer_as: Option<Event>,
    pub reason: String,
}

/// Reads the hook input.
pub fn parse(text: &str) -> Result<Input, InputError> {
    let unreadable = |reason: String| InputError {
        answer_as: Some(Event::PreToolUse),
        reason,
    };
    let value: Value = serde_json::from_str(text)
        .map_err(|e| unreadable(format!("the hook input is not JSON ({e})")))?;
    let Value::Object(mut fields) = value else {
        return Err(unreadable("the hook input is not a JSON object".to_owned()));
    };
    let event = match fields.get("hook_event_name") {
        Some(Value::String(name)) => match Event::parse(name) {
            Some(event) => event,
            None => {
                return Err(InputError {
                    answer_as: None,
                    reason: format!(
                        "`{name}` is not an event this hook answers: configure it for PermissionRequest, PreToolUse or Elicitation"
                    ),
                });
            }
        },
        _ => {
            return Err(unreadable(
                "the hook input has no `hook_event_name` string".to_owned(),
            ));
        }
    };
    let bad = |reason: &str| InputError {
        answer_as: Some(event),
        reason: format!("the {} hook input {reason}", event.name()),
    };
    let string = |fields: &mut Map<String, Value>, key: &str| match fields.remove(key) {
        Some(Value::String(s)) if !s.is_empty() => Some(s),
        _ => None,
    };
    if event == Event::Elicitation {
        let server = string(&mut fields, "mcp_server_name")
            .ok_or_else(|| bad("has no `mcp_server_name` string"))?;
        let message =
            string(&mut fields, "message").ok_or_else(|| bad("has no `message` string"))?;
        let requested_schema = match fields.remove("requested_schema") {
            Some(schema @ Value::Object(_)) => schema,
            _ => Value::Null,
        };
        return Ok(Input::Form(FormInput {
            session_id: string(&mut fields, "session_id"),
            cwd: string(&mut fields, "cwd"),
            server,
            message,
            mode: string(&mut fields, "mode").unwrap_or_else(|| "form".to_owned()),
            requested_schema,
        }));
    }
    let tool_name = match fields.remove("tool_name") {
        Some(Value::String(name)) if !name.trim().is_empty() => name,
        _ => return Err(bad("has no `tool_name` string")),
    };
    let tool_input = match fields.remove("tool_input") {
        Some(Value::Object(input)) => input,
        _ => return Err(bad("has no `tool_input` object")),
    };
    let permission_suggestions = match fields.remove("permission_suggestions") {
        Some(Value::Array(items)) => items
            .into_iter()
            .filter_map(|item| match item {
                Value::Object(entry) => Some(entry),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    };
    Ok(Input::Tool(HookInput {
        event,
        session_id: string(&mut fields, "session_id"),
        cwd: string(&mut fields, "cwd"),
        tool_name,
        tool_input,
        permission_suggestions,
    }))
}

/// The event a hook input names, read as leniently as possible: for answering `ask` in the right format when
/// the rest of the input or the command line is unusable.
#[must_use]
pub fn answer_as(text: &str) -> Option<Event> {
    match parse(text) {
        Ok(input) => Some(input.event()),
        Err(e) => e.answer_as,
    }
}
