//! The audit trail: one hash-chained JSON line per change to a plan, in `<queue>/audit/<YYYY-MM>.jsonl`.
//!
//! Each line's `prev` is the SHA-256 (hex) of the previous line's bytes, the first line of a month names the last
//! line of the month before (the first line of all names [`GENESIS`]), and `file_sha256` is the digest of the
//! plan file as it was written. A line is appended and fsynced before the change is acknowledged, under a lock
//! shared by every process (the daemon, agents' commands), so the chain has one order. Changing a byte, removing
//! or reordering lines, truncating a file or removing a month file breaks the chain where it happened, and
//! [`verify`] names that line. What a chain alone cannot show is its own end cut off: `verify` prints the head
//! digest, which can be kept elsewhere and compared.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

mod read;

pub use read::{Checked, read, read_for_plans, read_where, recent};

/// The folder in the queue root.
pub const DIR: &str = "audit";
/// `prev` of the very first line.
pub const GENESIS: &str = "0000000000000000000000000000000000000000000000000000000000000000";
/// The lock every writer holds while it reads the chain's end and appends.
const LOCK: &str = ".lock";
/// Longest line read back when looking for the last one (a line holds ids, a value and digests).
const TAIL: u64 = 1024 * 1024;

/// One change, as it is written (keys in this order).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    /// RFC 3339, UTC.
    pub at: String,
    /// A user id, `deadline`, or `agent:<name>`.
    pub actor: String,
    /// `push`, `answer`, `custom`, `skip`, `note`, `delegate`, `take_back`, `sign_off`, `submit`, …
    pub action: String,
    pub plan: String,
    pub revision: u32,
    pub decision: Option<String>,
    pub value: Option<String>,
    /// The fingerprint of what the actor saw, when the action carried one.
    pub seen: Option<String>,
    /// SHA-256 (hex) of the plan file after the write.
    pub file_sha256: String,
    /// SHA-256 (hex) of the previous line.
    pub prev: String,
}

impl Entry {
    /// The line `change` makes after the line whose digest is `prev`.
    #[must_use]
    pub fn chained(change: &Change, prev: String) -> Entry {
        Entry {
            at: change.at.to_owned(),
            actor: change.actor.to_owned(),
            action: change.action.to_owned(),
            plan: change.plan.to_owned(),
            revision: change.revision,
            decision: change.decision.map(str::to_owned),
            value: change.value.map(str::to_owned),
            seen: change.seen.map(str::to_owned),
            file_sha256: sha256_hex(change.file),
            prev,
        }
    }
}

/// What to record; [`append`] adds the chain's `prev`.
#[derive(Debug, Clone, Default)]
pub struct Change<'a> {
    pub at: &'a str,
    pub actor: &'a str,
    pub action: &'a str,
    pub plan: &'a str,
    pub revision: u32,
    pub decision: Option<&'a str>,
    pub value: Option<&'a str>,
    pub seen: Option<&'a str>,
    /// The plan file's bytes after the write.
    pub file: &'a [u8],
}

/// SHA-256 of `bytes`, as lowercase hex.
#[must_use]
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// The month file a line stamped `at` goes in (`2026-11.jsonl`); `None` when `at` does not start with a date.
fn month_file(at: &str) -> Option<String> {
    let month = at.get(..7)?;
    let b = month.as_bytes();
    let digits = |r: std::ops::Range<usize>| b[r].iter().all(u8::is_ascii_digit);
    (digits(0..4) && b[4] == b'-' && digits(5..7)).then(|| format!("{month}.jsonl"))
}

