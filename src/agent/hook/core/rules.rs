//! Standing rules in the hook: a permission prompt a rule answers is answered here, before any plan is pushed and
//! whether or not a daemon runs (the plan goes straight to completed/, answered by the rule; nobody is asked), and
//! a tool result the agent reports afterwards (`PostToolUse`, Claude Code's `PostToolUseFailure`) counts toward the
//! failures that pause the rule that allowed the call.
//!
//! A permission plan carries what a tap needs to make a rule: the options [`ALWAYS`] (`🔁 Always allow this`) and
//! [`GRANT`] (`⏱ Allow <agent> for N min`, only when the agent names its session), and the frontmatter keys
//! `project` (the agent's working directory), `rule_tool`, `rule_command` (what [`key`] says the call is) and
//! `grant_minutes`.

use serde_json::Value;

use crate::actions::rules::{self as actions_rules, Ruled, results};
use crate::clock::now as now_rfc3339;
use crate::plan::Ruling;
use crate::queue::Queue;
use crate::queue::rules::Ask;

pub use crate::actions::rules::{ALWAYS, GRANT};

use super::memory::key;
use super::{Dialect, PlanOptions, Reply, ToolCall, Verdict, permission};

/// A tool call's result, as the agent reported it after the call.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolResult {
    pub call: ToolCall,
    /// Why it failed (an error, a non-zero exit), or `None` when it did not.
    pub failure: Option<String>,
}

/// What a rule would match of `call`: its agent, project, session, tool and exact command.
fn ask_of<'a>(call: &'a ToolCall, command: &'a str) -> Ask<'a> {
    Ask {
        agent: call.origin.agent.name,
        project: call.origin.cwd.as_deref(),
        session: call.origin.session.as_deref(),
        tool: &call.tool,
        command,
    }
}

/// Longest command a rule is offered for (a call whose input is a whole document is asked each time).
const MAX_RULED: usize = 4000;

/// What a rule made from `call`'s plan would allow: the tool and the exact command, and how long a grant lasts;
/// `None` when no rule is offered for it (its command is over [`MAX_RULED`] bytes).
#[must_use]
pub fn ruling(call: &ToolCall, options: &PlanOptions) -> Option<Ruling> {
    let (tool, command) = key(call);
    (command.len() + tool.len() <= MAX_RULED).then(|| Ruling {
        tool,
        command,
        grant_minutes: Some(options.grant_minutes()),
    })
}

/// The reply to `call` when a standing rule answers it (the plan it answered is in completed/ with its line), and
/// what the rules had to say for stderr (a `rules.json` that does not read, a rule without its line).
pub fn answered(
    queue: &Queue,
    dialect: &dyn Dialect,
    call: &ToolCall,
    options: &PlanOptions,
) -> (Option<Reply>, Vec<String>) {
    let (_, command) = key(call);
    let ask = ask_of(call, &command);
    let now = now_rfc3339();
    let make = || {
        let spec = permission::plan_spec(call, options);
        let id = crate::agent::id::fresh(|_| false);
        let text = crate::agent::spec::render(&spec, &id, &now);
        let name = crate::plan::parse(&text, &id).map_or_else(
            |_| format!("{}-{id}.md", call.origin.agent.name),
            |plan| crate::agent::push::file_name(&plan),
        );
        Ruled { name, text }
    };
    let looked = actions_rules::answer_permission(queue, &ask, make, &now);
    let warnings = looked
        .warnings
        .iter()
        .map(|w| format!("arbiter: {w}"))
        .collect();
    let Some(fired) = looked.fired else {
        return (None, warnings);
    };
    let verdict = Verdict::allow(format!(
        "Allowed by standing rule {} via Arbiter (plan {})",
        fired.rule.id, fired.plan.plan.id
    ));
    // The hook is the agent that reads this plan's answer: its notify file goes.
    let _ = queue.take_notify(
        &crate::queue::notify_file::file_name(&fired.plan.plan),
        None,
    );
    let reply = Reply {
        stdout: dialect.render(call.event, &verdict),
        stderr: (!warnings.is_empty()).then(|| warnings.join("\n")),
    };
    (Some(reply), Vec::new())
}

/// A tool's result against the rule that allowed the call, if one did: no output (the agent reads none), a line on
/// stderr when the rule paused itself.
pub fn result(queue: &Queue, result: &ToolResult) -> Reply {
    let (_, command) = key(&result.call);
    let ask = ask_of(&result.call, &command);
    let failed = result.failure.is_some();
    let reason = result.failure.as_deref().unwrap_or_default();
    match results::record(queue, &ask, failed, reason, &now_rfc3339()) {
        Ok(Some(paused)) => Reply {
            stdout: None,
            stderr: Some(format!(
                "arbiter: standing rule {} paused itself: what it allowed failed twice in a row ({})",
                paused.rule.id, paused.reason
            )),
        },
        Ok(None) => Reply::default(),
        Err(e) => Reply {
            stdout: None,
            stderr: Some(format!("arbiter: can't record the tool's result: {e}")),
        },
    }
}

