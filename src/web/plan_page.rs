//! One plan with all its decisions: answer (options as buttons), custom text, skip, submit; who answered what and
//! when. Every form carries the fingerprints of what it showed: a plan the agent changed meanwhile records
//! nothing and the page comes back as the plan is now, with a notice.

use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use axum_extra::extract::Form;
use axum_extra::extract::cookie::CookieJar;
use maud::{Markup, html};
use serde::Deserialize;

use crate::actions::{Action, Actor, Outcome, Typed, seen};
use crate::plan::{DecisionStatus, Kind, Plan};

use super::Web;
use super::auth::Session;
use super::guard::refuse;
use super::kinds;
use super::layout::{self, notice, page, plan_href, query};

#[derive(Debug, Deserialize)]
pub struct Shown {
    #[serde(default)]
    id: String,
    #[serde(default)]
    notice: String,
}

pub async fn show(State(web): State<Web>, jar: CookieJar, Query(shown): Query<Shown>) -> Response {
    let session = match web.page_session(&jar) {
        Ok(s) => s,
        Err(to_login) => return to_login.into_response(),
    };
    let text = match shown.notice.as_str() {
        "recorded" => Some(("ok", "✅ Recorded.")),
        "signed" => Some((
            "ok",
            "✍️ Your sign-off is recorded. The plan is submitted when enough approvers have signed off.",
        )),
        "stale" => Some((
            "warn",
            "⚠️ This plan changed since your page was drawn, so nothing was recorded. This is the plan as it is now.",
        )),
        _ => None,
    };
    render(&web, &session, &shown.id, text).await
}

/// The plan page as the plan is now (or the gone / refused page).
async fn render(web: &Web, session: &Session, id: &str, message: Option<(&str, &str)>) -> Response {
    match web
        .actions
        .act(Actor::User(session.user), id, Action::Open)
        .await
    {
        Outcome::Current(loaded) => {
            let body = plan_body(web, &loaded.plan, session, message);
            page(&loaded.plan.title, Some(session), body).into_response()
        }
        Outcome::Refused(r) => refuse(StatusCode::FORBIDDEN, &r.to_string()),
        _ => gone(session),
    }
}

/// A plan that is no longer pending.
fn gone(session: &Session) -> Response {
    let body = html! {
        h1 { "This plan is no longer pending" }
        (notice("warn", "It was submitted, or its agent removed it. Nothing was recorded."))
        p { a href="/queue" { "Back to the queue" } }
    };
    (
        StatusCode::NOT_FOUND,
        page("Plan gone", Some(session), body),
    )
        .into_response()
}

