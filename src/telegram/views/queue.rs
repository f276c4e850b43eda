//! The queue view: every pending plan, most urgent first, ten per page.

use crate::plan::Plan;
use crate::plan::timing::parse_time;
use crate::telegram::callback::Callback;

use super::layout::{
    Caps, Draft, fit, index16, line, pref, priority_counts, rows_of, settled, tag_prefix,
};
use super::{Button, View};

/// Plans per queue page.
pub const QUEUE_PAGE_SIZE: usize = 10;
const HEADER: &str = "📋 *Arbiter — Decision Queue*";

/// The queue: priority counts, numbered plan lines and `1`…`N` buttons (rows of 5), `🔄 Refresh`.
///
/// Plans are sorted by priority, then deadline (earliest first; plans without one after), then age (oldest
/// `created_at` first), keeping the given order where those are equal; overdue plans are marked `⏰`. `page`
/// (0-based) is clamped to the last page.
#[must_use]
pub fn queue(plans: &[&Plan], page: usize) -> View {
    queue_at(plans, page, chrono::Utc::now())
}

/// Sorts plans as the queue shows them: priority, then deadline (earliest first; plans without one after), then
/// age (oldest `created_at` first), keeping the given order where those are equal. (The web dashboard's queue
/// uses it too.)
pub fn queue_order(plans: &mut [&Plan]) {
    plans.sort_by_cached_key(|p| {
        let created = p.created_at.as_deref().and_then(parse_time);
        (
            p.priority,
            p.timing.deadline.is_none(),
            p.timing.deadline,
            created.is_none(),
            created,
        )
    });
}

/// [`queue`] as it reads at `now`.
#[must_use]
pub fn queue_at(plans: &[&Plan], page: usize, now: chrono::DateTime<chrono::Utc>) -> View {
    let mut sorted = plans.to_vec();
    queue_order(&mut sorted);
    if sorted.is_empty() {
        let text = format!(
            "{HEADER}\n\n_No pending decisions\\._\nAgents add plans with `arbiter push`\\."
        );
        return View::new(text, vec![vec![refresh(0)]]);
    }

    let pages = sorted.len().div_ceil(QUEUE_PAGE_SIZE);
    let page = page.min(pages - 1);
    let first = page * QUEUE_PAGE_SIZE;
    let shown = &sorted[first..(first + QUEUE_PAGE_SIZE).min(sorted.len())];

    let counts = priority_counts(&sorted);
    let text = fit(|caps| {
        let mut text = format!("{HEADER}\n\n{counts}\n");
        for (i, plan) in shown.iter().enumerate() {
            let overdue = if plan.timing.overdue(now) { " ⏰" } else { "" };
            text.push_str(&format!(
                "\n{}\\. {}{overdue}",
                first + i + 1,
                plan_line(plan, caps)
            ));
        }
        Draft::from(text)
    })
    .text;

    let numbers = shown
        .iter()
        .enumerate()
        .map(|(i, plan)| {
            Button::new(
                (first + i + 1).to_string(),
                Callback::Open { plan: pref(plan) },
            )
        })
        .collect();
    let mut keyboard = rows_of(numbers, 5);
    if pages > 1 {
        keyboard.push(page_row(page, pages));
    }
    keyboard.push(vec![refresh(page)]);
    View::new(text, keyboard)
}

/// `🔴 \[tag\] Title — 1/3` (settled/total).
fn plan_line(plan: &Plan, caps: Caps) -> String {
    format!(
        "{} {}{} — {}/{}",
        plan.priority.icon(),
        tag_prefix(plan, caps),
        line(&plan.title, caps.title),
        settled(plan),
        plan.decisions.len()
    )
}

/// `⬅️` `Page k/n` `➡️`, arrows left out at the ends.
fn page_row(page: usize, pages: usize) -> Vec<Button> {
    let mut row = Vec::with_capacity(3);
    if let Some(prev) = page.checked_sub(1).and_then(index16) {
        row.push(Button::new("⬅️", Callback::Queue { page: prev }));
    }
    row.push(Button::new(
        format!("Page {}/{pages}", page + 1),
        Callback::Noop,
    ));
    if let Some(next) = (page + 1 < pages).then_some(page + 1).and_then(index16) {
        row.push(Button::new("➡️", Callback::Queue { page: next }));
    }
    row
}

fn refresh(page: usize) -> Button {
    let page = index16(page).unwrap_or(u16::MAX);
    Button::new("🔄 Refresh", Callback::Queue { page })
}
