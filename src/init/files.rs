//! The file-system side of `init`: folders created owner-only, files written whole with a fixed mode.

use std::fmt;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::InitError;
use crate::queue::atomic;

/// One thing `init` did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    pub path: PathBuf,
    pub outcome: Outcome,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    CreatedDir,
    ExistingDir,
    /// A new file.
    Wrote,
    /// An existing file replaced (`--force`).
    Replaced,
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let verb = match self.outcome {
            Outcome::CreatedDir => "created ",
            Outcome::ExistingDir => "exists  ",
            Outcome::Wrote => "wrote   ",
            Outcome::Replaced => "replaced",
        };
        write!(f, "{verb} {}", self.path.display())
    }
}

fn io_error(action: &'static str, path: &Path) -> impl FnOnce(io::Error) -> InitError {
    let path = path.to_path_buf();
    move |source| InitError::Io {
        action,
        path,
        source,
    }
}

/// True when something (even a dangling symlink) is at `path`.
pub(super) fn exists(path: &Path) -> bool {
    fs::symlink_metadata(path).is_ok()
}

/// Creates a folder and its missing parents, mode 0700: the queue holds what agents ask the owner.
/// An existing folder is left as it is.
pub(super) fn create_private_dir(path: &Path) -> Result<Step, InitError> {
    if path.is_dir() {
        return Ok(Step {
            path: path.into(),
            outcome: Outcome::ExistingDir,
        });
    }
    let mut builder = fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder
        .create(path)
        .map_err(io_error("create folder", path))?;
    Ok(Step {
        path: path.into(),
        outcome: Outcome::CreatedDir,
    })
}

/// Creates a folder and its missing parents with the usual permissions (`~/.config/systemd/user`).
pub(super) fn create_dir(path: &Path) -> Result<(), InitError> {
    fs::create_dir_all(path).map_err(io_error("create folder", path))
}

/// Writes `contents` to `path` with `mode`, through the queue's one atomic writer: a temp file beside the target,
/// renamed in, so no file is ever half-written. Without `replace`, an existing file is an [`InitError::Exists`]
/// (the rename never replaces one). With it, the file is renamed over the old one (perhaps mode 0644), which is
/// never half-written nor kept.
pub(super) fn write_file(
    path: &Path,
    contents: &str,
    mode: u32,
    replace: bool,
) -> Result<Step, InitError> {
    let existed = exists(path);
    let options = atomic::Options {
        mode,
        place: if replace {
            atomic::Place::Replace
        } else {
            atomic::Place::NoReplace
        },
        sync_folder: false,
    };
    atomic::write_with(path, options, |file| file.write_all(contents.as_bytes())).map_err(
        |source| match source.kind() {
            io::ErrorKind::AlreadyExists if !replace => InitError::Exists { path: path.into() },
            _ => InitError::Io {
                action: if replace { "write" } else { "create" },
                path: path.into(),
                source,
            },
        },
    )?;
    // Make the rename durable; failure here loses nothing already reported.
    let _ = atomic::sync_dir(path);
    let outcome = if existed {
        Outcome::Replaced
    } else {
        Outcome::Wrote
    };
    Ok(Step {
        path: path.into(),
        outcome,
    })
}
