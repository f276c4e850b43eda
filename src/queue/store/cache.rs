//! The scan cache: what the last look at each file of pending/ found, by file version, so that a rescan re-reads
//! only the files that changed; the id index follows it.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use crate::sync::lock;

use super::index::IdIndex;
use super::listing::{Entry, read_all};
use super::version::{Version, version_of};
use super::{Location, Queue, StoreError};

/// What the last look at each file of pending/ found, by path (in path order), with the file version it was read
/// from: a rescan re-reads only files whose version changed, and a malformed file is not re-read either.
pub(super) type ParsedCache = BTreeMap<PathBuf, (Version, Entry)>;

impl Queue {
    /// Brings the cache's entries for `paths` (in pending/) up to date with the disk: a file whose version changed
    /// is re-read (in parallel when there are many: the start-up scan), a file gone or no longer a regular file
    /// is dropped. The id index follows. Called with the scan lock held.
    pub(super) fn refresh(
        &self,
        cache: &mut ParsedCache,
        paths: Vec<PathBuf>,
    ) -> Result<(), StoreError> {
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
        let read = read_all(stale, Location::Pending);
        let mut index = lock(&self.index);
        for path in gone {
            forget(cache, &mut index, &path);
        }
        for (path, version, result) in read {
            let entry = result?;
            forget(cache, &mut index, &path);
            if let Some(entry) = entry {
                if let Entry::Plan(l) = &entry {
                    index.insert(l);
                }
                cache.insert(path, (version, entry));
            }
        }
        Ok(())
    }
}

/// Drops `path` from the cache, and its plan's id from the index if the index points at it.
fn forget(cache: &mut ParsedCache, index: &mut IdIndex, path: &Path) {
    if let Some((_, Entry::Plan(old))) = cache.remove(path) {
        index.remove(&old.plan.id, Some(path));
    }
}
