//! `arbiter init`: the flags mapped onto [`crate::init::init`].

use std::path::PathBuf;
use std::time::Duration;

use crate::agent::AgentError;

use crate::config::process_env;
use crate::init::{self, InitOptions, TerminalIo, UserNamespaces};

use super::CliError;

/// The flags of `arbiter init` (plus the global `--queue`).
#[derive(Debug, clap::Args)]
pub struct InitArgs {
    /// Bot token from @BotFather; an empty value keeps it out of config.json (use ARBITER_TELEGRAM_TOKEN).
    /// Asked for when missing and stdin is a terminal. A flag lands in shell history: prefer the prompt.
    #[arg(long, value_name = "TOKEN")]
    token: Option<String>,
    /// Telegram user id allowed to use the bot (repeatable). Without it init pairs: it prints a link to the
    /// bot, and whoever opens it and presses Start in a private chat within 10 minutes becomes the owner.
    #[arg(long = "user", value_name = "ID")]
    users: Vec<u64>,
    /// Pair even with --user given (the paired user is added to those).
    #[arg(long)]
    pair: bool,
    /// Bot API base URL (default Telegram's).
    #[arg(long, value_name = "URL")]
    api_url: Option<String>,
    /// Also install the systemd user unit arbiter.service.
    #[arg(long)]
    systemd: bool,
    /// Replace an existing config.json / unit file.
    #[arg(long)]
    force: bool,
}

pub fn run(args: InitArgs, queue: Option<PathBuf>) -> Result<(), CliError> {
    let pair_ttl = pair_ttl(&process_env)?;
    let report = InitOptions::from_env(&process_env).and_then(|opts| {
        let opts = InitOptions {
            token: args.token,
            users: args.users,
            pair: args.pair,
            pair_ttl,
            api_url: args.api_url,
            queue,
            systemd: args.systemd,
            force: args.force,
            executable: std::env::current_exe().ok(),
            user_namespaces: UserNamespaces::probe(|path| std::fs::read_to_string(path).ok()),
            ..opts
        };
        init::init(opts, &mut TerminalIo)
    })?;
    print!("{report}");
    Ok(())
}

/// `ARBITER_PAIR_TTL` (for tests): how long the pairing code holds, `90`, `30s`, `2m`.
fn pair_ttl(env: &impl Fn(&str) -> Option<String>) -> Result<Option<Duration>, CliError> {
    let Some(raw) = env(init::ENV_PAIR_TTL).filter(|raw| !raw.trim().is_empty()) else {
        return Ok(None);
    };
    crate::plan::duration::parse(raw.trim())
        .map(Some)
        .map_err(|e| AgentError::Invalid(format!("{}={raw}: {e}", init::ENV_PAIR_TTL)).into())
}
