//! `arbiter notifications`: the notify files agents read (and, with `--ack`, delete).

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_yaml::Value;

use crate::plan::slug::file_component;
use crate::queue::{Queue, is_plan_name};

use super::AgentError;

/// One notify file as it was read.
#[derive(Debug, Clone)]
pub struct Notification {
    /// The file name, e.g. `agent-swe2-main--abc123.md`.
    pub file: String,
    pub path: PathBuf,
    /// The text exactly as read (what `--ack` checks before deleting).
    pub content: String,
}

/// A notify file's frontmatter (`arbiter notifications --json`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NotificationReport {
    #[serde(default)]
    pub file: String,
    #[serde(default)]
    pub path: PathBuf,
    pub plan_id: Option<String>,
    pub plan_title: Option<String>,
    pub agent: Option<String>,
    pub session: Option<String>,
    pub notify_session: Option<String>,
    pub completed_at: Option<String>,
    /// `declined` when an elicitation was declined as a whole.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<String>,
    /// decision id → answer (null when skipped), typed as the notify file holds it: a string, a list of option
    /// keys (`multi`), a number, a boolean.
    #[serde(default, deserialize_with = "answers")]
    pub answers: BTreeMap<String, Option<serde_json::Value>>,
    /// `edit` decisions: decision id → whether the proposal was edited.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub edited: BTreeMap<String, bool>,
}

/// The notify files in `dir`, sorted by name; with `session`, only that session's (`{file_component}--*`).
pub fn list(dir: &Path, session: Option<&str>) -> Result<Vec<Notification>, AgentError> {
    let io_err = |source| AgentError::Io {
        path: dir.to_owned(),
        source,
    };
    let prefix = session.map(|s| format!("{}--", file_component(s)));
    let mut out = Vec::new();
    for entry in fs::read_dir(dir).map_err(io_err)?.flatten() {
        let Some(file) = entry.file_name().to_str().map(str::to_owned) else {
            continue;
        };
        if !is_plan_name(&file) || prefix.as_deref().is_some_and(|p| !file.starts_with(p)) {
            continue;
        }
        let path = entry.path();
        match fs::symlink_metadata(&path) {
            Ok(meta) if meta.is_file() => {}
            _ => continue,
        }
        match fs::read_to_string(&path) {
            Ok(content) => out.push(Notification {
                file,
                path,
                content,
            }),
            // Deleted by another reader since the listing: nothing to show.
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(source) => return Err(AgentError::Io { path, source }),
        }
    }
    out.sort_by(|a, b| a.file.cmp(&b.file));
    Ok(out)
}

impl Notification {
    /// The frontmatter as a report, or why it can't be read.
    pub fn report(&self) -> Result<NotificationReport, String> {
        let yaml = self
            .content
            .strip_prefix("---\n")
            .and_then(|rest| rest.find("\n---").map(|end| &rest[..end]))
            .ok_or_else(|| format!("{}: no frontmatter", self.path.display()))?;
        let mut report: NotificationReport =
            serde_yaml::from_str(yaml).map_err(|e| format!("{}: {e}", self.path.display()))?;
        report.file = self.file.clone();
        report.path = self.path.clone();
        Ok(report)
    }

    /// Deletes the file if it still holds what was read (through the queue, which owns notify/); returns
    /// whether it was deleted.
    pub fn ack(&self, queue: &Queue) -> Result<bool, AgentError> {
        Ok(queue.take_notify(&self.file, Some(&self.content))?)
    }
}

/// Answers typed as YAML read them: a string, a number (a `number` decision), a boolean (`boolean`), a list of
/// strings (`multi`); anything else as its YAML text.
fn answers<'de, D: serde::Deserializer<'de>>(
    de: D,
) -> Result<BTreeMap<String, Option<serde_json::Value>>, D::Error> {
    let map: BTreeMap<String, Value> = Deserialize::deserialize(de)?;
    Ok(map.into_iter().map(|(k, v)| (k, json_of(v))).collect())
}

fn json_of(v: Value) -> Option<serde_json::Value> {
    Some(match v {
        Value::Null => return None,
        Value::String(s) => serde_json::Value::String(s),
        Value::Bool(b) => serde_json::Value::Bool(b),
        Value::Number(n) => n
            .as_i64()
            .map(serde_json::Value::from)
            .or_else(|| n.as_u64().map(serde_json::Value::from))
            .or_else(|| {
                n.as_f64()
                    .and_then(serde_json::Number::from_f64)
                    .map(serde_json::Value::Number)
            })
            .unwrap_or_else(|| serde_json::Value::String(n.to_string())),
        Value::Sequence(items) => serde_json::Value::Array(
            items
                .into_iter()
                .map(|i| json_of(i).unwrap_or(serde_json::Value::Null))
                .collect(),
        ),
        other => serde_json::Value::String(
            serde_yaml::to_string(&other)
                .map(|s| s.trim().to_owned())
                .unwrap_or_default(),
        ),
    })
}
