//! The plan view: title, priority and progress, context, one button per decision.

use crate::plan::{DecisionStatus, Outline as _, Plan};
use crate::telegram::callback::Callback;
use crate::telegram::render::{Block, excerpt, render};

use super::layout::{
    Caps, Draft, MAX_DECISION_BUTTONS, button_text, fit, flat, index16, line, pref, settled,
    submit_button, to_queue,
};
use super::{Button, View, full_context};

/// The plan context is cut to this many characters (UTF-16 units of what the owner sees, the
/// `… 📄 Full context` line included) in the plan view (docs/views.md).
const PLAN_CONTEXT: usize = 300;
const BAR_CELLS: usize = 10;
/// Longest title in a file caption (Telegram allows 1024 characters).
const FILE_CAPTION_TITLE: usize = 200;

/// `📄 *Title*`, `🟡 normal │ ▓▓▓░░░░░░░ 1/3`, tag and agent, the context (rendered Markdown,
/// ≤ 300 characters, cut with `… 📄 Full context`); buttons `⬜ 1. Title` / `✅` answered / `⏭️`
/// skipped (one per row), `📄 Full context` when the context was cut, then `▶️ Continue` (or
/// `📤 Submit` once nothing is pending) and `↩️ Back`; an elicitation form's `❌ Decline` under them.
pub(super) fn plan_view(plan: &Plan, now: chrono::DateTime<chrono::Utc>) -> View {
    let total = plan.decisions.len();
    let listed = total.min(MAX_DECISION_BUTTONS);
    let context = render(&plan.context);
    let draft = fit(|caps| plan_text(plan, listed, &context, caps, now));

    let mut keyboard: Vec<Vec<Button>> = plan
        .decisions
        .iter()
        .take(listed)
        .enumerate()
        .filter_map(|(i, d)| {
            let icon = match d.status {
                DecisionStatus::Pending => "⬜",
                DecisionStatus::Answered => "✅",
                DecisionStatus::Skipped => "⏭️",
            };
            let index = index16(i)?;
            let show = Callback::Show {
                plan: pref(plan),
                index,
            };
            Some(vec![Button::new(
                button_text(&format!("{icon} {}. ", i + 1), &d.title),
                show,
            )])
        })
        .collect();
    if draft.cut {
        keyboard.push(vec![full_context(plan)]);
    }
    let go = if plan.remaining() > 0 {
        Button::new("▶️ Continue", Callback::Continue { plan: pref(plan) })
    } else {
        submit_button(plan)
    };
    keyboard.push(vec![go, to_queue("↩️ Back")]);
    // Any plan but a form can go back to its agent with the owner's words (a form is declined instead).
    if !plan.elicitation {
        keyboard.push(vec![super::layout::request_changes(plan)]);
    }
    // A form can be declined as a whole before any field is answered (its required fields can't be skipped to
    // reach the review).
    if plan.elicitation {
        let decline = Callback::Decline {
            plan: pref(plan),
            seen: crate::actions::seen::of_answers(plan),
        };
        keyboard.push(vec![Button::new("❌ Decline", decline)]);
    }
    View::new(draft.text, keyboard)
}

fn plan_text(
    plan: &Plan,
    listed: usize,
    context: &[Block],
    caps: Caps,
    now: chrono::DateTime<chrono::Utc>,
) -> Draft {
    let total = plan.decisions.len();
    let done = settled(plan);
    let mut text = format!(
        "📄 *{}*\n\n{} {} │ {} {done}/{total}",
        line(&plan.title, caps.title),
        plan.priority.icon(),
        plan.priority.as_str(),
        progress_bar(done, total),
    );
    let who: Vec<String> = [("🏷️", plan.tag.clone()), ("🤖", plan.asker())]
        .into_iter()
        .filter_map(|(icon, value)| {
            let value = flat(value.as_deref()?);
            (!value.is_empty()).then(|| format!("{icon} {}", line(&value, caps.label)))
        })
        .collect();
    if !who.is_empty() {
        text.push('\n');
        text.push_str(&who.join(" · "));
    }
    if let Some(due) = super::due_line(plan, now) {
        text.push_str(&format!("\n{due}"));
    }
    let context = excerpt(context, caps.context.min(PLAN_CONTEXT));
    if !context.text.is_empty() {
        text.push_str(&format!("\n\n{}", context.text));
    }
    if listed < total {
        text.push_str(&format!(
            "\n\n_Buttons list decisions 1–{listed} of {total}; ▶️ Continue and Next ➡️ reach the rest\\._"
        ));
    }
    Draft {
        text,
        cut: context.cut,
    }
}

/// The caption of the plan's file sent by `📄 Full context`: `📄 Full context of *Title*`.
#[must_use]
pub fn file_caption(plan: &Plan) -> String {
    format!(
        "📄 Full context of *{}*",
        line(&plan.title, FILE_CAPTION_TITLE)
    )
}

/// Ten cells, `▓` for each tenth settled (rounded down, so the bar is full only when all are).
fn progress_bar(done: usize, total: usize) -> String {
    let filled = (done * BAR_CELLS).checked_div(total).unwrap_or(0);
    let filled = filled.min(BAR_CELLS);
    format!("{}{}", "▓".repeat(filled), "░".repeat(BAR_CELLS - filled))
}

#[cfg(test)]
mod tests {
    use super::progress_bar;

    #[test]
    fn progress_bar_rounds_down() {
        assert_eq!(progress_bar(0, 3), "░░░░░░░░░░");
        assert_eq!(progress_bar(1, 3), "▓▓▓░░░░░░░");
        assert_eq!(progress_bar(2, 3), "▓▓▓▓▓▓░░░░");
        assert_eq!(progress_bar(3, 3), "▓▓▓▓▓▓▓▓▓▓");
        assert_eq!(progress_bar(29, 30), "▓▓▓▓▓▓▓▓▓░");
        assert_eq!(progress_bar(0, 0), "░░░░░░░░░░");
    }
}
