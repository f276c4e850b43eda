//! The history of completed plans, searchable without reading every file: a small index beside the files,
//! `<queue>/.history-index.jsonl`, one JSON line per plan in completed/ (what `arbiter history` shows and the
//! text it searches). The files stay the truth: the index is rebuilt when it is missing or unreadable, and
//! brought up to date whenever completed/ changed (a plan added or removed: the folder's modification time or
//! its count differ), re-reading only the files it does not hold as they are.

use std::collections::HashMap;
use std::fs;
use std::io;
use std::path::Path;
use std::time::UNIX_EPOCH;

use serde::{Deserialize, Serialize};

use super::{Location, Queue, is_plan_name, load};
use crate::plan::{DecisionStatus, Plan};

/// The index file, in the queue's root.
pub const INDEX: &str = ".history-index.jsonl";
const VERSION: u32 = 1;

/// The index's first line: what completed/ looked like when it was written.
#[derive(Debug, Serialize, Deserialize, PartialEq, Eq)]
struct Header {
    version: u32,
    /// completed/'s modification time, in nanoseconds since the epoch.
    folder_mtime: u128,
    count: usize,
}

/// One completed plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Record {
    /// The file's name in completed/.
    pub file: String,
    pub len: u64,
    pub mtime: u128,
    pub id: String,
    pub title: String,
    pub agent: Option<String>,
    pub tag: Option<String>,
    pub created_at: Option<String>,
    pub completed_at: Option<String>,
    /// Each decision's id and answer (`(skipped)` for a skipped one).
    pub answers: Vec<(String, String)>,
    /// What a search looks in, lowercased: title, contexts, decision titles, answers, notes, feedback.
    pub text: String,
}

impl Record {
    fn of(file: String, len: u64, mtime: u128, plan: &Plan, raw: &str) -> Record {
        let mut text = vec![plan.title.clone(), plan.context.clone()];
        let mut answers = Vec::new();
        for d in &plan.decisions {
            text.push(d.title.clone());
            text.push(d.context.clone());
            let answer = match d.status {
                DecisionStatus::Skipped => "(skipped)".to_owned(),
                _ => d.answer.clone().unwrap_or_default(),
            };
            text.push(answer.clone());
            text.extend(d.note.clone());
            answers.push((d.id.clone(), answer));
        }
        // Frontmatter keys the model does not hold (feedback of a revision) are searched as written.
        text.extend(
            raw.lines()
                .filter(|l| l.starts_with("feedback:"))
                .map(str::to_owned),
        );
        Record {
            file,
            len,
            mtime,
            id: plan.id.clone(),
            title: plan.title.clone(),
            agent: plan.agent.clone(),
            tag: plan.tag.clone(),
            created_at: plan.created_at.clone(),
            completed_at: plan.completed_at.clone(),
            answers,
            text: text.join("\n").to_lowercase(),
        }
    }
}

fn mtime_ns(meta: &fs::Metadata) -> u128 {
    meta.modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos())
}

/// The index as it is on disk, if it reads: its header and its lines (unparsed).
fn read_index(path: &Path) -> Option<(Header, String)> {
    let text = fs::read_to_string(path).ok()?;
    let (first, rest) = text.split_once('\n')?;
    let header: Header = serde_json::from_str(first).ok()?;
    (header.version == VERSION).then(|| (header, rest.to_owned()))
}

/// The completed plans whose searchable text contains `needle` (case-insensitive), or all of them; the index is
/// brought up to date first. Files that don't read as plans are left out (`arbiter lint` names them).
pub fn search(queue: &Queue, needle: Option<&str>) -> io::Result<Vec<Record>> {
    Ok(matching(&refreshed(queue)?, needle))
}

/// What the listing of completed/ needs of a plan (a line of the index read without its text).
#[derive(Debug, Deserialize)]
struct Brief {
    file: String,
    len: u64,
    id: String,
    completed_at: Option<String>,
}

fn briefs(queue: &Queue) -> io::Result<Vec<Brief>> {
    Ok(refreshed(queue)?
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect())
}

