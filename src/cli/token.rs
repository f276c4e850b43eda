//! `arbiter token add|list|revoke NAME`: the tokens of agents on other machines, on the daemon's machine. They
//! are kept hashed beside the dashboard's other state (`<config folder>/web/machines.json`), which the daemon
//! reads on every request: no restart.

use clap::Subcommand;

use super::CliError;
use crate::mcp::machines::{Machine, Machines};
use crate::web::WebSettings;

#[derive(Debug, Subcommand)]
pub enum TokenCommand {
    /// Make a token for machine NAME and print it, once (it is stored hashed): give it to that machine as
    /// ARBITER_TOKEN_FILE or ARBITER_TOKEN. Its plans carry `machine: NAME`.
    Add {
        /// The machine's name: lowercase letters, digits, `.`, `-`, `_`.
        name: String,
    },
    /// Every machine token: its name, when it was made, whether it was revoked.
    List {
        #[arg(long)]
        json: bool,
    },
    /// Refuse machine NAME's token from its next request on.
    Revoke { name: String },
}

pub fn run(config: Option<&std::path::Path>, command: TokenCommand) -> Result<(), CliError> {
    let (path, cfg) = super::load_config(config.map(std::path::Path::to_path_buf))?;
    let machines = Machines::in_state_dir(&WebSettings::state_dir_for(&path));
    let now = crate::clock::now();
    match command {
        TokenCommand::Add { name } => {
            let token = machines.add(&name, &now)?;
            super::print_out(&format!("{token}\n"));
            eprintln!(
                "arbiter: machine `{name}` may reach this daemon with that token from now on (shown only this once; \
                 stored hashed in {})",
                machines.path().display()
            );
            if cfg.web.is_none() {
                eprintln!(
                    "arbiter: warning: {} has no \"web\" section: the daemon serves no agent on another machine \
                     until web.listen is set",
                    path.display()
                );
            }
        }
        TokenCommand::List { json } => {
            let all = machines.list()?;
            if json {
                super::print_json(&all)?;
            } else {
                super::print_out(&table(&all));
            }
        }
        TokenCommand::Revoke { name } => {
            machines.revoke(&name, &now)?;
            println!("machine `{name}`'s token is refused from its next request on");
        }
    }
    Ok(())
}

fn table(all: &[Machine]) -> String {
    if all.is_empty() {
        return "no machine tokens (`arbiter token add NAME`)\n".to_owned();
    }
    let mut rows = vec![["MACHINE", "CREATED", "STATE"].map(str::to_owned)];
    for m in all {
        let state = m
            .revoked_at
            .as_ref()
            .map_or_else(|| "in force".to_owned(), |at| format!("revoked {at}"));
        rows.push([m.name.clone(), m.created_at.clone(), state]);
    }
    super::table::aligned(&rows)
}
