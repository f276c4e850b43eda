//! Whether a daemon serves a queue: `arbiter run` holds an exclusive lock on `<queue>/.arbiter.lock` for as long
//! as it runs (`daemon/lockfile.rs` takes it). Agents' hooks look before they ask, so that a question nobody would
//! see falls back at once instead of waiting out its timeout.

use std::fs::{self, File, TryLockError};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// The lock file's name in the queue folder (a dotfile: scans ignore it).
pub const LOCK_FILE: &str = ".arbiter.lock";

/// What a look at the lock tells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Daemon {
    Running,
    Stopped,
    /// The look itself failed: assume one may be running.
    Unknown,
}

/// The lock file of the queue at `root`.
#[must_use]
pub fn lock_file(root: &Path) -> PathBuf {
    root.join(LOCK_FILE)
}

/// Whether a daemon holds the lock of the queue at `root`. On Linux `/proc/locks` is read, which takes no lock
/// itself (a probe that took one, even shared, could make a daemon starting at that instant refuse to start); it
/// is matched by the lock file's inode alone, so a match on another file system's inode can only make the hook
/// wait as usual, never give up on a running daemon. Elsewhere a shared lock is tried and released at once.
#[must_use]
pub fn daemon(root: &Path) -> Daemon {
    let path = lock_file(root);
    let meta = match fs::metadata(&path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Daemon::Stopped,
        Err(_) => return Daemon::Unknown,
    };
    if let Ok(locks) = fs::read_to_string("/proc/locks") {
        return if holds(&locks, meta.ino()) {
            Daemon::Running
        } else {
            Daemon::Stopped
        };
    }
    let Ok(file) = File::open(&path) else {
        return Daemon::Unknown;
    };
    match file.try_lock_shared() {
        Ok(()) => {
            let _ = file.unlock();
            Daemon::Stopped
        }
        Err(TryLockError::WouldBlock) => Daemon::Running,
        Err(TryLockError::Error(_)) => Daemon::Unknown,
    }
}

/// Whether `/proc/locks` (`1: FLOCK  ADVISORY  WRITE 1234 fd:01:5678 0 EOF`, waiters marked `->`) lists a lock on
/// inode `ino`.
fn holds(locks: &str, ino: u64) -> bool {
    locks.lines().any(|line| {
        line.split_whitespace().any(|field| {
            let mut parts = field.rsplitn(3, ':');
            let (Some(inode), Some(_minor), Some(_major)) =
                (parts.next(), parts.next(), parts.next())
            else {
                return false;
            };
            inode.parse::<u64>() == Ok(ino)
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_proc_locks_lines() {
        let locks = "1: FLOCK  ADVISORY  WRITE 4242 fd:01:1234567 0 EOF\n2: POSIX  ADVISORY  READ 99 00:2f:42 0 EOF\n";
        assert!(holds(locks, 1234567));
        assert!(holds(locks, 42));
        assert!(!holds(locks, 4242));
        assert!(!holds(locks, 7));
    }

    #[test]
    fn a_held_lock_is_a_running_daemon_and_a_released_one_is_not() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(daemon(dir.path()), Daemon::Stopped);
        let file = File::create(lock_file(dir.path())).unwrap();
        assert_eq!(daemon(dir.path()), Daemon::Stopped);
        file.lock().unwrap();
        assert_eq!(daemon(dir.path()), Daemon::Running);
        file.unlock().unwrap();
        assert_eq!(daemon(dir.path()), Daemon::Stopped);
    }
}
