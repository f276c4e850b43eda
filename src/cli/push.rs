//! `arbiter push [--revise ID] FILE|-`.

use std::io::Read;
use std::path::Path;

use super::CliError;
use crate::agent::{self, AgentError};

pub fn run(
    queue: super::At<'_>,
    file: &Path,
    json: bool,
    revise: Option<&str>,
) -> Result<(), CliError> {
    let (text, source) = if file == Path::new("-") {
        let mut bytes = Vec::new();
        std::io::stdin()
            .read_to_end(&mut bytes)
            .map_err(|source| AgentError::Io {
                path: "<stdin>".into(),
                source,
            })?;
        (utf8(bytes, "<stdin>")?, "<stdin>".to_owned())
    } else {
        let bytes = std::fs::read(file).map_err(|source| AgentError::Io {
            path: file.to_owned(),
            source,
        })?;
        let source = file.display().to_string();
        (utf8(bytes, &source)?, source)
    };
    if let Some(server) = super::remote::server(queue)? {
        return super::remote::push(&server, &text, json, revise);
    }
    let queue = super::open_queue(queue)?;
    let now = crate::clock::now();
    let pushed = match revise {
        Some(id) => agent::revise(&queue, id, &text, &source, &now)?,
        None => agent::push(&queue, &text, &source, &now)?,
    };
    for warning in &pushed.warnings {
        eprintln!("arbiter: warning: {warning}");
    }
    if json {
        super::print_json(&pushed)?;
    } else {
        println!("{}", pushed.id);
    }
    Ok(())
}

fn utf8(bytes: Vec<u8>, source: &str) -> Result<String, AgentError> {
    String::from_utf8(bytes)
        .map_err(|_| AgentError::Invalid(format!("{source}: not UTF-8 text: plans must be UTF-8")))
}