/// The month files in `dir`, oldest first.
fn months(dir: &Path) -> io::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    match fs::read_dir(dir) {
        Ok(entries) => {
            for entry in entries {
                let path = entry?.path();
                let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
                if name.ends_with(".jsonl") && !name.starts_with('.') {
                    files.push(path);
                }
            }
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    files.sort();
    Ok(files)
}

/// The last line of `file` (without its newline), if it has one. Read from the end in growing windows (4 KiB
/// first, at most [`TAIL`]): a tap costs the same whatever the month file holds.
fn last_line(file: &mut File) -> io::Result<Option<Vec<u8>>> {
    let len = file.metadata()?.len();
    let mut window = 4096;
    loop {
        let start = len.saturating_sub(window);
        file.seek(SeekFrom::Start(start))?;
        let mut tail = Vec::new();
        file.take(window).read_to_end(&mut tail)?;
        while tail.last() == Some(&b'\n') {
            tail.pop();
        }
        match tail.iter().rposition(|b| *b == b'\n') {
            Some(i) => return Ok(Some(tail[i + 1..].to_vec())),
            None if start == 0 || window >= TAIL => {
                return Ok((!tail.is_empty()).then_some(tail));
            }
            None => window = (window * 4).min(TAIL),
        }
    }
}

/// Appends `change` to the trail under `queue_root`, fsynced before it returns. Blocking. A torn last line (a
/// process killed, or the machine stopped, in the middle of an append) is first repaired: see [`repair`].
pub fn append(queue_root: &Path, change: &Change) -> io::Result<Entry> {
    append_located(queue_root, change).map(|(entry, _)| entry)
}

/// Where a line is in the trail: what a standing rule keeps of the line that made it, so that one line can be
/// checked without reading the trail (`queue::rules`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Located {
    /// The month file's name (`2026-11.jsonl`), in the audit folder.
    pub file: String,
    /// The line's first byte in that file.
    pub offset: u64,
    /// SHA-256 (hex) of the line's bytes, without its line break: what the next line's `prev` names.
    pub sha256: String,
}

/// [`append`], also saying where the line went.
pub fn append_located(queue_root: &Path, change: &Change) -> io::Result<(Entry, Located)> {
    let dir = queue_root.join(DIR);
    fs::create_dir_all(&dir)?;
    let lock = super::atomic::hold_lock(&dir.join(LOCK))?;
    let name = month_file(change.at).ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("audit: `{}` is no RFC 3339 time", change.at),
        )
    })?;
    // The month files are listed once: a repair appends to the newest, and adds none.
    let listed = months(&dir)?;
    repair_locked(&dir, &listed, change.at)?;
    let located = append_locked(&dir, &listed, &name, change)?;
    lock.unlock()?;
    Ok(located)
}

/// Repairs a torn last line of the trail, if it has one: the bytes after the newest file's last line break are
/// cut off and recorded, exactly, as the `value` of a line of its own (`action: repair`, actor `arbiter`), so
/// the chain verifies again and nothing is silently dropped. Returns that line. The daemon calls it as it starts
/// (every append does too). Blocking.
pub fn repair(queue_root: &Path, now: &str) -> io::Result<Option<Entry>> {
    let dir = queue_root.join(DIR);
    if !dir.exists() {
        return Ok(None);
    }
    let lock = super::atomic::hold_lock(&dir.join(LOCK))?;
    let repaired = repair_locked(&dir, &months(&dir)?, now)?;
    lock.unlock()?;
    Ok(repaired)
}

/// [`repair`] with the lock held.
fn repair_locked(dir: &Path, months: &[PathBuf], now: &str) -> io::Result<Option<Entry>> {
    let Some(newest) = months.last() else {
        return Ok(None);
    };
    // Every append comes here: only the last byte is read unless the line is torn (rare), so an append costs
    // the same however long the month's trail is.
    if ends_whole(&mut File::open(newest)?)? {
        return Ok(None);
    }
    let bytes = fs::read(newest)?;
    let kept = bytes.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
    let torn = String::from_utf8_lossy(&bytes[kept..]).into_owned();
    let file = OpenOptions::new().write(true).open(newest)?;
    file.set_len(kept as u64)?;
    file.sync_all()?;
    let name = newest
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default()
        .to_owned();
    let change = Change {
        at: now,
        actor: "arbiter",
        action: "repair",
        value: Some(&torn),
        ..Change::default()
    };
    tracing::warn!(file = %newest.display(), bytes = bytes.len() - kept, "audit: a torn last line was cut off and recorded");
    append_locked(dir, months, &name, &change).map(|(entry, _)| Some(entry))
}

