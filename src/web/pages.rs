//! Signing in and out, the queue page, the assets and the live-update stream.

use std::convert::Infallible;
use std::time::SystemTime;

use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Redirect, Response};
use axum_extra::extract::Form;
use axum_extra::extract::cookie::CookieJar;
use maud::html;
use serde::Deserialize;
use tokio_stream::StreamExt as _;
use tokio_stream::wrappers::{BroadcastStream, WatchStream};

use crate::plan::{Plan, Priority};
use crate::telegram::views::queue_order;

use super::Web;
use super::guard::refuse;
use super::layout::{self, notice, page, plan_href};
use super::reply::QueueNotice;

const STYLE: &str = include_str!("assets/style.css");
const SCRIPT: &str = include_str!("assets/app.js");

pub async fn style() -> Response {
    asset("text/css; charset=utf-8", STYLE)
}

pub async fn script() -> Response {
    asset("text/javascript; charset=utf-8", SCRIPT)
}

fn asset(kind: &'static str, body: &'static str) -> Response {
    (
        [
            (header::CONTENT_TYPE, kind),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        body,
    )
        .into_response()
}

pub async fn home() -> Redirect {
    Redirect::to("/queue")
}

/// Where a request without a session is sent: how to get a login link.
pub async fn login_needed() -> Response {
    let body = html! {
        h1 { "Sign in" }
        p { "The dashboard opens with a one-time login link (valid 10 minutes):" }
        ul {
            li { "send " code { "/web" } " to the bot in Telegram, or" }
            li { "run " code { "arbiter web-login --user YOUR_ID" } " on the machine the daemon runs on." }
        }
        // Opened as a Telegram Mini App, the script signs in with Telegram's launch data through this form.
        form #miniapp method="post" action="/auth/telegram" hidden {
            input type="hidden" name="initData";
        }
    };
    (StatusCode::UNAUTHORIZED, page("Sign in", None, body)).into_response()
}

/// A login link opened: a button that signs in (a POST, so link previews and prefetchers can't use up the link).
pub async fn login_page(State(web): State<Web>, Path(token): Path<String>) -> Response {
    if web.auth.peek_login(&token, SystemTime::now()).is_none() {
        return invalid_link();
    }
    let body = html! {
        h1 { "Sign in" }
        form method="post" action={ "/login/" (token) } {
            button.primary type="submit" autofocus { "Sign in to the dashboard" }
        }
    };
    page("Sign in", None, body).into_response()
}

fn invalid_link() -> Response {
    let body = html! {
        h1 { "This login link does not work" }
        p { "It was already used, it expired (links last 10 minutes), or it was mistyped. Send "
            code { "/web" } " to the bot for a new one." }
    };
    (StatusCode::FORBIDDEN, page("Login link", None, body)).into_response()
}

/// Uses the login link: a session cookie for its user, then the queue.
pub async fn login(
    State(web): State<Web>,
    jar: CookieJar,
    headers: HeaderMap,
    Path(token): Path<String>,
) -> Response {
    if let Err(refused) = web.same_origin(&headers) {
        return refused.into_response();
    }
    let now = SystemTime::now();
    let Some(user) = web.auth.redeem_login(&token, now) else {
        return invalid_link();
    };
    // Membership is checked again here: a link outlives a config change by up to 10 minutes.
    if !web.actions.access().is_member(user) {
        return refuse(
            StatusCode::FORBIDDEN,
            &crate::actions::Refusal::Outsider.to_string(),
        );
    }
    signed_in(&web, jar, user, "a login link")
}

/// A new session for `user` (signed in by `how`): the cookie, and on to the queue.
fn signed_in(web: &Web, jar: CookieJar, user: u64, how: &str) -> Response {
    match web
        .auth
        .create_session(user, web.session_days, SystemTime::now())
    {
        Ok(session) => {
            tracing::info!(user, how, "web dashboard: signed in");
            (jar.add(web.cookie(&session)), Redirect::to("/queue")).into_response()
        }
        Err(e) => {
            tracing::error!(error = %e, "web dashboard: can't store a session");
            refuse(
                StatusCode::INTERNAL_SERVER_ERROR,
                "Can't store the session.",
            )
        }
    }
}

