//! `arbiter push --revise ID` / `arbiter_push` with `revise`: the agent's next revision of a plan it pushed.
//!
//! The plan keeps its id and gets `revision: N+1`; revision N is kept read-only in
//! `<queue>/revisions/<id>.r<N>.md`; the answers of decisions whose id, kind and options did not change are
//! carried over (`carried: true`); the request for changes it answers stays in its frontmatter. A plan sent back
//! (in returned/) goes back into pending/; a plan still pending is revised in place (the agent changed its mind).
//! A completed plan, an unknown id or another agent's plan is refused and nothing is written.

use crate::plan::{self, Outline as _, Plan, PlanStatus, parse};
use crate::queue::audit::{self, Change};
use crate::queue::{Loaded, Location, Queue, Revised, StoreError};

use super::push::{Pushed, file_name, invalid};
use super::spec::{self, PlanSpec};
use super::{AgentError, fill};

/// How many times a revision is made again when an owner's tap changes the previous one under it.
const ATTEMPTS: usize = 5;

/// Revises plan `id` with `text`, a Markdown plan or a JSON plan spec (as [`super::push`] reads them).
pub fn revise(
    queue: &Queue,
    id: &str,
    text: &str,
    source: &str,
    now: &str,
) -> Result<Pushed, AgentError> {
    if text.trim_start().starts_with('{') {
        let spec = spec::from_json(text).map_err(|e| invalid(source, &e.to_string()))?;
        return revise_spec(queue, id, &spec, source, now);
    }
    let plan = parse(text, id).map_err(|d| {
        let d = if source.is_empty() {
            d
        } else {
            d.in_file(source)
        };
        AgentError::Invalid(d.to_string())
    })?;
    let filled = fill::fill(text, &plan, id, now);
    revise_text(queue, id, &filled, source, now)
}

/// Revises plan `id` with a JSON plan spec, rendered as a decision file.
pub fn revise_spec(
    queue: &Queue,
    id: &str,
    spec: &PlanSpec,
    source: &str,
    now: &str,
) -> Result<Pushed, AgentError> {
    spec::validate(spec).map_err(|e| invalid(source, &e.to_string()))?;
    let text = spec::render(spec, id, now);
    let plan = parse(&text, id)
        .map_err(|d| invalid(source, &format!("the rendered plan does not read: {d}")))?;
    spec::verify(spec, &plan).map_err(|e| invalid(source, &e.to_string()))?;
    revise_text(queue, id, &text, source, now)
}

/// Revises plan `id` with `text`, a complete plan file.
fn revise_text(
    queue: &Queue,
    id: &str,
    text: &str,
    source: &str,
    now: &str,
) -> Result<Pushed, AgentError> {
    let new = parse(text, id).map_err(|d| invalid(source, &d.to_string()))?;
    // What is revised first: an unknown, completed or foreign plan is named as such.
    previous(queue, id, &new, source)?;
    if new.id != id {
        return Err(invalid(
            source,
            &format!(
                "the plan says `id: {}` but revises `{id}`: leave the id out or make it `{id}`",
                new.id
            ),
        ));
    }
    if matches!(
        new.status,
        PlanStatus::Completed | PlanStatus::ChangesRequested
    ) {
        return Err(invalid(
            source,
            &format!(
                "the plan says `status: {}`: push a pending plan",
                new.status
            ),
        ));
    }
    for _ in 0..ATTEMPTS {
        let previous = previous(queue, id, &new, source)?;
        let before = queue.read_bytes(&previous)?;
        let (revised, plan, _carried) = plan::revise(text, &previous.plan)
            .map_err(|d| invalid(source, &format!("the revision does not read: {d}")))?;
        queue.keep_revision(id, previous.plan.revision, &before)?;
        let path = match queue.put_revision(&previous, &before, &file_name(&plan), &revised)? {
            Revised::Written(path) => path,
            Revised::Changed => continue,
        };
        let actor = format!("agent:{}", plan.asker().as_deref().unwrap_or("unknown"));
        let change = Change {
            at: now,
            actor: &actor,
            action: "revise",
            plan: &plan.id,
            revision: plan.revision,
            file: revised.as_bytes(),
            ..Change::default()
        };
        audit::append(queue.root(), &change).map_err(|source| StoreError::Io {
            path: queue.root().join(audit::DIR),
            source,
        })?;
        return Ok(Pushed {
            id: plan.id.clone(),
            path,
            revision: Some(plan.revision),
            answered_by: None,
            warnings: Vec::new(),
        });
    }
    Err(StoreError::Contended {
        path: queue.pending_dir(),
    }
    .into())
}

/// The plan revision `new` follows: pending or sent back, and the same agent's.
fn previous(queue: &Queue, id: &str, new: &Plan, source: &str) -> Result<Loaded, AgentError> {
    let previous = match queue.find(id) {
        Ok(found) => found,
        Err(StoreError::NotFound(_)) => {
            return Err(invalid(
                source,
                &format!("no plan `{id}` to revise: push it first (without --revise)"),
            ));
        }
        Err(e) => return Err(e.into()),
    };
    if previous.location == Location::Completed || previous.plan.status == PlanStatus::Completed {
        return Err(invalid(
            source,
            &format!("plan `{id}` is completed: push a new plan instead of revising it"),
        ));
    }
    if let (Some(theirs), Some(mine)) = (&previous.plan.agent, &new.agent)
        && theirs != mine
    {
        return Err(invalid(
            source,
            &format!(
                "plan `{id}` was pushed by agent `{theirs}`, not `{mine}`: only its agent may revise it"
            ),
        ));
    }
    Ok(previous)
}
