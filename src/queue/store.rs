//! The queue folder: scan plans, look them up by id, apply edits crash-safely, complete them.

use std::collections::{BTreeMap, HashMap};
use std::convert::Infallible;
use std::fs;
use std::hash::{BuildHasher, RandomState};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use crate::plan::{self, Diagnostic, Edit, EditError, Plan, PlanStatus};

use super::atomic::{self, read_file, read_regular, rename_noreplace, sync_dir, write_atomic};
use super::notify_file;

/// Why a store operation failed. The display text is what the user reads.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("no plan with id `{0}` in the queue")]
    NotFound(String),
    #[error(transparent)]
    Edit(#[from] EditError),
    #[error("{}", .0)]
    Invalid(Diagnostic),
    #[error("{}: {source}", path.display())]
    Io { path: PathBuf, source: io::Error },
    #[error("{}: the file kept changing while it was being edited; nothing was written", path.display())]
    Contended { path: PathBuf },
}

impl StoreError {
    fn io(path: &Path) -> impl FnOnce(io::Error) -> StoreError + '_ {
        move |source| StoreError::Io {
            path: path.to_owned(),
            source,
        }
    }
}

/// Which folder a plan was found in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Location {
    Pending,
    Completed,
}

/// A plan read from disk.
#[derive(Debug, Clone)]
pub struct Loaded {
    pub path: PathBuf,
    pub plan: Plan,
    pub location: Location,
}

/// A file in pending/ that could not be read, and which version of it (for one warning per version).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub path: PathBuf,
    pub diagnostic: Diagnostic,
    pub version: (u64, Option<SystemTime>),
}

/// What a scan of a folder found. Plans are shared with the store's cache (a rescan copies no plan).
#[derive(Debug, Default)]
pub struct Scan {
    pub plans: Vec<Arc<Loaded>>,
    pub problems: Vec<Problem>,
}

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
}

/// What came of [`Queue::edit_with`].
#[derive(Debug)]
pub enum Edited<T> {
    /// The edit is on disk.
    Written(Outcome),
    /// The caller's `decide` chose not to edit the plan as read (for its reason `T`): nothing was written.
    Declined(T, Loaded),
    /// The edit does not apply to the plan as read (a stale view, an empty answer…): nothing was written.
    Refused(EditError, Loaded),
}

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
}

/// What the last look at each file of pending/ found, by path (in path order), with the file version it was read
/// from: a rescan re-reads only files whose version changed, and a malformed file is not re-read either.
type ParsedCache = BTreeMap<PathBuf, (Version, Entry)>;

/// One file of pending/ as last read (a problem is boxed: plans are the common case, and every entry of a large
/// queue would otherwise pay for a problem's size).
#[derive(Debug, Clone)]
enum Entry {
    Plan(Arc<Loaded>),
    Problem(Box<Problem>),
}

/// Pending plans by id, for lookups by id without a scan. Keyed by a hash of the id and sharing the cache's plans,
/// so a large queue holds no second copy of each id and path; a hash that names another plan (a collision) is
/// caught by the id check of every lookup and costs a scan, never a wrong plan.
#[derive(Debug, Default)]
struct IdIndex {
    hasher: RandomState,
    by_id: HashMap<u64, Arc<Loaded>>,
}

impl IdIndex {
    fn key(&self, id: &str) -> u64 {
        self.hasher.hash_one(id)
    }

    fn insert(&mut self, loaded: &Arc<Loaded>) {
        let key = self.key(&loaded.plan.id);
        self.by_id.insert(key, Arc::clone(loaded));
    }

    /// The file the plan `id` was last seen in.
    fn path_of(&self, id: &str) -> Option<PathBuf> {
        self.by_id
            .get(&self.key(id))
            .filter(|l| l.plan.id == id)
            .map(|l| l.path.clone())
    }

    /// Forgets `id` if it was last seen at `path` (any path when `None`).
    fn remove(&mut self, id: &str, path: Option<&Path>) {
        let key = self.key(id);
        if self
            .by_id
            .get(&key)
            .is_some_and(|l| l.plan.id == id && path.is_none_or(|p| l.path == p))
        {
            self.by_id.remove(&key);
        }
    }
}

/// What identifies one version of a file: inode, size, modification and change times (ns).
type Version = (u64, u64, i64, i64, i64, i64);

