//! What a rule allowed, as it turned out: an agent that reports tool results to a hook (`PostToolUse`) says
//! whether each call failed. A rule whose allowed calls fail [`FAILURES_TO_PAUSE`] times in a row pauses itself
//! (actor `rule:<id>`, an audit line `rule_pause` with the reason) and the daemon tells its maker.

use crate::queue::Queue;
use crate::queue::audit::{self, Change};
use crate::queue::rules::{self, Ask, FAILURES_TO_PAUSE, Locked, Rule, State, StateChange};

/// A rule that paused itself just now.
#[derive(Debug, Clone)]
pub struct Paused {
    pub rule: Rule,
    pub reason: String,
}

/// Records the result of the call `ask` (failed, with `reason`, or not) against the rule that allowed it, if a
/// rule did. Returns the rule if this result paused it. Nothing is written for a call no rule allowed (most).
pub fn record(
    queue: &Queue,
    ask: &Ask,
    failed: bool,
    reason: &str,
    now: &str,
) -> Result<Option<Paused>, String> {
    let root = queue.root();
    if !rules::path(root).exists() {
        return Ok(None);
    }
    let what = rules::digest(ask.command);
    let awaited = |r: &Rule| {
        r.agent == ask.agent
            && r.awaiting.iter().any(|a| {
                a.tool == ask.tool && a.what == what && a.session.as_deref() == ask.session
            })
    };
    // Read without the lock first: a call no rule allowed writes nothing.
    if !rules::read(root).is_ok_and(|all| all.rules.iter().any(awaited)) {
        return Ok(None);
    }
    let locked = Locked::take(root).map_err(|e| e.to_string())?;
    let mut all = locked.read().map_err(|e| e.to_string())?;
    let mut paused = None;
    for rule in all.rules.iter_mut().filter(|r| awaited(r)) {
        rule.awaiting.retain(|a| {
            !(a.tool == ask.tool && a.what == what && a.session.as_deref() == ask.session)
        });
        if !failed {
            rule.failures = 0;
            continue;
        }
        rule.failures += 1;
        if rule.failures >= FAILURES_TO_PAUSE && rule.state_at(now) == State::Active {
            rule.state = State::Paused;
            rule.change = Some(StateChange {
                at: now.to_owned(),
                by: format!("rule:{}", rule.id),
                reason: Some(reason.to_owned()),
                told: false,
            });
            paused = Some(Paused {
                rule: rule.clone(),
                reason: reason.to_owned(),
            });
        }
    }
    locked.write(&mut all, now).map_err(|e| e.to_string())?;
    if let Some(p) = &paused {
        let actor = format!("rule:{}", p.rule.id);
        let value = format!("{}: {}", p.rule.id, p.reason);
        let line = Change {
            at: now,
            actor: &actor,
            action: "rule_pause",
            plan: &p.rule.plan,
            revision: 0,
            decision: None,
            value: Some(&value),
            seen: None,
            file: &[],
        };
        audit::append(root, &line)
            .map_err(|e| format!("its audit line could not be written ({e})"))?;
        tracing::warn!(rule = %p.rule.id, reason = %p.reason, "a standing rule paused itself after failures");
    }
    Ok(paused)
}

/// Marks the self-pauses of `ids` as told to their makers (the daemon's bookkeeping; no line).
pub fn told(queue: &Queue, ids: &[String], now: &str) -> Result<(), String> {
    let locked = Locked::take(queue.root()).map_err(|e| e.to_string())?;
    let mut all = locked.read().map_err(|e| e.to_string())?;
    for rule in all.rules.iter_mut().filter(|r| ids.contains(&r.id)) {
        if let Some(change) = &mut rule.change {
            change.told = true;
        }
    }
    locked.write(&mut all, now).map_err(|e| e.to_string())
}
