//! `arbiter push` / `arbiter_push`: validate a plan (Markdown or JSON spec), complete it, write it into pending/.

use std::collections::HashSet;
use std::io;
use std::path::PathBuf;

use serde::Serialize;

use crate::actions::rules::{self, Ruled};
use crate::plan::slug::{file_component, slug};
use crate::plan::{Outline as _, Plan, PlanStatus, parse};
use crate::queue::audit::{self, Change};
use crate::queue::{Queue, StoreError};

use super::spec::{self, PlanSpec};
use super::{AgentError, fill, id};

/// Where a pushed plan went.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Pushed {
    pub id: String,
    pub path: PathBuf,
    /// The revision number, for a revision (`push --revise`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub revision: Option<u32>,
    /// `rule:<id>` when a standing rule answered the plan at once: it went straight to completed/ (`await` returns
    /// at once) and nobody was asked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answered_by: Option<String>,
    /// What the rules had to say (a `rules.json` that does not read, a rule without its audit line), for stderr.
    #[serde(skip)]
    pub warnings: Vec<String>,
}

/// Pushes `text`, a Markdown plan or (when its first non-blank character is `{`) a JSON plan spec. `source`
/// names the input in messages (`<stdin>`, a path; empty for none). Invalid input writes nothing.
pub fn push(queue: &Queue, text: &str, source: &str, now: &str) -> Result<Pushed, AgentError> {
    if text.trim_start().starts_with('{') {
        let spec = spec::from_json(text).map_err(|e| invalid(source, &e.to_string()))?;
        return push_spec(queue, &spec, source, now);
    }
    let plan = parse(text, "").map_err(|d| {
        let d = if source.is_empty() {
            d
        } else {
            d.in_file(source)
        };
        AgentError::Invalid(d.to_string())
    })?;
    let id = if plan.id.is_empty() {
        fresh_id(queue)?
    } else {
        plan.id.clone()
    };
    let filled = fill::fill(text, &plan, &id, now);
    let plan = parse(&filled, &id).map_err(|d| {
        invalid(
            source,
            &format!("the plan no longer reads after its frontmatter was completed: {d}"),
        )
    })?;
    write(queue, &plan, &filled, source, now)
}

/// Pushes a JSON plan spec, rendered as a decision file.
pub fn push_spec(
    queue: &Queue,
    spec: &PlanSpec,
    source: &str,
    now: &str,
) -> Result<Pushed, AgentError> {
    spec::validate(spec).map_err(|e| invalid(source, &e.to_string()))?;
    let id = match &spec.id {
        Some(id) => id.trim().to_owned(),
        None => fresh_id(queue)?,
    };
    let text = spec::render(spec, &id, now);
    let plan = parse(&text, &id)
        .map_err(|d| invalid(source, &format!("the rendered plan does not read: {d}")))?;
    spec::verify(spec, &plan).map_err(|e| invalid(source, &e.to_string()))?;
    write(queue, &plan, &text, source, now)
}

pub(super) fn invalid(source: &str, msg: &str) -> AgentError {
    if source.is_empty() {
        AgentError::Invalid(msg.to_owned())
    } else {
        AgentError::Invalid(format!(
            "{source}:{}{msg}",
            if msg.starts_with(|c: char| c.is_ascii_digit()) {
                ""
            } else {
                " "
            }
        ))
    }
}

fn fresh_id(queue: &Queue) -> Result<String, AgentError> {
    let mut taken: HashSet<String> = queue.completed_ids()?.into_iter().collect();
    taken.extend(
        queue
            .scan_pending()?
            .plans
            .iter()
            .map(|l| l.plan.id.clone()),
    );
    Ok(id::fresh(|id| taken.contains(id)))
}

