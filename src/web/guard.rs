//! What every response carries (security headers) and what every request must show: a Host and Origin of this
//! dashboard on every route ([`addressed_here`], the rules in [`super::origin`]), a session for any page, and for
//! a state-changing request also the session's CSRF token and a same-origin `Origin` header. A request that fails
//! a check is answered before any plan is read or written.

use std::time::SystemTime;

use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Redirect, Response};
use axum_extra::extract::cookie::{Cookie, CookieJar, SameSite};

use super::Web;
use super::auth::{Session, same_secret};
use super::layout;
use super::origin::{Foreign, Site};

/// The session cookie's name.
pub const COOKIE: &str = "arbiter_session";

/// Security headers on every response: a CSP without inline script, no MIME sniffing, referrers only to this dashboard (login links
/// carry a secret in their path), and framing only by Telegram's web client when the dashboard is public.
pub async fn headers(mut response: Response, frame_ancestors: &'static str) -> Response {
    let h = response.headers_mut();
    let csp = format!(
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; \
         form-action 'self'; base-uri 'none'; frame-ancestors {frame_ancestors}"
    );
    if let Ok(v) = HeaderValue::from_str(&csp) {
        h.insert(header::CONTENT_SECURITY_POLICY, v);
    }
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("same-origin"),
    );
    if !h.contains_key(header::CACHE_CONTROL) {
        h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    }
    response
}

impl Web {
    /// The live session the request's cookie belongs to, if any.
    pub fn session(&self, jar: &CookieJar) -> Option<Session> {
        let token = jar.get(COOKIE)?.value();
        self.auth.session(token, SystemTime::now())
    }

    /// A page's session, or the way to the login-needed page.
    pub fn page_session(&self, jar: &CookieJar) -> Result<Session, Denied> {
        self.session(jar).ok_or(Denied::SignIn)
    }

    /// A state-changing request's session: it must have one (401), come from a page of this dashboard (`Origin`,
    /// 403) and carry that session's CSRF token (403). Nothing is read or written before this passes.
    pub fn post_session(
        &self,
        jar: &CookieJar,
        headers: &HeaderMap,
        csrf: Option<&str>,
    ) -> Result<Session, Denied> {
        let Some(session) = self.session(jar) else {
            return Err(Denied::Refused(
                StatusCode::UNAUTHORIZED,
                "You are not signed in (or your session ended). Nothing was changed.",
            ));
        };
        self.same_origin(headers)?;
        match csrf {
            Some(token) if same_secret(token, &session.csrf) => Ok(session),
            _ => Err(Denied::Refused(
                StatusCode::FORBIDDEN,
                "This form is not from your current session (reload the page). Nothing was changed.",
            )),
        }
    }

    /// The request carries an `Origin` and it is this dashboard's ([`Site::is_own_origin`]): a form posted from
    /// one of its pages. The request's Host was checked on the way in ([`addressed_here`]).
    pub fn same_origin(&self, headers: &HeaderMap) -> Result<(), Denied> {
        let origin = headers.get(header::ORIGIN).and_then(|v| v.to_str().ok());
        if origin.is_some_and(|o| self.site.is_own_origin(o)) {
            Ok(())
        } else {
            Err(Denied::Refused(
                StatusCode::FORBIDDEN,
                "This request did not come from a page of this dashboard. Nothing was changed.",
            ))
        }
    }

    /// The session cookie for `session`.
    pub fn cookie(&self, session: &Session) -> Cookie<'static> {
        let mut cookie = Cookie::new(COOKIE, session.token.clone());
        cookie.set_http_only(true);
        cookie.set_same_site(SameSite::Strict);
        cookie.set_secure(self.secure());
        cookie.set_path("/");
        cookie.set_max_age(cookie::time::Duration::days(i64::from(self.session_days)));
        cookie
    }

    /// An expired cookie that removes the session cookie from the browser.
    pub fn removal_cookie(&self) -> Cookie<'static> {
        let mut cookie = Cookie::new(COOKIE, "");
        cookie.set_http_only(true);
        cookie.set_same_site(SameSite::Strict);
        cookie.set_secure(self.secure());
        cookie.set_path("/");
        cookie.make_removal();
        cookie
    }
}

