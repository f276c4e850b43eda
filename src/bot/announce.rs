//! Notices → messages: new plans to their approvers (every allowed user unless a plan names `approvers`),
//! reminders, escalations, deadline notices, the digest and warnings about malformed files. Announcements run on
//! their own task so a command or a tap never waits behind them, and bursts are folded into one message
//! (Telegram allows ~1 message/s per chat).

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::{Duration, Instant};

use teloxide::types::{ChatId, MessageId};
use tokio::sync::mpsc;

use crate::plan::{Brief, Outline, Plan, Priority};
use crate::queue::Listed;
use crate::telegram::views;

use super::api::Patience;
use super::context::Ctx;
use super::groups::TopicNotice::{DeadlineSubmitted, Escalated, Reminder};
use super::notice::Notice;
use super::threads::Threads;

/// Individual announcements allowed within [`BURST_WINDOW`] before the rest are folded into one message.
const BURST_LIMIT: usize = 3;
const BURST_WINDOW: Duration = Duration::from_secs(2);

/// Why a plan is announced: it is new, or it is a reminder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Heads {
    New,
    Reminder,
}

/// Sends notices to every allowed user, folding bursts of new plans (and of reminders) into one message each. A
/// panic on one notice does not end the announcements: it is logged and the announcer starts again (from its
/// files: the threads; what it held for a burst is lost, the plans stay in `/queue`).
pub async fn announcer(ctx: Ctx, notices: mpsc::UnboundedReceiver<Notice>) {
    let notices = Arc::new(tokio::sync::Mutex::new(notices));
    crate::sync::supervise::restarting("announcer", Duration::from_secs(1), move || {
        announce_all(ctx.clone(), notices.clone())
    })
    .await;
}

async fn announce_all(ctx: Ctx, notices: Arc<tokio::sync::Mutex<mpsc::UnboundedReceiver<Notice>>>) {
    // Held for this run; a panic drops it, and the next run takes it.
    let mut notices = notices.lock().await;
    let mut threads = Threads::load(ctx.actions.queue().root());
    settle_what_ended_while_away(&ctx, &mut threads).await;
    let mut recent: VecDeque<Instant> = VecDeque::new();
    let mut held: Vec<(Heads, Arc<Listed>)> = Vec::new();
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
                        let plans: Vec<&Brief> = burst
                            .iter()
                            .filter(|(h, _)| *h == heads)
                            .map(|(_, l)| &l.brief)
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
                let plans: Vec<&Brief> = plans.iter().map(|l| &l.brief).collect();
                let silent =
                    quiet_hours(&ctx) && !plans.iter().any(|p| p.priority() == Priority::Urgent);
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
                announce(&ctx, &mut recent, &mut held, &mut threads, items).await;
            }
            Notice::Reminder(plan) => {
                let silent = quiet(&ctx, [&plan.plan]);
                super::groups::notify_topics(&ctx, &plan.plan, Reminder, silent);
                let listed = Arc::new(Listed::of(&plan));
                announce(
                    &ctx,
                    &mut recent,
                    &mut held,
                    &mut threads,
                    vec![(Heads::Reminder, listed)],
                )
                .await;
            }
            Notice::Escalated(plan, users) => {
                let view = views::nudge(&plan, views::Nudge::Escalated, chrono::Utc::now());
                let silent = quiet(&ctx, [&plan]);
                super::groups::notify_topics(&ctx, &plan, Escalated(users.clone()), silent);
                send_to(&ctx, users, &view, silent).await;
            }
            Notice::DeadlineSubmitted(plan) => {
                let silent = quiet(&ctx, [&plan]);
                super::groups::notify_topics(&ctx, &plan, DeadlineSubmitted, silent);
                let view = |plans: &[&Plan]| views::deadline_submitted(plans[0]);
                to_approvers(&ctx, &[&plan], view, silent).await;
            }
            Notice::Withdrawn(plan) => redraw_withdrawn(&ctx, &mut threads, &plan).await,
            Notice::Ended(id) => threads.settle(&[id]).await,
            Notice::Digest(today) => digest(&ctx, today).await,
            Notice::RulePaused(rule) => {
                let shown = ctx.shown_rule(&rule, &crate::clock::now());
                let reason = rule
                    .change
                    .as_ref()
                    .and_then(|c| c.reason.clone())
                    .unwrap_or_default();
                let view = views::rule_paused(&shown, &reason);
                // Its maker, while they may use the bot; else everyone who may.
                let to = if ctx.actions.access().is_member(rule.created_by) {
                    vec![rule.created_by]
                } else {
                    ctx.actions.access().members().collect()
                };
                send_to(&ctx, to, &view, false).await;
            }
            Notice::RulesWarning(what) => {
                broadcast(&ctx, &views::rules_warning(&what), false).await
            }
        }
    }
}

/// Redraws the messages that announced `plan` (and became its views when opened) to say it was withdrawn: no new
/// message for a question nobody needs.
async fn redraw_withdrawn(ctx: &Ctx, threads: &mut Threads, plan: &Plan) {
    let view = views::completion(plan);
    for (user, message) in threads.of(&plan.id).cloned().unwrap_or_default() {
        let chat = ChatId(i64::try_from(user).unwrap_or_default());
        if let Err(e) = ctx.api.edit(chat, message, &view).await {
            tracing::info!(plan = %plan.id, error = %e, "can't say on its message that a plan was withdrawn");
        }
    }
    threads.settle(std::slice::from_ref(&plan.id)).await;
}

