//! `arbiter status ID` and `arbiter get ID`.

use super::CliError;
use crate::agent::AgentError;
use crate::agent::report::{AnswersReport, StatusReport};

pub fn status(queue: super::At<'_>, id: &str, json: bool) -> Result<(), CliError> {
    let loaded = super::open_queue(queue)?.find(id)?;
    let report = StatusReport::of(&loaded);
    if json {
        super::print_json(&report)?;
    } else {
        print!("{}", report.text());
    }
    Ok(())
}

pub fn get(queue: super::At<'_>, id: &str, json: bool) -> Result<(), CliError> {
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
