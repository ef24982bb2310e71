//! The MCP server: the protocol face of the [`Engine`](crate::Engine), over stdio or streamable HTTP.

pub mod http;
pub mod server;
pub mod token;

pub use server::McpServer;

use std::sync::Arc;

use rmcp::ServiceExt;

use crate::Engine;

/// Serves MCP over this process's stdin/stdout until the client disconnects. Nothing else may write to
/// stdout while this runs: logs go to stderr.
pub async fn serve_stdio(engine: Arc<Engine>) -> Result<(), std::io::Error> {
    let service = McpServer::new(engine)
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| std::io::Error::other(e.to_string()))?;
    service.waiting().await.map_err(|e| std::io::Error::other(e.to_string()))?;
    Ok(())
}
