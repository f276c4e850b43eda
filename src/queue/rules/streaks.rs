//! The answers in a row to each shape of pushed plan ([`super::Shape`]), in `<queue>/.rule-streaks.json`: after the
//! same approver gave the same answer [`STREAK`] times in a row, the completion view offers `🔁 Always answer`.
//! Bookkeeping only (it makes no rule by itself): a file that does not read starts the streaks again.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::{Locked, RulesError};
use crate::queue::atomic::write_atomic;

/// The file in the queue root.
pub const FILE: &str = ".rule-streaks.json";
/// Identical answers in a row before a rule is offered.
pub const STREAK: u32 = 3;
/// Shapes remembered; the longest unanswered are forgotten first.
const KEPT: usize = 1000;

/// Every shape's streak, by [`super::Shape::key`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Streaks {
    pub shapes: BTreeMap<String, Streak>,
}

/// The answers in a row to one shape.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Streak {
    /// Who answered.
    pub by: u64,
    /// What they answered.
    pub answer: String,
    /// How many times in a row.
    pub count: u32,
    /// The last one (RFC 3339).
    pub at: String,
}

impl Streaks {
    /// The streaks of the queue at `root` (none when the file is missing or does not read).
    #[must_use]
    pub fn read(root: &Path) -> Streaks {
        fs::read(root.join(FILE))
            .ok()
            .and_then(|bytes| serde_json::from_slice(&bytes).ok())
            .unwrap_or_default()
    }

    /// Counts `by`'s answer `answer` to the shape `key`: one more in a row when it is the same person's same
    /// answer, else a new streak of one. Returns the count.
    pub fn note(&mut self, key: &str, by: u64, answer: &str, now: &str) -> u32 {
        let streak = match self.shapes.get(key) {
            Some(s) if s.by == by && s.answer == answer => Streak {
                count: s.count.saturating_add(1),
                at: now.to_owned(),
                ..s.clone()
            },
            _ => Streak {
                by,
                answer: answer.to_owned(),
                count: 1,
                at: now.to_owned(),
            },
        };
        let count = streak.count;
        self.shapes.insert(key.to_owned(), streak);
        if self.shapes.len() > KEPT {
            let oldest = self
                .shapes
                .iter()
                .min_by(|a, b| a.1.at.cmp(&b.1.at))
                .map(|(k, _)| k.clone());
            if let Some(oldest) = oldest {
                self.shapes.remove(&oldest);
            }
        }
        count
    }

    /// True when `by` answered the shape `key` with `answer` at least [`STREAK`] times in a row, last.
    #[must_use]
    pub fn reached(&self, key: &str, by: u64, answer: &str) -> bool {
        self.shapes
            .get(key)
            .is_some_and(|s| s.by == by && s.answer == answer && s.count >= STREAK)
    }

    /// Writes the streaks, the rules' lock held.
    pub fn write(&self, locked: &Locked) -> Result<(), RulesError> {
        let path = locked.root().join(FILE);
        let bytes = serde_json::to_vec(self).map_err(|e| RulesError::Invalid {
            path: path.clone(),
            reason: e.to_string(),
        })?;
        write_atomic(&path, &bytes).map_err(|source| RulesError::Io { path, source })
    }
}
