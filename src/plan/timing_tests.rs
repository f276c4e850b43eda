//! The time keys: read into absolute times, and every bad value a diagnosis with its line.

use std::time::Duration;

use super::timing::parse_time;
use super::{OnDeadline, Timing, parse};

fn plan_with(frontmatter: &str, decision_meta: &str) -> String {
    format!(
        "---\nid: t\ncreated_at: 2026-02-01T10:00:00Z\n{frontmatter}---\n# T\n\n## Decision 1: Pick\n{decision_meta}\n\
         **Options:**\n- `a` — Alpha\n- `b` — Beta\n"
    )
}

fn reason(text: &str) -> String {
    parse(text, "t").unwrap_err().to_string()
}

#[test]
fn a_plan_without_time_keys_has_none() {
    let plan = parse(&plan_with("", ""), "t").unwrap();
    assert_eq!(plan.timing, Timing::default());
    assert_eq!(plan.decisions[0].default, None);
}

#[test]
fn deadlines_are_times_or_durations_from_created_at() {
    let at = |fm: &str| parse(&plan_with(fm, ""), "t").unwrap().timing.deadline;
    assert_eq!(
        at("deadline: 2026-02-01T18:00:00+02:00\n"),
        parse_time("2026-02-01T16:00:00Z")
    );
    assert_eq!(at("deadline: 4h\n"), parse_time("2026-02-01T14:00:00Z"));
    assert_eq!(at("deadline: 1h30m\n"), parse_time("2026-02-01T11:30:00Z"));
    assert_eq!(at("deadline: 2d\n"), parse_time("2026-02-03T10:00:00Z"));
    assert_eq!(at("deadline: 45s\n"), parse_time("2026-02-01T10:00:45Z"));
}

#[test]
fn every_key_is_read() {
    let fm = "deadline: 90m\non_deadline: submit\nremind_every: 30m\nescalate_after: 1h\n\
              escalate_to: [alice, 11111111]\nreminded_at: 2026-02-01T10:30:00Z\nescalated_at: null\n";
    let plan = parse(&plan_with(fm, "default: b\n"), "t").unwrap();
    let t = &plan.timing;
    assert_eq!(t.on_deadline, OnDeadline::Submit);
    assert_eq!(t.remind_every, Some(Duration::from_secs(1800)));
    assert_eq!(t.escalate_after, parse_time("2026-02-01T11:00:00Z"));
    assert_eq!(t.escalate_to, ["alice", "11111111"]);
    assert_eq!(t.reminded_at, parse_time("2026-02-01T10:30:00Z"));
    assert_eq!(t.escalated_at, None);
    assert!(!t.overdue(parse_time("2026-02-01T11:29:59Z").unwrap()));
    assert!(t.overdue(parse_time("2026-02-01T11:30:00Z").unwrap()));
    assert_eq!(plan.decisions[0].default.as_deref(), Some("b"));
    let one = parse(
        &plan_with("escalate_after: 1h\nescalate_to: bob\n", ""),
        "t",
    )
    .unwrap();
    assert_eq!(one.timing.escalate_to, ["bob"]);
}

#[test]
fn bad_values_are_diagnoses_with_their_line() {
    let cases = [
        (
            "deadline: soon\n",
            "4: `deadline: soon` is neither an RFC 3339 time (2026-02-01T18:00:00Z) nor a duration (45s, 90m, 4h, 2d, 1h30m)",
        ),
        (
            "on_deadline: panic\n",
            "4: unknown `on_deadline: panic`: use wait or submit",
        ),
        (
            "remind_every: 0s\n",
            "4: `remind_every: 0s` is not a duration of at least a second (45s, 90m, 4h, 2d, 1h30m)",
        ),
        (
            "escalate_after: 2h\n",
            "4: `escalate_after` needs `escalate_to`: the people (names or user ids) who get the plan then",
        ),
        (
            "escalate_after: 2h\nescalate_to: [{a: 1}]\n",
            "5: `escalate_to` must list people: names from the config's `people`, or Telegram user ids",
        ),
        (
            "reminded_at: yesterday\n",
            "4: `reminded_at: yesterday` is not an RFC 3339 time (2026-02-01T18:00:00Z)",
        ),
    ];
    for (fm, expected) in cases {
        assert_eq!(reason(&plan_with(fm, "")), expected, "{fm}");
    }
}

#[test]
fn a_relative_time_needs_created_at() {
    let text = plan_with("deadline: 4h\n", "").replace("created_at: 2026-02-01T10:00:00Z\n", "");
    assert_eq!(
        reason(&text),
        "3: `deadline: 4h` counts from `created_at`, which this plan lacks or does not give as an RFC 3339 time: \
         add it, or give `deadline` as a time"
    );
}

#[test]
fn a_default_must_be_an_option_key() {
    assert_eq!(
        reason(&plan_with("", "default: c\n")),
        "8: `default: c` is not an option key of this decision: use one of a, b"
    );
    let free_text =
        plan_with("", "default: a\n").replace("**Options:**\n- `a` — Alpha\n- `b` — Beta\n", "");
    assert_eq!(
        reason(&free_text),
        "8: `default: a`: this decision has no options to default to"
    );
}
