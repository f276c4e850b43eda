//! Figures over plans: counts, time to decide, the queue now and its bottlenecks (DESIGN.md "Stats").
//!
//! One pure function, [`compute`], behind `arbiter stats`, `/stats`, the daily digest and the dashboard: no I/O,
//! no clock. [`daily`] splits the same period into local days for the chart ([`chart`]). What counts where:
//! - the period holds the completed plans whose `completed_at` is at or after `since` (a plan whose
//!   `completed_at` is missing or unreadable cannot be placed in time and is left out);
//! - `decisions`: `answered` and `skipped` are what a person did, `deadline` what the deadline did (answered
//!   with the default, or skipped), `rule` what standing rules answered (nobody asked), so the four add up to the
//!   period's resolved decisions; `custom` is the part
//!   of `answered` that is free text, `edited` the part that is an edited proposal (a `multi` answer, one
//!   decision, counts once); `delegated` counts decisions delegated to someone (`delegated_to` set; a
//!   delegation taken back writes `delegated_to: null` and is not counted);
//! - time to decide: per decision answered by a person, `answered_at` − the plan's `created_at`; per plan,
//!   `completed_at` − `created_at`. A plan without a readable `created_at` is counted but not timed, and so are
//!   its decisions. A negative span (clocks out of step) counts as 0;
//! - `by_agent`, `by_tag`: plans completed and the p50 of their plan time; `by_person`: decisions answered and
//!   the p50 of their decision time, keyed by `names(user id)`. Plans without an agent or a tag are under
//!   [`NONE`];
//! - the queue now: every pending plan by priority; ages and the oldest from `created_at` (plans without it are
//!   in `total` only); overdue when the deadline has passed at `now`;
//! - bottlenecks: the five slowest timed decisions, and (human output only, JSON has no key for it) the agents
//!   whose pending plans have waited longest, by the age of each agent's oldest pending plan.

pub mod chart;
mod series;
mod spread;

use std::collections::BTreeMap;

use chrono::{DateTime, SecondsFormat, Utc};
use serde::Serialize;

use crate::plan::timing::parse_time;
use crate::plan::{DecisionStatus, DecisionSummary, Plan, Priority, Summary};

pub use series::{Day, daily, local_date};
pub use spread::{Spread, nearest_rank};

/// `answered_by` of what the deadline answered or skipped.
const DEADLINE: &str = "deadline";
/// The key for plans without an agent or a tag.
pub const NONE: &str = "(none)";
/// How many slowest decisions and longest-waiting agents are listed.
pub const TOP: usize = 5;

/// Everything `arbiter stats --json` prints, with exactly DESIGN.md's keys.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Stats {
    /// Start of the period, RFC 3339 UTC.
    pub since: String,
    pub plans_completed: usize,
    pub decisions: Decisions,
    pub decision_seconds: Spread,
    pub plan_seconds: Spread,
    pub by_agent: BTreeMap<String, Group>,
    pub by_tag: BTreeMap<String, Group>,
    pub by_person: BTreeMap<String, Group>,
    pub pending: Pending,
    pub slowest: Vec<Slow>,
    /// Agents whose pending plans have waited longest (longest first); shown by the table, not in JSON.
    #[serde(skip)]
    pub waiting: Vec<Waiting>,
}

/// Decision counts in the period (see the module doc for what each holds).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct Decisions {
    pub answered: usize,
    pub skipped: usize,
    pub custom: usize,
    pub deadline: usize,
    pub delegated: usize,
    /// The part of `answered` that is an `edit` decision's proposal edited before approval (`edited: true`).
    pub edited: usize,
    /// Answered by a standing rule (`answered_by: rule:<id>`): nobody was asked; not timed, nobody's.
    pub rule: usize,
}

/// One agent's, tag's or person's figures: how many, and the median time.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct Group {
    pub count: usize,
    pub p50_seconds: Option<i64>,
}

/// The pending queue at `now`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct Pending {
    pub total: usize,
    pub by_priority: ByPriority,
    pub ages: Ages,
    pub oldest_id: Option<String>,
    pub overdue: usize,
}

/// Pending plans per priority, most urgent first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct ByPriority {
    pub urgent: usize,
    pub high: usize,
    pub normal: usize,
    pub low: usize,
}

