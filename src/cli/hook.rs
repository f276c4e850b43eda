//! `arbiter hook AGENT`: the agent's hook input on stdin, its answer on stdout, exit code 0 always (agents read
//! the JSON only on exit 0; several read exit 2 as "block" or, on a finished turn, as "go on with stderr as the
//! next prompt", which loops). A bad argument or an unknown agent name answers "no decision" too.

use std::ffi::OsString;
use std::io::{IsTerminal, Read};
use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::{Args, Subcommand, ValueEnum};

use crate::agent::AgentError;
use crate::agent::hook::install::{self, Entry, Layout, Unit};
use crate::agent::hook::{
    self, Dialect, HookOptions, OnTimeout, PlanOptions, Reply, dialect::answer_as,
};

use super::duration;

/// What kept the hook from asking (`reason`): it answers the agent's "no decision", in the format of
/// `answer_as`.
#[derive(Debug, thiserror::Error)]
#[error("{reason}")]
pub struct HookFallback {
    /// The agent's name; `None` when the command line names no agent this hook knows.
    agent: Option<&'static str>,
    answer_as: Option<hook::Event>,
    reason: String,
}

impl HookFallback {
    /// Prints the fallback answer, as any answer is printed.
    pub fn print(&self) {
        match self.agent.and_then(hook::named) {
            Some(dialect) => print(&Reply::fallback(dialect, self.answer_as, &self.reason)),
            None => eprintln!("arbiter: {}; no decision", self.reason),
        }
    }
}

/// Why `hook AGENT` (or its `install`) did not succeed.
#[derive(Debug)]
pub enum HookFailure {
    /// The hook could not ask: it answers "no decision" (exit 0).
    Fallback(HookFallback),
    /// `install` could not write the hook configuration.
    Install(AgentError),
}

impl From<HookFallback> for HookFailure {
    fn from(fallback: HookFallback) -> HookFailure {
        HookFailure::Fallback(fallback)
    }
}

#[derive(Debug, Subcommand)]
pub enum HookCommand {
    /// Claude Code: PermissionRequest (tool permissions, AskUserQuestion, ExitPlanMode), PreToolUse, Elicitation
    /// and Stop. `install` writes it into Claude Code's settings.
    ClaudeCode(AgentArgs),
    /// Codex: PermissionRequest (commands, patches), PreToolUse (request_user_input) and Stop. `install` writes
    /// it into $CODEX_HOME/hooks.json.
    Codex(AgentArgs),
    /// Gemini CLI: BeforeTool (shell, file writes and edits, ask_user) and AfterAgent. `install` writes it into
    /// Gemini's settings; run Gemini with --approval-mode yolo.
    Gemini(AgentArgs),
    /// Qwen Code: PermissionRequest, PreToolUse (ask_user_question) and Stop. `install` writes it into Qwen's
    /// settings.
    Qwen(AgentArgs),
    /// GitHub Copilot CLI: permissionRequest, preToolUse (ask_user) and agentStop. `install` writes
    /// .github/hooks/arbiter.json.
    Copilot(AgentArgs),
}

impl HookCommand {
    fn split(self) -> (&'static str, AgentArgs) {
        match self {
            HookCommand::ClaudeCode(args) => ("claude-code", args),
            HookCommand::Codex(args) => ("codex", args),
            HookCommand::Gemini(args) => ("gemini", args),
            HookCommand::Qwen(args) => ("qwen", args),
            HookCommand::Copilot(args) => ("copilot", args),
        }
    }
}

#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct AgentArgs {
    #[command(subcommand)]
    action: Option<AgentAction>,
    #[command(flatten)]
    hook: HookArgs,
    /// The hook event this call answers, for an agent whose input names none (`install` writes it).
    #[arg(long, value_name = "NAME")]
    event: Option<String>,
}

#[derive(Debug, Subcommand)]
enum AgentAction {
    /// Writes the hooks into the agent's configuration (its user-wide file, or with --project the project's),
    /// merged with what is there; running it again changes nothing.
    Install(InstallArgs),
}

#[derive(Debug, Args)]
struct InstallArgs {
    /// Install for this project only (Claude Code: .claude/settings.local.json; Codex: .codex/hooks.json; Gemini:
    /// .gemini/settings.json; Qwen: .qwen/settings.json; Copilot: .github/hooks/arbiter.json, in the current
    /// folder by default).
    #[arg(long, value_name = "DIR")]
    project: Option<PathBuf>,
    /// Print the file as it would be written, and write nothing.
    #[arg(long)]
    dry_run: bool,
    /// Leave out the finished hook ("What next?" when the agent ends its turn); one installed before is taken out.
    #[arg(long)]
    no_stop: bool,
    #[command(flatten)]
    hook: HookArgs,
}

