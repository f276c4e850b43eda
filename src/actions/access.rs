//! Who may take which action: decided here, once, by the actor's user id — never by the chat a request came from.

use std::collections::HashSet;

use crate::plan::Plan;

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
}

/// The permission rules: today, the allowed users may do everything on every plan; the deadline timer may act on
/// every plan (it is the daemon's own clock, never an input an outsider can forge).
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
    pub fn check(&self, actor: Actor, plan: &Plan, _action: &Action) -> Result<(), Refusal> {
        match actor {
            Actor::User(user) if !self.is_member(user) => Err(Refusal::Outsider),
            _ if !self.sees(actor, plan) => Err(Refusal::NotForYou),
            _ => Ok(()),
        }
    }
}
