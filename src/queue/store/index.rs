//! Pending plans by id, kept beside the scan cache: a lookup by id needs no scan.

use std::collections::HashMap;
use std::hash::{BuildHasher, RandomState};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::plan::Outline;

use super::Listed;

/// Pending plans by id, for lookups by id without a scan. Keyed by a hash of the id and sharing the cache's plans,
/// so a large queue holds no second copy of each id and path; a hash that names another plan (a collision) is
/// caught by the id check of every lookup and costs a scan, never a wrong plan.
#[derive(Debug, Default)]
pub(super) struct IdIndex {
    hasher: RandomState,
    by_id: HashMap<u64, Arc<Listed>>,
}

impl IdIndex {
    pub(super) fn key(&self, id: &str) -> u64 {
        self.hasher.hash_one(id)
    }

    pub(super) fn insert(&mut self, listed: &Arc<Listed>) {
        let key = self.key(listed.brief.id());
        self.by_id.insert(key, Arc::clone(listed));
    }

    /// The file the plan `id` was last seen in.
    pub(super) fn path_of(&self, id: &str) -> Option<PathBuf> {
        self.by_id
            .get(&self.key(id))
            .filter(|l| l.brief.id() == id)
            .map(|l| l.path.clone())
    }

    /// Forgets `id` if it was last seen at `path` (any path when `None`).
    pub(super) fn remove(&mut self, id: &str, path: Option<&Path>) {
        let key = self.key(id);
        if self
            .by_id
            .get(&key)
            .is_some_and(|l| l.brief.id() == id && path.is_none_or(|p| l.path == p))
        {
            self.by_id.remove(&key);
        }
    }
}
