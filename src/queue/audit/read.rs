//! Reading the trail back: every line is checked against the one before it, and the first broken line is named.
//!
//! The History page reads the lines of the plans it shows on every view, and a year of heavy use is half a million
//! lines (150 MB). [`Checked`] remembers each month file a check found intact, with what identifies its bytes
//! (device, inode, length, modification and change times: any write changes the change time, which no call can
//! set back) and a digest of each plan id in it: an unchanged month whose chain links up with the month before is
//! not read again unless it holds a line of a plan asked for. `arbiter audit verify` always reads every line.

use std::collections::HashMap;
use std::fs;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::io;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use super::{Broken, DIR, Entry, GENESIS, Intact, month_file, months, sha256_hex};

/// Every entry of the trail, oldest first, once the chain is checked.
pub fn read(queue_root: &Path) -> io::Result<Result<(Intact, Vec<Entry>), Broken>> {
    read_where(queue_root, |_| true)
}

/// The entries of the newest `months` month files, oldest first, as they read (the chain is not checked, and a
/// line that does not read is passed over): what the start-up's recovery compares the plan files with.
pub fn recent(queue_root: &Path, months_back: usize) -> io::Result<Vec<Entry>> {
    let all = months(&queue_root.join(DIR))?;
    let mut entries = Vec::new();
    for path in &all[all.len().saturating_sub(months_back)..] {
        let text = match fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
            Err(e) => return Err(e),
        };
        entries.extend(
            text.lines()
                .filter_map(|l| serde_json::from_str::<Entry>(l).ok()),
        );
    }
    Ok(entries)
}

/// The entries of the trail that `keep` keeps, oldest first, once the whole chain is checked (every line is read
/// and checked; only the kept ones are held).
pub fn read_where(
    queue_root: &Path,
    mut keep: impl FnMut(&Entry) -> bool,
) -> io::Result<Result<(Intact, Vec<Entry>), Broken>> {
    let mut chain = Chain::default();
    for path in months(&queue_root.join(DIR))? {
        if let Err(broken) = chain.check(&path, &mut keep)? {
            return Ok(Err(broken));
        }
    }
    Ok(Ok(chain.end()))
}

/// The entries of the plans `plans`, oldest first, once the whole chain is checked, reading again only the month
/// files that changed since `checked` last saw them or that hold a line of one of `plans`.
pub fn read_for_plans(
    queue_root: &Path,
    checked: &Checked,
    plans: &std::collections::HashSet<String>,
) -> io::Result<Result<(Intact, Vec<Entry>), Broken>> {
    let wanted: Vec<u64> = plans.iter().map(|p| digest(p)).collect();
    let mut chain = Chain::default();
    for path in months(&queue_root.join(DIR))? {
        let stamp = Stamp::of(&fs::symlink_metadata(&path)?);
        // What the month adds to the chain, when it need not be read: its count and its head.
        let skipped = crate::sync::lock(&checked.0).get(&path).and_then(|month| {
            (month.stamp == stamp
                && month.first_prev == chain.expected
                && !wanted.iter().any(|w| month.plans.binary_search(w).is_ok()))
            .then(|| (month.count, month.head.clone()))
        });
        if let Some((count, head)) = skipped {
            chain.count += count;
            chain.expected = head;
            continue;
        }
        let first_prev = chain.expected.clone();
        let count = chain.count;
        let mut seen = Vec::new();
        let checked_file = chain.check(&path, &mut |e: &Entry| {
            seen.push(digest(&e.plan));
            plans.contains(&e.plan)
        })?;
        if let Err(broken) = checked_file {
            crate::sync::lock(&checked.0).remove(&path);
            return Ok(Err(broken));
        }
        // Remembered only when the file did not change while it was read.
        if Stamp::of(&fs::symlink_metadata(&path)?) == stamp {
            seen.sort_unstable();
            seen.dedup();
            let month = Month {
                stamp,
                first_prev,
                head: chain.expected.clone(),
                count: chain.count - count,
                plans: seen,
            };
            crate::sync::lock(&checked.0).insert(path, month);
        }
    }
    Ok(Ok(chain.end()))
}

