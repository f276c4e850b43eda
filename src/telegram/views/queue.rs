//! The queue view: every pending plan, most urgent first, ten per page.

use crate::plan::timing::parse_time;
use crate::plan::{Outline, Plan};
use crate::telegram::callback::Callback;

use super::layout::{
    Caps, Draft, fit, index16, line, pref, priority_counts, priority_counts_of, rows_of, settled,
    tag_prefix,
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

/// [`queue`] with a `🗂 Dashboard` button beside `🔄 Refresh` when the dashboard has an https URL: it opens
/// the dashboard inside Telegram as a Mini App.
#[must_use]
pub fn queue_with_dashboard(plans: &[&Plan], page: usize, dashboard: Option<&url::Url>) -> View {
    with_dashboard(queue(plans, page), dashboard)
}

/// A queue view with the `🗂 Dashboard` button added to its last row (nothing without a URL).
#[must_use]
pub fn with_dashboard(mut view: View, dashboard: Option<&url::Url>) -> View {
    if let Some(url) = dashboard
        && let Some(last) = view.keyboard.last_mut()
    {
        last.push(Button::web_app("🗂 Dashboard", url.clone()));
    }
    view
}

/// [`queue`] as it reads at `now`.
#[must_use]
pub fn queue_at(plans: &[&Plan], page: usize, now: chrono::DateTime<chrono::Utc>) -> View {
    let sorted: Vec<&Plan> = queue_order(plans).into_iter().map(|i| plans[i]).collect();
    queue_page(&sorted, &queue_counts(&sorted), page, now)
}

/// The queue's order of `plans`, as positions in `plans`: by priority, then deadline (earliest first; plans
/// without one after), then age (oldest `created_at` first), keeping the given order where those are equal. With
/// [`queue_counts`], what a daemon can keep per snapshot so that drawing a page touches only its plans.
#[must_use]
pub fn queue_order<P: Outline>(plans: &[&P]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..plans.len()).collect();
    order.sort_by_cached_key(|&i| queue_key(plans[i]));
    order
}

/// Where `plan` goes in the queue: plans sort by this key, ties kept in the given order.
fn queue_key<P: Outline + ?Sized>(
    plan: &P,
) -> (
    crate::plan::Priority,
    bool,
    Option<chrono::DateTime<chrono::Utc>>,
    bool,
    Option<chrono::DateTime<chrono::Utc>>,
) {
    let created = plan.created_at().and_then(parse_time);
    let deadline = plan.timing().deadline;
    (
        plan.priority(),
        deadline.is_none(),
        deadline,
        created.is_none(),
        created,
    )
}

/// Whether `a`, at position `a_at` of the given order, comes before `b`, at `b_at`, in [`queue_order`]'s order
/// (equals keep the given order): what a daemon places a new plan by, in a queue it keeps rather than sorts again.
#[must_use]
pub fn goes_before<P: Outline + ?Sized, Q: Outline + ?Sized>(
    a: &P,
    a_at: usize,
    b: &Q,
    b_at: usize,
) -> bool {
    (queue_key(a), a_at) < (queue_key(b), b_at)
}

/// The priority counts line of the queue view (`🔴 1 urgent │ 🟡 3 normal`).
#[must_use]
pub fn queue_counts<P: Outline>(plans: &[&P]) -> String {
    priority_counts(plans)
}

/// [`queue_counts`] from the number of plans of each priority, in [`crate::plan::Priority::ALL`]'s order (what a
/// daemon can keep up to date as plans come and go).
#[must_use]
pub fn queue_counts_of(per_priority: [usize; 4]) -> String {
    priority_counts_of(per_priority)
}

/// Page `page` (0-based, clamped to the last) of the queue view of `sorted` (already in [`queue_order`]), headed
/// by `counts` ([`queue_counts`]); overdue plans are marked `⏰` as of `now`.
#[must_use]
pub fn queue_page<P: Outline>(
    sorted: &[&P],
    counts: &str,
    page: usize,
    now: chrono::DateTime<chrono::Utc>,
) -> View {
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

    let text = fit(|caps| {
        let mut text = format!("{HEADER}\n\n{counts}\n");
        for (i, plan) in shown.iter().enumerate() {
            let overdue = if plan.timing().overdue(now) {
                " ⏰"
            } else {
                ""
            };
            text.push_str(&format!(
                "\n{}\\. {}{overdue}",
                first + i + 1,
                plan_line(*plan, caps)
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
                Callback::Open { plan: pref(*plan) },
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
fn plan_line<P: Outline + ?Sized>(plan: &P, caps: Caps) -> String {
    format!(
        "{} {}{} — {}/{}",
        plan.priority().icon(),
        tag_prefix(plan, caps),
        line(plan.title(), caps.title),
        settled(plan),
        plan.decision_count()
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