/// At start: the announced plans that left `pending/` while the daemon was away (their end unseen). One withdrawn
/// meanwhile (its hook gave up) has its announcement redrawn, so no card keeps buttons whose answer can reach
/// nobody. Few plans: those pending when the daemon stopped.
async fn settle_what_ended_while_away(ctx: &Ctx, threads: &mut Threads) {
    let ids = threads.unsettled();
    if ids.is_empty() {
        return;
    }
    let looked = tokio::task::spawn_blocking({
        let ctx = ctx.clone();
        move || {
            let queue = ctx.actions.queue();
            ids.into_iter()
                .filter_map(|id| match queue.find(&id) {
                    Ok(found) if found.location == crate::queue::Location::Completed => {
                        let withdrawn = (found.plan.status == crate::plan::PlanStatus::Withdrawn)
                            .then_some(found.plan);
                        Some((id, withdrawn))
                    }
                    // Still pending (or returned): its end is still to come.
                    Ok(_) => None,
                    // Gone for good (removed by hand): nothing to redraw.
                    Err(crate::queue::StoreError::NotFound(_)) => Some((id, None)),
                    Err(error) => {
                        tracing::info!(plan = %id, %error, "can't tell what became of an announced plan");
                        None
                    }
                })
                .collect::<Vec<_>>()
        }
    })
    .await
    .unwrap_or_default();
    let mut ended = Vec::new();
    for (id, withdrawn) in looked {
        if let Some(plan) = withdrawn {
            redraw_withdrawn(ctx, threads, &plan).await;
        }
        ended.push(id);
    }
    threads.settle(&ended).await;
}

/// Sends each item at once while fewer than [`BURST_LIMIT`] went out in the last [`BURST_WINDOW`]; holds the
/// rest for one folded message.
async fn announce(
    ctx: &Ctx,
    recent: &mut VecDeque<Instant>,
    held: &mut Vec<(Heads, Arc<Listed>)>,
    threads: &mut Threads,
    items: Vec<(Heads, Arc<Listed>)>,
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
            let brief = &plan.brief;
            let silent = quiet(ctx, [brief]);
            // A revision alone is announced with what changed since the revision before it: both read whole.
            let revised = match heads {
                Heads::New if brief.revision() > 1 => {
                    let queue = ctx.actions.queue();
                    queue
                        .kept_revision(brief.id(), brief.revision() - 1)
                        .zip(queue.find_pending(brief.id()).ok().flatten())
                }
                _ => None,
            };
            let view = match &revised {
                Some((before, now)) => views::revision_announcement(&now.plan, before),
                None => burst_view(heads, &[brief]),
            };
            if heads == Heads::New {
                let replying = brief.reply_to().and_then(|to| threads.of(to)).cloned();
                let sent = in_thread(ctx, brief, &view, silent, replying.as_ref()).await;
                threads.remember(brief.id(), sent).await;
            } else {
                to_approvers(ctx, &[brief], |_| view.clone(), silent).await;
            }
        } else {
            held.push((heads, plan));
        }
    }
}

fn burst_view(heads: Heads, plans: &[&Brief]) -> views::View {
    let now = chrono::Utc::now();
    match (heads, plans) {
        (Heads::New, [one]) => views::announcement(*one),
        (Heads::Reminder, [one]) => views::nudge(*one, views::Nudge::Reminder, now),
        (Heads::New, _) => views::announcement_burst(plans),
        (Heads::Reminder, _) => views::nudge_burst(plans, now),
    }
}

/// Whether a message about `plans` goes out silently (the rule is [`Ctx::silent`], which the group cards share).
fn quiet<'a, P: Outline + 'a>(ctx: &Ctx, plans: impl IntoIterator<Item = &'a P>) -> bool {
    ctx.silent(plans)
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
async fn to_approvers<P: Outline + Sync>(
    ctx: &Ctx,
    plans: &[&P],
    make: impl Fn(&[&P]) -> views::View,
    silent: bool,
) {
    let access = ctx.actions.access();
    let members: Vec<u64> = access.members().collect();
    for user in members {
        let theirs: Vec<&P> = plans
            .iter()
            .copied()
            .filter(|p| access.receives(user, *p))
            .collect();
        if !theirs.is_empty() {
            send_to(ctx, vec![user], &make(&theirs), silent).await;
        }
    }
}

/// Sends the announcement of `plan` to each member who gets its messages, as a reply to that member's message of
/// `replying` when there is one; returns the message each member got.
async fn in_thread(
    ctx: &Ctx,
    plan: &Brief,
    view: &views::View,
    silent: bool,
    replying: Option<&HashMap<u64, MessageId>>,
) -> HashMap<u64, MessageId> {
    let access = ctx.actions.access();
    let members: Vec<u64> = access.members().collect();
    let mut sent = HashMap::new();
    for user in members.into_iter().filter(|u| access.receives(*u, plan)) {
        let chat = ChatId(user as i64);
        let patience = Patience::Persistent;
        let result = match replying.and_then(|r| r.get(&user)) {
            Some(to) => ctx.api.send_reply(chat, view, silent, patience, *to).await,
            None => ctx.api.send(chat, view, silent, patience).await,
        };
        match result {
            Ok(id) => {
                sent.insert(user, id);
            }
            Err(e) => {
                tracing::warn!(user, error = %e, "can't deliver an announcement (has the user sent /start to the bot?)");
            }
        }
    }
    sent
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
