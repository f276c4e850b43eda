//! Edits of a pending plan: read and parsed once under the plan's lock, decided, applied, and swapped into place
//! without ever replacing an agent's newer version unseen.

use std::path::{Path, PathBuf};

use crate::plan::{self, Edit, EditError, Outline, Plan};
use crate::queue::atomic::read_regular;
use crate::sync::lock;

use super::replace::{Point, Replaced, replace};
use super::{Loaded, Location, Queue, StoreError, stem};

/// What an edit did.
#[derive(Debug, Clone)]
pub enum Outcome {
    /// The plan was edited in pending/.
    Edited(Loaded),
    /// The plan was submitted: it now sits in completed/, with its notify file (when notifications are on).
    Completed {
        plan: Loaded,
        notify: Option<PathBuf>,
    },
    /// The plan was sent back with the owner's feedback: it now sits in returned/, with its notify file.
    Returned {
        plan: Loaded,
        notify: Option<PathBuf>,
    },
    /// Its agent took the plan back: it now sits in completed/ with `status: withdrawn`, and no notify file.
    Withdrawn(Loaded),
}

/// What came of [`Queue::edit_with`].
#[derive(Debug)]
pub enum Edited<T> {
    /// The edit is on disk.
    Written(Outcome),
    /// The file already held the edit byte for byte (the same answer again, in the same second): nothing was
    /// written, and there is no change to record.
    Holds(Loaded),
    /// The caller's `decide` chose not to edit the plan as read (for its reason `T`): nothing was written.
    Declined(T, Loaded),
    /// The edit does not apply to the plan as read (a stale view, an empty answer…): nothing was written.
    Refused(EditError, Loaded),
}

/// How many times an edit is re-applied when the file changes under it before giving up.
pub(super) const EDIT_ATTEMPTS: usize = 5;

impl Queue {
    /// Edits the pending plan `id` with the edit `decide` chooses on the plan as read from disk: the file is read
    /// and parsed once, under the plan's lock, and `decide` (who may do what, is the view still current) sees
    /// exactly the version the edit is applied to. If an agent replaces the file before the edit lands, the
    /// agent's version stays and everything is decided again on it (up to [`EDIT_ATTEMPTS`] times).
    pub(crate) fn edit_with<T>(
        &self,
        id: &str,
        by: Option<&str>,
        now: &str,
        mut decide: impl FnMut(&Plan) -> Result<Edit, T>,
    ) -> Result<Edited<T>, StoreError> {
        self.edit_hooked(id, by, now, &mut decide, &mut |_, _| {})
    }

    /// [`Queue::edit_with`], calling `hook` at the points where an agent's write is most in the way (tests make
    /// one land there).
    pub(super) fn edit_hooked<T>(
        &self,
        id: &str,
        by: Option<&str>,
        now: &str,
        decide: &mut dyn FnMut(&Plan) -> Result<Edit, T>,
        hook: &mut dyn FnMut(Point, &Path),
    ) -> Result<Edited<T>, StoreError> {
        let plan_lock = lock(&self.locks).entry(id.to_owned()).or_default().clone();
        let _guard = lock(&plan_lock);
        let mut path = None;
        for _ in 0..EDIT_ATTEMPTS {
            let read = self.read_pending(id)?;
            let edit = match decide(&read.parsed.plan) {
                Ok(edit) => edit,
                Err(reason) => return Ok(Edited::Declined(reason, read.into_loaded())),
            };
            let applied =
                plan::apply_to(&read.text, &read.parsed, &stem(&read.path), &edit, by, now);
            let (new_text, new_plan) = match applied {
                Ok(applied) => applied,
                Err(error) => return Ok(Edited::Refused(error, read.into_loaded())),
            };
            if new_text == read.text && !edit.submits() {
                return Ok(Edited::Holds(read.into_loaded()));
            }
            match replace(&read.path, read.text.as_bytes(), new_text.as_bytes(), hook)
                .map_err(StoreError::io(&read.path))?
            {
                Replaced::Done => {}
                Replaced::Changed => {
                    path = Some(read.path);
                    continue;
                }
                Replaced::Gone => return Err(StoreError::NotFound(id.to_owned())),
            }
            // The plan as written: the edit's read-back check parsed exactly these bytes.
            let loaded = Loaded {
                path: read.path,
                plan: new_plan,
                location: Location::Pending,
            };
            return Ok(Edited::Written(self.finish(loaded, &edit)?));
        }
        Err(StoreError::Contended {
            path: path.unwrap_or_else(|| self.pending_dir()),
        })
    }

    /// What a written edit comes to: the plan as written, moved into completed/ when the edit submitted it.
    fn finish(&self, loaded: Loaded, edit: &Edit) -> Result<Outcome, StoreError> {
        if loaded.plan.status == plan::PlanStatus::ChangesRequested {
            let (plan, notify) = self.send_back(&loaded)?;
            return Ok(Outcome::Returned { plan, notify });
        }
        if loaded.plan.status == plan::PlanStatus::Withdrawn {
            return Ok(Outcome::Withdrawn(self.withdraw_out(&loaded)?));
        }
        if edit.submits() || loaded.plan.status == plan::PlanStatus::Completed {
            let (plan, notify) = self.complete(&loaded)?;
            return Ok(Outcome::Completed { plan, notify });
        }
        Ok(Outcome::Edited(loaded))
    }

    /// The pending plan `id` read from disk now, with the exact text it was parsed from (the id index of the last
    /// scan first, then a rescan).
    pub(super) fn read_pending(&self, id: &str) -> Result<Current, StoreError> {
        let known = lock(&self.index).path_of(id);
        if let Some(current) = known.and_then(|path| read_current(path, id)) {
            return Ok(current);
        }
        self.briefs()?
            .plans
            .iter()
            .find(|l| l.brief.id() == id)
            .and_then(|l| read_current(l.path.clone(), id))
            .ok_or_else(|| StoreError::NotFound(id.to_owned()))
    }
}

/// A pending plan as read for an edit: its path, the text read and that text parsed.
pub(super) struct Current {
    path: PathBuf,
    text: String,
    parsed: plan::Parsed,
}

impl Current {
    pub(super) fn into_loaded(self) -> Loaded {
        Loaded {
            path: self.path,
            plan: self.parsed.plan,
            location: Location::Pending,
        }
    }
}

/// The plan file at `path` if it reads and parses as the plan `id`.
fn read_current(path: PathBuf, id: &str) -> Option<Current> {
    let text = String::from_utf8(read_regular(&path).ok()?).ok()?;
    let parsed = plan::Parsed::parse(&text, &stem(&path)).ok()?;
    (parsed.plan.id == id).then_some(Current { path, text, parsed })
}
