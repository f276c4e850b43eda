//! Bulk answering: the pending decisions of the selected plans, grouped when they are the same question (same
//! decision id, same options: keys and labels, so one choice means exactly what was shown for every plan in the
//! group). One choice answers the whole group, one owner action per plan; optionally every selected plan that is
//! then complete is submitted. The result page lists what became of each plan.

use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use axum_extra::extract::cookie::CookieJar;
use axum_extra::extract::{Form, Query};
use maud::html;

use crate::actions::{Action, Actor, Opened, Outcome, seen};
use crate::plan::{Decision, DecisionStatus, Kind, Plan};

use super::Web;
use super::layout::{self, notice, page, plan_href};
use super::reply;

/// Pending decisions asked the same way in several plans: `(plan id, decision index)` each.
struct Group<'a> {
    first: &'a Decision,
    members: Vec<(&'a Plan, usize)>,
}

/// Groups the pending decisions (with options) of `plans`, in the order they first appear.
fn groups<'a>(plans: &[&'a Plan]) -> Vec<Group<'a>> {
    let mut out: Vec<Group<'a>> = Vec::new();
    for plan in plans {
        for (i, d) in plan.decisions.iter().enumerate() {
            // One option answers a `choice` (or an `edit`, by the option beside its proposal); the other kinds
            // are answered on their plan's page.
            let by_option = matches!(d.kind, Kind::Choice | Kind::Edit { .. });
            if d.status != DecisionStatus::Pending || d.options.is_empty() || !by_option {
                continue;
            }
            match out
                .iter_mut()
                .find(|g| g.first.id == d.id && g.first.options == d.options)
            {
                Some(g) => g.members.push((plan, i)),
                None => out.push(Group {
                    first: d,
                    members: vec![(plan, i)],
                }),
            }
        }
    }
    out
}

pub async fn show(
    State(web): State<Web>,
    jar: CookieJar,
    Query(fields): Query<Vec<(String, String)>>,
) -> Response {
    let session = match web.page_session(&jar) {
        Ok(s) => s,
        Err(to_login) => return to_login.into_response(),
    };
    let wanted: Vec<&str> = values(&fields, "plan").collect();
    let loaded = web.plans(session.user).await;
    let selected: Vec<&Plan> = loaded
        .iter()
        .map(|l| &l.plan)
        .filter(|p| wanted.contains(&p.id.as_str()))
        .collect();
    let groups = groups(&selected);
    let body = html! {
        h1 { "Answer " (selected.len()) " plans together" }
        @if selected.is_empty() {
            (notice("warn", "None of the selected plans is pending. Select plans on the queue page."))
        }
        form.bulk method="post" action="/bulk" {
            input type="hidden" name="csrf" value=(session.csrf);
            @for p in &selected { input type="hidden" name="plan" value=(p.id); }
            @for (g, group) in groups.iter().enumerate() {
                fieldset.group data-item {
                    legend { (group.first.title) " " code { (group.first.id) } " · in " (group.members.len()) " plans" }
                    @if !group.first.context.trim().is_empty() { div.context { (layout::markdown(&group.first.context)) } }
                    p.members {
                        @for (plan, _) in &group.members { a href=(plan_href(&plan.id)) { (plan.title) } " " }
                    }
                    input type="hidden" name={ "decision" (g) } value=(group.first.id);
                    @for (plan, i) in &group.members {
                        input type="hidden" name={ "member" (g) } value={ (i) ":" (plan.id) };
                    }
                    div.options {
                        @for (j, o) in group.first.options.iter().enumerate() {
                            label.option {
                                input type="radio" name={ "choice" (g) } value={ (j) ":" (seen::of_option(group.first, o)) } data-key=(j + 1);
                                span.key { (j + 1) } " " code { (o.key) } " — " (o.label)
                            }
                        }
                        label.option { input type="radio" name={ "choice" (g) } value="" checked; " leave unanswered" }
                    }
                }
            }
            @if groups.is_empty() && !selected.is_empty() {
                p { "No pending decisions with options in these plans." }
            }
            label.submit-all { input type="checkbox" name="submit" value="1"; " Submit every selected plan that is complete afterwards" }
            button.primary type="submit" data-submit { "Answer" }
        }
    };
    page("Bulk answering", Some(&session), body).into_response()
}

