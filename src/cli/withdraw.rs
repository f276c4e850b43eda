//! `arbiter withdraw ID [--reason TEXT] [--agent NAME] [--json]`: an agent takes back its pending plan.

use super::CliError;
use crate::agent::report::StatusReport;

/// `arbiter withdraw ID [--reason TEXT]`: the plan's status after it was taken back.
pub fn run(
    queue: super::At<'_>,
    id: &str,
    reason: Option<String>,
    agent: Option<&str>,
    json: bool,
) -> Result<(), CliError> {
    let queue = super::open_queue(queue)?;
    let now = crate::clock::now();
    let outcome = crate::actions::withdraw(&queue, id, agent, reason.as_deref(), &now);
    let loaded = crate::agent::reply::withdrawn(&queue, id, outcome)?;
    let report = StatusReport::of(&loaded);
    if json {
        super::print_json(&report)?;
    } else {
        println!("{}", withdrawn_text(&loaded.plan));
    }
    Ok(())
}

/// `plan `ID` was withdrawn by agent:NAME: REASON`, on one line.
#[must_use]
pub fn withdrawn_text(plan: &crate::plan::Plan) -> String {
    let w = plan.withdrawal.clone().unwrap_or_default();
    withdrawn_line(&plan.id, w.by.as_deref(), w.reason.as_deref())
}

/// [`withdrawn_text`] of plan `id`, withdrawn `by` for `reason`.
#[must_use]
pub fn withdrawn_line(id: &str, by: Option<&str>, reason: Option<&str>) -> String {
    let by = by.map(|b| format!(" by {b}")).unwrap_or_default();
    let why = reason
        .map(|r| format!(": {}", r.replace(['\n', '\r'], " ")))
        .unwrap_or_default();
    format!("plan `{id}` was withdrawn{by}{why}")
}
