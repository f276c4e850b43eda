//! The history index kept in step with completed/: appended to when plans are added, written again when one went
//! away, was replaced or the index does not read; whatever a plan holds, it stays one line.

use std::fs;

use super::*;

fn plan(id: &str, title: &str, answer: &str) -> String {
    format!(
        "---\nid: {id}\nagent: a\ntitle: {title}\nstatus: completed\ncompleted_at: 2026-11-01T10:00:00Z\n---\n# {id}\n\nContext.\n\n## Which\n\nid: q\nstatus: answered\nanswer: {answer}\nanswered_by: 1\n\n**Options:**\n- `a` — A\n"
    )
}

fn queue() -> (tempfile::TempDir, Queue) {
    let dir = tempfile::tempdir().unwrap();
    let queue = Queue::open(dir.path(), false).unwrap();
    (dir, queue)
}

fn complete(queue: &Queue, name: &str, text: &str) {
    fs::write(queue.completed_dir().join(name), text).unwrap();
}

fn ids(queue: &Queue, needle: Option<&str>) -> Vec<String> {
    let mut ids: Vec<String> = search(queue, needle)
        .unwrap()
        .into_iter()
        .map(|r| r.plan.id)
        .collect();
    ids.sort();
    ids
}

fn index(queue: &Queue) -> String {
    fs::read_to_string(queue.root().join(INDEX)).unwrap()
}

#[test]
fn plans_completed_since_are_appended_and_the_rest_is_kept_as_written() {
    let (_dir, queue) = queue();
    complete(&queue, "one.md", &plan("one", "First", "a"));
    assert_eq!(ids(&queue, None), ["one"]);
    let before = index(&queue);
    complete(&queue, "two.md", &plan("two", "Second", "a"));
    assert_eq!(ids(&queue, Some("second")), ["two"]);
    let after = index(&queue);
    assert!(after.starts_with(&before), "appended to:\n{after}");
    // Unchanged since: nothing is written.
    assert_eq!(ids(&queue, None), ["one", "two"]);
    assert_eq!(index(&queue), after);
}

#[test]
fn a_plan_removed_or_replaced_makes_the_index_written_again() {
    let (_dir, queue) = queue();
    complete(&queue, "one.md", &plan("one", "First", "a"));
    complete(&queue, "two.md", &plan("two", "Second", "a"));
    assert_eq!(ids(&queue, None), ["one", "two"]);
    fs::remove_file(queue.completed_dir().join("two.md")).unwrap();
    assert_eq!(ids(&queue, None), ["one"]);
    assert!(!index(&queue).contains("\"two\""), "{}", index(&queue));
    // Replaced by another file under the same name (a new inode): the new one is what is found.
    let staged = queue.completed_dir().join(".one.md.tmp");
    fs::write(&staged, plan("one", "Renamed title", "a")).unwrap();
    fs::rename(&staged, queue.completed_dir().join("one.md")).unwrap();
    assert_eq!(ids(&queue, Some("renamed")), ["one"]);
    assert!(ids(&queue, Some("first")).is_empty());
    assert_eq!(index(&queue).matches("\"file\":\"one.md\"").count(), 1);
}

#[test]
fn a_torn_doubled_or_foreign_index_is_written_again() {
    let (_dir, queue) = queue();
    complete(&queue, "one.md", &plan("one", "First", "a"));
    complete(&queue, "two.md", &plan("two", "Second", "a"));
    assert_eq!(ids(&queue, None), ["one", "two"]);
    let whole = index(&queue);
    let path = queue.root().join(INDEX);
    // Cut in the middle of the last plan's line (a crash while appending); then one more plan completed.
    let cut = whole.rfind("\"two\"").unwrap();
    fs::write(&path, &whole[..cut]).unwrap();
    complete(&queue, "three.md", &plan("three", "Third", "a"));
    assert_eq!(ids(&queue, None), ["one", "three", "two"]);
    // A line twice: each plan is found once.
    let mut doubled = index(&queue);
    let line = doubled.lines().nth(1).unwrap().to_owned();
    doubled.push_str(&line);
    doubled.push('\n');
    fs::write(&path, doubled).unwrap();
    complete(&queue, "four.md", &plan("four", "Fourth", "a"));
    assert_eq!(ids(&queue, None), ["four", "one", "three", "two"]);
    // Garbage, an empty file, an older version's index: rebuilt from the files.
    for junk in [
        "garbage\n",
        "",
        "{\"version\":1,\"folder_mtime\":0,\"count\":4}\n",
        "\0\0\0",
    ] {
        fs::write(&path, junk).unwrap();
        assert_eq!(
            ids(&queue, None),
            ["four", "one", "three", "two"],
            "{junk:?}"
        );
    }
}

