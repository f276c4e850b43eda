//! Who asks and what: the agent, the event, and a tool call as the core shows it.

use serde_json::{Map, Value};

use super::change;

/// Which agent asks: its command-line name (`codex`, the plan's `agent`), the name people know it by (`Claude
/// Code`), and what its model goes by in a sentence (`Claude`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Agent {
    pub name: &'static str,
    pub display: &'static str,
    pub short: &'static str,
}

/// What kind of hook call this is, whatever the agent names it; the dialect answers in the event's format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    /// Before a tool runs (Claude Code, Codex, Qwen `PreToolUse`, Gemini `BeforeTool`, Copilot `preToolUse`).
    PreTool,
    /// The agent is about to show its permission dialog (`PermissionRequest`, Copilot `permissionRequest`).
    Permission,
    /// An MCP server asks for a form (Claude Code `Elicitation`).
    Form,
    /// The agent ended its turn (`Stop`, Gemini `AfterAgent`, Copilot `agentStop`).
    Finished,
    /// A tool ran (Claude Code, Codex, Qwen `PostToolUse`, Claude Code's `PostToolUseFailure`): its result counts
    /// toward the failures that pause a standing rule. Nothing is answered.
    PostTool,
}

/// Who asks, and where.
#[derive(Debug, Clone, PartialEq)]
pub struct Origin {
    pub agent: Agent,
    /// The agent's session id.
    pub session: Option<String>,
    /// The agent's working directory (the project).
    pub cwd: Option<String>,
}

/// One tool call, as the dialect read it.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    pub origin: Origin,
    pub event: Event,
    /// The agent's name for the tool (`Bash`, `run_shell_command`, `apply_patch`, …).
    pub tool: String,
    /// The tool's arguments, as the model built them.
    pub input: Map<String, Value>,
    /// What the call does, for showing it.
    pub act: Act,
    /// Why the model wants it, when the agent says (a command's description, an escalation's justification).
    pub reason: Option<String>,
    /// What "allow for this session" and "always allow in this project" mean for this agent.
    pub grants: Grants,
}

/// What a tool call does.
#[derive(Debug, Clone, PartialEq)]
pub enum Act {
    /// Runs a shell command; `editable` when the agent runs an edited command in its place (`updatedInput`).
    Command { command: String, editable: bool },
    /// Changes files: shown as a diff.
    Change(change::Change),
    /// Anything else: shown as the input's JSON.
    Other,
}

/// The permission rules the owner may grant beyond this one call.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Grants {
    pub session: SessionGrant,
    /// The agent's own rules written to the project's settings (`✅ Always allow in this project`), with the
    /// label that says what they allow; empty: not offered.
    pub project: Vec<Map<String, Value>>,
    pub project_label: String,
    /// The answers the agent itself offers, when it offers its own (ACP's permission options): then these are
    /// the plan's options (with `🔁 Always allow this` where a rule may be made), and nothing else is.
    pub offered: Vec<Offered>,
}

/// One answer the agent offers: the option key the plan records, and its label.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Offered {
    pub key: &'static str,
    pub label: String,
}

/// What `✅ Allow for this session` does.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum SessionGrant {
    /// The agent's own permission updates, kept by the agent for the session; `label` says what they allow.
    Agent {
        updates: Vec<Map<String, Value>>,
        label: String,
    },
    /// The agent has no such rule: Arbiter allows the same call again in this session without asking
    /// ([`memory`]), and audits each use.
    Arbiter,
    /// Not offered.
    #[default]
    None,
}

/// How a question tool's answers go back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AnswerBy {
    /// As the tool's input with the answers (Claude Code's `AskUserQuestion`).
    UpdatedInput,
    /// By denying the tool with `The user answered: …`, which the model reads as the tool's result (no other agent
    /// takes an answer from a hook).
    Deny,
}

impl ToolCall {
    /// What the call is, exactly: the tool and the command, the files an edit changes, or the input of any other
    /// call. An allow for the session and a standing rule both match on it.
    #[must_use]
    pub fn key(&self) -> (String, String) {
        let what = match &self.act {
            Act::Command { command, .. } => command.clone(),
            Act::Change(change) => change.files.join("\n"),
            Act::Other => Value::Object(self.input.clone()).to_string(),
        };
        (self.tool.clone(), what)
    }
}
