//! One daemon per queue: a second one would fight the first over getUpdates (409 Conflict) and over the files.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Holds the queue's lock file (`<queue>/.arbiter.lock`) for as long as it lives. The file itself stays (it is a
/// dotfile, ignored by scans); the lock dies with the process, so a crash leaves nothing that blocks a restart.
#[derive(Debug)]
pub struct InstanceLock {
    _file: File,
    pub path: PathBuf,
}

/// Why the lock could not be taken.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    #[error("another arbiter daemon is already running on this queue (lock held on {})", .0.display())]
    Held(PathBuf),
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// Takes the single-instance lock of the queue at `queue_root`.
pub fn acquire(queue_root: &Path) -> Result<InstanceLock, LockError> {
    let path = crate::queue::instance::lock_file(queue_root);
    let io = |source| LockError::Io {
        path: path.clone(),
        source,
    };
    let mut file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(io)?;
    match file.try_lock() {
        Ok(()) => {}
        Err(TryLockError::WouldBlock) => return Err(LockError::Held(path)),
        Err(TryLockError::Error(e)) => return Err(io(e)),
    }
    let _ = file.set_len(0);
    let _ = writeln!(file, "{}", std::process::id());
    Ok(InstanceLock { _file: file, path })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_is_refused_and_freed_on_drop() {
        let dir = tempfile::tempdir().unwrap();
        let first = acquire(dir.path()).unwrap();
        let second = acquire(dir.path()).unwrap_err();
        assert!(
            second
                .to_string()
                .starts_with("another arbiter daemon is already running")
        );
        drop(first);
        assert!(acquire(dir.path()).is_ok());
    }
}