/// The modification time a version records (what `Metadata::modified` gives for it).
fn modified_of(version: &Version) -> Option<SystemTime> {
    let (secs, nanos) = (version.2, u32::try_from(version.3).ok()?);
    if secs >= 0 {
        SystemTime::UNIX_EPOCH.checked_add(Duration::new(secs.unsigned_abs(), nanos))
    } else {
        SystemTime::UNIX_EPOCH
            .checked_sub(Duration::from_secs(secs.unsigned_abs()))?
            .checked_add(Duration::from_nanos(u64::from(nanos)))
    }
}

fn version_of(meta: &fs::Metadata) -> Version {
    use std::os::unix::fs::MetadataExt;
    (
        meta.ino(),
        meta.len(),
        meta.mtime(),
        meta.mtime_nsec(),
        meta.ctime(),
        meta.ctime_nsec(),
    )
}

/// How many times an edit is re-applied when the file changes under it before giving up.
const EDIT_ATTEMPTS: usize = 5;

use crate::sync::lock;

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

    /// Brings the cache's entries for `paths` (in pending/) up to date with the disk: a file whose version changed
    /// is re-read (in parallel when there are many: the start-up scan), a file gone or no longer a regular file
    /// is dropped. The id index follows. Called with the scan lock held.
    fn refresh(&self, cache: &mut ParsedCache, paths: Vec<PathBuf>) -> Result<(), StoreError> {
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

    /// Finds a plan by id, in pending/ first, then completed/. Ids are compared, never turned into paths.
    pub fn find(&self, id: &str) -> Result<Loaded, StoreError> {
        if let Some(found) = self.find_pending(id)? {
            return Ok(found);
        }
        let completed = self.scan_completed()?;
        // The newest completed plan with that id wins if an id was reused.
        let mut matches: Vec<Arc<Loaded>> = completed
            .plans
            .into_iter()
            .filter(|l| l.plan.id == id)
            .collect();
        matches.sort_by_key(|l| fs::metadata(&l.path).and_then(|m| m.modified()).ok());
        matches
            .pop()
            .map(Arc::unwrap_or_clone)
            .ok_or_else(|| StoreError::NotFound(id.to_owned()))
    }

    /// Finds a pending plan by id (the index of the last scan first, then a rescan).
    pub fn find_pending(&self, id: &str) -> Result<Option<Loaded>, StoreError> {
        match self.read_pending(id) {
            Ok(current) => Ok(Some(current.into_loaded())),
            Err(StoreError::NotFound(_)) => Ok(None),
            Err(error) => Err(error),
        }
    }

    /// Applies `edit` to the pending plan `id`: re-read from disk, apply, write atomically. Taps on one plan are
    /// serialized; if the file changes between the read and the write (an agent rewrote it) the edit is
    /// re-applied to the new text, where the stale-view guard decides again. `Edit::Submit` also completes it.
    pub fn edit(
        &self,
        id: &str,
        edit: &Edit,
        by: Option<&str>,
        now: &str,
    ) -> Result<Outcome, StoreError> {
        match self.edit_with(id, by, now, |_| Ok::<_, Infallible>(edit.clone()))? {
            Edited::Written(outcome) => Ok(outcome),
            Edited::Refused(error, _) => Err(error.into()),
            Edited::Declined(never, _) => match never {},
        }
    }

    /// Edits the pending plan `id` with the edit `decide` chooses on the plan as read from disk: the file is read
    /// and parsed once, under the plan's lock, and `decide` (who may do what, is the view still current) sees
    /// exactly the version the edit is applied to. If an agent replaces the file before the edit lands, the
    /// agent's version stays and everything is decided again on it (up to [`EDIT_ATTEMPTS`] times).
    pub fn edit_with<T>(
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
    fn edit_hooked<T>(
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
            if edit.submits() || loaded.plan.status == plan::PlanStatus::Completed {
                let (plan, notify) = self.complete(&loaded)?;
                return Ok(Edited::Written(Outcome::Completed { plan, notify }));
            }
            return Ok(Edited::Written(Outcome::Edited(loaded)));
        }
        Err(StoreError::Contended {
            path: path.unwrap_or_else(|| self.pending_dir()),
        })
    }

    /// The pending plan `id` read from disk now, with the exact text it was parsed from (the id index of the last
    /// scan first, then a rescan).
    fn read_pending(&self, id: &str) -> Result<Current, StoreError> {
        let known = lock(&self.index).path_of(id);
        if let Some(current) = known.and_then(|path| read_current(path, id)) {
            return Ok(current);
        }
        self.scan_pending()?
            .plans
            .iter()
            .find(|l| l.plan.id == id)
            .and_then(|l| read_current(l.path.clone(), id))
            .ok_or_else(|| StoreError::NotFound(id.to_owned()))
    }

    /// Finishes a plan whose file says completed: writes the notify file, then moves the plan into completed/
    /// without replacing anything there (a clash gets a `-2`, `-3`… suffix). Idempotent after a crash.
    pub fn complete(&self, loaded: &Loaded) -> Result<(Loaded, Option<PathBuf>), StoreError> {
        let notify = if self.notifications {
            let path = self.notify_dir().join(notify_file::file_name(&loaded.plan));
            write_atomic(&path, notify_file::render(&loaded.plan).as_bytes())
                .map_err(StoreError::io(&path))?;
            Some(path)
        } else {
            None
        };
        let name = loaded
            .path
            .file_name()
            .map_or_else(|| "plan.md".into(), |n| n.to_string_lossy().into_owned());
        let base = name.strip_suffix(".md").unwrap_or(&name).to_owned();
        for n in 1..10_000 {
            let candidate = if n == 1 {
                name.clone()
            } else {
                format!("{base}-{n}.md")
            };
            let dest = self.completed_dir().join(candidate);
            match rename_noreplace(&loaded.path, &dest) {
                Ok(()) => {
                    sync_dir(&dest).map_err(StoreError::io(&dest))?;
                    sync_dir(&loaded.path).map_err(StoreError::io(&loaded.path))?;
                    lock(&self.index).remove(&loaded.plan.id, None);
                    let moved = Loaded {
                        path: dest,
                        plan: loaded.plan.clone(),
                        location: Location::Completed,
                    };
                    return Ok((moved, notify));
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(e) => {
                    return Err(StoreError::Io {
                        path: loaded.path.clone(),
                        source: e,
                    });
                }
            }
        }
        Err(StoreError::Io {
            path: loaded.path.clone(),
            source: io::Error::new(io::ErrorKind::AlreadyExists, "no free name in completed/"),
        })
    }

    /// Start-up recovery: completes plans left in pending/ with status completed (a crash between the steps of a
    /// submit) and removes temp files a crash left behind. Returns the plans it completed.
    pub fn recover(&self) -> Result<Vec<Loaded>, StoreError> {
        Ok(self.recover_scan()?.0)
    }

    /// [`Queue::recover`], also returning the scan of what is still pending (so a start-up reads the queue once).
    pub fn recover_scan(&self) -> Result<(Vec<Loaded>, Scan), StoreError> {
        for dir in [self.pending_dir(), self.completed_dir(), self.notify_dir()] {
            atomic::remove_stale_temps(&dir, Duration::from_secs(60))
                .map_err(StoreError::io(&dir))?;
        }
        let mut scan = self.scan_pending()?;
        let mut done = Vec::new();
        let mut pending = Vec::with_capacity(scan.plans.len());
        for loaded in std::mem::take(&mut scan.plans) {
            if loaded.plan.status == PlanStatus::Completed {
                done.push(self.complete(&loaded)?.0);
            } else {
                pending.push(loaded);
            }
        }
        scan.plans = pending;
        Ok((done, scan))
    }

    /// Writes a new plan file into pending/ as `name` (staged as a dotfile, then renamed in); never replaces a
    /// file: a clash is `AlreadyExists`.
    pub fn add_pending(&self, name: &str, text: &str) -> Result<PathBuf, StoreError> {
        let dest = self.pending_dir().join(name);
        let temp = atomic::write_temp(&dest, text.as_bytes()).map_err(StoreError::io(&dest))?;
        if let Err(e) = rename_noreplace(&temp, &dest) {
            let _ = fs::remove_file(&temp);
            return Err(StoreError::Io {
                path: dest,
                source: e,
            });
        }
        sync_dir(&dest).map_err(StoreError::io(&dest))?;
        Ok(dest)
    }
}

/// The file name without `.md`: the plan's id when its frontmatter has none.
#[must_use]
pub fn stem(path: &Path) -> String {
    path.file_stem()
        .map_or_else(String::new, |s| s.to_string_lossy().into_owned())
}

/// True for a file the queue considers: a visible `.md` file.
#[must_use]
pub fn is_plan_name(name: &str) -> bool {
    !name.starts_with('.') && name.ends_with(".md") && name.len() > 3
}

/// Reads and parses one plan file.
pub fn load(path: &Path, location: Location) -> Result<Loaded, StoreError> {
    let bytes = read_regular(path).map_err(|e| match e.kind() {
        io::ErrorKind::InvalidData => {
            StoreError::Invalid(Diagnostic::new(0, e.to_string()).in_file(path))
        }
        _ => StoreError::Io {
            path: path.to_owned(),
            source: e,
        },
    })?;
    let plan =
        plan::parse_bytes(&bytes, &stem(path)).map_err(|d| StoreError::Invalid(d.in_file(path)))?;
    Ok(Loaded {
        path: path.to_owned(),
        plan,
        location,
    })
}

/// What reading one listed file gave: its plan, or the problem to report (`None`: it vanished meanwhile).
fn read_entry(
    path: &Path,
    version: &Version,
    location: Location,
) -> Result<Option<Entry>, StoreError> {
    let version = (version.1, modified_of(version));
    match load(path, location) {
        Ok(loaded) => Ok(Some(Entry::Plan(Arc::new(loaded)))),
        Err(StoreError::Invalid(diagnostic)) => Ok(Some(Entry::Problem(Box::new(Problem {
            path: path.to_owned(),
            diagnostic,
            version,
        })))),
        // Vanished between listing and reading (completed or deleted): not a problem.
        Err(StoreError::Io { source, .. }) if source.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(StoreError::Io { path, source }) => Ok(Some(Entry::Problem(Box::new(Problem {
            diagnostic: Diagnostic::new(0, source.to_string()).in_file(&path),
            path,
            version,
        })))),
        Err(other) => Err(other),
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

/// One file a scan read: its path, its version when read, and what reading it gave.
type Read = (PathBuf, Version, Result<Option<Entry>, StoreError>);

/// The plan files in `dir` (visible `.md` regular files; a symlink is never followed out of the queue) with their
/// versions, in path order. Only the version of each is kept, not its whole metadata: with thousands of files this
/// listing is made on every periodic rescan.
fn list_dir(dir: &Path) -> Result<Vec<(PathBuf, Version)>, StoreError> {
    let entries = fs::read_dir(dir).map_err(StoreError::io(dir))?;
    let mut listed = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if !is_plan_name(name) {
            continue;
        }
        let path = entry.path();
        if let Ok(meta) = fs::symlink_metadata(&path)
            && meta.is_file()
        {
            listed.push((path, version_of(&meta)));
        }
    }
    listed.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    Ok(listed)
}

/// Reads `files`; thousands of them (a start-up) are spread over the cores.
fn read_all(files: Vec<(PathBuf, Version)>, location: Location) -> Vec<Read> {
    let read = |(p, v): &(PathBuf, Version)| (p.clone(), *v, read_entry(p, v, location));
    if files.len() <= 64 {
        return files.iter().map(read).collect();
    }
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, 8);
    let chunk = files.len().div_ceil(threads).max(64);
    let mut parts = files.chunks(chunk);
    let first = parts.next().unwrap_or_default();
    // The calling thread reads the first part itself: one thread fewer, and one allocator arena fewer holding
    // plans for as long as the daemon runs.
    std::thread::scope(|scope| {
        let workers: Vec<_> = parts
            .map(|part| scope.spawn(move || part.iter().map(read).collect::<Vec<_>>()))
            .collect();
        let mut all: Vec<Read> = first.iter().map(read).collect();
        for w in workers {
            all.extend(w.join().unwrap_or_default());
        }
        all
    })
}

/// Drops `path` from the cache, and its plan's id from the index if the index points at it.
fn forget(cache: &mut ParsedCache, index: &mut IdIndex, path: &Path) {
    if let Some((_, Entry::Plan(old))) = cache.remove(path) {
        index.remove(&old.plan.id, Some(path));
    }
}

/// A pending plan as read for an edit: its path, the text read and that text parsed.
struct Current {
    path: PathBuf,
    text: String,
    parsed: plan::Parsed,
}

impl Current {
    fn into_loaded(self) -> Loaded {
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

/// Where an edit may call its test hook: the moments an agent's write is most in the way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Point {
    /// The new text is in its temp file; swapping it into place is next.
    BeforeSwap,
    /// An agent's version was swapped out of place; swapping it back is next.
    BeforeSwapBack,
}

/// What [`replace`] did.
#[derive(Debug, PartialEq, Eq)]
enum Replaced {
    /// The new text is at the path, durably.
    Done,
    /// An agent replaced the file since it was read: its newest version is at the path, the edit is not.
    Changed,
    /// The file is gone.
    Gone,
}

/// How many times an agent's version is swapped back in place before the newest one is simply renamed there.
const SWAP_BACKS: usize = 16;

/// Puts `new` at `path` if `path` still holds `before` (what the edit was computed from); otherwise leaves the
/// agent's newest version there.
///
/// An agent replaces a plan by renaming its own new version over it, at any moment. A check of the file followed
/// by a rename of ours leaves a gap: the agent's rename can land between the check and ours, which then silently
/// replaces the agent's version. So nothing is replaced unseen: the new text is swapped with the file in one step
/// (`RENAME_EXCHANGE`), and what comes out of the swap is exactly what was displaced. If that is `before`, the
/// edit is done. If not, an agent wrote in between: its version is swapped back. That swap-back can itself
/// displace something newer than our text, when the agent wrote again in between: then that newer version is put
/// back in turn, and so on until a swap brings out exactly the file put in place by the swap before it (same
/// inode, same bytes) — nothing landed in between, and the file in place is the newest the agent wrote. After
/// [`SWAP_BACKS`] lost races in a row, the newest version held is renamed into place. An agent that deletes the
/// file meanwhile has the last word: the plan is gone.
///
/// On a file system without `RENAME_EXCHANGE`: a last look just before a plain rename (the gap stays, small).
fn replace(
    path: &Path,
    before: &[u8],
    new: &[u8],
    hook: &mut dyn FnMut(Point, &Path),
) -> io::Result<Replaced> {
    let temp = atomic::write_temp(path, new)?;
    let result = swap_in(path, &temp, before, new, hook);
    if !matches!(result, Ok(Replaced::Done)) {
        // It may hold a displaced older version, or the new text that never went in.
        let _ = fs::remove_file(&temp);
    }
    result
}

/// [`replace`] once `new` is written to `temp`. Done: `temp` is removed; otherwise it may be left holding a
/// displaced older version or the new text.
fn swap_in(
    path: &Path,
    temp: &Path,
    before: &[u8],
    new: &[u8],
    hook: &mut dyn FnMut(Point, &Path),
) -> io::Result<Replaced> {
    let ours = fs::symlink_metadata(temp)?;
    hook(Point::BeforeSwap, path);
    match atomic::exchange(temp, path) {
        Ok(true) => {}
        Ok(false) => return last_look(path, temp, before),
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Replaced::Gone),
        Err(e) => return Err(e),
    }
    let displaced = read_file(temp)?;
    if displaced.1 == before {
        fs::remove_file(temp)?;
        sync_dir(path)?;
        return Ok(Replaced::Done);
    }
    // An agent's version came out: put it back. What is in place now should be our text.
    let mut in_place = {
        use std::os::unix::fs::MetadataExt;
        (ours.ino(), new.to_vec())
    };
    let mut out = displaced;
    for _ in 0..SWAP_BACKS {
        hook(Point::BeforeSwapBack, path);
        match atomic::exchange(temp, path) {
            Ok(true) => {}
            Ok(false) => return Err(io::Error::other("the file system stopped swapping files")),
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Replaced::Gone),
            Err(e) => return Err(e),
        }
        let put = std::mem::replace(&mut out, read_file(temp)?);
        if out == in_place {
            // Nothing landed since the last swap: `put`, the newest version, is in place.
            sync_dir(path)?;
            return Ok(Replaced::Changed);
        }
        // A newer version landed in place and just came out: it goes back in the next swap.
        in_place = put;
    }
    fs::rename(temp, path)?;
    sync_dir(path)?;
    Ok(Replaced::Changed)
}

/// Without `RENAME_EXCHANGE`: a last look at the file just before renaming `temp` over it.
fn last_look(path: &Path, temp: &Path, before: &[u8]) -> io::Result<Replaced> {
    match read_regular(path) {
        Ok(now) if now == before => {}
        Ok(_) => return Ok(Replaced::Changed),
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Replaced::Gone),
        Err(_) => return Ok(Replaced::Changed),
    }
    fs::rename(temp, path)?;
    sync_dir(path)?;
    Ok(Replaced::Done)
}

#[cfg(test)]
mod tests;
