//! MCP over HTTP: the same tools as `arbiter mcp`, spoken over MCP's streamable HTTP transport on `/mcp`, for
//! agents on other machines. Every request must carry `Authorization: Bearer <token>` with one of the configured
//! agent tokens; the token's name is the default `agent` of the plans pushed with it.
//!
//! Mount it on the dashboard's axum app:
//!
//! ```no_run
//! # use std::collections::BTreeMap;
//! # use arbiter_zebu::config::SecretToken;
//! # use tokio_util::sync::CancellationToken;
//! # async fn serve(app: axum::Router, queue: arbiter_zebu::queue::Queue, agent_tokens: BTreeMap<String, SecretToken>,
//! #     listener: tokio::net::TcpListener) -> std::io::Result<()> {
//! let stop = CancellationToken::new();
//! let app = app.merge(arbiter_zebu::mcp::http::router(queue, &agent_tokens, None, None, stop.clone()));
//! axum::serve(listener, app)
//!     .with_graceful_shutdown(stop.cancelled_owned())
//!     .await
//! # }
//! ```
//!
//! Cancelling the token ends the open MCP event streams; without it a graceful shutdown would wait for
//! clients that keep a stream open (a GET stream, or an `arbiter_await` of up to ten minutes).
//!
//! The returned router has only the `/mcp` route (POST for messages, GET for the server's event stream, DELETE
//! to end a session) and its authentication applies to that route only, so merging it leaves the app's other
//! routes alone. Its sessions live in memory: a restart makes clients initialize again, which MCP clients do
//! on their own.

use std::collections::BTreeMap;
use std::sync::Arc;

use axum::Router;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;
use tokio_util::sync::CancellationToken;

use super::machines::Machines;
use super::server::ArbiterServer;
use crate::actions::Caller;
use crate::config::SecretToken;
use crate::queue::Queue;

/// The path the MCP endpoint is served at (where the agent side's client looks: `remote::MCP_PATH`).
pub const PATH: &str = crate::remote::MCP_PATH;

/// The router serving MCP over HTTP on [`PATH`], authenticated by the agent tokens (agent name → bearer token).
///
/// The transport's own `Host` and `Origin` checks are off because the dashboard decides them, for every route at
/// once, in a layer in front of this router (`web::guard::addressed_here`, rules in `web::origin`): a foreign
/// `Host` on a loopback listener gets 421 and a foreign `Origin` 403, before the body or the token is read (the
/// defence against DNS rebinding the MCP specification requires). Mounted elsewhere, put such a check in front.
///
/// Cancelling `stop` ends every session and open event stream (and the endpoint then refuses new requests).
pub fn router(
    queue: Queue,
    agent_tokens: &BTreeMap<String, SecretToken>,
    machines: Option<Machines>,
    grant_minutes: Option<u32>,
    stop: CancellationToken,
) -> Router {
    let mcp_queue = queue.clone();
    let mcp = StreamableHttpService::new(
        move || Ok(ArbiterServer::new(mcp_queue.clone())),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default()
            .disable_allowed_hosts()
            .with_cancellation_token(stop),
    );
    Router::new()
        .route_service(PATH, mcp)
        .merge(super::hooks::router(queue.clone(), grant_minutes))
        .merge(super::acp::router(queue, grant_minutes))
        .route_layer(middleware::from_fn_with_state(
            Arc::new(Tokens::new(agent_tokens, machines)),
            authenticate,
        ))
}

/// The agent tokens, kept as SHA-256 digests so a comparison takes the same time whatever the token's length,
/// and the machine tokens' file, read on every request (a token added or revoked counts from the next one).
pub(crate) struct Tokens {
    agents: Vec<(String, [u8; 32])>,
    machines: Option<Machines>,
}

impl Tokens {
    pub(crate) fn new(
        agent_tokens: &BTreeMap<String, SecretToken>,
        machines: Option<Machines>,
    ) -> Tokens {
        Tokens {
            agents: agent_tokens
                .iter()
                .map(|(agent, token)| (agent.clone(), digest(token.expose().as_bytes())))
                .collect(),
            machines,
        }
    }