/// True when `file` is empty or ends with a line break: no torn last line.
fn ends_whole(file: &mut File) -> io::Result<bool> {
    let len = file.metadata()?.len();
    if len == 0 {
        return Ok(true);
    }
    file.seek(SeekFrom::Start(len - 1))?;
    let mut last = [0u8];
    file.read_exact(&mut last)?;
    Ok(last[0] == b'\n')
}

/// Appends `change` to the month file `name` (or the newest, when that is later), the lock held; returns the line
/// and where it went.
fn append_locked(
    dir: &Path,
    months: &[PathBuf],
    name: &str,
    change: &Change,
) -> io::Result<(Entry, Located)> {
    // The chain's end: the last line of the newest month file (this month's, or an earlier one).
    // A clock that went back (another process's, or an adjustment) never writes into an older month than the
    // chain's end: the line goes at the end of the newest file, so the chain stays in file order.
    let name = match months
        .last()
        .and_then(|p| p.file_name()?.to_str().map(str::to_owned))
    {
        Some(newest) if newest.as_str() > name => newest,
        _ => name.to_owned(),
    };
    let mut prev = GENESIS.to_owned();
    for path in months.iter().rev() {
        if let Some(line) = last_line(&mut File::open(path)?)? {
            prev = sha256_hex(&line);
            break;
        }
    }
    let entry = Entry::chained(change, prev);
    let mut line = serde_json::to_vec(&entry).map_err(io::Error::other)?;
    let sha256 = sha256_hex(&line);
    line.push(b'\n');
    let path = dir.join(&name);
    let created = !path.exists();
    let mut file = OpenOptions::new().create(true).append(true).open(&path)?;
    // Every writer holds the lock: the file ends here until this line is written.
    let offset = file.metadata()?.len();
    file.write_all(&line)?;
    file.sync_all()?;
    if created {
        super::atomic::sync_dir(&path)?;
    }
    let located = Located {
        file: name,
        offset,
        sha256,
    };
    Ok((entry, located))
}

/// The lines written after the one at `at` (the rest of its month file, then every later month) whose bytes hold
/// `needle`, oldest first; lines that do not read are passed over. Reads the trail from `at` on: for what became
/// of what one line made, asked only when it is about to matter (a standing rule about to answer).
pub fn later_naming(queue_root: &Path, at: &Located, needle: &str) -> io::Result<Vec<Entry>> {
    let dir = queue_root.join(DIR);
    let mut found = Vec::new();
    for path in months(&dir)? {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if name < at.file.as_str() {
            continue;
        }
        let mut file = File::open(&path)?;
        let after = name == at.file;
        if after {
            file.seek(SeekFrom::Start(at.offset))?;
        }
        lines_naming(&mut file, after, needle.as_bytes(), &mut found)?;
    }
    Ok(found)
}

