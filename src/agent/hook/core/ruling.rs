//! What a permission plan carries for a standing rule, and what a tool's result says: the options [`ALWAYS`]
//! (`🔁 Always allow this`) and [`GRANT`] (`⏱ Allow <agent> for N min`), the rule a tap on them would make
//! ([`ruling`]: the plan's `rule_tool`, `rule_command`, `grant_minutes`), and whether a call the agent reports on
//! afterwards failed ([`failure`]). The rules themselves are asked in [`super::rules`].

use serde_json::Value;

use crate::plan::Ruling;

pub use crate::actions::rules::{ALWAYS, GRANT};

use super::ToolCall;

/// A tool call's result, as the agent reported it after the call.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolResult {
    pub call: ToolCall,
    /// Why it failed (an error, a non-zero exit), or `None` when it did not.
    pub failure: Option<String>,
}

/// Longest command a rule is offered for (a call whose input is a whole document is asked each time).
const MAX_RULED: usize = 4000;

/// What a rule made from `call`'s plan would allow: the tool and the exact command, and how long a grant lasts;
/// `None` when no rule is offered for it (its command is over [`MAX_RULED`] bytes).
#[must_use]
pub fn ruling(call: &ToolCall, grant_minutes: u32) -> Option<Ruling> {
    let (tool, command) = call.key();
    if command.len() + tool.len() > MAX_RULED {
        return None;
    }
    Some(Ruling {
        tool,
        command,
        grant_minutes: Some(grant_minutes),
    })
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
