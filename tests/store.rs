//! The queue store on a temp folder: the files on disk are what is checked.

use std::fs;
use std::sync::Arc;

use arbiter_zebu::actions::{Action, Outcome};
use arbiter_zebu::plan::{DecisionStatus, PlanStatus, parse};
use arbiter_zebu::queue::Queue;

use crate::support::owner::Owner;
use crate::support::{SPEC_EXAMPLE, TempQueue, plan_with};

const NOW: &str = "2026-02-01T10:00:00Z";

#[test]
fn scan_reads_plans_and_reports_problems_without_stopping() {
    let q = TempQueue::new();
    q.drop_plan("ceo-api-abc123.md", SPEC_EXAMPLE);
    q.drop_plan("broken.md", "---\nid: x\npriority: asap\n---\n## D\n");
    fs::write(q.root().join("pending/.staging.md"), "half a fi").unwrap();
    fs::write(q.root().join("pending/notes.txt"), "not a plan").unwrap();
    let outside = q.root().join("secret.md");
    fs::write(&outside, SPEC_EXAMPLE.replace("abc123", "outside")).unwrap();
    std::os::unix::fs::symlink(&outside, q.root().join("pending/link.md")).unwrap();

    let queue = Queue::open(q.root(), true).unwrap();
    let scan = queue.scan_pending().unwrap();
    let ids: Vec<_> = scan.plans.iter().map(|l| l.plan.id.as_str()).collect();
    assert_eq!(ids, ["abc123"]);
    assert_eq!(scan.problems.len(), 1);
    let shown = scan.problems[0].diagnostic.to_string();
    assert!(
        shown.ends_with(
            "pending/broken.md:3: unknown priority `asap`: use low, normal, high or urgent"
        ),
        "{shown}"
    );
}

#[test]
fn a_look_at_named_files_rereads_only_those_and_a_full_scan_catches_the_rest() {
    let q = TempQueue::new();
    q.drop_plan("a.md", &plan_with("a", "A", 1));
    q.drop_plan("b.md", &plan_with("b", "B", 1));
    let queue = Queue::open(q.root(), true).unwrap();
    // The session tells versions apart.
    let titles = |scan: &arbiter_zebu::queue::Scan| -> Vec<String> {
        scan.plans
            .iter()
            .map(|l| l.plan.session.clone().unwrap_or_default())
            .collect()
    };
    assert_eq!(titles(&queue.scan_pending().unwrap()), ["A", "B"]);
    // Both files change (different length: a new version), only a.md is named; a new c.md and a malformed
    // d.md are named too; b.md's old version stays until a look names it or a full scan runs.
    q.drop_plan("a.md", &plan_with("a", "A2", 1));
    q.drop_plan("b.md", &plan_with("b", "B22", 1));
    q.drop_plan("c.md", &plan_with("c", "C", 1));
    q.drop_plan("d.md", "---\nid: d\npriority: asap\n---\n## D\n");
    let pending = q.root().join("pending");
    let named = [
        pending.join("a.md"),
        pending.join("c.md"),
        pending.join("d.md"),
        pending.join(".c.md.tmp"),
        q.root().join("elsewhere.md"),
    ];
    let scan = queue.scan_changed(&named).unwrap();
    assert_eq!(titles(&scan), ["A2", "B", "C"]);
    assert_eq!(scan.problems.len(), 1);
    assert!(scan.problems[0].path.ends_with("d.md"));
    // A named file that is gone leaves the scan, and the id index (find_pending) with it.
    fs::remove_file(pending.join("a.md")).unwrap();
    let scan = queue.scan_changed(&[pending.join("a.md")]).unwrap();
    assert_eq!(titles(&scan), ["B", "C"]);
    assert!(queue.find_pending("a").unwrap().is_none());
    // The full scan sees b.md's new version.
    assert_eq!(titles(&queue.scan_pending().unwrap()), ["B22", "C"]);
}

