//! One plan with all its decisions: answer (options as buttons), custom text, skip, submit; who answered what and
//! when. Every form carries the fingerprints of what it showed: a plan the agent changed meanwhile records
//! nothing and the page comes back as the plan is now, with a notice.

use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum_extra::extract::cookie::CookieJar;
use maud::{Markup, html};
use serde::Deserialize;

use crate::actions::{Action, Actor, Opened, seen};
use crate::plan::{DecisionStatus, Kind, Plan};

use super::Web;
use super::auth::Session;
use super::guard::refuse;
use super::kinds;
use super::layout::{self, notice, page};
use super::reply::Notice;

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
    let text = Notice::of_code(&shown.notice).map(Notice::shown);
    render(&web, &session, &shown.id, text).await
}

/// The plan page as the plan is now (or the gone / refused page).
pub(super) async fn render(
    web: &Web,
    session: &Session,
    id: &str,
    message: Option<(&str, &str)>,
) -> Response {
    match web
        .actions
        .act(Actor::User(session.user), id, Action::Open)
        .await
        .opened()
    {
        Opened::Plan(loaded) => {
            let body = plan_body(web, &loaded.plan, session, message);
            page(&loaded.plan.title, Some(session), body).into_response()
        }
        Opened::Refused(r) => refuse(StatusCode::FORBIDDEN, &r.to_string()),
        Opened::Missing => gone(session),
    }
}

/// A plan that is no longer pending.
pub(super) fn gone(session: &Session) -> Response {
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
