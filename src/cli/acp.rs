//! `arbiter acp`: the relay an editor starts as its agent (`arbiter acp -- gemini --acp`), and `arbiter acp run`,
//! the same agent with no editor. The relay's exit code is the agent's.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use clap::{Args, Subcommand};

use crate::agent::acp::{self, Here, Mode, Phone, Settings};
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
    let server = crate::remote::Server::from(queue.remote, &crate::remote::process_env)
        .map_err(|e| CliError::Acp(e.to_string()))?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| CliError::Acp(format!("cannot start the tokio runtime: {e}")))?;
    let (headless, common) = match &args.headless {
        Some(AcpCommand::Run(run)) => (true, &run.common),
        None => (false, &args.beside.common),
    };
    let hook = common.hook();
    // Where the owner is asked: the daemon on another machine, or the queue of the one here.
    let phone: Result<Arc<dyn Phone>, String> = match server {
        Some(server) => runtime
            .block_on(crate::remote::acp::Daemon::reached(server, &hook))
            .map(|daemon| Arc::new(daemon) as Arc<dyn Phone>),
        None => phone_queue(queue).map(|queue| Arc::new(Here(queue)) as Arc<dyn Phone>),
    };
    let phone = match phone {
        Ok(phone) => Some(phone),
        Err(why) if headless => {
            return Err(CliError::Acp(format!(
                "arbiter acp run needs the phone: {why}"
            )));
        }
        Err(why) => {
            eprintln!("arbiter acp: {why}: a plain relay, the editor answers everything");
            None
        }
    };
    let (settings, command) = match args.headless {
        Some(AcpCommand::Run(run)) => {
            let cwd = match run.cwd {
                Some(cwd) => cwd,
                None => std::env::current_dir()
                    .map_err(|e| CliError::Acp(format!("cannot read the current folder: {e}")))?,
            };
            let cwd = std::fs::canonicalize(&cwd)
                .map_err(|e| CliError::Acp(format!("--cwd {}: {e}", cwd.display())))?;
            let settings = Settings {
                mode: Mode::Headless {
                    cwd: cwd.to_string_lossy().into_owned(),
                    prompt: run.prompt,
                },
                agent_name: run.common.agent_name.clone(),
                phone,
                hook,
            };
            (settings, run.command)
        }
        None => {
            let beside = args.beside;
            let settings = Settings {
                mode: Mode::Beside {
                    phone_after: beside.phone_after,
                },
                agent_name: beside.common.agent_name.clone(),
                phone,
                hook,
            };
            (settings, beside.command)
        }
    };
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
