//! Navigation between the views: which action a button asks for and which screen answers it, and which view a
//! screen is on the plan as it is now. Pure: the bot adapter turns a tap into `translate`'s action, takes it,
//! and draws the screen with `current_view` / `next_view`.

use crate::actions::Action;
use crate::plan::Plan;
use crate::telegram::callback::{Callback, PlanRef};

use super::{Drawn, View};

/// Which view answers a tap whose action changed nothing.
#[derive(Debug, Clone, Copy)]
pub enum Screen {
    Plan,
    /// The first pending decision, else the review.
    Continue,
    Review,
    Decision(usize),
    /// The force-reply prompt for a custom answer to this decision.
    CustomPrompt(usize),
    /// The force-reply prompt for a note on this decision.
    NotePrompt(usize),
    /// The force-reply prompt for a request for changes to the whole plan.
    RequestChangesPrompt,
    /// The people this decision may be delegated to.
    DelegatePicker(usize),
    /// The decision after it was delegated (the delegate gets it too).
    Delegated(usize),
    /// The decision after its delegation was taken back.
    TakenBack(usize),
    /// The view after settling this decision (answer, skip) or submitting (0).
    After(usize),
    /// No view: the plan's file, sent as a document (📄 Full context).
    File,
    /// A `multi` decision with option `1` toggled in the bot's memory (nothing recorded).
    Toggle(usize, usize),
    /// ✅ Done on a `multi` decision: after it is recorded, like [`Screen::After`]; refused, an alert.
    Done(usize),
}

impl Screen {
    /// The decision the tap was about, if any (a stale tap redraws it).
    pub fn decision(self) -> Option<usize> {
        match self {
            Screen::Decision(i)
            | Screen::CustomPrompt(i)
            | Screen::NotePrompt(i)
            | Screen::DelegatePicker(i)
            | Screen::Delegated(i)
            | Screen::TakenBack(i)
            | Screen::After(i)
            | Screen::Toggle(i, _)
            | Screen::Done(i) => Some(i),
            Screen::Plan
            | Screen::Continue
            | Screen::Review
            | Screen::RequestChangesPrompt
            | Screen::File => None,
        }
    }
}

/// What a plan button asks of the action layer, and which view answers it.
pub fn translate(cb: Callback) -> Option<(PlanRef, Action, Screen)> {
    let at = usize::from;
    Some(match cb {
        Callback::Open { plan } => (plan, Action::Open, Screen::Plan),
        Callback::Continue { plan } => (plan, Action::Open, Screen::Continue),
        Callback::Review { plan } => (plan, Action::Open, Screen::Review),
        Callback::Show { plan, index } => (plan, Action::Open, Screen::Decision(at(index))),
        Callback::Answer {
            plan,
            index,
            option,
            seen,
        } => {
            let action = Action::Answer {
                decision: at(index),
                option: at(option),
                seen,
            };
            (plan, action, Screen::After(at(index)))
        }
        Callback::Skip { plan, index, seen } => {
            let action = Action::Skip {
                decision: at(index),
                seen,
            };
            (plan, action, Screen::After(at(index)))
        }
        Callback::Custom { plan, index, seen } => {
            let action = Action::StartCustom {
                decision: at(index),
                seen,
            };
            (plan, action, Screen::CustomPrompt(at(index)))
        }
        Callback::Submit { plan, seen } => (plan, Action::Submit { seen }, Screen::After(0)),
        Callback::RequestChanges { plan, seen } => (
            plan,
            Action::StartRequestChanges { seen },
            Screen::RequestChangesPrompt,
        ),
        Callback::SignOff { plan, seen } => (plan, Action::SignOff { seen }, Screen::After(0)),
        Callback::Note { plan, index, seen } => {
            let action = Action::StartNote {
                decision: at(index),
                seen,
            };
            (plan, action, Screen::NotePrompt(at(index)))
        }
        Callback::DelegateMenu { plan, index, seen } => {
            let action = Action::StartDelegate {
                decision: at(index),
                seen,
            };
            (plan, action, Screen::DelegatePicker(at(index)))
        }
        Callback::Delegate {
            plan,
            index,
            to,
            seen,
        } => {
            let action = Action::Delegate {
                decision: at(index),
                to,
                seen,
            };
            (plan, action, Screen::Delegated(at(index)))
        }
        Callback::TakeBack { plan, index, seen } => {
            let action = Action::TakeBack {
                decision: at(index),
                seen,
            };
            (plan, action, Screen::TakenBack(at(index)))
        }
        Callback::Toggle {
            plan,
            index,
            option,
            seen,
        } => {
            // Nothing is written on a toggle: the action only checks that the decision is still the one shown
            // and that the actor may answer it.
            let action = Action::StartCustom {
                decision: at(index),
                seen,
            };
            (plan, action, Screen::Toggle(at(index), at(option)))
        }
        Callback::Done { plan, index, seen } => {
            let action = Action::AnswerMulti {
                decision: at(index),
                options: Vec::new(),
                custom: None,
                seen,
            };
            (plan, action, Screen::Done(at(index)))
        }
        Callback::Boolean {
            plan,
            index,
            yes,
            seen,
        } => {
            let action = Action::AnswerInput {
                decision: at(index),
                input: if yes { "yes" } else { "no" }.to_owned(),
                seen,
            };
            (plan, action, Screen::After(at(index)))
        }
        Callback::Approve { plan, index, seen } => {
            let action = Action::Approve {
                decision: at(index),
                seen,
            };
            (plan, action, Screen::After(at(index)))
        }
        Callback::Decline { plan, seen } => (plan, Action::Decline { seen }, Screen::After(0)),
        // Whoever may open the plan may read its file.
        Callback::FullContext { plan } => (plan, Action::Open, Screen::File),
        // Not a plan's: the queue, the standing rules (`/rules`, their buttons, an offer on a completed plan).
        Callback::Queue { .. }
        | Callback::Rules { .. }
        | Callback::Rule { .. }
        | Callback::AlwaysAnswer { .. }
        | Callback::Noop => return None,
    })
}

