//! The history index's file, `<queue>/.history-index.jsonl`, and its upkeep.
//!
//! Line 1 is `{"version":2}`. Each plan of completed/ is one line of three compact JSON values separated by tabs
//! (compact JSON never holds a raw tab): its key `{"file","ino","id","completed_at"}` (which file it was made
//! from, and what a listing or a period needs, read without the rest), its [`Summary`], and the text a search
//! looks in (lowercased). Every write ends with a state line `{"folder_mtime","count"}`: what completed/ looked
//! like when the index was brought up to date. The index is fresh while its last line is completed/'s state now.
//!
//! When completed/ changed, the lines of files still there under the same name and inode are kept, the files the
//! index does not hold are read (spread over the cores, a chunk at a time) and their lines appended with a new
//! state line: the plans completed since cost what they hold, not what completed/ holds. When a file went away or
//! was replaced, or the index does not read, the index is written again (a temp file renamed over it). One process
//! at a time brings it up to date (a lock on `.history-index.lock`); readers never wait, and read only whole lines
//! (a writer appends whole lines, or renames a whole file in). The index is a cache: it is not fsynced, and one
//! that a crash left torn or empty is written again at the next read.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::fs::{self, File, OpenOptions};
use std::io::{self, BufRead, BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::Path;
use std::time::{Duration, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::plan::{DecisionStatus, Plan, Summary};
use crate::queue::atomic::{Options, hold_lock, remove_stale_temps, write_with};
use crate::queue::store::in_parallel;
use crate::queue::{Location, is_plan_name, load};

/// The index file, in the queue's root.
pub const INDEX: &str = ".history-index.jsonl";
/// Held while the index is brought up to date.
const LOCK: &str = ".history-index.lock";
const VERSION: u32 = 2;
/// New plans are read and written this many at a time: a rebuild of 100,000 never holds them all.
const CHUNK: usize = 2048;

#[derive(Debug, Serialize, Deserialize)]
struct Header {
    version: u32,
}

/// What completed/ looked like: its modification time (ns since the epoch) and how many entries it had.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
struct State {
    folder_mtime: u128,
    count: usize,
}

/// Which file a line was made from (name and inode), and what a listing or a period needs of it.
#[derive(Debug, Serialize, Deserialize)]
pub(super) struct Key<'a> {
    #[serde(borrow)]
    pub file: Cow<'a, str>,
    pub ino: u64,
    #[serde(borrow)]
    pub id: Cow<'a, str>,
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    pub completed_at: Option<Cow<'a, str>>,
}

/// One plan's line, split but not yet read past its key.
pub(super) struct Line<'a> {
    pub key: Key<'a>,
    summary: &'a str,
    /// The searchable text as a JSON string, escapes and all.
    text: &'a str,
}

