//! `arbiter hook AGENT install`: the hooks written into the agent's hook configuration, merged with what is
//! there. Every key and hook of the user's stays where it was; Arbiter's own entries (a command hook whose
//! command runs `hook AGENT`) are updated in place, or added once, so installing twice changes nothing.
//!
//! Two layouts: Claude Code's, which Codex, Gemini and Qwen share (`hooks.<Event>` is a list of matcher groups,
//! each with `hooks: [{"type": "command", "command": …, "timeout": …}]`), and Copilot's flat one
//! (`{"version": 1, "hooks": {"<event>": [{"type": "command", "bash": …, "timeoutSec": …}]}}`).

use serde_json::{Map, Value, json};

/// Where an agent keeps its hooks and which events Arbiter answers there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Install {
    /// The user-wide file: `None` when the agent has none (Copilot: hooks live in the project).
    pub user_file: Option<UserFile>,
    /// The project's file, relative to the project folder.
    pub project_file: &'static str,
    pub layout: Layout,
    pub hooks: &'static [Hook],
    /// A `true` flag the settings need for hooks to run at all (Gemini's `hooksConfig.enabled`).
    pub enable: Option<(&'static str, &'static str)>,
    /// The hook command names its event (`--event NAME`): for an input that names none, or can't be read.
    pub pass_event: bool,
    /// What the user must know once it is written.
    pub notes: &'static [&'static str],
}

impl Install {
    /// The entries of its hooks, each running `command` (`--event NAME` added where the agent names no event in its
    /// input), killed after `timeout(finished)` in the layout's unit, and the finished hook taken out with
    /// `no_stop`.
    pub fn entries(
        &self,
        command: &str,
        timeout: impl Fn(bool) -> u64,
        no_stop: bool,
    ) -> Vec<Entry> {
        self.hooks
            .iter()
            .map(|h| Entry {
                event: h.event,
                matcher: h.matcher,
                command: if self.pass_event {
                    format!("{command} --event {}", h.event)
                } else {
                    command.to_owned()
                },
                timeout: timeout(h.finished),
                remove: h.finished && no_stop,
            })
            .collect()
    }
}

/// The user-wide hook file: `file` in the folder an environment variable names, else in `default` under HOME.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UserFile {
    pub env: Option<&'static str>,
    /// Relative to HOME.
    pub default: &'static str,
    pub file: &'static str,
}

/// How hooks are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// Claude Code's matcher groups; hook timeouts under `timeout`, in `unit`.
    Groups { unit: Unit },
    /// Copilot's flat list per event: the command under `bash`, the timeout under `timeoutSec`.
    Flat,
}

/// The unit of a hook timeout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    Seconds,
    Milliseconds,
}

/// One event Arbiter answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hook {
    pub event: &'static str,
    /// The tools it is asked for (the agent's matcher); `None`: all.
    pub matcher: Option<&'static str>,
    /// The agent's turn ended (its timeout is `--stop-timeout`'s; left out with `--no-stop`).
    pub finished: bool,
}

/// One hook entry to write (or to take out).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub event: &'static str,
    pub matcher: Option<&'static str>,
    pub command: String,
    /// In the layout's unit.
    pub timeout: u64,
    /// Take Arbiter's entry out instead (a finished hook with `--no-stop`).
    pub remove: bool,
}

/// What installing did to one event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    Added,
    Updated,
    Unchanged,
    Removed,
}

