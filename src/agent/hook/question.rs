//! A hook call as a one-decision plan: the title names the tool and what it acts on, the context shows the
//! tool input, the options are allow / allow for this session / deny.

use serde_json::{Map, Value};

use crate::agent::spec::{DecisionSpec, OptionSpec, PlanSpec};

use super::input::{Event, HookInput};

/// The plan's only decision.
pub const DECISION_ID: &str = "permission";
/// Option keys: what the human's tap records, and what [`super::verdict`] reads back.
pub const ALLOW: &str = "allow";
pub const ALLOW_SESSION: &str = "allow-session";
pub const ALLOW_PROJECT: &str = "allow-project";
pub const DENY: &str = "deny";
/// Who asks, as the plan's `agent` (the first part of its file name).
pub const AGENT: &str = "claude-code";

/// Longest title, in characters (a long command is cut: the full one is in the context).
const TITLE_MAX: usize = 100;
/// Longest tool input shown, in characters (a `Write` can carry a whole file; plans over 1 MiB are not read).
const INPUT_MAX: usize = 3000;

/// What the command line adds to the plan.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PlanOptions {
    pub priority: Option<String>,
    /// Default: the last component of Claude Code's working directory (the project's folder name).
    pub tag: Option<String>,
    /// The plan's `deadline` (a duration from now): the hook's own `--timeout`, so the human sees how long
    /// Claude Code waits. The plan stays `on_deadline: wait`: at the timeout the hook itself answers.
    pub deadline: Option<String>,
}

/// The plan asking the human about this tool call. A `Bash` command is an `edit` decision: `✅ Approve as is`
/// allows it once, `✏️ Edit` allows the edited command (Claude Code runs it as `updatedInput`), and the grants
/// and `❌ Deny` are its options. Any other tool is a `choice` whose typed answer denies the call and tells
/// Claude what to do instead.
#[must_use]
pub fn plan_spec(input: &HookInput, options: &PlanOptions) -> PlanSpec {
    let command = bash_command(input);
    let mut choices = Vec::new();
    if command.is_none() {
        choices.push(option(ALLOW, "✅ Allow once"));
    }
    let session = session_updates(input);
    if !session.is_empty() {
        let label = format!("✅ Allow for this session ({})", describe(&session));
        choices.push(option(ALLOW_SESSION, &cut(&one_line(&label), TITLE_MAX)));
    }
    let always = project_updates(input);
    if !always.is_empty() {
        let label = format!("✅ Always allow in this project ({})", describe(&always));
        choices.push(option(ALLOW_PROJECT, &cut(&one_line(&label), TITLE_MAX)));
    }
    choices.push(option(DENY, "❌ Deny"));
    let decision = match command {
        Some(command) => DecisionSpec {
            id: Some(DECISION_ID.to_owned()),
            title: "Run this command?".to_owned(),
            kind: Some("edit".to_owned()),
            proposal: Some(command.to_owned()),
            language: Some("bash".to_owned()),
            options: choices,
            ..DecisionSpec::default()
        },
        None => DecisionSpec {
            id: Some(DECISION_ID.to_owned()),
            title: format!("Allow {}?", one_line(&input.tool_name)),
            allow_custom: true,
            options: choices,
            ..DecisionSpec::default()
        },
    };
    PlanSpec {
        title: title(input),
        context: Some(context(input)),
        decisions: vec![decision],
        ..base_spec(input.session_id.as_ref(), input.cwd.as_deref(), options)
    }
}

/// A plan of the hook's with no decisions yet: who asks (`claude-code`, the session), the tag (the project's
/// folder name unless `--tag`), the priority and the deadline of the command line.
#[must_use]
pub fn base_spec(session: Option<&String>, cwd: Option<&str>, options: &PlanOptions) -> PlanSpec {
    PlanSpec {
        id: None,
        title: String::new(),
        tag: options.tag.clone().or_else(|| project(cwd)),
        priority: options.priority.clone(),
        agent: Some(AGENT.to_owned()),
        session: session.cloned(),
        notify_session: None,
        context: None,
        deadline: options.deadline.clone(),
        on_deadline: None,
        remind_every: None,
        escalate_after: None,
        escalate_to: Vec::new(),
        approvers: Vec::new(),
        require: None,
        elicitation: false,
        project: None,
        ruling: None,
        decisions: Vec::new(),
    }
}

/// The command of a `Bash` call, when it has one.
#[must_use]
pub fn bash_command(input: &HookInput) -> Option<&str> {
    if input.tool_name != "Bash" {
        return None;
    }
    input
        .tool_input
        .get("command")
        .and_then(Value::as_str)
        .filter(|c| !c.trim().is_empty())
}

pub(super) fn option(key: &str, label: &str) -> OptionSpec {
    OptionSpec {
        key: key.to_owned(),
        label: Some(label.to_owned()),
    }
}

/// `Bash: cargo test`, `Edit: /home/me/src/main.rs`, `mcp__github__create_issue`: one line, at most
/// [`TITLE_MAX`] characters.
#[must_use]
pub fn title(input: &HookInput) -> String {
    let tool = one_line(&input.tool_name);
    let text = match subject(&input.tool_input) {
        Some(subject) => format!("{tool}: {}", one_line(subject)),
        None => tool,
    };
    cut(&text, TITLE_MAX)
}

