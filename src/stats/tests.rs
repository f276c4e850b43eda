//! Figures over hand-made plans with fixed timestamps; every expected number is worked out in the comments.
#![allow(clippy::unwrap_used)]

use chrono::{DateTime, Utc};
use serde_json::json;

use super::*;
use crate::plan::{AnswerValue, Decision, DecisionOption, Kind, PlanStatus, Timing};

pub(super) fn t(s: &str) -> DateTime<Utc> {
    parse_time(s).unwrap()
}

pub(super) fn plan(
    id: &str,
    agent: Option<&str>,
    created: Option<&str>,
    completed: Option<&str>,
) -> Plan {
    Plan {
        id: id.to_owned(),
        title: format!("Plan {id}"),
        priority: Priority::Normal,
        status: if completed.is_some() {
            PlanStatus::Completed
        } else {
            PlanStatus::Pending
        },
        tag: None,
        agent: agent.map(str::to_owned),
        session: None,
        machine: None,
        notify_session: None,
        created_at: created.map(str::to_owned),
        updated_at: None,
        completed_at: completed.map(str::to_owned),
        timing: Timing::default(),
        approval: crate::plan::Approval::default(),
        elicitation: false,
        outcome: None,
        revision: 1,
        feedback: None,
        withdrawal: None,
        project: None,
        ruling: None,
        reply_to: None,
        context: String::new(),
        decisions: Vec::new(),
        frontmatter_lines: 0..0,
    }
}

/// A decision with options `a` and `b`; any other answer is custom text.
pub(super) fn decision(
    id: &str,
    status: DecisionStatus,
    answer: Option<&str>,
    at: &str,
    by: &str,
) -> Decision {
    Decision {
        id: id.to_owned(),
        title: id.to_owned(),
        status,
        answer: answer.map(str::to_owned),
        answered_at: Some(at.to_owned()),
        answered_by: Some(by.to_owned()),
        allow_custom: true,
        default: Some("a".to_owned()),
        note: None,
        delegated_to: None,
        delegated_by: None,
        context: String::new(),
        options: ["a", "b"]
            .map(|k| DecisionOption {
                key: k.to_owned(),
                label: k.to_owned(),
            })
            .to_vec(),
        kind: Kind::Choice,
        value: answer.map(|a| AnswerValue::Text(a.to_owned())),
        default_value: Some(AnswerValue::Text("a".to_owned())),
        edited: None,
        required: false,
        carried: false,
        line: 1,
        meta_lines: 0..0,
    }
}

use DecisionStatus::{Answered, Skipped};

const SINCE: &str = "2026-02-01T00:00:00Z";
const NOW: &str = "2026-02-10T12:00:00Z";

fn names(id: &str) -> String {
    if id == "1" {
        "ann".to_owned()
    } else {
        id.to_owned()
    }
}

/// What the history index holds of `plans` (what [`compute`] counts).
pub(super) fn summaries(plans: &[Plan]) -> Vec<crate::plan::Summary> {
    plans.iter().map(crate::plan::Summary::of).collect()
}

pub(super) fn completed() -> Vec<Plan> {
    // p1: 2 h; decisions at 30 min (ann), 1 h (user 2, custom), one skipped by ann (counted, not timed).
    let mut p1 = plan(
        "p1",
        Some("ceo"),
        Some("2026-02-02T00:00:00Z"),
        Some("2026-02-02T02:00:00Z"),
    );
    p1.tag = Some("api".to_owned());
    p1.decisions = vec![
        decision("d1", Answered, Some("a"), "2026-02-02T00:30:00Z", "1"),
        decision(
            "d2",
            Answered,
            Some("use redis"),
            "2026-02-02T01:00:00Z",
            "2",
        ),
        decision("d3", Skipped, None, "2026-02-02T01:30:00Z", "1"),
    ];
    // p2: 10 h; one answer after 4 h (ann), then the deadline answers one and skips one.
    let mut p2 = plan(
        "p2",
        Some("ceo"),
        Some("2026-02-03T00:00:00Z"),
        Some("2026-02-03T10:00:00Z"),
    );
    p2.tag = Some("api".to_owned());
    p2.decisions = vec![
        decision("d1", Answered, Some("b"), "2026-02-03T04:00:00Z", "1"),
        decision(
            "d2",
            Answered,
            Some("a"),
            "2026-02-03T10:00:00Z",
            "deadline",
        ),
        decision("d3", Skipped, None, "2026-02-03T10:00:00Z", "deadline"),
    ];
    // p3: no created_at: counted (plan, decision, person) but never timed.
    let mut p3 = plan("p3", Some("swe"), None, Some("2026-02-04T00:00:00Z"));
    p3.decisions = vec![decision(
        "d1",
        Answered,
        Some("a"),
        "2026-02-04T00:00:00Z",
        "2",
    )];
    // Outside the period: a second before `since`, and no completed_at at all.
    let mut old = plan(
        "old",
        Some("swe"),
        Some("2026-01-30T00:00:00Z"),
        Some("2026-01-31T23:59:59Z"),
    );
    old.decisions = vec![decision(
        "d1",
        Answered,
        Some("a"),
        "2026-01-31T00:00:00Z",
        "1",
    )];
    let undated = plan("undated", Some("swe"), Some("2026-02-05T00:00:00Z"), None);
    vec![p1, p2, p3, old, undated]
}