/// The index's lines (one record each, no header), brought up to date with completed/ first.
fn refreshed(queue: &Queue) -> io::Result<String> {
    let folder = queue.completed_dir();
    let index_path = queue.root().join(INDEX);
    let folder_meta = fs::metadata(&folder)?;
    let folder_mtime = mtime_ns(&folder_meta);
    let indexed = read_index(&index_path);
    // Unchanged since the index was written (files in completed/ are never rewritten in place): search it as is.
    if let Some((header, lines)) = &indexed {
        let count = fs::read_dir(&folder)?.count();
        if header.folder_mtime == folder_mtime && header.count == count {
            return Ok(lines.clone());
        }
    }
    let mut known: HashMap<String, Record> = indexed
        .map(|(_, lines)| {
            lines
                .lines()
                .filter_map(|l| serde_json::from_str::<Record>(l).ok())
                .map(|r| (r.file.clone(), r))
                .collect()
        })
        .unwrap_or_default();
    let mut records = Vec::new();
    let mut count = 0;
    let mut names: Vec<_> = fs::read_dir(&folder)?.collect::<Result<_, _>>()?;
    names.sort_by_key(fs::DirEntry::file_name);
    for entry in names {
        count += 1;
        let name = entry.file_name().to_string_lossy().into_owned();
        if !is_plan_name(&name) {
            continue;
        }
        let Ok(meta) = entry.metadata() else { continue };
        let (len, mtime) = (meta.len(), mtime_ns(&meta));
        match known.remove(&name) {
            Some(r) if r.len == len && r.mtime == mtime => records.push(r),
            _ => {
                let path = entry.path();
                let Ok(loaded) = load(&path, Location::Completed) else {
                    continue;
                };
                let raw = fs::read_to_string(&path).unwrap_or_default();
                records.push(Record::of(name, len, mtime, &loaded.plan, &raw));
            }
        }
    }
    let header = Header {
        version: VERSION,
        folder_mtime,
        count,
    };
    let mut out = serde_json::to_string(&header).map_err(io::Error::other)?;
    out.push('\n');
    let start = out.len();
    for r in &records {
        out.push_str(&serde_json::to_string(r).map_err(io::Error::other)?);
        out.push('\n');
    }
    // A queue folder the user can't write to still answers; the index is only a speed-up.
    if let Err(e) = super::atomic::write_atomic(&index_path, out.as_bytes()) {
        tracing::debug!(error = %e, "can't write the history index");
    }
    Ok(out.split_off(start))
}

/// The records among the index's `lines` whose searchable text contains `needle`; a line is parsed only when its
/// raw bytes could match (JSON escapes `"`, `\` and control characters, so the needle is escaped the same way).
fn matching(lines: &str, needle: Option<&str>) -> Vec<Record> {
    let needle = needle.map(str::to_lowercase);
    let escaped = needle.as_ref().map(|n| {
        let quoted = serde_json::to_string(n).unwrap_or_default();
        quoted[1..quoted.len().saturating_sub(1)].to_owned()
    });
    lines
        .lines()
        .filter(|l| escaped.as_ref().is_none_or(|e| l.contains(e.as_str())))
        .filter_map(|l| serde_json::from_str::<Record>(l).ok())
        .filter(|r| needle.as_ref().is_none_or(|n| r.text.contains(n.as_str())))
        .collect()
}

impl Queue {
    /// The completed plans whose `completed_at` is at or after `since`, read from their files; which files those
    /// are comes from the history index, so a period of a few weeks costs what it holds, not what completed/
    /// holds. Files that don't read are the scan's problems.
    pub fn scan_completed_since(
        &self,
        since: chrono::DateTime<chrono::Utc>,
    ) -> Result<super::Scan, super::StoreError> {
        let dir = self.completed_dir();
        let records = briefs(self).map_err(|source| super::StoreError::Io {
            path: dir.clone(),
            source,
        })?;
        let mut scan = super::Scan::default();
        for r in records {
            let done = r
                .completed_at
                .as_deref()
                .and_then(crate::plan::timing::parse_time);
            if done.is_none_or(|t| t < since) {
                continue;
            }
            match load(&dir.join(&r.file), Location::Completed) {
                Ok(l) => scan.plans.push(std::sync::Arc::new(l)),
                Err(super::StoreError::Invalid(diagnostic)) => scan.problems.push(super::Problem {
                    path: dir.join(&r.file),
                    diagnostic,
                    version: (r.len, None),
                }),
                // Gone since the index was read: it no longer counts.
                Err(_) => {}
            }
        }
        Ok(scan)
    }

    /// The ids of every completed plan, from the history index.
    pub fn completed_ids(&self) -> Result<Vec<String>, super::StoreError> {
        let records = briefs(self).map_err(|source| super::StoreError::Io {
            path: self.completed_dir(),
            source,
        })?;
        Ok(records.into_iter().map(|r| r.id).collect())
    }
}
