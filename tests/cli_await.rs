//! `arbiter await` through the real binary: woken by the submit, immediate when already done, exit 3 on
//! timeout, exit 1 for an unknown or vanished plan.

use std::time::{Duration, Instant};

use arbiter_zebu::queue::Queue;
use serde_json::{Value, json};

use crate::cli_support::{Arbiter, collect};
use crate::support::owner::Owner;
use crate::support::{TempQueue, plan_with};

fn answer_and_submit(queue: &Queue, id: &str) {
    let owner = Owner::new(queue.root());
    owner.answer(id, "q1", "yes");
    owner.skip(id, "q2");
    owner.submit(id);
}

#[test]
fn returns_the_answers_when_the_plan_is_submitted() {
    let q = TempQueue::new();
    q.drop_plan("w1.md", &plan_with("w1", "agent:w:main", 2));
    let child = Arbiter::new(&q)
        .args(&["await", "w1", "--timeout", "60s", "--json"])
        .spawn();
    // Give it time to start waiting; the result does not depend on it.
    std::thread::sleep(Duration::from_millis(500));
    let queue = Queue::open(q.root(), true).unwrap();
    answer_and_submit(&queue, "w1");
    let submitted = Instant::now();
    let out = collect(child);
    assert!(
        submitted.elapsed() < Duration::from_secs(30),
        "await took {:?} after the submit",
        submitted.elapsed()
    );
    assert_eq!((out.code, out.stderr.as_str()), (Some(0), ""));
    let v: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(
        (&v["status"], &v["location"], &v["answers"]),
        (
            &json!("completed"),
            &json!("completed"),
            &json!({"q1": "yes", "q2": null})
        )
    );
}

#[test]
fn returns_at_once_when_already_completed_with_the_same_output_as_get() {
    let q = TempQueue::new();
    q.drop_plan("w2.md", &plan_with("w2", "s", 2));
    answer_and_submit(&Queue::open(q.root(), true).unwrap(), "w2");
    let out = Arbiter::new(&q).args(&["await", "w2"]).run();
    let get = Arbiter::new(&q).args(&["get", "w2"]).run();
    assert_eq!((out.code, out.stderr.as_str()), (Some(0), ""));
    assert_eq!(out.stdout, get.stdout);
    assert!(
        out.stdout.contains("1. Question 1 [q1]: yes"),
        "{}",
        out.stdout
    );
}

#[test]
fn times_out_with_exit_code_3() {
    let q = TempQueue::new();
    q.drop_plan("w3.md", &plan_with("w3", "s", 2));
    let out = Arbiter::new(&q)
        .args(&["await", "w3", "--timeout", "1s"])
        .run();
    assert_eq!(
        (out.code, out.stdout.as_str(), out.stderr.as_str()),
        (
            Some(3),
            "",
            "arbiter: timed out: plan `w3` is not completed after 1s (pending, 0/2 answered, 2 remaining)\n"
        )
    );
}

#[test]
fn unknown_id_fails_at_once_and_a_bad_timeout_is_a_usage_error() {
    let q = TempQueue::new();
    // No timeout: it would wait forever if it waited at all.
    let out = Arbiter::new(&q).args(&["await", "nope"]).run();
    assert_eq!(
        (out.code, out.stdout.as_str(), out.stderr.as_str()),
        (
            Some(1),
            "",
            "arbiter: no plan with id `nope` in the queue\n"
        )
    );
    let out = Arbiter::new(&q)
        .args(&["await", "x", "--timeout", "soon"])
        .run();
    assert_eq!(out.code, Some(2));
    assert!(
        out.stderr
            .contains("`soon` is not a duration: use e.g. 90, 30s, 10m, 2h or 1h30m"),
        "{}",
        out.stderr
    );
}

#[test]
fn a_plan_deleted_while_waiting_fails_with_exit_code_1() {
    let q = TempQueue::new();
    let path = q.drop_plan("w4.md", &plan_with("w4", "s", 1));
    let child = Arbiter::new(&q)
        .args(&["await", "w4", "--timeout", "60s"])
        .spawn();
    std::thread::sleep(Duration::from_millis(500));
    std::fs::remove_file(path).unwrap();
    let out = collect(child);
    assert_eq!(
        (out.code, out.stdout.as_str(), out.stderr.as_str()),
        (
            Some(1),
            "",
            "arbiter: plan `w4` disappeared from the queue while waiting for it (deleted or moved away)\n"
        )
    );
}
