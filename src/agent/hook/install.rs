//! `arbiter hook claude-code install`: the hook written into a Claude Code settings file, merged with what is
//! there. Every key and hook of the user's stays where it was; Arbiter's own entries (a command hook whose
//! command runs `hook claude-code`) are updated in place, or added once, so installing twice changes nothing.

use serde_json::{Map, Value, json};

/// The events the hook answers: `PermissionRequest` fires exactly when Claude Code would show a dialog (tool
/// permissions, `AskUserQuestion`, `ExitPlanMode`); `Elicitation` when an MCP server asks for a form.
pub const EVENTS: [&str; 2] = ["PermissionRequest", "Elicitation"];
/// What marks a command hook as Arbiter's.
const MARK: &str = " hook claude-code";

/// What installing did to one event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    Added,
    Updated,
    Unchanged,
}

/// The merged settings file and what changed in it.
#[derive(Debug, Clone, PartialEq)]
pub struct Merged {
    /// The whole settings file, pretty JSON with a final line break.
    pub text: String,
    /// Each event of [`EVENTS`] and what happened to it.
    pub changes: Vec<(&'static str, Change)>,
}

/// Why a settings file can't be merged (nothing is written).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InstallError {
    #[error(
        "line {line}, column {column}: not JSON ({reason}); fix or move it, nothing was written"
    )]
    NotJson {
        line: usize,
        column: usize,
        reason: String,
    },
    #[error("{0}; fix or move it, nothing was written")]
    Shape(String),
}

/// `existing` (the settings file's text, `None` when there is none) with the hook `command` for every event of
/// [`EVENTS`], run with a `timeout` of `timeout_secs` seconds.
pub fn merge(
    existing: Option<&str>,
    command: &str,
    timeout_secs: u64,
) -> Result<Merged, InstallError> {
    let mut settings = match existing.filter(|t| !t.trim().is_empty()) {
        None => Map::new(),
        Some(text) => match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(settings)) => settings,
            Ok(_) => {
                return Err(InstallError::Shape(
                    "the settings are not a JSON object".to_owned(),
                ));
            }
            Err(e) => {
                return Err(InstallError::NotJson {
                    line: e.line(),
                    column: e.column(),
                    reason: e
                        .to_string()
                        .split(" at line")
                        .next()
                        .unwrap_or_default()
                        .to_owned(),
                });
            }
        },
    };
    let hooks = settings
        .entry("hooks")
        .or_insert_with(|| Value::Object(Map::new()));
    let Value::Object(hooks) = hooks else {
        return Err(InstallError::Shape(
            "`hooks` is not a JSON object".to_owned(),
        ));
    };
    let ours = json!({"type": "command", "command": command, "timeout": timeout_secs});
    let mut changes = Vec::new();
    for event in EVENTS {
        let groups = hooks
            .entry(event)
            .or_insert_with(|| Value::Array(Vec::new()));
        let Value::Array(groups) = groups else {
            return Err(InstallError::Shape(format!(
                "`hooks.{event}` is not a list"
            )));
        };
        changes.push((event, install_into(groups, &ours, event)?));
    }
    let mut text = serde_json::to_string_pretty(&Value::Object(settings))
        .map_err(|e| InstallError::Shape(format!("cannot write JSON: {e}")))?;
    text.push('\n');
    Ok(Merged { text, changes })
}

/// Updates Arbiter's hook entries among one event's matcher groups, or adds a group `*` with it.
fn install_into(
    groups: &mut Vec<Value>,
    ours: &Value,
    event: &str,
) -> Result<Change, InstallError> {
    let mut found = Change::Added;
    for group in groups.iter_mut() {
        let Some(entries) = group.get_mut("hooks").and_then(Value::as_array_mut) else {
            continue;
        };
        for entry in entries.iter_mut() {
            let is_ours = entry.get("type").and_then(Value::as_str) == Some("command")
                && entry
                    .get("command")
                    .and_then(Value::as_str)
                    .is_some_and(|c| c.contains(MARK));
            if !is_ours {
                continue;
            }
            let Value::Object(fields) = entry else {
                return Err(InstallError::Shape(format!(
                    "a hook of `hooks.{event}` is not a JSON object"
                )));
            };
            let before = fields.clone();
            for key in ["command", "timeout"] {
                fields.insert(key.to_owned(), ours[key].clone());
            }
            if found == Change::Added {
                found = Change::Unchanged;
            }
            if *fields != before {
                found = Change::Updated;
            }
        }
    }
    if found == Change::Added {
        groups.push(json!({"matcher": "*", "hooks": [ours]}));
    }
    Ok(found)
}

