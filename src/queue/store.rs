//! The queue folder: scan plans, look them up by id, apply edits crash-safely, complete them.

use std::collections::HashMap;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use super::atomic;

mod cache;
mod complete;
mod edit;
mod error;
mod index;
mod listing;
mod look;
mod plan_file;
mod replace;
mod returned;
mod scan;
mod version;

use cache::{Keep, ParsedCache};
pub use edit::{Edited, Outcome};
pub use error::StoreError;
use index::IdIndex;
pub use listing::Problem;
pub(in crate::queue) use listing::in_parallel;
pub use look::{Briefs, Delta, Listing};
pub use plan_file::{Listed, Loaded, Location, is_plan_name, load, stem};
pub use returned::Revised;
pub use scan::Scan;

/// The queue folder with its pending/, completed/ and notify/ subfolders.
#[derive(Debug, Clone)]
pub struct Queue {
    root: PathBuf,
    notifications: bool,
    locks: Arc<Mutex<HashMap<String, Arc<Mutex<()>>>>>,
    index: Arc<Mutex<IdIndex>>,
    /// Plans of the last pending/ scan by file version: a rescan parses only files that changed.
    parsed: Arc<Mutex<ParsedCache>>,
    /// Held by a scan: two scans at once would each take the cache for themselves.
    scanning: Arc<Mutex<()>>,
    /// The paths whose cache entry a look other than the daemon's changed since the daemon's last look: its next
    /// look reports them (see [`cache::Report`]).
    unreported: Arc<Mutex<std::collections::BTreeSet<PathBuf>>>,
    /// What the cache keeps of each plan.
    keep: Keep,
    /// Who the config allows, when the opener read it ([`Queue::with_members`]).
    members: Option<Arc<super::Members>>,
}

impl Queue {
    /// Opens the queue at `root`, creating missing folders. `notifications` off means no notify files.
    pub fn open(root: impl Into<PathBuf>, notifications: bool) -> Result<Queue, StoreError> {
        let queue = Queue {
            root: root.into(),
            notifications,
            locks: Arc::default(),
            index: Arc::default(),
            parsed: Arc::default(),
            scanning: Arc::default(),
            unreported: Arc::default(),
            keep: Keep::Whole,
            members: None,
        };
        for dir in [
            queue.pending_dir(),
            queue.completed_dir(),
            queue.notify_dir(),
        ] {
            fs::create_dir_all(&dir).map_err(StoreError::io(&dir))?;
        }
        Ok(queue)
    }

    /// This queue with a cache that keeps only each pending plan's brief ([`Queue::briefs`] and the looks
    /// return them): for a daemon whose front ends read whole plans from the files when they draw one (no
    /// dashboard, which searches and renders every plan on each page). Call before the first scan.
    #[must_use]
    pub fn keeping_briefs(self) -> Queue {
        Queue {
            keep: Keep::Briefs,
            ..self
        }
    }

    /// This queue as the config that names `members` serves it: a standing rule answers only for a maker among
    /// them. Without, nobody knows who is still allowed (an agent's machine with no config), and a rule's maker is
    /// taken to be.
    #[must_use]
    pub fn with_members(self, members: super::Members) -> Queue {
        Queue {
            members: Some(Arc::new(members)),
            ..self
        }
    }

    /// Who the config allows, if the opener read it.
    #[must_use]
    pub fn members(&self) -> Option<&super::Members> {
        self.members.as_deref()
    }

    #[must_use]
    pub fn root(&self) -> &Path {
        &self.root
    }
    #[must_use]
    pub fn pending_dir(&self) -> PathBuf {
        self.root.join("pending")
    }
    #[must_use]
    pub fn completed_dir(&self) -> PathBuf {
        self.root.join("completed")
    }
    #[must_use]
    pub fn notify_dir(&self) -> PathBuf {
        self.root.join("notify")
    }
    /// Plans the owner sent back (`status: changes_requested`), until the agent revises them.
    #[must_use]
    pub fn returned_dir(&self) -> PathBuf {
        self.root.join("returned")
    }
    /// Every revision a plan had before its current one, read-only: `<id>.r<N>.md`.
    #[must_use]
    pub fn revisions_dir(&self) -> PathBuf {
        self.root.join("revisions")
    }

    /// Finds a pending plan by id (the index of the last scan first, then a rescan).
    pub fn find_pending(&self, id: &str) -> Result<Option<Loaded>, StoreError> {
        match self.read_pending(id) {
            Ok(current) => Ok(Some(current.into_loaded())),
            Err(StoreError::NotFound(_)) => Ok(None),
            Err(error) => Err(error),
        }
    }

    /// Writes a new plan file into pending/ as `name` (staged as a dotfile, then renamed in); never replaces a
    /// file: a clash is `AlreadyExists`.
    pub fn add_pending(&self, name: &str, text: &str) -> Result<PathBuf, StoreError> {
        let dest = self.pending_dir().join(name);
        let no_replace = atomic::Options {
            place: atomic::Place::NoReplace,
            ..atomic::Options::default()
        };
        atomic::write_with(&dest, no_replace, |f| f.write_all(text.as_bytes()))
            .map_err(StoreError::io(&dest))
    }
}

#[cfg(test)]
mod tests;
