//! `arbiter mcp --server URL`: a stdio MCP server for an agent on another machine, relaying every tool list and
//! tool call to the daemon's `/mcp` (one MCP session there for the life of this one). The agent's MCP client sees
//! the daemon's tools as they are; nothing is written locally.

use std::process::ExitCode;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig,
};
use rmcp::service::{Peer, RequestContext, RoleClient};
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};

use crate::remote::{RemoteError, Server, Session};

/// The relay: the daemon's session.
struct Relay {
    daemon: Peer<RoleClient>,
    url: String,
    instructions: Option<String>,
}

impl ServerHandler for Relay {
    fn get_info(&self) -> ServerConfig {
        let info = ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("arbiter", env!("CARGO_PKG_VERSION")));
        match &self.instructions {
            Some(text) => info.with_instructions(text.clone()),
            None => info,
        }
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        self.daemon
            .list_tools(request)
            .await
            .map_err(|e| ErrorData::internal_error(self.failed(&e), None))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        // A daemon that can't be reached is the tool's error (the agent reads why), never a protocol error.
        Ok(match self.daemon.call_tool(request).await {
            Ok(result) => result.into(),
            Err(e) => CallToolResult::error(vec![ContentBlock::text(self.failed(&e))]).into(),
        })
    }
}

impl Relay {
    fn failed(&self, e: &(dyn std::error::Error + 'static)) -> String {
        crate::remote::describe(&self.url, e)
    }
}

/// Serves MCP on stdin/stdout, relaying to `server`, until the client closes the connection. A daemon that can't be
/// reached at the start is an error (exit 2), said in one line.
pub fn run(server: &Server) -> Result<ExitCode, RemoteError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| RemoteError::Setup(format!("cannot start the tokio runtime: {e}")))?;
    runtime.block_on(async move {
        let session = Session::open(server).await?;
        let relay = Relay {
            daemon: session.peer(),
            url: server.url(super::http::PATH),
            instructions: session.instructions(),
        };
        let service = relay
            .serve(rmcp::transport::stdio())
            .await
            .map_err(|e| RemoteError::Setup(format!("MCP initialization failed: {e}")))?;
        let _ = service.waiting().await;
        session.close().await;
        Ok(ExitCode::SUCCESS)
    })
}
