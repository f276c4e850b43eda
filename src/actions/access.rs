//! Who may take which action: decided here, once, by the actor's user id — never by the chat a request came from.
//!
//! The rules:
//! - only members (`telegram.allowedUsers`) use the front ends at all; everyone else is an outsider;
//! - a plan's **approvers** (its `approvers` list, else every member) see it, get its messages and may take
//!   every person's action on it; so do the people in `escalate_to` once the plan is escalated (`escalated_at`);
//! - a **delegate** (a decision's `delegated_to`) sees the plan but may open, answer, skip and note only the
//!   decisions delegated to them;
//! - a plan that needs sign-offs (`require` > 1) takes one sign-off per approver: a second is refused;
//! - the deadline timer (the daemon's own clock, never an input anyone can forge) applies deadlines, reminders
//!   and escalations on every plan, and nothing else.

use std::collections::{BTreeMap, BTreeSet, HashSet};

use crate::plan::{Diagnostic, Outline, Plan, Summary};

use super::{Action, Actor};

/// Why an action was refused. The display text is what the actor reads (a Telegram alert, a web notice).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// Not one of the configured users: the bot and the dashboard are private.
    #[error("⛔ This bot is private.")]
    Outsider,
    /// An allowed user, but not one who may act on this plan.
    #[error("⛔ This plan is not yours to answer.")]
    NotForYou,
    /// A delegate acting on a decision that was not delegated to them, or on the whole plan.
    #[error("⛔ Only the decision delegated to you is yours to answer.")]
    NotDelegated,
    /// The approver already signed off this plan.
    #[error("⛔ You already signed off this plan.")]
    AlreadySigned,
    /// A delegation to someone who can't take it (not a member, or the delegator).
    #[error("⛔ That person can't take this decision.")]
    NoSuchDelegate,
    /// Deadlines, reminders and escalations are the daemon's clock's to apply, and the clock only does those.
    #[error("⛔ Only the deadline timer does this.")]
    ClockOnly,
    /// Only the agent that pushed a plan withdraws it, and an agent does nothing else to a plan.
    #[error("⛔ Only the plan's agent withdraws it.")]
    AgentOnly,
}

/// What a person may do on one plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Role {
    /// Everything a person does: an approver, or an escalated person after the escalation.
    Approver,
    /// Only these decisions (indices), delegated to them.
    Delegate(Vec<usize>),
    /// Nothing: the plan is not theirs.
    Nobody,
}

/// The permission rules over the configured members and their names.
#[derive(Debug, Clone, Default)]
pub struct Access {
    allowed: HashSet<u64>,
    /// `people`: name → user id (every id is a member: the config checks it).
    names: BTreeMap<String, u64>,
}

impl Access {
    #[must_use]
    pub fn new(allowed: impl IntoIterator<Item = u64>) -> Access {
        Access {
            allowed: allowed.into_iter().collect(),
            names: BTreeMap::new(),
        }
    }

    /// Adds the config's `people` (name → user id). Names of ids that are not members are left out.
    #[must_use]
    pub fn with_people(mut self, people: impl IntoIterator<Item = (String, u64)>) -> Access {
        self.names = people
            .into_iter()
            .filter(|(_, id)| self.allowed.contains(id))
            .collect();
        self
    }

    /// May this user use the front ends at all (get answers from the bot, log in)? Front ends ask this before
    /// anything else, so an outsider gets one fixed refusal and no plan data.
    #[must_use]
    pub fn is_member(&self, user: u64) -> bool {
        self.allowed.contains(&user)
    }

    /// The member a plan names in a list of people (`approvers`, `escalate_to`): a name from `people`, or a
    /// member's user id. `None`: nobody the bot may talk to.
    #[must_use]
    pub fn resolve(&self, person: &str) -> Option<u64> {
        let person = person.trim();
        self.names
            .get(person)
            .copied()
            .or_else(|| person.parse().ok())
            .filter(|id| self.is_member(*id))
    }

    /// The name `people` gives this user, if any.
    #[must_use]
    pub fn name_of(&self, user: u64) -> Option<&str> {
        self.names
            .iter()
            .find(|(_, id)| **id == user)
            .map(|(name, _)| name.as_str())
    }

