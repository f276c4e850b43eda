//! The queue on disk: plans in pending/, completed/ and notify/, written crash-safely.

pub mod atomic;
pub mod audit;
pub mod history;
pub mod instance;
mod members;
pub mod notify_file;
pub mod rules;
mod store;
pub mod watcher;

pub use members::Members;
pub use store::{
    Briefs, Delta, Edited, Listed, Listing, Loaded, Location, Outcome, Problem, Queue, Revised,
    Scan, StoreError, is_plan_name, load, stem,
};
