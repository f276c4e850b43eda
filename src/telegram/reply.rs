//! What the bot says of an action's [`Outcome`]: the answer to a tap (a toast, or an alert the user dismisses;
//! plain text) in the private chat and on a group's card, and the note a typed reply gets before any view. Each
//! medium is one total `match`, so a new outcome does not compile until the bot says it. The views the bot
//! draws after a tap are chosen by the adapter (`bot/`); the words are all here.

use crate::actions::Outcome;
use crate::plan::{Plan, PlanStatus};

use super::markdown::{escape, truncate};
use super::views;

/// How much of a tap's answer is shown: Telegram takes at most 200 characters; longer texts are cut to this.
pub const ANSWER_CHARS: usize = 190;

/// The alert for callback data that is no button of ours (forged, garbled, or an old button whose meaning went).
pub const INVALID: &str = "This button is no longer valid.";
/// The alert for a tap on a private view drawn before the plan changed (the view is redrawn as it is now).
pub const STALE: &str = "This plan changed since this view was drawn. Nothing was recorded; here is the current version.";
/// The alert for a tap on a group's card drawn before the plan changed (the card is redrawn for everyone).
pub const STALE_CARD: &str = "This plan changed since the card was drawn. Nothing was recorded.";
/// The alert for a button that does not belong on a card (forged, or from an old private view).
pub const PRIVATE_ONLY: &str =
    "This is done in the private chat with the bot: tap 📂 Open. Nothing was recorded.";
const ALREADY_SUBMITTED: &str = "This plan was already submitted. Nothing was recorded.";
const WITHDRAWN: &str =
    "Its agent withdrew this plan: nobody needs to answer it. Nothing was recorded.";
/// What a typed reply gets when it was empty: still in reply mode, the next message is another try (MarkdownV2).
pub const TYPE_AGAIN: &str = "It can't be empty\\. Type it again, or /cancel\\.";

/// The answer to a callback query: `text` shown as a toast, or as an alert when `alert`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Answer {
    pub text: Option<String>,
    pub alert: bool,
}

impl Answer {
    /// Nothing shown: the tap is acknowledged (the message it redraws says the rest).
    pub const NONE: Answer = Answer {
        text: None,
        alert: false,
    };

    /// `text` as a toast that goes away by itself.
    #[must_use]
    pub fn toast(text: impl Into<String>) -> Answer {
        Answer {
            text: Some(text.into()),
            alert: false,
        }
    }

    /// `text` as an alert the user dismisses.
    #[must_use]
    pub fn alert(text: impl Into<String>) -> Answer {
        Answer {
            text: Some(text.into()),
            alert: true,
        }
    }
}

/// `text` cut to what a tap's answer shows ([`ANSWER_CHARS`]).
#[must_use]
pub fn cut(text: &str) -> String {
    truncate(text, ANSWER_CHARS)
}

/// `⚠️ Not recorded: <why>`: an action that failed inside the daemon (plain text).
#[must_use]
pub fn failed(why: &str) -> String {
    format!("⚠️ Not recorded: {why}")
}

/// The answer to a tap in the private chat, on what the action did.
#[must_use]
pub fn tap(outcome: &Outcome) -> Answer {
    if let Some(refusal) = outcome.input_refusal() {
        // A Done outside min…max (or input that does not fit): why, and what is accepted.
        return Answer::alert(cut(&refusal.to_string()));
    }
    match outcome {
        // The message is redrawn (or a prompt sent): that is the answer.
        Outcome::Current(_)
        | Outcome::Noted(_)
        | Outcome::Escalated { .. }
        | Outcome::Recorded { .. } => Answer::NONE,
        Outcome::SignedOff(l) => {
            Answer::toast(format!("✍️ Signed off: {}", views::sign_off_label(&l.plan)))
        }
        Outcome::Submitted { .. } => Answer::toast("📤 Submitted"),
        Outcome::SentBack { .. } => Answer::toast("🔁 Sent back"),
        Outcome::Stale(_) => Answer::alert(STALE),
        Outcome::Gone | Outcome::Withdrawn(_) => Answer::alert(views::PLAN_GONE_ALERT),
        Outcome::Failed(why) => Answer::alert(cut(&failed(why))),
        Outcome::Refused(refusal) => Answer::alert(refusal.to_string()),
        Outcome::NotRecorded { error, .. } => {
            Answer::alert(cut(&format!("Nothing recorded: {error}")))
        }
    }
}