#[derive(Debug, Deserialize)]
pub struct MiniApp {
    #[serde(rename = "initData", default)]
    init_data: String,
}

/// `POST /auth/telegram`: the dashboard opened as a Telegram Mini App signs in with Telegram's `initData` (signed
/// with the bot token, at most 24 hours old, for an allowed user) and gets the same session as a login link.
/// Anything else: 401 and nothing stored.
pub async fn telegram_login(
    State(web): State<Web>,
    jar: CookieJar,
    headers: HeaderMap,
    Form(form): Form<MiniApp>,
) -> Response {
    if let Err(refused) = web.same_origin(&headers) {
        return refused.into_response();
    }
    let now = chrono::Utc::now().timestamp();
    let user = match crate::telegram::webapp::verify_init_data(
        &form.init_data,
        web.bot_token.expose(),
        now,
    ) {
        Ok(user) if web.actions.access().is_member(user) => user,
        Ok(user) => {
            tracing::warn!(
                user,
                "web dashboard: Mini App sign-in by someone not allowed"
            );
            return refuse(
                StatusCode::UNAUTHORIZED,
                &crate::actions::Refusal::Outsider.to_string(),
            );
        }
        Err(e) => {
            tracing::warn!(error = %e, "web dashboard: Mini App sign-in refused");
            return refuse(
                StatusCode::UNAUTHORIZED,
                "Telegram's sign-in data did not check out.",
            );
        }
    };
    signed_in(&web, jar, user, "the Telegram Mini App")
}

#[derive(Debug, Deserialize)]
pub struct CsrfOnly {
    csrf: Option<String>,
}

pub async fn logout(
    State(web): State<Web>,
    jar: CookieJar,
    headers: HeaderMap,
    Form(form): Form<CsrfOnly>,
) -> Response {
    let session = match web.post_session(&jar, &headers, form.csrf.as_deref()) {
        Ok(s) => s,
        Err(refused) => return refused.into_response(),
    };
    web.auth.end_session(&session.token);
    let body = html! {
        h1 { "Signed out" }
        p { "Your session has ended. A new login link signs you in again." }
    };
    (
        jar.add(web.removal_cookie()),
        page("Signed out", None, body),
    )
        .into_response()
}

/// The queue page's filters (all optional).
#[derive(Debug, Default, Deserialize)]
pub struct Filter {
    #[serde(default)]
    priority: String,
    #[serde(default)]
    agent: String,
    #[serde(default)]
    tag: String,
    #[serde(default)]
    q: String,
    #[serde(default)]
    notice: String,
}

impl Filter {
    fn keeps(&self, plan: &Plan) -> bool {
        let is = |want: &str, have: Option<&str>| want.is_empty() || have == Some(want);
        let text = self.q.trim().to_lowercase();
        (self.priority.is_empty() || Priority::parse(&self.priority) == Some(plan.priority))
            && is(&self.agent, plan.agent.as_deref())
            && is(&self.tag, plan.tag.as_deref())
            && (text.is_empty()
                || plan.title.to_lowercase().contains(&text)
                || plan.id.to_lowercase().contains(&text)
                || plan.context.to_lowercase().contains(&text)
                || plan
                    .decisions
                    .iter()
                    .any(|d| d.title.to_lowercase().contains(&text)))
    }
}

/// Sorts plans as the queue shows them: overdue first, then the Telegram queue's order (priority, deadline,
/// age). Both sorts are stable.
pub fn order(plans: &mut [&Plan], now: chrono::DateTime<chrono::Utc>) {
    let sorted: Vec<&Plan> = queue_order(plans).into_iter().map(|i| plans[i]).collect();
    plans.copy_from_slice(&sorted);
    plans.sort_by_key(|p| !p.timing.overdue(now));
}

