//! What agents do with the queue, shared by the CLI and the MCP server: push a plan, read its state and
//! answers, wait for its completion, collect notifications. No token and no daemon needed: only the files.

pub mod acp;
mod fill;
pub(crate) mod hook;
mod id;
mod machine;
pub mod notifications;
mod push;
mod queue_dir;
pub mod reply;
pub(crate) mod report;
mod revise;
pub(crate) mod spec;
mod wait;

use std::io;
use std::path::PathBuf;

use crate::queue::StoreError;

pub use machine::push_from;
pub use push::{Pushed, push, push_spec};
pub use queue_dir::resolve_queue_dir;
pub use revise::{revise, revise_spec};
pub use wait::{WaitOutcome, wait_for_completion};

/// Why an agent command failed. The display text is what the agent reads.
#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    /// The input (a plan, a spec, an argument) is invalid; nothing was written.
    #[error("{0}")]
    Invalid(String),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("plan `{0}` disappeared from the queue while waiting for it (deleted or moved away)")]
    Vanished(String),
    #[error("{}: {source}", path.display())]
    Io { path: PathBuf, source: io::Error },
    #[error(
        "cannot find the queue folder: pass --queue, or set ARBITER_QUEUE, ARBITER_HOME or HOME"
    )]
    NoQueue,
    /// `withdraw`: the plan is no longer pending (answered, sent back or withdrawn already).
    #[error("plan `{id}` is not pending ({status}): nothing to withdraw")]
    NotPending { id: String, status: String },
    /// `withdraw`: the action failed (a write error, a plan changing under it).
    #[error("plan `{id}` was not withdrawn: {reason}")]
    NotWithdrawn { id: String, reason: String },
}

impl AgentError {
    /// True when the caller's input was at fault (exit code 2), false for run-time failures (exit code 1).
    #[must_use]
    pub fn is_invalid_input(&self) -> bool {
        matches!(self, AgentError::Invalid(_))
    }
}