/// Reads `file` from where it stands in chunks (a month of lines is megabytes: never all of it at once), past its
/// first line when `skip_first`, adding each line that holds `needle` and reads as an entry to `found`.
fn lines_naming(
    file: &mut File,
    mut skip_first: bool,
    needle: &[u8],
    found: &mut Vec<Entry>,
) -> io::Result<()> {
    const CHUNK: usize = 256 * 1024;
    let mut buf: Vec<u8> = Vec::with_capacity(2 * CHUNK);
    loop {
        let len = buf.len();
        buf.resize(len + CHUNK, 0);
        let n = file.read(&mut buf[len..])?;
        buf.truncate(len + n);
        if skip_first {
            match memchr::memchr(b'\n', &buf) {
                Some(end) => {
                    buf.drain(..=end);
                    skip_first = false;
                }
                None if n == 0 => return Ok(()),
                None => continue,
            }
        }
        // Whole lines only; the rest waits for the next chunk (or is the last line).
        let whole = if n == 0 {
            buf.len()
        } else {
            match memchr::memrchr(b'\n', &buf) {
                Some(end) => end + 1,
                None => continue,
            }
        };
        let lines = &buf[..whole];
        // Searched as one buffer (most lines don't name it); only the lines around a hit are read.
        let mut from = 0;
        while let Some(hit) = memchr::memmem::find(&lines[from..], needle) {
            let at = from + hit;
            let start = memchr::memrchr(b'\n', &lines[..at]).map_or(0, |i| i + 1);
            let end = memchr::memchr(b'\n', &lines[at..]).map_or(lines.len(), |i| at + i);
            if let Ok(entry) = serde_json::from_slice::<Entry>(&lines[start..end]) {
                found.push(entry);
            }
            from = end;
        }
        if n == 0 {
            return Ok(());
        }
        buf.drain(..whole);
    }
}

/// The line at `at`, if the trail still holds exactly that line there (its bytes hash to `at.sha256`, and it is a
/// whole line); `None` when it was changed, moved or removed, or `at` names no month file. Reads that one line,
/// whatever the trail's size: a standing rule is checked against the line that made it on every prompt.
pub fn line_at(queue_root: &Path, at: &Located) -> io::Result<Option<Entry>> {
    // Only a month file of the audit folder: a name with a separator (or anything else) would reach elsewhere.
    if month_file(&at.file).as_deref() != Some(at.file.as_str()) {
        return Ok(None);
    }
    let mut file = match File::open(queue_root.join(DIR).join(&at.file)) {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    if at.offset > 0 {
        // The line starts a line: the byte before it ends the previous one.
        file.seek(SeekFrom::Start(at.offset - 1))?;
        let mut before = [0u8];
        if file.read(&mut before)? != 1 || before[0] != b'\n' {
            return Ok(None);
        }
    } else {
        file.seek(SeekFrom::Start(0))?;
    }
    let mut bytes = Vec::with_capacity(1024);
    let mut chunk = [0u8; 4096];
    loop {
        let n = file.read(&mut chunk)?;
        if n == 0 {
            return Ok(None);
        }
        if let Some(end) = chunk[..n].iter().position(|b| *b == b'\n') {
            bytes.extend_from_slice(&chunk[..end]);
            break;
        }
        bytes.extend_from_slice(&chunk[..n]);
        if bytes.len() as u64 > TAIL {
            return Ok(None);
        }
    }
    if sha256_hex(&bytes) != at.sha256 {
        return Ok(None);
    }
    Ok(serde_json::from_slice(&bytes).ok())
}

impl super::Queue {
    /// Appends `change` to this queue's trail with the digest of `plan_file` as it is now (just written: in
    /// pending/, or completed/ after a submit). Blocking; fsynced before it returns.
    pub fn audit(&self, plan_file: &Path, change: Change) -> io::Result<Entry> {
        let bytes = fs::read(plan_file)?;
        append(
            self.root(),
            &Change {
                file: &bytes,
                ..change
            },
        )
    }
}

/// Where and why the chain is broken.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("audit trail broken at {file}:{line}: {reason}")]
pub struct Broken {
    /// The month file, as `audit/2026-11.jsonl`.
    pub file: String,
    /// 1-based.
    pub line: usize,
    pub reason: String,
}

/// What a whole chain holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Intact {
    pub entries: usize,
    /// SHA-256 of the last line (or [`GENESIS`] when there is none): keep it elsewhere to notice a cut-off end.
    pub head: String,
}

#[cfg(test)]
#[path = "audit_tests.rs"]
mod tests;
