//! Each agent's hook dialect: how its hook input reads ([`Dialect::parse`] → a core [`Prompt`]), how its answer is
//! written ([`Dialect::render`]: a core [`Verdict`] → its JSON), and where and how its hooks are installed
//! ([`Dialect::install`]). Nothing else is agent-specific: everything between is the core's.

pub mod claude_code;
pub mod codex;
pub mod copilot;
mod family;
pub mod gemini;
pub mod qwen;

use serde_json::{Map, Value};

use super::core::change::{self, Replace};
use super::core::{Act, Event, Prompt, Verdict};

pub use super::core::dialect::Dialect;

/// The agents' names, as `arbiter hook AGENT` takes them.
pub const NAMES: [&str; 5] = ["claude-code", "codex", "gemini", "qwen", "copilot"];

/// The dialect of the agent named `name`.
#[must_use]
pub fn named(name: &str) -> Option<&'static dyn Dialect> {
    Some(match name {
        "claude-code" => &claude_code::ClaudeCode,
        "codex" => &codex::Codex,
        "gemini" => &gemini::Gemini,
        "qwen" => &qwen::Qwen,
        "copilot" => &copilot::Copilot,
        _ => return None,
    })
}

/// The event a hook input names, read as leniently as possible: for answering in the right format when the rest
/// of the input or the command line is unusable.
#[must_use]
pub fn answer_as(dialect: &dyn Dialect, text: &str, event: Option<&str>) -> Option<Event> {
    match dialect.parse(text, event) {
        Ok(Prompt::Pass) => None,
        Ok(prompt) => Some(prompt.event()),
        Err(e) => e.answer_as,
    }
}

/// The hook input as a JSON object, or why not.
pub(super) fn object(text: &str) -> Result<Map<String, Value>, String> {
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(fields)) => Ok(fields),
        Ok(_) => Err("the hook input is not a JSON object".to_owned()),
        Err(e) => Err(format!("the hook input is not JSON ({e})")),
    }
}

/// A non-empty string field.
pub(super) fn string(fields: &Map<String, Value>, key: &str) -> Option<String> {
    match fields.get(key) {
        Some(Value::String(s)) if !s.trim().is_empty() => Some(s.clone()),
        _ => None,
    }
}

/// The first of `keys` that is a non-empty string field.
pub(super) fn first_string(fields: &Map<String, Value>, keys: &[&str]) -> Option<String> {
    keys.iter().find_map(|key| string(fields, key))
}

/// A tool's arguments: an object, or a JSON object written as a string (Copilot's `toolArgs`).
pub(super) fn arguments(value: Option<&Value>) -> Option<Map<String, Value>> {
    match value? {
        Value::Object(fields) => Some(fields.clone()),
        Value::String(text) => match serde_json::from_str(text) {
            Ok(Value::Object(fields)) => Some(fields),
            _ => None,
        },
        _ => None,
    }
}

/// A shell command from `key`: a string, or an argument list (`["bash", "-lc", "cargo test"]` is the script).
pub(super) fn command(input: &Map<String, Value>, key: &str) -> Option<String> {
    match input.get(key)? {
        Value::String(s) if !s.trim().is_empty() => Some(s.clone()),
        Value::Array(words) => {
            let words: Vec<&str> = words.iter().filter_map(Value::as_str).collect();
            match words.as_slice() {
                [shell, flag, script]
                    if shell.ends_with("sh") && flag.starts_with('-') && flag.ends_with('c') =>
                {
                    Some((*script).to_owned())
                }
                [] => None,
                words => Some(words.join(" ")),
            }
        }
        _ => None,
    }
}

/// A shell command as the act of a call: editable where the agent runs an edited command in its place.
pub(super) fn shell(input: &Map<String, Value>, key: &str, editable: bool) -> Act {
    match command(input, key) {
        Some(command) => Act::Command { command, editable },
        None => Act::Other,
    }
}

/// A replacement in one file, from the fields the agent's edit tool uses (`file_path`/`path`, `old_string`/
/// `old_str`, `new_string`/`new_str`, `replace_all`).
pub(super) fn replacement(input: &Map<String, Value>, cwd: Option<&str>) -> Act {
    let path = first_string(input, &["file_path", "path", "absolute_path"]);
    let text = |keys: &[&str]| {
        keys.iter()
            .find_map(|k| input.get(*k).and_then(Value::as_str))
            .map(str::to_owned)
    };
    match (
        path,
        text(&["old_string", "old_str"]),
        text(&["new_string", "new_str"]),
    ) {
        (Some(path), Some(old), Some(new)) => {
            let flag = |key: &str| input.get(key).and_then(Value::as_bool) == Some(true);
            let all = flag("replace_all")
                || flag("allow_multiple")
                || input
                    .get("expected_replacements")
                    .and_then(Value::as_u64)
                    .is_some_and(|n| n > 1);
            Act::Change(change::replace(&path, cwd, &[Replace { old, new, all }]))
        }
        _ => Act::Other,
    }
}

/// A whole-file write, from `file_path`/`path` and `content`/`file_text`.
pub(super) fn write(input: &Map<String, Value>, cwd: Option<&str>) -> Act {
    let path = first_string(input, &["file_path", "path", "absolute_path"]);
    let content = ["content", "file_text"]
        .into_iter()
        .find_map(|k| input.get(k).and_then(Value::as_str));
    match (path, content) {
        (Some(path), Some(content)) => Act::Change(change::write(&path, cwd, content)),
        _ => Act::Other,
    }
}

/// A diff the agent made itself (Copilot's `edit` permission: `file_path` and `diff`, git's format), from its
/// `---` line on.
pub(super) fn own_diff(input: &Map<String, Value>) -> Option<Act> {
    let path = first_string(input, &["file_path", "path"])?;
    let diff = string(input, "diff")?;
    let from = diff.find("\n--- ").map_or(0, |at| at + 1);
    Some(Act::Change(change::Change {
        files: vec![path],
        diff: diff[from..].trim_start_matches('\n').to_owned(),
        note: None,
    }))
}

/// A patch in any string of the input (Codex's `apply_patch`, as an argument or inside a command).
pub(super) fn patch(input: &Map<String, Value>) -> Option<Act> {
    fn strings(value: &Value, out: &mut Vec<String>) {
        match value {
            Value::String(s) => out.push(s.clone()),
            Value::Array(items) => items.iter().for_each(|v| strings(v, out)),
            Value::Object(fields) => fields.values().for_each(|v| strings(v, out)),
            _ => {}
        }
    }
    let mut all = Vec::new();
    input.values().for_each(|v| strings(v, &mut all));
    all.iter().find_map(|s| change::patch(s)).map(Act::Change)
}

/// The JSON line for `value`.
pub(super) fn line(value: &Value) -> Option<String> {
    serde_json::to_string(value).ok()
}

/// `{"decision": "block", "reason": …}`: every agent's way to go on after its turn ended (Claude Code, Codex and
/// Qwen `Stop`, Gemini `AfterAgent`, Copilot `agentStop`); nothing lets it stop.
pub(super) fn finished(verdict: &Verdict) -> Option<String> {
    match verdict {
        Verdict::Continue { instruction } => {
            line(&serde_json::json!({"decision": "block", "reason": instruction}))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests;
