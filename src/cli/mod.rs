//! The `arbiter` command line: one place parses arguments, runs a command and maps errors to exit codes.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod lint;
mod run;

/// Exit codes every command shares (documented in README).
pub mod exit {
    /// Something failed at run time: I/O, an unknown id, the daemon could not start.
    pub const FAILURE: u8 = 1;
    /// The input was invalid: bad arguments, a plan that does not validate (nothing was written).
    pub const INVALID: u8 = 2;
    /// `arbiter await` reached its timeout before the plan was completed.
    pub const TIMEOUT: u8 = 3;
}

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
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the Telegram daemon (config: ~/.arbiter/config.json, or ARBITER_HOME/config.json).
    Run {
        /// Config file to use instead of the default.
        #[arg(long, value_name = "FILE")]
        config: Option<PathBuf>,
    },
    /// The whole loop offline: daemon + embedded fake Telegram + a scripted owner; prints every view.
    Demo,
    /// Check decision files and print what the daemon would report (exit 1 on any error).
    Lint {
        /// Plan files to check.
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
}

/// Runs the command line and returns the process exit code.
#[must_use]
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Run { config } => run::run(config),
        Command::Lint { files } => lint::run(&files),
        Command::Demo => match crate::demo::run(&mut std::io::stdout()) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("arbiter: {e}");
                ExitCode::from(exit::FAILURE)
            }
        },
    }
}
