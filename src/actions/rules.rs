//! Standing rules as owner actions: making one (from a permission plan submitted with `🔁 Always allow this` or
//! `⏱ Allow <agent> for N min`, or from `🔁 Always answer` on a pushed plan answered the same way three times in
//! a row), pausing, resuming and revoking one. Each is decided by the actor's user id and written with its audit
//! line before the outcome goes back; a rule's answer to a prompt ([`fire`]) and its pausing itself after
//! failures ([`results`]) are the agent side's.
//!
//! The matrix of [`RuleAction`] is total, like the plans' (`audit.rs`): every variant names its line.

mod fire;
pub(super) mod make;
pub mod results;

use crate::plan::Plan;
use crate::queue::audit::{self, Change};
use crate::queue::rules::{self, Locked, Rule, RulesError, State, StateChange};

use super::{Actions, Actor, Refusal, seen};

pub use fire::{Fired, Looked, Ruled, answer_permission, answer_pushed};
pub use make::{ALWAYS, GRANT, Offer};

/// Default minutes of `⏱ Allow <agent> for N min` (config `rules.grantMinutes`).
pub const GRANT_MINUTES: u32 = 30;

/// What an owner does to standing rules.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RuleAction {
    /// `🔁 Always answer "<label>"` on the completed plan `plan`: a rule answering every plan of its shape as the
    /// actor answered this one. `seen` is the offer as drawn ([`Offer::seen`]).
    AlwaysAnswer { plan: String, seen: String },
    /// `⏸ Pause` rule `rule`: it answers nothing until resumed.
    Pause { rule: String },
    /// `▶️ Resume` rule `rule` (its maker only).
    Resume { rule: String },
    /// `🗑 Revoke` rule `rule`, for good.
    Revoke { rule: String },
}

/// What became of a [`RuleAction`].
#[derive(Debug)]
pub enum RuleOutcome {
    /// The rule as made or changed; its line is in the trail.
    Done(Rule),
    /// The rule already stood so (paused twice, …): nothing written.
    Unchanged(Rule),
    /// The rule can't be changed so (a revoked rule resumed, an expired grant resumed): nothing written.
    Final(Rule),
    /// No such rule, or no such completed plan.
    NotFound,
    /// The plan is no longer as the offer showed it, or no longer offers a rule: nothing written.
    Stale,
    /// The actor may not do this.
    Refused(Refusal),
    /// `rules.json` does not read, or a write failed: nothing (more) was done.
    Failed(String),
}

impl RuleAction {
    /// What the audit trail calls the change.
    #[must_use]
    pub fn line_name(&self) -> &'static str {
        match self {
            RuleAction::AlwaysAnswer { .. } => rules::MADE,
            RuleAction::Pause { .. } => "rule_pause",
            RuleAction::Resume { .. } => "rule_resume",
            RuleAction::Revoke { .. } => "rule_revoke",
        }
    }

    /// The state the action leaves a rule in (a made rule is active).
    #[must_use]
    fn state(&self) -> State {
        match self {
            RuleAction::AlwaysAnswer { .. } | RuleAction::Resume { .. } => State::Active,
            RuleAction::Pause { .. } => State::Paused,
            RuleAction::Revoke { .. } => State::Revoked,
        }
    }
}

impl Actions {
    /// Takes `action` by `actor`, stamped `now`. Blocking (file I/O); the daemon's front ends call
    /// [`Actions::act_rule`].
    pub fn take_rule(&self, actor: Actor, action: &RuleAction, now: &str) -> RuleOutcome {
        let Actor::User(user) = actor else {
            return RuleOutcome::Refused(Refusal::NotForYou);
        };
        if !self.access.is_member(user) {
            return RuleOutcome::Refused(Refusal::Outsider);
        }
        match action {
            RuleAction::AlwaysAnswer { plan, seen } => self.always_answer(user, plan, seen, now),
            RuleAction::Pause { rule }
            | RuleAction::Resume { rule }
            | RuleAction::Revoke { rule } => self.change_rule(user, rule, action, now),
        }
    }

    /// [`Actions::take_rule`] off the async threads.
    pub async fn act_rule(&self, actor: Actor, action: RuleAction) -> RuleOutcome {
        let actions = self.clone();
        tokio::task::spawn_blocking(move || actions.take_rule(actor, &action, &crate::clock::now()))
            .await
            .unwrap_or_else(|e| {
                RuleOutcome::Failed(format!("the daemon failed while recording this ({e})"))
            })
    }

