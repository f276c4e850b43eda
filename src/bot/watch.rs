//! Looks at pending/: the watcher's signals (and the commands that must show what is on disk now) bring the
//! snapshot up to date; what is new is decided by comparing plan ids with what was already announced, and
//! queued for the announcer.

use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::mpsc;

use crate::actions::Actor;
use crate::plan::Plan;
use crate::queue::watcher::{Changed, Signals};
use crate::queue::{Loaded, Problem, Scan, StoreError};
use crate::telegram::callback::PlanRef;
use crate::telegram::views::{self, View};

use super::context::Ctx;
use super::notice::Notice;
use super::state::{QueueOrder, Snapshot, problems_to_warn};

/// A malformed file is reported once it has stayed the same this long (it may just be half written).
const PROBLEM_SETTLE: Duration = Duration::from_millis(1500);
/// Events come before the write is finished; a short pause lets a burst of them settle into one rescan.
const EVENT_SETTLE: Duration = Duration::from_millis(5);

impl Ctx {
    /// Rescans pending/ into the snapshot (file I/O off the async threads).
    pub async fn rescan(&self) -> Result<(), StoreError> {
        // Once the watcher runs, a rescan is a look at the whole folder: plans it finds for the first time are
        // announced like any other (the look decides what is new against the snapshot it replaces).
        if let Some(looks) = &self.looks {
            looks.changes.everything();
            self.look().await;
            return Ok(());
        }
        let queue = self.queue().clone();
        let scan = tokio::task::spawn_blocking(move || queue.scan_pending())
            .await
            .map_err(|e| StoreError::Io {
                path: self.queue().pending_dir(),
                source: std::io::Error::other(e),
            })??;
        let mut scan = scan;
        self.admit(&mut scan);
        self.state.set_snapshot(Snapshot::new(scan.plans));
        Ok(())
    }

    /// Plans naming people the bot can't reach are malformed for this configuration: they move from the scan's
    /// plans to its problems (warned and skipped like any other malformed file).
    pub fn admit(&self, scan: &mut Scan) {
        let access = self.actions.access();
        let mut problems = Vec::new();
        scan.plans.retain(|l| match access.unknown_people(&l.plan) {
            None => true,
            Some(diagnostic) => {
                let version = std::fs::metadata(&l.path)
                    .map(|m| (m.len(), m.modified().ok()))
                    .unwrap_or((0, None));
                problems.push(Problem {
                    diagnostic: diagnostic.in_file(&l.path),
                    path: l.path.clone(),
                    version,
                });
                false
            }
        });
        scan.problems.extend(problems);
    }

    /// The id of the pending plan a button refers to (the snapshot maps references to ids; a plan newer than the
    /// last scan triggers a rescan). `None`: no such plan is pending.
    pub async fn resolve(&self, r: &PlanRef) -> Option<String> {
        let id = self
            .state
            .with_snapshot(|s| s.by_ref(r).map(|l| l.plan.id.clone()));
        if id.is_some() {
            return id;
        }
        if let Err(e) = self.rescan().await {
            tracing::warn!(error = %e, "rescan failed");
        }
        self.state
            .with_snapshot(|s| s.by_ref(r).map(|l| l.plan.id.clone()))
    }

    /// Brings the snapshot up to date with every change the watcher has seen (the files an event named, or the
    /// whole folder after a poll tick), announcing new plans; waits for a look already under way.
    pub async fn look(&self) {
        let Some(looks) = &self.looks else { return };
        let _one_at_a_time = looks.busy.lock().await;
        let changed = looks.changes.take();
        if !changed.is_nothing() {
            look(self, changed, &looks.notices).await;
        }
    }

    /// The queue view `actor` may see, from the snapshot after a [`Ctx::look`]: only files the watcher saw change
    /// are read while the owner waits.
    pub async fn queue_view(&self, actor: Actor, page: usize) -> View {
        self.look().await;
        self.state.with_snapshot(|s| {
            let queue = self.queue_order(s, actor);
            let sorted: Vec<&Plan> = queue.order.iter().map(|&i| &s.plans[i].plan).collect();
            let view = views::queue_page(&sorted, &queue.counts, page, chrono::Utc::now());
            views::with_dashboard(view, self.dashboard.as_ref())
        })
    }

    /// `actor`'s queue in snapshot `s` (drawn once per snapshot).
    fn queue_order(&self, s: &Snapshot, actor: Actor) -> Arc<QueueOrder> {
        let access = self.actions.access();
        s.queue_order(actor, |plans| {
            (0..plans.len())
                .filter(|&i| access.sees(actor, plans[i]))
                .collect()
        })
    }

    /// Draws every member's queue and the button references for the current snapshot ahead of their next use
    /// (after a look, off the owner's wait).
    pub fn warm_queues(&self) {
        self.state.with_snapshot(|s| {
            s.refs();
            for user in self.actions.access().members() {
                self.queue_order(s, Actor::User(user));
            }
        });
    }
}

/// The start-up scan, before the daemon polls: what is pending now gets one summary, not one message each.
pub fn initial_scan(ctx: &Ctx, scan: Scan, notices: &mpsc::UnboundedSender<Notice>) {
    let new = absorb(ctx, scan, notices);
    if !new.is_empty() {
        let _ = notices.send(Notice::Startup(new));
    }
}

/// Rescans on every watcher signal, updates the snapshot, and queues notices for the announcer.
pub async fn watch_loop(ctx: Ctx, mut signals: Signals) {
    while signals.wait().await {
        tokio::time::sleep(EVENT_SETTLE).await;
        ctx.look().await;
    }
}

