//! The frame every page shares, and small pieces several pages draw.

use maud::{DOCTYPE, Markup, PreEscaped, html};

use crate::plan::Plan;

use super::auth::Session;
use super::markdown;

/// A whole page: header with navigation and sign-out (when signed in), then `body`.
#[must_use]
pub fn page(title: &str, session: Option<&Session>, body: Markup) -> Markup {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) " · Arbiter" }
                link rel="stylesheet" href="/assets/style.css";
                script src="/assets/app.js" defer {}
            }
            body {
                header {
                    nav {
                        strong { "⚖️ Arbiter" }
                        @if session.is_some() {
                            a href="/queue" { "Queue" }
                            a href="/stats" { "Stats" }
                            a href="/history" { "History" }
                            a href="/rules" { "Rules" }
                        }
                    }
                    @if let Some(s) = session {
                        form.signout method="post" action="/logout" {
                            input type="hidden" name="csrf" value=(s.csrf);
                            span.who { "user " (s.user) }
                            button type="submit" { "Sign out" }
                        }
                    }
                }
                main { (body) }
            }
        }
    }
}

/// Agent Markdown, rendered safely ([`markdown::to_html`]).
#[must_use]
pub fn markdown(source: &str) -> Markup {
    PreEscaped(markdown::to_html(source))
}

/// `/plan?id=<id>`, the id form-encoded.
#[must_use]
pub fn plan_href(id: &str) -> String {
    format!("/plan?{}", query(&[("id", id)]))
}

/// A query string from pairs.
#[must_use]
pub fn query(pairs: &[(&str, &str)]) -> String {
    let mut q = url::form_urlencoded::Serializer::new(String::new());
    for (k, v) in pairs {
        q.append_pair(k, v);
    }
    q.finish()
}

/// `🟠 high`.
#[must_use]
pub fn priority(plan: &Plan) -> Markup {
    html! { span class={ "priority " (plan.priority.as_str()) } { (plan.priority.icon()) " " (plan.priority.as_str()) } }
}

/// `⏰ due in 2h 15m` / `⏰ overdue by 5m`, or nothing.
#[must_use]
pub fn due(plan: &Plan, now: chrono::DateTime<chrono::Utc>) -> Markup {
    html! {
        @if let Some(deadline) = plan.timing.deadline {
            @let overdue = plan.timing.overdue(now);
            span class=(if overdue { "due overdue" } else { "due" }) {
                "⏰ " (crate::telegram::views::due_text(deadline, now))
            }
        }
    }
}

/// A notice line (`ok`, `warn` or `bad`).
#[must_use]
pub fn notice(kind: &str, text: &str) -> Markup {
    html! { p class={ "notice " (kind) } role="status" { (text) } }
}