/// How the hook asks: the same flags for the hook itself and for `install`, which writes them into its command.
#[derive(Debug, Args)]
struct HookArgs {
    /// How long to wait for an answer to a prompt; `install` gives the hook a timeout one minute longer.
    #[arg(long, value_name = "DURATION", value_parser = duration::parse, default_value = "9m")]
    timeout: Duration,
    /// How long a finished card ("What next?") waits; then the agent stops.
    #[arg(long, value_name = "DURATION", value_parser = duration::parse, default_value = "10m")]
    stop_timeout: Duration,
    /// What to answer when the time is up; `ask` falls back to the agent's own prompt (a deny where it has none).
    #[arg(long, value_enum, default_value_t = Fallback::Ask)]
    on_timeout: Fallback,
    /// The question's priority.
    #[arg(long, value_parser = ["low", "normal", "high", "urgent"], default_value = "high")]
    priority: String,
    /// The question's tag (default: the project's folder name).
    #[arg(long)]
    tag: Option<String>,
}

const DEFAULT_STOP_TIMEOUT: Duration = Duration::from_secs(600);

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Fallback {
    Allow,
    Deny,
    Ask,
}

/// Asks the human and prints the agent's answer; what keeps it from asking is a [`HookFallback`], which answers
/// "no decision". `install` writes the hooks into the agent's configuration.
pub fn run(queue: Option<&Path>, command: HookCommand) -> Result<(), HookFailure> {
    let (name, args) = command.split();
    let Some(dialect) = hook::named(name) else {
        return Err(HookFallback {
            agent: None,
            answer_as: None,
            reason: format!("`{name}` is not an agent this hook knows"),
        }
        .into());
    };
    if let Some(AgentAction::Install(install)) = args.action {
        return self::install(queue, dialect, &install).map_err(HookFailure::Install);
    }
    let event = args.event;
    let args = args.hook;
    let text = read_input().map_err(|reason| HookFallback {
        agent: Some(name),
        answer_as: answer_as(dialect, "", event.as_deref()),
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
        stop_timeout: args.stop_timeout,
        stop_timeout_label: duration::format(args.stop_timeout),
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
            agent: Some(name),
            answer_as: answer_as(dialect, &text, event.as_deref()),
            reason: format!("cannot start the tokio runtime: {e}"),
        })?;
    let open = || super::open_queue(queue);
    print(&runtime.block_on(hook::answer(
        dialect,
        &text,
        event.as_deref(),
        open,
        &options,
    )));
    Ok(())
}

/// `hook AGENT install`: the hook commands (this binary, the queue resolved now, the flags given) merged into the
/// agent's hook file, written atomically; `--dry-run` prints the file instead.
fn install(
    queue: Option<&Path>,
    dialect: &dyn Dialect,
    args: &InstallArgs,
) -> Result<(), AgentError> {
    let agent = dialect.agent();
    let spec = dialect.install();
    let file = hook_file(&spec, args.project.as_deref())?;
    let queue_dir = crate::agent::resolve_queue_dir(queue, &crate::config::process_env)?;
    let queue_dir = std::path::absolute(&queue_dir).unwrap_or(queue_dir);
    let exe = std::env::current_exe().map_err(|source| AgentError::Io {
        path: PathBuf::from("arbiter"),
        source,
    })?;
    let hook = &args.hook;
    let mut command = format!(
        "{} --queue {} hook {} --timeout {}",
        install::shell_quote(&exe.to_string_lossy()),
        install::shell_quote(&queue_dir.to_string_lossy()),
        agent.name,
        duration::format(hook.timeout)
    );
    if hook.stop_timeout != DEFAULT_STOP_TIMEOUT {
        command.push_str(&format!(
            " --stop-timeout {}",
            duration::format(hook.stop_timeout)
        ));
    }
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
    // The agent kills a hook at its timeout: a minute more than the hook waits, so the hook answers first.
    let in_unit = |wait: Duration| {
        let secs = wait.as_secs() + 60;
        match spec.layout {
            Layout::Groups {
                unit: Unit::Milliseconds,
            } => secs * 1000,
            Layout::Groups {
                unit: Unit::Seconds,
            }
            | Layout::Flat => secs,
        }
    };
    let entries: Vec<Entry> = spec
        .hooks
        .iter()
        .map(|h| Entry {
            event: h.event,
            matcher: h.matcher,
            command: if spec.pass_event {
                format!("{command} --event {}", h.event)
            } else {
                command.clone()
            },
            timeout: in_unit(if h.finished {
                hook.stop_timeout
            } else {
                hook.timeout
            }),
            remove: h.finished && args.no_stop,
        })
        .collect();
    let existing = match std::fs::read_to_string(&file) {
        Ok(text) => Some(text),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(source) => return Err(AgentError::Io { path: file, source }),
    };
    let mark = format!(" hook {} ", agent.name);
    let merged = install::merge(existing.as_deref(), &spec, &mark, &entries)
        .map_err(|e| AgentError::Invalid(format!("{}: {e}", file.display())))?;
    let summary: Vec<String> = merged
        .changes
        .iter()
        .map(|(event, change)| {
            let what = match change {
                install::Change::Added => "added",
                install::Change::Updated => "updated",
                install::Change::Unchanged => "already there",
                install::Change::Removed => "removed",
            };
            format!("{event} ({what})")
        })
        .collect();
    if args.dry_run {
        super::print_out(&merged.text);
        eprintln!(
            "arbiter: would write {} ({}); nothing was written",
            file.display(),
            summary.join(", ")
        );
        return Ok(());
    }
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir).map_err(|source| AgentError::Io {
            path: dir.to_owned(),
            source,
        })?;
    }
    if existing.as_deref() != Some(merged.text.as_str()) {
        crate::queue::atomic::write_atomic(&file, merged.text.as_bytes()).map_err(|source| {
            AgentError::Io {
                path: file.clone(),
                source,
            }
        })?;
    }
    let mut out = format!(
        "{} hooks in {}: {}\nThe hook runs: {command}{}\n",
        agent.display,
        file.display(),
        summary.join(", "),
        if spec.pass_event {
            " --event EVENT"
        } else {
            ""
        }
    );
    for note in spec.notes {
        out.push_str(note);
        out.push('\n');
    }
    super::print_out(&out);
    Ok(())
}

