//! Looks at pending/: the watcher's signals (and the commands that must show what is on disk now) bring the
//! snapshot up to date; what is new is decided by comparing plan ids with what was already announced, and
//! queued for the announcer. A look costs what changed: the store says which files changed, the snapshot takes
//! those out and puts them in ([`Snapshot::after`]).

use std::cell::Cell;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::mpsc;

use crate::actions::Actor;
use crate::plan::{Brief, Diagnostic, Outline};
use crate::queue::watcher::Signals;
use crate::queue::{Briefs, Delta, Listed, Listing, Problem, Scan, StoreError};
use crate::telegram::callback::PlanRef;
use crate::telegram::views::{self, View};

use super::context::{Ctx, Looks};
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
            self.look_named().await;
            self.look_everything(true).await;
            return Ok(());
        }
        let queue = self.queue().clone();
        let mut all = tokio::task::spawn_blocking(move || queue.briefs_settled())
            .await
            .map_err(|e| StoreError::Io {
                path: self.queue().pending_dir(),
                source: std::io::Error::other(e),
            })??;
        self.admit_all(&mut all);
        self.state
            .set_snapshot(Snapshot::new(all.plans).with_problems(all.problems));
        Ok(())
    }

    /// Plans naming people the bot can't reach are malformed for this configuration: they move from the scan's
    /// plans to its problems (warned and skipped like any other malformed file).
    pub fn admit(&self, scan: &mut Scan) {
        let access = self.actions.access();
        let rejected = reject(&mut scan.plans, |l| {
            (&l.path, access.unknown_people(&l.plan))
        });
        scan.problems.extend(rejected);
    }

    /// [`Ctx::admit`] for the briefs of every pending plan.
    pub fn admit_all(&self, all: &mut Briefs) {
        let access = self.actions.access();
        let rejected = reject(&mut all.plans, |l| {
            (&l.path, access.unknown_people(&l.brief))
        });
        all.problems.extend(rejected);
    }

    /// [`Ctx::admit`] for a look's change: only the plans it read are checked.
    fn admit_change(&self, change: &mut Delta) {
        let access = self.actions.access();
        let rejected = reject(&mut change.plans, |l| {
            (&l.path, access.unknown_people(&l.brief))
        });
        change.problems.extend(rejected);
    }

    /// The id of the pending plan a button refers to (the snapshot maps references to ids; a plan newer than the
    /// last scan triggers a rescan). `None`: no such plan is pending.
    pub async fn resolve(&self, r: &PlanRef) -> Option<String> {
        let id = self
            .state
            .with_snapshot(|s| s.by_ref(r).map(|l| l.brief.id().to_owned()));
        if id.is_some() {
            return id;
        }
        if let Err(e) = self.rescan().await {
            tracing::warn!(error = %e, "rescan failed");
        }
        self.state
            .with_snapshot(|s| s.by_ref(r).map(|l| l.brief.id().to_owned()))
    }

    /// Looks at the files events named since the last look (waits for a look under way, never for a listing).
    pub async fn look_named(&self) {
        let Some(looks) = &self.looks else { return };
        let _one_at_a_time = looks.busy.lock().await;
        let named = looks.changes.take_paths();
        // A tap, a page or a command may have looked at a file since (and found it changed or gone) before the
        // watcher's event reached this look: the store remembers, and the look takes it in.
        if !named.is_empty() || self.queue().has_unreported() {
            look(self, Look::Named(named), &looks.notices).await;
        }
    }

    /// Looks at the whole folder while a look at it is asked (a poll tick, an event without paths, a rescan). The
    /// folder is listed before the look lock is taken, by one task at a time: a look at the files events name never
    /// waits behind a listing of thousands (the safety-net rescan's, every `watchInterval`). `wait`: when another
    /// task is listing, wait for it and look again if still asked (else leave the request to it).
    async fn look_everything(&self, wait: bool) {
        let Some(looks) = &self.looks else { return };
        loop {
            let listing = if wait {
                looks.listing.lock().await
            } else {
                match looks.listing.try_lock() {
                    Ok(guard) => guard,
                    Err(_) => return,
                }
            };
            while let Some(asked) = looks.changes.everything_asked() {
                let (queue, waits_for) = (self.queue().clone(), Arc::clone(looks));
                let listed = tokio::task::spawn_blocking(move || {
                    let paused = Cell::new(Duration::ZERO);
                    queue.list_pending_giving_way(|| give_way(&waits_for, &paused))
                })
                .await;
                let _one_at_a_time = looks.busy.lock().await;
                let named = looks.changes.take_listed(asked);
                match listed {
                    Ok(Ok(listing)) => {
                        look(self, Look::Listed(listing, named), &looks.notices).await
                    }
                    failed => {
                        match failed {
                            Ok(Err(e)) => tracing::warn!(error = %e, "listing of pending/ failed"),
                            _ => tracing::error!("listing task failed"),
                        }
                        if !named.is_empty() {
                            look(self, Look::Named(named), &looks.notices).await;
                        }
                        return;
                    }
                }
            }
            drop(listing);
            // A request that came as this listing ended, from a task that found the listing taken, is ours.
            if looks.changes.everything_asked().is_none() {
                return;
            }
        }
    }

    /// Starts a look at the whole folder on a task of its own when one is asked and no listing is under way: the
    /// watcher's loop goes on looking at the files events name meanwhile.
    fn look_everything_aside(&self) {
        let Some(looks) = &self.looks else { return };
        if looks.changes.everything_asked().is_some() && looks.listing.try_lock().is_ok() {
            let ctx = self.clone();
            tokio::spawn(async move { ctx.look_everything(false).await });
        }
    }

    /// The queue view `actor` may see, from the snapshot after a look at the files events named: only files the
    /// watcher saw change are read while the owner waits (the whole folder is the watcher loop's to list).
    pub async fn queue_view(&self, actor: Actor, page: usize) -> View {
        self.look_named().await;
        self.state.with_snapshot(|s| {
            let queue = self.queue_order(s, actor);
            let sorted: Vec<&Brief> = queue.order.iter().map(|&i| &s.plans[i].brief).collect();
            let view = views::queue_page(&sorted, &queue.counts, page, chrono::Utc::now());
            views::with_dashboard(view, self.dashboard.as_ref())
        })
    }

    /// `actor`'s queue in snapshot `s` (drawn once per snapshot, then carried from look to look).
    fn queue_order(&self, s: &Snapshot, actor: Actor) -> Arc<QueueOrder> {
        let access = self.actions.access();
        s.queue_order(actor, |plans| {
            (0..plans.len())
                .filter(|&i| access.sees(actor, plans[i]))
                .collect()
        })
    }

    /// Draws every member's queue and the button references for the current snapshot ahead of their next use
    /// (after a look, off the owner's wait; carried over from the last snapshot, they are there already).
    pub fn warm_queues(&self) {
        self.state.with_snapshot(|s| {
            s.refs();
            for user in self.actions.access().members() {
                self.queue_order(s, Actor::User(user));
            }
        });
    }
}

