//! The interface each agent's dialect implements (`agent::hook::dialect`): the core reads and answers through it,
//! and knows nothing else of any agent.

use super::{Agent, Event, InputError, Prompt, Verdict};
use crate::agent::hook::install::Install;

/// One agent's hook input and output, and its hook configuration.
pub trait Dialect: Sync {
    /// Who this is.
    fn agent(&self) -> Agent;
    /// Reads the hook input. `event` is the event the command line names (`--event`), for an input that names
    /// none or can't be read.
    fn parse(&self, text: &str, event: Option<&str>) -> Result<Prompt, InputError>;
    /// The answer to print for `verdict` on `event`, or `None` to print nothing.
    fn render(&self, event: Event, verdict: &Verdict) -> Option<String>;
    /// What this agent's "no decision" does, for the line on stderr: `ask` (its own prompt), or `deny` where it
    /// has no prompt to fall back on.
    fn no_decision(&self, _event: Event) -> &'static str {
        "ask"
    }
    /// Where its hooks go and which events they answer.
    fn install(&self) -> Install;
}
