//! An agent takes back its own pending plan (`arbiter withdraw`, MCP `arbiter_withdraw`, the hooks and the
//! framework bridges when nobody answered in time): an action like every owner's change, under the plan's lock,
//! with its audit line before it is acknowledged.

use crate::queue::Queue;

use super::{Access, Action, Actions, Actor, Outcome};

/// Withdraws the pending plan `id` for `agent` (default: the plan's own `agent`), saying why (`reason`, blank
/// for none), stamped `now`: [`Outcome::Withdrawn`] with the plan in completed/, or why not ([`Outcome::Gone`]:
/// it is not pending).
pub fn withdraw(
    queue: &Queue,
    id: &str,
    agent: Option<&str>,
    reason: Option<&str>,
    now: &str,
) -> Outcome {
    let agent = match agent {
        Some(agent) => agent.to_owned(),
        None => match queue.find_pending(id) {
            Ok(Some(loaded)) => loaded.plan.agent.unwrap_or_else(|| "unknown".to_owned()),
            _ => return Outcome::Gone,
        },
    };
    let reason = reason
        .map(str::trim)
        .filter(|r| !r.is_empty())
        .map(str::to_owned);
    // No person is a member here: an agent's only action is this one, and access refuses it any other.
    let actions = Actions::new(queue.clone(), Access::new([]));
    actions.take(Actor::Agent, id, &Action::Withdraw { agent, reason }, now)
}
