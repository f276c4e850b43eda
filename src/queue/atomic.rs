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

/// Writes `bytes` to a fsynced temp file beside `target` and returns its path.
pub fn write_temp(target: &Path, bytes: &[u8]) -> io::Result<PathBuf> {
    let temp = temp_path(target);
    let result = (|| {
        let mut f = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o644)
            .open(&temp)?;
        f.write_all(bytes)?;
        f.sync_all()
    })();
    if let Err(e) = result {
        let _ = fs::remove_file(&temp);
        return Err(e);
    }
    Ok(temp)
}

/// Replaces `target` with `bytes` atomically: a reader sees the old file or the new one, never a mix.
pub fn write_atomic(target: &Path, bytes: &[u8]) -> io::Result<()> {
    let temp = write_temp(target, bytes)?;
    if let Err(e) = fs::rename(&temp, target) {
        let _ = fs::remove_file(&temp);
        return Err(e);
    }
    sync_dir(target)
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
