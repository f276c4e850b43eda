//! Crash-safe file writes: temp file in the same folder, fsync, rename, fsync the folder.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime};

/// Marks the daemon's and the CLI's own temp files (dotfiles, so scans ignore them).
pub const TEMP_MARK: &str = ".arbiter-tmp-";

/// Largest plan file read; anything bigger is reported, not loaded.
pub const MAX_FILE_BYTES: u64 = 1024 * 1024;

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// A fresh temp path beside `target`: `.{name}.arbiter-tmp-{pid}-{n}`.
#[must_use]
pub fn temp_path(target: &Path) -> PathBuf {
    let name = target
        .file_name()
        .map_or_else(|| "file".into(), |n| n.to_string_lossy().into_owned());
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    target.with_file_name(format!(".{name}{TEMP_MARK}{}-{n}", std::process::id()))
}

/// How [`write_with`] puts the new file in place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// Renamed over the target: a reader sees the old file or the new one, never a mix.
    Replace,
    /// Renamed to the target only where nothing is there; `AlreadyExists` otherwise, and nothing is replaced.
    NoReplace,
    /// Renamed to the target's name or the first free `-2`, `-3`… one in its folder, never replacing a file
    /// there (completed/).
    FreeName,
}

/// What [`write_with`] writes: the new file's mode, how it takes its place, whether the folder is fsynced after.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// The mode the file is created with (the umask applies).
    pub mode: u32,
    pub place: Place,
    /// Off only where losing the last write in a power cut is acceptable (a rule's count): the file itself is
    /// always whole on disk before it is renamed in.
    pub sync_folder: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            mode: 0o644,
            place: Place::Replace,
            sync_folder: true,
        }
    }
}

/// The one writer of files that must never be seen half-written: a temp file beside `target` (a fresh dotfile
/// name, created exclusively with `options.mode`), filled by `fill`, fsynced, then put in place as
/// `options.place` says, and the folder fsynced. A temp file is never left behind by a failure. Returns where the
/// file went (the target, or the free name [`Place::FreeName`] found).
pub fn write_with(
    target: &Path,
    options: Options,
    fill: impl FnOnce(&mut File) -> io::Result<()>,
) -> io::Result<PathBuf> {
    let temp = stage(target, options.mode, fill)?;
    let placed = match options.place {
        Place::Replace => fs::rename(&temp, target).map(|()| target.to_owned()),
        Place::NoReplace => rename_noreplace(&temp, target).map(|()| target.to_owned()),
        Place::FreeName => rename_free(&temp, target),
    };
    let dest = placed.inspect_err(|_| {
        let _ = fs::remove_file(&temp);
    })?;
    if options.sync_folder {
        sync_dir(&dest)?;
    }
    Ok(dest)
}

/// Replaces `target` with `bytes` atomically: a reader sees the old file or the new one, never a mix.
pub fn write_atomic(target: &Path, bytes: &[u8]) -> io::Result<()> {
    write_with(target, Options::default(), |f| f.write_all(bytes)).map(drop)
}

/// Writes `bytes` to a fsynced temp file beside `target` and returns its path, for a caller that puts it in place
/// itself (`RENAME_EXCHANGE`, `queue/store/replace.rs`) and removes it after.
pub fn write_temp(target: &Path, bytes: &[u8]) -> io::Result<PathBuf> {
    stage(target, 0o644, |f| f.write_all(bytes))
}

/// A fresh temp file beside `target` created with `mode`, filled by `fill` and fsynced; removed if any of it
/// failed. A name some crashed process left behind (its pid reused) is skipped for the next one.
fn stage(
    target: &Path,
    mode: u32,
    fill: impl FnOnce(&mut File) -> io::Result<()>,
) -> io::Result<PathBuf> {
    let mut attempts = 0;
    let (temp, mut file) = loop {
        let temp = temp_path(target);
        let opened = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(mode)
            .open(&temp);
        match opened {
            Ok(file) => break (temp, file),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists && attempts < 16 => attempts += 1,
            Err(e) => return Err(e),
        }
    };
    if let Err(e) = fill(&mut file).and_then(|()| file.sync_all()) {
        let _ = fs::remove_file(&temp);
        return Err(e);
    }
    Ok(temp)
}