/// The answer to a tap on a plan that is not pending: `completed` is where this daemon saw it go (submitted by a
/// person or its deadline, or withdrawn by its agent), if the tapper may see it.
#[must_use]
pub fn gone(completed: Option<&Plan>) -> Answer {
    match completed {
        Some(plan) if plan.status == PlanStatus::Withdrawn => Answer::alert(WITHDRAWN),
        Some(_) => Answer::alert(ALREADY_SUBMITTED),
        None => Answer::alert(views::PLAN_GONE_ALERT),
    }
}

/// The answer to a quick answer tapped on a group's card (`✅ <decision> → <answer>` once recorded).
#[must_use]
pub fn card_tap(outcome: &Outcome) -> Answer {
    match outcome {
        Outcome::Recorded { plan, decision, .. } => Answer {
            text: plan.plan.decisions.get(*decision).map(|d| {
                let shown = d
                    .chosen_option()
                    .map(|i| d.options[i].label.clone())
                    .filter(|l| !l.trim().is_empty())
                    .unwrap_or_else(|| views::shown_answer(d));
                cut(&format!("✅ {} → {shown}", d.title))
            }),
            alert: false,
        },
        Outcome::Refused(refusal) => Answer::alert(refusal.to_string()),
        Outcome::Stale(_) => Answer::alert(STALE_CARD),
        // A member's quick answer never withdraws (only its agent does); said as any plan gone.
        Outcome::Gone | Outcome::Withdrawn(_) => Answer::alert(views::PLAN_GONE_ALERT),
        Outcome::Failed(why) => Answer::alert(cut(&failed(why))),
        Outcome::NotRecorded { error, .. } => {
            Answer::alert(cut(&format!("Nothing recorded: {error}")))
        }
        // Not what a quick answer ends in (only an answer is taken on a card): the card is redrawn as it is.
        Outcome::Current(_)
        | Outcome::Noted(_)
        | Outcome::Escalated { .. }
        | Outcome::SignedOff(_)
        | Outcome::Submitted { .. }
        | Outcome::SentBack { .. } => Answer::NONE,
    }
}

/// The note (MarkdownV2) a typed reply (a custom answer, a note, a request for changes) gets before the plan is
/// shown again, when nothing was recorded; `None` when the view that follows says it all.
#[must_use]
pub fn typed(outcome: &Outcome) -> Option<String> {
    match outcome {
        Outcome::Failed(why) => Some(escape(&failed(why))),
        Outcome::Refused(refusal) => Some(escape(&refusal.to_string())),
        Outcome::Stale(_) => {
            Some("This decision changed since you opened it\\. Nothing was recorded\\.".to_owned())
        }
        Outcome::NotRecorded { .. } => {
            Some("Nothing was recorded: the plan file could not be edited\\.".to_owned())
        }
        Outcome::Current(_)
        | Outcome::Recorded { .. }
        | Outcome::SignedOff(_)
        | Outcome::Submitted { .. }
        | Outcome::SentBack { .. }
        | Outcome::Withdrawn(_)
        | Outcome::Noted(_)
        | Outcome::Escalated { .. }
        | Outcome::Gone => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::actions::Refusal;

    #[test]
    fn a_failure_is_an_alert_cut_to_what_telegram_shows() {
        let why = "x".repeat(500);
        for said in [
            tap(&Outcome::Failed(why.clone())),
            card_tap(&Outcome::Failed(why.clone())),
        ] {
            assert!(said.alert);
            let text = said.text.unwrap();
            assert!(text.starts_with("⚠️ Not recorded: xxx"), "{text}");
            assert_eq!(text.encode_utf16().count(), ANSWER_CHARS);
        }
        assert_eq!(
            typed(&Outcome::Failed("disk full".into())).as_deref(),
            Some("⚠️ Not recorded: disk full")
        );
    }

    #[test]
    fn refusals_and_gone_plans_are_alerts_in_both_chats() {
        let refused = Outcome::Refused(Refusal::NotForYou);
        assert_eq!(
            tap(&refused),
            Answer::alert("⛔ This plan is not yours to answer.")
        );
        assert_eq!(card_tap(&refused), tap(&refused));
        assert_eq!(tap(&Outcome::Gone), Answer::alert(views::PLAN_GONE_ALERT));
        assert_eq!(card_tap(&Outcome::Gone), gone(None));
        assert_eq!(typed(&Outcome::Gone), None);
    }
}