    /// How views show a user id as written in a file (`answered_by`): the name from `people`, else as written.
    #[must_use]
    pub fn display(&self, who: &str) -> String {
        who.trim()
            .parse()
            .ok()
            .and_then(|id| self.name_of(id))
            .map_or_else(|| who.to_owned(), str::to_owned)
    }

    /// A plan naming someone the bot may not talk to (`approvers`, `escalate_to`), or asking for more sign-offs
    /// than it has approvers, is malformed for this configuration: the diagnosis names the line and the
    /// reason. `None`: the plan is fine here.
    #[must_use]
    pub fn unknown_people<P: Outline + ?Sized>(&self, plan: &P) -> Option<Diagnostic> {
        let (approval, timing) = (plan.approval(), plan.timing());
        let lists = [
            ("approvers", &approval.approvers, approval.approvers_line),
            ("escalate_to", &timing.escalate_to, timing.escalate_to_line),
        ];
        for (key, list, line) in lists {
            if let Some(nobody) = list.iter().find(|p| self.resolve(p).is_none()) {
                return Some(Diagnostic::new(
                    line,
                    format!(
                        "`{key}`: `{nobody}` is nobody the bot may talk to: use a name from the config's \
                         `people` or a user id from telegram.allowedUsers"
                    ),
                ));
            }
        }
        let require = approval.require;
        // One sign-off never needs more approvers than a plan has (every listed one resolved, or every member):
        // no list to build for the common case (every look checks every plan).
        if require <= 1 {
            return None;
        }
        let approvers = self.approvers(plan).len();
        (require > approvers).then(|| {
            Diagnostic::new(
                approval.require_line,
                format!(
                    "`require: {require}` needs more sign-offs than the plan has approvers ({approvers})"
                ),
            )
        })
    }

