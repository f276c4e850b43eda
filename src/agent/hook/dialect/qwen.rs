//! Qwen Code (npm `@qwen-code/qwen-code`): Claude Code's hook shapes. `PermissionRequest` asks for a tool
//! (`run_shell_command`, `write_file`, `edit`, …), answered with `hookSpecificOutput.decision.behavior`;
//! `PreToolUse` reaches its question tool `ask_user_question`, answered by denying it with the answers; `Stop`
//! ends a turn (`last_assistant_message`). Qwen keeps no session rule a hook can give, so `✅ Allow for this
//! session` is Arbiter's. Settings: `~/.qwen/settings.json` or the project's `.qwen/settings.json`, hook timeouts
//! in milliseconds.

use crate::agent::hook::core::ask::Shape;
use crate::agent::hook::core::{Agent, AnswerBy, Event};
use crate::agent::hook::install::{Hook, Install, Layout, Unit, UserFile};

use super::family::{Family, Member};

pub const AGENT: Agent = Agent {
    name: "qwen",
    display: "Qwen Code",
    short: "Qwen",
};

const QWEN: Family = Family {
    events: &[
        ("PreToolUse", Event::PreTool),
        ("PermissionRequest", Event::Permission),
        ("Stop", Event::Finished),
        ("PostToolUse", Event::PostTool),
        ("PostToolUseFailure", Event::PostTool),
    ],
    last_message: ("last_assistant_message", false),
    cap: Some(
        "Qwen Code lets a hook send it on 7 times in a row (QWEN_CODE_STOP_HOOK_BLOCK_CAP raises it), then stops.",
    ),
    editable: &[],
    shells: &["run_shell_command"],
    edits: &["edit", "replace"],
    writes: &["write_file"],
    question: Some(("ask_user_question", Shape::Any, AnswerBy::Deny)),
    pre_tool_questions_only: true,
    own_rules: None,
    plan_tool: None,
    full_output: false,
    failure_elsewhere: None,
};

/// Qwen Code.
pub struct Qwen;

impl Member for Qwen {
    const AGENT: Agent = AGENT;
    const FAMILY: &'static Family = &QWEN;

    fn hooks(&self) -> Install {
        Install {
            user_file: Some(UserFile {
                env: None,
                default: ".qwen",
                file: "settings.json",
            }),
            project_file: ".qwen/settings.json",
            layout: Layout::Groups {
                unit: Unit::Milliseconds,
            },
            hooks: &[
                Hook {
                    event: "PermissionRequest",
                    matcher: None,
                    finished: false,
                },
                Hook {
                    event: "PreToolUse",
                    matcher: Some("ask_user_question"),
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
                Hook {
                    event: "PostToolUseFailure",
                    matcher: None,
                    finished: false,
                },
            ],
            enable: None,
            pass_event: true,
            notes: &[
                "Qwen Code raises PermissionRequest in its interactive UI (and with --input-format stream-json), not in plain -p mode.",
            ],
        }
    }
}
