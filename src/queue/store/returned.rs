//! Plans the owner sent back (`status: changes_requested`): the notify file written, the plan moved into
//! returned/ (out of every pending scan: views, reminders, deadlines, escalation never see it), found there by id
//! until the agent's revision takes it back into pending/.

use std::fs;
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;

use crate::plan::slug::file_component;
use crate::queue::atomic::{self, read_regular, sync_dir};
use crate::sync::lock;

use super::listing::list_dir;
use super::replace::{Replaced, replace};
use super::{Loaded, Location, Queue, StoreError, load};

impl Queue {
    /// Finishes a plan whose file says changes_requested: writes the notify file (when notifications are on),
    /// then moves the plan into returned/. Idempotent after a crash (start-up recovery calls it again).
    pub fn send_back(&self, loaded: &Loaded) -> Result<(Loaded, Option<PathBuf>), StoreError> {
        let notify = self.write_notify(loaded)?;
        let moved = self.move_into(loaded, Location::Returned)?;
        Ok((moved, notify))
    }

    /// The plan `id` in returned/, if it is there (the newest file wins if an id is there twice).
    pub fn find_returned(&self, id: &str) -> Result<Option<Loaded>, StoreError> {
        let newest = self
            .returned_plans()?
            .into_iter()
            .filter(|loaded| loaded.plan.id == id)
            .max_by_key(|loaded| {
                fs::metadata(&loaded.path)
                    .and_then(|m| m.modified())
                    .unwrap_or(std::time::UNIX_EPOCH)
            });
        Ok(newest)
    }

    /// Every plan in returned/ that reads (one that doesn't is not anyone's revision to make; `lint` reports it).
    pub fn returned_plans(&self) -> Result<Vec<Loaded>, StoreError> {
        let dir = self.returned_dir();
        if !dir.exists() {
            return Ok(Vec::new());
        }
        Ok(list_dir(&dir)?
            .into_iter()
            .filter_map(|(path, _)| load(&path, Location::Returned).ok())
            .collect())
    }

    /// The exact bytes of a plan file found by [`Queue::find`] (for a revision's copy of its predecessor).
    pub fn read_bytes(&self, loaded: &Loaded) -> Result<Vec<u8>, StoreError> {
        read_regular(&loaded.path).map_err(StoreError::io(&loaded.path))
    }
}

/// Where [`Queue::put_revision`] left the plan.
#[derive(Debug)]
pub enum Revised {
    /// The revision is in pending/ at this path.
    Written(PathBuf),
    /// The previous revision changed on disk since it was read (an owner's tap landed): nothing was written;
    /// read it again and revise that.
    Changed,
}

impl Queue {
    /// Keeps `bytes`, revision `n` of plan `id`, read-only (mode 0444) as `revisions/<id>.r<n>.md`. Written while
    /// the plan is still at revision `n`, so a copy left by an interrupted revision is replaced by the current one.
    pub fn keep_revision(&self, id: &str, n: u32, bytes: &[u8]) -> Result<PathBuf, StoreError> {
        let dir = self.revisions_dir();
        fs::create_dir_all(&dir).map_err(StoreError::io(&dir))?;
        let dest = dir.join(format!("{}.r{n}.md", file_component(id)));
        // Read-only whatever the umask: set on the file itself, not as the mode it is created with.
        atomic::write_with(&dest, atomic::Options::default(), |f| {
            f.write_all(bytes)?;
            f.set_permissions(fs::Permissions::from_mode(0o444))
        })
        .map_err(StoreError::io(&dest))
    }

    /// Revision `n` of plan `id` as kept in revisions/, if it is there, reads, and is that plan's (two ids can
    /// share a file name: `a.b` and `a-b` are both `a-b`).
    #[must_use]
    pub fn kept_revision(&self, id: &str, n: u32) -> Option<crate::plan::Plan> {
        let path = self
            .revisions_dir()
            .join(format!("{}.r{n}.md", file_component(id)));
        load(&path, Location::Completed)
            .ok()
            .map(|l| l.plan)
            .filter(|p| p.id == id && p.revision == n)
    }

    /// Puts revision `text` of the plan `previous` (read as `before`) back into the queue, under the plan's lock:
    /// a pending plan's file is swapped for it only if it still holds `before`; a plan sent back is added to
    /// pending/ as `name`, then its file in returned/ is removed.
    pub fn put_revision(
        &self,
        previous: &Loaded,
        before: &[u8],
        name: &str,
        text: &str,
    ) -> Result<Revised, StoreError> {
        let plan_lock = lock(&self.locks)
            .entry(previous.plan.id.clone())
            .or_default()
            .clone();
        let _guard = lock(&plan_lock);
        match previous.location {
            Location::Pending => {
                let swapped = replace(&previous.path, before, text.as_bytes(), &mut |_, _| {})
                    .map_err(StoreError::io(&previous.path))?;
                match swapped {
                    Replaced::Done => Ok(Revised::Written(previous.path.clone())),
                    Replaced::Changed => Ok(Revised::Changed),
                    Replaced::Gone => Err(StoreError::NotFound(previous.plan.id.clone())),
                }
            }
            Location::Returned => {
                let path = self.add_pending(name, text)?;
                fs::remove_file(&previous.path).map_err(StoreError::io(&previous.path))?;
                sync_dir(&previous.path).map_err(StoreError::io(&previous.path))?;
                Ok(Revised::Written(path))
            }
            Location::Completed => Err(StoreError::NotFound(previous.plan.id.clone())),
        }
    }
}