/// Looks at what changed in pending/ (the files named, or everything): updates the snapshot, reports settled
/// problems and announces plans never seen before.
pub async fn look(ctx: &Ctx, changed: Changed, notices: &mpsc::UnboundedSender<Notice>) {
    let queue = ctx.queue().clone();
    let scan = match tokio::task::spawn_blocking(move || match changed {
        Changed::Everything => queue.scan_pending(),
        Changed::Paths(paths) => queue.scan_changed(&paths),
    })
    .await
    {
        Ok(Ok(scan)) => scan,
        Ok(Err(e)) => {
            tracing::warn!(error = %e, "scan of pending/ failed");
            return;
        }
        Err(e) => {
            tracing::error!(error = %e, "scan task failed");
            return;
        }
    };
    let new = absorb(ctx, scan, notices);
    if !new.is_empty() {
        for p in &new {
            tracing::info!(plan = %p.plan.id, priority = %p.plan.priority, "new plan");
        }
        let _ = notices.send(Notice::New(new));
    }
    // Off the async threads: with thousands of plans this is a few milliseconds per member.
    let warm = ctx.clone();
    let _ = tokio::task::spawn_blocking(move || warm.warm_queues()).await;
}

/// Takes a scan into the snapshot and reports settled problems; returns the plans never seen before.
fn absorb(ctx: &Ctx, mut scan: Scan, notices: &mpsc::UnboundedSender<Notice>) -> Vec<Arc<Loaded>> {
    ctx.admit(&mut scan);
    // Only plans the snapshot does not hold (as the same read) can be new: a look at one dropped file among
    // thousands checks one id against what was announced, not thousands.
    let (changed, fresh) = ctx
        .state
        .with_snapshot(|s| differences(&s.plans, &scan.plans));
    let new: Vec<Arc<Loaded>> = {
        let mut announced = ctx.state.lock_announced();
        fresh
            .into_iter()
            .filter(|l| announced.insert(announce_key(&l.plan)))
            .collect()
    };
    for p in problems_to_warn(&ctx.state, &scan.problems, Instant::now(), PROBLEM_SETTLE) {
        tracing::warn!(file = %p.path.display(), reason = %p.diagnostic, "malformed plan skipped");
        let _ = notices.send(Notice::Problem(p));
    }
    // A look that changed nothing keeps the snapshot (and the queues drawn from it).
    if changed {
        ctx.state.set_snapshot(Snapshot::new(scan.plans));
    }
    new
}

/// What the announced set remembers of a plan: its id, and for a revision (`revision` > 1) its number too, so
/// that each revision the agent pushes is announced once.
fn announce_key(plan: &crate::plan::Plan) -> String {
    if plan.revision > 1 {
        format!("{}\0r{}", plan.id, plan.revision)
    } else {
        plan.id.clone()
    }
}

/// The plans of `now` that `before` does not hold as the same read (the same `Arc`), and whether the two differ
/// at all. Both are in path order (a scan's order), so one walk compares them; a plan out of that order is only
/// reported as fresh, which the announced set then filters.
fn differences(before: &[Arc<Loaded>], now: &[Arc<Loaded>]) -> (bool, Vec<Arc<Loaded>>) {
    let mut fresh = Vec::new();
    let mut i = 0;
    for plan in now {
        if before.get(i).is_some_and(|b| Arc::ptr_eq(b, plan)) {
            i += 1;
            continue;
        }
        while before.get(i).is_some_and(|b| b.path < plan.path) {
            i += 1;
        }
        if before.get(i).is_some_and(|b| Arc::ptr_eq(b, plan)) {
            i += 1;
        } else {
            fresh.push(Arc::clone(plan));
        }
    }
    (!fresh.is_empty() || before.len() != now.len(), fresh)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::Location;
    use std::path::PathBuf;

    fn loaded(id: &str) -> Arc<Loaded> {
        let text =
            format!("---\nid: {id}\n---\n# {id}\n\n## Decision 1: D\n\n**Options:**\n- `a` — A\n");
        Arc::new(Loaded {
            path: PathBuf::from(format!("{id}.md")),
            plan: crate::plan::parse(&text, id).unwrap(),
            location: Location::Pending,
        })
    }

    fn ids(plans: &[Arc<Loaded>]) -> Vec<&str> {
        plans.iter().map(|l| l.plan.id.as_str()).collect()
    }

    #[test]
    fn only_plans_not_held_as_the_same_read_are_fresh() {
        let before: Vec<_> = ["a", "c", "e"].into_iter().map(loaded).collect();
        let (changed, fresh) = differences(&before, &before.clone());
        assert!(!changed && fresh.is_empty());
        // A dropped plan between two others, and one re-read (a new Arc for the same file).
        let now = vec![
            Arc::clone(&before[0]),
            loaded("b"),
            loaded("c"),
            Arc::clone(&before[2]),
        ];
        let (changed, fresh) = differences(&before, &now);
        assert!(changed);
        assert_eq!(ids(&fresh), ["b", "c"]);
        // A plan gone, nothing new.
        let now = vec![Arc::clone(&before[0]), Arc::clone(&before[2])];
        let (changed, fresh) = differences(&before, &now);
        assert!(changed && fresh.is_empty());
        // From nothing (the start): every plan is fresh.
        assert_eq!(ids(&differences(&[], &before).1), ["a", "c", "e"]);
    }
}
