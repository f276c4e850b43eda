//! The three plan screens by what is asked for, drawn at one time for one person ([`Drawn`]): which screen a
//! delegate or a decision that no longer exists gets instead is decided here, so the screens' own files never
//! call each other.

use chrono::{DateTime, Utc};

use crate::plan::Plan;

use super::{View, Viewer};

/// When and for whom a view is drawn: only a plan with a deadline reads differently at different times, and the
/// viewer's names, delegations and role change what they see.
#[derive(Debug, Clone, Copy)]
pub struct Drawn<'a> {
    pub now: DateTime<Utc>,
    pub viewer: &'a Viewer,
}

/// An approver of a plan with nobody named and nobody to delegate to.
static APPROVER: Viewer = Viewer {
    names: Vec::new(),
    only: None,
    delegates: Vec::new(),
};

impl Drawn<'static> {
    /// Now, for an approver with nobody named.
    #[must_use]
    pub fn now() -> Self {
        Drawn::at(Utc::now())
    }

    /// At `now`, for an approver with nobody named.
    #[must_use]
    pub fn at(now: DateTime<Utc>) -> Self {
        Drawn {
            now,
            viewer: &APPROVER,
        }
    }
}

impl<'a> Drawn<'a> {
    /// Now, for `viewer`.
    #[must_use]
    pub fn to(viewer: &'a Viewer) -> Self {
        Drawn {
            now: Utc::now(),
            viewer,
        }
    }

    /// The decision a delegate sees instead of the whole plan (their first), if the viewer is one.
    fn delegated_first(&self, plan: &Plan) -> Option<usize> {
        let first = *self.viewer.only.as_ref()?.first()?;
        (first < plan.decisions.len()).then_some(first)
    }
}

/// The plan view (see [`super::plan_view`]); a delegate sees the decision delegated to them instead.
#[must_use]
pub fn plan(plan: &Plan, drawn: &Drawn) -> View {
    match drawn.delegated_first(plan) {
        Some(first) => decision(plan, first, None, drawn),
        None => super::plan_view::plan_view(plan, drawn.now),
    }
}

/// Decision `index` (see [`super::decision`]); an index out of range draws the plan view. `confirm`
/// (MarkdownV2) heads the message, and is dropped if it would break it.
#[must_use]
pub fn decision(plan: &Plan, index: usize, confirm: Option<&str>, drawn: &Drawn) -> View {
    if index >= plan.decisions.len() {
        return self::plan(plan, drawn);
    }
    super::decision::decision_view(plan, index, confirm, None, drawn.now, drawn.viewer)
}

/// A `multi` decision `index` as the owner is toggling it: `picks` (option indices) ticked, not yet recorded.
#[must_use]
pub fn toggled(plan: &Plan, index: usize, picks: &[usize], drawn: &Drawn) -> View {
    if index >= plan.decisions.len() {
        return self::plan(plan, drawn);
    }
    super::decision::decision_view(plan, index, None, Some(picks), drawn.now, drawn.viewer)
}

/// The review summary (see [`super::review`]); a delegate sees the decision delegated to them instead.
#[must_use]
pub fn review(plan: &Plan, confirm: Option<&str>, drawn: &Drawn) -> View {
    if let Some(&first) = drawn.viewer.only.as_ref().and_then(|only| only.first()) {
        return decision(plan, first, confirm, drawn);
    }
    super::review::review_view(plan, confirm, drawn.viewer)
}
