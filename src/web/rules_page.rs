//! The Rules page: every standing rule with its count and last use, `⏸ Pause` / `▶️ Resume` / `🗑 Revoke`
//! (`/rules/change`), and `🔁 Always answer` on a plan just submitted the same way three times in a row
//! (`/rules/always`). Each form is one owner action through the action layer, by the session's user id; the forms
//! deserialize into typed values, so anything else is refused before the rules are read.

use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use axum_extra::extract::Form;
use axum_extra::extract::cookie::CookieJar;
use maud::{Markup, html};
use serde::Deserialize;

use crate::actions::Actor;
use crate::actions::rules::{RuleAction, RuleOutcome};
use crate::queue::rules::{Rule, State as RuleState};

use super::Web;
use super::auth::Session;
use super::guard::refuse;
use super::layout::{notice, page, plan_href, query};

#[derive(Debug, Deserialize)]
pub struct Shown {
    #[serde(default)]
    notice: String,
    #[serde(default)]
    rule: String,
    /// A completed plan whose answer may become a rule (after a submit).
    #[serde(default)]
    offer: String,
}

/// What a rule's button does.
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Op {
    Pause,
    Resume,
    Revoke,
}

#[derive(Debug, Deserialize)]
pub struct Change {
    csrf: Option<String>,
    rule: String,
    op: Op,
}

#[derive(Debug, Deserialize)]
pub struct Always {
    csrf: Option<String>,
    plan: String,
    seen: String,
}

pub async fn show(State(web): State<Web>, jar: CookieJar, Query(shown): Query<Shown>) -> Response {
    let session = match web.page_session(&jar) {
        Ok(s) => s,
        Err(to_login) => return to_login.into_response(),
    };
    let message = match shown.notice.as_str() {
        "paused" => Some((
            "ok",
            format!(
                "⏸ Rule {} paused: it holds from the next prompt.",
                shown.rule
            ),
        )),
        "resumed" => Some((
            "ok",
            format!(
                "▶️ Rule {} resumed: it holds from the next prompt.",
                shown.rule
            ),
        )),
        "revoked" => Some(("ok", format!("🗑 Rule {} revoked.", shown.rule))),
        "made" => Some(("ok", format!("🔁 Rule {} made.", shown.rule))),
        "unchanged" => Some((
            "warn",
            format!("Rule {} already stood so: nothing changed.", shown.rule),
        )),
        "final" => Some((
            "warn",
            format!(
                "Rule {} is revoked or expired: nothing changed.",
                shown.rule
            ),
        )),
        "stale" => Some((
            "warn",
            "That offer no longer holds: nothing was made.".to_owned(),
        )),
        "gone" => Some(("warn", "No such rule: nothing changed.".to_owned())),
        "submitted" => Some(("ok", "✅ Plan submitted.".to_owned())),
        _ => None,
    };
    let web2 = web.clone();
    let offer = shown.offer.clone();
    let user = session.user;
    let read = tokio::task::spawn_blocking(move || {
        let actor = Actor::User(user);
        let offer = (!offer.is_empty())
            .then(|| web2.actions.queue().find(&offer).ok())
            .flatten()
            .filter(|l| web2.actions.access().sees(actor, &l.plan))
            .and_then(|l| {
                let o = web2.actions.offer(actor, &l.plan)?;
                Some((l.plan.id.clone(), l.plan.title.clone(), o.label, o.seen))
            });
        let root = web2.actions.queue().root().to_owned();
        let rules = web2.actions.rules_for(actor).map(|r| {
            r.map(|all| {
                all.rules
                    .into_iter()
                    .map(|rule| {
                        let on_record = rule.is_on_record(&root);
                        (rule, on_record)
                    })
                    .collect::<Vec<_>>()
            })
        });
        (offer, rules)
    })
    .await;
    let Ok((offer, rules)) = read else {
        return refuse(
            StatusCode::INTERNAL_SERVER_ERROR,
            "The rules could not be read.",
        );
    };
    let now = crate::clock::now();
    let body = html! {
        h1 { "Standing rules" }
        @if let Some((kind, text)) = &message { (notice(kind, text)) }
        @if let Some((plan, title, label, seen)) = &offer {
            form.offer method="post" action="/rules/always" {
                p { "You answered " a href=(plan_href(plan)) { (title) } " the same way three times in a row." }
                input type="hidden" name="csrf" value=(session.csrf);
                input type="hidden" name="plan" value=(plan);
                input type="hidden" name="seen" value=(seen);
                button type="submit" { "🔁 Always answer \"" (label) "\"" }
            }
        }
        @match rules {
            None => (notice("bad", "Only the bot's members see the rules.")),
            Some(Err(e)) => (notice("bad", &format!("⚠️ {e}. Every such prompt is asked until it is fixed."))),
            Some(Ok(rules)) if rules.is_empty() => p {
                "None yet. On a permission prompt, 🔁 Always allow this makes one (that agent, that exact command, \
                 that project), ⏱ Allow … for 30 min a grant for the session; a question answered the same way \
                 three times in a row offers 🔁 Always answer. A rule never types for you."
            },
            Some(Ok(rules)) => (table(&rules, &session, &now)),
        }
    };
    page("Rules", Some(&session), body).into_response()
}

