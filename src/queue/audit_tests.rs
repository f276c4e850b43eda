//! The chain on a temp folder: every kind of tampering is named at the line where it happened.

use std::fs;

use super::*;

fn change<'a>(at: &'a str, value: &'a str) -> Change<'a> {
    Change {
        at,
        actor: "93533553",
        action: "answer",
        plan: "p1",
        revision: 1,
        decision: Some("database"),
        value: Some(value),
        seen: Some("a1b2c3"),
        file: value.as_bytes(),
    }
}

/// Five entries over two months (three in October, two in November).
fn trail() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (at, v) in [
        ("2026-10-30T10:00:00Z", "a"),
        ("2026-10-30T11:00:00Z", "b"),
        ("2026-10-31T23:59:59Z", "c"),
        ("2026-11-01T00:00:00Z", "d"),
        ("2026-11-02T08:00:00Z", "e"),
    ] {
        append(dir.path(), &change(at, v)).unwrap();
    }
    dir
}

fn broken(dir: &Path) -> Broken {
    read(dir).unwrap().unwrap_err()
}

fn file(dir: &Path, month: &str) -> PathBuf {
    dir.join(DIR).join(format!("{month}.jsonl"))
}

#[test]
fn an_untouched_chain_is_intact_and_links_across_months() {
    let dir = trail();
    let (intact, entries) = read(dir.path()).unwrap().unwrap();
    assert_eq!(intact.entries, 5);
    assert_eq!(entries[0].prev, GENESIS);
    let october = fs::read_to_string(file(dir.path(), "2026-10")).unwrap();
    let last_of_october = october.lines().last().unwrap();
    assert_eq!(entries[3].prev, sha256_hex(last_of_october.as_bytes()));
    let november = fs::read_to_string(file(dir.path(), "2026-11")).unwrap();
    assert_eq!(
        intact.head,
        sha256_hex(november.lines().last().unwrap().as_bytes())
    );
    assert_eq!(entries[4].file_sha256, sha256_hex(b"e"));
    // The keys in the contract's order, one line each.
    assert!(
        october.starts_with(r#"{"at":"2026-10-30T10:00:00Z","actor":"93533553","action":"answer","plan":"p1","revision":1,"decision":"database","value":"a","seen":"a1b2c3","file_sha256":""#),
        "{october}"
    );
    assert_eq!(
        read(tempfile::tempdir().unwrap().path())
            .unwrap()
            .unwrap()
            .0
            .entries,
        0
    );
}

#[test]
fn one_byte_changed_is_named() {
    let dir = trail();
    let path = file(dir.path(), "2026-10");
    let text = fs::read_to_string(&path).unwrap();
    fs::write(&path, text.replacen(r#""value":"b""#, r#""value":"x""#, 1)).unwrap();
    let b = broken(dir.path());
    assert_eq!((b.file.as_str(), b.line), ("audit/2026-10.jsonl", 3), "{b}");
    assert!(b.to_string().contains("changed, removed or moved"), "{b}");
}

#[test]
fn a_line_removed_or_two_swapped_is_named() {
    let dir = trail();
    let path = file(dir.path(), "2026-10");
    let lines: Vec<String> = fs::read_to_string(&path)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    fs::write(&path, format!("{}\n{}\n", lines[0], lines[2])).unwrap();
    assert_eq!(broken(dir.path()).line, 2);
    fs::write(&path, format!("{}\n{}\n{}\n", lines[1], lines[0], lines[2])).unwrap();
    let b = broken(dir.path());
    assert_eq!(b.line, 1, "{b}");
    assert!(b.reason.contains("without its first entry"), "{b}");
}

#[test]
fn a_truncated_file_and_removed_months_are_named() {
    let dir = trail();
    let path = file(dir.path(), "2026-11");
    let text = fs::read(&path).unwrap();
    fs::write(&path, &text[..text.len() - 10]).unwrap();
    let b = broken(dir.path());
    assert_eq!((b.file.as_str(), b.line), ("audit/2026-11.jsonl", 2), "{b}");
    assert!(b.reason.contains("truncated"), "{b}");
    fs::write(&path, &text).unwrap();
    // The first month gone: the chain starts mid-way.
    let dir2 = trail();
    fs::remove_file(file(dir2.path(), "2026-10")).unwrap();
    let b = broken(dir2.path());
    assert_eq!((b.file.as_str(), b.line), ("audit/2026-11.jsonl", 1), "{b}");
    // A month in the middle gone: the next month's first line names a line that is not there.
    let dir3 = tempfile::tempdir().unwrap();
    for at in [
        "2026-09-01T00:00:00Z",
        "2026-10-01T00:00:00Z",
        "2026-11-01T00:00:00Z",
    ] {
        append(dir3.path(), &change(at, "v")).unwrap();
    }
    fs::remove_file(file(dir3.path(), "2026-10")).unwrap();
    let b = broken(dir3.path());
    assert_eq!((b.file.as_str(), b.line), ("audit/2026-11.jsonl", 1), "{b}");
}

#[test]
fn garbage_is_reported_not_panicked_on() {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir_all(dir.path().join(DIR)).unwrap();
    for junk in [
        &b"\xff\xfe\x00garbage\n"[..],
        b"{}\n",
        b"[1,2]\n",
        b"\n",
        b"{\"at\":1}\n",
    ] {
        fs::write(file(dir.path(), "2026-11"), junk).unwrap();
        let b = broken(dir.path());
        assert_eq!(b.line, 1, "{b}");
        assert!(b.reason.starts_with("not an audit entry"), "{b}");
    }
    // A line in an earlier month's file than its stamp (a later one is where a clock that went back writes).
    let dir = tempfile::tempdir().unwrap();
    append(dir.path(), &change("2026-11-01T00:00:00Z", "v")).unwrap();
    fs::rename(file(dir.path(), "2026-11"), file(dir.path(), "2026-10")).unwrap();
    assert!(broken(dir.path()).reason.contains("wrong month file"));
}

#[test]
fn a_change_without_a_time_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let err = append(dir.path(), &change("yesterday", "v")).unwrap_err();
    assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
}

#[test]
fn a_clock_that_went_back_a_month_still_extends_the_chain() {
    let dir = trail();
    // Another process's clock says October after the chain reached November.
    append(dir.path(), &change("2026-10-31T23:59:00Z", "late")).unwrap();
    let (intact, entries) = read(dir.path()).unwrap().unwrap();
    assert_eq!(entries.len(), 6, "{intact:?}");
    assert_eq!(entries[5].value.as_deref(), Some("late"));
    let november = fs::read_to_string(file(dir.path(), "2026-11")).unwrap();
    assert!(
        november.lines().last().unwrap().contains("\"late\""),
        "{november}"
    );
}

/// The chain's end is found from the file's end whatever the month file holds: lines longer than the first
/// window, a line that fills the window exactly, no newline at all.
#[test]
fn the_last_line_is_found_from_the_end_in_growing_windows() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.jsonl");
    let long = "x".repeat(4096);
    let longer = "y".repeat(20_000);
    let cases: [(String, Option<&str>); 7] = [
        (String::new(), None),
        ("\n\n".to_owned(), None),
        ("a\nb\n".to_owned(), Some("b")),
        (format!("a\n{long}\n"), Some(long.as_str())),
        (format!("{long}\n"), Some(long.as_str())),
        (format!("a\n{longer}\n"), Some(longer.as_str())),
        (longer.clone(), Some(longer.as_str())),
    ];
    for (text, want) in cases {
        std::fs::write(&path, &text).unwrap();
        let got = last_line(&mut File::open(&path).unwrap()).unwrap();
        assert_eq!(
            got.as_deref(),
            want.map(str::as_bytes),
            "{} bytes",
            text.len()
        );
    }
}

#[test]
fn a_torn_last_line_is_cut_off_and_recorded_never_dropped() {
    let dir = trail();
    let november = file(dir.path(), "2026-11");
    let mut bytes = fs::read(&november).unwrap();
    bytes.extend_from_slice(br#"{"at":"2026-11-02T09:00:00Z","actor":"935"#);
    fs::write(&november, &bytes).unwrap();
    assert!(broken(dir.path()).reason.contains("truncated"));

    let repaired = repair(dir.path(), "2026-11-02T09:00:01Z").unwrap().unwrap();
    assert_eq!(
        (repaired.actor.as_str(), repaired.action.as_str()),
        ("arbiter", "repair")
    );
    assert_eq!(
        repaired.value.as_deref(),
        Some(r#"{"at":"2026-11-02T09:00:00Z","actor":"935"#)
    );
    let (intact, entries) = read(dir.path()).unwrap().unwrap();
    assert_eq!(entries.len(), 6, "{intact:?}");
    assert_eq!(repair(dir.path(), "2026-11-02T09:00:02Z").unwrap(), None);

    // An append repairs first, too.
    let mut bytes = fs::read(&november).unwrap();
    bytes.extend_from_slice(b"{\"at\"");
    fs::write(&november, &bytes).unwrap();
    append(dir.path(), &change("2026-11-02T10:00:00Z", "f")).unwrap();
    let (_, entries) = read(dir.path()).unwrap().unwrap();
    let actions: Vec<&str> = entries[6..].iter().map(|e| e.action.as_str()).collect();
    assert_eq!(actions, ["repair", "answer"]);
    assert_eq!(entries[6].value.as_deref(), Some("{\"at\""));
}

/// Six entries over three months, of plans `old` (September), `mid` (October) and `new` (November).
fn trail_of_three_plans() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (at, plan, v) in [
        ("2026-09-01T10:00:00Z", "old", "a"),
        ("2026-09-02T10:00:00Z", "old", "b"),
        ("2026-10-01T10:00:00Z", "mid", "c"),
        ("2026-10-02T10:00:00Z", "mid", "d"),
        ("2026-11-01T10:00:00Z", "new", "e"),
        ("2026-11-02T10:00:00Z", "new", "f"),
    ] {
        append(
            dir.path(),
            &Change {
                plan,
                ..change(at, v)
            },
        )
        .unwrap();
    }
    dir
}

fn plans(ids: &[&str]) -> std::collections::HashSet<String> {
    ids.iter().map(|s| (*s).to_owned()).collect()
}

#[test]
fn a_plans_lines_read_through_the_remembered_months_are_the_lines_a_whole_read_finds() {
    let dir = trail_of_three_plans();
    let checked = Checked::default();
    for wanted in [&["new"][..], &["old"], &["mid", "new"], &[], &["old"]] {
        let whole = read_where(dir.path(), |e| wanted.contains(&e.plan.as_str()));
        let remembered = read_for_plans(dir.path(), &checked, &plans(wanted));
        assert_eq!(remembered.unwrap(), whole.unwrap(), "{wanted:?}");
    }
    assert_eq!(checked.months(), 3);
    // A line appended to November after the months were remembered is read.
    append(
        dir.path(),
        &Change {
            plan: "new",
            ..change("2026-11-03T10:00:00Z", "g")
        },
    )
    .unwrap();
    let (intact, entries) = read_for_plans(dir.path(), &checked, &plans(&["new"]))
        .unwrap()
        .unwrap();
    assert_eq!(intact, read(dir.path()).unwrap().unwrap().0);
    assert_eq!(intact.entries, 7);
    assert_eq!(
        entries
            .iter()
            .map(|e| e.value.as_deref().unwrap())
            .collect::<Vec<_>>(),
        ["e", "f", "g"]
    );
}

#[test]
fn a_remembered_month_changed_or_removed_is_named_as_a_whole_read_names_it() {
    // One byte of September (its length unchanged), after every month was remembered.
    let dir = trail_of_three_plans();
    let checked = Checked::default();
    read_for_plans(dir.path(), &checked, &plans(&["new"]))
        .unwrap()
        .unwrap();
    let path = file(dir.path(), "2026-09");
    let text = fs::read_to_string(&path).unwrap();
    fs::write(&path, text.replacen(r#""value":"b""#, r#""value":"x""#, 1)).unwrap();
    let named = read_for_plans(dir.path(), &checked, &plans(&["new"])).unwrap();
    assert_eq!(named.unwrap_err(), broken(dir.path()));
    // October's file removed.
    let dir = trail_of_three_plans();
    let checked = Checked::default();
    read_for_plans(dir.path(), &checked, &plans(&["new"]))
        .unwrap()
        .unwrap();
    fs::remove_file(file(dir.path(), "2026-10")).unwrap();
    let named = read_for_plans(dir.path(), &checked, &plans(&["new"])).unwrap();
    assert_eq!(named.as_ref().unwrap_err(), &broken(dir.path()));
    assert_eq!(named.unwrap_err().file, "audit/2026-11.jsonl");
    // September's file replaced by a copy of itself (the same bytes, another file).
    let dir = trail_of_three_plans();
    let checked = Checked::default();
    read_for_plans(dir.path(), &checked, &plans(&["new"]))
        .unwrap()
        .unwrap();
    let september = file(dir.path(), "2026-09");
    let copy = dir.path().join("copy");
    fs::copy(&september, &copy).unwrap();
    fs::rename(&copy, &september).unwrap();
    assert_eq!(
        read_for_plans(dir.path(), &checked, &plans(&["new"]))
            .unwrap()
            .unwrap(),
        read_where(dir.path(), |e| e.plan == "new")
            .unwrap()
            .unwrap()
    );
}

/// The lines after one that name something: none from before it or the line itself, every one after it in order,
/// across months and across the chunks a long month file is read in.
#[test]
fn later_lines_naming_a_value_are_found_after_a_line_across_chunks_and_months() {
    let dir = tempfile::tempdir().unwrap();
    append(dir.path(), &change("2026-10-01T10:00:00Z", "wanted-before")).unwrap();
    let (_, made) =
        append_located(dir.path(), &change("2026-10-02T10:00:00Z", "wanted-0")).unwrap();
    let mut want = Vec::new();
    // About 2 MB of October: many chunks, with a named line every 997 lines.
    for i in 1..6000 {
        let value = if i % 997 == 0 {
            want.push(format!("wanted-{i}"));
            format!("wanted-{i}")
        } else {
            format!("other-{i}")
        };
        append(dir.path(), &change("2026-10-03T10:00:00Z", &value)).unwrap();
    }
    append(
        dir.path(),
        &change("2026-11-01T10:00:00Z", "wanted-november"),
    )
    .unwrap();
    want.push("wanted-november".to_owned());
    let found: Vec<String> = later_naming(dir.path(), &made, "wanted-")
        .unwrap()
        .into_iter()
        .filter_map(|e| e.value)
        .collect();
    assert_eq!(found, want);
    // From a line in the last month: only what follows it.
    let (_, last) =
        append_located(dir.path(), &change("2026-11-02T10:00:00Z", "wanted-x")).unwrap();
    assert!(
        later_naming(dir.path(), &last, "wanted-")
            .unwrap()
            .is_empty()
    );
}