impl<'a> Line<'a> {
    fn parse(line: &'a str) -> Option<Line<'a>> {
        let mut parts = line.splitn(3, '\t');
        let key = serde_json::from_str(parts.next()?).ok()?;
        Some(Line {
            key,
            summary: parts.next()?,
            text: parts.next()?,
        })
    }

    pub fn summary(&self) -> Option<Summary> {
        serde_json::from_str(self.summary).ok()
    }

    /// Whether the searchable text holds `needle` (lowercase). The raw line is looked at first, with the needle
    /// escaped as JSON escapes it; only a line that could match is decoded.
    pub fn holds(&self, needle: &str, escaped: &str) -> bool {
        self.text.contains(escaped)
            && serde_json::from_str::<String>(self.text).is_ok_and(|t| t.contains(needle))
    }
}

/// `needle` as it appears inside a JSON string.
pub(super) fn escaped(needle: &str) -> String {
    let quoted = serde_json::to_string(needle).unwrap_or_default();
    quoted[1..quoted.len().saturating_sub(1)].to_owned()
}

/// Calls `each` with every plan's line, the index brought up to date with completed/ first. When the index can't
/// be written (a queue folder the user may only read), the lines are made from the files, in memory.
pub(super) fn each_line(root: &Path, mut each: impl FnMut(&Line<'_>)) -> io::Result<()> {
    let dir = root.join("completed");
    let index = root.join(INDEX);
    if stamp(&index) != Some(state_of(&dir)?)
        && let Err(e) = update(root, &dir, &index)
    {
        tracing::debug!(error = %e, "can't bring the history index up to date: reading completed/");
        for chunk in listing(&dir)?.chunks(CHUNK) {
            for line in lines(&dir, chunk) {
                if let Some(l) = Line::parse(line.trim_end_matches('\n')) {
                    each(&l);
                }
            }
        }
        return Ok(());
    }
    read_lines(&index, |line| {
        if let Some(l) = Line::parse(line) {
            each(&l);
        }
    })
    .map(drop)
}

/// Calls `each` with every whole line after the header (without its newline); nothing when the header is not
/// this version's. True when the file ends with a whole line (false: a torn end, or no header).
fn read_lines(index: &Path, mut each: impl FnMut(&str)) -> io::Result<bool> {
    let mut reader = BufReader::with_capacity(1 << 18, File::open(index)?);
    let mut buf = Vec::new();
    let mut first = true;
    loop {
        buf.clear();
        if reader.read_until(b'\n', &mut buf)? == 0 {
            return Ok(!first);
        }
        let Some(line) = buf.strip_suffix(b"\n") else {
            return Ok(false);
        };
        let line = std::str::from_utf8(line).unwrap_or_default();
        if first {
            first = false;
            if !is_header(line) {
                return Ok(false);
            }
            continue;
        }
        each(line);
    }
}

fn is_header(line: &str) -> bool {
    serde_json::from_str::<Header>(line).is_ok_and(|h| h.version == VERSION)
}

fn mtime_ns(meta: &fs::Metadata) -> u128 {
    meta.modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos())
}

/// completed/'s state now.
fn state_of(dir: &Path) -> io::Result<State> {
    let folder_mtime = mtime_ns(&fs::metadata(dir)?);
    let count = fs::read_dir(dir)?.count();
    Ok(State {
        folder_mtime,
        count,
    })
}

/// The index, if it starts with this version's header.
fn with_header(index: &Path) -> Option<File> {
    let mut f = File::open(index).ok()?;
    let mut head = [0u8; 64];
    let n = f.read(&mut head).ok()?;
    let first = head[..n].split(|b| *b == b'\n').next()?;
    is_header(std::str::from_utf8(first).ok()?).then_some(f)
}

/// The index's last state line, if the index is this version's and ends with one: read from its first and last
/// bytes only.
fn stamp(index: &Path) -> Option<State> {
    let mut f = with_header(index)?;
    let len = f.metadata().ok()?.len();
    f.seek(SeekFrom::Start(len.saturating_sub(256))).ok()?;
    let mut tail = Vec::new();
    f.read_to_end(&mut tail).ok()?;
    let body = tail.strip_suffix(b"\n")?;
    let last = &body[body.iter().rposition(|b| *b == b'\n')? + 1..];
    serde_json::from_slice(last).ok()
}

/// The plan files of completed/ (visible `.md` regular files) with their inodes, by name; no file is opened.
fn listing(dir: &Path) -> io::Result<Vec<(String, u64)>> {
    use std::os::unix::fs::DirEntryExt;
    let mut out = Vec::new();
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        let Ok(name) = entry.file_name().into_string() else {
            continue;
        };
        if is_plan_name(&name) && entry.file_type().is_ok_and(|t| t.is_file()) {
            out.push((name, entry.ino()));
        }
    }
    out.sort_unstable();
    Ok(out)
}

/// The index lines of `files` (each read and parsed; one that doesn't read as a plan has none: `arbiter lint`
/// names it), in order.
fn lines(dir: &Path, files: &[(String, u64)]) -> Vec<String> {
    in_parallel(files, |(name, ino)| {
        let loaded = load(&dir.join(name), Location::Completed).ok()?;
        line_of(name, *ino, &loaded.plan)
    })
    .into_iter()
    .flatten()
    .collect()
}