/// Every rule, active and paused first.
fn table(rules: &[(Rule, bool)], session: &Session, now: &str) -> Markup {
    let mut order: Vec<&(Rule, bool)> = rules.iter().collect();
    order.sort_by_key(|(r, _)| match r.state_at(now) {
        RuleState::Active => 0,
        RuleState::Paused => 1,
        RuleState::Expired => 2,
        RuleState::Revoked => 3,
    });
    html! {
        table.rules {
            thead { tr {
                th { "Rule" } th { "State" } th { "Answers" } th { "Agent" } th { "Where" }
                th { "Used" } th { "Last use" } th { "Made by" } th { "" }
            } }
            tbody {
                @for (rule, on_record) in order {
                    @let state = rule.state_at(now);
                    tr {
                        td { code { (rule.id) } }
                        td {
                            (state.as_str())
                            @if let Some(reason) = rule.change.as_ref().filter(|c| state == RuleState::Paused && c.by.starts_with("rule:")).and_then(|c| c.reason.as_deref()) {
                                br; small { "paused itself: " (reason) }
                            }
                            @if !on_record { br; strong.bad { "not in the audit trail: answers nothing" } }
                        }
                        td { code { (rule.what()) } " → " code { (rule.answer) } }
                        td { (rule.agent) }
                        td {
                            @if let Some(p) = &rule.project { code { (p) } }
                            @if let Some(s) = &rule.session { " session " code { (s) } }
                            @if let Some(until) = &rule.expires_at { " until " (until) }
                        }
                        td { (rule.fired) "×" }
                        td { (rule.last_fired.as_deref().unwrap_or("—")) }
                        td { (rule.created_by) }
                        td.actions {
                            @if matches!(state, RuleState::Active | RuleState::Paused) {
                                form method="post" action="/rules/change" {
                                    input type="hidden" name="csrf" value=(session.csrf);
                                    input type="hidden" name="rule" value=(rule.id);
                                    @if state == RuleState::Active {
                                        button type="submit" name="op" value="pause" { "⏸ Pause" }
                                    } @else {
                                        button type="submit" name="op" value="resume" { "▶️ Resume" }
                                    }
                                    button type="submit" name="op" value="revoke" { "🗑 Revoke" }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// `/rules` with a notice about `rule`.
fn back(notice: &str, rule: &str) -> Response {
    Redirect::to(&format!(
        "/rules?{}",
        query(&[("notice", notice), ("rule", rule)])
    ))
    .into_response()
}

pub async fn change(
    State(web): State<Web>,
    jar: CookieJar,
    headers: HeaderMap,
    Form(form): Form<Change>,
) -> Response {
    let session = match web.post_session(&jar, &headers, form.csrf.as_deref()) {
        Ok(s) => s,
        Err(refused) => return refused.into_response(),
    };
    let rule = form.rule.clone();
    let (action, done) = match form.op {
        Op::Pause => (RuleAction::Pause { rule }, "paused"),
        Op::Resume => (RuleAction::Resume { rule }, "resumed"),
        Op::Revoke => (RuleAction::Revoke { rule }, "revoked"),
    };
    match web
        .actions
        .act_rule(Actor::User(session.user), action)
        .await
    {
        RuleOutcome::Done(r) => {
            tracing::info!(rule = %r.id, user = session.user, done, "rule changed from the web dashboard");
            back(done, &r.id)
        }
        RuleOutcome::Unchanged(r) => back("unchanged", &r.id),
        RuleOutcome::Final(r) => back("final", &r.id),
        RuleOutcome::NotFound | RuleOutcome::Stale => back("gone", &form.rule),
        RuleOutcome::Refused(refusal) => refuse(StatusCode::FORBIDDEN, &refusal.to_string()),
        RuleOutcome::Failed(why) => refuse(
            StatusCode::INTERNAL_SERVER_ERROR,
            &format!("Not changed: {why}"),
        ),
    }
}

pub async fn always(
    State(web): State<Web>,
    jar: CookieJar,
    headers: HeaderMap,
    Form(form): Form<Always>,
) -> Response {
    let session = match web.post_session(&jar, &headers, form.csrf.as_deref()) {
        Ok(s) => s,
        Err(refused) => return refused.into_response(),
    };
    let action = RuleAction::AlwaysAnswer {
        plan: form.plan,
        seen: form.seen,
    };
    match web
        .actions
        .act_rule(Actor::User(session.user), action)
        .await
    {
        RuleOutcome::Done(r) | RuleOutcome::Unchanged(r) => back("made", &r.id),
        RuleOutcome::Refused(refusal) => refuse(StatusCode::FORBIDDEN, &refusal.to_string()),
        RuleOutcome::Stale | RuleOutcome::NotFound | RuleOutcome::Final(_) => back("stale", ""),
        RuleOutcome::Failed(why) => refuse(
            StatusCode::INTERNAL_SERVER_ERROR,
            &format!("No rule made: {why}"),
        ),
    }
}
