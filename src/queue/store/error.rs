//! Why a store operation failed.

use std::io;
use std::path::{Path, PathBuf};

use crate::plan::{Diagnostic, EditError};

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
    pub(super) fn io(path: &Path) -> impl FnOnce(io::Error) -> StoreError + '_ {
        move |source| StoreError::Io {
            path: path.to_owned(),
            source,
        }
    }
}
