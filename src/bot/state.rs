//! What the daemon keeps in memory: the last look at pending/ (briefs for drawing the queue and announcements
//! and resolving button references — every edit re-reads the file), who is typing a custom answer, and what was
//! already announced.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, RwLock};
use std::time::{Instant, SystemTime};

use crate::actions::Actor;
use crate::plan::Brief;
use crate::queue::{Delta, Problem};
use crate::telegram::callback::{PlanRef, plan_ref};

pub use super::snapshot::{QueueOrder, Snapshot};

/// How many submitted plans [`State::completed`] remembers.
const COMPLETED_KEPT: usize = 1000;

/// What a typed reply becomes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reply {
    /// ✏️ Custom: the decision's answer.
    Answer,
    /// 💬 Note: the decision's note (the answer stays).
    Note,
    /// 🔁 Request changes: the owner's request for changes to the whole plan.
    RequestChanges,
}

/// What a typed reply is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// One decision (its answer or note), by id, with its fingerprint as the prompt showed it.
    Decision { id: String, seen: String },
    /// The whole plan, as the review showed its answers (`seen::of_answers`): a request for changes.
    Plan { seen: String },
}

/// The owner asked to type a custom answer (or a note) for this decision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CustomMode {
    pub plan_id: String,
    pub target: Target,
    pub reply: Reply,
    /// The force-reply prompt, so a reply to it is recognised even after other messages.
    pub prompt: Option<i32>,
}

/// A malformed file seen by a scan, and when that version was first seen (warnings wait for it to settle).
#[derive(Debug, Clone)]
pub struct SeenProblem {
    pub version: (u64, Option<SystemTime>),
    pub first_seen: Instant,
    pub warned: bool,
}

/// The daemon's in-memory state, shared by the update workers and the watcher.
#[derive(Debug, Default)]
pub struct State {
    snapshot: RwLock<Snapshot>,
    custom: Mutex<HashMap<u64, CustomMode>>,
    /// Prompts by message id → what they asked for (a reply to an older prompt still answers its decision).
    prompts: Mutex<HashMap<i32, CustomMode>>,
    pub announced: Mutex<HashSet<String>>,
    /// Plans submitted while this daemon ran, by button reference → their file in completed/ (a tap on an old
    /// view of one gets the completion view). Bounded: the oldest are forgotten past [`COMPLETED_KEPT`].
    completed: Mutex<(
        HashMap<PlanRef, PathBuf>,
        std::collections::VecDeque<PlanRef>,
    )>,
    pub problems: Mutex<HashMap<PathBuf, SeenProblem>>,
    /// Fires when a new snapshot differs from the last (the dashboard's live updates listen).
    changes: Changes,
    /// Answers in the making: `multi` toggles until Done, the decision a typed answer is for.
    pub answering: super::answering::Answering,
}

/// "pending/ changed": a broadcast every dashboard page listens to.
#[derive(Debug)]
struct Changes(tokio::sync::broadcast::Sender<()>);

impl Default for Changes {
    fn default() -> Changes {
        Changes(tokio::sync::broadcast::channel(16).0)
    }
}

use crate::sync::lock;

impl State {
    /// Replaces the snapshot; when a plan appeared, changed or went away, [`State::changes`] fires. (Unchanged
    /// files keep their parsed plan, shared from the store's cache, so comparing pointers suffices.)
    pub fn set_snapshot(&self, snapshot: Snapshot) {
        let mut current = self
            .snapshot
            .write()
            .unwrap_or_else(PoisonError::into_inner);
        let same = current.plans.len() == snapshot.plans.len()
            && current
                .plans
                .iter()
                .zip(&snapshot.plans)
                .all(|(a, b)| Arc::ptr_eq(a, b));
        *current = snapshot;
        drop(current);
        if !same {
            let _ = self.changes.0.send(());
        }
    }

    /// Replaces the snapshot with the one after a look that changed what `change` holds ([`Snapshot::after`]: the
    /// button references and the queues drawn are carried over), and fires [`State::changes`].
    pub fn advance_snapshot(&self, change: Delta, sees: impl Fn(Actor, &Brief) -> bool) {
        let mut current = self
            .snapshot
            .write()
            .unwrap_or_else(PoisonError::into_inner);
        let old = std::mem::take(&mut *current);
        *current = old.after(change, sees);
        drop(current);
        let _ = self.changes.0.send(());
    }

    /// The sender whose receivers hear of every change to pending/ the daemon's rescans see.
    #[must_use]
    pub fn changes(&self) -> tokio::sync::broadcast::Sender<()> {
        self.changes.0.clone()
    }

