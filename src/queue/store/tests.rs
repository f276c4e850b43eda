//! An agent's write landing in the middle of an edit, at the exact moments that matter (the edit's test hook).

use std::convert::Infallible;
use std::fs;
use std::path::{Path, PathBuf};

use super::edit::EDIT_ATTEMPTS;
use super::listing::list_dir;
use super::replace::{Point, Replaced, SWAP_BACKS, last_look};
use super::version::{modified_of, version_of};
use super::*;
use crate::plan::{self, DecisionStatus, Edit, Plan, parse};

const NOW: &str = "2026-02-01T10:00:00Z";

fn plan_text(rev: usize, first_label: &str) -> String {
    format!(
        "---\nid: p\nagent: a\nsession: s\ntitle: T\nstatus: pending\n---\n\n# T\n\n<!-- agent-rev: {rev} -->\n\n\
         ## Decision 1: One\n\nid: q1\nstatus: pending\nanswer: null\nanswered_at: null\n\n**Options:**\n\
         - `a` — {first_label}\n- `b` — Second\n\n\
         ## Decision 2: Two\n\nid: q2\nstatus: pending\nanswer: null\nanswered_at: null\n\n**Options:**\n\
         - `a` — First\n- `b` — Second\n"
    )
}

/// A queue holding `plan_text(0, "First")` as pending/p.md.
fn queue() -> (tempfile::TempDir, Queue, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let queue = Queue::open(dir.path(), false).unwrap();
    let path = queue.add_pending("p.md", &plan_text(0, "First")).unwrap();
    (dir, queue, path)
}

/// What an agent does: its new version staged beside the plan, then renamed over it.
fn agent_writes(path: &Path, text: &str) {
    let staged = path.with_file_name(".p.md.agent");
    fs::write(&staged, text).unwrap();
    fs::rename(&staged, path).unwrap();
}

/// The tap a human made on version 0: option `a` of q1, labelled "First"; stale if the label changed (as the
/// action layer's fingerprint check decides).
fn tap(calls: &mut usize) -> impl FnMut(&Plan) -> Result<Edit, &'static str> + '_ {
    move |plan| {
        *calls += 1;
        let d = plan.decision("q1").ok_or("stale")?;
        if !d.options.iter().any(|o| o.key == "a" && o.label == "First") {
            return Err("stale");
        }
        Ok(Edit::Answer {
            decision: "q1".into(),
            key: "a".into(),
            label: "First".into(),
        })
    }
}

/// Writes `versions` in turn, one at each call of the hook at `at`.
fn agent_at(at: Point, versions: Vec<String>) -> impl FnMut(Point, &Path) {
    let mut versions = versions.into_iter();
    move |point, path| {
        if point == at
            && let Some(text) = versions.next()
        {
            agent_writes(path, &text);
        }
    }
}

