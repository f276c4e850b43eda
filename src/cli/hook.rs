//! `arbiter hook claude-code`: the hook input on stdin, Claude Code's decision JSON on stdout, exit code 0
//! always (Claude Code reads the JSON only on exit 0; an exit 2 would block the tool call on `PreToolUse`).

use std::ffi::OsString;
use std::io::{IsTerminal, Read};
use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::{Args, Subcommand, ValueEnum};

use crate::agent::AgentError;
use crate::agent::hook::{self, HookOptions, OnTimeout, PlanOptions, Reply, install};

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

/// Why `hook claude-code` (or its `install`) did not succeed.
#[derive(Debug)]
pub enum HookFailure {
    /// The hook could not ask: it answers `ask` (exit 0).
    Fallback(HookFallback),
    /// `install` could not write the settings.
    Install(AgentError),
}

impl From<HookFallback> for HookFailure {
    fn from(fallback: HookFallback) -> HookFailure {
        HookFailure::Fallback(fallback)
    }
}

#[derive(Debug, Subcommand)]
pub enum HookCommand {
    /// Claude Code hook for PermissionRequest (tool permissions, AskUserQuestion, ExitPlanMode), PreToolUse and
    /// Elicitation: asks the human, prints Claude Code's hook output. `install` writes it into Claude Code's
    /// settings.
    ClaudeCode(ClaudeCodeArgs),
}

#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct ClaudeCodeArgs {
    #[command(subcommand)]
    action: Option<ClaudeCodeAction>,
    #[command(flatten)]
    hook: HookArgs,
}

#[derive(Debug, Subcommand)]
enum ClaudeCodeAction {
    /// Writes the hook into Claude Code's settings (~/.claude/settings.json, or with --project the project's
    /// .claude/settings.local.json), merged with what is there; running it again changes nothing.
    Install(InstallArgs),
}

#[derive(Debug, Args)]
struct InstallArgs {
    /// Install for this project only (its .claude/settings.local.json, which git ignores), not for every project.
    #[arg(long, value_name = "DIR")]
    project: Option<PathBuf>,
    /// Print the settings file as it would be written, and write nothing.
    #[arg(long)]
    dry_run: bool,
    #[command(flatten)]
    hook: HookArgs,
}

/// How the hook asks: the same flags for the hook itself and for `install`, which writes them into its command.
#[derive(Debug, Args)]
struct HookArgs {
    /// How long to wait for the answer; `install` gives the hook a Claude Code `timeout` one minute longer.
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

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Fallback {
    Allow,
    Deny,
    Ask,
}

/// Asks the human and prints Claude Code's decision; what keeps it from asking is a [`HookFallback`], which
/// answers `ask`. `install` writes the hook into Claude Code's settings.
pub fn run(queue: Option<&Path>, command: HookCommand) -> Result<(), HookFailure> {
    let HookCommand::ClaudeCode(args) = command;
    if let Some(ClaudeCodeAction::Install(install)) = args.action {
        return self::install(queue, &install).map_err(HookFailure::Install);
    }
    let args = args.hook;
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

/// `hook claude-code install`: the hook command (this binary, the queue resolved now, the flags given) merged
/// into the settings file, written atomically; `--dry-run` prints the file instead.
fn install(queue: Option<&Path>, args: &InstallArgs) -> Result<(), AgentError> {
    let settings = match &args.project {
        Some(dir) => {
            if !dir.is_dir() {
                return Err(AgentError::Invalid(format!(
                    "--project {}: not a folder",
                    dir.display()
                )));
            }
            dir.join(".claude").join("settings.local.json")
        }
        None => {
            let home = std::env::var_os("HOME")
                .filter(|h| !h.is_empty())
                .ok_or_else(|| {
                    AgentError::Invalid("HOME is not set: pass --project DIR".to_owned())
                })?;
            PathBuf::from(home).join(".claude").join("settings.json")
        }
    };
    let queue_dir = crate::agent::resolve_queue_dir(queue, &crate::config::process_env)?;
    let queue_dir = std::path::absolute(&queue_dir).unwrap_or(queue_dir);
    let exe = std::env::current_exe().map_err(|source| AgentError::Io {
        path: PathBuf::from("arbiter"),
        source,
    })?;
    let hook = &args.hook;
    let mut command = format!(
        "{} --queue {} hook claude-code --timeout {}",
        install::shell_quote(&exe.to_string_lossy()),
        install::shell_quote(&queue_dir.to_string_lossy()),
        duration::format(hook.timeout)
    );
    if hook.on_timeout != Fallback::Ask {
        let value = hook
            .on_timeout
            .to_possible_value()
            .map(|v| v.get_name().to_owned());
        command.push_str(&format!(" --on-timeout {}", value.unwrap_or_default()));
    }
    if hook.priority != "high" {
        command.push_str(&format!(" --priority {}", hook.priority));
    }
    if let Some(tag) = &hook.tag {
        command.push_str(&format!(" --tag {}", install::shell_quote(tag)));
    }
    let existing = match std::fs::read_to_string(&settings) {
        Ok(text) => Some(text),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(source) => {
            return Err(AgentError::Io {
                path: settings,
                source,
            });
        }
    };
    // Claude Code kills a hook at its `timeout`: a minute more than the hook waits, so the hook answers first.
    let merged = install::merge(existing.as_deref(), &command, hook.timeout.as_secs() + 60)
        .map_err(|e| AgentError::Invalid(format!("{}: {e}", settings.display())))?;
    let summary: Vec<String> = merged
        .changes
        .iter()
        .map(|(event, change)| {
            let what = match change {
                install::Change::Added => "added",
                install::Change::Updated => "updated",
                install::Change::Unchanged => "already there",
            };
            format!("{event} ({what})")
        })
        .collect();
    if args.dry_run {
        super::print_out(&merged.text);
        eprintln!(
            "arbiter: would write {} ({}); nothing was written",
            settings.display(),
            summary.join(", ")
        );
        return Ok(());
    }
    if let Some(dir) = settings.parent() {
        std::fs::create_dir_all(dir).map_err(|source| AgentError::Io {
            path: dir.to_owned(),
            source,
        })?;
    }
    if existing.as_deref() != Some(merged.text.as_str()) {
        crate::queue::atomic::write_atomic(&settings, merged.text.as_bytes()).map_err(
            |source| AgentError::Io {
                path: settings.clone(),
                source,
            },
        )?;
    }
    super::print_out(&format!(
        "Claude Code hooks in {}: {}\nThe hook runs: {command}\n",
        settings.display(),
        summary.join(", ")
    ));
    Ok(())
}

/// Is this command line a `hook claude-code` call (whose argument errors must still answer)?
pub fn is_hook_call(args: impl IntoIterator<Item = OsString>) -> bool {
    let args: Vec<OsString> = args.into_iter().collect();
    args.windows(2)
        .position(|w| w[0] == "hook" && w[1] == "claude-code")
        .is_some_and(|at| args.get(at + 2).is_none_or(|next| next != "install"))
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