#[test]
fn the_whole_story_answer_skip_custom_submit() {
    let q = TempQueue::new();
    q.drop_plan("ceo-api-abc123.md", SPEC_EXAMPLE);
    let owner = Owner::new(q.root()).at(NOW);
    owner.answer("abc123", "auth-strategy", "jwt");
    owner.skip("abc123", "database");
    owner.custom("abc123", "caching", "varnish: in front");
    let on_disk = parse(&q.read("pending", "ceo-api-abc123.md"), "x").unwrap();
    assert_eq!(on_disk.status, PlanStatus::InProgress);
    assert_eq!((on_disk.answered(), on_disk.remaining()), (2, 0));

    let owner = owner.at("2026-02-01T11:00:00Z");
    owner.submit("abc123");
    assert!(q.files("pending").is_empty());
    assert_eq!(q.files("completed"), ["ceo-api-abc123.md"]);
    let done = q.read("completed", "ceo-api-abc123.md");
    assert!(done.contains("\nstatus: completed            # pending | in_progress | completed\n"));
    assert!(done.contains("\ncompleted_at: 2026-02-01T11:00:00Z\n"));
    assert!(done.contains("\nid: auth-strategy\nstatus: answered\nanswer: jwt\nanswered_at: 2026-02-01T10:00:00Z\nanswered_by: 93533553\n"));
    assert!(done.contains("\nid: database\nstatus: skipped\nanswer: null\nanswered_at: 2026-02-01T10:00:00Z\nanswered_by: 93533553\n"));
    assert!(done.contains("\nanswer: \"varnish: in front\"\n"));
    assert_eq!(q.files("notify"), ["agent-swe2-main--abc123.md"]);
    assert_eq!(
        q.read("notify", "agent-swe2-main--abc123.md"),
        "---\nplan_id: abc123\nplan_title: API Design Decisions\nagent: ceo\nsession: agent:ceo:main\nnotify_session: agent:swe2:main\ncompleted_at: 2026-02-01T11:00:00Z\nanswers:\n  auth-strategy: jwt\n  database: null\n  caching: \"varnish: in front\"\n---\n\n## Answers\n\n- auth-strategy: jwt\n- database: (skipped)\n- caching: varnish: in front\n"
    );
    let again = Action::Submit {
        seen: String::new(),
    };
    assert!(matches!(owner.act("abc123", &again), Outcome::Gone));
    let found = Queue::open(q.root(), true).unwrap().find("abc123").unwrap();
    assert_eq!(found.plan.status, PlanStatus::Completed);
}

fn finish(owner: &Owner, id: &str, n: usize) {
    for i in 1..=n {
        owner.answer(id, &format!("q{i}"), "yes");
    }
    owner.submit(id);
}

#[test]
fn two_plans_for_one_session_leave_two_notify_files() {
    let q = TempQueue::new();
    q.drop_plan("a.md", &plan_with("plan-a", "agent:x:main", 1));
    q.drop_plan("b.md", &plan_with("plan-b", "agent:x:main", 1));
    let owner = Owner::new(q.root());
    finish(&owner, "plan-a", 1);
    finish(&owner, "plan-b", 1);
    assert_eq!(
        q.files("notify"),
        ["agent-x-main--plan-a.md", "agent-x-main--plan-b.md"]
    );
}

#[test]
fn submit_never_replaces_a_completed_file_of_the_same_name() {
    let q = TempQueue::new();
    fs::write(q.root().join("completed/same.md"), "an older plan, kept").unwrap();
    q.drop_plan("same.md", &plan_with("p1", "s", 1));
    finish(&Owner::new(q.root()), "p1", 1);
    assert_eq!(q.files("completed"), ["same-2.md", "same.md"]);
    assert_eq!(q.read("completed", "same.md"), "an older plan, kept");
    assert!(q.read("completed", "same-2.md").contains("id: p1"));
}