/// How long one safety-net listing may pause in all for looks at the files events named (a stream of events never
/// holds the listing back for long).
const GIVE_WAY_AT_MOST: Duration = Duration::from_millis(50);
/// How long the listing sleeps before it looks again whether it may go on.
const GIVE_WAY_STEP: Duration = Duration::from_micros(500);

/// Called by the safety-net listing between files: while events named files no look has taken yet, or a look at
/// them is under way, the listing pauses (`paused`: for how long so far), so that a dropped file is announced with
/// the CPU to itself rather than beside a `stat` of every file of a large queue.
fn give_way(looks: &Looks, paused: &Cell<Duration>) {
    while paused.get() < GIVE_WAY_AT_MOST
        && (looks.changes.named_waiting() || looks.busy.try_lock().is_err())
    {
        std::thread::sleep(GIVE_WAY_STEP);
        paused.set(paused.get() + GIVE_WAY_STEP);
    }
}

/// Takes the plans `check` finds naming people the bot can't reach out of `plans`, as problems.
fn reject<T>(
    plans: &mut Vec<T>,
    check: impl Fn(&T) -> (&Path, Option<Diagnostic>),
) -> Vec<Problem> {
    let mut problems = Vec::new();
    plans.retain(|l| match check(l) {
        (_, None) => true,
        (path, Some(diagnostic)) => {
            let version = std::fs::metadata(path)
                .map(|m| (m.len(), m.modified().ok()))
                .unwrap_or((0, None));
            problems.push(Problem {
                diagnostic: diagnostic.in_file(path),
                path: path.to_owned(),
                version,
            });
            false
        }
    });
    problems
}