fn pending() -> Vec<Plan> {
    let with = |id, priority, agent, created: Option<&str>, deadline: Option<&str>| {
        let mut p = plan(id, agent, created, None);
        p.priority = priority;
        p.timing.deadline = deadline.map(t);
        p
    };
    vec![
        // 30 min old.
        with(
            "q1",
            Priority::Urgent,
            Some("ceo"),
            Some("2026-02-10T11:30:00Z"),
            None,
        ),
        // Exactly 1 h: the 1h–1d bucket.
        with(
            "q2",
            Priority::Normal,
            Some("swe"),
            Some("2026-02-10T11:00:00Z"),
            None,
        ),
        // Exactly 7 d: > 7 d; its deadline has passed.
        with(
            "q3",
            Priority::Low,
            Some("swe"),
            Some("2026-02-03T12:00:00Z"),
            Some("2026-02-05T00:00:00Z"),
        ),
        // No created_at: in the total and by priority only.
        with("q4", Priority::High, None, None, None),
        // 2 d old, deadline still ahead.
        with(
            "q5",
            Priority::Normal,
            Some("ceo"),
            Some("2026-02-08T12:00:00Z"),
            Some("2026-02-11T00:00:00Z"),
        ),
    ]
}

#[test]
fn a_period_and_a_queue_give_the_hand_computed_figures() {
    let stats = compute(
        &summaries(&completed()),
        &pending(),
        t(SINCE),
        t(NOW),
        &names,
    );
    // Timed decisions 1800, 3600, 14400: p50 = 2nd (⌈1.5⌉), p90 = 3rd (⌈2.7⌉). Plans 7200, 36000: p50 = 1st
    // (⌈1.0⌉), p90 = 2nd (⌈1.8⌉). ann: 1800, 14400 → p50 1800; user 2: 3600 and one untimed → p50 3600.
    assert_eq!(
        serde_json::to_value(&stats).unwrap(),
        json!({
            "since": "2026-02-01T00:00:00Z",
            "plans_completed": 3,
            "decisions": {"answered": 4, "skipped": 1, "custom": 1, "deadline": 2, "delegated": 0, "edited": 0, "rule": 0},
            "decision_seconds": {"p50": 3600, "p90": 14400, "max": 14400, "count": 3},
            "plan_seconds": {"p50": 7200, "p90": 36000, "max": 36000, "count": 2},
            "by_agent": {"ceo": {"count": 2, "p50_seconds": 7200}, "swe": {"count": 1, "p50_seconds": null}},
            "by_tag": {"(none)": {"count": 1, "p50_seconds": null}, "api": {"count": 2, "p50_seconds": 7200}},
            "by_person": {"2": {"count": 2, "p50_seconds": 3600}, "ann": {"count": 2, "p50_seconds": 1800}},
            "pending": {
                "total": 5,
                "by_priority": {"urgent": 1, "high": 1, "normal": 2, "low": 1},
                "ages": {"lt_1h": 1, "1h_1d": 1, "1d_7d": 1, "gt_7d": 1},
                "oldest_id": "q3",
                "overdue": 1
            },
            "slowest": [
                {"plan_id": "p2", "decision_id": "d1", "seconds": 14400},
                {"plan_id": "p1", "decision_id": "d2", "seconds": 3600},
                {"plan_id": "p1", "decision_id": "d1", "seconds": 1800}
            ]
        })
    );
    // swe's oldest pending plan waited 7 d, ceo's 2 d; plans without an agent (or an age) come last.
    let waiting = |agent: &str, pending, oldest_seconds| Waiting {
        agent: agent.to_owned(),
        pending,
        oldest_seconds,
    };
    assert_eq!(
        stats.waiting,
        [
            waiting("swe", 2, Some(604_800)),
            waiting("ceo", 2, Some(172_800)),
            waiting(NONE, 1, None)
        ]
    );
}

