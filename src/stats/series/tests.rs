//! The per-day series over hand-made plans; every expected figure is worked out in the comments.
#![allow(clippy::unwrap_used)]

use chrono::NaiveDate;
use chrono_tz::Tz;

use super::*;
use crate::plan::DecisionStatus::{Answered, Skipped};
use crate::stats::tests::{completed, decision, plan, summaries, t};

fn day(date: &str, answered: usize, p50_seconds: Option<i64>) -> Day {
    Day {
        date: date.parse::<NaiveDate>().unwrap(),
        answered,
        p50_seconds,
    }
}

#[test]
fn an_empty_period_has_every_day_at_zero() {
    // The fixture's plans all completed before March.
    let got = daily(
        &summaries(&completed()),
        t("2026-03-01T00:00:00Z"),
        t("2026-03-03T08:00:00Z"),
        &Tz::UTC,
    );
    assert_eq!(
        got,
        [
            day("2026-03-01", 0, None),
            day("2026-03-02", 0, None),
            day("2026-03-03", 0, None)
        ]
    );
    // `since` after `now`: no days at all.
    let none = daily(
        &summaries(&completed()),
        t("2026-03-04T00:00:00Z"),
        t("2026-03-03T00:00:00Z"),
        &Tz::UTC,
    );
    assert!(none.is_empty());
}

#[test]
fn a_single_plan_is_on_the_day_it_was_answered() {
    // Created 09:00, answered 09:15 (900 s) and 10:00 (3600 s): p50 = the 1st of 2 (⌈1.0⌉) = 900.
    let mut p = plan(
        "one",
        None,
        Some("2026-02-02T09:00:00Z"),
        Some("2026-02-02T10:05:00Z"),
    );
    p.decisions = vec![
        decision("a", Answered, Some("a"), "2026-02-02T09:15:00Z", "1"),
        decision("b", Answered, Some("b"), "2026-02-02T10:00:00Z", "1"),
    ];
    let got = daily(
        &summaries(&[p]),
        t("2026-02-02T00:00:00Z"),
        t("2026-02-02T23:00:00Z"),
        &Tz::UTC,
    );
    assert_eq!(got, [day("2026-02-02", 2, Some(900))]);
}

#[test]
fn days_without_decisions_skips_and_the_deadline_are_not_timed() {
    // The stats fixture: p1 on 02-02 (1800 s and 3600 s by people, one skip: p50 = 1st of 2 = 1800); p2 on 02-03
    // (14400 s by ann; the deadline's answer and skip are not in the series); p3 on 02-04 without created_at
    // (counted, not timed); `old` completed before `since` and `undated` without completed_at are out.
    let got = daily(
        &summaries(&completed()),
        t("2026-02-01T00:00:00Z"),
        t("2026-02-05T12:00:00Z"),
        &Tz::UTC,
    );
    assert_eq!(
        got,
        [
            day("2026-02-01", 0, None),
            day("2026-02-02", 2, Some(1800)),
            day("2026-02-03", 1, Some(14_400)),
            day("2026-02-04", 1, None),
            day("2026-02-05", 0, None),
        ]
    );
    // The same decisions as the period's `answered`.
    let stats = crate::stats::compute(
        &summaries(&completed()),
        &[],
        t("2026-02-01T00:00:00Z"),
        t("2026-02-05T12:00:00Z"),
        &str::to_owned,
    );
    let total: usize = got.iter().map(|d| d.answered).sum();
    assert_eq!(total, stats.decisions.answered);
}

#[test]
fn days_are_local_and_answers_before_the_first_day_are_left_out() {
    let berlin = Tz::Europe__Berlin;
    // 23:30Z on 02-02 is 00:30 on 02-03 in Berlin (UTC+1); 1 h after created_at.
    let mut late = plan(
        "late",
        None,
        Some("2026-02-02T22:30:00Z"),
        Some("2026-02-02T23:40:00Z"),
    );
    late.decisions = vec![decision(
        "d",
        Answered,
        Some("a"),
        "2026-02-02T23:30:00Z",
        "1",
    )];
    // Answered on 01-31, completed in the period: its plan counts, this answer is before the series' first day.
    // Its skip is not in the series either way.
    let mut across = plan(
        "across",
        None,
        Some("2026-01-30T00:00:00Z"),
        Some("2026-02-02T12:00:00Z"),
    );
    across.decisions = vec![
        decision("d1", Answered, Some("b"), "2026-01-31T10:00:00Z", "1"),
        decision("d2", Skipped, None, "2026-02-02T12:00:00Z", "1"),
    ];
    let got = daily(
        &summaries(&[late, across]),
        t("2026-02-01T23:00:00Z"),
        t("2026-02-03T10:00:00Z"),
        &berlin,
    );
    assert_eq!(
        got,
        [day("2026-02-02", 0, None), day("2026-02-03", 1, Some(3600))]
    );
}

#[test]
fn a_long_period_keeps_the_latest_days() {
    let got = daily(
        &[],
        t("2020-01-01T00:00:00Z"),
        t("2026-02-05T12:00:00Z"),
        &Tz::UTC,
    );
    assert_eq!(got.len(), MAX_DAYS);
    assert_eq!(
        got.last().map(|d| d.date.to_string()),
        Some("2026-02-05".to_owned())
    );
}
