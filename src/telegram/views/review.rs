//! The review summary before Submit, and the completion message after it.

use crate::plan::{Decision, DecisionStatus, Plan};
use crate::telegram::callback::Callback;

use super::layout::{
    Caps, Draft, MAX_DECISION_BUTTONS, button_text, code_line, fit, fit_first, index16, line, pref,
    submit_button, to_queue,
};
use super::{Button, View, Viewer};

/// `📋 *Title*`, `✅ 2 answered · ⏭️ 1 skipped` (`· ⬜ n pending` when any), a hint; buttons
/// `1. ✓ Title` / `2. ⏭️ Title` / `3. ⬜ Title` (one per row, to the decision), `📤 Submit` only when
/// nothing is pending, `🔁 Request changes` (not for a delegate), `↩️ Back` (to the plan). `confirm` (MarkdownV2, e.g. [`super::after_answer`])
/// heads the message; it is dropped if it would break it.
///
/// As `viewer` sees it: notes, and on a plan that needs sign-offs who signed (by name) and `✅ Sign off (k/N)`
/// instead of `📤 Submit`.
pub(super) fn review_view(plan: &Plan, confirm: Option<&str>, viewer: &Viewer) -> View {
    let total = plan.decisions.len();
    let listed = total.min(MAX_DECISION_BUTTONS);
    let body = |caps: Caps| Draft::from(review_text(plan, listed, caps, viewer));
    let text = confirm
        .and_then(|header| {
            fit_first(|caps| Draft::from(format!("{header}\n\n{}", body(caps).text)))
        })
        .unwrap_or_else(|| fit(body))
        .text;

    let mut keyboard: Vec<Vec<Button>> = plan
        .decisions
        .iter()
        .take(listed)
        .enumerate()
        .filter_map(|(i, d)| {
            let mark = match d.status {
                DecisionStatus::Pending => "⬜",
                DecisionStatus::Answered => "✓",
                DecisionStatus::Skipped => "⏭️",
            };
            let show = Callback::Show {
                plan: pref(plan),
                index: index16(i)?,
            };
            Some(vec![Button::new(
                button_text(&format!("{}. {mark} ", i + 1), &d.title),
                show,
            )])
        })
        .collect();
    let mut last = Vec::new();
    if plan.remaining() == 0 {
        last.push(submit_button(plan));
    }
    if plan.elicitation {
        let decline = Callback::Decline {
            plan: pref(plan),
            seen: crate::actions::seen::of_answers(plan),
        };
        last.push(Button::new("❌ Decline", decline));
    }
    if !last.is_empty() {
        keyboard.push(last);
    }
    // Sending the plan back is the approvers' (a delegate sees only their decisions); an elicitation is declined
    // instead.
    if viewer.only.is_none() && !plan.elicitation {
        keyboard.push(vec![super::layout::request_changes(plan)]);
    }
    keyboard.push(vec![Button::new(
        "↩️ Back",
        Callback::Open { plan: pref(plan) },
    )]);
    View::new(text, keyboard)
}

