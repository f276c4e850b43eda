//! The `arbiter` command line: one place parses arguments, runs a command and maps errors to exit codes.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use clap::{Parser, Subcommand};

use crate::agent::{self, AgentError};
use crate::queue::Queue;

use crate::plan::duration;

pub use error::{CliError, exit};

mod acp;
mod audit;
mod error;
mod history;
mod hook;
mod hook_flags;
mod hook_install;
mod init;
mod lint;
mod list;
mod notifications;
mod push;
mod remote;
mod rules;
mod run;
mod show;
mod stats;
mod table;
mod token;
mod wait;
mod web_login;
mod withdraw;

#[derive(Debug, Parser)]
#[command(
    name = "arbiter",
    version,
    about = "Ask a human for decisions over Telegram; answers land in the plan file."
)]
pub struct Cli {
    /// Queue folder for the agent commands (else ARBITER_QUEUE, the config's queue.dir, ~/.arbiter/queue).
    #[arg(long, global = true, value_name = "DIR")]
    pub queue: Option<PathBuf>,
    /// The owner's config file, where the daemon's is not ~/.arbiter/config.json (`arbiter run --config`); else
    /// ARBITER_CONFIG, else ARBITER_HOME/config.json.
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// The daemon of an agent on another machine (else ARBITER_SERVER): the agent commands, `mcp`, the hooks and
    /// `acp` reach it over HTTPS (http:// to a loopback address only) instead of a queue folder.
    #[arg(long, global = true, value_name = "URL")]
    pub server: Option<String>,
    /// The file holding this machine's token for --server (else ARBITER_TOKEN_FILE, else ARBITER_TOKEN; never the
    /// token itself on the command line).
    #[arg(long, global = true, value_name = "PATH")]
    pub token_file: Option<PathBuf>,
    /// The CA certificates (PEM) --server's certificate is checked against (else ARBITER_CA_FILE, else the
    /// system's roots).
    #[arg(long, global = true, value_name = "PATH")]
    pub ca_file: Option<PathBuf>,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the Telegram daemon (config: --config FILE, ARBITER_CONFIG, or ARBITER_HOME/config.json).
    Run,
    /// The whole loop offline: daemon + embedded fake Telegram + a scripted owner; prints every view.
    Demo {
        /// Also write the conversation as the owner's phone shows it, as one HTML page.
        #[arg(long, value_name = "FILE")]
        html: Option<PathBuf>,
    },
    /// First-time set-up: the arbiter home, config.json (mode 0600) and optionally a systemd user unit.
    Init(init::InitArgs),
    /// Check decision files and print what the daemon would report (exit 1 on any error).
    Lint {
        /// Plan files to check.
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Validate a plan (Markdown, or a JSON plan spec) and put it in the queue; prints its id.
    Push {
        /// The plan file; `-` (the default) reads standard input.
        #[arg(default_value = "-", value_name = "FILE|-")]
        file: PathBuf,
        /// Print `{"id": ..., "path": ...}`.
        #[arg(long)]
        json: bool,
        /// Push the next revision of plan ID (sent back for changes, or still pending): it keeps its id, the
        /// answers of unchanged decisions are carried over, the previous revision is kept in revisions/.
        #[arg(long, value_name = "ID")]
        revise: Option<String>,
    },
    /// A plan's status and counts (pending/ or completed/).
    Status {
        id: String,
        #[arg(long)]
        json: bool,
    },
    /// A plan's status and every decision's answer so far.
    Get {
        id: String,
        #[arg(long)]
        json: bool,
    },
    /// Wait until a plan is completed, then print its answers like `get` (exit 3 on timeout; exit 4 with the
    /// owner's feedback when the plan is sent back for changes).
    Await {
        id: String,
        /// Give up after this long: `90`, `30s`, `10m`, `2h`, `1h30m` (default: wait forever).
        #[arg(long, value_name = "DURATION", value_parser = duration::parse)]
        timeout: Option<Duration>,
        #[arg(long)]
        json: bool,
    },
    /// Take back a pending plan nobody needs to answer any more: `status: withdrawn`, out of pending/ into
    /// completed/, an audit line; the owner's views say it was withdrawn, `await` on it exits 5.
    Withdraw {
        id: String,
        /// Why, for the owner and the audit trail.
        #[arg(long, value_name = "TEXT")]
        reason: Option<String>,
        /// The agent taking it back (default: the plan's own `agent`).
        #[arg(long, value_name = "NAME")]
        agent: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// List the notification files of completed plans (all, or one session's).
    Notifications {
        /// Only this session's notifications.
        #[arg(long, value_name = "SESSION")]
        session: Option<String>,
        /// Delete the listed files after printing them.
        #[arg(long)]
        ack: bool,
        #[arg(long)]
        json: bool,
    },
    /// The pending queue as a table.
    List {
        #[arg(long)]
        json: bool,
    },
    /// Figures over the queue: completed plans in a period (counts, time to decide, by agent, tag and person,
    /// the slowest decisions) and the pending queue now.
    Stats {
        /// Start of the period: a duration back from now (`30d`, `12h`), an RFC 3339 time or a date
        /// (`2026-02-01`, midnight UTC). Default: 30d.
        #[arg(long, value_name = "D")]
        since: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// Print a one-time login link (10 minutes) for the web dashboard of the daemon running with this config.
    WebLogin {
        /// The Telegram user id to sign in as (one of telegram.allowedUsers).
        #[arg(long, value_name = "ID")]
        user: u64,
    },
    /// Serve the agent tools over MCP on standard input/output.
    Mcp,
    /// Search completed plans (titles, contexts, answers, notes, feedback), newest first.
    History {
        /// Only plans whose text contains this (case-insensitive).
        #[arg(long, value_name = "TEXT")]
        grep: Option<String>,
        /// Only this agent's plans.
        #[arg(long, value_name = "AGENT")]
        agent: Option<String>,
        /// Only plans completed at or after this: a duration back from now (`30d`), an RFC 3339 time or a date.
        #[arg(long, value_name = "D")]
        since: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// The audit trail: one hash-chained line per change to a plan, in `<queue>/audit/`.
    Audit {
        #[command(subcommand)]
        command: audit::AuditCommand,
    },
    /// Standing rules (`<queue>/rules.json`): the prompts answered without asking, made from the phone.
    Rules {
        #[command(subcommand)]
        command: rules::RulesCommand,
    },
    /// The ACP relay an editor starts as its agent (`arbiter acp -- gemini --acp`): the editor's permission
    /// requests and finished turns also on the phone; `acp run`: the agent with no editor, Arbiter its only client.
    Acp(acp::AcpArgs),
    /// The tokens of agents on other machines (`--server`): add one (printed once), list them, revoke one.
    Token {
        #[command(subcommand)]
        command: token::TokenCommand,
    },
    /// Hook commands for agent tools: the hook input on stdin, the decision on stdout.
    Hook {
        #[command(subcommand)]
        command: hook::HookCommand,
    },
}

/// Runs the command line and returns the process exit code.
#[must_use]
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if e.use_stderr() && hook::is_hook_call(std::env::args_os()) => {
            let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
            return CliError::from(hook::bad_arguments(&e, &args)).report();
        }
        Err(e) => e.exit(),
    };
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => e.report(),
    }
}

/// Runs one command; every failure comes back here, to be printed once by [`CliError::report`].
fn run(cli: Cli) -> Result<(), CliError> {
    let queue = At {
        queue: cli.queue.as_deref(),
        config: cli.config.as_deref(),
        remote: crate::remote::Flags {
            server: cli.server.as_deref(),
            token_file: cli.token_file.as_deref(),
            ca_file: cli.ca_file.as_deref(),
        },
    };
    let config = cli.config.clone();
    match cli.command {
        Command::Run => run::run(config),
        Command::Lint { files } => lint::run(&files, queue.config),
        Command::WebLogin { user } => Ok(web_login::run(config, user)?),
        Command::Init(args) => init::run(args, cli.queue),
        Command::Hook { command } => Ok(hook::run(queue, command)?),
        Command::Acp(args) => acp::run(queue, args),
        Command::Demo { html } => Ok(crate::demo::run(&mut std::io::stdout(), html.as_deref())?),
        Command::Push { file, json, revise } => push::run(queue, &file, json, revise.as_deref()),
        // The commands that may reach a daemon on another machine (`--server`): `remote` prints as they do.
        Command::Status { id, json } => match remote::server(queue)? {
            Some(server) => remote::status(&server, &id, json),
            None => show::status(queue, &id, json),
        },
        Command::Get { id, json } => match remote::server(queue)? {
            Some(server) => remote::get(&server, &id, json),
            None => show::get(queue, &id, json),
        },
        Command::Await { id, timeout, json } => wait::run(queue, &id, timeout, json),
        Command::Withdraw {
            id,
            reason,
            agent,
            json,
        } => match remote::server(queue)? {
            Some(server) => remote::withdraw(&server, &id, reason.as_deref(), json),
            None => withdraw::run(queue, &id, reason, agent.as_deref(), json),
        },
        Command::Notifications { session, ack, json } => match remote::server(queue)? {
            Some(server) => remote::notifications(&server, session.as_deref(), ack, json),
            None => notifications::run(queue, session.as_deref(), ack, json),
        },
        Command::List { json } => match remote::server(queue)? {
            Some(server) => remote::list(&server, json),
            None => list::run(queue, json),
        },
        Command::Stats { since, json } => stats::run(queue, since.as_deref(), json),
        Command::Audit { command } => audit::run(queue, command),
        Command::Rules { command } => rules::run(queue, command),
        Command::History {
            grep,
            agent,
            since,
            json,
        } => history::run(
            queue,
            grep.as_deref(),
            agent.as_deref(),
            since.as_deref(),
            json,
        ),
        Command::Mcp => match remote::server(queue)? {
            Some(server) => {
                crate::mcp::relay::run(&server)?;
                Ok(())
            }
            None => {
                open_queue(queue).and_then(crate::mcp::run)?;
                Ok(())
            }
        },
        Command::Token { command } => token::run(queue.config, command),
    }
}

/// Where a command finds the queue and the owner's config: the global `--queue` and `--config`.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct At<'a> {
    pub queue: Option<&'a Path>,
    pub config: Option<&'a Path>,
    /// `--server`, `--token-file`, `--ca-file`: a daemon on another machine instead of the queue.
    pub remote: crate::remote::Flags<'a>,
}

