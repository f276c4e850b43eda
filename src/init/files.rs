//! The file-system side of `init`: folders created owner-only, files written whole with a fixed mode.

use std::fmt;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::InitError;

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

fn open_new(path: &Path, mode: u32) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, mode);
    #[cfg(not(unix))]
    let _ = mode;
    options.open(path)
}

fn write_all_synced(mut file: File, contents: &str) -> io::Result<()> {
    file.write_all(contents.as_bytes())?;
    file.sync_all()
}

/// Writes `contents` to `path` with `mode`. Without `replace`, an existing file is an
/// [`InitError::Exists`] (checked atomically by `O_EXCL`). With it, the file is written next to the
/// target and renamed over it, so the old file (perhaps mode 0644) is never half-written nor kept.
pub(super) fn write_file(
    path: &Path,
    contents: &str,
    mode: u32,
    replace: bool,
) -> Result<Step, InitError> {
    if !replace {
        let file = open_new(path, mode).map_err(|source| match source.kind() {
            io::ErrorKind::AlreadyExists => InitError::Exists { path: path.into() },
            _ => InitError::Io {
                action: "create",
                path: path.into(),
                source,
            },
        })?;
        write_all_synced(file, contents).map_err(io_error("write", path))?;
        return Ok(Step {
            path: path.into(),
            outcome: Outcome::Wrote,
        });
    }
    let existed = exists(path);
    let name = path
        .file_name()
        .map(|name| name.to_string_lossy())
        .unwrap_or_default();
    let temp = path.with_file_name(format!(".{name}.tmp-{}", std::process::id()));
    // A leftover from a crashed run would make O_EXCL fail; it is ours to remove.
    if exists(&temp) {
        fs::remove_file(&temp).map_err(io_error("remove", &temp))?;
    }
    let file = open_new(&temp, mode).map_err(io_error("create", &temp))?;
    let written = write_all_synced(file, contents).and_then(|()| fs::rename(&temp, path));
    if let Err(source) = written {
        let _ = fs::remove_file(&temp);
        return Err(InitError::Io {
            action: "write",
            path: path.into(),
            source,
        });
    }
    if let Some(dir) = path.parent() {
        // Make the rename durable; failure here loses nothing already reported.
        let _ = File::open(dir).and_then(|dir| dir.sync_all());
    }
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
