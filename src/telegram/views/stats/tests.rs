//! `/stats` and the digest as the owner reads them, and their MarkdownV2 as Telegram parses it.
#![allow(clippy::unwrap_used)]

use std::collections::BTreeMap;

use super::*;
use crate::stats::{Ages, ByPriority, Decisions, Slow, Waiting};
use crate::telegram::markdown_check::parse_markdown_v2;

fn group(count: usize, p50_seconds: Option<i64>) -> Group {
    Group { count, p50_seconds }
}

fn figures() -> Stats {
    Stats {
        since: "2026-01-11T12:00:00Z".to_owned(),
        plans_completed: 3,
        decisions: Decisions {
            answered: 4,
            skipped: 1,
            custom: 1,
            deadline: 2,
            delegated: 0,
            edited: 0,
            rule: 0,
        },
        decision_seconds: Spread {
            p50: Some(3600),
            p90: Some(14_400),
            max: Some(14_400),
            count: 3,
        },
        plan_seconds: Spread::default(),
        by_agent: BTreeMap::from([("ceo".to_owned(), group(2, Some(7200)))]),
        by_tag: BTreeMap::new(),
        by_person: (1..=7)
            .map(|i| (format!("user_{i}"), group(i, None)))
            .collect(),
        pending: Pending {
            total: 3,
            by_priority: ByPriority {
                urgent: 1,
                high: 0,
                normal: 2,
                low: 0,
            },
            ages: Ages {
                lt_1h: 1,
                h1_d1: 0,
                d1_d7: 1,
                gt_7d: 0,
            },
            oldest_id: Some("q3.v2".to_owned()),
            overdue: 1,
        },
        slowest: vec![Slow {
            plan_id: "p2".to_owned(),
            decision_id: "db_(choice)".to_owned(),
            seconds: 14_400,
        }],
        waiting: vec![Waiting {
            agent: "swe".to_owned(),
            pending: 2,
            oldest_seconds: Some(2 * 86_400 + 3600),
        }],
    }
}

#[test]
fn stats_reads_well_and_parses() {
    let view = stats(&figures(), 30);
    parse_markdown_v2(&view.text).unwrap();
    assert_eq!(
        view.to_plain(),
        "📊 Stats, last 30 days

✅ 3 plans completed
🗳 4 decisions answered (1 custom) · 1 skipped · 2 by deadline
⏱ Time to decide: p50 1h · p90 4h · max 4h
📄 Time per plan: none timed

By agent
• ceo: 2 (p50 2h)

By person
• user_1: 1
• user_2: 2
• user_3: 3
• user_4: 4
• user_5: 5
• … 2 more

Slowest decisions
• db_(choice) in p2 — 4h

📥 Queue now: 3 pending
🔴 1 urgent · 🟡 2 normal
⏰ 1 overdue
🐢 Oldest: q3.v2, waiting 2d 1h
Ages: < 1h 1 · 1h–1d 0 · 1–7d 1 · > 7d 0

[📋 Open queue]"
    );
}

#[test]
fn digest_reads_well_and_parses() {
    let mut day = figures();
    day.plans_completed = 1;
    day.decisions.deadline = 0;
    day.decisions.rule = 12;
    let view = digest(&figures(), "2026-02-02".parse().unwrap(), &day);
    parse_markdown_v2(&view.text).unwrap();
    assert_eq!(
        view.to_plain(),
        "☀️ Daily digest

📥 Queue now: 3 pending
🔴 1 urgent · 🟡 2 normal
⏰ 1 overdue
🐢 Oldest: q3.v2, waiting 2d 1h

Monday 2 February
✅ 1 plan completed
🗳 4 decisions answered · 1 skipped
🔁 12 prompts answered by standing rules, nobody asked (/rules)
⏱ Time to decide: p50 1h

[📋 Open queue]"
    );
    // An empty queue and a quiet day.
    let mut empty = figures();
    empty.pending = Pending::default();
    empty.waiting.clear();
    empty.plans_completed = 0;
    empty.decisions = Decisions::default();
    empty.decision_seconds = Spread::default();
    let view = digest(&empty, "2026-02-02".parse().unwrap(), &empty);
    parse_markdown_v2(&view.text).unwrap();
    assert!(view.to_plain().contains("📥 Queue now: nothing pending\n\nMonday 2 February\n✅ 0 plans completed\n🗳 0 decisions answered · 0 skipped\n\n"));
}
