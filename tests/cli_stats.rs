//! `arbiter stats` through the real binary: the JSON and the table over a queue of fixed plans.

use serde_json::{Value, json};

use crate::cli_support::Arbiter;
use crate::support::{TempQueue, plan_answered as plan};

/// Two plans in the period, one before it; one pending plan created in the future (its age is 0 whatever
/// day the test runs) and one without `created_at` whose deadline has passed.
fn queue() -> TempQueue {
    let q = TempQueue::new();
    let completed = |name: &str, text: String| {
        std::fs::write(q.root().join("completed").join(name), text).unwrap();
    };
    completed(
        "ceo-one-p1.md",
        plan(
            "id: p1\nagent: ceo\ntag: api\ntitle: One\nstatus: completed\ncreated_at: 2026-02-02T00:00:00Z\ncompleted_at: 2026-02-02T02:00:00Z",
            &[
                ("d1", "answered", "a", "2026-02-02T00:30:00Z", "93533553"),
                ("d2", "answered", "use redis", "2026-02-02T01:00:00Z", "42"),
                ("d3", "skipped", "null", "2026-02-02T01:30:00Z", "93533553"),
            ],
        ),
    );
    completed(
        "ceo-two-p2.md",
        plan(
            "id: p2\nagent: ceo\ntitle: Two\nstatus: completed\ncreated_at: 2026-02-03T00:00:00Z\ncompleted_at: 2026-02-03T10:00:00Z",
            &[
                ("d1", "answered", "b", "2026-02-03T04:00:00Z", "93533553"),
                ("d2", "answered", "a", "2026-02-03T10:00:00Z", "deadline"),
            ],
        ),
    );
    completed(
        "swe-old.md",
        plan(
            "id: old\nagent: swe\ntitle: Old\nstatus: completed\ncreated_at: 2026-01-01T00:00:00Z\ncompleted_at: 2026-01-31T23:59:59Z",
            &[("d1", "answered", "a", "2026-01-02T00:00:00Z", "42")],
        ),
    );
    q.drop_plan(
        "swe-later.md",
        &plan(
            "id: later\nagent: swe\ntitle: Later\npriority: high\nstatus: pending\ncreated_at: 2099-01-01T00:00:00Z",
            &[("d1", "pending", "null", "null", "null")],
        ),
    );
    q.drop_plan(
        "late.md",
        &plan(
            "id: late\ntitle: Late\nstatus: pending\ndeadline: 2020-01-01T00:00:00Z",
            &[("d1", "pending", "null", "null", "null")],
        ),
    );
    q
}

/// `arbiter stats --since 2026-02-01 --json` over `q`: exit 0, nothing on stderr, the JSON.
fn stats_json(q: &TempQueue) -> Value {
    let out = Arbiter::new(q)
        .args(&["stats", "--since", "2026-02-01", "--json"])
        .run();
    assert_eq!((out.code, out.stderr.as_str()), (Some(0), ""));
    serde_json::from_str(&out.stdout).unwrap()
}

#[test]
fn json_has_exactly_the_design_keys_and_figures() {
    let q = queue();
    let got = stats_json(&q);
    assert_eq!(
        got,
        json!({
            "since": "2026-02-01T00:00:00Z",
            "plans_completed": 2,
            "decisions": {"answered": 3, "skipped": 1, "custom": 1, "deadline": 1, "delegated": 0, "edited": 0, "rule": 0},
            "decision_seconds": {"p50": 3600, "p90": 14400, "max": 14400, "count": 3},
            "plan_seconds": {"p50": 7200, "p90": 36000, "max": 36000, "count": 2},
            "by_agent": {"ceo": {"count": 2, "p50_seconds": 7200}},
            "by_tag": {"(none)": {"count": 1, "p50_seconds": 36000}, "api": {"count": 1, "p50_seconds": 7200}},
            "by_person": {
                "42": {"count": 1, "p50_seconds": 3600},
                "93533553": {"count": 2, "p50_seconds": 1800}
            },
            "pending": {
                "total": 2,
                "by_priority": {"urgent": 0, "high": 1, "normal": 1, "low": 0},
                "ages": {"lt_1h": 1, "1h_1d": 0, "1d_7d": 0, "gt_7d": 0},
                "oldest_id": "later",
                "overdue": 1
            },
            "slowest": [
                {"plan_id": "p2", "decision_id": "d1", "seconds": 14400},
                {"plan_id": "p1", "decision_id": "d2", "seconds": 3600},
                {"plan_id": "p1", "decision_id": "d1", "seconds": 1800}
            ]
        })
    );
}

#[test]
fn people_from_the_config_name_the_persons() {
    let q = queue();
    let home = q.root().join(".arbiter");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(
        home.join("config.json"),
        r#"{"telegram": {"token": "1:x", "allowedUsers": [93533553, 42]}, "people": {"alice": 93533553}}"#,
    )
    .unwrap();
    let got = stats_json(&q);
    // A named user by name, an unnamed one by id.
    assert_eq!(
        got["by_person"],
        json!({
            "42": {"count": 1, "p50_seconds": 3600},
            "alice": {"count": 2, "p50_seconds": 1800}
        })
    );
}

#[test]
fn the_table_shows_the_same_figures() {
    let q = queue();
    let out = Arbiter::new(&q)
        .args(&["stats", "--since", "2026-02-01T00:00:00Z"])
        .run();
    assert_eq!((out.code, out.stderr.as_str()), (Some(0), ""));
    assert_eq!(
        out.stdout,
        "\
Completed since 2026-02-01T00:00:00Z: 2 plans
Decisions: 3 answered (1 custom), 1 skipped, 1 by deadline, 0 delegated

TIME TO DECIDE  COUNT  P50  P90  MAX
per decision    3      1h   4h   4h
per plan        2      2h   10h  10h

AGENT  PLANS  P50
ceo    2      2h

TAG     PLANS  P50
(none)  1      10h
api     1      2h

PERSON    ANSWERED  P50
42        1         1h
93533553  2         30m

Pending now: 2 (urgent 0, high 1, normal 1, low 0), 1 overdue, oldest later
AGE    < 1h  1h-1d  1d-7d  > 7d
plans  1     0      0      0

SLOWEST DECISION  PLAN  TIME
d1                p2    4h
d2                p1    1h
d1                p1    30m

LONGEST WAITING AGENT  PENDING  OLDEST
swe                    1        0s
(none)                 1        -
"
    );
}

#[test]
fn the_default_period_is_the_last_30_days() {
    let q = queue();
    let out = Arbiter::new(&q).args(&["stats", "--json"]).run();
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let got: Value = serde_json::from_str(&out.stdout).unwrap();
    let since = chrono::DateTime::parse_from_rfc3339(got["since"].as_str().unwrap()).unwrap();
    let days = (chrono::Utc::now() - since.with_timezone(&chrono::Utc)).num_hours();
    assert!((30 * 24..=30 * 24 + 1).contains(&days), "{since}");
    assert_eq!(got["pending"]["total"], 2);
}

#[test]
fn a_bad_since_exits_2_and_says_what_it_takes() {
    let q = queue();
    let out = Arbiter::new(&q)
        .args(&["stats", "--since", "last week"])
        .run();
    assert_eq!(
        (out.code, out.stdout.as_str(), out.stderr.as_str()),
        (
            Some(2),
            "",
            "arbiter: `--since last week` is neither a duration back from now (30d, 12h) nor a time \
             (2026-02-01T18:00:00Z) nor a date (2026-02-01)\n"
        )
    );
}