fn review_text(plan: &Plan, listed: usize, caps: Caps, viewer: &Viewer) -> String {
    let mut counts = vec![format!("✅ {} answered", plan.answered())];
    let skipped = plan.count(DecisionStatus::Skipped);
    if skipped > 0 {
        counts.push(format!("⏭️ {skipped} skipped"));
    }
    let pending = plan.remaining();
    if pending > 0 {
        counts.push(format!("⬜ {pending} pending"));
    }
    let hint = if pending == 0 && plan.approval.needs_signoffs() {
        "_Tap to edit, or sign off\\._"
    } else if pending == 0 {
        "_Tap to edit, or submit\\._"
    } else {
        "_Tap to answer or edit; Submit appears once nothing is pending\\._"
    };
    let hint = if plan.elicitation {
        format!("{hint}\n❌ Decline answers the whole form with `decline`\\.")
    } else {
        hint.to_owned()
    };
    let mut text = format!(
        "📋 *{}*\n\n{}\n\n{hint}",
        line(&plan.title, caps.title),
        counts.join(" · ")
    );
    let notes: Vec<String> = plan
        .decisions
        .iter()
        .take(caps.items)
        .filter_map(|d| {
            let note = d.note.as_deref()?;
            Some(format!(
                "💬 {}: {}",
                line(&d.title, caps.title),
                line(note, caps.label)
            ))
        })
        .collect();
    if !notes.is_empty() {
        text.push_str(&format!("\n\n{}", notes.join("\n")));
    }
    if plan.approval.needs_signoffs() {
        let signed: Vec<String> = plan
            .approval
            .signoffs
            .iter()
            .map(|id| line(&viewer.name_of(*id), caps.label))
            .collect();
        let who = if signed.is_empty() {
            "nobody yet".to_owned()
        } else {
            signed.join(", ")
        };
        text.push_str(&format!(
            "\n\n✍️ Sign\\-offs {}/{}: {who}",
            plan.approval.signoffs.len(),
            plan.approval.require
        ));
    }
    let total = plan.decisions.len();
    if listed < total {
        text.push_str(&format!(
            "\n_Buttons list decisions 1–{listed} of {total}\\._"
        ));
    }
    text
}

/// `✅ *Title*`, `*Summary:*` with `1. Auth Strategy → `jwt`` lines (`_skipped_` for skipped ones),
/// `_Notifying: …_` with the notify target when there is one; button `📋 Back to Queue`.
#[must_use]
pub fn completion(plan: &Plan) -> View {
    let text = fit(|caps| {
        if plan.status == crate::plan::PlanStatus::Withdrawn {
            let w = plan.withdrawal.clone().unwrap_or_default();
            let by = w.by.as_deref().unwrap_or("its agent");
            let mut text = format!(
                "↩️ *{}*\n\nWithdrawn by {}: nobody needs to answer it any more, and nothing was recorded\\.",
                line(&plan.title, caps.title),
                code_line(by, caps.label)
            );
            if let Some(reason) = w.reason.as_deref().filter(|r| !r.trim().is_empty()) {
                text.push_str(&format!("\n\n_{}_", line(reason, caps.context)));
            }
            return Draft::from(text);
        }
        if plan.declined() {
            let mut text = format!(
                "❌ *{}*\n\nDeclined: the agent gets `decline`, and no answers\\.",
                line(&plan.title, caps.title)
            );
            if let Some(target) = plan.notify_target().filter(|t| !t.trim().is_empty()) {
                text.push_str(&format!("\n\n_Notifying: {}_", line(target, caps.label)));
            }
            return Draft::from(text);
        }
        let mut text = format!("✅ *{}*\n\n*Summary:*", line(&plan.title, caps.title));
        for (i, d) in plan.decisions.iter().take(caps.items).enumerate() {
            text.push_str(&format!(
                "\n{}\\. {} → {}",
                i + 1,
                line(&d.title, caps.title),
                outcome(d, caps)
            ));
        }
        let hidden = plan.decisions.len().saturating_sub(caps.items);
        if hidden > 0 {
            text.push_str(&format!("\n_…and {hidden} more_"));
        }
        if plan.decisions.is_empty() {
            text.push_str("\n_No decisions\\._");
        }
        if let Some(target) = plan.notify_target().filter(|t| !t.trim().is_empty()) {
            text.push_str(&format!("\n\n_Notifying: {}_", line(target, caps.label)));
        }
        Draft::from(text)
    })
    .text;
    View::new(text, vec![vec![to_queue("📋 Back to Queue")]])
}

/// `` `jwt` `` (the recorded answer: an option key or custom text), `_skipped_` or `_not answered_`.
fn outcome(d: &Decision, caps: Caps) -> String {
    match (d.status, d.answer.as_deref()) {
        (DecisionStatus::Answered, Some(_)) => code_line(&super::shown_answer(d), caps.label),
        (DecisionStatus::Skipped, _) => "_skipped_".to_owned(),
        _ => "_not answered_".to_owned(),
    }
}
