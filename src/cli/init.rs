//! `arbiter init`: the flags mapped onto [`crate::init::init`].

use std::path::PathBuf;

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
    /// Telegram user id allowed to use the bot (repeatable; asked for when missing on a terminal).
    #[arg(long = "user", value_name = "ID")]
    users: Vec<u64>,
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
    let report = InitOptions::from_env(&process_env).and_then(|opts| {
        let opts = InitOptions {
            token: args.token,
            users: args.users,
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
