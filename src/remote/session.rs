//! An MCP session with the daemon's `/mcp`, through rmcp's own streamable HTTP client: the agent commands call
//! the same tools any MCP client does.

use std::time::Duration;

use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult, JsonObject};
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::Value;

use super::{REQUEST_TIMEOUT, RemoteError, Server};

/// One MCP session; [`Session::close`] ends it on the daemon too.
pub struct Session {
    url: String,
    client: RunningService<RoleClient, ()>,
}

/// Why the MCP session could not start: rmcp's error keeps only the words of the HTTP client's, so one plain
/// request through the same client tells an unreachable daemon, a TLS failure and a refused token apart.
async fn diagnose(server: &Server, url: &str, said: &str) -> RemoteError {
    let probe = server
        .client
        .post(url)
        .bearer_auth(server.token.expose())
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body("{}")
        .timeout(REQUEST_TIMEOUT)
        .send()
        .await;
    match probe {
        Err(e) => RemoteError::of_http(url, &e),
        Ok(answer) if answer.status().as_u16() == 401 => RemoteError::Refused {
            url: url.to_owned(),
        },
        Ok(answer) => RemoteError::Garbage {
            url: url.to_owned(),
            reason: format!("HTTP {}: {said}", answer.status()),
        },
    }
}

impl Session {
    /// Initializes a session with the daemon (at most [`REQUEST_TIMEOUT`]).
    pub async fn open(server: &Server) -> Result<Session, RemoteError> {
        let url = server.url(super::MCP_PATH);
        let config = StreamableHttpClientTransportConfig::with_uri(url.clone())
            .auth_header(server.token.expose());
        let transport = StreamableHttpClientTransport::with_client(server.client.clone(), config);
        let client = match tokio::time::timeout(REQUEST_TIMEOUT, ().serve(transport)).await {
            Err(_) => {
                return Err(RemoteError::Stalled {
                    url,
                    after: REQUEST_TIMEOUT,
                });
            }
            Ok(Err(e)) => return Err(diagnose(server, &url, &e.to_string()).await),
            Ok(Ok(client)) => client,
        };
        Ok(Session { url, client })
    }

    /// Calls `tool` with `arguments`, waiting at most `wait` more than a quick request would; the tool's
    /// structured result, or the daemon's own words when the tool said no.
    pub async fn call(
        &self,
        tool: &str,
        arguments: Value,
        wait: Duration,
    ) -> Result<Value, RemoteError> {
        let arguments = match arguments {
            Value::Object(map) => map,
            _ => JsonObject::new(),
        };
        let params = CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments);
        let limit = REQUEST_TIMEOUT + wait;
        let result = match tokio::time::timeout(limit, self.client.call_tool(params)).await {
            Err(_) => {
                return Err(RemoteError::Stalled {
                    url: self.url.clone(),
                    after: limit,
                });
            }
            Ok(Err(e)) => return Err(RemoteError::of_http(&self.url, &e)),
            Ok(Ok(result)) => result,
        };
        self.read(tool, result)
    }

    fn read(&self, tool: &str, result: CallToolResult) -> Result<Value, RemoteError> {
        let text: Vec<String> = result
            .content
            .iter()
            .filter_map(|c| c.as_text().map(|t| t.text.clone()))
            .collect();
        if result.is_error == Some(true) {
            return Err(RemoteError::Said(text.join("\n")));
        }
        match result.structured_content {
            Some(value @ Value::Object(_)) => Ok(value),
            _ => Err(RemoteError::Garbage {
                url: self.url.clone(),
                reason: format!("`{tool}` returned no structured result"),
            }),
        }
    }

    /// The session's peer, to call the daemon from elsewhere (the stdio relay).
    #[must_use]
    pub fn peer(&self) -> rmcp::service::Peer<RoleClient> {
        self.client.peer().clone()
    }

    /// The daemon's instructions for a model, as its `initialize` gave them.
    #[must_use]
    pub fn instructions(&self) -> Option<String> {
        self.client
            .peer_info()
            .and_then(|info| info.instructions.clone())
    }

    /// Ends the session (the daemon forgets it).
    pub async fn close(self) {
        let _ = tokio::time::timeout(Duration::from_secs(5), self.client.cancel()).await;
    }
}
