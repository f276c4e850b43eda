//! The messages that announced the latest plans, per member, kept in `<queue>/telegram-threads.json`: a plan that
//! follows one up (`reply_to`, an agent's next finished card) is announced as a reply to it, so a session reads as
//! one thread, and a plan withdrawn has its announcement redrawn to say so — across a restart of the daemon too,
//! and for a plan withdrawn while the daemon was away (each plan's end is marked seen to, `settled`).
//! Small (at most [`THREADS_KEPT`] plans) and written atomically on every change; a file that does not read is
//! logged and started afresh (the worst case is a card that starts a new thread).

use std::collections::{HashMap, VecDeque};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use teloxide::types::MessageId;

/// The file's name in the queue folder.
pub const THREADS_FILE: &str = "telegram-threads.json";

/// How many announced plans' messages are remembered.
const THREADS_KEPT: usize = 512;

/// One announced plan: its message in each member's chat.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Announced {
    plan: String,
    /// Member user id → message id.
    messages: HashMap<u64, i32>,
    /// What became of the plan was seen to (its announcement redrawn if it was withdrawn): a plan that left
    /// `pending/` while the daemon was away is looked at once at the next start.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    settled: bool,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct ThreadsFile {
    version: u32,
    /// Oldest first.
    announced: Vec<Announced>,
}

/// The messages of one announced plan.
struct Kept {
    messages: HashMap<u64, MessageId>,
    settled: bool,
}

/// The announcements remembered, in memory and in the file.
#[derive(Default)]
pub struct Threads {
    sent: HashMap<Box<str>, Kept>,
    order: VecDeque<Box<str>>,
    /// Where they are kept; `None` keeps them in memory only.
    file: Option<PathBuf>,
}

impl Threads {
    /// The announcements remembered in `queue_root`'s file (none when there is no file).
    #[must_use]
    pub fn load(queue_root: &Path) -> Threads {
        let path = queue_root.join(THREADS_FILE);
        let mut threads = Threads {
            file: Some(path.clone()),
            ..Threads::default()
        };
        let file: ThreadsFile = super::kept::read(&path, "announcements").unwrap_or_default();
        for a in file.announced {
            let messages = a
                .messages
                .into_iter()
                .map(|(user, id)| (user, MessageId(id)))
                .collect();
            threads.keep(&a.plan, messages, a.settled);
        }
        threads
    }

    /// The messages that announced `plan`, by member.
    #[must_use]
    pub fn of(&self, plan: &str) -> Option<&HashMap<u64, MessageId>> {
        self.sent.get(plan).map(|k| &k.messages)
    }

    /// The plans whose end was not seen to yet, oldest first.
    #[must_use]
    pub fn unsettled(&self) -> Vec<String> {
        self.order
            .iter()
            .filter(|p| self.sent.get(*p).is_some_and(|k| !k.settled))
            .map(ToString::to_string)
            .collect()
    }

    /// Remembers the messages that announced `plan` and writes the file.
    pub async fn remember(&mut self, plan: &str, messages: HashMap<u64, MessageId>) {
        if messages.is_empty() {
            return;
        }
        self.keep(plan, messages, false);
        self.save().await;
    }

    /// Notes that what became of `plans` was seen to, and writes the file.
    pub async fn settle(&mut self, plans: &[String]) {
        let mut changed = false;
        for plan in plans {
            if let Some(kept) = self.sent.get_mut(plan.as_str()) {
                changed |= !kept.settled;
                kept.settled = true;
            }
        }
        if changed {
            self.save().await;
        }
    }

    async fn save(&self) {
        let Some(path) = self.file.clone() else {
            return;
        };
        let file = ThreadsFile {
            version: 1,
            announced: self
                .order
                .iter()
                .filter_map(|plan| {
                    let kept = self.sent.get(plan)?;
                    Some(Announced {
                        plan: plan.to_string(),
                        messages: kept.messages.iter().map(|(u, m)| (*u, m.0)).collect(),
                        settled: kept.settled,
                    })
                })
                .collect(),
        };
        super::kept::write(path, file, "announcements").await;
    }

    fn keep(&mut self, plan: &str, messages: HashMap<u64, MessageId>, settled: bool) {
        let kept = Kept { messages, settled };
        if self.sent.insert(plan.into(), kept).is_none() {
            self.order.push_back(plan.into());
        }
        while self.order.len() > THREADS_KEPT {
            if let Some(old) = self.order.pop_front() {
                self.sent.remove(&old);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn remembered_threads_survive_a_reload_and_garbage_starts_afresh() {
        let dir = tempfile::tempdir().unwrap();
        let mut threads = Threads::load(dir.path());
        assert!(threads.of("a").is_none());
        threads
            .remember("a", HashMap::from([(7, MessageId(41)), (8, MessageId(42))]))
            .await;
        threads.remember("b", HashMap::new()).await;
        let again = Threads::load(dir.path());
        assert_eq!(again.of("a").unwrap()[&7], MessageId(41));
        assert_eq!(again.of("a").unwrap()[&8], MessageId(42));
        assert!(again.of("b").is_none());

        let mut many = Threads::load(dir.path());
        for i in 0..(THREADS_KEPT + 3) {
            many.remember(&format!("p{i}"), HashMap::from([(7, MessageId(1))]))
                .await;
        }
        let kept = Threads::load(dir.path());
        assert!(kept.of("a").is_none(), "the oldest are forgotten");
        assert_eq!(kept.order.len(), THREADS_KEPT);
        assert!(kept.of(&format!("p{}", THREADS_KEPT + 2)).is_some());

        std::fs::write(dir.path().join(THREADS_FILE), b"{not json").unwrap();
        assert!(Threads::load(dir.path()).of("p600").is_none());
    }
}