pub async fn queue(
    State(web): State<Web>,
    jar: CookieJar,
    Query(filter): Query<Filter>,
) -> Response {
    let session = match web.page_session(&jar) {
        Ok(s) => s,
        Err(to_login) => return to_login.into_response(),
    };
    let loaded = web.plans(session.user).await;
    let all: Vec<&Plan> = loaded.iter().map(|l| &l.plan).collect();
    let now = chrono::Utc::now();
    let mut agents: Vec<&str> = all.iter().filter_map(|p| p.agent.as_deref()).collect();
    let mut tags: Vec<&str> = all.iter().filter_map(|p| p.tag.as_deref()).collect();
    agents.sort_unstable();
    agents.dedup();
    tags.sort_unstable();
    tags.dedup();
    let mut shown: Vec<&Plan> = all.iter().copied().filter(|p| filter.keeps(p)).collect();
    order(&mut shown, now);
    // Each filter has a visible label tied to it (`for`): a screen reader names the box, a click on the word
    // focuses it.
    let select = |name: &str, label: &str, values: &[&str], current: &str| {
        let id = format!("filter-{name}");
        html! {
            label for=(id) { (label) }
            select #(id) name=(name) {
                option value="" { "any " (name) }
                @for v in values {
                    option value=(v) selected[*v == current] { (v) }
                }
            }
        }
    };
    let priorities: Vec<&str> = Priority::ALL.iter().map(|p| p.as_str()).collect();
    let body = html! {
        h1 { "Decision queue" }
        form.filters method="get" action="/queue" {
            (select("priority", "Priority", &priorities, &filter.priority))
            (select("agent", "Agent", &agents, &filter.agent))
            (select("tag", "Tag", &tags, &filter.tag))
            label for="filter-q" { "Text" }
            input #filter-q type="search" name="q" value=(filter.q) placeholder="text";
            button type="submit" { "Filter" }
        }
        @if let Some((kind, text)) = QueueNotice::of_code(&filter.notice).map(QueueNotice::shown) {
            (notice(kind, text))
        }
        div #live data-live {
            p.count { (shown.len()) " of " (all.len()) " pending plans" }
            @if shown.is_empty() {
                p.empty { "No pending decisions. Agents add plans with " code { "arbiter push" } "." }
            } @else {
                form method="get" action="/bulk" {
                    table.queue {
                        thead { tr { th {} th { "Priority" } th { "Plan" } th { "Agent" } th { "Tag" } th { "Answered" } th { "Due" } } }
                        tbody {
                            @for p in &shown {
                                tr data-item data-href=(plan_href(&p.id)) class=(if p.timing.overdue(now) { "overdue" } else { "" }) {
                                    td { input type="checkbox" name="plan" value=(p.id) aria-label={ "select " (p.title) }; }
                                    td { (layout::priority(p)) }
                                    td { a href=(plan_href(&p.id)) { (p.title) } }
                                    td { (p.agent.as_deref().unwrap_or("")) }
                                    td { (p.tag.as_deref().unwrap_or("")) }
                                    td { (p.answered()) "/" (p.decisions.len()) }
                                    td { (layout::due(p, now)) }
                                }
                            }
                        }
                    }
                    button type="submit" { "Answer selected plans together" }
                }
            }
        }
    };
    page("Queue", Some(&session), body).into_response()
}

/// Server-Sent Events: a `change` event whenever the daemon's rescan of pending/ sees a change.
pub async fn events(State(web): State<Web>, jar: CookieJar) -> Response {
    if web.session(&jar).is_none() {
        return StatusCode::UNAUTHORIZED.into_response();
    }
    // A lagging receiver missed some signals: one event still says "reload". The stream ends when the daemon
    // stops.
    let changes = BroadcastStream::new(web.changes.subscribe()).map(|_| true);
    let stop = WatchStream::from_changes(web.stop.clone()).map(|stop| !stop);
    let stream = changes
        .merge(stop)
        .take_while(|go| *go)
        .map(|_| Ok::<Event, Infallible>(Event::default().event("change").data("queue")));
    Sse::new(stream)
        .keep_alive(KeepAlive::default())
        .into_response()
}
