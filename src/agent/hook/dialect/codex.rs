//! Codex (npm `@openai/codex`): Claude Code's hook layout and input fields. `PermissionRequest` asks for a
//! command (`tool_name` `Bash`, `tool_input.command` and `.description`) or a patch (`apply_patch`, shown as its
//! diff), answered with `hookSpecificOutput.decision.behavior` allow | deny + `message`; `PreToolUse` reaches its
//! question tool `request_user_input`, answered by denying it with the answers; `Stop` ends a turn
//! (`last_assistant_message`; the instruction reaches the model inside `<hook_prompt>`). Codex keeps no session
//! rule a hook can give, so `✅ Allow for this session` is Arbiter's. Hooks: `$CODEX_HOME/hooks.json` (default
//! `~/.codex`) or the project's `.codex/hooks.json`, timeouts in seconds; Codex runs a hook only once it is trusted
//! in `/hooks`.

use crate::agent::hook::core::ask::Shape;
use crate::agent::hook::core::{Agent, AnswerBy, Event, InputError, Prompt, Verdict};
use crate::agent::hook::install::{Hook, Install, Layout, Unit, UserFile};

use super::Dialect;
use super::family::{Family, output, parse};

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
};

/// Codex.
pub struct Codex;

impl Dialect for Codex {
    fn agent(&self) -> Agent {
        AGENT
    }

    fn parse(&self, text: &str, event: Option<&str>) -> Result<Prompt, InputError> {
        parse(AGENT, &CODEX, text, event)
    }

    fn render(&self, event: Event, verdict: &Verdict) -> Option<String> {
        output(&CODEX, event, verdict)
    }

    fn install(&self) -> Install {
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
