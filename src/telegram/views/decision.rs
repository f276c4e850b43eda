//! The decision view, the after-answer line and the custom-answer prompt.

use crate::actions::seen;
use crate::plan::{Decision, DecisionStatus, Kind, OnDeadline, Plan};
use crate::telegram::callback::Callback;
use crate::telegram::render::{Block, excerpt, render};

use super::layout::{
    Caps, Draft, MAX_OPTION_BUTTONS, button_text, code_line, fit, fit_first, index16, letter, line,
    pref, request_changes, rows_of,
};
use super::{Button, View, Viewer, full_context};

/// Caps of the after-answer line, which is drawn before the view it heads knows its budget.
const CONFIRM_TITLE: usize = 64;
const CONFIRM_ANSWER: usize = 200;

/// Decision `index` (0-based) of `plan`: optional `confirm` header (already MarkdownV2, e.g. from
/// [`after_answer`]), `*1/3* · Title`, the context (rendered Markdown, cut with `… 📄 Full context`
/// when it does not fit), lettered options with `✓` on the chosen one and notes for custom answers,
/// skips and free-text questions.
///
/// Buttons: `⬅️ Prev` `1/3` `Next ➡️` (no Prev on the first; `📋 Review` instead of Next on the last),
/// option letters in rows of 3 (`✓ A` when chosen), `✏️ Custom` `⏭️ Skip`, `📄 Full context` when the
/// context was cut, `↩️ Back to Plan`.
/// An index out of range draws the plan view. A `confirm` that would break the message is dropped.
///
/// As `viewer` sees it: names instead of user ids (`answered by alice`), `👉 Delegate` when there is someone to
/// delegate to (`↩️ Take back` once delegated), and for a delegate only what concerns their decision (no
/// navigation, no way back to the whole plan).
///
/// A `multi` decision shows `picks` (the options toggled so far) when given, else its recorded answer.
pub(super) fn decision_view(
    plan: &Plan,
    index: usize,
    confirm: Option<&str>,
    picks: Option<&[usize]>,
    now: chrono::DateTime<chrono::Utc>,
    viewer: &Viewer,
) -> View {
    let Some(d) = plan.decisions.get(index) else {
        return super::plan_view::plan_view(plan, now);
    };
    let context = render(&d.context);
    let shown = Shown {
        plan,
        index,
        d,
        context: &context,
        picks,
    };
    let body = |caps: Caps| decision_text(&shown, caps, now, viewer);
    let draft = confirm
        .and_then(|header| {
            fit_first(|caps| {
                let body = body(caps);
                Draft {
                    text: format!("{header}\n\n{}", body.text),
                    ..body
                }
            })
        })
        .unwrap_or_else(|| fit(body));
    View::new(
        draft.text,
        keyboard(plan, index, d, picks, draft.cut, viewer),
    )
}

/// The decision a view shows: where it is, its rendered context, and a `multi` decision's toggles.
struct Shown<'a> {
    plan: &'a Plan,
    index: usize,
    d: &'a Decision,
    context: &'a [Block],
    picks: Option<&'a [usize]>,
}

