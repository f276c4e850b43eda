//! `arbiter await ID [--timeout D]`.

use std::time::Duration;

use crate::agent::report::AnswersReport;
use crate::agent::{self, AgentError, WaitOutcome};

use super::CliError;

pub fn run(
    queue: super::At<'_>,
    id: &str,
    timeout: Option<Duration>,
    json: bool,
) -> Result<(), CliError> {
    if let Some(server) = super::remote::server(queue)? {
        return super::remote::wait(&server, id, timeout, json);
    }
    let queue = super::open_queue(queue)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|source| AgentError::Io {
            path: "tokio runtime".into(),
            source,
        })?;
    match runtime.block_on(agent::wait_for_completion(&queue, id, timeout))? {
        WaitOutcome::Completed(loaded) => {
            super::show::print_answers(&AnswersReport::of(&loaded), json)?;
            Ok(())
        }
        // The report (with `feedback`) on stdout, like a completion, and exit code 4: the agent revises.
        WaitOutcome::ChangesRequested(loaded) => {
            super::show::print_answers(&AnswersReport::of(&loaded), json)?;
            let feedback = loaded
                .plan
                .feedback
                .as_ref()
                .map_or("", |f| f.text.as_str());
            Err(CliError::ChangesRequested(format!(
                "changes requested on plan `{id}`: {}",
                feedback.replace(['\n', '\r'], " ")
            )))
        }
        // The report (`"status": "withdrawn"`) on stdout and exit code 5: nobody will answer this plan.
        WaitOutcome::Withdrawn(loaded) => {
            super::show::print_answers(&AnswersReport::of(&loaded), json)?;
            Err(CliError::Withdrawn(super::withdraw::withdrawn_text(
                &loaded.plan,
            )))
        }
        WaitOutcome::TimedOut(loaded) => {
            let p = &loaded.plan;
            Err(CliError::TimedOut(format!(
                "timed out: plan `{id}` is not completed after {} ({}, {}/{} answered, {} remaining)",
                crate::plan::duration::say(
                    timeout.unwrap_or_default(),
                    crate::plan::duration::Style::Written,
                ),
                p.status,
                p.answered(),
                p.decisions.len(),
                p.remaining()
            )))
        }
    }
}
