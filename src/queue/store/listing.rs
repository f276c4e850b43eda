//! A folder's plan files listed with their versions, and read into plans or problems (in parallel at start-up).

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::plan::Diagnostic;

use super::version::{Version, modified_of, version_of};
use super::{Loaded, Location, StoreError, is_plan_name, load};

/// A file in pending/ that could not be read, and which version of it (for one warning per version).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub path: PathBuf,
    pub diagnostic: Diagnostic,
    pub version: (u64, Option<SystemTime>),
}

/// One file as read: what was kept of its plan (`T`: see [`read_all`]), or the problem to report (boxed: plans are
/// the common case, and every entry of a large queue would otherwise pay for a problem's size).
#[derive(Debug, Clone)]
pub(super) enum Entry<T> {
    Plan(T),
    Problem(Box<Problem>),
}

/// What reading one listed file gave: what `keep` keeps of its plan, or the problem to report (`None`: it
/// vanished meanwhile).
fn read_entry<T>(
    path: &Path,
    version: &Version,
    location: Location,
    keep: &impl Fn(Loaded) -> T,
) -> Result<Option<Entry<T>>, StoreError> {
    let version = (version.1, modified_of(version));
    match load(path, location) {
        Ok(loaded) => Ok(Some(Entry::Plan(keep(loaded)))),
        Err(StoreError::Invalid(diagnostic)) => Ok(Some(Entry::Problem(Box::new(Problem {
            path: path.to_owned(),
            diagnostic,
            version,
        })))),
        // Vanished between listing and reading (completed or deleted): not a problem.
        Err(StoreError::Io { source, .. }) if source.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(StoreError::Io { path, source }) => Ok(Some(Entry::Problem(Box::new(Problem {
            diagnostic: Diagnostic::new(0, source.to_string()).in_file(&path),
            path,
            version,
        })))),
        Err(other) => Err(other),
    }
}

/// What reading one file gave (see [`read_entry`]).
pub(super) type Read<T> = Result<Option<Entry<T>>, StoreError>;

/// The plan files in `dir` (visible `.md` regular files; a symlink is never followed out of the queue) with their
/// versions, in path order. Only the version of each is kept, not its whole metadata: with thousands of files this
/// listing is made on every periodic rescan.
pub(super) fn list_dir(dir: &Path) -> Result<Vec<(PathBuf, Version)>, StoreError> {
    list_dir_giving_way(dir, &|| {})
}

/// How many files a listing looks at between two calls of its `give_way`.
const GIVE_WAY_EVERY: usize = 64;

/// [`list_dir`], calling `give_way` every few files: a caller with more urgent work can pause the listing there.
pub(super) fn list_dir_giving_way(
    dir: &Path,
    give_way: &dyn Fn(),
) -> Result<Vec<(PathBuf, Version)>, StoreError> {
    let entries = fs::read_dir(dir).map_err(StoreError::io(dir))?;
    let mut listed = Vec::new();
    for (i, entry) in entries.flatten().enumerate() {
        if i % GIVE_WAY_EVERY == GIVE_WAY_EVERY - 1 {
            give_way();
        }
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if !is_plan_name(name) {
            continue;
        }
        // The entry's type and metadata come from the folder (`d_type`, `fstatat` without following a link): no
        // path walk per file.
        if entry.file_type().is_ok_and(|t| t.is_file())
            && let Ok(meta) = entry.metadata()
            && meta.is_file()
        {
            listed.push((entry.path(), version_of(&meta)));
        }
    }
    // Byte order of the whole path is path order here (one folder, so the names decide), and far cheaper to sort
    // by than `Path`'s component-wise order.
    listed.sort_unstable_by(|a, b| a.0.as_os_str().cmp(b.0.as_os_str()));
    Ok(listed)
}

/// Reads `files`, keeping of each plan what `keep` makes of it (on the thread that parsed it: a start-up that keeps
/// briefs never holds thousands of whole plans); thousands of files (a start-up) are spread over the cores. What
/// each file gave, in the order of `files`.
pub(super) fn read_all<T: Send>(
    files: &[(PathBuf, Version)],
    location: Location,
    keep: impl Fn(Loaded) -> T + Sync,
) -> Vec<Read<T>> {
    in_parallel(files, |(p, v)| read_entry(p, v, location, &keep))
}

/// `f` of each of `items`, in order; more than 64 items are spread over the cores (at most 8 threads).
pub(in crate::queue) fn in_parallel<T: Sync, R: Send>(
    items: &[T],
    f: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    if items.len() <= 64 {
        return items.iter().map(&f).collect();
    }
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, 8);
    let chunk = items.len().div_ceil(threads).max(64);
    let mut parts = items.chunks(chunk);
    let first = parts.next().unwrap_or_default();
    let f = &f;
    // The calling thread does the first part itself: one thread fewer, and one allocator arena fewer holding
    // plans for as long as the daemon runs.
    std::thread::scope(|scope| {
        let workers: Vec<_> = parts
            .map(|part| scope.spawn(move || part.iter().map(f).collect::<Vec<_>>()))
            .collect();
        let mut all: Vec<R> = first.iter().map(f).collect();
        for w in workers {
            all.extend(w.join().unwrap_or_default());
        }
        all
    })
}
