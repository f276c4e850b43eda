//! The daemon's looks at pending/: what changed since the last look, as briefs (the bot's snapshot follows it
//! without a pass over every plan), and the whole folder's briefs at start-up.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::sync::lock;

use super::cache::{ParsedCache, Report};
use super::listing::{Entry, Problem, list_dir, list_dir_giving_way};
use super::version::Version;
use super::{Listed, Queue, StoreError, is_plan_name};

/// pending/ listed with each file's version, made without any lock: a look at a few files never waits for a
/// listing of thousands.
#[derive(Debug)]
pub struct Listing(pub(super) Vec<(PathBuf, Version)>);

/// The briefs of every plan in pending/, and the files that are no plan, in path order.
#[derive(Debug, Default)]
pub struct Briefs {
    pub plans: Vec<Arc<Listed>>,
    pub problems: Vec<Problem>,
}

/// What a look changed in the store's cache.
#[derive(Debug, Default)]
pub struct Delta {
    /// The files whose entry changed (read again: new or a new version; or gone), in path order.
    pub changed: Vec<PathBuf>,
    /// The plans now read at those files (shared with the cache), in path order.
    pub plans: Vec<Arc<Listed>>,
    /// The files among them that could not be read as plans.
    pub problems: Vec<Problem>,
}

impl Queue {
    /// Lists pending/ for [`Queue::look_listed`].
    pub fn list_pending(&self) -> Result<Listing, StoreError> {
        list_dir(&self.pending_dir()).map(Listing)
    }

    /// [`Queue::list_pending`], calling `give_way` every few files: the daemon pauses its safety-net listing there
    /// while a look at the files events named needs the CPU.
    pub fn list_pending_giving_way(&self, give_way: impl Fn()) -> Result<Listing, StoreError> {
        list_dir_giving_way(&self.pending_dir(), &give_way).map(Listing)
    }

    /// The briefs of every plan in pending/ (files unchanged since the last look are not re-read). What changed is
    /// left for the daemon's next look ([`Queue::look_at`]).
    pub fn briefs(&self) -> Result<Briefs, StoreError> {
        self.briefs_reporting(Report::Remember)
    }

    /// [`Queue::briefs`] for a caller that takes them as its whole picture of pending/ (the daemon's start-up):
    /// the changes other looks left unsaid are in it, so the next look owes none.
    pub fn briefs_settled(&self) -> Result<Briefs, StoreError> {
        self.briefs_reporting(Report::Settle)
    }

    /// True when looks other than the daemon's changed the cache since its last look: its picture is behind.
    #[must_use]
    pub fn has_unreported(&self) -> bool {
        !lock(&self.unreported).is_empty()
    }

    fn briefs_reporting(&self, report: Report) -> Result<Briefs, StoreError> {
        let listing = self.list_pending()?;
        let _one_at_a_time = lock(&self.scanning);
        let mut cache = lock(&self.parsed);
        self.refresh_listed(&mut cache, listing, &[], report)?;
        let mut all = Briefs {
            plans: Vec::with_capacity(cache.len()),
            problems: Vec::new(),
        };
        for (_, entry) in cache.values() {
            match entry {
                Entry::Plan(held) => all.plans.push(Arc::clone(&held.listed)),
                Entry::Problem(p) => all.problems.push(Problem::clone(p)),
            }
        }
        Ok(all)
    }

    /// A look at the whole folder as `listing` found it (made earlier, outside the caller's locks) and at the files
    /// `named` since (events): what changed in the cache. A file the listing saw is looked at (`stat`) again before
    /// it is read, one it missed but the cache holds is looked at too; one created since and not named waits for the
    /// next look.
    pub fn look_listed(&self, listing: Listing, named: &[PathBuf]) -> Result<Delta, StoreError> {
        let _one_at_a_time = lock(&self.scanning);
        let mut cache = lock(&self.parsed);
        let changed = self.refresh_listed(&mut cache, listing, named, Report::Changes)?;
        Ok(delta_of(&cache, changed))
    }

    /// A look at only `paths` (the files a file-system event named): each is re-read if its version changed,
    /// dropped if it is gone; paths outside pending/, dotfiles and non-`.md` files are ignored. Costs a `stat` per
    /// named path and what changed, not the queue's size. What other looks changed since is in the delta too.
    pub fn look_at(&self, paths: &[PathBuf]) -> Result<Delta, StoreError> {
        let named = self.pending_plans_among(paths);
        let _one_at_a_time = lock(&self.scanning);
        let mut cache = lock(&self.parsed);
        let changed = self.refresh(&mut cache, named, Report::Changes)?;
        Ok(delta_of(&cache, changed))
    }

    /// Brings the cache up to date with `listing` and the files `named` since; returns the paths whose entry
    /// changed when `report` asks for them.
    pub(super) fn refresh_listed(
        &self,
        cache: &mut ParsedCache,
        listing: Listing,
        named: &[PathBuf],
        report: Report,
    ) -> Result<Vec<PathBuf>, StoreError> {
        // Both in path order: one walk finds the files new, changed or no longer listed. (Paths of one folder
        // compare as their bytes do: no component-wise comparison per file.)
        let mut listed = listing.0.into_iter().peekable();
        let mut look: Vec<PathBuf> = Vec::new();
        for (cached, (version, _)) in cache.iter() {
            let cached_bytes = cached.as_os_str();
            while let Some((new, _)) = listed.next_if(|(p, _)| p.as_os_str() < cached_bytes) {
                look.push(new);
            }
            match listed.next_if(|(p, _)| p.as_os_str() == cached_bytes) {
                Some((path, now)) if now != *version => look.push(path),
                Some(_) => {}
                None => look.push(cached.clone()),
            }
        }
        look.extend(listed.map(|(p, _)| p));
        if !named.is_empty() {
            look.extend(self.pending_plans_among(named));
            look.sort_unstable();
            look.dedup();
        }
        self.refresh(cache, look, report)
    }

    /// The paths among `paths` that are in pending/ with a plan file's name.
    pub(super) fn pending_plans_among(&self, paths: &[PathBuf]) -> Vec<PathBuf> {
        let dir = self.pending_dir();
        paths
            .iter()
            .filter(|p| is_pending_plan(&dir, p))
            .cloned()
            .collect()
    }
}

/// True for a path in `pending` with a plan file's name.
fn is_pending_plan(pending: &Path, path: &Path) -> bool {
    path.parent() == Some(pending)
        && path
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(is_plan_name)
}

/// The entries of `cache` at `changed`.
fn delta_of(cache: &ParsedCache, changed: Vec<PathBuf>) -> Delta {
    let mut delta = Delta::default();
    for path in &changed {
        match cache.get(path) {
            Some((_, Entry::Plan(held))) => delta.plans.push(Arc::clone(&held.listed)),
            Some((_, Entry::Problem(p))) => delta.problems.push(Problem::clone(p)),
            None => {}
        }
    }
    delta.changed = changed;
    delta
}
