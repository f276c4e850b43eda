//! The queue store on a temp folder: the files on disk are what is checked.

use std::fs;
use std::sync::Arc;

use arbiter_zebu::plan::{DecisionStatus, Edit, EditError, PlanStatus, parse};
use arbiter_zebu::queue::{Outcome, Queue, StoreError};

use crate::support::{SPEC_EXAMPLE, TempQueue, plan_with};

const NOW: &str = "2026-02-01T10:00:00Z";

fn answer(key: &str, label: &str, decision: &str) -> Edit {
    Edit::Answer {
        decision: decision.into(),
        key: key.into(),
        label: label.into(),
    }
}

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
    let queue = Queue::open(q.root(), true).unwrap();
    let by = Some("93533553");
    queue
        .edit(
            "abc123",
            &answer("jwt", "JWT tokens (stateless, scalable)", "auth-strategy"),
            by,
            NOW,
        )
        .unwrap();
    queue
        .edit(
            "abc123",
            &Edit::Skip {
                decision: "database".into(),
            },
            by,
            NOW,
        )
        .unwrap();
    let custom = Edit::Custom {
        decision: "caching".into(),
        text: "varnish: in front".into(),
    };
    queue.edit("abc123", &custom, by, NOW).unwrap();
    let on_disk = parse(&q.read("pending", "ceo-api-abc123.md"), "x").unwrap();
    assert_eq!(on_disk.status, PlanStatus::InProgress);
    assert_eq!((on_disk.answered(), on_disk.remaining()), (2, 0));

    let outcome = queue
        .edit("abc123", &Edit::Submit, by, "2026-02-01T11:00:00Z")
        .unwrap();
    let Outcome::Completed { plan, notify } = outcome else {
        panic!("not completed")
    };
    assert!(q.files("pending").is_empty());
    assert_eq!(q.files("completed"), ["ceo-api-abc123.md"]);
    assert_eq!(plan.path, q.root().join("completed/ceo-api-abc123.md"));
    let done = q.read("completed", "ceo-api-abc123.md");
    assert!(done.contains("\nstatus: completed            # pending | in_progress | completed\n"));
    assert!(done.contains("\ncompleted_at: 2026-02-01T11:00:00Z\n"));
    assert!(done.contains("\nid: auth-strategy\nstatus: answered\nanswer: jwt\nanswered_at: 2026-02-01T10:00:00Z\nanswered_by: 93533553\n"));
    assert!(done.contains("\nid: database\nstatus: skipped\nanswer: null\nanswered_at: 2026-02-01T10:00:00Z\nanswered_by: 93533553\n"));
    assert!(done.contains("\nanswer: \"varnish: in front\"\n"));
    assert_eq!(
        notify,
        Some(q.root().join("notify/agent-swe2-main--abc123.md"))
    );
    assert_eq!(
        q.read("notify", "agent-swe2-main--abc123.md"),
        "---\nplan_id: abc123\nplan_title: API Design Decisions\nagent: ceo\nsession: agent:ceo:main\nnotify_session: agent:swe2:main\ncompleted_at: 2026-02-01T11:00:00Z\nanswers:\n  auth-strategy: jwt\n  database: null\n  caching: \"varnish: in front\"\n---\n\n## Answers\n\n- auth-strategy: jwt\n- database: (skipped)\n- caching: varnish: in front\n"
    );
    assert!(matches!(
        queue.edit("abc123", &Edit::Submit, by, NOW),
        Err(StoreError::NotFound(_))
    ));
    let found = queue.find("abc123").unwrap();
    assert_eq!(found.plan.status, PlanStatus::Completed);
}

fn finish(queue: &Queue, id: &str, n: usize) {
    for i in 1..=n {
        queue
            .edit(id, &answer("yes", "Yes", &format!("q{i}")), None, NOW)
            .unwrap();
    }
    queue.edit(id, &Edit::Submit, None, NOW).unwrap();
}

#[test]
fn two_plans_for_one_session_leave_two_notify_files() {
    let q = TempQueue::new();
    q.drop_plan("a.md", &plan_with("plan-a", "agent:x:main", 1));
    q.drop_plan("b.md", &plan_with("plan-b", "agent:x:main", 1));
    let queue = Queue::open(q.root(), true).unwrap();
    finish(&queue, "plan-a", 1);
    finish(&queue, "plan-b", 1);
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
    let queue = Queue::open(q.root(), true).unwrap();
    finish(&queue, "p1", 1);
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
    let queue = Queue::open(q.root(), true).unwrap();
    queue.scan_pending().unwrap();
    // The human saw "JWT tokens (...)"; the agent then relabels the option.
    let rewritten = SPEC_EXAMPLE.replace(
        "JWT tokens (stateless, scalable)",
        "JWT with refresh tokens",
    );
    q.drop_plan("p.md", &rewritten);
    let err = queue
        .edit(
            "abc123",
            &answer("jwt", "JWT tokens (stateless, scalable)", "auth-strategy"),
            None,
            NOW,
        )
        .unwrap_err();
    assert!(matches!(&err, StoreError::Edit(e) if e.is_stale()), "{err}");
    assert_eq!(
        fs::read_to_string(&path).unwrap(),
        rewritten,
        "the agent's edit is kept and nothing recorded"
    );
    let err = queue
        .edit("abc123", &answer("x", "y", "gone"), None, NOW)
        .unwrap_err();
    assert!(matches!(
        err,
        StoreError::Edit(EditError::DecisionGone { .. })
    ));
}

#[test]
fn a_hostile_id_never_becomes_a_path() {
    let q = TempQueue::new();
    let text = plan_with("p", "../../../etc/x", 1).replace("id: p\n", "id: ../../escape\n");
    q.drop_plan("p.md", &text);
    let queue = Queue::open(q.root(), true).unwrap();
    finish(&queue, "../../escape", 1);
    assert_eq!(q.files("notify"), ["etc-x--escape.md"]);
    assert_eq!(q.files("completed"), ["p.md"]);
    let parent: Vec<_> = fs::read_dir(q.root())
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert_eq!(
        parent.len(),
        3,
        "nothing written beside the queue folders: {parent:?}"
    );
}

#[test]
fn a_hundred_concurrent_taps_on_one_plan_are_all_recorded() {
    let q = TempQueue::new();
    q.drop_plan("big.md", &plan_with("big", "s", 100));
    let queue = Arc::new(Queue::open(q.root(), true).unwrap());
    let handles: Vec<_> = (1..=100)
        .map(|i| {
            let queue = Arc::clone(&queue);
            std::thread::spawn(move || {
                queue.edit("big", &answer("no", "No", &format!("q{i}")), None, NOW)
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap().unwrap();
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