#[test]
fn recovery_finishes_a_submit_cut_short() {
    let q = TempQueue::new();
    let text = plan_with("p1", "s", 1)
        .replace("status: pending\n---", "status: completed\n---")
        .replace(
            "status: pending\nanswer: null",
            "status: answered\nanswer: yes",
        );
    q.drop_plan("p1.md", &text);
    fs::write(q.root().join("pending/.p1.md.arbiter-tmp-1-1"), "debris").unwrap();
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    fs::File::options()
        .write(true)
        .open(q.root().join("pending/.p1.md.arbiter-tmp-1-1"))
        .unwrap()
        .set_modified(old)
        .unwrap();
    let queue = Queue::open(q.root(), true).unwrap();
    let done = queue.recover().unwrap();
    assert_eq!(done.len(), 1);
    assert!(q.files("pending").is_empty(), "{:?}", q.files("pending"));
    assert_eq!(q.files("completed"), ["p1.md"]);
    assert_eq!(q.files("notify"), ["s--p1.md"]);
    assert!(queue.recover().unwrap().is_empty(), "idempotent");
}

#[test]
fn an_agent_rewrite_between_view_and_tap_records_nothing() {
    let q = TempQueue::new();
    let path = q.drop_plan("p.md", SPEC_EXAMPLE);
    let owner = Owner::new(q.root());
    // The human saw "JWT tokens (...)"; the agent then relabels the option.
    let shown = owner.current("abc123");
    let rewritten = SPEC_EXAMPLE.replace(
        "JWT tokens (stateless, scalable)",
        "JWT with refresh tokens",
    );
    q.drop_plan("p.md", &rewritten);
    let outcome = owner.tap_as_shown(&shown, "auth-strategy", "jwt");
    assert!(matches!(outcome, Outcome::Stale(_)), "{outcome:?}");
    assert_eq!(
        fs::read_to_string(&path).unwrap(),
        rewritten,
        "the agent's edit is kept and nothing recorded"
    );
    // A decision the plan no longer has.
    let gone = Action::Skip {
        decision: 99,
        seen: String::new(),
    };
    let outcome = owner.act("abc123", &gone);
    assert!(
        !matches!(
            outcome,
            Outcome::Recorded { .. } | Outcome::Submitted { .. }
        ),
        "{outcome:?}"
    );
    assert_eq!(fs::read_to_string(&path).unwrap(), rewritten);
}

#[test]
fn a_hostile_id_never_becomes_a_path() {
    let q = TempQueue::new();
    let text = plan_with("p", "../../../etc/x", 1).replace("id: p\n", "id: ../../escape\n");
    q.drop_plan("p.md", &text);
    finish(&Owner::new(q.root()), "../../escape", 1);
    assert_eq!(q.files("notify"), ["etc-x--escape.md"]);
    assert_eq!(q.files("completed"), ["p.md"]);
    // Beside the queue's folders only the trail and the rules' bookkeeping the answer wrote; nothing named by the
    // id, here or above.
    let mut beside: Vec<String> = fs::read_dir(q.root())
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    beside.sort();
    assert_eq!(
        beside,
        [
            ".rule-streaks.json",
            ".rules.lock",
            "audit",
            "completed",
            "notify",
            "pending"
        ],
        "nothing written beside the queue folders"
    );
    let above = q.root().parent().unwrap();
    assert!(!above.join("escape").exists() && !above.join("escape.md").exists());
}

#[test]
fn a_hundred_concurrent_taps_on_one_plan_are_all_recorded() {
    let q = TempQueue::new();
    q.drop_plan("big.md", &plan_with("big", "s", 100));
    let owner = Arc::new(Owner::new(q.root()));
    let handles: Vec<_> = (1..=100)
        .map(|i| {
            let owner = Arc::clone(&owner);
            std::thread::spawn(move || owner.answer("big", &format!("q{i}"), "no"))
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    let plan = parse(&q.read("pending", "big.md"), "big").unwrap();
    assert!(
        plan.decisions
            .iter()
            .all(|d| d.status == DecisionStatus::Answered && d.answer.as_deref() == Some("no"))
    );
    let text = q.read("pending", "big.md");
    assert!(
        text.contains("\nanswered: 100\n") && text.contains("\nremaining: 0\n"),
        "{}",
        &text[..400]
    );
}