    /// Every rule, for a member's `/rules` or Rules page (`None` for anyone else), or why the file can't be read.
    pub fn rules_for(&self, actor: Actor) -> Option<Result<rules::Rules, RulesError>> {
        match actor {
            Actor::User(user) if self.access.is_member(user) => {
                Some(rules::read(self.queue.root()))
            }
            Actor::User(_) | Actor::Deadline | Actor::Agent => None,
        }
    }

    /// Pauses, resumes or revokes rule `id`. Pause and revoke write the file first, then the line (a crash between
    /// leaves a rule that asks again); resume writes the line first (a crash between leaves it paused).
    fn change_rule(&self, user: u64, id: &str, action: &RuleAction, now: &str) -> RuleOutcome {
        let locked = match Locked::take(self.queue.root()) {
            Ok(locked) => locked,
            Err(e) => return RuleOutcome::Failed(e.to_string()),
        };
        let mut all = match locked.read() {
            Ok(all) => all,
            Err(e) => return RuleOutcome::Failed(e.to_string()),
        };
        let Some(at) = all.rules.iter().position(|r| r.id == id) else {
            return RuleOutcome::NotFound;
        };
        let rule = &mut all.rules[at];
        let target = action.state();
        let state = rule.state_at(now);
        if matches!(action, RuleAction::Resume { .. }) && rule.created_by != user {
            return RuleOutcome::Refused(Refusal::NotForYou);
        }
        match (state, target) {
            (now_state, target) if now_state == target => {
                return RuleOutcome::Unchanged(rule.clone());
            }
            // Revoked is for good; an expired grant is over (a new one is one tap on the next prompt).
            (State::Revoked, _) | (State::Expired, State::Active | State::Paused) => {
                return RuleOutcome::Final(rule.clone());
            }
            _ => {}
        }
        let (plan, rule_id, actor) = (rule.plan.clone(), rule.id.clone(), user.to_string());
        let line = Change {
            at: now,
            actor: &actor,
            action: action.line_name(),
            plan: &plan,
            revision: 0,
            decision: None,
            value: Some(&rule_id),
            seen: None,
            file: &[],
        };
        let first_line = target == State::Active;
        if first_line && let Err(e) = audit::append(self.queue.root(), &line) {
            return RuleOutcome::Failed(format!("its audit line could not be written ({e})"));
        }
        rule.state = target;
        rule.failures = 0;
        rule.change = Some(StateChange {
            at: now.to_owned(),
            by: user.to_string(),
            reason: None,
            told: true,
        });
        let changed = rule.clone();
        if let Err(e) = locked.write(&mut all, now) {
            return RuleOutcome::Failed(e.to_string());
        }
        if !first_line && let Err(e) = audit::append(self.queue.root(), &line) {
            return RuleOutcome::Failed(format!(
                "the rule is {}, but its audit line could not be written ({e})",
                target.as_str()
            ));
        }
        tracing::info!(rule = %changed.id, user, state = target.as_str(), "rule changed");
        RuleOutcome::Done(changed)
    }

    /// `🔁 Always answer` on the completed plan `plan_id`, as offered to `user` (`seen`).
    fn always_answer(&self, user: u64, plan_id: &str, seen: &str, now: &str) -> RuleOutcome {
        let Ok(loaded) = self.queue.find(plan_id) else {
            return RuleOutcome::NotFound;
        };
        if !self.access.sees(Actor::User(user), &loaded.plan) {
            return RuleOutcome::Refused(Refusal::NotForYou);
        }
        match self.offer(Actor::User(user), &loaded.plan) {
            Some(offer) if offer.seen == seen => make::from_offer(self, user, &loaded, &offer, now),
            Some(_) | None => RuleOutcome::Stale,
        }
    }

    /// The rule `🔁 Always answer` would make for `actor` on the completed plan `plan`, if it is offered: a pushed
    /// one-decision `choice` (no custom answer) or `boolean` plan that `actor` answered, the same way as the two
    /// plans of its shape before, and no active or paused rule of that shape exists.
    #[must_use]
    pub fn offer(&self, actor: Actor, plan: &Plan) -> Option<Offer> {
        let Actor::User(user) = actor else {
            return None;
        };
        make::offer(self, user, plan)
    }
}

/// The fingerprint of an offer: the plan, its decision's options as shown, and the answer the rule would give.
fn offer_seen(plan: &Plan, answer: &str) -> String {
    let mut parts: Vec<&str> = vec![&plan.id];
    if let Some(d) = plan.decisions.first() {
        parts.push(&d.id);
        parts.push(d.kind.name());
        for o in &d.options {
            parts.push(&o.key);
            parts.push(&o.label);
        }
    }
    parts.push(answer);
    seen::fingerprint(&parts)
}

#[cfg(test)]
mod tests;
