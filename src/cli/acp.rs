//! `arbiter acp`: the relay an editor starts as its agent (`arbiter acp -- gemini --acp`), and `arbiter acp run`,
//! the same agent with no editor. The relay's exit code is the agent's.

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Subcommand};

use crate::agent::acp::{self, Mode, Settings};
use crate::agent::hook::{HookOptions, OnTimeout, PlanOptions};

use super::{CliError, duration};

#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct AcpArgs {
    #[command(subcommand)]
    headless: Option<AcpCommand>,
    #[command(flatten)]
    beside: BesideArgs,
}

#[derive(Debug, Subcommand)]
enum AcpCommand {
    /// Runs the agent with no editor: every permission request and every finished turn on the phone; `🏁 Done`
    /// ends the session and stops the agent.
    Run(RunArgs),
}

#[derive(Debug, Args)]
struct BesideArgs {
    /// How long the editor has to answer a permission request, or to follow a finished turn, before the phone is
    /// asked too (`0s`: at once).
    #[arg(long, value_name = "DURATION", value_parser = duration::parse, default_value = "15s")]
    phone_after: Duration,
    #[command(flatten)]
    common: Common,
    /// The agent's command and its arguments, after `--`.
    #[arg(last = true, required = true, value_name = "CMD")]
    command: Vec<String>,
}

#[derive(Debug, Args)]
struct RunArgs {
    /// The session's folder (default: the current folder).
    #[arg(long, value_name = "DIR")]
    cwd: Option<PathBuf>,
    /// The first instruction (default: asked on the phone).
    #[arg(long, value_name = "TEXT")]
    prompt: Option<String>,
    #[command(flatten)]
    common: Common,
    /// The agent's command and its arguments, after `--`.
    #[arg(last = true, required = true, value_name = "CMD")]
    command: Vec<String>,
}

#[derive(Debug, Args)]
struct Common {
    /// The agent's name on the phone (default: the `agentInfo.name` it gives).
    #[arg(long, value_name = "NAME")]
    agent_name: Option<String>,
    /// How long a permission request waits on the phone.
    #[arg(long, value_name = "DURATION", value_parser = duration::parse, default_value = "1h")]
    timeout: Duration,
    /// How long a finished card ("What next?") waits.
    #[arg(long, value_name = "DURATION", value_parser = duration::parse, default_value = "10m")]
    stop_timeout: Duration,
}

impl Common {
    fn hook(&self) -> HookOptions {
        HookOptions {
            timeout: self.timeout,
            timeout_label: duration::say(self.timeout, duration::Style::Written),
            on_timeout: OnTimeout::Ask,
            stop_timeout: self.stop_timeout,
            stop_timeout_label: duration::say(self.stop_timeout, duration::Style::Written),
            plan: PlanOptions {
                priority: Some("high".to_owned()),
                tag: None,
                deadline: Some(duration::say(self.timeout, duration::Style::Written)),
                grant_minutes: None,
                machine: None,
            },
        }
    }
}

/// Runs the relay; exits with the agent's code.
pub fn run(queue: super::At<'_>, args: AcpArgs) -> Result<(), CliError> {
    // Not yet over HTTP: refused, rather than quietly asking through a local queue nobody reads.
    let remote = queue
        .remote
        .server
        .map(str::to_owned)
        .or_else(|| crate::remote::process_env("ARBITER_SERVER"));
    if let Some(server) = remote.filter(|s| !s.trim().is_empty()) {
        return Err(CliError::Acp(format!(
            "--server {server}: `arbiter acp` does not reach a daemon on another machine yet; run it where the \
             daemon runs, or ask through the agent's hooks (`arbiter hook AGENT install --server …`)"
        )));
    }
    let (settings, command) = match args.headless {
        Some(AcpCommand::Run(run)) => {
            let cwd = match run.cwd {
                Some(cwd) => cwd,
                None => std::env::current_dir()
                    .map_err(|e| CliError::Acp(format!("cannot read the current folder: {e}")))?,
            };
            let cwd = std::fs::canonicalize(&cwd)
                .map_err(|e| CliError::Acp(format!("--cwd {}: {e}", cwd.display())))?;
            let queue = phone_queue(queue)
                .map_err(|why| CliError::Acp(format!("arbiter acp run needs the phone: {why}")))?;
            let settings = Settings {
                mode: Mode::Headless {
                    cwd: cwd.to_string_lossy().into_owned(),
                    prompt: run.prompt,
                },
                agent_name: run.common.agent_name.clone(),
                queue: Some(queue),
                hook: run.common.hook(),
            };
            (settings, run.command)
        }
        None => {
            let beside = args.beside;
            let queue = match phone_queue(queue) {
                Ok(queue) => Some(queue),
                Err(why) => {
                    eprintln!("arbiter acp: {why}: a plain relay, the editor answers everything");
                    None
                }
            };
            let settings = Settings {
                mode: Mode::Beside {
                    phone_after: beside.phone_after,
                },
                agent_name: beside.common.agent_name.clone(),
                queue,
                hook: beside.common.hook(),
            };
            (settings, beside.command)
        }
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| CliError::Acp(format!("cannot start the tokio runtime: {e}")))?;
    let code = runtime.block_on(acp::run(settings, &command));
    // The editor's stdin may still be read by a blocking thread: not waited for.
    runtime.shutdown_background();
    if code != 0 {
        std::process::exit(code);
    }
    Ok(())
}

/// The queue a daemon serves, or why the phone can't be asked.
fn phone_queue(flag: super::At<'_>) -> Result<crate::queue::Queue, String> {
    let queue = super::open_queue(flag).map_err(|e| format!("the queue is unreachable: {e}"))?;
    match crate::agent::hook::core::nobody_to_ask(&queue) {
        Some(why) => Err(why),
        None => Ok(queue),
    }
}