/// Pending plans by age: under an hour, an hour to a day, a day to a week, a week or more.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct Ages {
    pub lt_1h: usize,
    #[serde(rename = "1h_1d")]
    pub h1_d1: usize,
    #[serde(rename = "1d_7d")]
    pub d1_d7: usize,
    pub gt_7d: usize,
}

/// One slow decision.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Slow {
    pub plan_id: String,
    pub decision_id: String,
    pub seconds: i64,
}

/// An agent with pending plans, and how long its oldest one has waited (None: no readable `created_at`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Waiting {
    pub agent: String,
    pub pending: usize,
    pub oldest_seconds: Option<i64>,
}

/// Times and a count for one agent, tag or person while plans are walked.
#[derive(Default)]
struct Tally {
    count: usize,
    seconds: Vec<i64>,
}

impl Tally {
    fn add(&mut self, seconds: Option<i64>) {
        self.count += 1;
        self.seconds.extend(seconds);
    }
}

fn groups(tallies: BTreeMap<String, Tally>) -> BTreeMap<String, Group> {
    tallies
        .into_iter()
        .map(|(name, mut t)| {
            let group = Group {
                count: t.count,
                p50_seconds: Spread::of(&mut t.seconds).p50,
            };
            (name, group)
        })
        .collect()
}

/// What became of a decision, as the figures count it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Resolution {
    /// Answered by a person (timed).
    Answered,
    /// Skipped by a person.
    Skipped,
    /// Answered with its default, or skipped, by the deadline.
    Deadline,
    /// Answered by a standing rule.
    Rule,
}

impl Resolution {
    /// `None` while the decision is pending.
    fn of(d: &DecisionSummary) -> Option<Resolution> {
        let by_deadline = d.answered_by.as_deref() == Some(DEADLINE);
        let by_rule = d
            .answered_by
            .as_deref()
            .is_some_and(|by| by.starts_with("rule:"));
        match d.status {
            DecisionStatus::Pending => None,
            _ if by_deadline => Some(Resolution::Deadline),
            _ if by_rule => Some(Resolution::Rule),
            DecisionStatus::Skipped => Some(Resolution::Skipped),
            DecisionStatus::Answered => Some(Resolution::Answered),
        }
    }
}

/// The completed plans of the period starting at `since`, each with its `completed_at`.
fn in_period(
    completed: &[Summary],
    since: DateTime<Utc>,
) -> impl Iterator<Item = (&Summary, DateTime<Utc>)> {
    completed.iter().filter_map(move |plan| {
        let done = plan.completed_at.as_deref().and_then(parse_time)?;
        (done >= since).then_some((plan, done))
    })
}

/// Time to decide a decision answered by a person: `answered_at` − the plan's `created_at` (`None` when either
/// is missing or unreadable).
fn decision_time(created: Option<DateTime<Utc>>, d: &DecisionSummary) -> Option<i64> {
    let answered = d.answered_at.as_deref().and_then(parse_time);
    created.zip(answered).map(|(c, a)| seconds(c, a))
}

/// Whole seconds from `from` to `to`, never negative.
fn seconds(from: DateTime<Utc>, to: DateTime<Utc>) -> i64 {
    (to - from).num_seconds().max(0)
}

fn key(value: Option<&String>) -> String {
    value.map_or_else(|| NONE.to_owned(), Clone::clone)
}

