//! What the announcer task is asked to send: the watcher, the clock and the digest queue notices, the
//! announcer sends them (so a command or a tap never waits behind an announcement).

use std::sync::Arc;

use crate::plan::Plan;
use crate::queue::{Listed, Loaded, Problem};

/// What the announcer task is asked to send.
#[derive(Debug)]
pub enum Notice {
    /// Briefs shared with the store's cache and the snapshot: a notice about thousands of plans copies none.
    Startup(Vec<Arc<Listed>>),
    New(Vec<Arc<Listed>>),
    Problem(Problem),
    /// `remind_every` passed (folded with other announcements in a burst, like new plans).
    Reminder(Arc<Loaded>),
    /// `escalate_after` passed: the plan goes to these users.
    Escalated(Plan, Vec<u64>),
    /// The deadline submitted the plan.
    DeadlineSubmitted(Plan),
    /// Its agent took the plan back: the messages that announced it (and became its views when opened) now say
    /// it was withdrawn.
    Withdrawn(Plan),
    /// A plan left `pending/` for `completed/` otherwise (submitted, answered by a deadline): nothing to redraw,
    /// and nothing to look at for it at the next start.
    Ended(String),
    /// The daily digest for this local date is due.
    Digest(chrono::NaiveDate),
    /// A standing rule paused itself (what it allowed failed twice in a row): its maker is told.
    RulePaused(Box<crate::queue::rules::Rule>),
    /// `rules.json` can't be trusted (it does not read, or rules in it have no audit line): everyone is told.
    RulesWarning(String),
}