/// Why a tool call failed, from what the agent reports after it: an error field (Claude Code's
/// `PostToolUseFailure`), a flag or a non-zero exit code in the tool's response, or an `Exit Code: N` line in its
/// text (Qwen's `llmContent`, Codex's output). `None` for a call that did not fail (or that says nothing).
#[must_use]
pub fn failure(response: Option<&Value>, error: Option<&Value>) -> Option<String> {
    if let Some(error) = error.filter(|e| !e.is_null()) {
        return Some(one_line(&text_of(error)));
    }
    let response = response?;
    if let Value::Object(fields) = response {
        let flag = |keys: &[&str]| {
            keys.iter()
                .any(|k| fields.get(*k) == Some(&Value::Bool(true)))
        };
        if flag(&["is_error", "isError", "interrupted", "is_interrupt"]) {
            return Some(one_line(&text_of(response)));
        }
        if fields.get("success") == Some(&Value::Bool(false)) {
            return Some(one_line(&text_of(response)));
        }
        for k in ["exit_code", "exitCode", "returnCode", "return_code"] {
            if let Some(code) = fields.get(k).and_then(Value::as_i64)
                && code != 0
            {
                return Some(format!("exit code {code}"));
            }
        }
        if let Some(kind) = fields.get("resultType").and_then(Value::as_str)
            && matches!(kind, "failure" | "error" | "denied")
        {
            return Some(one_line(&text_of(response)));
        }
    }
    exit_code_in(&text_of(response)).map(|code| format!("exit code {code}"))
}

/// A non-zero exit code written in a tool's text output (`Exit Code: 1`, `exit code 2`, `Exit code: 127`).
fn exit_code_in(text: &str) -> Option<i64> {
    let lower = text.to_ascii_lowercase();
    let mut from = 0;
    while let Some(at) = lower[from..].find("exit code") {
        let rest = &lower[from + at + "exit code".len()..];
        let digits: String = rest
            .trim_start_matches([':', ' '])
            .chars()
            .take_while(|c| c.is_ascii_digit() || *c == '-')
            .collect();
        if let Ok(code) = digits.parse::<i64>()
            && code != 0
        {
            return Some(code);
        }
        from += at + "exit code".len();
    }
    None
}

/// A value as text: a string as is, anything else as JSON.
fn text_of(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Object(fields) => [
            "error",
            "llmContent",
            "textResultForLlm",
            "stderr",
            "output",
        ]
        .into_iter()
        .find_map(|k| {
            fields
                .get(k)
                .and_then(Value::as_str)
                .filter(|s| !s.trim().is_empty())
        })
        .map_or_else(|| value.to_string(), str::to_owned),
        other => other.to_string(),
    }
}

/// One line of at most 200 characters.
fn one_line(text: &str) -> String {
    let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    super::text::cut(&flat, 200)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn failures_are_read_from_every_agents_result() {
        let none = |v: Value| failure(Some(&v), None);
        assert_eq!(none(json!("")), None);
        assert_eq!(
            none(json!({"stdout": "ok", "stderr": "", "interrupted": false})),
            None
        );
        assert_eq!(
            none(
                json!({"llmContent": "Command: x\nOutput: (empty)\nExit Code: 0\nSignal: (none)"})
            ),
            None
        );
        assert_eq!(
            none(
                json!({"llmContent": "Command: npm test\nError: (none)\nExit Code: 1\nSignal: (none)"})
            ),
            Some("exit code 1".to_owned())
        );
        assert_eq!(
            none(
                json!({"resultType": "success", "textResultForLlm": "<shellId: 0 completed with exit code 0>"})
            ),
            None
        );
        assert_eq!(
            none(
                json!({"resultType": "success", "textResultForLlm": "<shellId: 0 completed with exit code 2>"})
            ),
            Some("exit code 2".to_owned())
        );
        assert_eq!(
            none(json!("Exit code: 127\nWall time: 0.1 seconds")),
            Some("exit code 127".to_owned())
        );
        assert_eq!(
            none(json!({"exit_code": 3})),
            Some("exit code 3".to_owned())
        );
        assert_eq!(
            none(json!({"is_error": true, "error": "boom"})),
            Some("boom".to_owned())
        );
        assert_eq!(
            failure(
                None,
                Some(&json!("Command failed with exit code 1: npm test"))
            ),
            Some("Command failed with exit code 1: npm test".to_owned())
        );
    }
}
