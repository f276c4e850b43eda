//! The plan core: parse decision files, diagnose bad ones, and edit them surgically. Pure and synchronous.

mod diagnostic;
mod model;

pub use diagnostic::Diagnostic;
pub use model::{Decision, DecisionOption, DecisionStatus, Plan, PlanStatus, Priority};
