//! The schedule: deadlines, reminders, escalation and the daily digest. One more front end of the action layer,
//! with the actor `deadline`; what it decides goes to the bot's announcer as notices.

mod clock;
pub(crate) mod digest;
mod rules;

pub(crate) use clock::{catch_up, run};
