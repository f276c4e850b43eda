//! New plans → messages to every allowed user. The watcher only triggers rescans; what is new is decided by
//! comparing plan ids with what was already announced. Announcements run on their own task so a command or a
//! tap never waits behind them, and bursts are folded into one message (Telegram allows ~1 message/s per chat).

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use teloxide::types::ChatId;
use tokio::sync::mpsc;

use crate::plan::{Plan, Priority};
use crate::queue::{Problem, Scan};
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
    Startup(Vec<Plan>),
    New(Vec<Plan>),
    Problem(Problem),
}

/// The start-up scan, before the daemon polls: what is pending now gets one summary, not one message each.
pub fn initial_scan(ctx: &Ctx, scan: Scan, notices: &mpsc::UnboundedSender<Notice>) {
    let new = absorb(ctx, scan, notices);
    if !new.is_empty() {
        let _ = notices.send(Notice::Startup(new));
    }
}

/// Rescans on every watcher signal, updates the snapshot, and queues notices for the announcer.
pub async fn watch_loop(
    ctx: Ctx,
    mut signals: mpsc::Receiver<()>,
    notices: mpsc::UnboundedSender<Notice>,
) {
    while signals.recv().await.is_some() {
        tokio::time::sleep(EVENT_SETTLE).await;
        if let Some(new) = rescan(&ctx, &notices).await
            && !new.is_empty()
        {
            for p in &new {
                tracing::info!(plan = %p.id, priority = %p.priority, "new plan");
            }
            let _ = notices.send(Notice::New(new));
        }
    }
}

/// Scans pending/ into the snapshot and reports settled problems; returns the plans never seen before.
async fn rescan(ctx: &Ctx, notices: &mpsc::UnboundedSender<Notice>) -> Option<Vec<Plan>> {
    let queue = ctx.queue().clone();
    let scan = match tokio::task::spawn_blocking(move || queue.scan_pending()).await {
        Ok(Ok(scan)) => scan,
        Ok(Err(e)) => {
            tracing::warn!(error = %e, "scan of pending/ failed");
            return None;
        }
        Err(e) => {
            tracing::error!(error = %e, "scan task failed");
            return None;
        }
    };
    Some(absorb(ctx, scan, notices))
}

/// Takes a scan into the snapshot and reports settled problems; returns the plans never seen before.
fn absorb(ctx: &Ctx, scan: Scan, notices: &mpsc::UnboundedSender<Notice>) -> Vec<Plan> {
    let new: Vec<Plan> = {
        let mut announced = ctx.state.lock_announced();
        scan.plans
            .iter()
            // `contains` first: a rescan of a large queue should not copy every id it has already seen.
            .filter(|l| !announced.contains(&l.plan.id) && announced.insert(l.plan.id.clone()))
            .map(|l| l.plan.clone())
            .collect()
    };
    for p in problems_to_warn(&ctx.state, &scan.problems, Instant::now(), PROBLEM_SETTLE) {
        tracing::warn!(file = %p.path.display(), reason = %p.diagnostic, "malformed plan skipped");
        let _ = notices.send(Notice::Problem(p));
    }
    ctx.state.set_snapshot(Snapshot::new(scan.plans));
    new
}

/// Sends notices to every allowed user, folding bursts of new plans into one message.
pub async fn announcer(ctx: Ctx, mut notices: mpsc::UnboundedReceiver<Notice>) {
    let mut recent: VecDeque<Instant> = VecDeque::new();
    let mut held: Vec<Plan> = Vec::new();
    loop {
        let notice = if held.is_empty() {
            notices.recv().await
        } else {
            let until = recent.front().map_or(Instant::now(), |t| *t + BURST_WINDOW);
            match tokio::time::timeout_at(until.into(), notices.recv()).await {
                Ok(n) => n,
                Err(_) => {
                    let burst = std::mem::take(&mut held);
                    broadcast(
                        &ctx,
                        &burst_view(&burst),
                        burst.iter().all(|p| p.priority == Priority::Low),
                    )
                    .await;
                    recent.clear();
                    recent.push_back(Instant::now());
                    continue;
                }
            }
        };
        let Some(notice) = notice else { break };
        match notice {
            Notice::Startup(plans) => {
                let refs: Vec<&Plan> = plans.iter().collect();
                broadcast(&ctx, &views::startup_summary(&refs), false).await;
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
                let now = Instant::now();
                while recent
                    .front()
                    .is_some_and(|t| now.duration_since(*t) > BURST_WINDOW)
                {
                    recent.pop_front();
                }
                for plan in plans {
                    if held.is_empty() && recent.len() < BURST_LIMIT {
                        recent.push_back(Instant::now());
                        broadcast(
                            &ctx,
                            &views::announcement(&plan),
                            plan.priority == Priority::Low,
                        )
                        .await;
                    } else {
                        held.push(plan);
                    }
                }
            }
        }
    }
}

fn burst_view(plans: &[Plan]) -> views::View {
    if plans.len() == 1 {
        return views::announcement(&plans[0]);
    }
    let refs: Vec<&Plan> = plans.iter().collect();
    views::announcement_burst(&refs)
}

async fn broadcast(ctx: &Ctx, view: &views::View, silent: bool) {
    for user in ctx.actions.access().members() {
        if let Err(e) = ctx
            .api
            .send(ChatId(user as i64), view, silent, Patience::Persistent)
            .await
        {
            tracing::warn!(user, error = %e, "can't deliver an announcement (has the user sent /start to the bot?)");
        }
    }
}
