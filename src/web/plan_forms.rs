//! The plan page's forms: an answer, custom text, a note, a delegation, a skip (`/plan/decide`), submit or sign off
//! (`/plan/submit`), and send back with feedback (`/plan/request-changes`). One form is one action, carrying the
//! fingerprints of what the page showed: a plan the agent changed meanwhile records nothing, and the page comes back
//! as the plan is now, with a notice.

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use axum_extra::extract::Form;
use axum_extra::extract::cookie::CookieJar;
use serde::Deserialize;

use crate::actions::{Action, Actor, Outcome, Typed};

use super::Web;
use super::auth::Session;
use super::guard::refuse;
use super::kinds;
use super::layout::{plan_href, query};
use super::plan_page::{gone, render};
use super::reply::{self, Page, QueueNotice};

#[derive(Debug, Deserialize)]
pub struct Decide {
    csrf: Option<String>,
    #[serde(default)]
    plan: String,
    #[serde(default)]
    decision: usize,
    #[serde(default)]
    seen: String,
    option: Option<String>,
    #[serde(rename = "do")]
    what: Option<String>,
    #[serde(default)]
    text: String,
    #[serde(default)]
    note: String,
    to: Option<u64>,
    /// A `multi` decision's checked options.
    #[serde(default)]
    pick: Vec<usize>,
    /// A `multi` decision's own text (`allow_custom`), added to the checked options.
    #[serde(default)]
    other: String,
    /// A typed answer: a text, a number, an edited proposal.
    value: Option<String>,
    /// A `datetime-local` field (UTC, no offset).
    datetime: Option<String>,
}

pub async fn decide(
    State(web): State<Web>,
    jar: CookieJar,
    headers: HeaderMap,
    Form(form): Form<Decide>,
) -> Response {
    let session = match web.post_session(&jar, &headers, form.csrf.as_deref()) {
        Ok(s) => s,
        Err(refused) => return refused.into_response(),
    };
    let (user, id, decision) = (session.user, form.plan.as_str(), form.decision);
    // Enter pressed in a text field: the field that holds text says what was meant; both or neither: nothing.
    let typed = form
        .datetime
        .as_deref()
        .map(kinds::utc_datetime)
        // Browsers post a textarea's line breaks as CRLF (HTML's form encoding): an edited proposal's are `\n`.
        .or_else(|| form.value.as_ref().map(|v| v.replace("\r\n", "\n")));
    let what = match form.what.as_deref() {
        // Enter in a multi's own-text field: Done with what is ticked and typed.
        Some("enter") if !form.other.trim().is_empty() => Some("multi"),
        Some("enter") => match (
            form.text.trim().is_empty(),
            form.note.trim().is_empty(),
            typed.as_deref().is_none_or(|t| t.trim().is_empty()),
        ) {
            (false, true, true) => Some("custom"),
            (true, false, true) => Some("note"),
            (true, true, false) => Some("input"),
            _ => None,
        },
        other => other,
    };
    let outcome = match (form.option.as_deref(), what) {
        (Some(choice), _) => {
            let Some((option, seen)) = choice
                .split_once(':')
                .and_then(|(j, s)| Some((j.parse().ok()?, s.to_owned())))
            else {
                return refuse(
                    StatusCode::BAD_REQUEST,
                    "Malformed answer. Nothing was changed.",
                );
            };
            let action = Action::Answer {
                decision,
                option,
                seen,
            };
            web.actions.act(Actor::User(user), id, action).await
        }
        (None, Some("multi")) => {
            let action = Action::AnswerMulti {
                decision,
                options: form.pick.clone(),
                custom: Some(form.other.trim().to_owned()).filter(|t| !t.is_empty()),
                seen: form.seen.clone(),
            };
            web.actions.act(Actor::User(user), id, action).await
        }
        (None, Some(what @ ("input" | "yes" | "no"))) => {
            let input = match what {
                "yes" | "no" => what.to_owned(),
                _ => typed.unwrap_or_default(),
            };
            let action = Action::AnswerInput {
                decision,
                input,
                seen: form.seen.clone(),
            };
            web.actions.act(Actor::User(user), id, action).await
        }
        (None, Some("approve")) => {
            let action = Action::Approve {
                decision,
                seen: form.seen.clone(),
            };
            web.actions.act(Actor::User(user), id, action).await
        }
        (None, Some("skip")) => {
            let action = Action::Skip {
                decision,
                seen: form.seen.clone(),
            };
            web.actions.act(Actor::User(user), id, action).await
        }
        (None, Some("custom")) => {
            let action = Action::Custom {
                to: shown(decision, &form.seen),
                text: form.text.clone(),
            };
            web.actions.act(Actor::User(user), id, action).await
        }
        (None, Some("note")) => {
            let action = Action::Note {
                to: shown(decision, &form.seen),
                text: form.note.clone(),
            };
            web.actions.act(Actor::User(user), id, action).await
        }
        (None, Some("delegate")) => {
            let Some(to) = form.to else {
                return refuse(
                    StatusCode::BAD_REQUEST,
                    "Nobody chosen. Nothing was changed.",
                );
            };
            let action = Action::Delegate {
                decision,
                to,
                seen: form.seen.clone(),
            };
            web.actions.act(Actor::User(user), id, action).await
        }
        (None, Some("takeback")) => {
            let action = Action::TakeBack {
                decision,
                seen: form.seen.clone(),
            };
            web.actions.act(Actor::User(user), id, action).await
        }
        _ => {
            return refuse(
                StatusCode::BAD_REQUEST,
                "Nothing chosen. Nothing was changed.",
            );
        }
    };
    respond(&web, &session, id, outcome, Some(decision)).await
}

