//! Which dashboard serves a queue. While it runs, the dashboard keeps `<queue>/.arbiter-web.json` locked and
//! records in it where its login links live and where it is reached, so `arbiter web-login` (another process)
//! can tell whether a link it makes would be redeemed — a link made in another state folder would not be.
//!
//! The lock dies with the process, so a crash leaves a record nobody holds, which reads as "not serving".

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The record's file name in the queue folder (a dotfile: scans of the queue ignore it).
pub const FILE: &str = ".arbiter-web.json";

/// What a running dashboard says about itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Serving {
    /// The state folder its login links are redeemed from (canonical).
    pub state_dir: PathBuf,
    /// The URL its links start with: `publicUrl`, else `http://<the address it listens on>`.
    pub base: String,
    /// The config file the daemon was started with (canonical), when it was started from one.
    pub config: Option<PathBuf>,
}

/// Holds the record's lock for as long as the dashboard serves.
#[derive(Debug)]
pub struct Announced {
    _file: File,
}

/// Records `serving` in the queue at `queue_root` and holds it; `None` when another live dashboard holds the
/// record (the caller serves anyway, and `web-login` then names that one).
pub fn announce(queue_root: &Path, serving: &Serving) -> io::Result<Option<Announced>> {
    let mut file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(queue_root.join(FILE))?;
    match file.try_lock() {
        Ok(()) => {}
        Err(TryLockError::WouldBlock) => return Ok(None),
        Err(TryLockError::Error(e)) => return Err(e),
    }
    let json = serde_json::to_vec_pretty(serving).map_err(io::Error::other)?;
    file.set_len(0)?;
    file.write_all(&json)?;
    file.sync_data()?;
    Ok(Some(Announced { _file: file }))
}

/// The dashboard serving the queue at `queue_root` now, if one does.
pub fn find(queue_root: &Path) -> io::Result<Option<Serving>> {
    let mut file = match File::open(queue_root.join(FILE)) {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    match file.try_lock_shared() {
        // Nobody holds it: what it says is from a dashboard that has stopped.
        Ok(()) => return Ok(None),
        Err(TryLockError::WouldBlock) => {}
        Err(TryLockError::Error(e)) => return Err(e),
    }
    let mut text = String::new();
    file.read_to_string(&mut text)?;
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_dashboard_is_found_while_it_holds_the_record_and_not_after() {
        let queue = tempfile::tempdir().unwrap();
        assert_eq!(find(queue.path()).unwrap(), None);
        let serving = Serving {
            state_dir: "/home/me/.arbiter/web".into(),
            base: "http://127.0.0.1:8470".into(),
            config: Some("/home/me/.arbiter/config.json".into()),
        };
        let held = announce(queue.path(), &serving).unwrap().unwrap();
        assert_eq!(find(queue.path()).unwrap(), Some(serving.clone()));
        assert!(announce(queue.path(), &serving).unwrap().is_none());
        drop(held);
        assert_eq!(find(queue.path()).unwrap(), None);
    }
}
