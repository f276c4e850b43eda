//! What `status`, `get` and `await` tell an agent about a plan: serializable reports and their text form.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::plan::{Decision, DecisionStatus, Kind, Plan};
use crate::queue::{Loaded, Location};

/// A plan's state and counts (`arbiter status --json`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct StatusReport {
    pub id: String,
    pub title: String,
    /// pending | in_progress | completed | changes_requested
    pub status: String,
    /// low | normal | high | urgent
    pub priority: String,
    pub tag: Option<String>,
    pub agent: Option<String>,
    pub session: Option<String>,
    pub notify_session: Option<String>,
    /// The folder the file is in: pending | completed | returned (sent back, waiting for a revision)
    pub location: String,
    /// 1 for a plan as first pushed, N+1 for the agent's revision of revision N (left out while it is 1, so a
    /// plan never revised reads as it always did).
    #[serde(default = "first", skip_serializing_if = "is_first")]
    pub revision: u32,
    /// The owner's request for changes: on a plan sent back (`status: changes_requested`), and on the revision
    /// that answers it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub feedback: Option<String>,
    /// Telegram user id of whoever asked for the changes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub feedback_by: Option<String>,
    /// When the changes were asked for (RFC 3339, UTC).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub feedback_at: Option<String>,
    /// Who took the plan back unanswered (`agent:<name>`), on a withdrawn plan.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub withdrawn_by: Option<String>,
    /// When it was withdrawn (RFC 3339, UTC).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub withdrawn_at: Option<String>,
    /// Why, as its agent said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub withdraw_reason: Option<String>,
    pub path: PathBuf,
    pub created_at: Option<String>,
    pub updated_at: Option<String>,
    pub completed_at: Option<String>,
    /// When the answers are due (RFC 3339, UTC), if the plan has a deadline.
    pub deadline: Option<String>,
    /// True while the plan is pending past its deadline.
    pub overdue: bool,
    pub total: usize,
    pub answered: usize,
    pub skipped: usize,
    pub remaining: usize,
    /// How many distinct approvers must sign off (`require`, default 1).
    pub require: usize,
    /// Telegram user ids of the approvers who signed off so far, in order (empty unless `require` > 1).
    pub signoffs: Vec<u64>,
}

/// One decision's state and answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct DecisionReport {
    pub id: String,
    pub title: String,
    /// pending | answered | skipped
    pub status: String,
    /// The answer, typed by the decision's kind: an option key or the human's own text (`choice`, `custom`), a
    /// list of option keys (`multi`), a string (`text`, `edit`), a number, a boolean; null unless answered.
    pub answer: Option<serde_json::Value>,
    /// True when the answer is not one of the option keys (typed by the human).
    pub custom: bool,
    /// The decision's kind when it is not `choice`: multi | text | number | boolean | edit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// An `edit` decision: true when the human edited the proposal, false when they approved it as is (absent
    /// when an option was picked).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub edited: Option<bool>,
    pub answered_at: Option<String>,
    /// Telegram user id of whoever answered.
    pub answered_by: Option<String>,
    /// A person's note on the decision, exactly as typed (independent of the answer).
    pub note: Option<String>,
    /// Telegram user id of the person the decision is delegated to.
    pub delegated_to: Option<u64>,
}

/// A plan's state, counts and answers (`arbiter get --json`, `arbiter await --json`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct AnswersReport {
    #[serde(flatten)]
    pub plan: StatusReport,
    pub decisions: Vec<DecisionReport>,
    /// decision id → answer, typed as in `decisions` (null when skipped or not answered yet).
    pub answers: BTreeMap<String, Option<serde_json::Value>>,
    /// `declined` when an elicitation was declined as a whole.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<String>,
    /// An elicitation request's result, as MCP defines it: `{"action": "accept", "content": {...}}` once
    /// completed (skipped optional fields left out), `{"action": "decline"}`; absent for other plans and while
    /// pending.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elicitation: Option<serde_json::Value>,
}

