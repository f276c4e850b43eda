//! File edits shown as what they change: a unified diff of the file as it is on disk against the file as the
//! tool would leave it (a replacement applied to the file, a whole-file write, several edits in a row), or an
//! agent's own patch text (Codex's `apply_patch`) as unified diff hunks. Never the tool's raw JSON.

use std::path::Path;
use std::time::Duration;

use similar::TextDiff;

use super::files::OnDisk;

/// Largest file read from disk to diff against (bytes): a bigger one is diffed as if its content were unknown.
const FILE_MAX: u64 = 2 * 1024 * 1024;
/// Longest diff kept in a plan (characters): the plan file must stay readable (plans over 1 MiB are not read);
/// what the owner's view can't show is behind `📄 Full context` anyway.
const DIFF_MAX: usize = 200_000;
/// Lines of context around each change.
const CONTEXT: usize = 3;
/// Longest time spent diffing: past it, the diff is coarser but still true.
const DIFF_TIME: Duration = Duration::from_millis(500);

/// What a tool call changes: the files, and the unified diff (with `---`/`+++` headers and `@@` hunks).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    pub files: Vec<String>,
    pub diff: String,
    /// Anything the owner should know about how the diff was made (the file on disk could not be read, …).
    pub note: Option<String>,
}

/// One replacement of an edit tool: `old` by `new`, every occurrence when `all`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replace {
    pub old: String,
    pub new: String,
    pub all: bool,
}

/// The file at `path` (relative to `cwd` when not absolute) after `edits`, applied in order to what is on disk.
/// When the file can't be read or does not hold an edit's text, the edits alone are diffed (old text against new
/// text), and the note says so.
#[must_use]
pub fn replace(path: &str, cwd: Option<&str>, edits: &[Replace]) -> Change {
    let (on_disk, why) = match read(path, cwd) {
        OnDisk::Text(text) => (Some(text), None),
        OnDisk::Missing => (None, Some("the file does not exist yet".to_owned())),
        OnDisk::Unreadable(why) => (None, Some(why)),
    };
    let (from, to) = names(path, cwd);
    if let Some(before) = on_disk {
        let mut after = before.clone();
        let mut applied = true;
        for edit in edits {
            if edit.old.is_empty() || !after.contains(&edit.old) {
                applied = false;
                break;
            }
            after = if edit.all {
                after.replace(&edit.old, &edit.new)
            } else {
                after.replacen(&edit.old, &edit.new, 1)
            };
        }
        if applied {
            return Change {
                files: vec![path.to_owned()],
                diff: unified(&before, &after, &from, &to),
                note: None,
            };
        }
    }
    let note = why.unwrap_or_else(|| "the file on disk does not hold the text replaced".to_owned());
    // Snippets end where the model cut them: no "\ No newline at end of file" for that.
    let line = |s: &str| {
        if s.is_empty() || s.ends_with('\n') {
            s.to_owned()
        } else {
            format!("{s}\n")
        }
    };
    let diff: String = edits
        .iter()
        .map(|e| unified(&line(&e.old), &line(&e.new), &from, &to))
        .collect();
    Change {
        files: vec![path.to_owned()],
        diff,
        note: Some(format!(
            "Only the replaced text is shown ({note}): its line numbers count from the replaced text."
        )),
    }
}

/// The file at `path` written whole with `content`: a diff against the file on disk (a new file: every line
/// added).
#[must_use]
pub fn write(path: &str, cwd: Option<&str>, content: &str) -> Change {
    let (from, to) = names(path, cwd);
    let (before, from, note) = match read(path, cwd) {
        OnDisk::Text(text) => (text, from, None),
        OnDisk::Missing => (String::new(), "/dev/null".to_owned(), None),
        OnDisk::Unreadable(why) => (
            String::new(),
            "/dev/null".to_owned(),
            Some(format!(
                "The file on disk could not be read ({why}): the whole new content is shown."
            )),
        ),
    };
    Change {
        files: vec![path.to_owned()],
        diff: unified(&before, content, &from, &to),
        note,
    }
}

