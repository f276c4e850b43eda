//! Messages the daemon sends unasked: a new plan, a burst of new plans, the summary at start.

use crate::plan::Outline;
use crate::telegram::callback::Callback;

use super::layout::{
    Caps, Draft, decisions_word, fit, flat, line, pref, priority_counts, rows_of, tag_prefix,
    to_queue,
};
use super::{Button, View};

/// Most plans a burst announcement lists (and numbers as buttons); the rest are counted.
const BURST_LISTED: usize = 10;

/// A new plan: `📥 *New decision plan*`, `🟡 normal · \[tag\]`, `*Title*`, `3 decisions · from ceo`;
/// button `📂 Open`.
#[must_use]
pub fn announcement<P: Outline + ?Sized>(plan: &P) -> View {
    let text = fit(|caps| {
        let text = format!(
            "📥 *New decision plan*\n\n{}\n{}",
            plan_heading(plan, caps),
            asked_by(plan, caps)
        );
        Draft::from(text)
    })
    .text;
    let open = Button::new("📂 Open", Callback::Open { plan: pref(plan) });
    View::new(text, vec![vec![open]])
}

/// Several new plans in one message (most urgent first): numbered lines, `1`…`N` Open buttons (rows
/// of 5, at most ten plans listed) and `📋 Open queue`.
#[must_use]
pub fn announcement_burst<P: Outline>(plans: &[&P]) -> View {
    let head = format!("📥 *{} new decision plans*", plans.len());
    numbered_plans(&head, plans, asked_by)
}

/// A message about several plans (most urgent first): `head`, then numbered lines `N. 🟡 [tag] Title — tail`
/// (at most ten; the rest counted), `1`…`N` Open buttons in rows of 5, and `📋 Open queue`.
pub(super) fn numbered_plans<P: Outline>(
    head: &str,
    plans: &[&P],
    tail: impl Fn(&P, Caps) -> String,
) -> View {
    let mut sorted = plans.to_vec();
    sorted.sort_by_key(|p| p.priority());
    let shown = &sorted[..sorted.len().min(BURST_LISTED)];
    let text = fit(|caps| {
        let mut text = format!("{head}\n");
        for (i, plan) in shown.iter().enumerate() {
            text.push_str(&format!(
                "\n{}\\. {} {}{} — {}",
                i + 1,
                plan.priority().icon(),
                tag_prefix(*plan, caps),
                line(plan.title(), caps.title),
                tail(plan, caps)
            ));
        }
        let hidden = sorted.len() - shown.len();
        if hidden > 0 {
            text.push_str(&format!("\n_…and {hidden} more in the queue\\._"));
        }
        Draft::from(text)
    })
    .text;
    let numbers = shown
        .iter()
        .enumerate()
        .map(|(i, plan)| Button::new((i + 1).to_string(), Callback::Open { plan: pref(*plan) }))
        .collect();
    let mut keyboard = rows_of(numbers, 5);
    keyboard.push(vec![to_queue("📋 Open queue")]);
    View::new(text, keyboard)
}

/// At start, one message for the plans already pending: `📋 *3 plans waiting*`, counts by priority,
/// button `📋 Open queue`.
#[must_use]
pub fn startup_summary<P: Outline>(plans: &[&P]) -> View {
    let text = match plans.len() {
        0 => "📋 *Arbiter is running*\n\n_No pending decisions\\._".to_owned(),
        1 => format!("📋 *1 plan waiting*\n\n{}", priority_counts(plans)),
        n => format!("📋 *{n} plans waiting*\n\n{}", priority_counts(plans)),
    };
    View::new(text, vec![vec![to_queue("📋 Open queue")]])
}

/// `🟡 normal · \[tag\]` then `*Title*` on the next line: how unasked messages name a plan.
pub(super) fn plan_heading<P: Outline + ?Sized>(plan: &P, caps: Caps) -> String {
    let priority = plan.priority();
    let mut text = format!("{} {}", priority.icon(), priority.as_str());
    let tag = tag_prefix(plan, caps);
    if !tag.is_empty() {
        text.push_str(&format!(" · {}", tag.trim_end()));
    }
    text.push_str(&format!("\n*{}*", line(plan.title(), caps.title)));
    text
}

/// `3 decisions · from ceo` (the agent part only when known).
fn asked_by<P: Outline + ?Sized>(plan: &P, caps: Caps) -> String {
    let count = decisions_word(plan.decision_count());
    match plan.asker().as_deref().map(flat) {
        Some(agent) if !agent.is_empty() => format!("{count} · from {}", line(&agent, caps.label)),
        _ => count,
    }
}