/// What a tool acts on, from the input fields Claude Code's tools use (hooks reference, "PreToolUse input").
fn subject(tool_input: &Map<String, Value>) -> Option<&str> {
    [
        "command",
        "file_path",
        "notebook_path",
        "url",
        "query",
        "pattern",
        "description",
    ]
    .into_iter()
    .find_map(|key| tool_input.get(key)?.as_str())
    .filter(|s| !s.trim().is_empty())
}

/// Who asks and where, then the tool input as pretty JSON in a code block. Pretty JSON keeps every string on
/// one line (line breaks are escaped), so nothing in it can start a `## ` section of the plan.
fn context(input: &HookInput) -> String {
    if bash_command(input).is_some() {
        return bash_context(input);
    }
    let mut head = format!(
        "Claude Code asks to use {}",
        code_span(&one_line(&input.tool_name))
    );
    if let Some(cwd) = &input.cwd {
        head.push_str(&format!(" in {}", code_span(&one_line(cwd))));
    }
    head.push_str(match input.event {
        Event::PreToolUse | Event::Elicitation => ".",
        Event::PermissionRequest => " (its permission dialog).",
    });
    let json = serde_json::to_string_pretty(&input.tool_input).unwrap_or_default();
    let shown = if json.chars().count() > INPUT_MAX {
        let kept: String = json.chars().take(INPUT_MAX).collect();
        let kept = kept.rsplit_once('\n').map_or(kept.as_str(), |(k, _)| k);
        format!(
            "{kept}\n… ({} more characters)",
            json.chars().count() - kept.chars().count()
        )
    } else {
        json
    };
    let fence = "`".repeat(longest_run(&shown, '`').max(2) + 1);
    format!("{head}\n\n{fence}json\n{shown}\n{fence}")
}

/// A `Bash` call's context: where, and what Claude says the command is for (the command itself is the proposal).
/// Its other inputs (`timeout`, `run_in_background`, …) go back unchanged.
fn bash_context(input: &HookInput) -> String {
    let mut text = "Claude Code asks to run a command".to_owned();
    if let Some(cwd) = &input.cwd {
        text.push_str(&format!(" in {}", code_span(&one_line(cwd))));
    }
    match input
        .tool_input
        .get("description")
        .and_then(Value::as_str)
        .map(one_line)
        .filter(|d| !d.is_empty())
    {
        Some(description) => {
            text.push_str(": ");
            text.push_str(&cut(&description, INPUT_MAX));
            if !description.ends_with(['.', '!', '?']) {
                text.push('.');
            }
        }
        None => text.push('.'),
    }
    text
}

/// The folder name of Claude Code's working directory, as a tag.
fn project(cwd: Option<&str>) -> Option<String> {
    let cwd = cwd?.trim_end_matches('/');
    let name = cwd.rsplit('/').next()?;
    (!name.is_empty()).then(|| one_line(name))
}

/// The permission updates "allow for this session" applies: Claude Code's own suggestions for this request
/// (`PermissionRequest` only), each kept in memory for the session (`destination: "session"`) instead of
/// written to a settings file. Only updates that widen what this request needs are kept: allow rules, a mode
/// other than `bypassPermissions`, added directories; a `Bash` call without a suggested rule gets a rule for its
/// exact command.
#[must_use]
pub fn session_updates(input: &HookInput) -> Vec<Map<String, Value>> {
    grants(input, "session", true)
}

/// The permission updates "always allow in this project" applies: the same rules and directories as
/// [`session_updates`] (no mode change: that would outlive this request's need), written by Claude Code itself
/// to the project's `.claude/settings.local.json` (`destination: "localSettings"`).
#[must_use]
pub fn project_updates(input: &HookInput) -> Vec<Map<String, Value>> {
    grants(input, "localSettings", false)
}

fn grants(input: &HookInput, destination: &str, with_mode: bool) -> Vec<Map<String, Value>> {
    if input.event != Event::PermissionRequest {
        return Vec::new();
    }
    let mut updates: Vec<Map<String, Value>> = input
        .permission_suggestions
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
    let command = input
        .tool_input
        .get("command")
        .and_then(Value::as_str)
        .filter(|c| !c.trim().is_empty());
    if !has_rule
        && input.tool_name == "Bash"
        && let Some(command) = command
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

/// `Bash(npm install:*)`, `acceptEdits mode`, `access to /tmp/x`: what the session updates grant, for the label.
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

/// Whitespace runs (line breaks included) as one space, trimmed.
pub(super) fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// At most `max` characters, the last one `…` when cut.
pub(super) fn cut(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_owned();
    }
    let mut out: String = s.chars().take(max - 1).collect();
    out.push('…');
    out
}

/// `text` as inline code, whatever backticks it holds.
pub(super) fn code_span(text: &str) -> String {
    let fence = "`".repeat(longest_run(text, '`') + 1);
    let pad = if text.starts_with('`') || text.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{text}{pad}{fence}")
}

pub(super) fn longest_run(text: &str, c: char) -> usize {
    let (mut longest, mut run) = (0, 0);
    for ch in text.chars() {
        run = if ch == c { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    longest
}
