//! A plan's earlier revisions: the list the History page shows under each plan that was revised, and one kept
//! revision (`<queue>/revisions/<id>.r<N>.md`) opened read-only, drawn like the plan page without its forms.

use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum_extra::extract::cookie::CookieJar;
use maud::{Markup, html};
use serde::Deserialize;

use crate::actions::{Access, Actor};
use crate::plan::{DecisionStatus, Feedback, Plan, PlanStatus, Summary};
use crate::queue::Queue;
use crate::queue::audit::Entry;

use super::Web;
use super::layout::{self, notice, page, query};
use super::plan_page::answered;

/// One earlier revision of a plan, as the History page lists it.
pub(super) struct Kept {
    n: u32,
    /// When the agent pushed it: its audit line, else its `created_at`.
    pushed: Option<String>,
    /// Sent back (`status: changes_requested`): the request that made the agent write the next revision.
    sent_back: Option<Feedback>,
    /// Whether the user may open it (decided on the revision's own approvers, as the page itself decides).
    open: bool,
}

/// The revisions before `plan`'s current one that revisions/ holds, oldest first, with what `user` may open.
pub(super) fn kept(queue: &Queue, access: &Access, user: u64, plan: &Summary) -> Vec<Kept> {
    (1..plan.revision)
        .filter_map(|n| queue.kept_revision(&plan.id, n))
        .map(|r| Kept {
            n: r.revision,
            pushed: r.created_at.clone(),
            sent_back: r
                .feedback
                .clone()
                .filter(|_| r.status == PlanStatus::ChangesRequested),
            open: access.sees(Actor::User(user), &r),
        })
        .collect()
}

/// When revision `n` of plan `id` was pushed, according to the trail (`push` for the first, `revise` after).
fn pushed_at<'a>(trail: &'a [&Entry], n: u32) -> Option<&'a str> {
    trail
        .iter()
        .find(|e| e.revision == n && matches!(e.action.as_str(), "push" | "revise"))
        .map(|e| e.at.as_str())
}

/// The History page's list of a plan's revisions (nothing for a plan never revised): each earlier one with when it
/// was pushed, why it was sent back and a link to it, then the one that was completed. `trail` holds the plan's
/// audit lines.
pub(super) fn listing(plan: &Summary, kept: &[Kept], trail: &[&Entry], access: &Access) -> Markup {
    let when =
        |n: u32, fallback: Option<&str>| pushed_at(trail, n).or(fallback).unwrap_or("?").to_owned();
    html! {
        @if plan.revision > 1 {
            details.revisions {
                summary { "Revisions (" (plan.revision) ")" }
                ol {
                    @for k in kept {
                        li value=(k.n) {
                            @if k.open {
                                a href={ "/history/revision?" (query(&[("id", &plan.id), ("n", &k.n.to_string())])) } { "Revision " (k.n) }
                            } @else {
                                "Revision " (k.n)
                            }
                            " · pushed " (when(k.n, k.pushed.as_deref()))
                            @if let Some(f) = &k.sent_back {
                                " · " (request("🔁 sent back", f, access))
                            } @else {
                                " · replaced by the agent without a request"
                            }
                        }
                    }
                    li value=(plan.revision) {
                        "Revision " (plan.revision) " (completed) · pushed "
                        (when(plan.revision, plan.created_at.as_deref()))
                    }
                }
                @if kept.len() + 1 < plan.revision as usize {
                    p.meta { "revisions/ no longer holds every earlier revision." }
                }
            }
        }
    }
}

/// `🔁 sent back by Alice at T: “what to change”` (`lead`, then who asked, when, and what).
fn request(lead: &str, f: &Feedback, access: &Access) -> Markup {
    html! {
        (lead)
        @if let Some(by) = &f.by { " by " (access.display(by)) }
        @if let Some(at) = &f.at { " at " (at) }
        ": " q.feedback { (f.text) }
    }
}

#[derive(Debug, Default, Deserialize)]
pub struct Wanted {
    #[serde(default)]
    id: String,
    /// The revision number, as typed into the address: anything that is not one is a revision that does not exist.
    #[serde(default)]
    n: String,
}

/// `GET /history/revision?id=…&n=…`: one kept revision, read-only. A revision that is not there and one the user
/// may not see get the same answer, so a stranger learns nothing of what revisions/ holds.
pub async fn show(
    State(web): State<Web>,
    jar: CookieJar,
    Query(wanted): Query<Wanted>,
) -> Response {
    let session = match web.page_session(&jar) {
        Ok(s) => s,
        Err(to_login) => return to_login.into_response(),
    };
    let queue = web.actions.queue().clone();
    let n = wanted.n.trim().parse::<u32>().ok();
    let id = wanted.id.clone();
    let found = tokio::task::spawn_blocking(move || n.and_then(|n| queue.kept_revision(&id, n)))
        .await
        .unwrap_or_else(|e| {
            tracing::error!(error = %e, "revision task failed");
            None
        });
    let access = web.actions.access();
    match found {
        Some(plan) if access.sees(Actor::User(session.user), &plan) => {
            let title = format!("Revision {} · {}", plan.revision, plan.title);
            page(&title, Some(&session), revision_body(&plan, access)).into_response()
        }
        _ => {
            let body = html! {
                h1 { "No such revision" }
                (notice("warn", "There is no revision with this number for this plan that you may see."))
                p { a href="/history" { "Back to the history" } }
            };
            (
                StatusCode::NOT_FOUND,
                page("No such revision", Some(&session), body),
            )
                .into_response()
        }
    }
}

/// A kept revision as the plan page draws a plan, without a form: it can't be answered any more.
fn revision_body(plan: &Plan, access: &Access) -> Markup {
    let name = |who: &str| access.display(who);
    html! {
        h1 { (plan.title) }
        p.meta {
            "Revision " (plan.revision) " · " (layout::priority(plan))
            @if let Some(a) = &plan.agent { " · agent " b { (a) } }
            @if let Some(t) = &plan.tag { " · tag " b { (t) } }
            " · " code { (plan.id) }
            @if let Some(at) = &plan.created_at { " · pushed " (at) }
        }
        (notice("ok", "Read-only: this revision was kept when the agent replaced it with the next one."))
        @if let Some(f) = &plan.feedback {
            @let lead = if plan.status == PlanStatus::ChangesRequested {
                "🔁 Sent back"
            } else {
                "🔁 It answered the request"
            };
            p { (request(lead, f, access)) }
        }
        @if !plan.context.trim().is_empty() {
            div.context { (layout::markdown(&plan.context)) }
        }
        @for (i, d) in plan.decisions.iter().enumerate() {
            section.decision {
                h2 { "Decision " (i + 1) ": " (d.title) " " span class={ "status " (d.status.as_str()) } { (d.status.as_str()) } }
                (answered(d, &name))
                @if d.status == DecisionStatus::Pending { p.meta { "Not answered" } }
                @if let Some(note) = &d.note { p.note { "💬 " (note) } }
                @if !d.context.trim().is_empty() { div.context { (layout::markdown(&d.context)) } }
                @if !d.options.is_empty() {
                    ul.options {
                        @for o in &d.options { li { code { (o.key) } " — " (o.label) } }
                    }
                }
            }
        }
        p { a href="/history" { "Back to the history" } }
    }
}