impl StatusReport {
    #[must_use]
    pub fn of(loaded: &Loaded) -> StatusReport {
        let p = &loaded.plan;
        StatusReport {
            id: p.id.clone(),
            title: p.title.clone(),
            status: p.status.as_str().to_owned(),
            priority: p.priority.as_str().to_owned(),
            tag: p.tag.clone(),
            agent: p.agent.clone(),
            session: p.session.clone(),
            notify_session: p.notify_session.clone(),
            location: loaded.location.as_str().to_owned(),
            revision: p.revision,
            feedback: p.feedback.as_ref().map(|f| f.text.clone()),
            feedback_by: p.feedback.as_ref().and_then(|f| f.by.clone()),
            feedback_at: p.feedback.as_ref().and_then(|f| f.at.clone()),
            withdrawn_by: p.withdrawal.as_ref().and_then(|w| w.by.clone()),
            withdrawn_at: p.withdrawal.as_ref().and_then(|w| w.at.clone()),
            withdraw_reason: p.withdrawal.as_ref().and_then(|w| w.reason.clone()),
            path: loaded.path.clone(),
            created_at: p.created_at.clone(),
            updated_at: p.updated_at.clone(),
            completed_at: p.completed_at.clone(),
            deadline: p
                .timing
                .deadline
                .map(|d| d.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)),
            overdue: loaded.location == Location::Pending && p.timing.overdue(chrono::Utc::now()),
            total: p.decisions.len(),
            answered: p.answered(),
            skipped: p.count(DecisionStatus::Skipped),
            remaining: p.remaining(),
            require: p.approval.require,
            signoffs: p.approval.signoffs.clone(),
        }
    }

    /// Human-readable lines.
    #[must_use]
    pub fn text(&self) -> String {
        let mut out = format!("{}  {}\n", self.id, self.title);
        let _ = writeln!(out, "status:    {} (in {}/)", self.status, self.location);
        let _ = writeln!(out, "priority:  {}", self.priority);
        if self.revision > 1 {
            let _ = writeln!(out, "revision:  {}", self.revision);
        }
        if let Some(feedback) = &self.feedback {
            let by = self
                .feedback_by
                .as_deref()
                .map(|b| format!(" (by {b})"))
                .unwrap_or_default();
            let _ = writeln!(out, "feedback:  {}{by}", one_line(feedback));
        }
        if let Some(tag) = &self.tag {
            let _ = writeln!(out, "tag:       {tag}");
        }
        let _ = writeln!(
            out,
            "progress:  {}/{} answered, {} skipped, {} remaining",
            self.answered, self.total, self.skipped, self.remaining
        );
        if let Some(at) = &self.deadline {
            let overdue = if self.overdue { " (overdue)" } else { "" };
            let _ = writeln!(out, "deadline:  {at}{overdue}");
        }
        if self.require > 1 {
            let ids: Vec<String> = self.signoffs.iter().map(u64::to_string).collect();
            let _ = writeln!(
                out,
                "signoffs:  {}/{} {}",
                self.signoffs.len(),
                self.require,
                ids.join(", ")
            );
        }
        if let Some(at) = &self.completed_at {
            let _ = writeln!(out, "completed: {at}");
        }
        let _ = writeln!(out, "file:      {}", self.path.display());
        out
    }
}

impl DecisionReport {
    #[must_use]
    pub fn of(d: &Decision) -> DecisionReport {
        let answered = d.status == DecisionStatus::Answered;
        DecisionReport {
            id: d.id.clone(),
            title: d.title.clone(),
            status: d.status.as_str().to_owned(),
            answer: answered.then(|| answer_json(d)).flatten(),
            custom: d.is_custom_answer(),
            kind: (d.kind != Kind::Choice).then(|| d.kind.name().to_owned()),
            edited: if answered { d.edited } else { None },
            answered_at: d.answered_at.clone(),
            answered_by: d.answered_by.clone(),
            note: d.note.clone(),
            delegated_to: d.delegated_to,
        }
    }
}

