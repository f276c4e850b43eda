//! `arbiter hook AGENT`: every prompt a coding agent raises (Claude Code, Codex, Gemini CLI, Qwen Code, Copilot
//! CLI), asked of the human through the queue, and answered in the agent's own hook output.
//!
//! One [`core`] (a prompt → a plan → the wait → a verdict) and a small [`dialect`] per agent (its input and
//! output shapes, its hook configuration for [`install`]).

pub mod core;
pub mod dialect;
pub mod install;

pub use self::core::{Event, HookOptions, OnTimeout, PlanOptions, Reply, answer, answer_watched};
pub use self::dialect::{Dialect, NAMES, named};
