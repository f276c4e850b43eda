//! Why a decision file could not be read: file, line and a plain reason.

use std::fmt;
use std::path::PathBuf;

/// A problem found in a decision file. Its display text is what the user reads:
/// `path:line: reason` (path left out when the text did not come from a file).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct Diagnostic {
    pub path: Option<PathBuf>,
    /// 1-based line; 0 when the problem is the file as a whole.
    pub line: usize,
    pub reason: String,
}

impl Diagnostic {
    #[must_use]
    pub fn new(line: usize, reason: impl Into<String>) -> Diagnostic {
        Diagnostic {
            path: None,
            line,
            reason: reason.into(),
        }
    }

    /// The reason with its line (`line 3: …`), without the path.
    #[must_use]
    pub fn reason_with_line(&self) -> String {
        if self.line > 0 {
            format!("line {}: {}", self.line, self.reason)
        } else {
            self.reason.clone()
        }
    }

    #[must_use]
    pub fn in_file(mut self, path: impl Into<PathBuf>) -> Diagnostic {
        self.path = Some(path.into());
        self
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(path) = &self.path {
            write!(f, "{}:", path.display())?;
        }
        if self.line > 0 {
            write!(f, "{}:", self.line)?;
        }
        if self.path.is_some() || self.line > 0 {
            f.write_str(" ")?;
        }
        f.write_str(&self.reason)
    }
}
