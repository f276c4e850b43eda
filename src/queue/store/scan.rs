//! Scans of pending/ and completed/ into whole plans: the folder listed, the files whose version changed read, the
//! cache brought up to date. (The daemon's looks, which keep briefs, are in `look.rs`.)

use std::path::PathBuf;
use std::sync::Arc;

use crate::sync::lock;

use super::cache::{Keep, ParsedCache, Report};
use super::listing::{Entry, Problem, list_dir, read_all};
use super::version::Version;
use super::{Loaded, Location, Queue, StoreError};

/// What a scan of a folder found, whole. Plans are shared with the store's cache when it keeps whole plans (a
/// rescan copies no plan).
#[derive(Debug, Default)]
pub struct Scan {
    pub plans: Vec<Arc<Loaded>>,
    pub problems: Vec<Problem>,
}

impl Queue {
    /// Reads every plan in pending/, whole (dotfiles, non-`.md` files, symlinks and folders are ignored). Files
    /// whose version is unchanged since the last look are not re-read, unless the cache keeps only briefs
    /// ([`Queue::keeping_briefs`]): then every file is read. The folder is listed before the scan lock is
    /// taken: a look at a few files (an event's) never waits for a listing of thousands.
    pub fn scan_pending(&self) -> Result<Scan, StoreError> {
        if self.keep == Keep::Briefs {
            return read_whole(list_dir(&self.pending_dir())?, Location::Pending);
        }
        let listing = self.list_pending()?;
        let _one_at_a_time = lock(&self.scanning);
        let mut cache = lock(&self.parsed);
        self.refresh_listed(&mut cache, listing, &[], Report::Remember)?;
        Ok(scan_of(&cache))
    }

    /// The scan of pending/ after a look at only `paths` (the files a file-system event named): each is re-read if
    /// its version changed, dropped if it is gone; every other file is taken as the last look found it. Paths
    /// outside pending/, dotfiles and non-`.md` files are ignored. Costs a `stat` per named path, not per file
    /// (when the cache keeps only briefs, every file is read).
    pub fn scan_changed(&self, paths: &[PathBuf]) -> Result<Scan, StoreError> {
        if self.keep == Keep::Briefs {
            return self.scan_pending();
        }
        let named = self.pending_plans_among(paths);
        let _one_at_a_time = lock(&self.scanning);
        let mut cache = lock(&self.parsed);
        self.refresh(&mut cache, named, Report::Remember)?;
        Ok(scan_of(&cache))
    }

    /// Reads every plan in completed/.
    pub fn scan_completed(&self) -> Result<Scan, StoreError> {
        read_whole(list_dir(&self.completed_dir())?, Location::Completed)
    }
}

/// Reads every listed file whole, in path order.
fn read_whole(listed: Vec<(PathBuf, Version)>, location: Location) -> Result<Scan, StoreError> {
    let mut scan = Scan::default();
    for result in read_all(&listed, location, Arc::new) {
        match result? {
            Some(Entry::Plan(l)) => scan.plans.push(l),
            Some(Entry::Problem(p)) => scan.problems.push(*p),
            None => {}
        }
    }
    scan.plans.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(scan)
}

/// The scan a cache that keeps whole plans describes, in path order.
fn scan_of(cache: &ParsedCache) -> Scan {
    let mut scan = Scan {
        plans: Vec::with_capacity(cache.len()),
        problems: Vec::new(),
    };
    for (_, entry) in cache.values() {
        match entry {
            Entry::Plan(held) => scan.plans.extend(held.whole.iter().cloned()),
            Entry::Problem(p) => scan.problems.push(Problem::clone(p)),
        }
    }
    scan
}
