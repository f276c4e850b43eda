//! The History page: completed plans the user may see, searched like `arbiter history` (the same index), each
//! with its earlier revisions ([`super::revision_page`]) and the lines the audit trail holds for it.

use axum::extract::{Query, State};
use axum::response::{IntoResponse, Response};
use axum_extra::extract::cookie::CookieJar;
use maud::{Markup, html};
use serde::Deserialize;

use crate::actions::Actor;
use crate::queue::audit::{self, Entry};
use crate::queue::history::{self, Record};

use super::Web;
use super::layout::{notice, page};
use super::revision_page::{self, Kept};

/// Most plans listed on one page (newest first).
const SHOWN: usize = 50;

#[derive(Debug, Default, Deserialize)]
pub struct Search {
    #[serde(default)]
    q: String,
    #[serde(default)]
    agent: String,
}

/// A completed plan found: its line in the index and its earlier revisions.
struct Shown {
    record: Record,
    kept: Vec<Kept>,
}

/// What a search found that the user may see, and the trail's lines (or why the trail can't be trusted).
struct Found {
    plans: Vec<Shown>,
    more: bool,
    trail: Result<Vec<Entry>, String>,
}

pub async fn show(
    State(web): State<Web>,
    jar: CookieJar,
    Query(search): Query<Search>,
) -> Response {
    let session = match web.page_session(&jar) {
        Ok(s) => s,
        Err(to_login) => return to_login.into_response(),
    };
    let queue = web.actions.queue().clone();
    let actions = web.actions.clone();
    let checked = std::sync::Arc::clone(&web.audit_checked);
    let user = session.user;
    let (q, agent) = (search.q.trim().to_owned(), search.agent.trim().to_owned());
    let found = tokio::task::spawn_blocking(move || {
        // Who may see a plan is decided on its approvers, delegates and escalation, as the index holds them.
        let (records, more) =
            history::newest(&queue, (!q.is_empty()).then_some(q.as_str()), SHOWN, |s| {
                (agent.is_empty() || s.agent.as_deref() == Some(agent.as_str()))
                    && actions.access().sees_summary(Actor::User(user), s)
            })?;
        let plans: Vec<Shown> = records
            .into_iter()
            .map(|record| Shown {
                kept: revision_page::kept(&queue, actions.access(), user, &record.plan),
                record,
            })
            .collect();
        // Only the shown plans' lines are kept; the whole chain is still checked (a month file unchanged since it
        // was found intact, without a line of a shown plan, is not read again).
        let shown: std::collections::HashSet<String> = plans
            .iter()
            .map(|p: &Shown| p.record.plan.id.clone())
            .collect();
        let trail = match audit::read_for_plans(queue.root(), &checked, &shown)? {
            Ok((_, entries)) => Ok(entries),
            Err(broken) => Err(broken.to_string()),
        };
        Ok::<_, std::io::Error>(Found { plans, more, trail })
    })
    .await;
    let found = match found {
        Ok(Ok(f)) => f,
        Ok(Err(e)) => {
            tracing::error!(error = %e, "can't read the history");
            Found {
                plans: Vec::new(),
                more: false,
                trail: Err(format!("can't read the history: {e}")),
            }
        }
        Err(e) => {
            tracing::error!(error = %e, "history task failed");
            return super::guard::refuse(
                axum::http::StatusCode::INTERNAL_SERVER_ERROR,
                "The history could not be read.",
            );
        }
    };
    let body = html! {
        h1 { "History" }
        form.filters method="get" action="/history" {
            label for="history-q" { "Search" }
            input #history-q type="search" name="q" value=(search.q) placeholder="titles, contexts, answers, notes";
            label for="history-agent" { "Agent" }
            input #history-agent type="text" name="agent" value=(search.agent);
            button type="submit" { "Search" }
        }
        @if let Err(why) = &found.trail {
            (notice("bad", why))
        }
        @if found.plans.is_empty() {
            p { "No completed plan matches." }
        }
        @for shown in &found.plans {
            (plan(&web, shown, found.trail.as_deref().unwrap_or(&[])))
        }
        @if found.more {
            p { "Only the " (SHOWN) " newest are shown: narrow the search." }
        }
    };
    page("History", Some(&session), body).into_response()
}

fn plan(web: &Web, shown: &Shown, trail: &[Entry]) -> Markup {
    let r = &shown.record.plan;
    let lines: Vec<&Entry> = trail.iter().filter(|e| e.plan == r.id).collect();
    html! {
        section.history {
            h2 { (r.title) }
            p.meta {
                "Completed " (r.completed_at.as_deref().unwrap_or("?"))
                @if let Some(a) = &r.agent { " · asked by " (a) }
                " · " code { (r.id) }
            }
            dl {
                @for (id, answer) in shown.record.answers() {
                    dt { (id) }
                    dd { (answer) }
                }
            }
            (revision_page::listing(r, &shown.kept, &lines, web.actions.access()))
            details {
                summary { "Audit trail (" (lines.len()) ")" }
                @if lines.is_empty() {
                    p { "No line in the audit trail names this plan." }
                } @else {
                    table.audit {
                        thead { tr { th { "At" } th { "Who" } th { "Action" } th { "Decision" } th { "Value" } th { "Revision" } } }
                        tbody {
                            @for e in &lines {
                                tr {
                                    td { (e.at) }
                                    td { (e.actor) }
                                    td { (e.action) }
                                    td { (e.decision.as_deref().unwrap_or("")) }
                                    td { (e.value.as_deref().unwrap_or("")) }
                                    td { (e.revision) }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}
