//! `arbiter lint FILE...`: the diagnosis the daemon would log, one line per problem.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::queue::{self, Location, StoreError};

use super::exit;

pub fn run(files: &[PathBuf]) -> ExitCode {
    let mut failed = false;
    for path in files {
        match queue::load(path, Location::Pending) {
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
