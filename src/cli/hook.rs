//! `arbiter hook AGENT`: the agent's hook input on stdin, its answer on stdout, exit code 0 always (agents read
//! the JSON only on exit 0; several read exit 2 as "block" or, on a finished turn, as "go on with stderr as the
//! next prompt", which loops). A bad argument or an unknown agent name answers "no decision" too.

use std::ffi::OsString;
use std::io::{IsTerminal, Read};
use std::path::Path;

use clap::{Args, Subcommand};

use crate::agent::AgentError;
use crate::agent::hook::{
    self, Dialect, HookOptions, OnTimeout, PlanOptions, Reply, dialect::answer_as,
};

use super::duration;
use super::hook_flags::{Fallback, HookArgs, InstallArgs};

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

/// Asks the human and prints the agent's answer; what keeps it from asking is a [`HookFallback`], which answers
/// "no decision". `install` writes the hooks into the agent's configuration.
pub fn run(queue: super::At<'_>, command: HookCommand) -> Result<(), HookFailure> {
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
        return super::hook_install::run(queue, dialect, &install).map_err(HookFailure::Install);
    }
    let event = args.event;
    let args = args.hook;
    let text = read_input().map_err(|reason| HookFallback {
        agent: Some(name),
        answer_as: answer_as(dialect, "", event.as_deref()),
        reason,
    })?;
    // Under `arbiter acp` the relay asks (the agent's ACP permission requests): the hook steps aside, so nothing is
    // asked twice.
    if std::env::var_os("ARBITER_ACP").is_some_and(|v| v == "1") {
        let reason = "the agent runs under `arbiter acp`, which asks instead (ARBITER_ACP=1)";
        print(&Reply::fallback(
            dialect,
            answer_as(dialect, &text, event.as_deref()),
            reason,
        ));
        return Ok(());
    }
    let fell_back = |reason: String| HookFallback {
        agent: Some(name),
        answer_as: answer_as(dialect, &text, event.as_deref()),
        reason,
    };
    let server = crate::remote::Server::from(queue.remote, &crate::remote::process_env)
        .map_err(|e| fell_back(e.to_string()))?;
    if let Some(server) = server {
        // A call that needs no one needs no daemon either.
        if matches!(
            dialect.parse(&text, event.as_deref()),
            Ok(hook::core::Prompt::Pass)
        ) {
            return Ok(());
        }
        let request = crate::remote::hook::HookRequest {
            agent: name.to_owned(),
            event: event.clone(),
            input: text.clone(),
            files: hook::core::files::Sent::default(),
            flags: crate::remote::hook::Flags {
                timeout_seconds: args.timeout.as_secs(),
                stop_timeout_seconds: args.stop_timeout.as_secs(),
                on_timeout: match args.on_timeout {
                    Fallback::Allow => "allow",
                    Fallback::Deny => "deny",
                    Fallback::Ask => "ask",
                }
                .to_owned(),
                priority: args.priority,
                tag: args.tag,
            },
        };
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| fell_back(format!("cannot start the tokio runtime: {e}")))?;
        let answer_as = answer_as(dialect, &text, event.as_deref());
        print(&runtime.block_on(crate::remote::hook::ask(
            &server, dialect, answer_as, request,
        )));
        return Ok(());
    }
    let options = HookOptions {
        timeout: args.timeout,
        timeout_label: duration::say(args.timeout, duration::Style::Written),
        on_timeout: match args.on_timeout {
            Fallback::Allow => OnTimeout::Allow,
            Fallback::Deny => OnTimeout::Deny,
            Fallback::Ask => OnTimeout::Ask,
        },
        stop_timeout: args.stop_timeout,
        stop_timeout_label: duration::say(args.stop_timeout, duration::Style::Written),
        plan: PlanOptions {
            priority: Some(args.priority),
            tag: args.tag,
            deadline: Some(duration::say(args.timeout, duration::Style::Written)),
            grant_minutes: configured_grant_minutes(queue.config),
            machine: None,
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

/// The config's `rules.grantMinutes`, read leniently (an agent's machine may have no valid daemon config): what
/// `⏱ Allow <agent> for N min` offers, the longest grant the daemon makes.
fn configured_grant_minutes(config: Option<&Path>) -> Option<u32> {
    use crate::config;
    let location = config::locate_config(config, &config::process_env).ok()?;
    let text = std::fs::read_to_string(location.path).ok()?;
    let value: serde_json::Value = serde_json::from_str(&text).ok()?;
    let minutes = value.get("rules")?.get("grantMinutes")?.as_u64()?;
    u32::try_from(minutes)
        .ok()
        .filter(|m| (1..=1440).contains(m))
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
