//! New plans → messages to their approvers (every allowed user unless a plan names `approvers`). The watcher only triggers rescans; what is new is decided by
//! comparing plan ids with what was already announced. Announcements run on their own task so a command or a
//! tap never waits behind them, and bursts are folded into one message (Telegram allows ~1 message/s per chat).

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::{Duration, Instant};

use teloxide::types::ChatId;
use tokio::sync::mpsc;

use crate::plan::{Plan, Priority};
use crate::queue::watcher::{Changed, Signals};
use crate::queue::{Loaded, Problem, Scan};
use crate::telegram::views;

use super::api::Patience;
use super::context::Ctx;
use super::state::{Snapshot, problems_to_warn};

/// Individual announcements allowed within [`BURST_WINDOW`] before the rest are folded into one message.
const BURST_LIMIT: usize = 3;
const BURST_WINDOW: Duration = Duration::from_secs(2);
/// A malformed file is reported once it has stayed the same this long (it may just be half written).
const PROBLEM_SETTLE: Duration = Duration::from_millis(1500);
/// Events come before the write is finished; a short pause lets a burst of them settle into one rescan.
const EVENT_SETTLE: Duration = Duration::from_millis(5);

/// What the announcer task is asked to send.
#[derive(Debug)]
pub enum Notice {
    /// Shared with the store's cache and the snapshot: a notice about thousands of plans copies none.
    Startup(Vec<Arc<Loaded>>),
    New(Vec<Arc<Loaded>>),
    Problem(Problem),
    /// `remind_every` passed (folded with other announcements in a burst, like new plans).
    Reminder(Arc<Loaded>),
    /// `escalate_after` passed: the plan goes to these users.
    Escalated(Plan, Vec<u64>),
    /// The deadline submitted the plan.
    DeadlineSubmitted(Plan),
    /// The daily digest for this local date is due.
    Digest(chrono::NaiveDate),
}

/// Why a plan is announced: it is new, or it is a reminder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Heads {
    New,
    Reminder,
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
            .filter(|l| !announced.contains(&l.plan.id) && announced.insert(l.plan.id.clone()))
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

/// Sends notices to every allowed user, folding bursts of new plans (and of reminders) into one message each.
pub async fn announcer(ctx: Ctx, mut notices: mpsc::UnboundedReceiver<Notice>) {
    let mut recent: VecDeque<Instant> = VecDeque::new();
    let mut held: Vec<(Heads, Arc<Loaded>)> = Vec::new();
    loop {
        let notice = if held.is_empty() {
            notices.recv().await
        } else {
            let until = recent.front().map_or(Instant::now(), |t| *t + BURST_WINDOW);
            match tokio::time::timeout_at(until.into(), notices.recv()).await {
                Ok(n) => n,
                Err(_) => {
                    let burst = std::mem::take(&mut held);
                    for heads in [Heads::New, Heads::Reminder] {
                        let plans: Vec<&Plan> = burst
                            .iter()
                            .filter(|(h, _)| *h == heads)
                            .map(|(_, l)| &l.plan)
                            .collect();
                        if !plans.is_empty() {
                            let silent = quiet(&ctx, plans.iter().copied());
                            to_approvers(&ctx, &plans, |p| burst_view(heads, p), silent).await;
                        }
                    }
                    recent.clear();
                    recent.push_back(Instant::now());
                    continue;
                }
            }
        };
        let Some(notice) = notice else { break };
        match notice {
            Notice::Startup(plans) => {
                let plans: Vec<&Plan> = plans.iter().map(|l| &l.plan).collect();
                let silent =
                    quiet_hours(&ctx) && !plans.iter().any(|p| p.priority == Priority::Urgent);
                to_approvers(&ctx, &plans, views::startup_summary, silent).await;
            }
            Notice::Problem(p) => {
                let name = p
                    .path
                    .file_name()
                    .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
                broadcast(
                    &ctx,
                    &views::problem(&name, &p.diagnostic.reason_with_line()),
                    true,
                )
                .await;
            }
            Notice::New(plans) => {
                let items = plans.into_iter().map(|p| (Heads::New, p)).collect();
                announce(&ctx, &mut recent, &mut held, items).await;
            }
            Notice::Reminder(plan) => {
                announce(&ctx, &mut recent, &mut held, vec![(Heads::Reminder, plan)]).await;
            }
            Notice::Escalated(plan, users) => {
                let view = views::nudge(&plan, views::Nudge::Escalated, chrono::Utc::now());
                let silent = quiet(&ctx, [&plan]);
                send_to(&ctx, users, &view, silent).await;
            }
            Notice::DeadlineSubmitted(plan) => {
                let silent = quiet(&ctx, [&plan]);
                let view = |plans: &[&Plan]| views::deadline_submitted(plans[0]);
                to_approvers(&ctx, &[&plan], view, silent).await;
            }
            Notice::Digest(today) => digest(&ctx, today).await,
        }
    }
}

