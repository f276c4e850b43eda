//! A pending plan's brief: what the queue listing, the announcements, the access checks and the clock read of a
//! plan, in a couple of hundred bytes instead of the whole parsed plan (its context and every decision's title,
//! options, answer and note). [`Outline`] is what those readers take, so they read a whole [`Plan`] and a
//! [`Brief`] alike; a plan's own screens (a decision, the review, a card, a toggle) take the whole plan, read
//! from its file when they are drawn. (A completed plan's record in the history index is [`super::Summary`].)

use chrono::{DateTime, Utc};

use super::people::Approval;
use super::timing::{Due, OnDeadline, Timing};
use super::{DecisionStatus, Plan, PlanStatus, Priority};

/// What the queue listing, announcements, access checks and the clock read of a plan: the plan itself, or its
/// [`Brief`].
pub trait Outline {
    fn id(&self) -> &str;
    fn title(&self) -> &str;
    fn priority(&self) -> Priority;
    fn status(&self) -> PlanStatus;
    /// 1 for a plan as first pushed, N+1 for the agent's answer to revision N.
    fn revision(&self) -> u32;
    fn tag(&self) -> Option<&str>;
    fn agent(&self) -> Option<&str>;
    /// The machine whose token pushed the plan, for an agent on another machine.
    fn machine(&self) -> Option<&str>;
    /// Who asks, as the owner reads it: `<agent>@<machine>` for an agent on another machine, else the agent.
    fn asker(&self) -> Option<String> {
        let agent = self.agent().map(str::trim).filter(|a| !a.is_empty());
        match (
            agent,
            self.machine().map(str::trim).filter(|m| !m.is_empty()),
        ) {
            (Some(agent), Some(machine)) => Some(format!("{agent}@{machine}")),
            (None, Some(machine)) => Some(format!("agent@{machine}")),
            (agent, None) => agent.map(str::to_owned),
        }
    }
    /// `created_at` as written.
    fn created_at(&self) -> Option<&str>;
    /// Deadline, reminders and escalation.
    fn timing(&self) -> &Timing;
    /// Approvers, required sign-offs and the sign-offs so far.
    fn approval(&self) -> &Approval;
    /// How many decisions the plan has.
    fn decision_count(&self) -> usize;
    /// How many of them are still pending.
    fn pending_decisions(&self) -> usize;
    /// The decisions delegated to someone: (index, user id), in decision order.
    fn delegations(&self) -> impl Iterator<Item = (usize, u64)> + '_;

    /// What the daemon's clock must do for this plan at `now` ([`Timing::due`], counting from `created_at`).
    fn due(&self, now: DateTime<Utc>) -> Due {
        let created = self.created_at().and_then(super::timing::parse_time);
        self.timing().due(created, now)
    }
}

impl Outline for Plan {
    fn id(&self) -> &str {
        &self.id
    }
    fn title(&self) -> &str {
        &self.title
    }
    fn priority(&self) -> Priority {
        self.priority
    }
    fn status(&self) -> PlanStatus {
        self.status
    }
    fn revision(&self) -> u32 {
        self.revision
    }
    fn tag(&self) -> Option<&str> {
        self.tag.as_deref()
    }
    fn agent(&self) -> Option<&str> {
        self.agent.as_deref()
    }
    fn machine(&self) -> Option<&str> {
        self.machine.as_deref()
    }
    fn created_at(&self) -> Option<&str> {
        self.created_at.as_deref()
    }
    fn timing(&self) -> &Timing {
        &self.timing
    }
    fn approval(&self) -> &Approval {
        &self.approval
    }
    fn decision_count(&self) -> usize {
        self.decisions.len()
    }
    fn pending_decisions(&self) -> usize {
        self.remaining()
    }
    fn delegations(&self) -> impl Iterator<Item = (usize, u64)> + '_ {
        self.decisions
            .iter()
            .enumerate()
            .filter_map(|(i, d)| d.delegated_to.map(|to| (i, to)))
    }
    fn due(&self, now: DateTime<Utc>) -> Due {
        Plan::due(self, now)
    }
}

/// A pending plan as the daemon keeps it: see the module documentation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Brief {
    id: Box<str>,
    title: Box<str>,
    tag: Option<Box<str>>,
    agent: Option<Box<str>>,
    machine: Option<Box<str>>,
    created_at: Option<Box<str>>,
    /// The plan this one follows up (`reply_to`): its announcement is a reply to that plan's.
    reply_to: Option<Box<str>>,
    /// Timing, approval and delegations; `None` when none of them says anything (most plans): no allocation.
    people: Option<Box<People>>,
    decisions: u32,
    pending: u32,
    revision: u32,
    priority: Priority,
    status: PlanStatus,
}