fn write(
    queue: &Queue,
    plan: &Plan,
    text: &str,
    source: &str,
    now: &str,
) -> Result<Pushed, AgentError> {
    if plan.status == PlanStatus::Completed {
        return Err(invalid(
            source,
            "the plan says `status: completed`: push a pending plan",
        ));
    }
    if plan.status == PlanStatus::ChangesRequested {
        return Err(invalid(
            source,
            "the plan says `status: changes_requested`: push a pending plan",
        ));
    }
    if let Some(returned) = queue.find_returned(&plan.id)? {
        return Err(invalid(
            source,
            &format!(
                "plan `{}` was sent back for changes ({}): revise it with `arbiter push --revise {}`",
                plan.id,
                returned.path.display(),
                plan.id
            ),
        ));
    }
    if let Some(other) = queue
        .scan_pending()?
        .plans
        .into_iter()
        .find(|l| l.plan.id == plan.id)
    {
        return Err(invalid(
            source,
            &format!(
                "a plan with id `{}` is already pending ({}); pick another id or leave it out",
                plan.id,
                other.path.display()
            ),
        ));
    }
    // A standing rule answers a plan of a shape the owner always answers the same way: straight into completed/.
    let ruled = Ruled {
        name: file_name(plan),
        text: text.to_owned(),
        read_here: false,
    };
    let looked = rules::answer_pushed(queue, plan, ruled, now);
    if let Some(fired) = looked.fired {
        return Ok(Pushed {
            id: plan.id.clone(),
            path: fired.plan.path,
            revision: None,
            answered_by: Some(format!("rule:{}", fired.rule.id)),
            warnings: looked.warnings,
        });
    }
    let warnings = looked.warnings;
    match queue.add_pending(&file_name(plan), text) {
        Ok(path) => {
            let actor = format!("agent:{}", plan.asker().as_deref().unwrap_or("unknown"));
            let change = Change {
                at: now,
                actor: &actor,
                action: "push",
                plan: &plan.id,
                revision: plan.revision,
                file: text.as_bytes(),
                ..Change::default()
            };
            // The plan is in pending/ now: a trail that can't be written is an error the agent sees, not silence.
            audit::append(queue.root(), &change).map_err(|source| StoreError::Io {
                path: queue.root().join(audit::DIR),
                source,
            })?;
            Ok(Pushed {
                id: plan.id.clone(),
                path,
                revision: None,
                answered_by: None,
                warnings,
            })
        }
        Err(StoreError::Io { path, source: e }) if e.kind() == io::ErrorKind::AlreadyExists => {
            Err(invalid(
                source,
                &format!("{} already exists; nothing was written", path.display()),
            ))
        }
        Err(e) => Err(e.into()),
    }
}

/// `{agent}-{slug(title)}-{id}.md`: every part made file-safe, so nothing escapes pending/.
#[must_use]
pub fn file_name(plan: &Plan) -> String {
    let agent = plan.agent.as_deref().map(|a| short(&slug(a), 40));
    let agent = agent.filter(|a| !a.is_empty());
    let title = short(&slug(&plan.title), 60);
    let mut parts = vec![agent.unwrap_or_else(|| "agent".to_owned())];
    if !title.is_empty() {
        parts.push(title);
    }
    parts.push(file_component(&plan.id));
    format!("{}.md", parts.join("-"))
}

/// At most `max` bytes of a slug, cut on a character boundary, without a trailing `-`.
fn short(s: &str, max: usize) -> String {
    let mut end = s.len().min(max);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    s[..end].trim_end_matches('-').to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_stay_in_the_folder() {
        let mut plan = parse(include_str!("../../tests/fixtures/spec-example.md"), "").unwrap();
        assert_eq!(file_name(&plan), "ceo-api-design-decisions-abc123.md");
        plan.agent = Some("../../etc".into());
        plan.title = "🚀".into();
        plan.id = "../x/y".into();
        assert_eq!(file_name(&plan), "etc-x-y.md");
        plan.agent = None;
        plan.title = "Выбор базы данных ".repeat(10);
        let name = file_name(&plan);
        assert!(name.starts_with("agent-выбор-базы-данных-"), "{name}");
        assert!(name.len() < 120 && !name.contains('/'), "{name}");
    }
}