/// Done's action with the options the owner toggled (the bot keeps them; [`translate`] leaves them empty).
#[must_use]
pub fn with_picks(action: Action, picks: Vec<usize>) -> Action {
    match action {
        Action::AnswerMulti {
            decision,
            custom,
            seen,
            ..
        } => Action::AnswerMulti {
            decision,
            options: picks,
            custom,
            seen,
        },
        other => other,
    }
}

/// True when the tapped message stays as it is, or stays the same decision being toggled: the options toggled
/// on it are kept. Any other tap redraws the message as something else, and the toggles of that plan go (they
/// were never recorded; the view they were drawn on is gone).
#[must_use]
pub fn keeps_toggles(cb: &Callback) -> bool {
    matches!(
        cb,
        Callback::Toggle { .. }
            | Callback::Done { .. }
            | Callback::Noop
            | Callback::FullContext { .. }
            | Callback::Custom { .. }
            | Callback::Note { .. }
    )
}

/// The view a navigation tap asks for, on the plan as it is now. A delegate is shown their decision, whatever
/// they tapped.
pub fn current_view(plan: &Plan, screen: Screen, drawn: &Drawn) -> View {
    let viewer = drawn.viewer;
    if viewer.only.is_some() {
        let mine = screen
            .decision()
            .filter(|i| viewer.only.as_ref().is_some_and(|only| only.contains(i)));
        return match mine {
            Some(i) => super::decision(plan, i, None, drawn),
            None => super::plan(plan, drawn),
        };
    }
    match screen {
        Screen::Continue => match plan.next_pending(0) {
            Some(i) => super::decision(plan, i, None, drawn),
            None => super::review(plan, None, drawn),
        },
        Screen::Review | Screen::After(_) => super::review(plan, None, drawn),
        Screen::Decision(i) if i < plan.decisions.len() => super::decision(plan, i, None, drawn),
        _ => super::plan(plan, drawn),
    }
}

/// After decision `index` was settled: the next pending decision after it, or the review summary. A delegate
/// sees the decision they settled.
pub fn next_view(plan: &Plan, index: usize, drawn: &Drawn) -> View {
    let confirm = plan.decisions.get(index).map(super::after_answer);
    if drawn.viewer.only.is_some() {
        return super::decision(plan, index, confirm.as_deref(), drawn);
    }
    match plan.next_pending(index + 1) {
        Some(next) => super::decision(plan, next, confirm.as_deref(), drawn),
        None => super::review(plan, confirm.as_deref(), drawn),
    }
}