fn pending_names(queue: &Queue) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(queue.pending_dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn q1(text: &str) -> (DecisionStatus, Option<String>) {
    let plan = parse(text, "p").unwrap();
    let d = plan.decision("q1").unwrap();
    (d.status, d.answer.clone())
}

/// The file on disk is the agent's revision `rev` with the tap's answer re-applied, alone in pending/.
fn newest_answered(queue: &Queue, path: &Path, rev: usize) {
    let text = fs::read_to_string(path).unwrap();
    assert!(
        text.contains(&format!("<!-- agent-rev: {rev} -->")),
        "not revision {rev}:\n{text}"
    );
    assert_eq!(q1(&text), (DecisionStatus::Answered, Some("a".into())));
    assert_eq!(pending_names(queue), ["p.md"]);
}

#[test]
fn an_edit_with_nobody_in_the_way_is_written_once() {
    let (_dir, queue, path) = queue();
    let mut calls = 0;
    let edited = queue
        .edit_hooked("p", Some("1"), NOW, &mut tap(&mut calls), &mut |_, _| {})
        .unwrap();
    assert!(matches!(edited, Edited::Written(Outcome::Edited(_))));
    assert_eq!(calls, 1);
    let text = fs::read_to_string(&path).unwrap();
    assert_eq!(q1(&text), (DecisionStatus::Answered, Some("a".into())));
    assert_eq!(pending_names(&queue), ["p.md"]);
}

#[test]
fn an_agent_version_landing_just_before_the_swap_stays_and_gets_the_answer() {
    let (_dir, queue, path) = queue();
    let agent = plan_text(1, "First");
    let mut hook = agent_at(Point::BeforeSwap, vec![agent.clone()]);
    let mut calls = 0;
    let edited = queue
        .edit_hooked("p", Some("1"), NOW, &mut tap(&mut calls), &mut hook)
        .unwrap();
    let Edited::Written(Outcome::Edited(loaded)) = edited else {
        panic!("not written: {edited:?}");
    };
    assert_eq!(calls, 2, "decided again on the agent's version");
    let text = fs::read_to_string(&path).unwrap();
    assert!(
        text.contains("<!-- agent-rev: 1 -->"),
        "agent's version lost:\n{text}"
    );
    assert_eq!(q1(&text), (DecisionStatus::Answered, Some("a".into())));
    assert_eq!(loaded.plan, parse(&text, "p").unwrap());
    // Only the answer's lines differ from the agent's text.
    let expected = plan::apply(
        &agent,
        "p",
        &tap(&mut 0)(&loaded.plan).unwrap(),
        Some("1"),
        NOW,
    );
    assert_eq!(text, expected.unwrap());
    assert_eq!(pending_names(&queue), ["p.md"]);
}

#[test]
fn an_agent_version_relabelling_the_option_makes_the_tap_stale_and_stays_as_written() {
    let (_dir, queue, path) = queue();
    let agent = plan_text(1, "First, revised");
    // Decided by the caller (the action layer's fingerprints)…
    let mut hook = agent_at(Point::BeforeSwap, vec![agent.clone()]);
    let edited = queue
        .edit_hooked("p", Some("1"), NOW, &mut tap(&mut 0), &mut hook)
        .unwrap();
    assert!(
        matches!(&edited, Edited::Declined("stale", l) if l.plan.decisions[0].options[0].label == "First, revised"),
        "{edited:?}"
    );
    assert_eq!(fs::read_to_string(&path).unwrap(), agent);
    assert_eq!(pending_names(&queue), ["p.md"]);
    // …or by the edit's own guard (the label it carries).
    fs::write(&path, plan_text(0, "First")).unwrap();
    let answer = Edit::Answer {
        decision: "q1".into(),
        key: "a".into(),
        label: "First".into(),
    };
    let mut hook = agent_at(Point::BeforeSwap, vec![agent.clone()]);
    let edited = queue
        .edit_hooked(
            "p",
            Some("1"),
            NOW,
            &mut |_| Ok::<_, Infallible>(answer.clone()),
            &mut hook,
        )
        .unwrap();
    assert!(
        matches!(&edited, Edited::Refused(e, _) if e.is_stale()),
        "{edited:?}"
    );
    assert_eq!(fs::read_to_string(&path).unwrap(), agent);
    assert_eq!(pending_names(&queue), ["p.md"]);
}

#[test]
fn agent_writes_landing_during_the_swap_back_leave_the_newest_in_place() {
    for newer in 1..=3 {
        let (_dir, queue, path) = queue();
        let first = plan_text(1, "First");
        let later: Vec<String> = (2..2 + newer).map(|rev| plan_text(rev, "First")).collect();
        let mut before_swap = agent_at(Point::BeforeSwap, vec![first]);
        let mut before_swap_back = agent_at(Point::BeforeSwapBack, later);
        let mut hook = |point, path: &Path| {
            before_swap(point, path);
            before_swap_back(point, path);
        };
        let mut calls = 0;
        let edited = queue
            .edit_hooked("p", Some("1"), NOW, &mut tap(&mut calls), &mut hook)
            .unwrap();
        assert!(matches!(edited, Edited::Written(Outcome::Edited(_))));
        assert_eq!(calls, 2);
        newest_answered(&queue, &path, 1 + newer);
    }
}

#[test]
fn an_agent_writing_before_every_swap_wins_and_the_edit_gives_up() {
    let (_dir, queue, path) = queue();
    let versions: Vec<String> = (1..=EDIT_ATTEMPTS)
        .map(|rev| plan_text(rev, "First"))
        .collect();
    let last = versions.last().unwrap().clone();
    let mut hook = agent_at(Point::BeforeSwap, versions);
    let mut calls = 0;
    let result = queue.edit_hooked("p", Some("1"), NOW, &mut tap(&mut calls), &mut hook);
    assert!(
        matches!(result, Err(StoreError::Contended { .. })),
        "{result:?}"
    );
    assert_eq!(calls, EDIT_ATTEMPTS);
    assert_eq!(fs::read_to_string(&path).unwrap(), last);
    assert_eq!(pending_names(&queue), ["p.md"]);
}

#[test]
fn an_agent_deleting_the_plan_before_the_swap_has_the_last_word() {
    let (_dir, queue, _path) = queue();
    let mut hook = |point, path: &Path| {
        if point == Point::BeforeSwap {
            fs::remove_file(path).unwrap();
        }
    };
    let result = queue.edit_hooked("p", Some("1"), NOW, &mut tap(&mut 0), &mut hook);
    assert!(matches!(result, Err(StoreError::NotFound(_))), "{result:?}");
    assert!(pending_names(&queue).is_empty());
}

#[test]
fn an_agent_writing_at_every_swap_back_still_ends_with_its_newest_version_in_place() {
    let (_dir, queue, path) = queue();
    let mut before_swap = agent_at(Point::BeforeSwap, vec![plan_text(1, "First")]);
    let newest = 1 + SWAP_BACKS;
    let later: Vec<String> = (2..=newest).map(|rev| plan_text(rev, "First")).collect();
    let mut before_swap_back = agent_at(Point::BeforeSwapBack, later);
    let mut hook = |point, path: &Path| {
        before_swap(point, path);
        before_swap_back(point, path);
    };
    let edited = queue
        .edit_hooked("p", Some("1"), NOW, &mut tap(&mut 0), &mut hook)
        .unwrap();
    assert!(matches!(edited, Edited::Written(Outcome::Edited(_))));
    newest_answered(&queue, &path, newest);
}

#[test]
fn without_rename_exchange_a_last_look_decides() {
    let (_dir, _queue, path) = queue();
    let before = fs::read(&path).unwrap();
    // Unchanged: the new text goes in.
    let temp = atomic::write_temp(&path, b"new").unwrap();
    assert_eq!(last_look(&path, &temp, &before).unwrap(), Replaced::Done);
    assert_eq!(fs::read(&path).unwrap(), b"new");
    // Changed since it was read: nothing is replaced (the caller removes the temp file).
    let temp = atomic::write_temp(&path, b"newer").unwrap();
    assert_eq!(last_look(&path, &temp, &before).unwrap(), Replaced::Changed);
    assert_eq!(fs::read(&path).unwrap(), b"new");
    fs::remove_file(&temp).unwrap();
    // Gone.
    fs::remove_file(&path).unwrap();
    let temp = atomic::write_temp(&path, b"newest").unwrap();
    assert_eq!(last_look(&path, &temp, &before).unwrap(), Replaced::Gone);
    assert!(!path.exists());
}

#[test]
fn a_listing_keeps_the_version_and_the_time_a_problem_is_remembered_by() {
    let (_dir, queue, path) = queue();
    fs::write(queue.pending_dir().join("b.md"), "not a plan").unwrap();
    fs::write(queue.pending_dir().join(".hidden.md"), "x").unwrap();
    let listed = list_dir(&queue.pending_dir()).unwrap();
    let names: Vec<_> = listed
        .iter()
        .map(|(p, _)| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted, "a listing is in path order");
    assert!(names.contains(&"b.md".to_owned()) && !names.contains(&".hidden.md".to_owned()));
    for (p, version) in &listed {
        let meta = fs::symlink_metadata(p).unwrap();
        assert_eq!(*version, version_of(&meta));
        assert_eq!(modified_of(version), meta.modified().ok());
    }
    assert!(listed.iter().any(|(p, _)| *p == path));
}

#[test]
fn a_listing_gives_way_every_few_files_and_lists_the_same() {
    let (_dir, queue, _) = queue();
    for i in 0..130 {
        fs::write(queue.pending_dir().join(format!("x{i:03}.md")), "x").unwrap();
    }
    let calls = std::cell::Cell::new(0);
    let gave_way = queue
        .list_pending_giving_way(|| calls.set(calls.get() + 1))
        .unwrap();
    // 131 files (and no other entries): a pause after the 64th and the 128th.
    assert_eq!(calls.get(), 2);
    let listed = list_dir(&queue.pending_dir()).unwrap();
    let paths = |l: &[(PathBuf, _)]| l.iter().map(|(p, _)| p.clone()).collect::<Vec<_>>();
    assert_eq!(paths(&gave_way.0), paths(&listed));
}
