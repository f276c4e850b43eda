//! Gemini CLI (npm `@google/gemini-cli`): `BeforeTool` before every tool its matcher names, answered with
//! `{"decision": "allow"}` or `{"decision": "deny", "reason": …}`; `AfterAgent` ends a turn (`prompt_response`,
//! which may repeat earlier turns) and goes on with `{"decision": "block", "reason": …}`. Input fields are
//! snake_case like Claude Code's. Gemini's own dialog ignores a hook's allow, so Arbiter is the gate with
//! `--approval-mode yolo`: where no one decides, the call is denied (never run unasked). Its question tool
//! `ask_user` is answered by denying it with the answers. Settings: `~/.gemini/settings.json` or the project's
//! `.gemini/settings.json` with `hooksConfig.enabled`, hook timeouts in milliseconds.

use serde_json::json;

use crate::agent::hook::core::ask::Shape;
use crate::agent::hook::core::{Agent, AnswerBy, Event, InputError, Prompt, Verdict};
use crate::agent::hook::install::{Hook, Install, Layout, Unit, UserFile};

use super::family::{Family, parse};
use super::{Dialect, line};

pub const AGENT: Agent = Agent {
    name: "gemini",
    display: "Gemini CLI",
    short: "Gemini",
};

/// The tools that change things (shell, file writes and edits) and the question tool: the others run unasked.
const MATCHER: &str = "^(run_shell_command|write_file|replace|edit|ask_user)$";

const GEMINI: Family = Family {
    events: &[
        ("BeforeTool", Event::PreTool),
        ("AfterAgent", Event::Finished),
    ],
    last_message: ("prompt_response", true),
    cap: Some(
        "Gemini CLI follows about 15 continuations in a row; after that its run ends with an error.",
    ),
    editable: &[],
    shells: &["run_shell_command"],
    edits: &["replace", "edit"],
    writes: &["write_file"],
    question: Some(("ask_user", Shape::Any, AnswerBy::Deny)),
    pre_tool_questions_only: false,
    own_rules: None,
    plan_tool: None,
    full_output: false,
    failure_elsewhere: None,
};

/// Gemini CLI.
pub struct Gemini;

impl Dialect for Gemini {
    fn agent(&self) -> Agent {
        AGENT
    }

    fn parse(&self, text: &str, event: Option<&str>) -> Result<Prompt, InputError> {
        parse(AGENT, &GEMINI, text, event)
    }

    fn render(&self, event: Event, verdict: &Verdict) -> Option<String> {
        match (event, verdict) {
            (Event::Finished, verdict) => super::finished(verdict),
            (_, Verdict::Allow { .. }) => line(&json!({"decision": "allow"})),
            // With `--approval-mode yolo` there is no prompt to fall back on: no decision is a deny.
            (_, Verdict::Deny { reason } | Verdict::Ask { reason }) => {
                line(&json!({"decision": "deny", "reason": reason}))
            }
            (_, Verdict::Form(_) | Verdict::Continue { .. } | Verdict::Stop) => None,
        }
    }

    fn no_decision(&self, _event: Event) -> &'static str {
        "deny"
    }

    fn install(&self) -> Install {
        Install {
            user_file: Some(UserFile {
                env: None,
                default: ".gemini",
                file: "settings.json",
            }),
            project_file: ".gemini/settings.json",
            layout: Layout::Groups {
                unit: Unit::Milliseconds,
            },
            hooks: &[
                Hook {
                    event: "BeforeTool",
                    matcher: Some(MATCHER),
                    finished: false,
                },
                Hook {
                    event: "AfterAgent",
                    matcher: None,
                    finished: true,
                },
            ],
            enable: Some(("hooksConfig", "enabled")),
            pass_event: true,
            notes: &[
                "Run Gemini with --approval-mode yolo: Gemini's own prompt ignores a hook's allow, so Arbiter is the gate (shell, file writes and edits are asked; other tools run).",
            ],
        }
    }
}
