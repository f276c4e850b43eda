//! A plan pushed (or revised) by an agent on another machine, through the daemon's MCP tools: it carries the
//! machine its token names, whatever its text says.

use super::push::{Pushed, invalid, push, push_spec};
use super::revise as revising;
use super::{AgentError, fill};
use crate::queue::Queue;

/// [`push`] (or, with `revise`, [`revising::revise`]) for a caller on another machine: the plan carries
/// `machine: NAME` whatever its text says.
pub fn push_from(
    queue: &Queue,
    text: &str,
    revise: Option<&str>,
    machine: Option<&str>,
    now: &str,
) -> Result<Pushed, AgentError> {
    let Some(machine) = machine else {
        return match revise {
            Some(id) => revising::revise(queue, id, text, "", now),
            None => push(queue, text, "", now),
        };
    };
    if text.trim_start().starts_with('{') {
        let mut spec = super::spec::from_json(text).map_err(|e| invalid("", &e.to_string()))?;
        spec.machine = Some(machine.to_owned());
        return match revise {
            Some(id) => revising::revise_spec(queue, id, &spec, "", now),
            None => push_spec(queue, &spec, "", now),
        };
    }
    let text = fill::set_key(text, "machine", machine);
    match revise {
        Some(id) => revising::revise(queue, id, &text, "", now),
        None => push(queue, &text, "", now),
    }
}
