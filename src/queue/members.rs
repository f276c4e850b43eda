//! Who the daemon serving a queue may talk to, as its config says (`telegram.allowedUsers` and `people`), carried
//! by the [`Queue`](super::Queue) its opener made with the config: a standing rule answers in the asking process,
//! with no daemon, and answers only for a maker the config still allows (`actions::Access` decides, from these).

/// The config's members and their names.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Members {
    /// `telegram.allowedUsers`.
    pub allowed: Vec<u64>,
    /// `people`: name → user id.
    pub people: Vec<(String, u64)>,
}
