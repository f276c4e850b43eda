//! `arbiter lint FILE...`: the diagnosis the daemon would log, one line per problem.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::queue::{self, Location, StoreError};

use super::{configured_access, exit};

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