/// The start-up scan, before the daemon polls: what is pending now gets one summary, not one message each.
pub fn initial_scan(ctx: &Ctx, all: Briefs, notices: &mpsc::UnboundedSender<Notice>) {
    let new = absorb(ctx, all, notices);
    if !new.is_empty() {
        let _ = notices.send(Notice::Startup(new));
    }
}

/// Looks on every watcher signal (at the files events named; at the whole folder aside, when asked), updates the
/// snapshot, and queues notices for the announcer.
pub async fn watch_loop(ctx: Ctx, mut signals: Signals) {
    while signals.wait().await {
        tokio::time::sleep(EVENT_SETTLE).await;
        // Each round in a task of its own: a panic in a look (a bug) is logged and the loop goes on watching.
        let round = ctx.clone();
        let looked = tokio::spawn(async move {
            round.look_named().await;
            round.look_everything_aside();
        })
        .await;
        if let Err(e) = looked {
            tracing::error!(error = %e, "a look at pending/ failed; watching on");
        }
    }
}

/// What a look looks at.
enum Look {
    /// The files events named.
    Named(Vec<PathBuf>),
    /// The whole folder as listed (before the look began), and the files events named since.
    Listed(Listing, Vec<PathBuf>),
}

/// Looks at what changed in pending/ (the files named, or everything): updates the snapshot, reports settled
/// problems and announces plans never seen before.
async fn look(ctx: &Ctx, wanted: Look, notices: &mpsc::UnboundedSender<Notice>) {
    let queue = ctx.queue().clone();
    let change = match tokio::task::spawn_blocking(move || match wanted {
        Look::Named(paths) => queue.look_at(&paths),
        Look::Listed(listing, named) => queue.look_listed(listing, &named),
    })
    .await
    {
        Ok(Ok(change)) => change,
        Ok(Err(e)) => {
            tracing::warn!(error = %e, "scan of pending/ failed");
            return;
        }
        Err(e) => {
            tracing::error!(error = %e, "scan task failed");
            return;
        }
    };
    let new = absorb_change(ctx, change, notices);
    if !new.is_empty() {
        for p in &new {
            tracing::info!(plan = %p.brief.id(), priority = %p.brief.priority(), "new plan");
        }
        let _ = notices.send(Notice::New(new));
    }
    // Off the async threads: the queues are carried over from the last snapshot, but a member's first, or the
    // button references after a plan with a shared id left, are drawn over every plan.
    let warm = ctx.clone();
    let _ = tokio::task::spawn_blocking(move || warm.warm_queues()).await;
}

/// Takes every pending plan's brief into the snapshot and reports settled problems; returns the plans never
/// seen before.
fn absorb(ctx: &Ctx, mut all: Briefs, notices: &mpsc::UnboundedSender<Notice>) -> Vec<Arc<Listed>> {
    ctx.admit_all(&mut all);
    // Only plans the snapshot does not hold (as the same read) can be new: a look at one dropped file among
    // thousands checks one id against what was announced, not thousands.
    let (changed, fresh) = ctx
        .state
        .with_snapshot(|s| differences(&s.plans, &all.plans));
    let new = first_seen(ctx, fresh);
    warn(ctx, &all.problems, notices);
    // A scan that changed no plan keeps the snapshot (and the queues drawn from it), unless its problems differ.
    let same_problems = ctx
        .state
        .with_snapshot(|s| s.problems().eq(all.problems.iter()));
    if changed || !same_problems {
        ctx.state
            .set_snapshot(Snapshot::new(all.plans).with_problems(all.problems));
    }
    new
}

/// Takes what a look changed into the snapshot and reports settled problems; returns the plans never seen
/// before. Costs what changed: the plans read are checked and placed, the rest of the snapshot is carried over.
fn absorb_change(
    ctx: &Ctx,
    mut change: Delta,
    notices: &mpsc::UnboundedSender<Notice>,
) -> Vec<Arc<Listed>> {
    ctx.admit_change(&mut change);
    // Every plan a look read is new to the snapshot (a new file or a new version): only its id is checked
    // against what was announced.
    let new = first_seen(ctx, change.plans.clone());
    // A look that changed nothing keeps the snapshot (and the queues drawn from it).
    if !change.changed.is_empty() {
        let left = leaving(ctx, &change);
        let access = ctx.actions.access();
        ctx.state
            .advance_snapshot(change, |actor, plan| access.sees(actor, plan));
        gone_from_pending(ctx, left, notices);
    }
    let problems: Vec<Problem> = ctx.state.with_snapshot(|s| s.problems().cloned().collect());
    warn(ctx, &problems, notices);
    new
}