    /// Who presents this token: an agent of `web.agentTokens`, else a machine whose token is in force.
    pub(crate) fn caller(&self, presented: &[u8]) -> Option<Caller> {
        if let Some(agent) = self.agent(presented) {
            return Some(Caller::Agent(agent.to_owned()));
        }
        self.machines
            .as_ref()?
            .check(presented)
            .map(Caller::Machine)
    }

    /// The agent whose token this is. Every token is compared, in constant time, whether or not one matched.
    fn agent(&self, presented: &[u8]) -> Option<&str> {
        let presented = digest(presented);
        let mut found = None;
        for (agent, token) in &self.agents {
            if bool::from(token.ct_eq(&presented)) {
                found = Some(agent.as_str());
            }
        }
        found
    }
}

fn digest(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

/// The bearer token of a request, if it has exactly one `Authorization: Bearer …` header.
fn bearer(request: &Request) -> Option<&[u8]> {
    let mut values = request.headers().get_all(header::AUTHORIZATION).iter();
    let value = values.next()?;
    if values.next().is_some() {
        return None;
    }
    let value = value.as_bytes();
    let (scheme, token) = value.split_at_checked(7)?;
    (scheme.eq_ignore_ascii_case(b"bearer ") && !token.is_empty()).then_some(token)
}

/// Lets a request through to MCP only with a known token, naming its agent in the request's extensions;
/// anything else is a bare 401 that reaches nothing.
pub(crate) async fn authenticate(
    State(tokens): State<Arc<Tokens>>,
    mut request: Request,
    next: Next,
) -> Response {
    let Some(caller) = bearer(&request).and_then(|token| tokens.caller(token)) else {
        tracing::info!(method = %request.method(), "MCP over HTTP: request without a valid token refused");
        return (
            StatusCode::UNAUTHORIZED,
            [(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"))],
        )
            .into_response();
    };
    request.extensions_mut().insert(caller);
    next.run(request).await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens() -> Tokens {
        Tokens::new(
            &BTreeMap::from([
                ("builder".to_owned(), SecretToken::new("s3cret-one")),
                ("reviewer".to_owned(), SecretToken::new("s3cret-two")),
            ]),
            None,
        )
    }

    fn request(authorization: &[&str]) -> Request {
        let mut builder = Request::builder().uri(PATH);
        for value in authorization {
            builder = builder.header(header::AUTHORIZATION, *value);
        }
        builder.body(axum::body::Body::empty()).unwrap_or_default()
    }

    #[test]
    fn a_token_names_its_agent() {
        let tokens = tokens();
        assert_eq!(tokens.agent(b"s3cret-one"), Some("builder"));
        assert_eq!(tokens.agent(b"s3cret-two"), Some("reviewer"));
        for wrong in [
            &b"s3cret-on"[..],
            b"s3cret-one ",
            b"S3CRET-ONE",
            b"",
            b"builder",
        ] {
            assert_eq!(tokens.agent(wrong), None, "{wrong:?}");
        }
        assert_eq!(Tokens::new(&BTreeMap::new(), None).agent(b""), None);
    }

    #[test]
    fn the_bearer_scheme_is_case_insensitive_and_the_token_is_not() {
        let token = |values: &[&str]| bearer(&request(values)).map(<[u8]>::to_vec);
        assert_eq!(token(&["Bearer abc"]), Some(b"abc".to_vec()));
        assert_eq!(token(&["bearer abc"]), Some(b"abc".to_vec()));
        assert_eq!(token(&["Bearer ABC"]), Some(b"ABC".to_vec()));
        for refused in [
            &["Bearer "][..],
            &["Bearer"],
            &["Basic YWJjOmRlZg=="],
            &["abc"],
            &[],
            &["Bearer abc", "Bearer abc"],
        ] {
            assert_eq!(token(refused), None, "{refused:?}");
        }
    }
}
