//! Putting an edit's new text in place of the text it was computed from, without replacing an agent's newer
//! version unseen (`RENAME_EXCHANGE`, and swap-backs when an agent wrote in between).

use std::fs;
use std::io;
use std::path::Path;

use crate::queue::atomic::{self, read_file, read_regular, sync_dir};

/// Where an edit may call its test hook: the moments an agent's write is most in the way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Point {
    /// The new text is in its temp file; swapping it into place is next.
    BeforeSwap,
    /// An agent's version was swapped out of place; swapping it back is next.
    BeforeSwapBack,
}

/// What [`replace`] did.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Replaced {
    /// The new text is at the path, durably.
    Done,
    /// An agent replaced the file since it was read: its newest version is at the path, the edit is not.
    Changed,
    /// The file is gone.
    Gone,
}

/// How many times an agent's version is swapped back in place before the newest one is simply renamed there.
pub(super) const SWAP_BACKS: usize = 16;

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
pub(super) fn replace(
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
pub(super) fn last_look(path: &Path, temp: &Path, before: &[u8]) -> io::Result<Replaced> {
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
