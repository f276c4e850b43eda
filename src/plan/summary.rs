//! What the history and the stats keep of a completed plan, and who may see it: small enough to hold one per plan
//! in the history index beside `completed/` (`queue::history`), so `arbiter history`, `arbiter stats` and the
//! dashboard over 100,000 plans read the index instead of every file. Made from the parsed plan; never edited.

use serde::{Deserialize, Serialize};

use super::{Decision, DecisionStatus, Plan};

/// A completed plan, as the history lists it and the stats count it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Summary {
    pub id: String,
    pub title: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tag: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_at: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completed_at: Option<String>,
    /// `withdrawn_at` of a plan its agent took back unanswered (it has no `completed_at`: stats leave it out).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub withdrawn_at: Option<String>,
    /// `revision` (1 unless the agent revised the plan; earlier revisions are in `revisions/`).
    #[serde(default = "first", skip_serializing_if = "is_first")]
    pub revision: u32,
    /// `approvers` as written (empty: every member).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub approvers: Vec<String>,
    /// `escalate_to` as written, once the plan was escalated (empty before).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub escalated_to: Vec<String>,
    pub decisions: Vec<DecisionSummary>,
}

/// One decision of a [`Summary`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DecisionSummary {
    pub id: String,
    pub status: DecisionStatus,
    /// The recorded answer as the file holds it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answered_at: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answered_by: Option<String>,
    /// [`Decision::is_custom_answer`].
    #[serde(default, skip_serializing_if = "is_false")]
    pub custom: bool,
    /// An edited proposal (`edited: true`).
    #[serde(default, skip_serializing_if = "is_false")]
    pub edited: bool,
    /// `delegated_to`: the member it was delegated to (who may see the plan for it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delegated_to: Option<u64>,
}

#[allow(clippy::trivially_copy_pass_by_ref)] // serde's `skip_serializing_if` passes a reference
fn is_false(b: &bool) -> bool {
    !*b
}

fn first() -> u32 {
    1
}

#[allow(clippy::trivially_copy_pass_by_ref)] // serde's `skip_serializing_if` passes a reference
fn is_first(n: &u32) -> bool {
    *n == 1
}

impl Summary {
    #[must_use]
    pub fn of(plan: &Plan) -> Summary {
        Summary {
            id: plan.id.clone(),
            title: plan.title.clone(),
            agent: plan.agent.clone(),
            tag: plan.tag.clone(),
            created_at: plan.created_at.clone(),
            completed_at: plan.completed_at.clone(),
            withdrawn_at: (plan.status == crate::plan::PlanStatus::Withdrawn).then(|| {
                plan.withdrawal
                    .as_ref()
                    .and_then(|w| w.at.clone())
                    .unwrap_or_default()
            }),
            revision: plan.revision,
            approvers: plan.approval.approvers.clone(),
            escalated_to: if plan.timing.escalated_at.is_some() {
                plan.timing.escalate_to.clone()
            } else {
                Vec::new()
            },
            decisions: plan.decisions.iter().map(DecisionSummary::of).collect(),
        }
    }
}

impl DecisionSummary {
    #[must_use]
    pub fn of(d: &Decision) -> DecisionSummary {
        DecisionSummary {
            id: d.id.clone(),
            status: d.status,
            answer: d.answer.clone(),
            answered_at: d.answered_at.clone(),
            answered_by: d.answered_by.clone(),
            custom: d.is_custom_answer(),
            edited: d.edited == Some(true),
            delegated_to: d.delegated_to,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_summary_reads_back_as_written() {
        let text = "---\nid: p1\nagent: a\ntag: db\ntitle: T\ncreated_at: 2026-02-01T10:00:00Z\ncompleted_at: 2026-02-01T11:00:00Z\n---\n# T\n\n## One\n\nid: one\nstatus: answered\nanswer: \"my own words\"\nanswered_at: 2026-02-01T10:30:00Z\nanswered_by: 42\ndelegated_to: 43\n\n**Options:**\n- `a` — A\n\n## Two\n\nid: two\nstatus: skipped\n\n**Options:**\n- `a` — A\n";
        let plan = crate::plan::parse(text, "x").unwrap();
        let s = Summary::of(&plan);
        assert_eq!(
            (s.agent.as_deref(), s.tag.as_deref(), s.decisions.len()),
            (Some("a"), Some("db"), 2)
        );
        let one = &s.decisions[0];
        assert!(one.custom && !one.edited);
        assert_eq!(one.delegated_to, Some(43));
        assert_eq!(one.answer.as_deref(), Some("my own words"));
        assert_eq!(s.decisions[1].status, DecisionStatus::Skipped);
        let json = serde_json::to_string(&s).unwrap();
        assert_eq!(serde_json::from_str::<Summary>(&json).unwrap(), s);
        // What is unset is left out: the index stays small.
        assert!(!json.contains("null") && !json.contains("false"), "{json}");
    }
}
