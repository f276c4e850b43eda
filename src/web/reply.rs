//! What the dashboard says of an action's [`Outcome`]: the page a form leads to ([`page`]), the notice a plan
//! page or the queue shows after it ([`Notice`], [`QueueNotice`]), and a line of the bulk form's results ([`line`]). Each is one total
//! `match`, so a new outcome does not compile until the dashboard says it; the words are all here.

use axum::http::StatusCode;

use crate::actions::Outcome;
use crate::queue::rules::Rule;
use crate::queue::{Loaded, StoreError};

/// The notice a plan page shows after a form (`?notice=<code>`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Notice {
    Recorded,
    Signed,
    Stale,
}

impl Notice {
    /// The code the redirect carries.
    #[must_use]
    pub fn code(self) -> &'static str {
        match self {
            Notice::Recorded => "recorded",
            Notice::Signed => "signed",
            Notice::Stale => "stale",
        }
    }

    /// The notice a code names; `None` for anything else (no notice).
    #[must_use]
    pub fn of_code(code: &str) -> Option<Notice> {
        [Notice::Recorded, Notice::Signed, Notice::Stale]
            .into_iter()
            .find(|n| n.code() == code)
    }

    /// Its kind (`ok`, `warn`) and its words.
    #[must_use]
    pub fn shown(self) -> (&'static str, &'static str) {
        match self {
            Notice::Recorded => ("ok", "✅ Recorded."),
            Notice::Signed => (
                "ok",
                "✍️ Your sign-off is recorded. The plan is submitted when enough approvers have signed off.",
            ),
            Notice::Stale => (
                "warn",
                "⚠️ This plan changed since your page was drawn, so nothing was recorded. This is the plan as it is now.",
            ),
        }
    }
}

/// The notice the queue page shows after a form took a plan out of the queue (`/queue?notice=<code>`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueueNotice {
    Submitted,
    SentBack,
    Gone,
}

impl QueueNotice {
    /// The code the redirect carries.
    #[must_use]
    pub fn code(self) -> &'static str {
        match self {
            QueueNotice::Submitted => "submitted",
            QueueNotice::SentBack => "sent_back",
            QueueNotice::Gone => "gone",
        }
    }

    /// The notice a code names; `None` for anything else (no notice).
    #[must_use]
    pub fn of_code(code: &str) -> Option<QueueNotice> {
        [
            QueueNotice::Submitted,
            QueueNotice::SentBack,
            QueueNotice::Gone,
        ]
        .into_iter()
        .find(|n| n.code() == code)
    }

    /// Its kind (`ok`, `warn`) and its words.
    #[must_use]
    pub fn shown(self) -> (&'static str, &'static str) {
        match self {
            QueueNotice::Submitted => ("ok", "✅ Plan submitted."),
            QueueNotice::SentBack => ("ok", "🔁 Plan sent back to its agent with your request."),
            QueueNotice::Gone => ("warn", "That plan is no longer pending."),
        }
    }

    /// The queue page with this notice.
    #[must_use]
    pub fn href(self) -> String {
        format!("/queue?notice={}", self.code())
    }
}

/// Where a plan page's form leads, on what the action did.
#[derive(Debug)]
pub enum Page<'a> {
    /// Back to the plan page, with this notice.
    Plan(Notice),
    /// The plan is completed: to the queue, or to the Rules page when its answer made a standing rule (`rule`)
    /// or may make one.
    Submitted {
        plan: &'a Loaded,
        rule: Option<&'a Rule>,
    },
    /// Sent back to its agent: to the queue.
    SentBack(&'a Loaded),
    /// The plan is not pending: the page that says so.
    Gone,
    /// A page that says why, with this status: nothing was recorded.
    Refused(StatusCode, String),
    /// The plan page again, with this warning and status 422: a valid request that could not be applied.
    Again(String),
}

