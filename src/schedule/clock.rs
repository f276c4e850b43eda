//! The deadline timer: one more front end of the action layer, with the actor `deadline`. What is due is decided
//! by the plan core ([`crate::plan::Timing::due`]) on the snapshot, then again on the file under the plan's lock
//! when the action is taken, so a tap or an agent's edit racing the clock leaves one consistent file.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use chrono::Utc;
use tokio::sync::mpsc;

use crate::actions::{Action, Actor, Outcome};
use crate::plan::{Due, EditError, Outline};
use crate::queue::{Briefs, StoreError};

use crate::bot::Ctx;
use crate::bot::notice::Notice;

/// How often the clock looks at the queue: deadlines are kept to within a second.
const TICK: Duration = Duration::from_millis(400);
/// After a failed action (the file can't be written), how long before the clock tries that plan again.
const RETRY_AFTER: Duration = Duration::from_secs(30);

/// Applies deadlines that passed while the daemon was down, before the start-up announcement: those plans leave
/// the scan (they are completed) and their summaries are queued first.
pub async fn catch_up(ctx: &Ctx, scan: &mut Briefs, notices: &mpsc::UnboundedSender<Notice>) {
    let now = Utc::now();
    let overdue: Vec<String> = scan
        .plans
        .iter()
        .filter(|l| l.brief.due(now).deadline)
        // A plan the daemon will report as malformed here is not acted on.
        .filter(|l| ctx.actions.access().unknown_people(&l.brief).is_none())
        .map(|l| l.brief.id().to_owned())
        .collect();
    for id in overdue {
        if matches!(
            take(ctx, &id, Action::ApplyDeadline, notices).await,
            Step::Done
        ) {
            scan.plans.retain(|l| l.brief.id() != id);
        }
    }
}

/// Runs the clock until the task is aborted: deadlines, escalations and reminders, and the daily digest
/// (`digest_sent`: the date of the last one).
pub async fn run(
    ctx: Ctx,
    notices: mpsc::UnboundedSender<Notice>,
    mut digest_sent: Option<chrono::NaiveDate>,
) {
    let mut failed: HashMap<String, Instant> = HashMap::new();
    let mut rules = super::rules::Watch::default();
    let mut tick = tokio::time::interval(TICK);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        super::digest::check(&ctx, &mut digest_sent, &notices);
        // Off the async threads: a changed rules.json is checked against the audit trail (megabytes at most).
        rules = {
            let (ctx, notices) = (ctx.clone(), notices.clone());
            let mut watch = std::mem::take(&mut rules);
            tokio::task::spawn_blocking(move || {
                super::rules::check(&ctx, &mut watch, &notices);
                watch
            })
            .await
            .unwrap_or_default()
        };
        let now = Utc::now();
        // Only the plans with timing are looked at (the snapshot keeps them apart), and only what is due is
        // copied: a tick of a large queue touches neither the other plans nor the allocator.
        let work: Vec<(String, Due)> = ctx.state.with_snapshot(|s| {
            s.timed()
                .filter_map(|l| {
                    let due = l.brief.due(now);
                    (due != Due::default()).then(|| (l.brief.id().to_owned(), due))
                })
                .collect()
        });
        failed.retain(|_, at| at.elapsed() < RETRY_AFTER);
        let mut changed = false;
        for (id, due) in work {
            if failed.contains_key(&id) {
                continue;
            }
            let mut actions = Vec::new();
            if due.deadline {
                actions.push(Action::ApplyDeadline);
            }
            if due.escalate {
                actions.push(Action::Escalate);
            }
            if due.remind {
                actions.push(Action::Remind);
            }
            for action in actions {
                match take(&ctx, &id, action, &notices).await {
                    Step::Done => changed = true,
                    Step::Failed => {
                        failed.insert(id.clone(), Instant::now());
                    }
                    Step::Nothing => {}
                }
            }
        }
        // The snapshot must show what the clock wrote before the next tick looks at it.
        if changed && let Err(e) = ctx.rescan().await {
            tracing::warn!(error = %e, "rescan after the clock's actions failed");
        }
    }
}

enum Step {
    Done,
    Nothing,
    Failed,
}

/// Takes one of the clock's actions and queues what the people must be told.
async fn take(
    ctx: &Ctx,
    id: &str,
    action: Action,
    notices: &mpsc::UnboundedSender<Notice>,
) -> Step {
    match ctx.actions.act(Actor::Deadline, id, action).await {
        Outcome::Submitted { plan, .. } => {
            tracing::info!(plan = %plan.plan.id, "deadline passed: plan submitted");
            ctx.state
                .remember_completed(&plan.plan.id, plan.path.clone());
            let _ = notices.send(Notice::DeadlineSubmitted(plan.plan));
            Step::Done
        }
        Outcome::Escalated { plan, to } => {
            tracing::info!(plan = %plan.plan.id, users = ?to, "escalated");
            let _ = notices.send(Notice::Escalated(plan.plan, to));
            Step::Done
        }
        Outcome::Noted(plan) => {
            tracing::info!(plan = %plan.plan.id, "reminder");
            let _ = notices.send(Notice::Reminder(std::sync::Arc::new(plan)));
            Step::Done
        }
        Outcome::NotRecorded {
            error: StoreError::Edit(EditError::NotDue),
            ..
        }
        | Outcome::Gone
        | Outcome::Withdrawn(_)
        | Outcome::Current(_)
        | Outcome::SentBack { .. }
        | Outcome::SignedOff(_)
        | Outcome::Stale(_)
        | Outcome::Recorded { .. } => Step::Nothing,
        Outcome::Failed(why) => {
            tracing::error!(plan = id, %why, "the clock's action failed; trying again later");
            Step::Failed
        }
        Outcome::NotRecorded { plan, error } => {
            tracing::error!(plan = %plan.plan.id, %error, "the clock could not act on a plan; trying again later");
            Step::Failed
        }
        Outcome::Refused(refusal) => {
            tracing::error!(plan = id, %refusal, "the clock was refused");
            Step::Failed
        }
    }
}
