//! Why a command did not succeed, and the one place that prints it and picks the exit code.

use std::process::ExitCode;

use crate::agent::AgentError;
use crate::config::ConfigError;
use crate::daemon::DaemonError;
use crate::demo::DemoError;
use crate::init::InitError;

use super::hook::{HookFailure, HookFallback};
use super::web_login::WebLoginError;

/// Exit codes every command shares (documented in README).
pub mod exit {
    /// Something failed at run time: I/O, an unknown id, the daemon could not start; `lint` found a problem.
    pub const FAILURE: u8 = 1;
    /// The input was invalid: bad arguments, a plan that does not validate (nothing was written).
    pub const INVALID: u8 = 2;
    /// `arbiter await` reached its timeout before the plan was completed.
    pub const TIMEOUT: u8 = 3;
    /// `arbiter await`: the owner sent the plan back with feedback (`status: changes_requested`); revise it with
    /// `arbiter push --revise`.
    pub const CHANGES_REQUESTED: u8 = 4;
    /// `arbiter await`: the plan's agent took it back unanswered (`arbiter withdraw`).
    pub const WITHDRAWN: u8 = 5;
    /// `arbiter hook AGENT` could not ask and answered the agent's "no decision": agents read the answer only on
    /// exit 0 (and several read exit 2 as "block", or on a finished turn as "go on with stderr", which loops).
    pub const HOOK_FELL_BACK: u8 = 0;
}

/// A command's failure. Its text (after `arbiter: `) is what the user reads; [`CliError::exit_code`] is the one
/// map from failures to exit codes.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    #[error(transparent)]
    Agent(#[from] AgentError),
    /// Finding or reading config.json (`run`, `web-login`).
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error("can't start the async runtime: {0}")]
    Runtime(std::io::Error),
    #[error(transparent)]
    Daemon(#[from] DaemonError),
    #[error(transparent)]
    Init(#[from] InitError),
    #[error(transparent)]
    Demo(#[from] DemoError),
    #[error(transparent)]
    WebLogin(#[from] WebLoginError),
    /// `lint` found problems in `0` file(s); each was printed as it was found.
    #[error("{0} file(s) have problems")]
    Lint(usize),
    /// `await` gave up; the text says how far the plan got.
    #[error("{0}")]
    TimedOut(String),
    /// `await`: the plan was sent back; the text holds the feedback.
    #[error("{0}")]
    ChangesRequested(String),
    /// `await`: the plan was withdrawn; the text says by whom and why.
    #[error("{0}")]
    Withdrawn(String),
    /// `audit verify` (or `export`) found the chain broken.
    #[error(transparent)]
    Audit(#[from] crate::queue::audit::Broken),
    /// `hook AGENT` could not do its work and answers the agent's "no decision".
    #[error(transparent)]
    Hook(#[from] HookFallback),
    /// `rules`: no such rule, a rule that can't be changed so, a `rules.json` that does not read.
    #[error("{0}")]
    Rules(String),
    /// `acp`: the relay could not start (a bad folder, no daemon for `acp run`).
    #[error("{0}")]
    Acp(String),
    /// `token`: a bad machine name, a name taken or unknown, a token file that does not read.
    #[error(transparent)]
    Token(#[from] crate::mcp::machines::MachinesError),
    /// An agent command against a daemon on another machine (`--server`) failed: the line names the URL and why.
    #[error(transparent)]
    Remote(#[from] crate::remote::RemoteError),
}

impl From<HookFailure> for CliError {
    fn from(e: HookFailure) -> CliError {
        match e {
            HookFailure::Fallback(fallback) => CliError::Hook(fallback),
            HookFailure::Install(e) => CliError::Agent(e),
        }
    }
}

/// A queue failure of an agent command reads as it always has, through [`AgentError`].
impl From<crate::queue::StoreError> for CliError {
    fn from(e: crate::queue::StoreError) -> CliError {
        CliError::Agent(e.into())
    }
}

impl CliError {
    /// The process exit code for this failure.
    #[must_use]
    pub fn exit_code(&self) -> u8 {
        match self {
            CliError::Agent(e) if e.is_invalid_input() => exit::INVALID,
            CliError::Init(
                InitError::NoUsers
                | InitError::InvalidUser(_)
                | InitError::InvalidToken
                | InitError::InvalidApiUrl(_),
            ) => exit::INVALID,
            CliError::WebLogin(e) if e.is_invalid_input() => exit::INVALID,
            CliError::Acp(_) | CliError::Remote(_) => exit::INVALID,
            CliError::Token(crate::mcp::machines::MachinesError::BadName(_)) => exit::INVALID,
            CliError::TimedOut(_) => exit::TIMEOUT,
            CliError::ChangesRequested(_) => exit::CHANGES_REQUESTED,
            CliError::Withdrawn(_) => exit::WITHDRAWN,
            CliError::Hook(_) => exit::HOOK_FELL_BACK,
            CliError::Agent(_)
            | CliError::Config(_)
            | CliError::Runtime(_)
            | CliError::Daemon(_)
            | CliError::Init(_)
            | CliError::Demo(_)
            | CliError::WebLogin(_)
            | CliError::Audit(_)
            | CliError::Rules(_)
            | CliError::Token(_)
            | CliError::Lint(_) => exit::FAILURE,
        }
    }

    /// Prints the failure (stderr; a hook's fallback answer goes to stdout) and returns its exit code.
    #[must_use]
    pub fn report(&self) -> ExitCode {
        match self {
            // Each problem was printed as its file was checked: that is lint's whole output.
            CliError::Lint(_) => {}
            CliError::Hook(fallback) => fallback.print(),
            e => eprintln!("arbiter: {e}"),
        }
        ExitCode::from(self.exit_code())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn input_errors_exit_2_timeouts_3_hook_fallbacks_0_the_rest_1() {
        let cases = [
            (CliError::Agent(AgentError::Invalid("bad".into())), 2),
            (CliError::Init(InitError::NoUsers), 2),
            (CliError::WebLogin(WebLoginError::NotAllowed(666)), 2),
            (CliError::TimedOut("timed out".into()), 3),
            (CliError::ChangesRequested("changes requested".into()), 4),
            (CliError::Withdrawn("withdrawn".into()), 5),
            (CliError::Agent(AgentError::NoQueue), 1),
            (CliError::Config(ConfigError::NoHome), 1),
            (CliError::Lint(2), 1),
            (CliError::Demo(DemoError::Step("x".into())), 1),
        ];
        for (error, code) in cases {
            assert_eq!(error.exit_code(), code, "{error:?}");
        }
    }
}