/// Renames `from` to `to`'s name or the first free `-2`, `-3`… one in `to`'s folder, never replacing a file
/// there: where it went. The error of a rename that failed, or `AlreadyExists` when no name was free.
pub fn rename_free(from: &Path, to: &Path) -> io::Result<PathBuf> {
    let dir = to.parent().unwrap_or(Path::new("."));
    let name = to.file_name().unwrap_or_default().to_string_lossy();
    let base = name.strip_suffix(".md").unwrap_or(&name);
    for n in 1..10_000 {
        let dest = if n == 1 {
            to.to_owned()
        } else {
            dir.join(format!("{base}-{n}.md"))
        };
        match rename_noreplace(from, &dest) {
            Ok(()) => return Ok(dest),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(e),
        }
    }
    let folder = dir.file_name().unwrap_or_default().to_string_lossy();
    Err(io::Error::new(
        io::ErrorKind::AlreadyExists,
        format!("no free name in {folder}/"),
    ))
}

/// Opens (creating it if need be) the lock file at `path` and takes its exclusive lock, waiting for any other
/// holder in this or another process; the lock is held until the file is dropped (or unlocked).
pub fn hold_lock(path: &Path) -> io::Result<File> {
    let lock = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)?;
    lock.lock()?;
    Ok(lock)
}

/// Moves `from` to `to` without ever replacing an existing `to` (`AlreadyExists` then).
pub fn rename_noreplace(from: &Path, to: &Path) -> io::Result<()> {
    use rustix::fs::{CWD, RenameFlags, renameat_with};
    match renameat_with(CWD, from, CWD, to, RenameFlags::NOREPLACE) {
        Ok(()) => Ok(()),
        Err(e) if e == rustix::io::Errno::INVAL || e == rustix::io::Errno::NOSYS => {
            // Filesystems without RENAME_NOREPLACE: a hard link fails if the target exists.
            fs::hard_link(from, to)?;
            fs::remove_file(from)
        }
        Err(e) => Err(e.into()),
    }
}

/// Swaps `a` and `b` in one step (`RENAME_EXCHANGE`): each name then holds what the other held, and no reader or
/// writer ever finds either name missing. `Ok(false)`: the file system cannot swap (nothing was changed).
pub fn exchange(a: &Path, b: &Path) -> io::Result<bool> {
    use rustix::fs::{CWD, RenameFlags, renameat_with};
    use rustix::io::Errno;
    match renameat_with(CWD, a, CWD, b, RenameFlags::EXCHANGE) {
        Ok(()) => Ok(true),
        Err(e) if e == Errno::INVAL || e == Errno::NOSYS || e == Errno::OPNOTSUPP => Ok(false),
        Err(e) => Err(e.into()),
    }
}

/// fsyncs the folder holding `path`, so a rename into it survives a power cut.
pub fn sync_dir(path: &Path) -> io::Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    File::open(dir)?.sync_all()
}

/// Reads a regular file without following a symlink, refusing files over [`MAX_FILE_BYTES`].
pub fn read_regular(path: &Path) -> io::Result<Vec<u8>> {
    read_file(path).map(|(_, bytes)| bytes)
}

/// [`read_regular`], also returning the file's inode number: which file was read, not only what it held.
pub fn read_file(path: &Path) -> io::Result<(u64, Vec<u8>)> {
    use std::os::unix::fs::MetadataExt;
    let f = OpenOptions::new()
        .read(true)
        .custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32)
        .open(path)?;
    let meta = f.metadata()?;
    if !meta.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a regular file",
        ));
    }
    if meta.len() > MAX_FILE_BYTES {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "file is {} bytes, over the {MAX_FILE_BYTES}-byte limit for a plan",
                meta.len()
            ),
        ));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    f.take(MAX_FILE_BYTES + 1).read_to_end(&mut bytes)?;
    Ok((meta.ino(), bytes))
}

/// The pid a temp file name carries (`….arbiter-tmp-{pid}-{n}`).
fn temp_owner(name: &str) -> Option<u32> {
    let rest = &name[name.find(TEMP_MARK)? + TEMP_MARK.len()..];
    rest.split('-').next()?.parse().ok()
}

/// True when process `pid` no longer runs (so its temp files are debris, not a write in progress).
fn is_dead(pid: u32) -> bool {
    pid != std::process::id() && !Path::new("/proc").join(pid.to_string()).exists()
}