/// The owner's config file (`--config`, else ARBITER_CONFIG, else the arbiter home's) and its validated
/// contents; a missing file is named with where it was looked for.
fn load_config(
    config_path: Option<PathBuf>,
) -> Result<(PathBuf, crate::config::Config), crate::config::ConfigError> {
    use crate::config::{self, Config};
    let location = config::locate_config(config_path.as_deref(), &config::process_env)?;
    let cfg =
        Config::load(&location.path, &config::process_env).map_err(|e| location.explain(e))?;
    Ok((location.path, cfg))
}

/// Who the daemon may talk to and their names, from the owner's config (see [`load_config`]). Commands that can
/// do without it (an agent's machine may have no config) leave out what needs it.
fn configured_access(
    config: Option<&Path>,
) -> Result<crate::actions::Access, crate::config::ConfigError> {
    let (_, cfg) = load_config(config.map(Path::to_path_buf))?;
    Ok(
        crate::actions::Access::new(cfg.telegram.allowed_users.iter().copied())
            .with_people(cfg.people),
    )
}

/// The queue the agent commands use (see [`agent::resolve_queue_dir`]); missing folders are created. With the
/// owner's config (see [`load_config`]) it carries its members, whom a standing rule's maker must still be among
/// to answer; an agent's machine may have no config, and then nobody knows who is still allowed.
fn open_queue(at: At<'_>) -> Result<Queue, AgentError> {
    let dir = agent::resolve_queue_dir(at.queue, at.config, &crate::config::process_env)?;
    let queue = Queue::open(dir, true)?;
    Ok(match load_config(at.config.map(Path::to_path_buf)) {
        Ok((_, cfg)) => queue.with_members(crate::queue::Members {
            allowed: cfg.telegram.allowed_users.clone(),
            people: cfg.people.clone(),
        }),
        Err(_) => queue,
    })
}

/// Prints `value` as pretty JSON on stdout.
fn print_json(value: &impl serde::Serialize) -> Result<(), AgentError> {
    let text = serde_json::to_string_pretty(value)
        .map_err(|e| AgentError::Invalid(format!("cannot write JSON: {e}")))?;
    print_out(&format!("{text}\n"));
    Ok(())
}

/// Writes `text` to stdout; a reader that went away (`| head`) ends the output quietly instead of a panic.
fn print_out(text: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
}