#[test]
fn whatever_a_plan_holds_it_is_one_line_and_found() {
    let (_dir, queue) = queue();
    let title = "\"Tabs\tand \\\\ back\\\"slashes — ünïcode 🚀\"";
    complete(
        &queue,
        "odd.md",
        &plan("odd", title, "\"line one\\nline two\\tTAB\""),
    );
    complete(&queue, "broken.md", "---\nid: [unclosed\n---\n");
    complete(&queue, ".hidden.md", &plan("hidden", "Hidden", "a"));
    fs::write(queue.completed_dir().join("notes.txt"), "not a plan").unwrap();
    assert_eq!(ids(&queue, None), ["odd"]);
    let lines = index(&queue).lines().count();
    assert_eq!(lines, 3, "header, one plan, state:\n{}", index(&queue));
    for needle in [
        "tabs\tand",
        "\\ back\"slashes",
        "ÜNÏCODE 🚀",
        "line one\nline two\ttab",
    ] {
        assert_eq!(ids(&queue, Some(needle)), ["odd"], "{needle:?}");
    }
    // `n` matches the escaped `\n` of the raw line: the decoded text decides.
    assert!(ids(&queue, Some("one\\n")).is_empty());
    let found = search(&queue, Some("unicode")).unwrap();
    assert!(found.is_empty());
    let record = &search(&queue, None).unwrap()[0];
    assert_eq!(record.plan.title, "Tabs\tand \\ back\"slashes — ünïcode 🚀");
    assert_eq!(record.answers(), [("q", "line one\nline two\tTAB")]);
}

#[test]
fn ids_periods_and_find_come_from_the_index() {
    let (_dir, queue) = queue();
    complete(&queue, "one.md", &plan("one", "First", "a"));
    let old = plan("old", "Old", "a").replace("2026-11-01", "2025-01-01");
    complete(&queue, "old.md", &old);
    let mut got = queue.completed_ids().unwrap();
    got.sort();
    assert_eq!(got, ["old", "one"]);
    let since = crate::plan::timing::parse_time("2026-01-01T00:00:00Z").unwrap();
    let recent: Vec<String> = queue
        .completed_since(since)
        .unwrap()
        .into_iter()
        .map(|s| s.id)
        .collect();
    assert_eq!(recent, ["one"]);
    let found = queue.find("old").unwrap();
    assert_eq!(
        (found.location, found.path.file_name().unwrap().to_str()),
        (Location::Completed, Some("old.md"))
    );
    assert!(matches!(queue.find("nope"), Err(StoreError::NotFound(_))));
}

/// When the index can't be written (here: a folder is in its way), the answer is made from the files.
#[test]
fn an_index_that_cannot_be_written_still_answers_from_the_files() {
    let (_dir, queue) = queue();
    complete(&queue, "one.md", &plan("one", "First", "a"));
    fs::create_dir(queue.root().join(INDEX)).unwrap();
    assert_eq!(ids(&queue, Some("first")), ["one"]);
    assert_eq!(queue.completed_ids().unwrap(), ["one"]);
}

/// The History page's selection: the newest that match and are kept, newest first, and whether there were more;
/// however many plans it passes over on the way.
#[test]
fn the_newest_kept_plans_and_whether_there_are_more() {
    let (_dir, queue) = queue();
    for day in 1..=9 {
        let text = plan(&format!("d{day}"), "Title", "a")
            .replace("2026-11-01T10:00:00Z", &format!("2026-11-0{day}T10:00:00Z"));
        complete(&queue, &format!("d{day}.md"), &text);
    }
    let ids = |(records, more): (Vec<Record>, bool)| {
        (
            records.into_iter().map(|r| r.plan.id).collect::<Vec<_>>(),
            more,
        )
    };
    let not_d8 = |s: &crate::plan::Summary| s.id != "d8";
    assert_eq!(
        ids(newest(&queue, None, 2, not_d8).unwrap()),
        (vec!["d9".to_owned(), "d7".to_owned()], true)
    );
    assert_eq!(
        ids(newest(&queue, Some("TITLE"), 1, |_| true).unwrap()),
        (vec!["d9".to_owned()], true)
    );
    let (all, more) = ids(newest(&queue, None, 20, not_d8).unwrap());
    assert_eq!(
        (all.len(), all.first().map(String::as_str), more),
        (8, Some("d9"), false)
    );
    assert_eq!(
        ids(newest(&queue, Some("nothing"), 5, |_| true).unwrap()),
        (vec![], false)
    );
}
