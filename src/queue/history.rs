//! The history of completed plans, searchable and counted without reading every file: a small index beside the
//! files, `<queue>/.history-index.jsonl` ([`index`]: one line per plan in completed/ with its summary and the text
//! a search looks in). The files stay the truth: the index is rebuilt when it is missing or does not read, and
//! brought up to date whenever completed/ changed (a plan added, removed or replaced: the folder's modification
//! time or its count differ), reading only the files it does not hold as they are (same name, same inode).

mod index;

use std::io;
use std::path::PathBuf;

use chrono::{DateTime, Utc};

use super::{Loaded, Location, Queue, StoreError, load};
use crate::plan::timing::parse_time;
use crate::plan::{DecisionStatus, Summary};

pub use index::INDEX;

/// One completed plan, as `arbiter history` and the History page list it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// The file's name in completed/.
    pub file: String,
    pub plan: Summary,
}

impl Record {
    /// Each decision's id and answer (`(skipped)` for a skipped one).
    #[must_use]
    pub fn answers(&self) -> Vec<(&str, &str)> {
        self.plan
            .decisions
            .iter()
            .map(|d| {
                let answer = match d.status {
                    DecisionStatus::Skipped => "(skipped)",
                    _ => d.answer.as_deref().unwrap_or_default(),
                };
                (d.id.as_str(), answer)
            })
            .collect()
    }
}

/// The completed plans whose searchable text (titles, contexts, answers, notes, feedback) contains `needle`
/// (case-insensitive), or all of them. Files that don't read as plans are left out (`arbiter lint` names them).
pub fn search(queue: &Queue, needle: Option<&str>) -> io::Result<Vec<Record>> {
    let needle = needle.map(str::to_lowercase);
    let escaped = needle.as_deref().map(index::escaped);
    let mut found = Vec::new();
    index::each_line(queue.root(), |line| {
        if let (Some(n), Some(e)) = (&needle, &escaped)
            && !line.holds(n, e)
        {
            return;
        }
        if let Some(s) = line.summary() {
            found.push(Record {
                file: line.key.file.clone().into_owned(),
                plan: s,
            });
        }
    })?;
    Ok(found)
}

/// The `n` newest completed plans (by `completed_at`, then id) among those whose text contains `needle` and that
/// `keep` keeps, newest first, and whether more were kept. At most `2n + 2` are held at a time, and a plan older
/// than the `n + 1` newest found so far is passed over unread: what the dashboard's History page needs of 100,000.
pub fn newest(
    queue: &Queue,
    needle: Option<&str>,
    n: usize,
    mut keep: impl FnMut(&Summary) -> bool,
) -> io::Result<(Vec<Record>, bool)> {
    let needle = needle.map(str::to_lowercase);
    let escaped = needle.as_deref().map(index::escaped);
    let order = |a: &Record, b: &Record| {
        (b.plan.completed_at.cmp(&a.plan.completed_at)).then(a.plan.id.cmp(&b.plan.id))
    };
    let mut found: Vec<Record> = Vec::new();
    let mut oldest_kept: Option<String> = None;
    index::each_line(queue.root(), |line| {
        let done = line.key.completed_at.as_deref();
        if oldest_kept
            .as_deref()
            .is_some_and(|o| done.is_none_or(|d| d < o))
        {
            return;
        }
        if let (Some(n), Some(e)) = (&needle, &escaped)
            && !line.holds(n, e)
        {
            return;
        }
        let Some(plan) = line.summary().filter(|s| keep(s)) else {
            return;
        };
        found.push(Record {
            file: line.key.file.clone().into_owned(),
            plan,
        });
        if found.len() >= 2 * (n + 1) {
            found.sort_by(order);
            found.truncate(n + 1);
            oldest_kept = found.last().and_then(|r| r.plan.completed_at.clone());
        }
    })?;
    found.sort_by(order);
    let more = found.len() > n;
    found.truncate(n);
    Ok((found, more))
}

impl Queue {
    /// The summaries of the completed plans whose `completed_at` is at or after `since` (what stats count), from
    /// the history index: a period costs what it holds, and no plan file is read while the index is up to date.
    pub fn completed_since(&self, since: DateTime<Utc>) -> Result<Vec<Summary>, StoreError> {
        let mut found = Vec::new();
        index::each_line(self.root(), |line| {
            let done = line.key.completed_at.as_deref().and_then(parse_time);
            if done.is_some_and(|t| t >= since)
                && let Some(s) = line.summary()
            {
                found.push(s);
            }
        })
        .map_err(|source| StoreError::Io {
            path: self.completed_dir(),
            source,
        })?;
        Ok(found)
    }

    /// The ids of every completed plan, from the history index.
    pub fn completed_ids(&self) -> Result<Vec<String>, StoreError> {
        let mut ids = Vec::new();
        index::each_line(self.root(), |line| {
            ids.push(line.key.id.clone().into_owned())
        })
        .map_err(|source| StoreError::Io {
            path: self.completed_dir(),
            source,
        })?;
        Ok(ids)
    }

    /// Finds a plan by id, in pending/ first, then returned/, then completed/ (where the history index says which
    /// files hold that id; the newest file wins if an id was reused). Ids are compared, never turned into paths.
    pub fn find(&self, id: &str) -> Result<Loaded, StoreError> {
        if let Some(found) = self.find_pending(id)? {
            return Ok(found);
        }
        if let Some(found) = self.find_returned(id)? {
            return Ok(found);
        }
        let dir = self.completed_dir();
        let mut files: Vec<PathBuf> = Vec::new();
        index::each_line(self.root(), |line| {
            if line.key.id == id {
                files.push(dir.join(line.key.file.as_ref()));
            }
        })
        .map_err(|source| StoreError::Io {
            path: dir.clone(),
            source,
        })?;
        let mut matches: Vec<(Option<std::time::SystemTime>, Loaded)> = files
            .into_iter()
            .filter_map(|path| load(&path, Location::Completed).ok())
            .filter(|l| l.plan.id == id)
            .map(|l| {
                (
                    std::fs::metadata(&l.path).and_then(|m| m.modified()).ok(),
                    l,
                )
            })
            .collect();
        matches.sort_by_key(|(t, _)| *t);
        matches
            .pop()
            .map(|(_, l)| l)
            .ok_or_else(|| StoreError::NotFound(id.to_owned()))
    }
}

#[cfg(test)]
mod tests;
