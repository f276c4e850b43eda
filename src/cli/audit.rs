//! `arbiter audit verify` and `arbiter audit export`: the hash-chained audit trail of [`crate::queue::audit`].

use chrono::Utc;
use clap::{Subcommand, ValueEnum};

use super::CliError;
use crate::agent::AgentError;
use crate::plan::timing::parse_time;
use crate::queue::audit::{self, Entry};

#[derive(Debug, Subcommand)]
pub enum AuditCommand {
    /// Check the chain: `N entries, chain intact` (exit 0), or the first line that was changed, removed or
    /// reordered (exit 1).
    Verify,
    /// Print the entries (after checking the chain) as CSV or JSON lines.
    Export {
        /// Only entries at or after this: a duration back from now (`30d`), an RFC 3339 time or a date.
        #[arg(long, value_name = "D")]
        since: Option<String>,
        #[arg(long, value_enum, default_value_t = Format::Jsonl)]
        format: Format,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Csv,
    Jsonl,
}

pub fn run(queue: super::At<'_>, command: AuditCommand) -> Result<(), CliError> {
    let queue = super::open_queue(queue)?;
    let (intact, entries) = audit::read(queue.root())
        .map_err(|e| AgentError::Invalid(format!("can't read the audit trail: {e}")))??;
    match command {
        AuditCommand::Verify => {
            println!(
                "{} entries, chain intact (head {})",
                intact.entries, intact.head
            );
            Ok(())
        }
        AuditCommand::Export { since, format } => {
            let since = since
                .map(|s| super::stats::parse_since(&s, Utc::now()))
                .transpose()
                .map_err(AgentError::Invalid)?;
            let kept = entries
                .iter()
                .filter(|e| since.is_none_or(|s| parse_time(&e.at).is_some_and(|at| at >= s)));
            let out = match format {
                Format::Jsonl => jsonl(kept),
                Format::Csv => csv(kept)?,
            };
            print!("{out}");
            Ok(())
        }
    }
}

fn jsonl<'a>(entries: impl Iterator<Item = &'a Entry>) -> String {
    let mut out = String::new();
    for e in entries {
        if let Ok(line) = serde_json::to_string(e) {
            out.push_str(&line);
            out.push('\n');
        }
    }
    out
}

fn csv<'a>(entries: impl Iterator<Item = &'a Entry>) -> Result<String, CliError> {
    let failed = |e: csv::Error| AgentError::Invalid(format!("can't write CSV: {e}"));
    let mut writer = csv::Writer::from_writer(Vec::new());
    for e in entries {
        writer.serialize(e).map_err(failed)?;
    }
    let bytes = writer
        .into_inner()
        .map_err(|e| AgentError::Invalid(format!("can't write CSV: {e}")))?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}
