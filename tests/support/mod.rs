//! Shared helpers for the integration tests.
#![allow(dead_code)]

pub mod acp;
pub mod agent_cli;
pub mod anthropic;
pub mod binary;
pub mod claude;
pub mod daemon;
pub mod mcp_http;
pub mod model;
pub mod owner;
pub mod web;

use std::path::{Path, PathBuf};

pub const SPEC_EXAMPLE: &str = include_str!("../fixtures/spec-example.md");
pub const TEST_PLAN: &str = include_str!("../fixtures/test-plan.md");
pub const RICH_CONTEXT: &str = include_str!("../fixtures/rich-context.md");

/// A temp queue folder with pending/, completed/ and notify/.
pub struct TempQueue {
    pub dir: tempfile::TempDir,
    /// The daemon's instance lock, held by the test itself ([`TempQueue::served`]).
    served: Option<std::fs::File>,
}

impl TempQueue {
    #[must_use]
    pub fn new() -> TempQueue {
        let dir = tempfile::tempdir().expect("temp dir");
        for sub in ["pending", "completed", "notify"] {
            std::fs::create_dir_all(dir.path().join(sub)).expect("queue dirs");
        }
        TempQueue { dir, served: None }
    }

    /// A queue that looks served: the test holds the daemon's instance lock (`.arbiter.lock`), as `arbiter run`
    /// would, so that agents' hooks ask instead of falling back at once. The test answers as the owner (`Owner`);
    /// no real daemon can start on it.
    #[must_use]
    pub fn served() -> TempQueue {
        let mut q = TempQueue::new();
        let lock = std::fs::File::create(q.root().join(".arbiter.lock")).expect("lock file");
        lock.lock().expect("take the instance lock");
        q.served = Some(lock);
        q
    }

    /// Whether the test holds the daemon's instance lock ([`TempQueue::served`]).
    #[must_use]
    pub fn is_served(&self) -> bool {
        self.served.is_some()
    }

    #[must_use]
    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    /// Writes a plan into pending/ the way an agent should: a dotfile renamed in.
    pub fn drop_plan(&self, name: &str, text: &str) -> PathBuf {
        let dest = self.root().join("pending").join(name);
        let staged = self.root().join("pending").join(format!(".{name}.staging"));
        std::fs::write(&staged, text).expect("write plan");
        std::fs::rename(&staged, &dest).expect("rename plan");
        dest
    }

    /// Names of the files in a subfolder, sorted.
    #[must_use]
    pub fn files(&self, sub: &str) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(self.root().join(sub))
            .map(|rd| {
                rd.flatten()
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        names.sort();
        names
    }

    #[must_use]
    pub fn read(&self, sub: &str, name: &str) -> String {
        std::fs::read_to_string(self.root().join(sub).join(name)).expect("read file")
    }
}

/// A plan with `n` decisions of two options each, for a given id and session.
#[must_use]
pub fn plan_with(id: &str, session: &str, n: usize) -> String {
    let mut out = format!(
        "---\nid: {id}\nagent: tester\nsession: {session}\ntitle: Plan {id}\npriority: normal\nstatus: pending\n---\n\n# Plan {id}\n\nContext.\n\n"
    );
    for i in 1..=n {
        out.push_str(&format!(
            "---\n\n## Decision {i}: Question {i}\n\nid: q{i}\nstatus: pending\nanswer: null\nanswered_at: null\n\n**Context:** Question {i}?\n\n**Options:**\n- `yes` — Yes\n- `no` — No\n\n"
        ));
    }
    out
}

/// A plan file with `front` as its frontmatter; each decision is `(id, status, answer, answered_at, answered_by)`,
/// with options `a` and `b` (what the stats tests count).
#[must_use]
pub fn plan_answered<S: AsRef<str>>(front: &str, decisions: &[(&str, &str, &str, S, S)]) -> String {
    let mut out = format!("---\n{front}\n---\n\n# A plan\n\nContext.\n\n");
    for (i, (id, status, answer, at, by)) in decisions.iter().enumerate() {
        out.push_str(&format!(
            "---\n\n## Decision {n}: Question {id}\n\nid: {id}\nstatus: {status}\nanswer: {answer}\nanswered_at: {at}\nanswered_by: {by}\nallow_custom: true\n\n**Context:** Why?\n\n**Options:**\n- `a` — First\n- `b` — Second\n\n",
            n = i + 1,
            at = at.as_ref(),
            by = by.as_ref(),
        ));
    }
    out
}

/// The queue's one plan was withdrawn on the record, saying `reason`: in completed/ with `status: withdrawn`, no
/// notify file, and a `withdraw` line in the audit trail.
pub fn assert_withdrawn(q: &TempQueue, reason: &str) {
    let done = q.files("completed");
    assert_eq!(done.len(), 1, "one plan in completed/: {done:?}");
    let text = q.read("completed", &done[0]);
    assert!(text.contains("\nstatus: withdrawn\n"), "{text}");
    assert!(q.files("notify").is_empty(), "no notify file");
    let (_, entries) = arbiter_zebu::queue::audit::read(q.root())
        .expect("read the trail")
        .expect("the chain verifies");
    let line = entries
        .iter()
        .find(|e| e.action == "withdraw")
        .unwrap_or_else(|| panic!("no withdraw line: {entries:?}"));
    assert_eq!(line.value.as_deref(), Some(reason));
}
