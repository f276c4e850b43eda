//! `/stats` and the daily digest: the figures of [`crate::stats::compute`] as short lines for a phone.

use chrono::NaiveDate;

use crate::plan::Priority;
use crate::stats::{Group, Pending, Spread, Stats};

use super::View;
use super::layout::{decisions_word, line, to_queue};
use crate::plan::duration::{self, Style};

/// Most agents, tags, people and slow decisions listed; the rest are counted.
const LISTED: usize = 5;
/// Longest id or name shown.
const NAME: usize = 40;

/// `/stats`: the period's figures (`days` long, ending now) and the queue now. Button `📋 Open queue`.
#[must_use]
pub fn stats(s: &Stats, days: u32) -> View {
    let d = &s.decisions;
    let mut text = format!(
        "📊 *Stats, last {days} days*\n\n✅ {} completed\n🗳 {} answered \\({} custom\\) · {} skipped · {} by deadline",
        plans_word(s.plans_completed),
        decisions_word(d.answered),
        d.custom,
        d.skipped,
        d.deadline
    );
    if d.delegated > 0 {
        text.push_str(&format!(" · {} delegated", d.delegated));
    }
    text.push_str(&format!(
        "\n⏱ Time to decide: {}\n📄 Time per plan: {}",
        spread(&s.decision_seconds),
        spread(&s.plan_seconds)
    ));
    for (title, groups) in [
        ("By agent", &s.by_agent),
        ("By tag", &s.by_tag),
        ("By person", &s.by_person),
    ] {
        if !groups.is_empty() {
            text.push_str(&format!("\n\n*{title}*\n{}", group_lines(groups)));
        }
    }
    if !s.slowest.is_empty() {
        text.push_str("\n\n*Slowest decisions*");
        for slow in &s.slowest {
            text.push_str(&format!(
                "\n• {} in {} — {}",
                line(&slow.decision_id, NAME),
                line(&slow.plan_id, NAME),
                secs(slow.seconds)
            ));
        }
    }
    text.push_str("\n\n");
    text.push_str(&queue_now(&s.pending, oldest_age(s)));
    let a = &s.pending.ages;
    if s.pending.total > 0 {
        text.push_str(&format!(
            "\nAges: < 1h {} · 1h–1d {} · 1–7d {} · \\> 7d {}",
            a.lt_1h, a.h1_d1, a.d1_d7, a.gt_7d
        ));
    }
    View::new(text, vec![vec![to_queue("📋 Open queue")]])
}

/// The caption of the `/stats` chart.
#[must_use]
pub fn chart_caption(days: u32) -> String {
    format!("📈 Decisions answered per day and the median time to decide, last {days} days")
}

/// The daily digest: the queue now, then `day`'s figures (the local day before the digest). Button
/// `📋 Open queue`.
#[must_use]
pub fn digest(now: &Stats, day: NaiveDate, that_day: &Stats) -> View {
    let d = &that_day.decisions;
    let mut text = format!(
        "☀️ *Daily digest*\n\n{}\n\n*{}*\n✅ {} completed\n🗳 {} answered · {} skipped",
        queue_now(&now.pending, oldest_age(now)),
        day.format("%A %-d %B"),
        plans_word(that_day.plans_completed),
        decisions_word(d.answered),
        d.skipped
    );
    if d.deadline > 0 {
        text.push_str(&format!(" · {} by deadline", d.deadline));
    }
    if d.rule > 0 {
        text.push_str(&format!(
            "\n🔁 {} answered by standing rules, nobody asked \\(/rules\\)",
            if d.rule == 1 {
                "1 prompt".to_owned()
            } else {
                format!("{} prompts", d.rule)
            }
        ));
    }
    if let Some(p50) = that_day.decision_seconds.p50 {
        text.push_str(&format!("\n⏱ Time to decide: p50 {}", secs(p50)));
    }
    View::new(text, vec![vec![to_queue("📋 Open queue")]])
}

/// `📥 *Queue now:* 5 pending`, the counts by priority, overdue and the oldest plan.
fn queue_now(p: &Pending, oldest_age: Option<i64>) -> String {
    if p.total == 0 {
        return "📥 *Queue now:* nothing pending".to_owned();
    }
    let b = &p.by_priority;
    let counts: Vec<String> = [
        (Priority::Urgent, b.urgent),
        (Priority::High, b.high),
        (Priority::Normal, b.normal),
        (Priority::Low, b.low),
    ]
    .into_iter()
    .filter(|(_, n)| *n > 0)
    .map(|(priority, n)| format!("{} {n} {}", priority.icon(), priority.as_str()))
    .collect();
    let mut text = format!(
        "📥 *Queue now:* {} pending\n{}",
        p.total,
        counts.join(" · ")
    );
    if p.overdue > 0 {
        text.push_str(&format!("\n⏰ {} overdue", p.overdue));
    }
    if let Some(id) = &p.oldest_id {
        let age = oldest_age.map_or_else(String::new, |s| format!(", waiting {}", secs(s)));
        text.push_str(&format!("\n🐢 Oldest: {}{}", line(id, NAME), age));
    }
    text
}

/// How long the oldest pending plan has waited: the longest of the agents' oldest waits.
fn oldest_age(s: &Stats) -> Option<i64> {
    s.waiting.iter().filter_map(|w| w.oldest_seconds).max()
}

/// `• ceo: 2 (p50 2h)` lines, at most [`LISTED`], then `• … 3 more`.
fn group_lines(groups: &std::collections::BTreeMap<String, Group>) -> String {
    let mut lines: Vec<String> = groups
        .iter()
        .take(LISTED)
        .map(|(name, g)| {
            let p50 = g
                .p50_seconds
                .map_or_else(String::new, |s| format!(" \\(p50 {}\\)", secs(s)));
            format!("• {}: {}{p50}", line(name, NAME), g.count)
        })
        .collect();
    if groups.len() > LISTED {
        lines.push(format!("• … {} more", groups.len() - LISTED));
    }
    lines.join("\n")
}

/// `p50 1h · p90 4h · max 4h`, or `none timed`.
fn spread(x: &Spread) -> String {
    match (x.p50, x.p90, x.max) {
        (Some(p50), Some(p90), Some(max)) => {
            format!("p50 {} · p90 {} · max {}", secs(p50), secs(p90), secs(max))
        }
        _ => "none timed".to_owned(),
    }
}

fn secs(seconds: i64) -> String {
    let seconds = u64::try_from(seconds).unwrap_or(0);
    duration::say(std::time::Duration::from_secs(seconds), Style::Spoken)
}

fn plans_word(n: usize) -> String {
    if n == 1 {
        "1 plan".to_owned()
    } else {
        format!("{n} plans")
    }
}

#[cfg(test)]
mod tests;