fn plan_body(web: &Web, plan: &Plan, session: &Session, message: Option<(&str, &str)>) -> Markup {
    let now = chrono::Utc::now();
    let remaining = plan.remaining();
    let access = web.actions.access();
    let name = |who: &str| access.display(who);
    let name_of = |id: u64| access.display(&id.to_string());
    let delegates = access.delegates_for(session.user, plan);
    let require = plan.approval.require;
    html! {
        div #live data-live {
            h1 { (plan.title) }
            p.meta {
                (layout::priority(plan))
                @if let Some(a) = &plan.agent { " · agent " b { (a) } }
                @if let Some(t) = &plan.tag { " · tag " b { (t) } }
                " · " (plan.answered()) "/" (plan.decisions.len()) " answered "
                (layout::due(plan, now))
            }
            @if let Some((kind, text)) = message { (notice(kind, text)) }
            @if !plan.context.trim().is_empty() {
                div.context { (layout::markdown(&plan.context)) }
            }
            @for (i, d) in plan.decisions.iter().enumerate() {
                section.decision data-item id={ "d" (i) } {
                    h2 { "Decision " (i + 1) ": " (d.title) " " span class={ "status " (d.status.as_str()) } { (d.status.as_str()) } }
                    (answered(d, &name))
                    @if let Some(to) = d.delegated_to {
                        p.meta { "👉 Delegated to " b { (name_of(to)) }
                            @if let Some(by) = d.delegated_by { " by " (name_of(by)) } }
                    }
                    @if let Some(note) = &d.note { p.note { "💬 " (note) } }
                    @if !d.context.trim().is_empty() { div.context { (layout::markdown(&d.context)) } }
                    form.decide method="post" action="/plan/decide" {
                        input type="hidden" name="csrf" value=(session.csrf);
                        input type="hidden" name="plan" value=(plan.id);
                        input type="hidden" name="decision" value=(i);
                        input type="hidden" name="seen" value=(seen::of_decision(d));
                        // Enter in a text field submits a form with its first submit button: this one, never
                        // an option (the server takes it as the one text field that was filled in).
                        button.enter type="submit" name="do" value="enter" hidden tabindex="-1" aria-hidden="true" {}
                        @if let Some(inputs) = kinds::inputs(d, i) { (inputs) }
                        div.options {
                            @for (j, o) in d.options.iter().enumerate().filter(|_| lettered(d)) {
                                @let chosen = d.status == DecisionStatus::Answered && d.answer.as_deref() == Some(o.key.as_str());
                                button type="submit" name="option" value={ (j) ":" (seen::of_option(d, o)) }
                                    data-key=(j + 1) class=(if chosen { "option chosen" } else { "option" }) {
                                    span.key { (j + 1) } " " code { (o.key) } " — " (o.label)
                                }
                            }
                        }
                        @if d.kind == Kind::Choice && (d.allow_custom || d.options.is_empty()) {
                            div.custom {
                                input type="text" name="text" placeholder="Custom answer" aria-label="Custom answer";
                                button type="submit" name="do" value="custom" { "✏️ Answer with this text" }
                            }
                        }
                        @if d.status != DecisionStatus::Skipped && !d.required {
                            button.skip type="submit" name="do" value="skip" { "⏭ Skip" }
                        }
                        div.custom {
                            input type="text" name="note" placeholder="Note (never changes the answer)" aria-label="Note";
                            button type="submit" name="do" value="note" { "💬 Save note" }
                        }
                        @if !delegates.is_empty() {
                            div.custom {
                                select name="to" aria-label="Delegate to" {
                                    @for m in &delegates { option value=(m) { (name_of(*m)) } }
                                }
                                button type="submit" name="do" value="delegate" { "👉 Delegate" }
                                @if d.delegated_to.is_some() {
                                    button type="submit" name="do" value="takeback" { "↩️ Take back" }
                                }
                            }
                        }
                    }
                }
            }
            form.submit method="post" action="/plan/submit" {
                input type="hidden" name="csrf" value=(session.csrf);
                input type="hidden" name="plan" value=(plan.id);
                input type="hidden" name="seen" value=(seen::of_answers(plan));
                @if require > 1 {
                    p.meta { "Signed off: " (plan.approval.signoffs.len()) "/" (require)
                        @for (k, id) in plan.approval.signoffs.iter().enumerate() {
                            @if k == 0 { " — " } @else { ", " } (name_of(*id))
                        }
                    }
                }
                @if plan.elicitation {
                    button type="submit" name="do" value="decline" { "❌ Decline" }
                    " "
                }
                @if remaining == 0 && require > 1 {
                    button.primary type="submit" data-submit { (crate::telegram::views::sign_off_label(plan)) }
                } @else if remaining == 0 {
                    button.primary type="submit" data-submit { "✅ Submit" }
                } @else {
                    button type="submit" disabled { "Submit (" (remaining) " still pending)" }
                }
            }
            // One form = one action: the request and the answers it was written against. An elicitation is
            // declined instead.
            @if !plan.elicitation { form.request-changes method="post" action="/plan/request-changes" {
                input type="hidden" name="csrf" value=(session.csrf);
                input type="hidden" name="plan" value=(plan.id);
                input type="hidden" name="seen" value=(seen::of_answers(plan));
                label for="feedback" { "What should the agent change?" }
                textarea id="feedback" name="feedback" rows="3" required {}
                button type="submit" { "🔁 Request changes" }
            } }
        }
    }
}