    /// Runs `f` on the current snapshot.
    pub fn with_snapshot<T>(&self, f: impl FnOnce(&Snapshot) -> T) -> T {
        f(&self.snapshot.read().unwrap_or_else(PoisonError::into_inner))
    }

    pub fn start_custom(&self, user: u64, mode: CustomMode) {
        if let Some(p) = mode.prompt {
            lock(&self.prompts).insert(p, mode.clone());
        }
        lock(&self.custom).insert(user, mode);
    }

    /// Ends custom mode for `user`; returns what they were answering.
    pub fn take_custom(&self, user: u64) -> Option<CustomMode> {
        lock(&self.custom).remove(&user)
    }

    #[must_use]
    pub fn custom(&self, user: u64) -> Option<CustomMode> {
        lock(&self.custom).get(&user).cloned()
    }

    #[must_use]
    pub fn prompt(&self, message: i32) -> Option<CustomMode> {
        lock(&self.prompts).get(&message).cloned()
    }

    pub fn forget_prompt(&self, message: i32) {
        lock(&self.prompts).remove(&message);
    }

    /// Remembers that plan `id` was submitted and now sits at `path`.
    pub fn remember_completed(&self, id: &str, path: PathBuf) {
        let mut guard = lock(&self.completed);
        let (by_ref, order) = &mut *guard;
        let r = plan_ref(id);
        if by_ref.insert(r.clone(), path).is_none() {
            order.push_back(r);
        }
        while order.len() > COMPLETED_KEPT {
            if let Some(old) = order.pop_front() {
                by_ref.remove(&old);
            }
        }
    }

    /// Where a plan submitted during this run now is.
    #[must_use]
    pub fn completed(&self, r: &PlanRef) -> Option<PathBuf> {
        lock(&self.completed).0.get(r).cloned()
    }

    pub fn lock_announced(&self) -> MutexGuard<'_, HashSet<String>> {
        lock(&self.announced)
    }

    pub fn lock_problems(&self) -> MutexGuard<'_, HashMap<PathBuf, SeenProblem>> {
        lock(&self.problems)
    }
}

/// Problems worth a warning now: seen with the same version for at least `settle` (a file still being written
/// is not malformed, just unfinished). Marks them warned so each version is reported once.
pub fn problems_to_warn(
    state: &State,
    problems: &[Problem],
    now: Instant,
    settle: std::time::Duration,
) -> Vec<Problem> {
    let mut seen = state.lock_problems();
    let current: HashSet<&PathBuf> = problems.iter().map(|p| &p.path).collect();
    seen.retain(|path, _| current.contains(path));
    let mut out = Vec::new();
    for p in problems {
        let entry = seen.entry(p.path.clone()).or_insert(SeenProblem {
            version: p.version,
            first_seen: now,
            warned: false,
        });
        if entry.version != p.version {
            *entry = SeenProblem {
                version: p.version,
                first_seen: now,
                warned: false,
            };
        }
        if !entry.warned && now.duration_since(entry.first_seen) >= settle {
            entry.warned = true;
            out.push(p.clone());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::Outline;
    use crate::queue::Listed;

    fn loaded(id: &str, priority: &str) -> Arc<Listed> {
        let text = format!(
            "---\nid: {id}\ntitle: {id}\npriority: {priority}\n---\n# {id}\n\n## Decision 1: D\n\n**Options:**\n- `a` — A\n"
        );
        Arc::new(Listed {
            path: PathBuf::from(format!("{id}.md")),
            brief: Brief::of(&crate::plan::parse(&text, id).unwrap()),
        })
    }

    #[test]
    fn each_actor_gets_their_own_queue_once_per_snapshot() {
        let s = Snapshot::new(vec![
            loaded("a", "low"),
            loaded("b", "urgent"),
            loaded("c", "normal"),
        ]);
        let ids = |q: &QueueOrder| -> Vec<String> {
            q.order
                .iter()
                .map(|&i| s.plans[i].brief.id().to_owned())
                .collect()
        };
        let everything = s.queue_order(Actor::User(1), |plans| (0..plans.len()).collect());
        assert_eq!(ids(&everything), ["b", "c", "a"]);
        assert_eq!(everything.counts, "🔴 1 urgent │ 🟡 1 normal │ ⚪ 1 low");
        // Another actor, another filter: not the first actor's order.
        let some = s.queue_order(Actor::User(2), |plans| {
            (0..plans.len()).filter(|&i| plans[i].id() != "b").collect()
        });
        assert_eq!(ids(&some), ["c", "a"]);
        assert_eq!(some.counts, "🟡 1 normal │ ⚪ 1 low");
        // The same actor again in this snapshot: kept, the filter is not asked again.
        let again = s.queue_order(Actor::User(1), |_| unreachable!("computed once"));
        assert!(Arc::ptr_eq(&again, &everything));
    }
}
