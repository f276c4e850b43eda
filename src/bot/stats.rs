//! `/stats` and the daily digest: the figures of [`crate::stats`] over the plans a user may see.

use chrono::{DateTime, NaiveDate, Utc};
use teloxide::types::ChatId;

use crate::actions::Actor;
use crate::plan::timing::parse_time;
use crate::plan::{Plan, Summary};
use crate::queue::StoreError;
use crate::stats::{self, Stats};
use crate::telegram::views::{self, View};

use super::api::Patience;
use super::context::Ctx;

/// The period `/stats` covers, in days back from now (as `arbiter stats` without `--since`).
pub const STATS_DAYS: u32 = 30;

/// The completed plans (their summaries, from the history index) and pending plans `user` may see (the same
/// filter as their queue).
async fn visible_plans(ctx: &Ctx, user: u64) -> Result<(Vec<Summary>, Vec<Plan>), StoreError> {
    let ctx2 = ctx.clone();
    let read = move || -> Result<_, StoreError> {
        let queue = ctx2.queue();
        let since = chrono::Utc::now() - chrono::Duration::days(i64::from(STATS_DAYS) + 1);
        let mut completed = queue.completed_since(since)?;
        completed.retain(|s| ctx2.actions.access().sees_summary(Actor::User(user), s));
        let mut pending = queue.scan_pending()?;
        ctx2.admit(&mut pending);
        let pending = ctx2
            .actions
            .visible(Actor::User(user), pending.plans.iter().map(|l| &l.plan))
            .into_iter()
            .cloned()
            .collect();
        Ok((completed, pending))
    };
    tokio::task::spawn_blocking(read)
        .await
        .map_err(|e| StoreError::Io {
            path: ctx.queue().root().to_path_buf(),
            source: std::io::Error::other(e),
        })?
}

/// A person is shown by their name from `people`, else by user id (as in `arbiter stats`).
fn figures(
    ctx: &Ctx,
    completed: &[Summary],
    pending: &[Plan],
    since: DateTime<Utc>,
    now: DateTime<Utc>,
) -> Stats {
    let access = ctx.actions.access();
    stats::compute(completed, pending, since, now, &|who: &str| {
        access.display(who)
    })
}

/// `/stats`: the summary as text, then the chart as a photo.
pub async fn send_stats(ctx: &Ctx, chat: ChatId, user: u64) {
    let (completed, pending) = match visible_plans(ctx, user).await {
        Ok(plans) => plans,
        Err(e) => {
            tracing::error!(error = %e, "can't read the queue for /stats");
            let note =
                View::text_only("Can't read the queue right now\\. Try again in a moment\\.");
            let _ = ctx
                .api
                .send(chat, &note, false, Patience::Interactive)
                .await;
            return;
        }
    };
    let now = Utc::now();
    let since = now - chrono::Duration::days(i64::from(STATS_DAYS));
    let summary = figures(ctx, &completed, &pending, since, now);
    if let Err(e) = ctx
        .api
        .send(
            chat,
            &views::stats(&summary, STATS_DAYS),
            false,
            Patience::Interactive,
        )
        .await
    {
        tracing::error!(error = %e, "can't send /stats");
        return;
    }
    let days = stats::daily(&completed, since, now, &ctx.timezone);
    let png = match tokio::task::spawn_blocking(move || stats::chart::png(&days)).await {
        Ok(Ok(png)) => png,
        Ok(Err(e)) => return tracing::error!(error = %e, "can't draw the stats chart"),
        Err(e) => return tracing::error!(error = %e, "the stats chart task failed"),
    };
    if let Err(e) = ctx
        .api
        .send_photo(chat, png, &views::chart_caption(STATS_DAYS))
        .await
    {
        tracing::error!(error = %e, "can't send the stats chart");
    }
}

/// The digest `user` gets for local day `today`: the queue now and the figures of the day before.
pub async fn digest_view(ctx: &Ctx, user: u64, today: NaiveDate) -> Result<View, StoreError> {
    let (completed, pending) = visible_plans(ctx, user).await?;
    let now = Utc::now();
    let tz = ctx
        .digest
        .as_ref()
        .map_or_else(|| ctx.timezone, |d| *d.tz());
    let queue_now = figures(ctx, &[], &pending, now, now);
    let yesterday = today.pred_opt().unwrap_or(today);
    let Some((start, end)) = crate::digest::day_before(today, &tz) else {
        let nothing = figures(ctx, &[], &[], now, now);
        return Ok(views::digest(&queue_now, yesterday, &nothing));
    };
    let that_day: Vec<Summary> = completed
        .into_iter()
        .filter(|p| {
            p.completed_at
                .as_deref()
                .and_then(parse_time)
                .is_some_and(|t| t < end)
        })
        .collect();
    Ok(views::digest(
        &queue_now,
        yesterday,
        &figures(ctx, &that_day, &[], start, now),
    ))
}
