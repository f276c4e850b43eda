//! `arbiter lint FILE...`: the diagnosis the daemon would log, one line per problem.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::actions::Access;
use crate::config::{self, Config};
use crate::queue::{self, Location, StoreError};

use super::exit;

/// Who the daemon may talk to, when this machine's config can be read (else the checks that need it are left
/// out: an agent's machine may have no config).
fn configured_access() -> Option<Access> {
    let home = config::arbiter_home(&config::process_env).ok()?;
    let cfg = Config::load(&config::config_file(&home), &config::process_env).ok()?;
    Some(Access::new(cfg.telegram.allowed_users.iter().copied()).with_people(cfg.people))
}

pub fn run(files: &[PathBuf]) -> ExitCode {
    let access = configured_access();
    let mut failed = false;
    for path in files {
        let checked = queue::load(path, Location::Pending).and_then(|loaded| {
            match access.as_ref().and_then(|a| a.unknown_people(&loaded.plan)) {
                Some(d) => Err(StoreError::Invalid(d.in_file(path))),
                None => Ok(loaded),
            }
        });
        match checked {
            Ok(loaded) => {
                let p = &loaded.plan;
                println!(
                    "{}: ok — `{}`, {} decision(s), {} pending",
                    path.display(),
                    p.id,
                    p.decisions.len(),
                    p.remaining()
                );
            }
            Err(StoreError::Invalid(d)) => {
                failed = true;
                eprintln!("{d}");
            }
            Err(e) => {
                failed = true;
                eprintln!("{e}");
            }
        }
    }
    if failed {
        ExitCode::from(exit::FAILURE)
    } else {
        ExitCode::SUCCESS
    }
}