fn decision_text(
    shown: &Shown,
    caps: Caps,
    now: chrono::DateTime<chrono::Utc>,
    viewer: &Viewer,
) -> Draft {
    let &Shown {
        plan,
        index,
        d,
        context,
        picks,
    } = shown;
    let choice = d.kind == Kind::Choice;
    let mut text = format!(
        "*{}/{}* · {}",
        index + 1,
        plan.decisions.len(),
        line(&d.title, caps.title)
    );
    if let Some(due) = super::due_line(plan, now) {
        text.push_str(&format!("\n{due}"));
    }
    let context = excerpt(context, caps.context);
    if !context.text.is_empty() {
        text.push_str(&format!("\n\n{}", context.text));
    }
    let answered = d.status == DecisionStatus::Answered;
    let chosen = d.chosen_option().filter(|_| answered);
    let kind = super::kinds::kind_text(d, picks, caps.context, caps);
    if !kind.text.is_empty() {
        text.push_str(&format!("\n\n{}", kind.text));
    }
    let lettered = choice || matches!(d.kind, Kind::Edit { .. });
    if lettered && !d.options.is_empty() {
        text.push('\n');
        for (i, option) in d.options.iter().take(MAX_OPTION_BUTTONS).enumerate() {
            let shown = if option.label.trim().is_empty() {
                &option.key
            } else {
                &option.label
            };
            let tick = if chosen == Some(i) { " ✓" } else { "" };
            text.push_str(&format!(
                "\n{}\\. {}{tick}",
                letter(i),
                line(shown, caps.label)
            ));
        }
        let hidden = d.options.len().saturating_sub(MAX_OPTION_BUTTONS);
        if hidden > 0 {
            text.push_str(&format!(
                "\n_…and {hidden} more options: answer one with ✏️ Custom\\._"
            ));
        }
    }
    let mut notes = Vec::new();
    if choice && d.is_custom_answer() {
        let answer = d.answer.as_deref().unwrap_or_default();
        notes.push(format!("_Custom: {}_ ✓", line(answer, caps.label)));
    }
    if d.status == DecisionStatus::Skipped {
        notes.push("_⏭️ Skipped_".to_owned());
    }
    let applies = plan.timing.on_deadline == OnDeadline::Submit && plan.timing.deadline.is_some();
    let default = d
        .default
        .as_ref()
        .and_then(|k| d.options.iter().position(|o| &o.key == k))
        .filter(|_| applies && d.status == DecisionStatus::Pending);
    let typed_default = d
        .default_value
        .as_ref()
        .filter(|_| !choice && applies && d.status == DecisionStatus::Pending);
    if let Some(value) = typed_default {
        let shown = match value {
            crate::plan::AnswerValue::Bool(b) => {
                if *b {
                    "Yes".to_owned()
                } else {
                    "No".to_owned()
                }
            }
            other => other.text(),
        };
        notes.push(format!("⏰ At the deadline: {}", line(&shown, caps.label)));
    }
    if let Some(i) = default.filter(|_| choice) {
        let o = &d.options[i];
        let shown = if o.label.trim().is_empty() {
            &o.key
        } else {
            &o.label
        };
        notes.push(format!(
            "⏰ At the deadline: {}\\. {}",
            letter(i),
            line(shown, caps.label)
        ));
    }
    if !choice {
    } else if d.options.is_empty() {
        notes.push("_Free\\-text question: tap ✏️ Custom to answer\\._".to_owned());
    } else if d.allow_custom {
        notes.push("_✏️ Custom answers allowed_".to_owned());
    }
    notes.extend(people_lines(d, caps, viewer));
    for note in notes {
        text.push_str(&format!("\n\n{note}"));
    }
    Draft {
        text,
        cut: context.cut || kind.cut,
    }
}

/// Who answered (by name), who it is delegated to, and the note, as lines of the decision view.
fn people_lines(d: &Decision, caps: Caps, viewer: &Viewer) -> Vec<String> {
    let mut lines = Vec::new();
    if d.status != DecisionStatus::Pending
        && let Some(who) = d.answered_by.as_deref()
    {
        lines.push(format!(
            "_answered by {}_",
            line(&viewer.name(who), caps.label)
        ));
    }
    if let Some(to) = d.delegated_to {
        let by = d
            .delegated_by
            .map(|by| format!(" by {}", line(&viewer.name_of(by), caps.label)))
            .unwrap_or_default();
        lines.push(format!(
            "👉 Delegated to {}{by}",
            line(&viewer.name_of(to), caps.label)
        ));
    }
    if let Some(note) = &d.note {
        lines.push(format!("💬 _Note:_ {}", line(note, caps.label)));
    }
    lines
}