fn values<'a>(fields: &'a [(String, String)], name: &str) -> impl Iterator<Item = &'a str> {
    let name = name.to_owned();
    fields
        .iter()
        .filter(move |(k, _)| *k == name)
        .map(|(_, v)| v.as_str())
}

/// One line of the result page.
struct Line {
    plan: String,
    what: String,
    result: &'static str,
    detail: String,
}

pub async fn answer(
    State(web): State<Web>,
    jar: CookieJar,
    headers: HeaderMap,
    Form(fields): Form<Vec<(String, String)>>,
) -> Response {
    let csrf = values(&fields, "csrf").next();
    let session = match web.post_session(&jar, &headers, csrf) {
        Ok(s) => s,
        Err(refused) => return refused.into_response(),
    };
    let mut lines = Vec::new();
    for g in 0.. {
        let Some(decision_id) = values(&fields, &format!("decision{g}")).next() else {
            break;
        };
        let choice = values(&fields, &format!("choice{g}")).next().unwrap_or("");
        let Some((option, fp)) = choice
            .split_once(':')
            .and_then(|(j, fp)| Some((j.parse::<usize>().ok()?, fp)))
        else {
            continue;
        };
        for member in values(&fields, &format!("member{g}")) {
            let Some((decision, plan_id)) = member
                .split_once(':')
                .and_then(|(i, id)| Some((i.parse::<usize>().ok()?, id)))
            else {
                continue;
            };
            let action = Action::Answer {
                decision,
                option,
                seen: fp.to_owned(),
            };
            let outcome = web
                .actions
                .act(Actor::User(session.user), plan_id, action)
                .await;
            lines.push(line(plan_id, decision_id, &outcome));
        }
    }
    if values(&fields, "submit").next() == Some("1") {
        for plan_id in values(&fields, "plan") {
            // The plan as it is after this form's answers: submitted only as it is then.
            let complete = match web
                .actions
                .act(Actor::User(session.user), plan_id, Action::Open)
                .await
                .opened()
            {
                Opened::Plan(l) if l.plan.remaining() == 0 && !l.plan.decisions.is_empty() => {
                    Some(crate::actions::seen::of_answers(&l.plan))
                }
                Opened::Plan(_) | Opened::Refused(_) | Opened::Missing => None,
            };
            if let Some(seen) = complete {
                let outcome = web
                    .actions
                    .act(Actor::User(session.user), plan_id, Action::Submit { seen })
                    .await;
                lines.push(line(plan_id, "submit", &outcome));
            }
        }
    }
    let body = html! {
        h1 { "Bulk answering: results" }
        @if lines.is_empty() { (notice("warn", "Nothing was chosen, so nothing was recorded.")) }
        table.results {
            thead { tr { th { "Plan" } th { "Decision" } th { "Result" } th {} } }
            tbody {
                @for l in &lines {
                    tr class={ "result " (l.result) } {
                        td { a href=(plan_href(&l.plan)) { (l.plan) } }
                        td { code { (l.what) } }
                        td { (l.result) }
                        td { (l.detail) }
                    }
                }
            }
        }
        p { a href="/queue" { "Back to the queue" } }
    };
    page("Bulk answering", Some(&session), body).into_response()
}

fn line(plan: &str, what: &str, outcome: &Outcome) -> Line {
    let (result, detail) = reply::line(outcome);
    Line {
        plan: plan.to_owned(),
        what: what.to_owned(),
        result,
        detail,
    }
}