#[test]
fn an_empty_period_and_queue_have_null_times_and_zero_counts() {
    let stats = compute(
        &summaries(&completed()),
        &[],
        t("2026-03-01T00:00:00Z"),
        t(NOW),
        &names,
    );
    assert_eq!(
        serde_json::to_value(&stats).unwrap(),
        json!({
            "since": "2026-03-01T00:00:00Z",
            "plans_completed": 0,
            "decisions": {"answered": 0, "skipped": 0, "custom": 0, "deadline": 0, "delegated": 0, "edited": 0, "rule": 0},
            "decision_seconds": {"p50": null, "p90": null, "max": null, "count": 0},
            "plan_seconds": {"p50": null, "p90": null, "max": null, "count": 0},
            "by_agent": {},
            "by_tag": {},
            "by_person": {},
            "pending": {
                "total": 0,
                "by_priority": {"urgent": 0, "high": 0, "normal": 0, "low": 0},
                "ages": {"lt_1h": 0, "1h_1d": 0, "1d_7d": 0, "gt_7d": 0},
                "oldest_id": null,
                "overdue": 0
            },
            "slowest": []
        })
    );
    assert!(stats.waiting.is_empty());
}

#[test]
fn a_single_plan_completed_exactly_at_since_is_in_the_period() {
    let mut p = plan("one", None, Some("2026-01-31T23:00:00Z"), Some(SINCE));
    p.decisions = vec![decision(
        "d",
        Answered,
        Some("b"),
        "2026-01-31T23:15:00+00:00",
        "7",
    )];
    let stats = compute(&summaries(&[p]), &[], t(SINCE), t(NOW), &names);
    assert_eq!(stats.plans_completed, 1);
    let one = |s| Spread {
        p50: Some(s),
        p90: Some(s),
        max: Some(s),
        count: 1,
    };
    assert_eq!(
        (stats.decision_seconds, stats.plan_seconds),
        (one(900), one(3600))
    );
    assert_eq!(
        stats.by_agent[NONE],
        Group {
            count: 1,
            p50_seconds: Some(3600)
        }
    );
    assert_eq!(
        stats.by_person["7"],
        Group {
            count: 1,
            p50_seconds: Some(900)
        }
    );
    assert_eq!(
        stats.slowest,
        [Slow {
            plan_id: "one".into(),
            decision_id: "d".into(),
            seconds: 900
        }]
    );
}

#[test]
fn an_answer_stamped_before_created_at_counts_as_zero_seconds() {
    let mut p = plan(
        "skew",
        None,
        Some("2026-02-02T00:00:10Z"),
        Some("2026-02-02T00:00:05Z"),
    );
    p.decisions = vec![decision(
        "d",
        Answered,
        Some("a"),
        "2026-02-02T00:00:00Z",
        "1",
    )];
    let stats = compute(&summaries(&[p]), &[], t(SINCE), t(NOW), &names);
    assert_eq!(
        (stats.decision_seconds.max, stats.plan_seconds.max),
        (Some(0), Some(0))
    );
}

#[test]
fn only_five_slowest_longest_first_ties_by_plan_then_decision() {
    let mut p = plan(
        "p",
        None,
        Some("2026-02-02T00:00:00Z"),
        Some("2026-02-03T00:00:00Z"),
    );
    p.decisions = (1..=7)
        .map(|i| {
            // d1..d7 at 1, 2, 3, 4, 4, 4, 5 minutes.
            let minute = [1, 2, 3, 4, 4, 4, 5][i - 1];
            decision(
                &format!("d{i}"),
                Answered,
                Some("a"),
                &format!("2026-02-02T00:0{minute}:00Z"),
                "1",
            )
        })
        .collect();
    let stats = compute(&summaries(&[p]), &[], t(SINCE), t(NOW), &names);
    let got: Vec<(&str, i64)> = stats
        .slowest
        .iter()
        .map(|s| (s.decision_id.as_str(), s.seconds))
        .collect();
    assert_eq!(
        got,
        [
            ("d7", 300),
            ("d4", 240),
            ("d5", 240),
            ("d6", 240),
            ("d3", 180)
        ]
    );
}

