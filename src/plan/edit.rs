//! Edits as pure functions over the file text: only the lines that change are rewritten.

use serde_yaml::Mapping;

use super::parse::parse_with_frontmatter;
use super::{AnswerValue, DecisionStatus, Diagnostic, InputRefusal, Plan, PlanStatus};

mod check;
mod counts;
mod deadline;
mod decision;
mod owned_keys;
mod patch;
mod revise;
mod signoff;

use deadline::{apply_deadline, due_now};
use owned_keys::OwnedKeys;
use patch::Lines;
pub use revise::{carries, revise};
pub use signoff::answers_of;

/// A change the human asked for. `Answer` carries the label the human saw, so a tap on a view that the agent has
/// since changed records nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Edit {
    Answer {
        decision: String,
        key: String,
        label: String,
    },
    Custom {
        decision: String,
        text: String,
    },
    Skip {
        decision: String,
    },
    /// A typed answer (any kind but a `choice` option pick): `answer:` written as YAML of its type, and for an
    /// `edit` decision `edited:`. Checked against the decision as it is in the file ([`super::input::check_value`]):
    /// a value it does not accept records nothing ([`EditError::Input`]).
    Value {
        decision: String,
        value: AnswerValue,
        /// `edited:` of an `edit` decision (`None`: no such line, or it is cleared).
        edited: Option<bool>,
    },
    Submit,
    /// An elicitation plan (`elicitation: true`) is declined as a whole: `outcome: declined`, then completed like
    /// a submit, whatever is still pending.
    Decline,
    /// The owner sends the plan back (`🔁 Request changes`): `status: changes_requested` with `feedback` (exactly as
    /// typed), `feedback_by` and `feedback_at`; the answers stay as they are.
    RequestChanges {
        feedback: String,
    },
    /// Its agent takes the plan back unanswered: `status: withdrawn` with `withdrawn_by` (the edit's `by`),
    /// `withdrawn_at` and `withdraw_reason` (when given); the answers stay as they are.
    Withdraw {
        reason: Option<String>,
    },
    /// The deadline passed (`on_deadline: submit`): every pending decision gets its `default` (answered) or is
    /// skipped, then the plan is submitted — in one write.
    Deadline,
    /// A reminder was sent: `reminded_at` (frontmatter) is set to now; nothing else changes.
    Reminded,
    /// The plan was escalated: `escalated_at` (frontmatter) is set to now; nothing else changes.
    Escalated,
    /// A note on a decision (`note`), exactly as typed; the answer is left as it is.
    Note {
        decision: String,
        text: String,
    },
    /// The decision is delegated: `delegated_to` and `delegated_by` (user ids).
    Delegate {
        decision: String,
        to: u64,
        by: u64,
    },
    /// The delegation is taken back: `delegated_to` is cleared (`delegated_by` stays, the audit trail).
    TakeBack {
        decision: String,
    },
    /// An approver signs off (`require` > 1): `user` joins `signoffs`; the sign-off that reaches `require`
    /// also submits the plan. `answers` is what the approver saw (each decision's id, status and answer): if the
    /// file holds anything else, nothing is recorded.
    SignOff {
        user: u64,
        answers: Vec<(String, DecisionStatus, Option<String>)>,
    },
}

impl Edit {
    /// True for the edits that always complete the plan (a sign-off completes it when it is the last one
    /// needed: the edited plan's status says).
    #[must_use]
    pub fn submits(&self) -> bool {
        matches!(self, Edit::Submit | Edit::Deadline | Edit::Decline)
    }
}

/// Why an edit was not applied. The display text is what the user reads.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EditError {
    #[error("the plan file can't be read: {0}")]
    Invalid(Diagnostic),
    #[error("decision `{decision}` is no longer in the plan")]
    DecisionGone { decision: String },
    #[error("option `{key}` of decision `{decision}` changed since it was shown")]
    OptionChanged { decision: String, key: String },
    #[error("an answer can't be empty")]
    EmptyAnswer,
    #[error("{remaining} decision(s) still pending: answer or skip them before submitting")]
    NotFinished { remaining: usize },
    #[error("the plan is already submitted")]
    Completed,
    #[error("nothing is due for the clock to do on this plan now")]
    NotDue,
    #[error("a note can't be empty")]
    EmptyNote,
    #[error("you already signed off this plan")]
    AlreadySigned,
    #[error("the answers changed since they were shown for sign-off")]
    AnswersChanged,
    #[error("{0}")]
    Input(InputRefusal),
    #[error("decision `{decision}` is required: answer it, it can't be skipped")]
    Required { decision: String },
    #[error("say what the agent should change: the request can't be empty")]
    EmptyFeedback,
    #[error("an elicitation request is accepted or declined, not sent back for changes")]
    NotSendable,
    #[error("only an elicitation request can be declined")]
    NotDeclinable,
    #[error("the edit would leave the file unreadable ({0}); nothing was written")]
    WouldCorrupt(Diagnostic),
}