/// `text` as one shell word: single-quoted, a `'` inside written `'\''`.
#[must_use]
pub fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const COMMAND: &str = "'/usr/bin/arbiter' --queue '/q' hook claude-code --timeout 9m";

    #[test]
    fn merges_with_the_users_keys_and_hooks_and_is_idempotent() {
        let mine = r#"{
  "model": "opus",
  "permissions": {"allow": ["Bash(ls:*)"]},
  "hooks": {
    "PermissionRequest": [
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "my-logger"}]}
    ],
    "Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]
  }
}"#;
        let once = merge(Some(mine), COMMAND, 600).unwrap();
        let value: Value = serde_json::from_str(&once.text).unwrap();
        assert_eq!(value["model"], "opus");
        assert_eq!(value["permissions"]["allow"][0], "Bash(ls:*)");
        assert_eq!(value["hooks"]["Stop"][0]["hooks"][0]["command"], "say done");
        let pr = value["hooks"]["PermissionRequest"].as_array().unwrap();
        assert_eq!(pr[0]["hooks"][0]["command"], "my-logger");
        assert_eq!(
            pr[1],
            json!({"matcher": "*", "hooks": [{"type": "command", "command": COMMAND, "timeout": 600}]})
        );
        assert_eq!(
            value["hooks"]["Elicitation"][0]["hooks"][0]["command"],
            COMMAND
        );
        assert_eq!(
            once.changes,
            vec![
                ("PermissionRequest", Change::Added),
                ("Elicitation", Change::Added)
            ]
        );
        // The keys keep their order: the user's first, hooks where they were.
        let keys: Vec<&String> = value.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["model", "permissions", "hooks"]);

        let twice = merge(Some(&once.text), COMMAND, 600).unwrap();
        assert_eq!(twice.text, once.text);
        assert_eq!(
            twice.changes,
            vec![
                ("PermissionRequest", Change::Unchanged),
                ("Elicitation", Change::Unchanged)
            ]
        );

        // A new binary path or timeout updates the entry in place, never a second one.
        let moved = merge(
            Some(&once.text),
            "'/opt/arbiter' hook claude-code --timeout 2m",
            180,
        )
        .unwrap();
        let value: Value = serde_json::from_str(&moved.text).unwrap();
        let pr = value["hooks"]["PermissionRequest"].as_array().unwrap();
        assert_eq!(pr.len(), 2);
        assert_eq!(pr[1]["hooks"][0]["timeout"], 180);
        assert_eq!(moved.changes[0], ("PermissionRequest", Change::Updated));
    }

    #[test]
    fn a_file_that_is_not_settings_is_refused_with_where_and_why() {
        let err = merge(Some("{\n  \"hooks\": [,]\n}"), COMMAND, 600).unwrap_err();
        assert!(
            matches!(err, InstallError::NotJson { line: 2, .. }),
            "{err:?}"
        );
        assert!(err.to_string().starts_with("line 2, column"), "{err}");
        for (text, why) in [
            ("[1]", "the settings are not a JSON object"),
            (r#"{"hooks": 3}"#, "`hooks` is not a JSON object"),
            (
                r#"{"hooks": {"Elicitation": {}}}"#,
                "`hooks.Elicitation` is not a list",
            ),
        ] {
            let err = merge(Some(text), COMMAND, 600).unwrap_err();
            assert!(err.to_string().starts_with(why), "{text}: {err}");
        }
        assert!(merge(None, COMMAND, 600).is_ok());
        assert!(merge(Some("  \n"), COMMAND, 600).is_ok());
    }

    #[test]
    fn shell_quoting_survives_quotes_and_spaces() {
        assert_eq!(shell_quote("/a b/it's"), r"'/a b/it'\''s'");
    }
}
