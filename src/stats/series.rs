//! The period split into local days: decisions answered per day and the median time to decide per day, for the
//! chart (`/stats`, the dashboard).
//!
//! Counted exactly as [`super::compute`] counts: the completed plans whose `completed_at` is in the period, and
//! of their decisions only those a person answered (skipped ones and the deadline's are not in the series). A
//! decision is placed on the local day of its `answered_at` (the plan's `completed_at` when `answered_at` is
//! missing or unreadable); one answered before the period's first day (a plan that waited across `since`) is
//! left out of the series. The median is over the day's timed decisions (nearest rank, like every percentile
//! here): a decision of a plan without a readable `created_at` is counted but not timed.

use chrono::{DateTime, NaiveDate, Utc};
use chrono_tz::Tz;
use serde::Serialize;

use super::{Resolution, decision_time, in_period, nearest_rank};
use crate::plan::Summary;
use crate::plan::timing::parse_time;

/// The most days a series holds (from `now` back): a `since` years ago still draws a readable chart.
pub const MAX_DAYS: usize = 366;

/// One local day of the period.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Day {
    pub date: NaiveDate,
    /// Decisions answered by a person that day.
    pub answered: usize,
    /// Median time to decide of that day's timed decisions; `None` when none was timed.
    pub p50_seconds: Option<i64>,
}

/// The calendar date of `t` in `tz`.
#[must_use]
pub fn local_date(t: DateTime<Utc>, tz: &Tz) -> Option<NaiveDate> {
    Some(t.with_timezone(tz).date_naive())
}

/// Every local day (in `tz`) from the day of `since` to the day of `now`, both included, with the decisions
/// answered that day (see the module doc). At most [`MAX_DAYS`] days, the latest ones; empty when `since` is
/// after `now`.
#[must_use]
pub fn daily(completed: &[Summary], since: DateTime<Utc>, now: DateTime<Utc>, tz: &Tz) -> Vec<Day> {
    let (Some(first), Some(last)) = (local_date(since, tz), local_date(now, tz)) else {
        return Vec::new();
    };
    if first > last {
        return Vec::new();
    }
    let first = last
        .checked_sub_days(chrono::Days::new(MAX_DAYS as u64 - 1))
        .map_or(first, |earliest| first.max(earliest));
    let days: Vec<NaiveDate> = first.iter_days().take_while(|d| *d <= last).collect();
    let mut tallies: Vec<(usize, Vec<i64>)> = vec![(0, Vec::new()); days.len()];
    for (plan, done) in in_period(completed, since) {
        let created = plan.created_at.as_deref().and_then(parse_time);
        for d in &plan.decisions {
            if Resolution::of(d) != Some(Resolution::Answered) {
                continue;
            }
            let at = d
                .answered_at
                .as_deref()
                .and_then(parse_time)
                .unwrap_or(done);
            let Some(index) = local_date(at, tz)
                .and_then(|date| usize::try_from((date - first).num_days()).ok())
                .filter(|i| *i < days.len())
            else {
                continue;
            };
            let tally = &mut tallies[index];
            tally.0 += 1;
            tally.1.extend(decision_time(created, d));
        }
    }
    days.into_iter()
        .zip(tallies)
        .map(|(date, (answered, mut seconds))| {
            seconds.sort_unstable();
            Day {
                date,
                answered,
                p50_seconds: nearest_rank(&seconds, 50),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests;