/// Sends each item at once while fewer than [`BURST_LIMIT`] went out in the last [`BURST_WINDOW`]; holds the
/// rest for one folded message.
async fn announce(
    ctx: &Ctx,
    recent: &mut VecDeque<Instant>,
    held: &mut Vec<(Heads, Arc<Loaded>)>,
    items: Vec<(Heads, Arc<Loaded>)>,
) {
    let now = Instant::now();
    while recent
        .front()
        .is_some_and(|t| now.duration_since(*t) > BURST_WINDOW)
    {
        recent.pop_front();
    }
    for (heads, plan) in items {
        if held.is_empty() && recent.len() < BURST_LIMIT {
            recent.push_back(Instant::now());
            let silent = quiet(ctx, [&plan.plan]);
            let view = |plans: &[&Plan]| burst_view(heads, plans);
            to_approvers(ctx, &[&plan.plan], view, silent).await;
        } else {
            held.push((heads, plan));
        }
    }
}

fn burst_view(heads: Heads, plans: &[&Plan]) -> views::View {
    let now = chrono::Utc::now();
    match (heads, plans) {
        (Heads::New, [one]) => views::announcement(one),
        (Heads::Reminder, [one]) => views::nudge(one, views::Nudge::Reminder, now),
        (Heads::New, _) => views::announcement_burst(plans),
        (Heads::Reminder, _) => views::nudge_burst(plans, now),
    }
}

/// Whether a message about `plans` goes out silently: low priority only, or quiet hours with nothing urgent.
fn quiet<'a>(ctx: &Ctx, plans: impl IntoIterator<Item = &'a Plan>) -> bool {
    let plans: Vec<&Plan> = plans.into_iter().collect();
    plans.iter().all(|p| p.priority == Priority::Low)
        || (quiet_hours(ctx) && !plans.iter().any(|p| p.priority == Priority::Urgent))
}

fn quiet_hours(ctx: &Ctx) -> bool {
    ctx.quiet.as_ref().is_some_and(|q| q.now())
}

/// Each member's digest: the plans they may see. Silent in quiet hours (never held back: it is the owner's
/// chosen time, and a digest caught up at start is about now).
async fn digest(ctx: &Ctx, today: chrono::NaiveDate) {
    let silent = quiet_hours(ctx);
    let members: Vec<u64> = ctx.actions.access().members().collect();
    for user in members {
        match super::stats::digest_view(ctx, user, today).await {
            Ok(view) => send_to(ctx, vec![user], &view, silent).await,
            Err(e) => tracing::error!(user, error = %e, "can't read the queue for the digest"),
        }
    }
}

/// Sends each member the view `make` draws of the plans among `plans` whose messages they get (their
/// approvers, and escalated people once escalated); members who get none of them get nothing.
async fn to_approvers(
    ctx: &Ctx,
    plans: &[&Plan],
    make: impl Fn(&[&Plan]) -> views::View,
    silent: bool,
) {
    let access = ctx.actions.access();
    let members: Vec<u64> = access.members().collect();
    for user in members {
        let theirs: Vec<&Plan> = plans
            .iter()
            .copied()
            .filter(|p| access.receives(user, p))
            .collect();
        if !theirs.is_empty() {
            send_to(ctx, vec![user], &make(&theirs), silent).await;
        }
    }
}

/// Sends `view` to every member (warnings about files, which name no approvers yet).
async fn broadcast(ctx: &Ctx, view: &views::View, silent: bool) {
    let members: Vec<u64> = ctx.actions.access().members().collect();
    send_to(ctx, members, view, silent).await;
}

async fn send_to(ctx: &Ctx, users: Vec<u64>, view: &views::View, silent: bool) {
    for user in users {
        if let Err(e) = ctx
            .api
            .send(ChatId(user as i64), view, silent, Patience::Persistent)
            .await
        {
            tracing::warn!(user, error = %e, "can't deliver an announcement (has the user sent /start to the bot?)");
        }
    }
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