fn line_of(file: &str, ino: u64, plan: &Plan) -> Option<String> {
    let key = Key {
        file: file.into(),
        ino,
        id: plan.id.as_str().into(),
        completed_at: plan.completed_at.as_deref().map(Into::into),
    };
    let mut line = serde_json::to_string(&key).ok()?;
    line.push('\t');
    line.push_str(&serde_json::to_string(&Summary::of(plan)).ok()?);
    line.push('\t');
    line.push_str(&serde_json::to_string(&searchable(plan)).ok()?);
    line.push('\n');
    Some(line)
}

/// What a search looks in, lowercased: title, contexts, decision titles, answers, notes, the request for changes.
fn searchable(plan: &Plan) -> String {
    let mut text = vec![plan.title.as_str(), plan.context.as_str()];
    for d in &plan.decisions {
        text.push(&d.title);
        text.push(&d.context);
        text.push(match d.status {
            DecisionStatus::Skipped => "(skipped)",
            _ => d.answer.as_deref().unwrap_or_default(),
        });
        text.extend(d.note.as_deref());
    }
    text.extend(plan.feedback.as_ref().map(|f| f.text.as_str()));
    text.join("\n").to_lowercase()
}

/// Brings the index up to date with completed/, under the lock every process shares.
fn update(root: &Path, dir: &Path, index: &Path) -> io::Result<()> {
    let _lock = hold_lock(&root.join(LOCK))?;
    // Taken before the listing: a plan completed while it is made leaves the index stale, not wrong.
    let state = state_of(dir)?;
    if stamp(index) == Some(state) {
        return Ok(()); // brought up to date by another process meanwhile
    }
    let listed = listing(dir)?;
    let inodes: HashMap<&str, u64> = listed.iter().map(|(n, i)| (n.as_str(), *i)).collect();
    // The files the index holds as they are; anything else in it (a file gone or replaced, a line that does not
    // read, a torn end) means writing it again.
    let mut held: HashSet<String> = HashSet::new();
    let mut whole = with_header(index).is_some();
    if whole {
        let ends_whole = read_lines(index, |line| match Line::parse(line) {
            Some(l) if inodes.get(l.key.file.as_ref()) == Some(&l.key.ino) => {
                whole &= held.insert(l.key.file.into_owned());
            }
            Some(_) => whole = false,
            None => whole &= serde_json::from_str::<State>(line).is_ok(),
        })?;
        whole &= ends_whole;
    }
    let new: Vec<(String, u64)> = listed
        .into_iter()
        .filter(|(n, _)| !held.contains(n))
        .collect();
    if whole {
        let mut out = BufWriter::new(OpenOptions::new().append(true).open(index)?);
        write_new(&mut out, dir, &new, state)?;
        return out
            .into_inner()
            .map_err(io::IntoInnerError::into_error)
            .map(drop);
    }
    // What a rewrite killed half-way left behind (its writer is gone).
    let _ = remove_stale_temps(root, Duration::from_secs(3600));
    write_with(index, Options::default(), |file| {
        let mut out = BufWriter::new(file);
        serde_json::to_writer(&mut out, &Header { version: VERSION })?;
        out.write_all(b"\n")?;
        if !held.is_empty() {
            let mut copy = Ok(());
            read_lines(index, |line| {
                if copy.is_ok()
                    && let Some(l) = Line::parse(line)
                    && held.remove(l.key.file.as_ref())
                {
                    copy = out
                        .write_all(line.as_bytes())
                        .and_then(|()| out.write_all(b"\n"));
                }
            })?;
            copy?;
        }
        write_new(&mut out, dir, &new, state)?;
        out.into_inner()
            .map_err(io::IntoInnerError::into_error)
            .map(drop)
    })
    .map(drop)
}

/// Appends the lines of `new` (read a chunk at a time), then the state line.
fn write_new(
    out: &mut impl Write,
    dir: &Path,
    new: &[(String, u64)],
    state: State,
) -> io::Result<()> {
    for chunk in new.chunks(CHUNK) {
        for line in lines(dir, chunk) {
            out.write_all(line.as_bytes())?;
        }
    }
    serde_json::to_writer(&mut *out, &state)?;
    out.write_all(b"\n")
}