/// The merged file and what changed in it.
#[derive(Debug, Clone, PartialEq)]
pub struct Merged {
    /// The whole file, pretty JSON with a final line break.
    pub text: String,
    /// Each entry's event and what happened to it (an entry to remove that wasn't there is not listed).
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

/// `existing` (the file's text, `None` when there is none) with `entries`, in `install`'s layout; `mark` (` hook
/// codex`) is what Arbiter's own commands contain.
pub fn merge(
    existing: Option<&str>,
    install: &Install,
    mark: &str,
    entries: &[Entry],
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
    if install.layout == Layout::Flat {
        settings.entry("version").or_insert_with(|| json!(1));
    }
    if let Some((section, key)) = install.enable {
        let section_value = settings
            .entry(section)
            .or_insert_with(|| Value::Object(Map::new()));
        let Value::Object(fields) = section_value else {
            return Err(InstallError::Shape(format!(
                "`{section}` is not a JSON object"
            )));
        };
        fields.insert(key.to_owned(), Value::Bool(true));
    }
    let hooks = settings
        .entry("hooks")
        .or_insert_with(|| Value::Object(Map::new()));
    let Value::Object(hooks) = hooks else {
        return Err(InstallError::Shape(
            "`hooks` is not a JSON object".to_owned(),
        ));
    };
    let mut changes = Vec::new();
    for entry in entries {
        let event = entry.event;
        if entry.remove && !hooks.contains_key(event) {
            continue;
        }
        let list = hooks
            .entry(event)
            .or_insert_with(|| Value::Array(Vec::new()));
        let Value::Array(list) = list else {
            return Err(InstallError::Shape(format!(
                "`hooks.{event}` is not a list"
            )));
        };
        let change = match install.layout {
            Layout::Groups { .. } => into_groups(list, entry, mark)?,
            Layout::Flat => into_flat(list, entry, mark)?,
        };
        if let Some(change) = change {
            changes.push((event, change));
        }
    }
    let mut text = serde_json::to_string_pretty(&Value::Object(settings))
        .map_err(|e| InstallError::Shape(format!("cannot write JSON: {e}")))?;
    text.push('\n');
    Ok(Merged { text, changes })
}

/// Whether a hook entry is Arbiter's: a command hook whose command (under `key`) contains `mark`.
fn is_ours(entry: &Value, key: &str, mark: &str) -> bool {
    entry.get("type").and_then(Value::as_str) == Some("command")
        && entry
            .get(key)
            .and_then(Value::as_str)
            .is_some_and(|c| c.contains(mark))
}

/// Updates (or takes out) Arbiter's hook entries among one event's matcher groups, or adds a group with it.
fn into_groups(
    groups: &mut Vec<Value>,
    entry: &Entry,
    mark: &str,
) -> Result<Option<Change>, InstallError> {
    let ours = json!({"type": "command", "command": entry.command, "timeout": entry.timeout});
    let mut found: Option<Change> = None;
    for group in groups.iter_mut() {
        let Some(hooks) = group.get_mut("hooks").and_then(Value::as_array_mut) else {
            continue;
        };
        if entry.remove {
            let before = hooks.len();
            hooks.retain(|h| !is_ours(h, "command", mark));
            if hooks.len() != before {
                found = Some(Change::Removed);
            }
            continue;
        }
        for hook in hooks.iter_mut().filter(|h| is_ours(h, "command", mark)) {
            found = Some(update(
                hook,
                &ours,
                &["command", "timeout"],
                entry.event,
                found,
            )?);
        }
    }
    if entry.remove {
        // A group Arbiter's removal left empty goes too.
        groups.retain(|g| {
            g.get("hooks")
                .and_then(Value::as_array)
                .is_none_or(|h| !h.is_empty())
        });
        return Ok(found);
    }
    if found.is_none() {
        groups.push(match entry.matcher {
            Some(matcher) => json!({"matcher": matcher, "hooks": [ours]}),
            None => json!({"hooks": [ours]}),
        });
    }
    Ok(Some(found.unwrap_or(Change::Added)))
}

/// Updates (or takes out) Arbiter's entries in one event's flat list, or adds one.
fn into_flat(
    list: &mut Vec<Value>,
    entry: &Entry,
    mark: &str,
) -> Result<Option<Change>, InstallError> {
    if entry.remove {
        let before = list.len();
        list.retain(|h| !is_ours(h, "bash", mark));
        return Ok((list.len() != before).then_some(Change::Removed));
    }
    let ours = json!({"type": "command", "bash": entry.command, "timeoutSec": entry.timeout});
    let mut found = None;
    for hook in list.iter_mut().filter(|h| is_ours(h, "bash", mark)) {
        found = Some(update(
            hook,
            &ours,
            &["bash", "timeoutSec"],
            entry.event,
            found,
        )?);
    }
    if found.is_none() {
        list.push(ours);
    }
    Ok(Some(found.unwrap_or(Change::Added)))
}

/// Writes `keys` of `ours` into Arbiter's existing `hook`: `Updated` when that changed it (or an earlier one
/// of the event), else `Unchanged`.
fn update(
    hook: &mut Value,
    ours: &Value,
    keys: &[&str],
    event: &str,
    so_far: Option<Change>,
) -> Result<Change, InstallError> {
    let Value::Object(fields) = hook else {
        return Err(InstallError::Shape(format!(
            "a hook of `hooks.{event}` is not a JSON object"
        )));
    };
    let before = fields.clone();
    for key in keys {
        fields.insert((*key).to_owned(), ours[*key].clone());
    }
    Ok(if *fields != before || so_far == Some(Change::Updated) {
        Change::Updated
    } else {
        Change::Unchanged
    })
}

/// `text` as one shell word: single-quoted, a `'` inside written `'\''`.
#[must_use]
pub fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

#[cfg(test)]
#[path = "install_tests.rs"]
mod tests;
