//! Diffs of agents' file edits: replacements applied to the file on disk, whole-file writes, Codex patches.

use super::*;

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("src")).unwrap();
    std::fs::write(
        dir.path().join("src/lib.rs"),
        "fn one() {}\nfn two() {}\nfn three() {}\nfn four() {}\nfn five() {}\nfn six() {}\nfn seven() {}\nfn eight() {}\n",
    )
    .unwrap();
    dir
}

fn edit(old: &str, new: &str) -> Replace {
    Replace {
        old: old.into(),
        new: new.into(),
        all: false,
    }
}

#[test]
fn a_replacement_is_diffed_in_the_file_with_its_line_numbers_and_context() {
    let dir = project();
    let cwd = dir.path().to_str().unwrap();
    let change = replace(
        "src/lib.rs",
        Some(cwd),
        &[edit("fn six() {}", "fn six() { todo!() }")],
    );
    assert_eq!(change.note, None);
    assert_eq!(
        change.diff,
        "--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -3,6 +3,6 @@\n fn three() {}\n fn four() {}\n fn five() {}\n-fn six() {}\n+fn six() { todo!() }\n fn seven() {}\n fn eight() {}\n"
    );
    // An absolute path under the project reads the same; several edits apply in order.
    let absolute = format!("{cwd}/src/lib.rs");
    let two = replace(
        &absolute,
        Some(cwd),
        &[
            edit("fn one() {}", "fn uno() {}"),
            edit("fn uno() {}", "fn eins() {}"),
        ],
    );
    assert!(
        two.diff.starts_with(
            "--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -1,4 +1,4 @@\n-fn one() {}\n+fn eins() {}\n"
        ),
        "{}",
        two.diff
    );
    assert_eq!(two.files, [absolute]);
}

#[test]
fn a_replacement_the_file_does_not_hold_shows_the_texts_alone_and_says_so() {
    let dir = project();
    let cwd = dir.path().to_str().unwrap();
    let change = replace(
        "src/lib.rs",
        Some(cwd),
        &[edit("fn nine() {}", "fn ten() {}")],
    );
    assert_eq!(
        change.diff,
        "--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -1 +1 @@\n-fn nine() {}\n+fn ten() {}\n"
    );
    assert!(
        change
            .note
            .unwrap()
            .contains("does not hold the text replaced")
    );
    let gone = replace("src/gone.rs", Some(cwd), &[edit("a", "b")]);
    assert!(gone.note.unwrap().contains("the file does not exist yet"));
}

#[test]
fn a_write_is_diffed_against_the_file_on_disk_and_a_new_file_is_all_added() {
    let dir = project();
    let cwd = dir.path().to_str().unwrap();
    let over = write("src/lib.rs", Some(cwd), "fn one() {}\n");
    assert!(
        over.diff.starts_with(
            "--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -1,8 +1 @@\n fn one() {}\n-fn two() {}\n"
        ),
        "{}",
        over.diff
    );
    let new = write("src/new.rs", Some(cwd), "pub mod x;\npub mod y;\n");
    assert_eq!(
        new.diff,
        "--- /dev/null\n+++ b/src/new.rs\n@@ -0,0 +1,2 @@\n+pub mod x;\n+pub mod y;\n"
    );
    assert_eq!(
        write(
            "src/lib.rs",
            Some(cwd),
            &std::fs::read_to_string(dir.path().join("src/lib.rs")).unwrap()
        )
        .diff,
        ""
    );
    std::fs::write(dir.path().join("blob"), [0xff, 0xfe, 0x00]).unwrap();
    let binary = write("blob", Some(cwd), "text\n");
    assert!(
        binary.note.unwrap().contains("not UTF-8"),
        "the whole new content is shown"
    );
    assert!(binary.diff.ends_with("+text\n"));
}

#[test]
fn a_codex_patch_becomes_unified_diff_hunks() {
    let text = "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: docs/new.md\n+# New\n+\n+Hello\n*** Update File: src/lib.rs\n*** Move to: src/core.rs\n@@ fn two() {}\n-fn three() {}\n+fn drei() {}\n fn four() {}\n*** Delete File: old.txt\n*** Update File: /abs/x.rs\n-a\n+b\n*** End Patch\nEOF";
    let change = patch(text).unwrap();
    assert_eq!(
        change.files,
        ["docs/new.md", "src/lib.rs", "old.txt", "/abs/x.rs"]
    );
    assert_eq!(
        change.diff,
        "--- /dev/null\n+++ b/docs/new.md\n@@ -0,0 +1,3 @@\n+# New\n+\n+Hello\n--- a/src/lib.rs\n+++ b/src/core.rs\n@@ fn two() {}\n-fn three() {}\n+fn drei() {}\n fn four() {}\n--- a/old.txt\n+++ /dev/null\n--- /abs/x.rs\n+++ /abs/x.rs\n@@\n-a\n+b\n"
    );
    assert_eq!(patch("echo no patch here"), None);
    assert_eq!(patch("*** Begin Patch\n*** End Patch"), None);
}

#[test]
fn a_huge_diff_is_cut_at_a_line_and_says_how_much_is_left() {
    let big: String = (0..40_000).map(|n| format!("line {n}\n")).collect();
    let change = write("big.txt", None, &big);
    let shown = kept(&change.diff);
    assert!(shown.chars().count() < 200_100);
    assert!(
        shown.ends_with("more lines of the diff)"),
        "{}",
        &shown[shown.len() - 80..]
    );
    assert_eq!(kept(&"x\n".repeat(10)), "x\n".repeat(10));
}