/// The rarely set parts of a brief.
#[derive(Debug, Clone, PartialEq, Eq)]
struct People {
    timing: Timing,
    approval: Approval,
    /// (decision index, user id).
    delegated: Box<[(u32, u64)]>,
}

/// The timing of a plan that has none.
static NO_TIMING: Timing = Timing {
    deadline: None,
    on_deadline: OnDeadline::Wait,
    remind_every: None,
    escalate_after: None,
    escalate_to: Vec::new(),
    escalate_to_line: 0,
    reminded_at: None,
    escalated_at: None,
};

/// The approval of a plan that names nobody.
static NO_APPROVAL: Approval = Approval {
    approvers: Vec::new(),
    approvers_line: 0,
    require: 1,
    require_line: 0,
    signoffs: Vec::new(),
};

impl Brief {
    /// The brief of `plan`.
    #[must_use]
    pub fn of(plan: &Plan) -> Brief {
        let count = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        let delegated: Box<[(u32, u64)]> =
            plan.delegations().map(|(i, to)| (count(i), to)).collect();
        let people =
            (plan.timing != NO_TIMING || plan.approval != NO_APPROVAL || !delegated.is_empty())
                .then(|| {
                    Box::new(People {
                        timing: plan.timing.clone(),
                        approval: plan.approval.clone(),
                        delegated,
                    })
                });
        let text = |s: &Option<String>| s.as_deref().map(Box::from);
        Brief {
            id: plan.id.as_str().into(),
            title: plan.title.as_str().into(),
            tag: text(&plan.tag),
            agent: text(&plan.agent),
            machine: text(&plan.machine),
            created_at: text(&plan.created_at),
            reply_to: text(&plan.reply_to),
            people,
            decisions: count(plan.decisions.len()),
            pending: count(plan.count(DecisionStatus::Pending)),
            revision: plan.revision,
            priority: plan.priority,
            status: plan.status,
        }
    }
}

impl Brief {
    /// The plan this one follows up (`reply_to`), whose announcement this one's replies to.
    #[must_use]
    pub fn reply_to(&self) -> Option<&str> {
        self.reply_to.as_deref()
    }

    /// False when the plan has no deadline, reminders or escalation: the clock never finds it due.
    #[must_use]
    pub fn may_be_due(&self) -> bool {
        self.people.as_ref().is_some_and(|p| p.timing != NO_TIMING)
    }
}

impl Outline for Brief {
    fn id(&self) -> &str {
        &self.id
    }
    fn title(&self) -> &str {
        &self.title
    }
    fn priority(&self) -> Priority {
        self.priority
    }
    fn status(&self) -> PlanStatus {
        self.status
    }
    fn revision(&self) -> u32 {
        self.revision
    }
    fn tag(&self) -> Option<&str> {
        self.tag.as_deref()
    }
    fn agent(&self) -> Option<&str> {
        self.agent.as_deref()
    }
    fn machine(&self) -> Option<&str> {
        self.machine.as_deref()
    }
    fn created_at(&self) -> Option<&str> {
        self.created_at.as_deref()
    }
    fn timing(&self) -> &Timing {
        self.people.as_ref().map_or(&NO_TIMING, |p| &p.timing)
    }
    fn approval(&self) -> &Approval {
        self.people.as_ref().map_or(&NO_APPROVAL, |p| &p.approval)
    }
    fn decision_count(&self) -> usize {
        self.decisions as usize
    }
    fn pending_decisions(&self) -> usize {
        self.pending as usize
    }
    fn delegations(&self) -> impl Iterator<Item = (usize, u64)> + '_ {
        self.people
            .iter()
            .flat_map(|p| p.delegated.iter())
            .map(|&(i, to)| (i as usize, to))
    }
    /// A plan without timing is never due: the clock's pass over a large queue parses no date for it.
    fn due(&self, now: DateTime<Utc>) -> Due {
        if self.people.is_none() {
            return Due::default();
        }
        let created = self.created_at().and_then(super::timing::parse_time);
        self.timing().due(created, now)
    }
}

#[cfg(test)]
mod tests;
