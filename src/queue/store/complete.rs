//! Finishing plans: the notify file written, the plan moved into completed/, and the start-up recovery of a
//! submit a crash interrupted.

use std::io::{self, Write};
use std::path::PathBuf;
use std::time::Duration;

use crate::plan::{Outline, PlanStatus};
use crate::queue::atomic::{self, Options, Place, rename_free, sync_dir, write_atomic, write_with};
use crate::queue::notify_file;
use crate::sync::lock;

use super::{Briefs, Loaded, Location, Queue, StoreError, load};

impl Queue {
    /// Finishes a plan whose file says completed: writes the notify file, then moves the plan into completed/
    /// without replacing anything there (a clash gets a `-2`, `-3`… suffix). Idempotent after a crash.
    pub fn complete(&self, loaded: &Loaded) -> Result<(Loaded, Option<PathBuf>), StoreError> {
        let notify = self.write_notify(loaded)?;
        let moved = self.move_to_completed(loaded)?;
        Ok((moved, notify))
    }

    /// Moves a plan whose file says withdrawn into completed/, with no notify file: its agent took it back and
    /// reads no answer. Idempotent after a crash.
    pub fn withdraw_out(&self, loaded: &Loaded) -> Result<Loaded, StoreError> {
        self.move_to_completed(loaded)
    }

    /// An agent read the notify file `name` (in notify/): it is removed, unless it no longer holds `read` (what the
    /// agent read, when given: a newer completion of the same plan wrote it again since). True when removed; a
    /// file already gone is not an error. The folder is synced, so a removal that was reported stays removed.
    pub fn take_notify(&self, name: &str, read: Option<&str>) -> Result<bool, StoreError> {
        let dir = self.notify_dir();
        let path = dir.join(name);
        // Only plain names of this folder: a name with a separator would reach elsewhere.
        if name.contains(['/', '\\']) || name.starts_with('.') {
            return Ok(false);
        }
        if let Some(read) = read {
            match std::fs::read_to_string(&path) {
                Ok(now) if now == read => {}
                Ok(_) => return Ok(false),
                Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(false),
                Err(e) => return Err(StoreError::io(&path)(e)),
            }
        }
        match std::fs::remove_file(&path) {
            Ok(()) => {
                sync_dir(&path).map_err(StoreError::io(&dir))?;
                Ok(true)
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(StoreError::io(&path)(e)),
        }
    }

    /// Writes a plan a standing rule answered straight into completed/ as `name` (or the first free `-2`, `-3`…
    /// one; staged as a dotfile, then renamed in without replacing anything): it never was in pending/, so no
    /// owner is asked.
    pub fn add_completed(&self, name: &str, text: &str) -> Result<PathBuf, StoreError> {
        let dir = self.completed_dir();
        let free_name = Options {
            place: Place::FreeName,
            ..Options::default()
        };
        write_with(&dir.join(name), free_name, |f| f.write_all(text.as_bytes()))
            .map_err(|source| StoreError::Io { path: dir, source })
    }

    /// Writes the plan's notify file (when notifications are on), before the plan leaves pending/.
    pub fn write_notify(&self, loaded: &Loaded) -> Result<Option<PathBuf>, StoreError> {
        if !self.notifications {
            return Ok(None);
        }
        let path = self.notify_dir().join(notify_file::file_name(&loaded.plan));
        write_atomic(&path, notify_file::render(&loaded.plan).as_bytes())
            .map_err(StoreError::io(&path))?;
        Ok(Some(path))
    }

    /// Moves the plan into completed/ under its own name, or the first free `-2`, `-3`… one; the id index forgets
    /// it.
    fn move_to_completed(&self, loaded: &Loaded) -> Result<Loaded, StoreError> {
        self.move_into(loaded, Location::Completed)
    }

    /// Moves the plan into the folder of `location` (completed/ or returned/) under its own name, or the first
    /// free `-2`, `-3`… one; the id index forgets it.
    pub(super) fn move_into(
        &self,
        loaded: &Loaded,
        location: Location,
    ) -> Result<Loaded, StoreError> {
        let dir = self.root().join(location.as_str());
        // returned/ is made by the first plan sent back (a queue that never sends one back keeps its three folders).
        if !dir.exists() {
            std::fs::create_dir_all(&dir).map_err(StoreError::io(&dir))?;
            sync_dir(&dir).map_err(StoreError::io(&dir))?;
        }
        let name = loaded
            .path
            .file_name()
            .map_or_else(|| "plan.md".into(), |n| n.to_string_lossy().into_owned());
        let dest = rename_free(&loaded.path, &dir.join(&name))
            .and_then(|dest| sync_dir(&dest).map(|()| dest))
            .map_err(|source| StoreError::Io {
                path: loaded.path.clone(),
                source,
            })?;
        sync_dir(&loaded.path).map_err(StoreError::io(&loaded.path))?;
        lock(&self.index).remove(&loaded.plan.id, None);
        Ok(Loaded {
            path: dest,
            plan: loaded.plan.clone(),
            location,
        })
    }

    /// Start-up recovery: completes plans left in pending/ with status completed (a crash between the steps of a
    /// submit), sends back those left with status changes_requested, and removes temp files a crash left behind. Returns the plans it completed.
    pub fn recover(&self) -> Result<Vec<Loaded>, StoreError> {
        Ok(self.recover_scan()?.0)
    }

    /// [`Queue::recover`], also returning the briefs of what is still pending (so a start-up reads the queue
    /// once, and never holds every plan whole).
    pub fn recover_scan(&self) -> Result<(Vec<Loaded>, Briefs), StoreError> {
        for dir in [self.pending_dir(), self.completed_dir(), self.notify_dir()] {
            atomic::remove_stale_temps(&dir, Duration::from_secs(60))
                .map_err(StoreError::io(&dir))?;
        }
        // The daemon's start-up takes these briefs as its whole picture of pending/.
        let mut all = self.briefs_settled()?;
        let mut done = Vec::new();
        let mut pending = Vec::with_capacity(all.plans.len());
        for listed in std::mem::take(&mut all.plans) {
            let status = listed.brief.status();
            if !matches!(
                status,
                PlanStatus::Completed | PlanStatus::ChangesRequested | PlanStatus::Withdrawn
            ) {
                pending.push(listed);
                continue;
            }
            // Finishing it writes its notify file from the whole plan.
            let loaded = load(&listed.path, Location::Pending)?;
            if loaded.plan.status == PlanStatus::Completed {
                done.push(self.complete(&loaded)?.0);
            } else if loaded.plan.status == PlanStatus::ChangesRequested {
                self.send_back(&loaded)?;
            } else if loaded.plan.status == PlanStatus::Withdrawn {
                self.withdraw_out(&loaded)?;
            } else {
                pending.push(listed);
            }
        }
        all.plans = pending;
        Ok((done, all))
    }
}
