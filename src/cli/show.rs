//! `arbiter status ID` and `arbiter get ID`.

use std::path::Path;

use super::CliError;
use crate::agent::AgentError;
use crate::agent::report::{AnswersReport, StatusReport};

pub fn status(queue: Option<&Path>, id: &str, json: bool) -> Result<(), CliError> {
    let loaded = super::open_queue(queue)?.find(id)?;
    let report = StatusReport::of(&loaded);
    if json {
        super::print_json(&report)?;
    } else {
        print!("{}", report.text());
    }
    Ok(())
}

pub fn get(queue: Option<&Path>, id: &str, json: bool) -> Result<(), CliError> {
    let loaded = super::open_queue(queue)?.find(id)?;
    print_answers(&AnswersReport::of(&loaded), json)?;
    Ok(())
}

/// The output of `get` and of a successful `await`.
pub fn print_answers(report: &AnswersReport, json: bool) -> Result<(), AgentError> {
    if json {
        super::print_json(report)
    } else {
        print!("{}", report.text());
        Ok(())
    }
}

/// `arbiter withdraw ID [--reason TEXT]`: the plan's status after it was taken back.
pub fn withdraw(
    queue: Option<&Path>,
    id: &str,
    reason: Option<String>,
    agent: Option<&str>,
    json: bool,
) -> Result<(), CliError> {
    let queue = super::open_queue(queue)?;
    let now = crate::clock::now();
    match crate::actions::withdraw(&queue, id, agent, reason.as_deref(), &now) {
        crate::actions::Outcome::Withdrawn(loaded) => {
            let report = StatusReport::of(&loaded);
            if json {
                super::print_json(&report)?;
            } else {
                println!("{}", super::wait::withdrawn_text(&loaded.plan));
            }
            Ok(())
        }
        crate::actions::Outcome::Gone => {
            // Say where it is, if anywhere: answered already, sent back, or unknown.
            let loaded = queue.find(id)?;
            Err(AgentError::NotPending {
                id: id.to_owned(),
                status: loaded.plan.status.to_string(),
            }
            .into())
        }
        crate::actions::Outcome::NotRecorded { error, .. } => Err(AgentError::NotWithdrawn {
            id: id.to_owned(),
            reason: error.to_string(),
        }
        .into()),
        other => Err(AgentError::NotWithdrawn {
            id: id.to_owned(),
            reason: format!("{other:?}"),
        }
        .into()),
    }
}
