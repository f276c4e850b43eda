//! `arbiter stats`: the figures of [`crate::stats`] over the queue folder, as tables or `--json`.

use chrono::{DateTime, NaiveDate, Utc};

use super::CliError;
use super::table::aligned;
use crate::agent::AgentError;
use crate::plan::duration;
use crate::plan::timing::parse_time;
use crate::stats::{self, Group, Spread, Stats};

/// The period when `--since` is not given.
pub const DEFAULT_SINCE: &str = "30d";

pub fn run(at: super::At<'_>, since: Option<&str>, json: bool) -> Result<(), CliError> {
    let now = Utc::now();
    let since = parse_since(since.unwrap_or(DEFAULT_SINCE), now).map_err(AgentError::Invalid)?;
    let queue = super::open_queue(at)?;
    let pending = queue.scan_pending()?;
    let completed = queue.completed_since(since)?;
    for problem in &pending.problems {
        eprintln!("arbiter: warning: {}", problem.diagnostic);
    }
    let pending: Vec<_> = pending
        .plans
        .into_iter()
        // Shared with the store's cache: take the plan, cloning only then.
        .map(|l| {
            std::sync::Arc::try_unwrap(l).map_or_else(|shared| shared.plan.clone(), |l| l.plan)
        })
        .collect();
    // A person is shown by their name from the config's `people` when this machine has a config, else by id.
    let access = super::configured_access(at.config).ok();
    let name = |who: &str| {
        access
            .as_ref()
            .map_or_else(|| who.to_owned(), |a| a.display(who))
    };
    let stats = stats::compute(&completed, &pending, since, now, &name);
    if json {
        super::print_json(&stats)?;
    } else {
        print!("{}", report(&stats));
    }
    Ok(())
}

/// `--since`: a duration back from `now` (`30d`, `12h`), an RFC 3339 time, or a date (midnight UTC).
pub fn parse_since(s: &str, now: DateTime<Utc>) -> Result<DateTime<Utc>, String> {
    if let Some(t) = parse_time(s) {
        return Ok(t);
    }
    if let Ok(day) = NaiveDate::parse_from_str(s.trim(), "%Y-%m-%d") {
        return Ok(day.and_time(chrono::NaiveTime::MIN).and_utc());
    }
    duration::parse(s)
        .ok()
        .and_then(|d| chrono::Duration::from_std(d).ok())
        .and_then(|d| now.checked_sub_signed(d))
        .ok_or_else(|| {
            format!(
                "`--since {s}` is neither a duration back from now (30d, 12h) nor a time (2026-02-01T18:00:00Z) \
                 nor a date (2026-02-01)"
            )
        })
}

/// The human report: a few short aligned tables.
#[must_use]
pub fn report(s: &Stats) -> String {
    let d = &s.decisions;
    // `edited` only when there is any, so reports of plans without edit decisions read as before.
    let edited = if d.edited > 0 {
        format!(", {} edited", d.edited)
    } else {
        String::new()
    };
    let mut out = format!(
        "Completed since {}: {} plans\nDecisions: {} answered ({} custom{edited}), {} skipped, {} by deadline, {} delegated\n\n",
        s.since, s.plans_completed, d.answered, d.custom, d.skipped, d.deadline, d.delegated
    );
    let spread = |name: &str, x: &Spread| {
        [
            name.to_owned(),
            x.count.to_string(),
            opt(x.p50),
            opt(x.p90),
            opt(x.max),
        ]
    };
    out.push_str(&aligned(&[
        ["TIME TO DECIDE", "COUNT", "P50", "P90", "MAX"].map(str::to_owned),
        spread("per decision", &s.decision_seconds),
        spread("per plan", &s.plan_seconds),
    ]));
    for (title, count, groups) in [
        ("AGENT", "PLANS", &s.by_agent),
        ("TAG", "PLANS", &s.by_tag),
        ("PERSON", "ANSWERED", &s.by_person),
    ] {
        if groups.is_empty() {
            continue;
        }
        let mut rows = vec![[title, count, "P50"].map(str::to_owned)];
        rows.extend(groups.iter().map(|(name, g): (&String, &Group)| {
            [name.clone(), g.count.to_string(), opt(g.p50_seconds)]
        }));
        out.push('\n');
        out.push_str(&aligned(&rows));
    }
    let p = &s.pending;
    let b = &p.by_priority;
    out.push_str(&format!(
        "\nPending now: {} (urgent {}, high {}, normal {}, low {}), {} overdue, oldest {}\n",
        p.total,
        b.urgent,
        b.high,
        b.normal,
        b.low,
        p.overdue,
        p.oldest_id.as_deref().unwrap_or("-")
    ));
    let a = &p.ages;
    out.push_str(&aligned(&[
        ["AGE", "< 1h", "1h-1d", "1d-7d", "> 7d"].map(str::to_owned),
        [
            "plans".to_owned(),
            a.lt_1h.to_string(),
            a.h1_d1.to_string(),
            a.d1_d7.to_string(),
            a.gt_7d.to_string(),
        ],
    ]));
    if !s.slowest.is_empty() {
        let mut rows = vec![["SLOWEST DECISION", "PLAN", "TIME"].map(str::to_owned)];
        rows.extend(
            s.slowest
                .iter()
                .map(|x| [x.decision_id.clone(), x.plan_id.clone(), span(x.seconds)]),
        );
        out.push('\n');
        out.push_str(&aligned(&rows));
    }
    if !s.waiting.is_empty() {
        let mut rows = vec![["LONGEST WAITING AGENT", "PENDING", "OLDEST"].map(str::to_owned)];
        rows.extend(s.waiting.iter().map(|w| {
            [
                w.agent.clone(),
                w.pending.to_string(),
                opt(w.oldest_seconds),
            ]
        }));
        out.push('\n');
        out.push_str(&aligned(&rows));
    }
    out
}

fn opt(seconds: Option<i64>) -> String {
    seconds.map_or_else(|| "-".to_owned(), span)
}

/// A span in its two largest units: `45s`, `3m20s`, `2h`, `1d4h`, `12d`.
fn span(seconds: i64) -> String {
    let seconds = u64::try_from(seconds).unwrap_or(0);
    duration::say(
        std::time::Duration::from_secs(seconds),
        duration::Style::Table,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans() {
        let got = [0, 45, 200, 7200, 5400, 100_000, 12 * 86_400 + 59].map(span);
        assert_eq!(got, ["0s", "45s", "3m20s", "2h", "1h30m", "1d3h", "12d"]);
    }

    #[test]
    fn since() {
        let now = parse_time("2026-02-10T12:00:00Z").unwrap_or_default();
        let at = |s| parse_since(s, now).map(|t| t.to_rfc3339());
        assert_eq!(at("30d"), Ok("2026-01-11T12:00:00+00:00".to_owned()));
        assert_eq!(at("12h"), Ok("2026-02-10T00:00:00+00:00".to_owned()));
        assert_eq!(at("2026-02-01"), Ok("2026-02-01T00:00:00+00:00".to_owned()));
        assert_eq!(
            at("2026-02-01T18:00:00+02:00"),
            Ok("2026-02-01T16:00:00+00:00".to_owned())
        );
        assert!(at("last week").is_err_and(|e| e.starts_with("`--since last week` is neither")));
    }
}
