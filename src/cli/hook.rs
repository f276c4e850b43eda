//! `arbiter hook claude-code`: the hook input on stdin, Claude Code's decision JSON on stdout, exit code 0
//! always (Claude Code reads the JSON only on exit 0; an exit 2 would block the tool call on `PreToolUse`).

use std::ffi::OsString;
use std::io::{IsTerminal, Read};
use std::path::Path;
use std::time::Duration;

use clap::{Args, Subcommand, ValueEnum};

use crate::agent::hook::{self, HookOptions, OnTimeout, PlanOptions, Reply};

use super::duration;

/// What kept the hook from asking (`reason`): it answers `ask`, in the format of `answer_as`.
#[derive(Debug, thiserror::Error)]
#[error("{reason}")]
pub struct HookFallback {
    answer_as: Option<hook::Event>,
    reason: String,
}

impl HookFallback {
    /// Prints the fallback answer, as any answer is printed.
    pub fn print(&self) {
        print(&Reply::fallback(self.answer_as, &self.reason));
    }
}

#[derive(Debug, Subcommand)]
pub enum HookCommand {
    /// Claude Code hook for PreToolUse and PermissionRequest: asks the human, prints the decision JSON.
    ClaudeCode(ClaudeCodeArgs),
}

#[derive(Debug, Args)]
pub struct ClaudeCodeArgs {
    /// How long to wait for the answer; keep it under the hook's `timeout` in settings.json (600 s by default).
    #[arg(long, value_name = "DURATION", value_parser = duration::parse, default_value = "9m")]
    timeout: Duration,
    /// What to answer when the time is up; `ask` falls back to Claude Code's own prompt.
    #[arg(long, value_enum, default_value_t = Fallback::Ask)]
    on_timeout: Fallback,
    /// The question's priority.
    #[arg(long, value_parser = ["low", "normal", "high", "urgent"], default_value = "high")]
    priority: String,
    /// The question's tag (default: the project's folder name).
    #[arg(long)]
    tag: Option<String>,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum Fallback {
    Allow,
    Deny,
    Ask,
}

/// Asks the human and prints Claude Code's decision; what keeps it from asking is a [`HookFallback`], which
/// answers `ask`.
pub fn run(queue: Option<&Path>, command: HookCommand) -> Result<(), HookFallback> {
    let HookCommand::ClaudeCode(args) = command;
    let text = read_input().map_err(|reason| HookFallback {
        answer_as: Some(hook::Event::PreToolUse),
        reason,
    })?;
    let options = HookOptions {
        timeout: args.timeout,
        timeout_label: duration::format(args.timeout),
        on_timeout: match args.on_timeout {
            Fallback::Allow => OnTimeout::Allow,
            Fallback::Deny => OnTimeout::Deny,
            Fallback::Ask => OnTimeout::Ask,
        },
        plan: PlanOptions {
            priority: Some(args.priority),
            tag: args.tag,
            deadline: Some(duration::format(args.timeout)),
        },
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| HookFallback {
            answer_as: hook::input::answer_as(&text),
            reason: format!("cannot start the tokio runtime: {e}"),
        })?;
    print(&runtime.block_on(hook::answer(&text, || super::open_queue(queue), &options)));
    Ok(())
}

/// Is this command line a `hook claude-code` call (whose argument errors must still answer)?
pub fn is_hook_call(args: impl IntoIterator<Item = OsString>) -> bool {
    let args: Vec<OsString> = args.into_iter().collect();
    args.windows(2)
        .any(|w| w[0] == "hook" && w[1] == "claude-code")
}

/// A command line error of `hook claude-code` answers `ask` too, so a typo in settings.json does not block every
/// tool call.
#[must_use]
pub fn bad_arguments(error: &clap::Error) -> HookFallback {
    let message = error.to_string();
    let first = message.lines().next().unwrap_or_default();
    let reason = format!(
        "bad arguments to `arbiter hook claude-code`: {}",
        first.trim_start_matches("error: ")
    );
    let answer_as = match read_input() {
        Ok(text) => hook::input::answer_as(&text),
        Err(_) => Some(hook::Event::PreToolUse),
    };
    HookFallback { answer_as, reason }
}

/// Standard input as text; a terminal is refused rather than waited on.
fn read_input() -> Result<String, String> {
    let mut stdin = std::io::stdin();
    if stdin.is_terminal() {
        return Err("no hook input: standard input is a terminal".to_owned());
    }
    let mut bytes = Vec::new();
    stdin
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read the hook input: {e}"))?;
    String::from_utf8(bytes).map_err(|_| "the hook input is not UTF-8 text".to_owned())
}

/// Prints a hook's answer: the note on stderr, the decision JSON on stdout.
fn print(reply: &Reply) {
    if let Some(note) = &reply.stderr {
        eprintln!("{note}");
    }
    if let Some(json) = &reply.stdout {
        println!("{json}");
    }
}
