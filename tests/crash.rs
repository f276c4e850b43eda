//! Crash safety: the real `arbiter run` binary is SIGKILLed at random moments while taps and submits stream in
//! and deadlines fire, then restarted. After every kill the queue must hold every acknowledged answer and every acknowledged submit,
//! every file must parse, and nothing may be half-done in a way the next start can't finish.
//!
//! `ARBITER_CRASH_KILLS` sets the number of kills (default 20, as CI runs it); README records a 500-kill run.

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::time::{Duration, Instant, SystemTime};

use arbiter_zebu::fakebot::FakeBot;
use arbiter_zebu::plan::{DecisionStatus, Plan, PlanStatus};
use arbiter_zebu::queue::Queue;
use arbiter_zebu::telegram::callback::{Callback, fingerprint, plan_ref};

use crate::support::binary::{spawn_daemon, wait_polling};
use crate::support::daemon::OWNER;
use crate::support::{TempQueue, plan_with};

/// A small deterministic generator (xorshift), seeded per run and printed so a failure can be replayed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

fn write_config(home: &Path, fake: &FakeBot, queue: &Path) -> std::path::PathBuf {
    let path = home.join("config.json");
    let config = serde_json::json!({
        "telegram": { "token": fake.token(), "allowedUsers": [OWNER], "apiUrl": fake.api_url() },
        "queue": { "dir": queue, "watchInterval": 200 },
        "logs": { "dir": home.join("logs"), "level": "warn" }
    });
    std::fs::write(&path, config.to_string()).unwrap();
    path
}

#[derive(Debug, Clone)]
enum Tap {
    Answer {
        plan: String,
        decision: String,
        key: String,
    },
    Submit {
        plan: String,
    },
}

/// Every plan in the queue, parsed (panics on a file that doesn't parse: that is a failure).
fn snapshot(queue: &Queue) -> (Vec<Plan>, Vec<Plan>) {
    let pending = queue.scan_pending().unwrap();
    assert!(
        pending.problems.is_empty(),
        "unparseable file in pending/: {:?}",
        pending.problems
    );
    let completed = queue.scan_completed().unwrap();
    assert!(
        completed.problems.is_empty(),
        "unparseable file in completed/: {:?}",
        completed.problems
    );
    (
        pending.plans.into_iter().map(|l| l.plan.clone()).collect(),
        completed
            .plans
            .into_iter()
            .map(|l| l.plan.clone())
            .collect(),
    )
}