fn keyboard(
    plan: &Plan,
    index: usize,
    d: &Decision,
    picks: Option<&[usize]>,
    cut: bool,
    viewer: &Viewer,
) -> Vec<Vec<Button>> {
    let plan_ref = pref(plan);
    let total = plan.decisions.len();
    let mut keyboard = Vec::new();

    let mut nav = Vec::with_capacity(3);
    if let Some(prev) = index.checked_sub(1).and_then(index16) {
        let show = Callback::Show {
            plan: plan_ref.clone(),
            index: prev,
        };
        nav.push(Button::new("⬅️ Prev", show));
    }
    nav.push(Button::new(
        format!("{}/{total}", index + 1),
        Callback::Noop,
    ));
    if index + 1 >= total {
        let review = Callback::Review {
            plan: plan_ref.clone(),
        };
        nav.push(Button::new("📋 Review", review));
    } else if let Some(next) = index16(index + 1) {
        let show = Callback::Show {
            plan: plan_ref.clone(),
            index: next,
        };
        nav.push(Button::new("Next ➡️", show));
    }
    if viewer.approves() {
        keyboard.push(nav);
    }

    let Some(index) = index16(index) else {
        if cut {
            keyboard.push(vec![full_context(plan)]);
        }
        if viewer.approves() {
            keyboard.push(vec![back_to_plan(plan)]);
        }
        return keyboard;
    };
    let chosen = d
        .chosen_option()
        .filter(|_| d.status == DecisionStatus::Answered);
    // The one decision of a plan is the whole plan: sending it back is one tap away, beside its answers.
    let sends_back = plan.decisions.len() == 1 && !plan.elicitation && viewer.approves();
    let kind_rows = super::kinds::kind_buttons(plan, index, d, picks);
    let lettered = kind_rows.is_none() || matches!(d.kind, Kind::Edit { .. });
    keyboard.extend(kind_rows.unwrap_or_default());
    let options = d
        .options
        .iter()
        .take(if lettered { MAX_OPTION_BUTTONS } else { 0 })
        .enumerate()
        .filter_map(|(i, option)| {
            let answer = Callback::Answer {
                plan: plan_ref.clone(),
                index,
                option: index16(i)?,
                seen: seen::of_option(d, option),
            };
            // A lone option reads as itself beside `🔁 Request changes` (`✅ Approve`), not as a letter.
            let tick = if chosen == Some(i) { "✓ " } else { "" };
            let text = if d.options.len() == 1 && sends_back {
                button_text(tick, shown_label(option))
            } else {
                format!("{tick}{}", letter(i))
            };
            Some(Button::new(text, answer))
        })
        .collect();
    let mut options: Vec<Button> = options;
    if sends_back {
        options.push(request_changes(plan));
    }
    keyboard.extend(rows_of(options, 3));

    let seen = seen::of_decision(d);
    let custom = Callback::Custom {
        plan: plan_ref.clone(),
        index,
        seen: seen.clone(),
    };
    let skip = Callback::Skip {
        plan: plan_ref.clone(),
        index,
        seen: seen.clone(),
    };
    let mut typing = Vec::new();
    if d.kind == Kind::Choice || (matches!(d.kind, Kind::Multi { .. }) && d.allow_custom) {
        typing.push(Button::new("✏️ Custom", custom));
    }
    if !d.required {
        typing.push(Button::new("⏭️ Skip", skip));
    }
    if !typing.is_empty() {
        keyboard.push(typing);
    }
    let note = Callback::Note {
        plan: plan_ref.clone(),
        index,
        seen: seen.clone(),
    };
    let mut people = vec![Button::new("💬 Note", note)];
    if viewer.approves() {
        if d.delegated_to.is_some() {
            let back = Callback::TakeBack {
                plan: plan_ref,
                index,
                seen,
            };
            people.push(Button::new("↩️ Take back", back));
        } else if !viewer.delegates.is_empty() {
            let menu = Callback::DelegateMenu {
                plan: plan_ref,
                index,
                seen,
            };
            people.push(Button::new("👉 Delegate", menu));
        }
    }
    keyboard.push(people);
    if cut {
        keyboard.push(vec![full_context(plan)]);
    }
    if viewer.approves() {
        keyboard.push(vec![back_to_plan(plan)]);
    }
    keyboard
}

/// What an option's button or line shows: its label, else its key.
fn shown_label(option: &crate::plan::DecisionOption) -> &str {
    if option.label.trim().is_empty() {
        &option.key
    } else {
        &option.label
    }
}

fn back_to_plan(plan: &Plan) -> Button {
    Button::new("↩️ Back to Plan", Callback::Open { plan: pref(plan) })
}

/// The confirmation line after a tap, as MarkdownV2: `✅ *Auth Strategy* → `jwt`` (a custom answer
/// shows as code too), `⏭️ *Title* skipped`, or `⬜ *Title* still pending`. Pass it as `confirm`.
#[must_use]
pub fn after_answer(decision: &Decision) -> String {
    let title = line(&decision.title, CONFIRM_TITLE);
    match decision.status {
        DecisionStatus::Answered => {
            let answer = super::kinds::shown_answer(decision);
            format!("✅ *{title}* → {}", code_line(&answer, CONFIRM_ANSWER))
        }
        DecisionStatus::Skipped => format!("⏭️ *{title}* skipped"),
        DecisionStatus::Pending => format!("⬜ *{title}* still pending"),
    }
}

/// Asks for a custom answer to decision `index` with a force reply: `✏️ Type your answer for *Title*`,
/// where it belongs, the current answer if any, and the `/cancel` hint. No inline keyboard.
/// An index out of range draws the plan view.
#[must_use]
pub fn custom_prompt(plan: &Plan, index: usize) -> View {
    let Some(d) = plan.decisions.get(index) else {
        return super::plan_view::plan_view(plan, chrono::Utc::now());
    };
    if d.kind.is_typed() {
        return super::kinds::input_prompt(plan, index, d);
    }
    let draft = fit(|caps| {
        let mut text = format!(
            "✏️ Type your answer for *{}*\n_{} · {}/{}_",
            line(&d.title, caps.title),
            line(&plan.title, caps.title),
            index + 1,
            plan.decisions.len()
        );
        if d.status == DecisionStatus::Answered {
            let answer = d.answer.as_deref().unwrap_or_default();
            text.push_str(&format!(
                "\n\nCurrent answer: {}",
                code_line(answer, caps.label)
            ));
        }
        text.push_str("\n\nSend /cancel to leave it as it is\\.");
        Draft::from(text)
    });
    View {
        text: draft.text,
        keyboard: Vec::new(),
        force_reply: true,
    }
}