impl AnswersReport {
    #[must_use]
    pub fn of(loaded: &Loaded) -> AnswersReport {
        let decisions: Vec<DecisionReport> = loaded
            .plan
            .decisions
            .iter()
            .map(DecisionReport::of)
            .collect();
        let answers = decisions
            .iter()
            .map(|d| (d.id.clone(), d.answer.clone()))
            .collect();
        AnswersReport {
            plan: StatusReport::of(loaded),
            decisions,
            answers,
            outcome: loaded.plan.outcome.clone(),
            elicitation: elicitation_result(&loaded.plan),
        }
    }

    /// Human-readable lines: the status, then one line per decision.
    #[must_use]
    pub fn text(&self) -> String {
        let mut out = self.plan.text();
        out.push('\n');
        for (n, d) in self.decisions.iter().enumerate() {
            let answer = match (d.status.as_str(), &d.answer) {
                ("answered", Some(a)) if d.custom => format!("{} (custom)", one_line(&text_of(a))),
                ("answered", Some(a)) if d.edited == Some(true) => {
                    format!("{} (edited)", one_line(&text_of(a)))
                }
                ("answered", Some(a)) => one_line(&text_of(a)),
                (status, _) => format!("({status})"),
            };
            let _ = write!(out, "{}. {} [{}]: {answer}", n + 1, d.title, d.id);
            match (&d.answered_at, &d.answered_by) {
                (Some(at), Some(by)) => {
                    let _ = write!(out, "  — {at} by {by}");
                }
                (Some(at), None) => {
                    let _ = write!(out, "  — {at}");
                }
                _ => {}
            }
            out.push('\n');
            if let Some(note) = &d.note {
                let _ = writeln!(out, "   note: {}", one_line(note));
            }
        }
        out
    }
}

/// A decision's answer as JSON of its kind (`None` when it has none).
fn answer_json(d: &Decision) -> Option<serde_json::Value> {
    match (&d.kind, &d.value) {
        // A choice's answer is its text, exactly as before kinds existed.
        (Kind::Choice, _) => d.answer.clone().map(serde_json::Value::String),
        (_, Some(v)) => Some(v.to_json()),
        (_, None) => None,
    }
}

/// An elicitation plan's result as MCP defines it (`ElicitResult`): `accept` with each answered decision's typed
/// value under its id (skipped ones left out), or `decline`. `None` for other plans and while pending.
#[must_use]
pub fn elicitation_result(plan: &Plan) -> Option<serde_json::Value> {
    if !plan.elicitation || plan.status != crate::plan::PlanStatus::Completed {
        return None;
    }
    if plan.declined() {
        return Some(serde_json::json!({"action": "decline"}));
    }
    let content: serde_json::Map<String, serde_json::Value> = plan
        .decisions
        .iter()
        .filter(|d| d.status == DecisionStatus::Answered)
        .filter_map(|d| {
            let value = match &d.value {
                Some(v) => v.to_json(),
                None => return None,
            };
            Some((d.id.clone(), value))
        })
        .collect();
    Some(serde_json::json!({"action": "accept", "content": content}))
}

/// A JSON answer as one text: a string as it is, a list's strings joined by `, `, anything else as JSON.
pub(crate) fn text_of(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Array(items) => items.iter().map(text_of).collect::<Vec<_>>().join(", "),
        other => other.to_string(),
    }
}

fn one_line(s: &str) -> String {
    s.replace(['\n', '\r'], " ")
}

/// Whether `revision` is the first (serde's `skip_serializing_if` takes a reference).
#[allow(clippy::trivially_copy_pass_by_ref)]
fn first() -> u32 {
    1
}

fn is_first(revision: &u32) -> bool {
    *revision == 1
}