fn check_invariants(q: &TempQueue, queue: &Queue, acked: &[Tap]) {
    let (pending, completed) = snapshot(queue);
    let mut seen = HashSet::new();
    for p in completed.iter() {
        assert!(
            seen.insert(p.id.clone()),
            "plan {} twice in completed/",
            p.id
        );
        assert_eq!(p.status, PlanStatus::Completed);
        // The notify file is written before the move into completed/, by a person's submit or a deadline's.
        assert!(
            q.files("notify").contains(&format!("s--{}.md", p.id)),
            "completed plan {} has no notify file",
            p.id
        );
        assert_eq!(
            p.remaining(),
            0,
            "completed plan {} has pending decisions",
            p.id
        );
    }
    for p in &pending {
        assert!(
            !seen.contains(&p.id),
            "plan {} both pending and completed",
            p.id
        );
    }
    let all: HashMap<&str, &Plan> = pending
        .iter()
        .chain(completed.iter())
        .map(|p| (p.id.as_str(), p))
        .collect();
    for tap in acked {
        match tap {
            Tap::Answer {
                plan,
                decision,
                key,
            } => {
                let p = all
                    .get(plan.as_str())
                    .unwrap_or_else(|| panic!("plan {plan} lost"));
                let d = p.decision(decision).unwrap();
                assert_eq!(
                    d.status,
                    DecisionStatus::Answered,
                    "acknowledged answer lost: {tap:?}"
                );
                assert_eq!(
                    d.answer.as_deref(),
                    Some(key.as_str()),
                    "acknowledged answer changed: {tap:?}"
                );
            }
            Tap::Submit { plan } => {
                assert!(
                    completed.iter().any(|p| &p.id == plan),
                    "acknowledged submit not in completed/: {plan}"
                );
                let notify = format!("s--{plan}.md");
                assert!(
                    q.files("notify").contains(&notify),
                    "no notify file for {plan}"
                );
            }
        }
    }
    for name in q.files("notify") {
        // A notify file a kill cut short is a temp file (`.<name>.arbiter-tmp-…`): no agent reads it (not a plan
        // name), and the next start removes it (checked after the last restart).
        if name.starts_with('.') && name.contains(".arbiter-tmp-") {
            continue;
        }
        let text = q.read("notify", &name);
        assert!(
            text.starts_with("---\nplan_id: ") && text.contains("\n## Answers\n"),
            "bad notify file {name}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigkill_at_random_moments_loses_no_acknowledged_answer() {
    let kills: usize = std::env::var("ARBITER_CRASH_KILLS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20);
    let seed = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64
        | 1;
    eprintln!("crash test: {kills} kills, seed {seed}");
    let mut rng = Rng(seed);

    let home = tempfile::tempdir().unwrap();
    let q = TempQueue::new();
    let fake = FakeBot::start().await.unwrap();
    let config = write_config(home.path(), &fake, q.root());
    let queue = Queue::open(q.root(), true).unwrap();
    let mut next_plan = 0;
    let mut acked: Vec<Tap> = Vec::new();
    let mut acked_count = 0;
    let started = Instant::now();

    for kill in 0..kills {
        // Keep a few plans pending.
        while queue.scan_pending().unwrap().plans.len() < 4 {
            let mut text = plan_with(&format!("p{next_plan}"), "s", 3);
            // Every third plan has a deadline that submits it within 0.6 s (before the taps finish it, mostly): kills
            // land while deadlines fire.
            if next_plan % 3 == 0 {
                let at = chrono::Utc::now() + chrono::Duration::milliseconds(rng.below(600) as i64);
                let keys = format!(
                    "status: pending\ndeadline: {}\non_deadline: submit\n",
                    at.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
                );
                text = text.replacen("status: pending\n", &keys, 1);
            }
            q.drop_plan(&format!("plan-{next_plan}.md"), &text);
            next_plan += 1;
        }
        let since = SystemTime::now();
        let mut child = spawn_daemon(&config);
        wait_polling(&fake, since).await;
        // Once it polls, the start-up has repaired and recovered the trail: it verifies, and holds every answer
        // acknowledged before the kill.
        check_trail(&q, &acked);

        // Taps for this run: distinct pending decisions, and submits of fully answered plans.
        let (pending, _) = snapshot(&queue);
        let mut fired: Vec<(String, Tap)> = Vec::new();
        for p in &pending {
            if p.remaining() == 0 {
                let data = Callback::Submit {
                    plan: plan_ref(&p.id),
                    seen: arbiter_zebu::actions::seen::of_answers(p),
                }
                .encode();
                fired.push((
                    fake.tap_raw(OWNER, 0, &data),
                    Tap::Submit { plan: p.id.clone() },
                ));
                continue;
            }
            for (i, d) in p.decisions.iter().enumerate() {
                // An answered decision is tapped again with the answer it holds, now and then: a change of nothing
                // (the same answer) after a restart, whose line the trail must hold all the same.
                let again = d.status == DecisionStatus::Answered && rng.below(2) == 0;
                if (d.status != DecisionStatus::Pending && !again) || rng.below(3) == 0 {
                    continue;
                }
                let o = match d
                    .options
                    .iter()
                    .position(|o| Some(&o.key) == d.answer.as_ref())
                {
                    Some(held) if again => held,
                    _ if again => continue,
                    _ => rng.below(d.options.len() as u64) as usize,
                };
                let opt = &d.options[o];
                let data = Callback::Answer {
                    plan: plan_ref(&p.id),
                    index: i as u16,
                    option: o as u16,
                    seen: fingerprint(&[&d.id, &opt.key, &opt.label]),
                }
                .encode();
                let tap = Tap::Answer {
                    plan: p.id.clone(),
                    decision: d.id.clone(),
                    key: opt.key.clone(),
                };
                fired.push((fake.tap_raw(OWNER, 0, &data), tap));
            }
        }
        tokio::time::sleep(Duration::from_millis(rng.below(120))).await;
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();

        // What Telegram saw acknowledged (answered without an alert) must be on disk.
        let answers = fake.callback_answers();
        for (qid, tap) in fired {
            let ok = answers.iter().any(|(q, text, alert)| {
                *q == qid
                    && !alert
                    && (matches!(tap, Tap::Answer { .. })
                        || text.as_deref() == Some("📤 Submitted"))
            });
            if ok {
                acked_count += 1;
                acked.push(tap);
            }
        }
        check_invariants(&q, &queue, &acked);
        eprintln!("kill {kill}: {acked_count} acknowledged taps so far");
    }

    // A last clean start finishes whatever a kill interrupted.
    let since = SystemTime::now();
    let mut child = spawn_daemon(&config);
    wait_polling(&fake, since).await;
    child.kill().unwrap();
    child.wait().unwrap();
    check_invariants(&q, &queue, &acked);
    let (pending, completed) = snapshot(&queue);
    assert!(
        pending.iter().all(|p| p.status != PlanStatus::Completed),
        "a completed plan left in pending/"
    );
    for dir in ["pending", "completed", "notify"] {
        for name in q.files(dir) {
            assert!(
                !name.contains(".arbiter-tmp-"),
                "temp debris in {dir}/ after restart: {name}"
            );
        }
    }
    assert!(
        acked_count > 0,
        "no tap was ever acknowledged: the test exercised nothing"
    );
    let recovered = check_trail(&q, &acked);
    eprintln!(
        "crash test done: {kills} kills, {acked_count} acknowledged taps, {recovered} changes recovered at a restart, {} plans completed ({} of them with a deadline), {:?}",
        completed.len(),
        completed
            .iter()
            .filter(|p| p
                .decisions
                .iter()
                .any(|d| d.answered_by.as_deref() == Some("deadline")))
            .count(),
        started.elapsed()
    );
}

/// The audit trail after a restart: the chain verifies (a line torn by a kill is repaired, and recorded), and
/// every acknowledged tap has its line (its own, or the one the start-up recovered for a change a kill left
/// without it).
/// Returns how many lines the restarts recovered.
fn check_trail(q: &TempQueue, acked: &[Tap]) -> usize {
    let (intact, entries) = arbiter_zebu::queue::audit::read(q.root())
        .unwrap()
        .unwrap_or_else(|broken| {
            panic!("the audit chain does not verify after the restart: {broken}")
        });
    for tap in acked {
        let found = entries.iter().any(|e| match tap {
            Tap::Answer {
                plan,
                decision,
                key,
            } => {
                (e.action == "answer" || e.action == arbiter_zebu::actions::RECOVERED)
                    && e.plan == *plan
                    && e.decision.as_deref() == Some(decision.as_str())
                    && e.value.as_deref() == Some(key.as_str())
            }
            Tap::Submit { plan } => {
                (e.action == "submit"
                    || (e.action == arbiter_zebu::actions::RECOVERED
                        && e.value.as_deref() == Some("completed")))
                    && e.plan == *plan
            }
        });
        assert!(found, "acknowledged {tap:?} has no audit line ({intact:?})");
    }
    entries
        .iter()
        .filter(|e| e.action == arbiter_zebu::actions::RECOVERED)
        .count()
}