/// The file `install` writes: the project's (`--project DIR`; Copilot's hooks live only there, in the current
/// folder by default), else the user's.
fn hook_file(spec: &install::Install, project: Option<&Path>) -> Result<PathBuf, AgentError> {
    let project = match (project, &spec.user_file) {
        (Some(dir), _) => Some(dir.to_owned()),
        (None, None) => Some(std::env::current_dir().map_err(|source| AgentError::Io {
            path: PathBuf::from("."),
            source,
        })?),
        (None, Some(_)) => None,
    };
    if let Some(dir) = project {
        if !dir.is_dir() {
            return Err(AgentError::Invalid(format!(
                "--project {}: not a folder",
                dir.display()
            )));
        }
        return Ok(dir.join(spec.project_file));
    }
    let Some(user) = &spec.user_file else {
        return Err(AgentError::Invalid("pass --project DIR".to_owned()));
    };
    if let Some(var) = user.env
        && let Some(dir) = std::env::var_os(var).filter(|d| !d.is_empty())
    {
        return Ok(PathBuf::from(dir).join(user.file));
    }
    let home = std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .ok_or_else(|| AgentError::Invalid("HOME is not set: pass --project DIR".to_owned()))?;
    Ok(PathBuf::from(home).join(user.default).join(user.file))
}

/// Is this command line a `hook AGENT` call (whose argument errors must still answer)? `hook AGENT install` is
/// not: a person runs it.
pub fn is_hook_call(args: impl IntoIterator<Item = OsString>) -> bool {
    let args: Vec<OsString> = args.into_iter().collect();
    args.windows(2)
        .position(|w| w[0] == "hook" && !w[1].to_string_lossy().starts_with('-'))
        .is_some_and(|at| args.get(at + 2).is_none_or(|next| next != "install"))
}

/// A command line error of `hook AGENT` (an unknown agent, a typo in a flag) answers "no decision" too, so a typo
/// in the agent's settings does not block every tool call, nor let one through.
#[must_use]
pub fn bad_arguments(error: &clap::Error, args: &[OsString]) -> HookFallback {
    let message = error.to_string();
    let first = message.lines().next().unwrap_or_default();
    let at = args.iter().position(|a| a == "hook");
    let name = at
        .and_then(|at| args.get(at + 1))
        .map(|a| a.to_string_lossy().into_owned())
        .unwrap_or_default();
    let event = args.iter().enumerate().find_map(|(i, a)| {
        let a = a.to_string_lossy();
        match a.strip_prefix("--event=") {
            Some(value) => Some(value.to_owned()),
            None if a == "--event" => args.get(i + 1).map(|v| v.to_string_lossy().into_owned()),
            None => None,
        }
    });
    let text = read_input().unwrap_or_default();
    let dialect = hook::named(&name).or_else(|| guess(&text));
    let reason = match hook::named(&name) {
        Some(_) => format!(
            "bad arguments to `arbiter hook {name}`: {}",
            first.trim_start_matches("error: ")
        ),
        None => format!(
            "`{name}` is not an agent `arbiter hook` knows (it knows {})",
            hook::NAMES.join(", ")
        ),
    };
    HookFallback {
        agent: dialect.map(|d| d.agent().name),
        answer_as: dialect.and_then(|d| answer_as(d, &text, event.as_deref())),
        reason,
    }
}

/// The agent an input comes from, where its "no decision" must be a deny: Gemini's `BeforeTool` (run with
/// `--approval-mode yolo`, printing nothing would let the call through). Any other agent shows its own prompt when
/// the hook prints nothing.
fn guess(text: &str) -> Option<&'static dyn Dialect> {
    let value: serde_json::Value = serde_json::from_str(text).ok()?;
    (value.get("hook_event_name")?.as_str()? == "BeforeTool").then(|| hook::named("gemini"))?
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
