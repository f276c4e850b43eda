//! `arbiter mcp`: the agent tools (push, status, get, await) as an MCP server on standard input/output, and
//! the same server over HTTP ([`http`]).
//!
//! On stdio, standard output is the protocol: logs go to standard error only.

mod acp;
mod hooks;
pub mod http;
pub mod machines;
mod progress;
pub mod relay;
pub mod server;

use std::process::ExitCode;

use rmcp::ServiceExt;
use tracing_subscriber::EnvFilter;

use crate::agent::AgentError;
use crate::queue::Queue;

pub use server::ArbiterServer;

/// Serves MCP on stdin/stdout until the client closes the connection.
pub fn run(queue: Queue) -> Result<ExitCode, AgentError> {
    let _ = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .with_env_filter(
            EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("warn")),
        )
        .try_init();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|source| AgentError::Io {
            path: "tokio runtime".into(),
            source,
        })?;
    runtime.block_on(async move {
        tracing::info!(queue = %queue.root().display(), "MCP server on stdio");
        let service = ArbiterServer::new(queue)
            .serve(rmcp::transport::stdio())
            .await
            .map_err(|e| AgentError::Invalid(format!("MCP initialization failed: {e}")))?;
        let quit = service.waiting().await;
        tracing::info!(?quit, "MCP client disconnected");
        Ok(ExitCode::SUCCESS)
    })
}