    /// The members, in id order.
    pub fn members(&self) -> impl Iterator<Item = u64> + '_ {
        let sorted: BTreeSet<u64> = self.allowed.iter().copied().collect();
        sorted.into_iter()
    }

    /// The plan's approvers: its `approvers` resolved (members only), else every member; in id order.
    #[must_use]
    pub fn approvers<P: Outline + ?Sized>(&self, plan: &P) -> Vec<u64> {
        let listed = &plan.approval().approvers;
        if listed.is_empty() {
            return self.members().collect();
        }
        let ids: BTreeSet<u64> = listed.iter().filter_map(|p| self.resolve(p)).collect();
        ids.into_iter().collect()
    }

    /// True when `user` is a member named by the plan's `approvers` (every member when it names nobody); an
    /// escalation does not count. A standing rule is made, and answers, only for plans whose approvers include
    /// its maker.
    #[must_use]
    pub fn is_listed_approver<P: Outline + ?Sized>(&self, user: u64, plan: &P) -> bool {
        self.is_member(user) && self.listed(user, &plan.approval().approvers, &[])
    }

    /// May a standing rule made by `maker` answer `plan`? Only while the maker is a member, and one of the plan's
    /// approvers when it names any (resolved as [`Access::resolve`] does: names from `people` first, members
    /// only); an escalation does not count.
    #[must_use]
    pub fn rule_may_answer<P: Outline + ?Sized>(&self, maker: u64, plan: &P) -> bool {
        self.is_listed_approver(maker, plan)
    }

    /// The access a queue's config gives ([`crate::queue::Queue::with_members`]); without one, nobody knows who
    /// is still allowed, and only `maker` is taken to be: a rule then answers as long as the plan names no
    /// approvers or names the maker by user id.
    #[must_use]
    pub fn of_members(members: Option<&crate::queue::Members>, maker: u64) -> Access {
        match members {
            Some(m) => Access::new(m.allowed.iter().copied()).with_people(m.people.iter().cloned()),
            None => Access::new([maker]),
        }
    }

    /// True when `user` is one of the plan's approvers, or was escalated to and the escalation happened.
    fn approves<P: Outline + ?Sized>(&self, user: u64, plan: &P) -> bool {
        let timing = plan.timing();
        let escalated: &[String] = if timing.escalated_at.is_some() {
            &timing.escalate_to
        } else {
            &[]
        };
        self.listed(user, &plan.approval().approvers, escalated)
    }

    /// True when `user` is among `approvers` (every member when it is empty: callers have checked membership) or
    /// among the people a plan was `escalated` to.
    fn listed(&self, user: u64, approvers: &[String], escalated: &[String]) -> bool {
        let named = |people: &[String]| people.iter().any(|p| self.resolve(p) == Some(user));
        named(escalated) || approvers.is_empty() || named(approvers)
    }

    /// What `actor` may do on `plan`.
    #[must_use]
    pub fn role<P: Outline + ?Sized>(&self, actor: Actor, plan: &P) -> Role {
        let user = match actor {
            Actor::Deadline => return Role::Approver,
            // An agent sees nothing through the owners' front ends; it withdraws its own plans only.
            Actor::Agent => return Role::Nobody,
            Actor::User(user) if !self.is_member(user) => return Role::Nobody,
            Actor::User(user) => user,
        };
        if self.approves(user, plan) {
            return Role::Approver;
        }
        let delegated: Vec<usize> = plan
            .delegations()
            .filter(|&(_, to)| to == user)
            .map(|(i, _)| i)
            .collect();
        if delegated.is_empty() {
            Role::Nobody
        } else {
            Role::Delegate(delegated)
        }
    }

    /// Does `user` get the plan's messages (announcements, reminders, deadline notices)? Its approvers do, and
    /// escalated people once it is escalated; delegates get only the decision delegated to them.
    #[must_use]
    pub fn receives<P: Outline + ?Sized>(&self, user: u64, plan: &P) -> bool {
        self.is_member(user) && self.approves(user, plan)
    }

    /// May `actor` see `plan` (in a queue)?
    #[must_use]
    pub fn sees<P: Outline + ?Sized>(&self, actor: Actor, plan: &P) -> bool {
        self.role(actor, plan) != Role::Nobody
    }

    /// [`Access::sees`] for a completed plan known by its summary (the history index's): its approvers, the
    /// people it was escalated to, and its decisions' delegates see it.
    #[must_use]
    pub fn sees_summary(&self, actor: Actor, plan: &Summary) -> bool {
        match actor {
            Actor::Deadline => true,
            Actor::Agent => false,
            Actor::User(user) if !self.is_member(user) => false,
            Actor::User(user) => {
                self.listed(user, &plan.approvers, &plan.escalated_to)
                    || plan.decisions.iter().any(|d| d.delegated_to == Some(user))
            }
        }
    }

    /// The people an approver `user` of `plan` may delegate its decisions to: every other member. Nobody for
    /// anyone else.
    #[must_use]
    pub fn delegates_for(&self, user: u64, plan: &Plan) -> Vec<u64> {
        if self.role(Actor::User(user), plan) != Role::Approver {
            return Vec::new();
        }
        self.members().filter(|m| *m != user).collect()
    }

    /// May `actor` take `action` on `plan`? Every action is named in each match below, with no wildcard arm: a
    /// new action does not compile until it is decided who may take it.
    pub fn check(&self, actor: Actor, plan: &Plan, action: &Action) -> Result<(), Refusal> {
        let user = match actor {
            Actor::User(user) if !self.is_member(user) => return Err(Refusal::Outsider),
            Actor::User(_) if action.is_scheduled() => return Err(Refusal::ClockOnly),
            Actor::Deadline if !action.is_scheduled() && *action != Action::Open => {
                return Err(Refusal::ClockOnly);
            }
            Actor::Deadline => return Ok(()),
            Actor::Agent => return Self::agent_may(action),
            Actor::User(_) if matches!(action, Action::Withdraw { .. }) => {
                return Err(Refusal::AgentOnly);
            }
            Actor::User(user) => user,
        };
        match self.role(actor, plan) {
            Role::Nobody => Err(Refusal::NotForYou),
            Role::Approver => self.approver_may(user, plan, action),
            Role::Delegate(mine) => Self::delegate_may(&mine, plan, action),
        }
    }

    /// What an agent may do to a plan: withdraw it (and look at it).
    fn agent_may(action: &Action) -> Result<(), Refusal> {
        match action {
            Action::Withdraw { .. } | Action::Open => Ok(()),
            Action::Answer { .. }
            | Action::StartCustom { .. }
            | Action::Custom { .. }
            | Action::Skip { .. }
            | Action::AnswerMulti { .. }
            | Action::AnswerInput { .. }
            | Action::Approve { .. }
            | Action::Decline { .. }
            | Action::StartRequestChanges { .. }
            | Action::RequestChanges { .. }
            | Action::Submit { .. }
            | Action::SignOff { .. }
            | Action::StartNote { .. }
            | Action::Note { .. }
            | Action::StartDelegate { .. }
            | Action::Delegate { .. }
            | Action::TakeBack { .. }
            | Action::ApplyDeadline
            | Action::Remind
            | Action::Escalate => Err(Refusal::AgentOnly),
        }
    }

    /// What an approver `user` (a member) may do on `plan`: every person's action, but a delegation only to
    /// another member, and one sign-off each.
    fn approver_may(&self, user: u64, plan: &Plan, action: &Action) -> Result<(), Refusal> {
        match action {
            Action::Delegate { to, .. } if !self.is_member(*to) || *to == user => {
                Err(Refusal::NoSuchDelegate)
            }
            Action::Submit { .. } | Action::SignOff { .. }
                if plan.approval.needs_signoffs() && plan.approval.signoffs.contains(&user) =>
            {
                Err(Refusal::AlreadySigned)
            }
            Action::Open
            | Action::Answer { .. }
            | Action::StartCustom { .. }
            | Action::Custom { .. }
            | Action::Skip { .. }
            | Action::AnswerMulti { .. }
            | Action::AnswerInput { .. }
            | Action::Approve { .. }
            | Action::Decline { .. }
            | Action::StartRequestChanges { .. }
            | Action::RequestChanges { .. }
            | Action::Submit { .. }
            | Action::SignOff { .. }
            | Action::StartNote { .. }
            | Action::Note { .. }
            | Action::StartDelegate { .. }
            | Action::Delegate { .. }
            | Action::TakeBack { .. } => Ok(()),
            // Refused before the role is asked (`check`); named here so that stays a decision.
            Action::ApplyDeadline | Action::Remind | Action::Escalate => Err(Refusal::ClockOnly),
            Action::Withdraw { .. } => Err(Refusal::AgentOnly),
        }
    }

    /// What a delegate may do on `plan`: look at it, and act on the decisions delegated to them (`mine`).
    fn delegate_may(mine: &[usize], plan: &Plan, action: &Action) -> Result<(), Refusal> {
        let decision = match action {
            Action::Open => return Ok(()),
            Action::Answer { decision, .. }
            | Action::Skip { decision, .. }
            | Action::AnswerMulti { decision, .. }
            | Action::AnswerInput { decision, .. }
            | Action::Approve { decision, .. }
            | Action::StartCustom { decision, .. }
            | Action::StartNote { decision, .. } => Some(*decision),
            Action::Custom { to, .. } | Action::Note { to, .. } => to.index_in(plan),
            // The whole plan's actions, and the delegation itself, are the approvers'.
            Action::StartDelegate { .. }
            | Action::Delegate { .. }
            | Action::TakeBack { .. }
            | Action::Decline { .. }
            | Action::StartRequestChanges { .. }
            | Action::RequestChanges { .. }
            | Action::Submit { .. }
            | Action::SignOff { .. }
            | Action::ApplyDeadline
            | Action::Remind
            | Action::Escalate
            | Action::Withdraw { .. } => None,
        };
        match decision {
            Some(i) if mine.contains(&i) => Ok(()),
            _ => Err(Refusal::NotDelegated),
        }
    }
}