/// The month files a check found intact, as they were then (see the module's documentation). One per dashboard.
#[derive(Debug, Default)]
pub struct Checked(Mutex<HashMap<PathBuf, Month>>);

#[cfg(test)]
impl Checked {
    /// How many month files are remembered.
    pub(crate) fn months(&self) -> usize {
        crate::sync::lock(&self.0).len()
    }
}

/// One intact month file.
#[derive(Debug)]
struct Month {
    stamp: Stamp,
    /// The `prev` of its first line: the chain's end before it.
    first_prev: String,
    /// The digest of its last line.
    head: String,
    count: usize,
    /// The digest of each plan id with a line in it, sorted.
    plans: Vec<u64>,
}

/// What changes when a file's bytes do.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Stamp {
    dev: u64,
    ino: u64,
    len: u64,
    mtime: (i64, i64),
    ctime: (i64, i64),
}

impl Stamp {
    fn of(meta: &fs::Metadata) -> Stamp {
        Stamp {
            dev: meta.dev(),
            ino: meta.ino(),
            len: meta.len(),
            mtime: (meta.mtime(), meta.mtime_nsec()),
            ctime: (meta.ctime(), meta.ctime_nsec()),
        }
    }
}

fn digest(plan: &str) -> u64 {
    let mut h = DefaultHasher::new();
    plan.hash(&mut h);
    h.finish()
}

/// The chain as read so far.
#[derive(Debug)]
struct Chain {
    count: usize,
    /// The `prev` the next line must carry.
    expected: String,
    entries: Vec<Entry>,
}

impl Default for Chain {
    fn default() -> Chain {
        Chain {
            count: 0,
            expected: GENESIS.to_owned(),
            entries: Vec::new(),
        }
    }
}

impl Chain {
    /// Reads and checks every line of the month file `path`, holding the entries `keep` keeps.
    fn check(
        &mut self,
        path: &Path,
        keep: &mut impl FnMut(&Entry) -> bool,
    ) -> io::Result<Result<(), Broken>> {
        let name = format!(
            "{DIR}/{}",
            path.file_name()
                .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
        );
        let bytes = fs::read(path)?;
        let broken = |line: usize, reason: String| {
            Err(Broken {
                file: name.clone(),
                line,
                reason,
            })
        };
        if bytes.is_empty() {
            return Ok(Ok(()));
        }
        if bytes.last() != Some(&b'\n') {
            let n = bytes.iter().filter(|b| **b == b'\n').count() + 1;
            return Ok(broken(n, "the file ends inside a line (truncated)".into()));
        }
        for (i, line) in bytes[..bytes.len() - 1].split(|b| *b == b'\n').enumerate() {
            let n = i + 1;
            let entry: Entry = match serde_json::from_slice(line) {
                Ok(e) => e,
                Err(e) => {
                    let reason = format!(
                        "not an audit entry ({})",
                        crate::serde_message::without_position(&e.to_string())
                    );
                    return Ok(broken(n, reason));
                }
            };
            if entry.prev != self.expected {
                let reason = if self.expected == GENESIS {
                    "the chain starts here without its first entry: an earlier line or month file was removed, \
                     or lines were moved"
                        .to_owned()
                } else {
                    "its `prev` is not the digest of the line before it: that line, or this one, was \
                     changed, removed or moved"
                        .to_owned()
                };
                return Ok(broken(n, reason));
            }
            // A line sits in its own month's file, or a later one (written when a clock had gone back: the chain
            // never goes back to an older file); never in an earlier one.
            let file_month = name.rsplit('/').next().unwrap_or_default();
            if month_file(&entry.at).is_none_or(|m| m.as_str() > file_month) {
                return Ok(broken(
                    n,
                    format!("stamped {}, in the wrong month file", entry.at),
                ));
            }
            self.expected = sha256_hex(line);
            self.count += 1;
            if keep(&entry) {
                self.entries.push(entry);
            }
        }
        Ok(Ok(()))
    }

    fn end(self) -> (Intact, Vec<Entry>) {
        (
            Intact {
                entries: self.count,
                head: self.expected,
            },
            self.entries,
        )
    }
}