#[test]
fn nearest_rank_percentiles() {
    let ten: Vec<i64> = (1..=10).collect();
    assert_eq!(
        [0, 10, 50, 51, 90, 91, 100].map(|p| nearest_rank(&ten, p)),
        [1, 1, 5, 6, 9, 10, 10].map(Some)
    );
    assert_eq!(
        [50, 90].map(|p| nearest_rank(&[42], p)),
        [Some(42), Some(42)]
    );
    assert_eq!(nearest_rank(&[], 50), None);
    assert_eq!(
        Spread::of(&mut [30, 10, 20]),
        Spread {
            p50: Some(20),
            p90: Some(30),
            max: Some(30),
            count: 3
        }
    );
}

#[test]
fn delegated_counts_decisions_with_delegated_to_as_the_daemon_writes_it() {
    let text = "---\nid: p\ncreated_at: 2026-02-01T10:00:00Z\ncompleted_at: 2026-02-02T10:00:00Z\nstatus: completed\n---\n\
                ## One\n\nstatus: answered\nanswer: a\nanswered_by: 7\ndelegated_to: 7\ndelegated_by: 8\n\n**Options:**\n- `a` — A\n\n\
                ## Two\n\nstatus: answered\nanswer: a\nanswered_by: 8\ndelegated_to: null\ndelegated_by: 8\n\n**Options:**\n- `a` — A\n";
    let p = crate::plan::parse(text, "p").unwrap();
    let stats = compute(&summaries(&[p]), &[], t(SINCE), t(NOW), &names);
    assert_eq!(
        stats.decisions.delegated, 1,
        "a delegation taken back is not counted"
    );
}

#[test]
fn a_multi_answer_counts_once_and_an_edited_proposal_counts_as_edited() {
    let mut p = plan(
        "k",
        None,
        Some("2026-02-02T00:00:00Z"),
        Some("2026-02-02T01:00:00Z"),
    );
    let mut multi = decision(
        "checks",
        Answered,
        Some("a, b"),
        "2026-02-02T00:10:00Z",
        "1",
    );
    multi.kind = Kind::Multi { min: 1, max: 2 };
    multi.value = Some(AnswerValue::List(vec!["a".into(), "b".into()]));
    let mut edited = decision("cmd", Answered, Some("ls -la"), "2026-02-02T00:20:00Z", "1");
    edited.kind = Kind::Edit {
        proposal: crate::plan::Proposal {
            text: "ls".into(),
            language: None,
            line: 1,
        },
        json: false,
    };
    edited.value = Some(AnswerValue::Text("ls -la".into()));
    edited.edited = Some(true);
    let mut approved = edited.clone();
    approved.id = "cmd2".into();
    approved.value = Some(AnswerValue::Text("ls".into()));
    approved.edited = Some(false);
    p.decisions = vec![multi, edited, approved];
    let stats = compute(&summaries(&[p]), &[], t(SINCE), t(NOW), &names);
    assert_eq!(
        (
            stats.decisions.answered,
            stats.decisions.custom,
            stats.decisions.edited
        ),
        (3, 0, 1)
    );
}

#[test]
fn what_standing_rules_answered_is_counted_apart_and_never_timed_as_a_person() {
    let mut p = plan(
        "r1",
        Some("codex"),
        Some("2026-02-03T10:00:00Z"),
        Some("2026-02-03T10:00:01Z"),
    );
    p.decisions = vec![decision(
        "permission",
        DecisionStatus::Answered,
        Some("a"),
        "2026-02-03T10:00:01Z",
        "rule:rab12cd3",
    )];
    let s = compute(
        &summaries(&[p]),
        &[],
        t("2026-02-01T00:00:00Z"),
        t("2026-02-04T00:00:00Z"),
        &|who: &str| who.to_owned(),
    );
    assert_eq!((s.decisions.rule, s.decisions.answered), (1, 0));
    assert_eq!(s.decision_seconds.count, 0);
    assert!(s.by_person.is_empty(), "{:?}", s.by_person);
}
