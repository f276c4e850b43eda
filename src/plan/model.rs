//! What a parsed decision file holds.

use std::fmt;
use std::ops::Range;

use super::kind::{AnswerValue, Kind};
use super::people::Approval;
use super::timing::Timing;

/// How urgent a plan is; decides its icon, its sort order and whether its announcement makes a sound.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum Priority {
    Urgent,
    High,
    #[default]
    Normal,
    Low,
}

impl Priority {
    pub const ALL: [Priority; 4] = [
        Priority::Urgent,
        Priority::High,
        Priority::Normal,
        Priority::Low,
    ];

    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Priority::Urgent => "urgent",
            Priority::High => "high",
            Priority::Normal => "normal",
            Priority::Low => "low",
        }
    }

    #[must_use]
    pub fn parse(s: &str) -> Option<Priority> {
        Priority::ALL.into_iter().find(|p| p.as_str() == s)
    }

    /// The coloured dot the views show beside a plan of this priority.
    #[must_use]
    pub fn icon(self) -> &'static str {
        match self {
            Priority::Urgent => "🔴",
            Priority::High => "🟠",
            Priority::Normal => "🟡",
            Priority::Low => "⚪",
        }
    }
}

impl fmt::Display for Priority {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where a plan is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum PlanStatus {
    #[default]
    Pending,
    InProgress,
    Completed,
    /// The owner sent the plan back with feedback (`🔁 Request changes`); it waits for the agent's revision in
    /// `<queue>/returned/`.
    ChangesRequested,
    /// Its agent took it back unanswered (`arbiter withdraw`): in `<queue>/completed/`, with `withdrawn_at`,
    /// `withdrawn_by` and the reason; no notify file, and stats do not count it as answered.
    Withdrawn,
}

impl PlanStatus {
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            PlanStatus::Pending => "pending",
            PlanStatus::InProgress => "in_progress",
            PlanStatus::Completed => "completed",
            PlanStatus::ChangesRequested => "changes_requested",
            PlanStatus::Withdrawn => "withdrawn",
        }
    }

    #[must_use]
    pub fn parse(s: &str) -> Option<PlanStatus> {
        [
            PlanStatus::Pending,
            PlanStatus::InProgress,
            PlanStatus::Completed,
            PlanStatus::ChangesRequested,
            PlanStatus::Withdrawn,
        ]
        .into_iter()
        .find(|p| p.as_str() == s)
    }
}

impl fmt::Display for PlanStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where one decision is (serialized as the file writes it: `pending`, `answered`, `skipped`).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum DecisionStatus {
    #[default]
    Pending,
    Answered,
    Skipped,
}

impl DecisionStatus {
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            DecisionStatus::Pending => "pending",
            DecisionStatus::Answered => "answered",
            DecisionStatus::Skipped => "skipped",
        }
    }

    #[must_use]
    pub fn parse(s: &str) -> Option<DecisionStatus> {
        [
            DecisionStatus::Pending,
            DecisionStatus::Answered,
            DecisionStatus::Skipped,
        ]
        .into_iter()
        .find(|p| p.as_str() == s)
    }
}

impl fmt::Display for DecisionStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One choice of a decision: `` - `key` — label ``.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecisionOption {
    pub key: String,
    pub label: String,
}

