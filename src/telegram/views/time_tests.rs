//! Deadlines in the views, at fixed times: what the owner reads, and every view still valid and in limits.

use chrono::{DateTime, Utc};

use crate::plan::OnDeadline;
use crate::plan::timing::parse_time;
use crate::telegram::markdown_check::parse_markdown_v2;

use super::test_support::{assert_within_limits, spec_plan, test_plan};
use super::*;

fn at(s: &str) -> DateTime<Utc> {
    parse_time(s).unwrap()
}

fn plain(view: &View) -> String {
    assert_within_limits(view);
    parse_markdown_v2(&view.text).unwrap()
}

#[test]
fn spans_read_as_people_say_them() {
    use crate::plan::duration::{Style, say};
    let d = std::time::Duration::from_secs;
    let span = |d| say(d, Style::Spoken);
    assert_eq!(span(d(45)), "45s");
    assert_eq!(span(d(300)), "5m");
    assert_eq!(span(d(8100)), "2h 15m");
    assert_eq!(span(d(7200)), "2h");
    assert_eq!(span(d(2 * 86_400 + 3 * 3600 + 59)), "2d 3h");
    let deadline = at("2026-02-01T12:00:00Z");
    assert_eq!(
        due_text(deadline, at("2026-02-01T09:45:00Z")),
        "due in 2h 15m"
    );
    assert_eq!(
        due_text(deadline, at("2026-02-01T12:05:00Z")),
        "overdue by 5m"
    );
}

#[test]
fn plan_and_decision_views_show_the_deadline_and_the_default() {
    let mut plan = spec_plan();
    plan.timing.deadline = Some(at("2026-02-01T12:00:00Z"));
    plan.timing.on_deadline = OnDeadline::Submit;
    plan.decisions[0].default = Some("jwt".into());
    let now = at("2026-02-01T09:45:00Z");
    let shown = plain(&super::plan(&plan, &Drawn::at(now)));
    assert!(shown.contains("\n⏰ due in 2h 15m\n"), "{shown}");
    let shown = plain(&decision(&plan, 0, None, &Drawn::at(now)));
    assert!(
        shown.starts_with("1/3 · Auth Strategy\n⏰ due in 2h 15m\n"),
        "{shown}"
    );
    assert!(
        shown.contains("⏰ At the deadline: A. JWT tokens (stateless, scalable)"),
        "{shown}"
    );
    // With `on_deadline: wait` the default is never applied, so it is not promised.
    plan.timing.on_deadline = OnDeadline::Wait;
    let shown = plain(&decision(
        &plan,
        0,
        None,
        &Drawn::at(at("2026-02-01T12:05:00Z")),
    ));
    assert!(shown.contains("⏰ overdue by 5m"), "{shown}");
    assert!(!shown.contains("At the deadline"), "{shown}");
    // A plan without a deadline reads as it always did.
    let plain_plan = spec_plan();
    assert_eq!(
        super::plan(&plain_plan, &Drawn::at(now)),
        super::plan(&plain_plan, &Drawn::now())
    );
}

#[test]
fn the_queue_orders_by_priority_then_deadline_then_age_and_marks_overdue() {
    let mut late = test_plan();
    late.id = "late".into();
    late.title = "Late".into();
    late.timing.deadline = Some(at("2026-02-01T09:00:00Z"));
    let mut soon = late.clone();
    soon.id = "soon".into();
    soon.title = "Soon".into();
    soon.timing.deadline = Some(at("2026-02-01T11:00:00Z"));
    let mut old = late.clone();
    old.id = "old".into();
    old.title = "Old".into();
    old.timing.deadline = None;
    old.created_at = Some("2026-01-01T00:00:00Z".into());
    let mut young = old.clone();
    young.id = "young".into();
    young.title = "Young".into();
    young.created_at = Some("2026-01-31T00:00:00Z".into());
    for p in [&mut late, &mut soon, &mut old, &mut young] {
        p.priority = crate::plan::Priority::Normal;
    }
    let shown = plain(&queue_at(
        &[&young, &old, &soon, &late],
        0,
        at("2026-02-01T10:00:00Z"),
    ));
    let order: Vec<&str> = shown
        .lines()
        .filter(|l| l.starts_with(char::is_numeric))
        .collect();
    assert_eq!(order.len(), 4, "{shown}");
    assert!(
        order[0].starts_with("1. 🟡 ") && order[0].contains("Late") && order[0].ends_with(" ⏰"),
        "{shown}"
    );
    assert!(
        order[1].contains("Soon") && !order[1].ends_with('⏰'),
        "{shown}"
    );
    assert!(order[2].contains("Old"), "{shown}");
    assert!(order[3].contains("Young"), "{shown}");
}

#[test]
fn clock_messages_read_right() {
    let mut plan = spec_plan();
    plan.created_at = Some("2026-02-01T08:00:00Z".into());
    plan.timing.deadline = Some(at("2026-02-01T12:00:00Z"));
    let now = at("2026-02-01T10:00:00Z");
    assert_eq!(
        plain(&nudge(&plan, Nudge::Reminder, now)),
        "⏰ Reminder\n\n🟡 normal · [nft-marketplace]\nAPI Design Decisions\n3 of 3 decisions left · waiting 2h\n⏰ due in 2h"
    );
    assert!(plain(&nudge(&plan, Nudge::Escalated, now)).starts_with("🔺 Escalated to you\n"));
    let other = test_plan();
    let burst = nudge_burst(&[&plan, &other], now);
    assert!(
        plain(&burst).starts_with("⏰ 2 reminders\n"),
        "{}",
        plain(&burst)
    );
}
