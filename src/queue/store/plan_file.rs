//! One plan file: which folder it is in, what is a plan file's name, and reading one.

use std::io;
use std::path::{Path, PathBuf};

use crate::plan::{self, Brief, Diagnostic, Plan};
use crate::queue::atomic::read_regular;

use super::StoreError;

/// Which folder a plan was found in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Location {
    Pending,
    Completed,
    /// Sent back by the owner (`status: changes_requested`), waiting for the agent's revision.
    Returned,
}

impl Location {
    /// The folder's name: `pending`, `completed`, `returned`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Location::Pending => "pending",
            Location::Completed => "completed",
            Location::Returned => "returned",
        }
    }
}

/// A plan read from disk.
#[derive(Debug, Clone)]
pub struct Loaded {
    pub path: PathBuf,
    pub plan: Plan,
    pub location: Location,
}

/// A pending plan as the daemon keeps it between looks: its file and its brief (what the queue listing,
/// announcements, access checks and the clock read). A plan's own screens read the whole plan from the file.
#[derive(Debug)]
pub struct Listed {
    pub path: PathBuf,
    pub brief: Brief,
}

impl Listed {
    /// The brief of a plan read whole.
    #[must_use]
    pub fn of(loaded: &Loaded) -> Listed {
        Listed {
            path: loaded.path.clone(),
            brief: Brief::of(&loaded.plan),
        }
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