/// `Answer: … · by … · when` or `Skipped · by … · when`; nothing while the decision is pending.
pub(super) fn answered(d: &crate::plan::Decision, name: &dyn Fn(&str) -> String) -> Markup {
    html! {
        @match d.status {
            DecisionStatus::Answered => p.answered {
                "Answer: " b { (answer_text(d)) }
                @if let Some(by) = &d.answered_by { " · by " (name(by)) }
                @if let Some(at) = &d.answered_at { " · " (at) }
            },
            DecisionStatus::Skipped => p.answered {
                "Skipped"
                @if let Some(by) = &d.answered_by { " · by " (name(by)) }
                @if let Some(at) = &d.answered_at { " · " (at) }
            },
            DecisionStatus::Pending => {},
        }
    }
}

/// True when the decision's options are answered by a button each: a `choice`, or the options beside an `edit`.
fn lettered(d: &crate::plan::Decision) -> bool {
    matches!(d.kind, Kind::Choice | Kind::Edit { .. })
}

/// The recorded answer as the owner reads it: the option's label, or the custom text; a typed answer as
/// [`kinds::answer_text`] shows it.
pub(super) fn answer_text(d: &crate::plan::Decision) -> String {
    if d.kind != Kind::Choice && d.chosen_option().is_none() {
        return kinds::answer_text(d);
    }
    match d.chosen_option() {
        Some(j) => format!("{} — {}", d.options[j].key, d.options[j].label),
        None => format!("“{}” (custom)", d.answer.as_deref().unwrap_or("")),
    }
}

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

/// The page after an action: back to the plan (recorded, or stale with a notice), the queue after a submit, a
/// clear page when the plan is gone or the action refused.
async fn respond(
    web: &Web,
    session: &Session,
    id: &str,
    outcome: Outcome,
    decision: Option<usize>,
) -> Response {
    let back = |notice: &str| {
        let anchor = decision.map(|d| format!("#d{d}")).unwrap_or_default();
        Redirect::to(&format!(
            "{}&{}{anchor}",
            plan_href(id),
            query(&[("notice", notice)])
        ))
        .into_response()
    };
    match outcome {
        Outcome::Recorded { .. }
        | Outcome::Current(_)
        | Outcome::Noted(_)
        | Outcome::Escalated { .. } => back("recorded"),
        Outcome::Stale(_) => back("stale"),
        Outcome::SignedOff(_) => back("signed"),
        Outcome::Submitted { plan, .. } => {
            tracing::info!(plan = %plan.plan.id, user = session.user, "submitted from the web dashboard");
            Redirect::to("/queue?notice=submitted").into_response()
        }
        Outcome::SentBack { plan, .. } => {
            tracing::info!(plan = %plan.plan.id, user = session.user, "sent back from the web dashboard");
            Redirect::to("/queue?notice=sent_back").into_response()
        }
        Outcome::Gone => gone(session),
        Outcome::Refused(r) => refuse(StatusCode::FORBIDDEN, &r.to_string()),
        Outcome::NotRecorded { error, .. } => {
            let text = match outcome_refusal(&error) {
                // Input that does not fit: why, and what is accepted.
                Some(refusal) => format!("Not recorded: {refusal}"),
                None => format!("Not recorded: {error}"),
            };
            let mut response = render(web, session, id, Some(("bad", &text))).await;
            *response.status_mut() = StatusCode::UNPROCESSABLE_ENTITY;
            response
        }
    }
}

/// The refusal of the owner's input, when that is why nothing was recorded.
fn outcome_refusal(error: &crate::queue::StoreError) -> Option<&crate::plan::InputRefusal> {
    match error {
        crate::queue::StoreError::Edit(e) => e.input_refusal(),
        _ => None,
    }
}
