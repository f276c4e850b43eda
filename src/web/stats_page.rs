//! The stats page: the figures of `arbiter stats` (the same [`stats::compute`]) as tables, over the last 30
//! days of completed plans and the pending queue now, counting only plans the user may see.

use std::collections::BTreeMap;

use axum::extract::State;
use axum::response::{IntoResponse, Response};
use axum_extra::extract::cookie::CookieJar;
use maud::{Markup, html};

use crate::actions::Actor;
use crate::plan::Plan;
use crate::plan::duration::{self, Style};
use crate::stats::{self, Group, Spread};

use super::Web;
use super::layout::page;

/// The period the page covers.
const DAYS: i64 = 30;

pub async fn show(State(web): State<Web>, jar: CookieJar) -> Response {
    let session = match web.page_session(&jar) {
        Ok(s) => s,
        Err(to_login) => return to_login.into_response(),
    };
    let pending: Vec<Plan> = web
        .plans(session.user)
        .await
        .iter()
        .map(|l| l.plan.clone())
        .collect();
    let queue = web.actions.queue().clone();
    let period = chrono::Utc::now() - chrono::Duration::days(DAYS + 1);
    let mut completed =
        match tokio::task::spawn_blocking(move || queue.completed_since(period)).await {
            Ok(Ok(summaries)) => summaries,
            _ => Vec::new(),
        };
    completed.retain(|s| {
        web.actions
            .access()
            .sees_summary(Actor::User(session.user), s)
    });
    let now = chrono::Utc::now();
    let since = now - chrono::Duration::days(DAYS);
    let access = web.actions.access();
    let s = stats::compute(&completed, &pending, since, now, &|who: &str| {
        access.display(who)
    });
    let days = stats::daily(&completed, since, now, &web.timezone);
    let chart = match stats::chart::svg(&days) {
        Ok(svg) => maud::PreEscaped(svg),
        Err(e) => {
            tracing::error!(error = %e, "can't draw the stats chart");
            maud::PreEscaped(String::new())
        }
    };
    let d = &s.decisions;
    let p = &s.pending;
    let body = html! {
        h1 { "Stats" }
        p { "Completed plans since " (s.since) " (the last " (DAYS) " days), and the queue now." }
        // Drawn server-side as SVG by the same code as /stats' chart (no script); the tables hold every figure.
        figure #charts .charts {
            (chart)
            figcaption { "Decisions answered per day (bars) and median time to decide (line), local days in "
                (web.timezone.name()) "." }
        }
        div.stats {
            (table("Counts", &[
                ("plans completed", s.plans_completed.to_string()),
                ("decisions answered", d.answered.to_string()),
                ("of which custom", d.custom.to_string()),
                ("skipped", d.skipped.to_string()),
                ("answered by the deadline", d.deadline.to_string()),
                ("delegated", d.delegated.to_string()),
            ]))
            (spread("Time to decide (per decision)", &s.decision_seconds))
            (spread("Time to complete (per plan)", &s.plan_seconds))
            (table("Queue now", &[
                ("pending", p.total.to_string()),
                ("urgent", p.by_priority.urgent.to_string()),
                ("high", p.by_priority.high.to_string()),
                ("normal", p.by_priority.normal.to_string()),
                ("low", p.by_priority.low.to_string()),
                ("overdue", p.overdue.to_string()),
                ("younger than 1 h", p.ages.lt_1h.to_string()),
                ("1 h – 1 day", p.ages.h1_d1.to_string()),
                ("1 – 7 days", p.ages.d1_d7.to_string()),
                ("older than 7 days", p.ages.gt_7d.to_string()),
                ("oldest", p.oldest_id.clone().unwrap_or_else(|| "—".to_owned())),
            ]))
            (groups("By agent", &s.by_agent))
            (groups("By tag", &s.by_tag))
            (groups("By person", &s.by_person))
            section {
                h2 { "Slowest decisions" }
                table { tbody {
                    @for slow in &s.slowest {
                        tr { td { (slow.plan_id) } td { code { (slow.decision_id) } } td { (seconds(Some(slow.seconds))) } }
                    }
                } }
            }
            section {
                h2 { "Agents waiting longest" }
                table { tbody {
                    @for w in &s.waiting {
                        tr { td { (w.agent) } td { (w.pending) " pending" } td { (seconds(w.oldest_seconds)) } }
                    }
                } }
            }
        }
    };
    page("Stats", Some(&session), body).into_response()
}

fn seconds(s: Option<i64>) -> String {
    s.map_or_else(
        || "—".to_owned(),
        |s| {
            duration::say(
                std::time::Duration::from_secs(u64::try_from(s).unwrap_or(0)),
                Style::Spoken,
            )
        },
    )
}

fn table(title: &str, rows: &[(&str, String)]) -> Markup {
    html! {
        section {
            h2 { (title) }
            table { tbody { @for (k, v) in rows { tr { th { (k) } td { (v) } } } } }
        }
    }
}

fn spread(title: &str, s: &Spread) -> Markup {
    table(
        title,
        &[
            ("count", s.count.to_string()),
            ("median (p50)", seconds(s.p50)),
            ("p90", seconds(s.p90)),
            ("max", seconds(s.max)),
        ],
    )
}

fn groups(title: &str, g: &BTreeMap<String, Group>) -> Markup {
    html! {
        section {
            h2 { (title) }
            table {
                thead { tr { th {} th { "count" } th { "median" } } }
                tbody { @for (name, group) in g { tr { th { (name) } td { (group.count) } td { (seconds(group.p50_seconds)) } } } }
            }
        }
    }
}
