//! Claude Code (code.claude.com/docs/en/hooks): `PreToolUse` and `PermissionRequest` decide a tool call
//! (`AskUserQuestion` and `ExitPlanMode` among them), `Elicitation` is an MCP server's form, `Stop` ends a turn; in
//! the shapes of [`super::family`], all of its output read (`updatedInput`, `updatedPermissions`,
//! `systemMessage`, `PreToolUse`'s `ask`). Its own rules for the session and the project come from its permission
//! suggestions.

use serde_json::{Map, Value};

use crate::agent::hook::core::ask::Shape;
use crate::agent::hook::core::{Act, Agent, AnswerBy, Event, Grants, SessionGrant};
use crate::agent::hook::install::{Hook, Install, Layout, Unit, UserFile};

use super::family::{Family, Member};

pub const AGENT: Agent = Agent {
    name: "claude-code",
    display: "Claude Code",
    short: "Claude",
};

/// Claude Code.
pub struct ClaudeCode;

impl Member for ClaudeCode {
    const AGENT: Agent = AGENT;
    const FAMILY: &'static Family = &CLAUDE;

    fn hooks(&self) -> Install {
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
                // Tool results: two failures in a row of what a standing rule allowed pause it.
                Hook {
                    event: "PostToolUse",
                    matcher: Some("*"),
                    finished: false,
                },
                Hook {
                    event: "PostToolUseFailure",
                    matcher: Some("*"),
                    finished: false,
                },
            ],
            enable: None,
            pass_event: false,
            notes: &[],
        }
    }
}

const CLAUDE: Family = Family {
    events: &[
        ("PreToolUse", Event::PreTool),
        ("PermissionRequest", Event::Permission),
        ("Elicitation", Event::Form),
        ("Stop", Event::Finished),
        ("PostToolUse", Event::PostTool),
        ("PostToolUseFailure", Event::PostTool),
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
    own_rules: Some(own_grants),
    plan_tool: Some("ExitPlanMode"),
    full_output: true,
    failure_elsewhere: None,
};

const ASK_USER_QUESTION: &str = "AskUserQuestion";

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
        offered: Vec::new(),
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

#[cfg(test)]
#[path = "claude_code_tests.rs"]
mod tests;