/// Who calls the agent tools (MCP, the CLI, a hook): decides which plans the caller reaches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Caller {
    /// This machine: the agent commands on the queue's folder, `arbiter mcp` on stdio.
    Local,
    /// A `web.agentTokens` token (MCP over HTTP): that agent's name, the default `agent` of its plans; it reaches
    /// every plan, as the local commands do.
    Agent(String),
    /// A machine's token (`arbiter token add NAME`): it pushes plans that carry `machine: NAME`, and reads, awaits
    /// and withdraws those and nothing else.
    Machine(String),
}

impl Caller {
    /// May this caller read, await or withdraw `plan` (and read its notify file)? Never an answer: no agent tool
    /// answers a plan.
    #[must_use]
    pub fn reaches(&self, plan: &Plan) -> bool {
        match self {
            Caller::Local | Caller::Agent(_) => true,
            Caller::Machine(name) => plan.machine.as_deref() == Some(name.as_str()),
        }
    }

    /// The machine a plan this caller pushes carries.
    #[must_use]
    pub fn machine(&self) -> Option<&str> {
        match self {
            Caller::Machine(name) => Some(name),
            Caller::Local | Caller::Agent(_) => None,
        }
    }
}

#[cfg(test)]
#[path = "access_tests.rs"]
mod tests;
