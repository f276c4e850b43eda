//! Why a JSON plan spec was refused. The display text is what the agent reads: it names the place in the spec
//! (a line and column, or a field path such as `decisions[1].options[0].key`) and the reason.

/// Why a JSON plan spec can't be pushed; nothing was written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SpecError {
    /// The JSON text does not read as a spec: its line and column, the place (`decisions[0]: `, or empty) and
    /// serde's reason.
    #[error("{line}:{column}: {at}{reason}")]
    Json {
        line: usize,
        column: usize,
        at: String,
        reason: String,
    },
    /// An already-parsed JSON value (the MCP tool's arguments) does not read as a spec.
    #[error("{at}{reason}")]
    Value { at: String, reason: String },
    /// A decision's kind or its keys do not make sense (the file format's diagnosis), or an elicitation request's
    /// schema can't be asked: the place and the reason.
    #[error("{at}: {reason}")]
    Kind { at: String, reason: String },
    #[error("{field}: must not be empty")]
    Empty { field: String },
    #[error("{field}: must be one line (it contains a line break)")]
    LineBreak { field: String },
    #[error("priority: unknown priority `{0}`: use low, normal, high or urgent")]
    UnknownPriority(String),
    #[error("decisions: a plan needs at least one decision")]
    NoDecisions,
    #[error("{field}: 0 is no Telegram user id")]
    NoUserId { field: String },
    #[error("require: must be at least 1")]
    RequireZero,
    #[error(
        "require: {require} sign-offs needs at least {require} approvers (approvers names {named})"
    )]
    TooFewApprovers { require: u32, named: usize },
    #[error("{decision}.id: duplicate decision id `{id}` (also decisions[{first}])")]
    DuplicateDecisionId {
        decision: String,
        id: String,
        first: usize,
    },
    #[error("{option}.key: a key can't contain a backtick")]
    BacktickInKey { option: String },
    #[error("{option}.key: duplicate option key `{key}` (also {decision}.options[{first}])")]
    DuplicateOptionKey {
        option: String,
        key: String,
        decision: String,
        first: usize,
    },
    #[error(
        "the plan would read back with decisions {read:?} instead of {asked:?}: \
         a context holds a line that starts a new section (`## ...`); rephrase it"
    )]
    DecisionsChanged {
        read: Vec<String>,
        asked: Vec<String>,
    },
    #[error(
        "decisions[{n}].title: the plan would read back with the title {read:?} instead of {asked:?}; rephrase it"
    )]
    TitleChanged {
        n: usize,
        read: String,
        asked: String,
    },
    #[error(
        "decisions[{n}]: the plan would read back with other options than given: \
         its context holds an `**Options:**` line or a list the file format takes for options; rephrase it"
    )]
    OptionsChanged { n: usize },
}
