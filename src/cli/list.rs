//! `arbiter list`: the pending queue as a terminal table.

use chrono::{DateTime, Utc};

use super::CliError;
use crate::agent::report::StatusReport;
use std::sync::Arc;

use crate::plan::duration;
use crate::queue::Loaded;

pub fn run(queue: super::At<'_>, json: bool) -> Result<(), CliError> {
    let scan = super::open_queue(queue)?.scan_pending()?;
    for problem in &scan.problems {
        eprintln!("arbiter: warning: {}", problem.diagnostic);
    }
    let mut plans: Vec<Loaded> = scan.plans.into_iter().map(Arc::unwrap_or_clone).collect();
    plans.sort_by(|a, b| {
        (a.plan.priority, &a.plan.created_at).cmp(&(b.plan.priority, &b.plan.created_at))
    });
    if json {
        let reports: Vec<StatusReport> = plans.iter().map(StatusReport::of).collect();
        super::print_json(&reports)?;
    } else {
        let reports: Vec<StatusReport> = plans.iter().map(StatusReport::of).collect();
        print!("{}", table(&reports, Utc::now()));
    }
    Ok(())
}

/// The table: priority, tag, title, progress, age and id; most urgent first, then oldest first.
#[must_use]
pub fn table(plans: &[StatusReport], now: DateTime<Utc>) -> String {
    if plans.is_empty() {
        return "no pending plans\n".to_owned();
    }
    let header = ["PRIORITY", "TAG", "TITLE", "PROGRESS", "AGE", "ID"].map(str::to_owned);
    let mut rows = vec![header];
    for p in plans {
        rows.push([
            p.priority.clone(),
            p.tag.clone().unwrap_or_else(|| "-".to_owned()),
            cut(&p.title, 48),
            format!("{}/{}", p.answered, p.total),
            p.created_at
                .as_deref()
                .map_or_else(|| "-".to_owned(), |t| age(t, now)),
            p.id.clone(),
        ]);
    }
    super::table::aligned(&rows)
}

/// How long ago an RFC 3339 time was: `45s`, `3m`, `2h`, `4d`; `-` when it can't be read.
#[must_use]
pub fn age(created_at: &str, now: DateTime<Utc>) -> String {
    let Ok(created) = DateTime::parse_from_rfc3339(created_at) else {
        return "-".to_owned();
    };
    let age = (now - created.with_timezone(&Utc))
        .to_std()
        .unwrap_or_default();
    duration::say(age, duration::Style::Age)
}

fn cut(s: &str, max: usize) -> String {
    let s = s.replace(['\n', '\r'], " ");
    if s.chars().count() <= max {
        s
    } else {
        format!("{}…", s.chars().take(max - 1).collect::<String>())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ages() {
        let now = DateTime::parse_from_rfc3339("2026-02-05T12:00:00Z")
            .unwrap()
            .with_timezone(&Utc);
        assert_eq!(age("2026-02-05T11:59:15Z", now), "45s");
        assert_eq!(age("2026-02-05T11:57:00Z", now), "3m");
        assert_eq!(age("2026-02-05T10:00:00Z", now), "2h");
        assert_eq!(age("2026-02-01T12:00:00Z", now), "4d");
        assert_eq!(age("2026-02-06T12:00:00Z", now), "0s");
        assert_eq!(age("yesterday", now), "-");
    }
}
