//! Who may take which action: decided here, once, by the actor's user id — never by the chat a request came from.

use std::collections::HashSet;

use crate::plan::{Diagnostic, Plan};

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
    /// Deadlines, reminders and escalations are the daemon's clock's to apply, and the clock only does those.
    #[error("⛔ Only the deadline timer does this.")]
    ClockOnly,
}

/// The permission rules: today, the allowed users may do everything a person does on every plan; the deadline
/// timer (the daemon's own clock, never an input anyone can forge) applies deadlines, reminders and escalations
/// on every plan, and nothing else.
#[derive(Debug, Clone, Default)]
pub struct Access {
    allowed: HashSet<u64>,
}

impl Access {
    #[must_use]
    pub fn new(allowed: impl IntoIterator<Item = u64>) -> Access {
        Access {
            allowed: allowed.into_iter().collect(),
        }
    }

    /// May this user use the front ends at all (get answers from the bot, log in)? Front ends ask this before
    /// anything else, so an outsider gets one fixed refusal and no plan data.
    #[must_use]
    pub fn is_member(&self, user: u64) -> bool {
        self.allowed.contains(&user)
    }

    /// The member a plan names in a list of people (`escalate_to`): a member's user id. (Names come with the
    /// config's `people`.) `None`: nobody the bot may talk to.
    #[must_use]
    pub fn resolve(&self, person: &str) -> Option<u64> {
        person.trim().parse().ok().filter(|id| self.is_member(*id))
    }

    /// A plan naming someone the bot may not talk to (`escalate_to`) is malformed for this configuration: the
    /// diagnosis names the line and the person. `None`: everyone it names is a member.
    #[must_use]
    pub fn unknown_people(&self, plan: &Plan) -> Option<Diagnostic> {
        let t = &plan.timing;
        let nobody = t.escalate_to.iter().find(|p| self.resolve(p).is_none())?;
        Some(Diagnostic::new(
            t.escalate_to_line,
            format!(
                "`escalate_to`: `{nobody}` is nobody the bot may talk to: use a user id from telegram.allowedUsers"
            ),
        ))
    }

    /// The users the front ends talk to unprompted (announcements).
    pub fn members(&self) -> impl Iterator<Item = u64> + '_ {
        self.allowed.iter().copied()
    }

    /// May `actor` see `plan` (in a queue, in an announcement)?
    #[must_use]
    pub fn sees(&self, actor: Actor, _plan: &Plan) -> bool {
        match actor {
            Actor::User(user) => self.is_member(user),
            Actor::Deadline => true,
        }
    }

    /// May `actor` take `action` on `plan`?
    pub fn check(&self, actor: Actor, plan: &Plan, action: &Action) -> Result<(), Refusal> {
        match actor {
            Actor::User(user) if !self.is_member(user) => Err(Refusal::Outsider),
            Actor::User(_) if action.is_scheduled() => Err(Refusal::ClockOnly),
            Actor::Deadline if !action.is_scheduled() && *action != Action::Open => {
                Err(Refusal::ClockOnly)
            }
            _ if !self.sees(actor, plan) => Err(Refusal::NotForYou),
            _ => Ok(()),
        }
    }
}