/// One `## ` section of the body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    pub id: String,
    pub title: String,
    pub status: DecisionStatus,
    /// The recorded answer: an option key, or any other text for a custom answer.
    pub answer: Option<String>,
    pub answered_at: Option<String>,
    /// Telegram user id of whoever answered (the audit trail).
    pub answered_by: Option<String>,
    pub allow_custom: bool,
    /// The option key the deadline answers with (`on_deadline: submit`); always one of `options`.
    pub default: Option<String>,
    /// A person's note on the decision (`💬 Note`), exactly as typed; independent of the answer.
    pub note: Option<String>,
    /// User id of the person this decision is delegated to (`👉 Delegate`).
    pub delegated_to: Option<u64>,
    /// User id of the person who delegated it.
    pub delegated_by: Option<u64>,
    /// The `**Context:**` text, as written (Markdown source, without the `**Context:**` marker).
    pub context: String,
    pub options: Vec<DecisionOption>,
    /// What shape of answer it takes (`kind`, default `choice`) and its constraints.
    pub kind: Kind,
    /// The recorded answer typed by the kind (`answer` holds it as text): an option key or custom text for
    /// `choice`, a list of keys for `multi`, a number, a boolean, the text of a `text` or `edit`.
    pub value: Option<AnswerValue>,
    /// `default` typed by the kind (`default` holds it as text).
    pub default_value: Option<AnswerValue>,
    /// An `edit` decision's `edited`: whether the recorded text differs from the proposal (`None`: not given,
    /// e.g. an option was picked).
    pub edited: Option<bool>,
    /// `carried: true`: the answer was carried over from the plan's previous revision (its id, kind and options
    /// did not change); a new answer clears it.
    pub carried: bool,
    /// `required: true`: the decision must be answered, it cannot be skipped (an elicitation's required field).
    pub required: bool,
    /// 1-based line of the `## ` heading.
    pub line: usize,
    /// 0-based line indices of the `key: value` block; an empty range at the insertion point when there is
    /// none (just after the heading).
    pub meta_lines: Range<usize>,
}

impl Decision {
    /// The option whose key is `key`.
    #[must_use]
    pub fn chosen_option_of(&self, key: &str) -> Option<usize> {
        self.options.iter().position(|o| o.key == key)
    }

    /// The option whose key is the recorded answer, if the answer is one.
    #[must_use]
    pub fn chosen_option(&self) -> Option<usize> {
        let answer = self.answer.as_deref()?;
        self.options.iter().position(|o| o.key == answer)
    }

    /// True when the recorded answer is not one of the option keys: a custom text for `choice`, a list holding a
    /// custom text for `multi`. Never for the kinds whose answer is typed (text, number, boolean, edit).
    #[must_use]
    pub fn is_custom_answer(&self) -> bool {
        if self.status != DecisionStatus::Answered {
            return false;
        }
        match (&self.kind, &self.value) {
            (Kind::Choice, _) => self.answer.is_some() && self.chosen_option().is_none(),
            (Kind::Multi { .. }, Some(AnswerValue::List(keys))) => keys
                .iter()
                .any(|k| !self.options.iter().any(|o| &o.key == k)),
            _ => false,
        }
    }

    /// The options a `multi` answer picked (indices, in option order).
    #[must_use]
    pub fn picked_options(&self) -> Vec<usize> {
        match &self.value {
            Some(AnswerValue::List(keys)) => self
                .options
                .iter()
                .enumerate()
                .filter(|(_, o)| keys.contains(&o.key))
                .map(|(i, _)| i)
                .collect(),
            _ => Vec::new(),
        }
    }
}

/// `outcome` of a plan declined as a whole.
pub const OUTCOME_DECLINED: &str = "declined";

/// The owner's request for changes (`feedback`, `feedback_by`, `feedback_at`): on a plan sent back, and on the
/// revision that answers it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Feedback {
    /// What to change, exactly as typed.
    pub text: String,
    /// User id of whoever asked.
    pub by: Option<String>,
    /// When (RFC 3339, UTC).
    pub at: Option<String>,
}

/// A plan its agent took back (`withdrawn_at`, `withdrawn_by`, `withdraw_reason`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Withdrawal {
    /// Who took it back: `agent:<name>`.
    pub by: Option<String>,
    /// When (RFC 3339, UTC).
    pub at: Option<String>,
    /// Why, as the agent said it.
    pub reason: Option<String>,
}

/// What a permission plan asks to allow, as a standing rule would match it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ruling {
    /// The agent's name for the tool (`Bash`, `apply_patch`, …).
    pub tool: String,
    /// The exact command (for a file edit: the files it changes; for any other call: its input as JSON).
    pub command: String,
    /// How long `⏱ Allow <agent> for N min` allows, as the option said (the config's `rules.grantMinutes` caps
    /// it).
    pub grant_minutes: Option<u32>,
}