/// The figures for completed plans in `[since, …)` (their summaries, as the history index holds them) and the
/// pending queue at `now`. `names` turns an `answered_by` user id into the name shown under `by_person`.
#[must_use]
pub fn compute(
    completed: &[Summary],
    pending: &[Plan],
    since: DateTime<Utc>,
    now: DateTime<Utc>,
    names: &dyn Fn(&str) -> String,
) -> Stats {
    let mut plans_completed = 0;
    let mut decisions = Decisions::default();
    let mut decision_times = Vec::new();
    let mut plan_times = Vec::new();
    let mut slowest = Vec::new();
    let (mut agents, mut tags, mut people) = (BTreeMap::new(), BTreeMap::new(), BTreeMap::new());
    for (plan, done) in in_period(completed, since) {
        plans_completed += 1;
        let created = plan.created_at.as_deref().and_then(parse_time);
        let plan_time = created.map(|c| seconds(c, done));
        plan_times.extend(plan_time);
        agents
            .entry(key(plan.agent.as_ref()))
            .or_insert_with(Tally::default)
            .add(plan_time);
        tags.entry(key(plan.tag.as_ref()))
            .or_insert_with(Tally::default)
            .add(plan_time);
        for d in &plan.decisions {
            if d.delegated_to.is_some() {
                decisions.delegated += 1;
            }
            match Resolution::of(d) {
                None => continue,
                Some(Resolution::Deadline) => {
                    decisions.deadline += 1;
                    continue;
                }
                Some(Resolution::Rule) => {
                    decisions.rule += 1;
                    continue;
                }
                Some(Resolution::Skipped) => {
                    decisions.skipped += 1;
                    continue;
                }
                Some(Resolution::Answered) => decisions.answered += 1,
            }
            if d.custom {
                decisions.custom += 1;
            }
            if d.edited {
                decisions.edited += 1;
            }
            let time = decision_time(created, d);
            if let Some(s) = time {
                decision_times.push(s);
                slowest.push(Slow {
                    plan_id: plan.id.clone(),
                    decision_id: d.id.clone(),
                    seconds: s,
                });
            }
            if let Some(who) = d.answered_by.as_deref() {
                people
                    .entry(names(who))
                    .or_insert_with(Tally::default)
                    .add(time);
            }
        }
    }
    slowest.sort_by(|a, b| {
        (b.seconds, &a.plan_id, &a.decision_id).cmp(&(a.seconds, &b.plan_id, &b.decision_id))
    });
    slowest.truncate(TOP);
    let (pending, waiting) = queue_now(pending, now);
    Stats {
        since: since.to_rfc3339_opts(SecondsFormat::Secs, true),
        plans_completed,
        decisions,
        decision_seconds: Spread::of(&mut decision_times),
        plan_seconds: Spread::of(&mut plan_times),
        by_agent: groups(agents),
        by_tag: groups(tags),
        by_person: groups(people),
        pending,
        slowest,
        waiting,
    }
}

/// The pending queue at `now`, and the agents whose plans have waited longest.
fn queue_now(plans: &[Plan], now: DateTime<Utc>) -> (Pending, Vec<Waiting>) {
    let mut out = Pending::default();
    let mut oldest: Option<(DateTime<Utc>, &str)> = None;
    let mut agents: BTreeMap<String, Waiting> = BTreeMap::new();
    for plan in plans {
        out.total += 1;
        let slot = match plan.priority {
            Priority::Urgent => &mut out.by_priority.urgent,
            Priority::High => &mut out.by_priority.high,
            Priority::Normal => &mut out.by_priority.normal,
            Priority::Low => &mut out.by_priority.low,
        };
        *slot += 1;
        if plan.timing.overdue(now) {
            out.overdue += 1;
        }
        let created = plan.created_at.as_deref().and_then(parse_time);
        let age = created.map(|c| seconds(c, now));
        let agent = key(plan.agent.as_ref());
        let waiting = agents.entry(agent.clone()).or_insert(Waiting {
            agent,
            pending: 0,
            oldest_seconds: None,
        });
        waiting.pending += 1;
        waiting.oldest_seconds = waiting.oldest_seconds.max(age);
        let (Some(created), Some(age)) = (created, age) else {
            continue;
        };
        let bucket = match age {
            a if a < 3600 => &mut out.ages.lt_1h,
            a if a < 86_400 => &mut out.ages.h1_d1,
            a if a < 7 * 86_400 => &mut out.ages.d1_d7,
            _ => &mut out.ages.gt_7d,
        };
        *bucket += 1;
        if oldest.is_none_or(|o| (created, plan.id.as_str()) < o) {
            oldest = Some((created, &plan.id));
        }
    }
    out.oldest_id = oldest.map(|(_, id)| id.to_owned());
    let mut waiting: Vec<Waiting> = agents.into_values().collect();
    // Longest wait first; agents whose plans have no readable age last; then by name.
    waiting.sort_by(|a, b| (b.oldest_seconds, &a.agent).cmp(&(a.oldest_seconds, &b.agent)));
    waiting.truncate(TOP);
    (out, waiting)
}

#[cfg(test)]
mod tests;
