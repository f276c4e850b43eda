//! `arbiter notifications [--session S] [--ack] [--json]`.

use super::CliError;
use crate::agent::notifications::{self, Notification};

pub fn run(
    queue: super::At<'_>,
    session: Option<&str>,
    ack: bool,
    json: bool,
) -> Result<(), CliError> {
    let queue = super::open_queue(queue)?;
    let found = notifications::list(&queue.notify_dir(), session)?;
    let printed = print(&found, json)?;
    if ack {
        for n in printed {
            n.ack(&queue)?;
        }
    }
    Ok(())
}

/// Prints the notify files (`--json`: their frontmatter); returns those printed. Only what was printed is
/// acknowledged: a file that can't be read is reported and kept.
pub fn print(found: &[Notification], json: bool) -> Result<Vec<&Notification>, CliError> {
    let mut printed: Vec<&Notification> = Vec::new();
    if json {
        let mut reports = Vec::new();
        for n in found {
            match n.report() {
                Ok(report) => {
                    reports.push(report);
                    printed.push(n);
                }
                Err(e) => eprintln!("arbiter: warning: {e}"),
            }
        }
        super::print_json(&reports)?;
    } else {
        for (i, n) in found.iter().enumerate() {
            if i > 0 {
                println!();
            }
            println!("==> {} <==", n.file);
            print!("{}", n.content);
            if !n.content.ends_with('\n') {
                println!();
            }
            printed.push(n);
        }
    }
    Ok(printed)
}
