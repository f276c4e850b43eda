//! The scan cache: what the last look at each file of pending/ found, by file version, so that a rescan re-reads
//! only the files that changed; the id index follows it.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::plan::Outline;
use crate::sync::lock;

use super::index::IdIndex;
use super::listing::{Entry, read_all};
use super::version::{Version, version_of};
use super::{Listed, Loaded, Location, Queue, StoreError};

/// What the last look at each file of pending/ found, by path (in path order), with the file version it was read
/// from: a rescan re-reads only files whose version changed, and a malformed file is not re-read either.
pub(super) type ParsedCache = BTreeMap<PathBuf, (Version, Entry<Held>)>;

/// What the cache keeps of each pending plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Keep {
    /// The whole parsed plan and its brief: [`Queue::scan_pending`] answers from the cache (the dashboard
    /// renders and searches every pending plan on each page).
    Whole,
    /// Its brief only: the daemon's queue listing, announcements, access checks and clock need no more, and a
    /// large queue costs a fraction of the memory; [`Queue::scan_pending`] then reads the files.
    Briefs,
}

/// Who hears of what a look at pending/ changed in the cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Report {
    /// The daemon's looks: the paths whose entry changed are returned, with every change other looks made since
    /// (the daemon's picture follows the cache by these alone: a change another look absorbed unsaid would never
    /// reach it — a plan deleted after a tap had looked for it stayed in `/queue` for good).
    Changes,
    /// Any other look (a tap's read, a page, a command): the changes are remembered for the daemon's next look.
    Remember,
    /// A look whose caller takes the whole cache as its new picture (the daemon's start-up): nothing is owed to
    /// anyone any more.
    Settle,
}

/// One pending plan in the cache: its brief, and the whole plan when the cache keeps whole plans.
#[derive(Debug, Clone)]
pub(super) struct Held {
    pub(super) listed: Arc<Listed>,
    pub(super) whole: Option<Arc<Loaded>>,
}

impl Keep {
    /// What the cache keeps of a plan read whole.
    pub(super) fn hold(self, loaded: Loaded) -> Held {
        let listed = Arc::new(Listed::of(&loaded));
        let whole = (self == Keep::Whole).then(|| Arc::new(loaded));
        Held { listed, whole }
    }
}

impl Queue {
    /// Brings the cache's entries for `paths` (in pending/) up to date with the disk: a file whose version changed
    /// is re-read (in parallel when there are many: the start-up scan), a file gone or no longer a regular file
    /// is dropped. The id index follows. Called with the scan lock held. Returns the paths whose entry changed (read
    /// again, or dropped), in path order, when `report` asks for them ([`Report::Changes`]: with those other looks
    /// left unsaid).
    pub(super) fn refresh(
        &self,
        cache: &mut ParsedCache,
        paths: Vec<PathBuf>,
        report: Report,
    ) -> Result<Vec<PathBuf>, StoreError> {
        // A settling look (the start-up, a whole cache built in one go) collects no path.
        let collect = report != Report::Settle;
        let mut gone = Vec::new();
        let mut stale = Vec::new();
        for path in paths {
            match fs::symlink_metadata(&path) {
                Ok(meta) if meta.is_file() => {
                    if cache
                        .get(&path)
                        .is_none_or(|(v, _)| *v != version_of(&meta))
                    {
                        stale.push((path, version_of(&meta)));
                    }
                }
                _ => gone.push(path),
            }
        }
        let keep = self.keep;
        let read = read_all(&stale, Location::Pending, |l| keep.hold(l));
        let mut index = lock(&self.index);
        let mut changed = Vec::new();
        for path in gone {
            if forget(cache, &mut index, &path) && collect {
                changed.push(path);
            }
        }
        // A first look (the start-up) builds the cache in one go, its nodes full: inserting thousands of files in
        // path order would leave every node half empty.
        let first = cache.is_empty();
        let mut built = Vec::with_capacity(if first { read.len() } else { 0 });
        for ((path, version), result) in stale.into_iter().zip(read) {
            let entry = result?;
            forget(cache, &mut index, &path);
            if collect {
                changed.push(path.clone());
            }
            if let Some(entry) = entry {
                if let Entry::Plan(held) = &entry {
                    index.insert(&held.listed);
                }
                if first {
                    built.push((path, (version, entry)));
                } else {
                    cache.insert(path, (version, entry));
                }
            }
        }
        if first {
            *cache = built.into_iter().collect();
        }
        drop(index);
        let mut unreported = lock(&self.unreported);
        match report {
            Report::Changes => {
                changed.extend(std::mem::take(&mut *unreported));
                changed.sort_unstable();
                changed.dedup();
                Ok(changed)
            }
            Report::Remember => {
                unreported.extend(changed);
                Ok(Vec::new())
            }
            Report::Settle => {
                unreported.clear();
                Ok(Vec::new())
            }
        }
    }
}

/// Drops `path` from the cache, and its plan's id from the index if the index points at it. False: the cache had
/// nothing at `path`.
fn forget(cache: &mut ParsedCache, index: &mut IdIndex, path: &Path) -> bool {
    match cache.remove(path) {
        Some((_, Entry::Plan(old))) => {
            index.remove(old.listed.brief.id(), Some(path));
            true
        }
        Some((_, Entry::Problem(_))) => true,
        None => false,
    }
}
