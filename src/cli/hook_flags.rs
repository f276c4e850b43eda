//! The flags of `arbiter hook AGENT` and of its `install`, which writes them into the hook's command.

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, ValueEnum};

use super::duration;

#[derive(Debug, Args)]
pub(super) struct InstallArgs {
    /// Install for this project only (Claude Code: .claude/settings.local.json; Codex: .codex/hooks.json; Gemini:
    /// .gemini/settings.json; Qwen: .qwen/settings.json; Copilot: .github/hooks/arbiter.json, in the current
    /// folder by default).
    #[arg(long, value_name = "DIR")]
    pub(super) project: Option<PathBuf>,
    /// Print the file as it would be written, and write nothing.
    #[arg(long)]
    pub(super) dry_run: bool,
    /// Leave out the finished hook ("What next?" when the agent ends its turn); one installed before is taken out.
    #[arg(long)]
    pub(super) no_stop: bool,
    #[command(flatten)]
    pub(super) hook: HookArgs,
}

/// How the hook asks: the same flags for the hook itself and for `install`, which writes them into its command.
#[derive(Debug, Args)]
pub(super) struct HookArgs {
    /// How long to wait for an answer to a prompt; `install` gives the hook a timeout one minute longer.
    #[arg(long, value_name = "DURATION", value_parser = duration::parse, default_value = "9m")]
    pub(super) timeout: Duration,
    /// How long a finished card ("What next?") waits; then the agent stops.
    #[arg(long, value_name = "DURATION", value_parser = duration::parse, default_value = "10m")]
    pub(super) stop_timeout: Duration,
    /// What to answer when the time is up; `ask` falls back to the agent's own prompt (a deny where it has none).
    #[arg(long, value_enum, default_value_t = Fallback::Ask)]
    pub(super) on_timeout: Fallback,
    /// The question's priority.
    #[arg(long, value_parser = ["low", "normal", "high", "urgent"], default_value = "high")]
    pub(super) priority: String,
    /// The question's tag (default: the project's folder name).
    #[arg(long)]
    pub(super) tag: Option<String>,
}

pub(super) const DEFAULT_STOP_TIMEOUT: Duration = Duration::from_secs(600);

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(super) enum Fallback {
    Allow,
    Deny,
    Ask,
}