/// An `apply_patch` text (`*** Begin Patch` … `*** End Patch`, found anywhere in `text`) as unified diff
/// hunks: each `*** Add File`, `*** Update File` (and `*** Move to`) and `*** Delete File` section gets `---`/`+++`
/// headers; its `@@` and ` `/`-`/`+` lines are kept as they are. `None` when `text` holds no patch.
#[must_use]
pub fn patch(text: &str) -> Option<Change> {
    let start = text.find("*** Begin Patch")?;
    let body = &text[start..];
    let body = body.find("*** End Patch").map_or(body, |end| &body[..end]);
    let mut files = Vec::new();
    let mut out = String::new();
    let mut section = Section::None;
    for line in body.lines().skip(1) {
        let header = [
            ("*** Add File: ", Section::Add(Vec::new())),
            ("*** Delete File: ", Section::Delete),
            ("*** Update File: ", Section::Update { in_hunk: false }),
        ]
        .into_iter()
        .find_map(|(mark, next)| line.strip_prefix(mark).map(|path| (path.trim(), next)));
        if let Some((path, next)) = header {
            section.end(&mut out);
            files.push(path.to_owned());
            let (a, b) = names(path, None);
            out.push_str(&match next {
                Section::Add(_) => format!("--- /dev/null\n+++ {b}\n"),
                Section::Delete => format!("--- {a}\n+++ /dev/null\n"),
                _ => format!("--- {a}\n+++ {b}\n"),
            });
            section = next;
            continue;
        }
        if let Some(to) = line.strip_prefix("*** Move to: ") {
            // The `+++` line names where the file goes.
            if let Some(at) = out.rfind("\n+++ ") {
                out.truncate(at + 1);
                out.push_str(&format!("+++ {}\n", names(to.trim(), None).1));
            }
            continue;
        }
        if line.starts_with("*** ") {
            continue;
        }
        match &mut section {
            Section::Add(lines) => lines.push(line.to_owned()),
            Section::Update { in_hunk } => {
                if !line.starts_with("@@") && !*in_hunk {
                    out.push_str("@@\n");
                }
                *in_hunk = true;
                out.push_str(line);
                out.push('\n');
            }
            Section::Delete | Section::None => {}
        }
    }
    section.end(&mut out);
    (!files.is_empty()).then_some(Change {
        files,
        diff: out,
        note: None,
    })
}

/// The file section of a patch being read.
enum Section {
    None,
    /// An added file: its lines, written once counted (the hunk header needs their number).
    Add(Vec<String>),
    Delete,
    Update {
        in_hunk: bool,
    },
}

impl Section {
    fn end(&mut self, out: &mut String) {
        if let Section::Add(lines) = self
            && !lines.is_empty()
        {
            out.push_str(&format!("@@ -0,0 +1,{} @@\n", lines.len()));
            for line in lines.drain(..) {
                out.push_str(&line);
                out.push('\n');
            }
        }
        *self = Section::None;
    }
}

/// The unified diff of `before` against `after` with `from`/`to` headers; empty when nothing changes.
#[must_use]
pub fn unified(before: &str, after: &str, from: &str, to: &str) -> String {
    if before == after {
        return String::new();
    }
    let diff = TextDiff::configure()
        .timeout(DIFF_TIME)
        .diff_lines(before, after);
    diff.unified_diff()
        .context_radius(CONTEXT)
        .header(from, to)
        .to_string()
}

/// `diff` cut to [`DIFF_MAX`] characters at a line break, with a line saying how many lines were left out.
#[must_use]
pub fn kept(diff: &str) -> String {
    if diff.chars().count() <= DIFF_MAX {
        return diff.to_owned();
    }
    let cut: String = diff.chars().take(DIFF_MAX).collect();
    let cut = cut.rsplit_once('\n').map_or(cut.as_str(), |(k, _)| k);
    let left = diff.lines().count() - cut.lines().count();
    format!("{cut}\n… ({left} more lines of the diff)")
}

/// The file at `path` (relative to `cwd`) as the hook reads it: on this disk, or as the agent's machine sent it.
fn read(path: &str, cwd: Option<&str>) -> OnDisk {
    match super::files::read_text(&super::files::resolve(path, cwd), FILE_MAX) {
        OnDisk::Unreadable(why) if why.ends_with("too big to read") => {
            OnDisk::Unreadable(why.replace("too big to read", "too big to diff"))
        }
        other => other,
    }
}

/// The `---`/`+++` names of `path`: `a/src/x.rs` and `b/src/x.rs` for a path in the project (relative, or under
/// `cwd`), else the path as it is.
fn names(path: &str, cwd: Option<&str>) -> (String, String) {
    let inside = match cwd {
        Some(cwd) if Path::new(path).is_absolute() => Path::new(path)
            .strip_prefix(cwd)
            .ok()
            .map(|p| p.to_string_lossy().into_owned()),
        _ if Path::new(path).is_relative() => Some(path.to_owned()),
        _ => None,
    };
    match inside.filter(|p| !p.is_empty()) {
        Some(relative) => (format!("a/{relative}"), format!("b/{relative}")),
        None => (path.to_owned(), path.to_owned()),
    }
}

#[cfg(test)]
mod tests;
