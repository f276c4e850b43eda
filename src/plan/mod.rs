//! The plan core: parse decision files, diagnose bad ones, and edit them surgically. Pure and synchronous.

mod brief;
mod diagnostic;
pub mod diff;
pub mod duration;
mod edit;
mod fast_yaml;
mod frontmatter;
pub mod input;
pub mod kind;
pub mod lines;
mod model;
mod parse;
pub mod people;
pub mod slug;
mod summary;
pub mod timing;
pub mod yaml_value;

pub use brief::{Brief, Outline};
pub use diagnostic::Diagnostic;
pub use edit::{
    Edit, EditError, Parsed, answers_of, apply, apply_parsed, apply_to, carries, revise,
};
pub use input::{InputRefusal, prompt_for};
pub use kind::{AnswerValue, Kind, Number, Proposal, TextFormat};
pub use model::{
    Decision, DecisionOption, DecisionStatus, Feedback, OUTCOME_DECLINED, Plan, PlanStatus,
    Priority, Ruling, Withdrawal,
};
pub use parse::{parse, parse_bytes};
pub use people::Approval;
pub use summary::{DecisionSummary, Summary};
pub use timing::{Due, OnDeadline, Timing};

#[cfg(test)]
mod kind_tests;
#[cfg(test)]
mod proptests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod timing_tests;
#[cfg(test)]
pub(crate) mod yaml_readers;