/// Lets a request through to any route (pages, forms, `/mcp`) only when its `Host` and `Origin` are this
/// dashboard's ([`Site::check`]): a foreign Host on a loopback listener gets 421, a foreign Origin 403, before the
/// body, the session or the bearer token is looked at. A header that is not text counts as foreign.
pub async fn addressed_here(State(site): State<Site>, request: Request, next: Next) -> Response {
    let (host, origin) = (
        header_text(request.headers(), header::HOST),
        header_text(request.headers(), header::ORIGIN),
    );
    let Err(foreign) = site.check(host.as_deref(), origin.as_deref()) else {
        return next.run(request).await;
    };
    let (status, why) = match foreign {
        Foreign::Host => (
            StatusCode::MISDIRECTED_REQUEST,
            "This dashboard does not answer for that host name (on a loopback address it answers for localhost \
             and web.publicUrl's host only). Nothing was changed.",
        ),
        Foreign::Origin => (
            StatusCode::FORBIDDEN,
            "This request came from a page of another site. Nothing was changed.",
        ),
    };
    tracing::warn!(
        method = %request.method(),
        path = request.uri().path(),
        host = ?host,
        origin = ?origin,
        reason = ?foreign,
        "request refused: not addressed to this dashboard (DNS rebinding or a foreign page?)"
    );
    if request.uri().path() == crate::mcp::http::PATH {
        // An MCP client reads a JSON-RPC error better than a page.
        let body = serde_json::json!({
            "jsonrpc": "2.0",
            "id": null,
            "error": {"code": -32000, "message": why},
        });
        return (status, axum::Json(body)).into_response();
    }
    refuse(status, why)
}

/// A header's value, owned (the request moves on, and its body is not `Sync`); one that is not text becomes
/// U+FFFD: neither a loopback name nor an origin.
fn header_text(headers: &HeaderMap, name: header::HeaderName) -> Option<String> {
    headers
        .get(name)
        .map(|v| v.to_str().unwrap_or("\u{fffd}").to_owned())
}

/// A request the checks turned away.
#[derive(Debug)]
pub enum Denied {
    /// A page without a session: to the login-needed page.
    SignIn,
    /// Refused with this status and reason.
    Refused(StatusCode, &'static str),
}

impl IntoResponse for Denied {
    fn into_response(self) -> Response {
        match self {
            Denied::SignIn => Redirect::to("/login").into_response(),
            Denied::Refused(status, why) => refuse(status, why),
        }
    }
}

/// A short page saying why a request was refused.
pub fn refuse(status: StatusCode, why: &str) -> Response {
    let body = layout::page(
        "Refused",
        None,
        maud::html! {
            h1 { "Refused" }
            p.notice.bad { (why) }
            p { a href="/queue" { "Back to the queue" } }
        },
    );
    (status, body).into_response()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[tokio::test]
    async fn framing_only_by_telegram_when_public() {
        for (ancestors, expected) in [
            ("'none'", "frame-ancestors 'none'"),
            (
                "https://web.telegram.org",
                "frame-ancestors https://web.telegram.org",
            ),
        ] {
            let r = headers(Response::new(axum::body::Body::empty()), ancestors).await;
            let csp = r.headers()[header::CONTENT_SECURITY_POLICY]
                .to_str()
                .unwrap();
            assert!(csp.ends_with(expected), "{csp}");
            assert!(
                csp.contains("script-src 'self';") && !csp.contains("unsafe"),
                "{csp}"
            );
            assert_eq!(r.headers()[header::X_CONTENT_TYPE_OPTIONS], "nosniff");
        }
    }
}