/// The page a form's outcome leads to.
#[must_use]
pub fn page(outcome: &Outcome) -> Page<'_> {
    match outcome {
        Outcome::Recorded { .. }
        | Outcome::Current(_)
        | Outcome::Noted(_)
        | Outcome::Escalated { .. } => Page::Plan(Notice::Recorded),
        Outcome::Stale(_) => Page::Plan(Notice::Stale),
        Outcome::SignedOff(_) => Page::Plan(Notice::Signed),
        Outcome::Submitted { plan, rule, .. } => Page::Submitted {
            plan,
            rule: match rule {
                Some(Ok(rule)) => Some(rule),
                Some(Err(_)) | None => None,
            },
        },
        Outcome::SentBack { plan, .. } => Page::SentBack(plan),
        // A form never withdraws (only its agent does): said as any plan gone.
        Outcome::Gone | Outcome::Withdrawn(_) => Page::Gone,
        Outcome::Failed(why) => Page::Refused(StatusCode::INTERNAL_SERVER_ERROR, not_recorded(why)),
        Outcome::Refused(r) => Page::Refused(StatusCode::FORBIDDEN, r.to_string()),
        Outcome::NotRecorded { error, .. } => Page::Again(match input_refusal(error) {
            // Input that does not fit: why, and what is accepted.
            Some(refusal) => not_recorded(refusal),
            None => not_recorded(error),
        }),
    }
}

/// `Not recorded: <why>`.
fn not_recorded(why: &dyn std::fmt::Display) -> String {
    format!("Not recorded: {why}")
}

/// The refusal of the owner's input, when that is why nothing was recorded.
fn input_refusal(error: &StoreError) -> Option<&crate::plan::InputRefusal> {
    match error {
        StoreError::Edit(e) => e.input_refusal(),
        _ => None,
    }
}

/// A line of the bulk form's results: what became of one plan's answer (or submit), and why when not done.
#[must_use]
pub fn line(outcome: &Outcome) -> (&'static str, String) {
    match outcome {
        Outcome::Recorded { .. }
        | Outcome::Current(_)
        | Outcome::Noted(_)
        | Outcome::Escalated { .. } => ("recorded", String::new()),
        Outcome::Submitted { .. } => ("submitted", String::new()),
        Outcome::SentBack { .. } => ("sent back", String::new()),
        Outcome::SignedOff(_) => (
            "signed off",
            "your sign-off is recorded; it waits for the other approvers'".to_owned(),
        ),
        Outcome::Stale(_) => (
            "stale",
            "the plan changed since the page was drawn; nothing recorded".to_owned(),
        ),
        Outcome::Gone | Outcome::Withdrawn(_) => {
            ("gone", "no longer pending; nothing recorded".to_owned())
        }
        Outcome::Failed(why) => ("failed", why.clone()),
        Outcome::Refused(r) => ("refused", r.to_string()),
        Outcome::NotRecorded { error, .. } => ("not recorded", error.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::actions::Refusal;

    #[test]
    fn every_notice_reads_back_from_its_code() {
        for notice in [Notice::Recorded, Notice::Signed, Notice::Stale] {
            assert_eq!(Notice::of_code(notice.code()), Some(notice));
        }
        for notice in [
            QueueNotice::Submitted,
            QueueNotice::SentBack,
            QueueNotice::Gone,
        ] {
            assert_eq!(QueueNotice::of_code(notice.code()), Some(notice));
        }
        assert_eq!(QueueNotice::Submitted.href(), "/queue?notice=submitted");
        assert_eq!(Notice::of_code(""), None);
        assert_eq!(Notice::of_code("submitted"), None);
    }

    #[test]
    fn failures_and_refusals_are_pages_that_say_why() {
        match page(&Outcome::Failed("disk full".into())) {
            Page::Refused(status, why) => {
                assert_eq!(status, StatusCode::INTERNAL_SERVER_ERROR);
                assert_eq!(why, "Not recorded: disk full");
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            page(&Outcome::Refused(Refusal::NotForYou)),
            Page::Refused(StatusCode::FORBIDDEN, _)
        ));
        assert!(matches!(page(&Outcome::Gone), Page::Gone));
        assert_eq!(
            line(&Outcome::Gone),
            ("gone", "no longer pending; nothing recorded".to_owned())
        );
    }
}
