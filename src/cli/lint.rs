//! `arbiter lint FILE...`: the diagnosis the daemon would log, one line per problem.

use std::path::{Path, PathBuf};

use crate::queue::{self, Location, StoreError};

use super::{CliError, configured_access};

pub fn run(files: &[PathBuf], config: Option<&Path>) -> Result<(), CliError> {
    let access = configured_access(config).ok();
    let mut failed = 0;
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
                failed += 1;
                eprintln!("{d}");
            }
            Err(e) => {
                failed += 1;
                eprintln!("{e}");
            }
        }
    }
    if failed > 0 {
        Err(CliError::Lint(failed))
    } else {
        Ok(())
    }
}