/// Decision `decision` as the form showed it: the text and the check that it is still that decision are one
/// action.
fn shown(decision: usize, seen: &str) -> Typed {
    Typed::Shown {
        decision,
        seen: seen.to_owned(),
    }
}

#[derive(Debug, Deserialize)]
pub struct Submit {
    csrf: Option<String>,
    #[serde(default)]
    plan: String,
    #[serde(default)]
    seen: String,
    /// `decline`: an elicitation plan declined as a whole.
    #[serde(rename = "do")]
    what: Option<String>,
}

#[derive(Debug, Deserialize)]
pub struct RequestChanges {
    csrf: Option<String>,
    #[serde(default)]
    plan: String,
    #[serde(default)]
    seen: String,
    #[serde(default)]
    feedback: String,
}

/// 🔁 Request changes: the plan goes back to its agent with the owner's request, on the answers the page showed.
pub async fn request_changes(
    State(web): State<Web>,
    jar: CookieJar,
    headers: HeaderMap,
    Form(form): Form<RequestChanges>,
) -> Response {
    let session = match web.post_session(&jar, &headers, form.csrf.as_deref()) {
        Ok(s) => s,
        Err(refused) => return refused.into_response(),
    };
    let id = form.plan.as_str();
    let action = Action::RequestChanges {
        seen: form.seen,
        // Browsers post a textarea's line breaks as CRLF (HTML's form encoding): the owner typed `\n`.
        feedback: form.feedback.replace("\r\n", "\n"),
    };
    let outcome = web.actions.act(Actor::User(session.user), id, action).await;
    respond(&web, &session, id, outcome, None).await
}

pub async fn submit(
    State(web): State<Web>,
    jar: CookieJar,
    headers: HeaderMap,
    Form(form): Form<Submit>,
) -> Response {
    let session = match web.post_session(&jar, &headers, form.csrf.as_deref()) {
        Ok(s) => s,
        Err(refused) => return refused.into_response(),
    };
    let id = form.plan.as_str();
    // Submit only what the page showed: a plan changed meanwhile comes back for review instead.
    let action = match form.what.as_deref() {
        Some("decline") => Action::Decline { seen: form.seen },
        _ => Action::Submit { seen: form.seen },
    };
    let outcome = web.actions.act(Actor::User(session.user), id, action).await;
    respond(&web, &session, id, outcome, None).await
}

/// The page after an action ([`reply::page`]): back to the plan (recorded, or stale with a notice), the queue after
/// a submit, a clear page when the plan is gone or the action refused.
async fn respond(
    web: &Web,
    session: &Session,
    id: &str,
    outcome: Outcome,
    decision: Option<usize>,
) -> Response {
    match reply::page(&outcome) {
        Page::Plan(notice) => {
            let anchor = decision.map(|d| format!("#d{d}")).unwrap_or_default();
            Redirect::to(&format!(
                "{}&{}{anchor}",
                plan_href(id),
                query(&[("notice", notice.code())])
            ))
            .into_response()
        }
        Page::Submitted { plan, rule } => {
            tracing::info!(plan = %plan.plan.id, user = session.user, "submitted from the web dashboard");
            // A standing rule its answer made, or one it may make: the Rules page says so.
            if let Some(rule) = rule {
                let to = format!(
                    "/rules?{}",
                    query(&[("notice", "made"), ("rule", &rule.id)])
                );
                return Redirect::to(&to).into_response();
            }
            let (actions, done) = (web.actions.clone(), plan.plan.clone());
            let actor = Actor::User(session.user);
            let offered =
                tokio::task::spawn_blocking(move || actions.offer(actor, &done).is_some())
                    .await
                    .unwrap_or(false);
            if offered {
                let to = format!(
                    "/rules?{}",
                    query(&[("notice", "submitted"), ("offer", &plan.plan.id)])
                );
                return Redirect::to(&to).into_response();
            }
            Redirect::to(&QueueNotice::Submitted.href()).into_response()
        }
        Page::SentBack(plan) => {
            tracing::info!(plan = %plan.plan.id, user = session.user, "sent back from the web dashboard");
            Redirect::to(&QueueNotice::SentBack.href()).into_response()
        }
        Page::Gone => gone(session),
        Page::Refused(status, why) => refuse(status, &why),
        Page::Again(warning) => {
            let mut response = render(web, session, id, Some(("bad", &warning))).await;
            *response.status_mut() = StatusCode::UNPROCESSABLE_ENTITY;
            response
        }
    }
}