/// The plans (id, revision) the snapshot holds at the files `change` names that `change` does not bring back.
fn leaving(ctx: &Ctx, change: &Delta) -> Vec<(String, u32)> {
    ctx.state.with_snapshot(|s| {
        change
            .changed
            .iter()
            .filter_map(|path| {
                let i = s.plans.binary_search_by(|l| l.path.cmp(path)).ok()?;
                let brief = &s.plans[i].brief;
                let back = change.plans.iter().any(|l| l.brief.id() == brief.id());
                (!back).then(|| (brief.id().to_owned(), brief.revision()))
            })
            .collect()
    })
}

/// Plans that left the snapshot: one still pending under another name stays; one an action took out (completed,
/// withdrawn) is remembered so a tap on an old view of it shows what became of it; one nobody took out was
/// deleted by hand, and the trail records it (off the async threads: it reads and writes files).
fn gone_from_pending(ctx: &Ctx, left: Vec<(String, u32)>, notices: &mpsc::UnboundedSender<Notice>) {
    let left: Vec<(String, u32)> = left
        .into_iter()
        .filter(|(id, _)| {
            !ctx.state
                .with_snapshot(|s| s.plans.iter().any(|l| l.brief.id() == id))
        })
        .collect();
    if left.is_empty() {
        return;
    }
    let (ctx, notices) = (ctx.clone(), notices.clone());
    tokio::task::spawn_blocking(move || {
        for (id, revision) in left {
            if let Some(found) = ctx.actions.noticed_gone(&id, revision)
                && found.location == crate::queue::Location::Completed
            {
                if found.plan.status == crate::plan::PlanStatus::Withdrawn {
                    let _ = notices.send(Notice::Withdrawn(found.plan));
                } else {
                    let _ = notices.send(Notice::Ended(id.clone()));
                }
                ctx.state.remember_completed(&id, found.path);
            }
        }
    });
}

/// The plans among `fresh` never announced (now marked announced).
fn first_seen(ctx: &Ctx, fresh: Vec<Arc<Listed>>) -> Vec<Arc<Listed>> {
    let mut announced = ctx.state.lock_announced();
    fresh
        .into_iter()
        .filter(|l| announced.insert(announce_key(&l.brief)))
        .collect()
}

/// Warns about the problems among `problems` (every file of pending/ that is no plan now) that have settled.
fn warn(ctx: &Ctx, problems: &[Problem], notices: &mpsc::UnboundedSender<Notice>) {
    for p in problems_to_warn(&ctx.state, problems, Instant::now(), PROBLEM_SETTLE) {
        tracing::warn!(file = %p.path.display(), reason = %p.diagnostic, "malformed plan skipped");
        let _ = notices.send(Notice::Problem(p));
    }
}

/// What the announced set remembers of a plan: its id, and for a revision (`revision` > 1) its number too, so
/// that each revision the agent pushes is announced once.
fn announce_key(plan: &impl Outline) -> String {
    if plan.revision() > 1 {
        format!("{}\0r{}", plan.id(), plan.revision())
    } else {
        plan.id().to_owned()
    }
}

/// The plans of `now` that `before` does not hold as the same read (the same `Arc`), and whether the two differ
/// at all. Both are in path order (a scan's order), so one walk compares them; a plan out of that order is only
/// reported as fresh, which the announced set then filters.
fn differences(before: &[Arc<Listed>], now: &[Arc<Listed>]) -> (bool, Vec<Arc<Listed>>) {
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

    fn loaded(id: &str) -> Arc<Listed> {
        let text =
            format!("---\nid: {id}\n---\n# {id}\n\n## Decision 1: D\n\n**Options:**\n- `a` — A\n");
        Arc::new(Listed {
            path: PathBuf::from(format!("{id}.md")),
            brief: Brief::of(&crate::plan::parse(&text, id).unwrap()),
        })
    }

    fn ids(plans: &[Arc<Listed>]) -> Vec<&str> {
        plans.iter().map(|l| l.brief.id()).collect()
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