impl EditError {
    /// True when the file changed under the human's eyes: the view must be redrawn, nothing was recorded.
    #[must_use]
    pub fn is_stale(&self) -> bool {
        matches!(
            self,
            EditError::DecisionGone { .. }
                | EditError::OptionChanged { .. }
                | EditError::AnswersChanged
        )
    }
}

impl EditError {
    /// The refusal of a human's input (a number out of range, a text too long, …): its text says what is
    /// accepted.
    #[must_use]
    pub fn input_refusal(&self) -> Option<&InputRefusal> {
        match self {
            EditError::Input(refusal) => Some(refusal),
            _ => None,
        }
    }
}

/// Applies `edit` to the file `text`, stamping `by` (Telegram user id) and `now` (RFC 3339); returns the new text.
///
/// Decision lines (`status`, `answer`, `answered_at`, `answered_by`) and the frontmatter's `status`, `total`,
/// `answered`, `remaining`, `updated_at` (and `completed_at` on submit) are rewritten or inserted; every other
/// byte stays as it was.
pub fn apply(
    text: &str,
    stem: &str,
    edit: &Edit,
    by: Option<&str>,
    now: &str,
) -> Result<String, EditError> {
    apply_parsed(text, stem, edit, by, now).map(|(new_text, _)| new_text)
}

/// [`apply`], also returning the edited text as parsed by its read-back check: the text is parsed once before
/// the edit and once after (the check), and the caller needs no third parse.
pub fn apply_parsed(
    text: &str,
    stem: &str,
    edit: &Edit,
    by: Option<&str>,
    now: &str,
) -> Result<(String, Plan), EditError> {
    let parsed = Parsed::parse(text, stem).map_err(EditError::Invalid)?;
    apply_to(text, &parsed, stem, edit, by, now)
}

/// A plan file as parsed for an edit: the plan, and its frontmatter as YAML read it (an edit checks every key
/// of it after the edit). A caller that must look at the plan before deciding on the edit parses once.
#[derive(Debug, Clone)]
pub struct Parsed {
    pub plan: Plan,
    frontmatter: Mapping,
}

impl Parsed {
    /// Parses the file `text`; `stem` (the file name without `.md`) is the id when the frontmatter has none.
    pub fn parse(text: &str, stem: &str) -> Result<Parsed, Diagnostic> {
        let (plan, frontmatter) = parse_with_frontmatter(text, stem)?;
        Ok(Parsed { plan, frontmatter })
    }
}

/// [`apply_parsed`] on a file already parsed: `parsed` must be `text` as [`Parsed::parse`] read it.
pub fn apply_to(
    text: &str,
    parsed: &Parsed,
    stem: &str,
    edit: &Edit,
    by: Option<&str>,
    now: &str,
) -> Result<(String, Plan), EditError> {
    if *edit == Edit::Deadline {
        return apply_deadline(text, &parsed.plan, stem, by, now);
    }
    let plan = &parsed.plan;
    if plan.status == PlanStatus::Completed {
        return Err(EditError::Completed);
    }
    let due = due_now(plan, now);
    if (*edit == Edit::Reminded && !due.remind) || (*edit == Edit::Escalated && !due.escalate) {
        return Err(EditError::NotDue);
    }
    let mut file = Lines::new(text);
    decision::write(&mut file, plan, edit, by, now)?;
    let owned = OwnedKeys::of(plan, edit, by, now)?;
    owned.write(&mut file, plan, &parsed.frontmatter);
    let new_text = file.join();
    // One parse of the result for every read-back check.
    let after = check::read_back(&new_text, stem, parsed, edit, &owned)?;
    Ok((new_text, after))
}