/// Removes temp files of ours left in `dir` by a crash: those whose writer process is gone, and any older than
/// `age` (a writer never takes that long).
pub fn remove_stale_temps(dir: &Path, age: Duration) -> io::Result<usize> {
    let mut removed = 0;
    let now = SystemTime::now();
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if !name.starts_with('.') || !name.contains(TEMP_MARK) {
            continue;
        }
        let old = entry
            .metadata()
            .and_then(|m| m.modified())
            .map(|t| now.duration_since(t).unwrap_or_default() >= age)
            .unwrap_or(false);
        let orphan = temp_owner(&name).is_some_and(is_dead);
        if (old || orphan) && fs::remove_file(entry.path()).is_ok() {
            removed += 1;
        }
    }
    Ok(removed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_write_and_noreplace() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.md");
        write_atomic(&a, b"one").unwrap();
        write_atomic(&a, b"two").unwrap();
        assert_eq!(fs::read(&a).unwrap(), b"two");
        let b = dir.path().join("b.md");
        fs::write(&b, "keep").unwrap();
        let err = rename_noreplace(&a, &b).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::AlreadyExists);
        assert_eq!(fs::read(&b).unwrap(), b"keep");
        let c = dir.path().join("c.md");
        rename_noreplace(&a, &c).unwrap();
        assert!(!a.exists());
        let names: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 2, "no temp debris: {names:?}");
    }

    #[test]
    fn the_writer_places_as_told_and_leaves_no_temp() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.md");
        fs::write(&a, "keep").unwrap();
        let place = |place| Options {
            place,
            ..Options::default()
        };
        let err = write_with(&a, place(Place::NoReplace), |f| f.write_all(b"new")).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::AlreadyExists);
        assert_eq!(fs::read(&a).unwrap(), b"keep");
        let went = write_with(&a, place(Place::FreeName), |f| f.write_all(b"two")).unwrap();
        assert_eq!(went, dir.path().join("a-2.md"));
        let private = Options {
            mode: 0o600,
            ..Options::default()
        };
        write_with(&a, private, |f| f.write_all(b"mine")).unwrap();
        assert_eq!(fs::read(&a).unwrap(), b"mine");
        let mode = fs::metadata(&a).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        let failed = write_with(&a, Options::default(), |_| Err(io::Error::other("full")));
        assert!(failed.is_err());
        assert_eq!(fs::read(&a).unwrap(), b"mine");
        let mut names: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        names.sort();
        assert_eq!(names, ["a-2.md", "a.md"], "no temp debris");
    }

    #[test]
    fn exchange_swaps_two_files() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.md");
        let b = dir.path().join("b.md");
        fs::write(&a, "one").unwrap();
        fs::write(&b, "two").unwrap();
        let (ino_a, _) = read_file(&a).unwrap();
        if !exchange(&a, &b).unwrap() {
            return; // a file system without RENAME_EXCHANGE: nothing to check
        }
        assert_eq!(read_file(&b).unwrap(), (ino_a, b"one".to_vec()));
        assert_eq!(fs::read(&a).unwrap(), b"two");
        let gone = dir.path().join("gone.md");
        assert_eq!(
            exchange(&a, &gone).unwrap_err().kind(),
            io::ErrorKind::NotFound
        );
    }

    #[test]
    fn temps_of_dead_writers_are_removed_and_live_ones_kept() {
        let dir = tempfile::tempdir().unwrap();
        let live = temp_path(&dir.path().join("a.md"));
        fs::write(&live, "writing").unwrap();
        let dead = dir.path().join(format!(".b.md{TEMP_MARK}4000000000-1"));
        fs::write(&dead, "debris").unwrap();
        let agent = dir.path().join(".c.md.staging");
        fs::write(&agent, "an agent's own staging file").unwrap();
        assert_eq!(
            remove_stale_temps(dir.path(), Duration::from_secs(3600)).unwrap(),
            1
        );
        assert!(live.exists() && agent.exists() && !dead.exists());
    }

    #[test]
    fn symlinks_and_huge_files_are_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let outside = dir.path().join("secret");
        fs::write(&outside, "secret").unwrap();
        let link = dir.path().join("link.md");
        std::os::unix::fs::symlink(&outside, &link).unwrap();
        assert!(read_regular(&link).is_err());
        let big = dir.path().join("big.md");
        fs::write(&big, vec![b'a'; (MAX_FILE_BYTES + 1) as usize]).unwrap();
        assert!(
            read_regular(&big)
                .unwrap_err()
                .to_string()
                .contains("over the")
        );
    }
}
