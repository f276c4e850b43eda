//! Codex (npm `@openai/codex`): Claude Code's hook layout and input fields. `PermissionRequest` asks for a
//! command (`tool_name` `Bash`, `tool_input.command` and `.description`) or a patch (`apply_patch`, shown as its
//! diff), answered with `hookSpecificOutput.decision.behavior` allow | deny + `message`; `PreToolUse` reaches its
//! question tool `request_user_input`, answered by denying it with the answers; `Stop` ends a turn
//! (`last_assistant_message`; the instruction reaches the model inside `<hook_prompt>`). Codex keeps no session
//! rule a hook can give, so `✅ Allow for this session` is Arbiter's. Hooks: `$CODEX_HOME/hooks.json` (default
//! `~/.codex`) or the project's `.codex/hooks.json`, timeouts in seconds; Codex runs a hook only once it is trusted
//! in `/hooks`.

use crate::agent::hook::core::ask::Shape;
use crate::agent::hook::core::{Agent, AnswerBy, Event};
use crate::agent::hook::install::{Hook, Install, Layout, Unit, UserFile};

use super::family::{Family, Member};

pub const AGENT: Agent = Agent {
    name: "codex",
    display: "Codex",
    short: "Codex",
};

const CODEX: Family = Family {
    events: &[
        ("PreToolUse", Event::PreTool),
        ("PermissionRequest", Event::Permission),
        ("Stop", Event::Finished),
        ("PostToolUse", Event::PostTool),
    ],
    last_message: ("last_assistant_message", false),
    cap: None,
    editable: &[],
    shells: &[
        "Bash",
        "shell",
        "local_shell",
        "exec_command",
        "shell_command",
    ],
    edits: &[],
    writes: &[],
    question: Some(("request_user_input", Shape::Any, AnswerBy::Deny)),
    pre_tool_questions_only: true,
    own_rules: None,
    plan_tool: None,
    full_output: false,
    failure_elsewhere: Some(failure_in_transcript),
};

/// Codex.
pub struct Codex;

impl Member for Codex {
    const AGENT: Agent = AGENT;
    const FAMILY: &'static Family = &CODEX;

    fn hooks(&self) -> Install {
        Install {
            user_file: Some(UserFile {
                env: Some("CODEX_HOME"),
                default: ".codex",
                file: "hooks.json",
            }),
            project_file: ".codex/hooks.json",
            layout: Layout::Groups {
                unit: Unit::Seconds,
            },
            hooks: &[
                Hook {
                    event: "PermissionRequest",
                    matcher: None,
                    finished: false,
                },
                Hook {
                    event: "PreToolUse",
                    matcher: Some("request_user_input"),
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
                    matcher: None,
                    finished: false,
                },
            ],
            enable: None,
            pass_event: true,
            notes: &[
                "Codex runs a hook only once it is trusted: open `/hooks` in Codex and trust Arbiter's.",
            ],
        }
    }
}

/// Longest tail of a Codex transcript read for a tool's result (its last events are the ones wanted).
const TRANSCRIPT_TAIL: u64 = 256 * 1024;

/// A tool's failure as Codex's transcript (`transcript_path`, its rollout JSON lines) records it by the time its
/// `PostToolUse` fires: the `item_completed` event of the call (`item.id` = `tool_use_id`) with a non-zero
/// `exit_code` or `status: "failed"`. Codex's `PostToolUse` itself carries only the output text.
fn failure_in_transcript(fields: &serde_json::Map<String, serde_json::Value>) -> Option<String> {
    let call = super::string(fields, "tool_use_id")?;
    let path = super::string(fields, "transcript_path")?;
    let tail =
        crate::agent::hook::core::files::read_tail(std::path::Path::new(&path), TRANSCRIPT_TAIL)?;
    let needle = format!("\"id\":\"{call}\"");
    tail.lines()
        .rev()
        .filter(|l| l.contains(&needle))
        .find_map(|line| {
            let event: serde_json::Value = serde_json::from_str(line).ok()?;
            let item = event.get("payload")?.get("item")?;
            if item.get("id")?.as_str()? != call {
                return None;
            }
            let code = item.get("exit_code").and_then(serde_json::Value::as_i64);
            let failed = item.get("status").and_then(serde_json::Value::as_str) == Some("failed");
            match code {
                Some(0) if !failed => Some(None),
                Some(code) => Some(Some(format!("exit code {code}"))),
                None if failed => Some(Some("failed".to_owned())),
                None => None,
            }
        })?
}
