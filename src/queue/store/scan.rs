//! Scans of pending/ and completed/: the folder listed, the files whose version changed read, the cache brought
//! up to date.

use std::path::PathBuf;
use std::sync::Arc;

use crate::sync::lock;

use super::cache::ParsedCache;
use super::listing::{Entry, Problem, list_dir, read_all};
use super::{Loaded, Location, Queue, StoreError, is_plan_name};

/// What a scan of a folder found. Plans are shared with the store's cache (a rescan copies no plan).
#[derive(Debug, Default)]
pub struct Scan {
    pub plans: Vec<Arc<Loaded>>,
    pub problems: Vec<Problem>,
}

impl Queue {
    /// Reads every plan in pending/ (dotfiles, non-`.md` files, symlinks and folders are ignored). Files whose
    /// version is unchanged since the last look are not re-read. The folder is listed before the scan lock is
    /// taken: a look at a few files (an event's) never waits for a listing of thousands.
    pub fn scan_pending(&self) -> Result<Scan, StoreError> {
        let dir = self.pending_dir();
        let listed = list_dir(&dir)?;
        let _one_at_a_time = lock(&self.scanning);
        let mut cache = lock(&self.parsed);
        // Both in path order: one walk finds the cached files no longer listed.
        let mut next = listed.iter().peekable();
        let mut look: Vec<PathBuf> = Vec::new();
        for cached in cache.keys() {
            while next.peek().is_some_and(|(p, _)| p < cached) {
                next.next();
            }
            if next.peek().is_none_or(|(p, _)| p != cached) {
                look.push(cached.clone());
            }
        }
        look.extend(
            listed
                .into_iter()
                .filter(|(p, v)| cache.get(p).is_none_or(|(cached, _)| cached != v))
                .map(|(p, _)| p),
        );
        self.refresh(&mut cache, look)?;
        Ok(scan_of(&cache))
    }

    /// The scan of pending/ after a look at only `paths` (the files a file-system event named): each is re-read if
    /// its version changed, dropped if it is gone; every other file is taken as the last look found it. Paths
    /// outside pending/, dotfiles and non-`.md` files are ignored. Costs a `stat` per named path, not per file.
    pub fn scan_changed(&self, paths: &[PathBuf]) -> Result<Scan, StoreError> {
        let dir = self.pending_dir();
        let ours = |path: &&PathBuf| {
            path.parent() == Some(dir.as_path())
                && path
                    .file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(is_plan_name)
        };
        let _one_at_a_time = lock(&self.scanning);
        let mut cache = lock(&self.parsed);
        self.refresh(&mut cache, paths.iter().filter(ours).cloned().collect())?;
        Ok(scan_of(&cache))
    }

    /// Reads every plan in completed/.
    pub fn scan_completed(&self) -> Result<Scan, StoreError> {
        let listed = list_dir(&self.completed_dir())?;
        let mut scan = Scan::default();
        for (_, _, result) in read_all(listed, Location::Completed) {
            match result? {
                Some(Entry::Plan(l)) => scan.plans.push(l),
                Some(Entry::Problem(p)) => scan.problems.push(*p),
                None => {}
            }
        }
        scan.plans.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(scan)
    }
}

/// The scan a cache describes, in path order.
fn scan_of(cache: &ParsedCache) -> Scan {
    let mut scan = Scan {
        plans: Vec::with_capacity(cache.len()),
        problems: Vec::new(),
    };
    for (_, entry) in cache.values() {
        match entry {
            Entry::Plan(l) => scan.plans.push(Arc::clone(l)),
            Entry::Problem(p) => scan.problems.push(Problem::clone(p)),
        }
    }
    scan
}
