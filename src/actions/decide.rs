//! What an action means for a plan as it is now: the edit it makes, or why it makes none ([`Stop`]). Pure: the
//! plan is read by [`super::Actions::take`], under the plan's lock, and the edit applied there.

use crate::plan::{AnswerValue, Edit, InputRefusal, Kind, Plan, input};
use crate::queue::{Loaded, StoreError};

use super::{Access, Action, Actor, Outcome, Refusal, Typed, seen};

/// The edit `action` by `actor` makes on `plan` as it is now, or why it makes none.
pub(super) fn decide(
    access: &Access,
    actor: Actor,
    action: &Action,
    plan: &Plan,
) -> Result<Edit, Stop> {
    access.check(actor, plan, action).map_err(Stop::Refused)?;
    // The decision a whole-decision action names, if it is still the one the actor saw.
    let seen_decision = |decision: &usize, seen: &String| {
        plan.decisions
            .get(*decision)
            .filter(|d| seen::of_decision(d) == *seen)
            .ok_or(Stop::Stale)
    };
    // The id of the decision typed text is for: by id as the prompt took it (an id no longer there is left
    // to the edit, which names it; one still there but changed since the prompt is stale), or by position if it
    // is still what the form showed.
    let typed_decision = |to: &Typed| match to {
        Typed::Prompted { id, .. } if plan.decision(id).is_none() => Ok(id.clone()),
        Typed::Prompted { .. } | Typed::Shown { .. } => to
            .index_in(plan)
            .map(|i| plan.decisions[i].id.clone())
            .ok_or(Stop::Stale),
    };
    Ok(match action {
        Action::Open => return Err(Stop::Current),
        Action::StartCustom { decision, seen }
        | Action::StartNote { decision, seen }
        | Action::StartDelegate { decision, seen } => {
            seen_decision(decision, seen)?;
            return Err(Stop::Current);
        }
        Action::Answer {
            decision,
            option,
            seen,
        } => plan
            .decisions
            .get(*decision)
            .and_then(|d| {
                let o = d.options.get(*option)?;
                (seen::of_option(d, o) == *seen).then(|| Edit::Answer {
                    decision: d.id.clone(),
                    key: o.key.clone(),
                    label: o.label.clone(),
                })
            })
            .ok_or(Stop::Stale)?,
        Action::Skip { decision, seen } => Edit::Skip {
            decision: seen_decision(decision, seen)?.id.clone(),
        },
        Action::AnswerMulti {
            decision,
            options,
            custom,
            seen,
        } => {
            let d = seen_decision(decision, seen)?;
            Edit::Value {
                decision: d.id.clone(),
                value: input::read_picks(d, options, custom.as_deref()).map_err(Stop::Input)?,
                edited: None,
            }
        }
        Action::AnswerInput {
            decision,
            input: typed,
            seen,
        } => {
            let d = seen_decision(decision, seen)?;
            // Text of one's own for a `multi` that allows it: added to the options recorded so far.
            if let Kind::Multi { .. } = d.kind
                && d.allow_custom
            {
                let picks = d.picked_options();
                return Ok(Edit::Value {
                    decision: d.id.clone(),
                    value: input::read_picks(d, &picks, Some(typed)).map_err(Stop::Input)?,
                    edited: None,
                });
            }
            if let Kind::Multi { .. } = d.kind {
                return Err(Stop::Input(InputRefusal {
                    reason: "This is a multi decision: pick its options.".to_owned(),
                    prompt: input::prompt_for(d),
                }));
            }
            let value = input::read_input(d, typed).map_err(Stop::Input)?;
            match (&d.kind, value) {
                (Kind::Choice, AnswerValue::Text(text)) => Edit::Custom {
                    decision: d.id.clone(),
                    text,
                },
                (kind, value) => Edit::Value {
                    decision: d.id.clone(),
                    edited: match (kind, &value) {
                        (Kind::Edit { proposal, .. }, AnswerValue::Text(t))
                            if d.chosen_option_of(t).is_none() =>
                        {
                            Some(*t != proposal.text)
                        }
                        _ => None,
                    },
                    value,
                },
            }
        }
        Action::Approve { decision, seen } => {
            let d = seen_decision(decision, seen)?;
            let proposal = d.kind.proposal().ok_or(Stop::Stale)?;
            Edit::Value {
                decision: d.id.clone(),
                value: AnswerValue::Text(proposal.text.clone()),
                edited: Some(false),
            }
        }
        Action::Decline { seen } => {
            if seen::of_answers(plan) != *seen {
                return Err(Stop::Stale);
            }
            Edit::Decline
        }
        Action::StartRequestChanges { seen } => {
            if seen::of_answers(plan) != *seen {
                return Err(Stop::Stale);
            }
            return Err(Stop::Current);
        }
        Action::RequestChanges { seen, feedback } => {
            if seen::of_answers(plan) != *seen {
                return Err(Stop::Stale);
            }
            Edit::RequestChanges {
                feedback: feedback.clone(),
            }
        }
        Action::Delegate { decision, to, seen } => {
            let d = seen_decision(decision, seen)?;
            let Actor::User(by) = actor else {
                return Err(Stop::Refused(Refusal::ClockOnly));
            };
            Edit::Delegate {
                decision: d.id.clone(),
                to: *to,
                by,
            }
        }
        // Only a view of a delegated decision offers ↩️ Take back.
        Action::TakeBack { decision, seen } => {
            let d = seen_decision(decision, seen)?;
            if d.delegated_to.is_none() {
                return Err(Stop::Stale);
            }
            Edit::TakeBack {
                decision: d.id.clone(),
            }
        }
        Action::Note { to, text } => Edit::Note {
            decision: typed_decision(to)?,
            text: text.clone(),
        },
        Action::Submit { seen } | Action::SignOff { seen } if seen::of_answers(plan) != *seen => {
            return Err(Stop::Stale);
        }
        Action::Submit { .. } | Action::SignOff { .. } => match actor {
            Actor::User(user) if plan.approval.needs_signoffs() => Edit::SignOff {
                user,
                answers: crate::plan::answers_of(plan),
            },
            _ => Edit::Submit,
        },
        Action::Custom { to, text } => Edit::Custom {
            decision: typed_decision(to)?,
            text: text.clone(),
        },
        Action::Withdraw { reason, .. } => Edit::Withdraw {
            reason: reason.clone(),
        },
        Action::ApplyDeadline => Edit::Deadline,
        Action::Remind => Edit::Reminded,
        Action::Escalate => Edit::Escalated,
    })
}

/// Why an action makes no edit.
#[derive(Debug)]
pub(super) enum Stop {
    /// It only looks: the plan as it is now.
    Current,
    /// The actor's view no longer matches the file.
    Stale,
    Refused(Refusal),
    /// The actor's input does not fit the decision: nothing is recorded, the refusal says what is accepted.
    Input(InputRefusal),
}

impl Stop {
    pub(super) fn outcome(self, plan: Loaded) -> Outcome {
        match self {
            Stop::Current => Outcome::Current(plan),
            Stop::Stale => Outcome::Stale(plan),
            Stop::Refused(refusal) => Outcome::Refused(refusal),
            Stop::Input(refusal) => Outcome::NotRecorded {
                plan,
                error: StoreError::Edit(crate::plan::EditError::Input(refusal)),
            },
        }
    }
}