/// A parsed decision file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    pub id: String,
    pub title: String,
    pub priority: Priority,
    pub status: PlanStatus,
    pub tag: Option<String>,
    pub agent: Option<String>,
    /// `machine`: the name of the machine token the plan was pushed with (an agent on another machine); the
    /// daemon writes it, and a machine's token reaches only the plans that name it.
    pub machine: Option<String>,
    pub session: Option<String>,
    pub notify_session: Option<String>,
    pub created_at: Option<String>,
    pub updated_at: Option<String>,
    pub completed_at: Option<String>,
    /// Deadline, reminders and escalation (all optional).
    pub timing: Timing,
    /// Approvers, required sign-offs and the sign-offs so far (all optional).
    pub approval: Approval,
    /// `elicitation: true`: an MCP elicitation request made a plan; it may be declined as a whole.
    pub elicitation: bool,
    /// `outcome`: how the plan ended when not by a submit (`declined`); written by the daemon.
    pub outcome: Option<String>,
    /// `revision`: 1 for a plan as first pushed, N+1 for the agent's answer (`push --revise`) to revision N.
    pub revision: u32,
    /// `feedback` (with `feedback_by`, `feedback_at`): the request for changes the plan was sent back with, or
    /// (on a revision) the one it answers.
    pub feedback: Option<Feedback>,
    /// `withdrawn_at` (with `withdrawn_by`, `withdraw_reason`): the plan's agent took it back unanswered.
    pub withdrawal: Option<Withdrawal>,
    /// `project`: the folder the agent works in (absolute), when the plan comes from an agent's hook.
    pub project: Option<String>,
    /// `rule_tool`, `rule_command`, `grant_minutes`: what a permission plan asks to allow, for the standing rule
    /// its `🔁 Always allow this` or `⏱ Allow … for N min` option makes.
    pub ruling: Option<Ruling>,
    /// `reply_to`: the plan this one follows up (an agent's finished card: the session's previous card); its
    /// announcement is sent as a reply to that plan's.
    pub reply_to: Option<String>,
    /// The plan's own context: the body between the `# ` heading and the first decision, trimmed,
    /// without `---` rules.
    pub context: String,
    pub decisions: Vec<Decision>,
    /// 0-based line indices of the frontmatter's YAML (between the `---` lines).
    pub frontmatter_lines: Range<usize>,
}

impl Plan {
    #[must_use]
    pub fn decision(&self, id: &str) -> Option<&Decision> {
        self.decisions.iter().find(|d| d.id == id)
    }

    #[must_use]
    pub fn count(&self, status: DecisionStatus) -> usize {
        self.decisions.iter().filter(|d| d.status == status).count()
    }

    /// Decisions with status answered.
    #[must_use]
    pub fn answered(&self) -> usize {
        self.count(DecisionStatus::Answered)
    }

    /// Decisions still pending.
    #[must_use]
    pub fn remaining(&self) -> usize {
        self.count(DecisionStatus::Pending)
    }

    /// Index of the first pending decision at or after `from`, wrapping around.
    #[must_use]
    pub fn next_pending(&self, from: usize) -> Option<usize> {
        let n = self.decisions.len();
        (0..n)
            .map(|i| (from + i) % n)
            .find(|&i| self.decisions[i].status == DecisionStatus::Pending)
    }

    /// What the daemon's clock must do for this plan at `now` ([`super::Timing::due`], counting from
    /// `created_at`).
    #[must_use]
    pub fn due(&self, now: chrono::DateTime<chrono::Utc>) -> super::Due {
        let created = self
            .created_at
            .as_deref()
            .and_then(super::timing::parse_time);
        self.timing.due(created, now)
    }

    /// True when the plan was declined as a whole (`outcome: declined`).
    #[must_use]
    pub fn declined(&self) -> bool {
        self.outcome.as_deref() == Some(OUTCOME_DECLINED)
    }

    /// The session the completion notification is for: `notify_session`, else `session`, else `agent`.
    #[must_use]
    pub fn notify_target(&self) -> Option<&str> {
        self.notify_session
            .as_deref()
            .or(self.session.as_deref())
            .or(self.agent.as_deref())
    }
}
