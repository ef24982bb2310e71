//! The MCP server: the protocol face of the [`Engine`](crate::Engine), over stdio or streamable HTTP.

pub mod backend;
pub mod http;
#[cfg(unix)]
pub mod relay;
pub mod server;
pub mod token;

pub use server::McpServer;

use std::sync::Arc;

use rmcp::ServiceExt;

use backend::Backend;

/// Serves MCP over this process's stdin/stdout until the client disconnects. Nothing else may write to
/// stdout while this runs: logs go to stderr. `interactive: false` registers the connection as an automation.
pub async fn serve_stdio(backend: Arc<dyn Backend>, interactive: bool) -> Result<(), std::io::Error> {
    let transport = (tokio::io::stdin(), stdout_writer());
    let server = if interactive { McpServer::with_backend(backend) } else { McpServer::unattended(backend) };
    let service = server.serve(transport).await.map_err(|e| std::io::Error::other(e.to_string()))?;
    service.waiting().await.map_err(|e| std::io::Error::other(e.to_string()))?;
    Ok(())
}

/// Where MCP messages go. When stdout is a pipe (as when an assistant launches us) it is written directly
/// from the message buffer: tokio's `Stdout` would first copy every message into a buffer of its own for a
/// blocking thread, holding a large result twice.
fn stdout_writer() -> Box<dyn tokio::io::AsyncWrite + Send + Unpin> {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        let pipe =
            std::io::stdout().as_fd().try_clone_to_owned().and_then(tokio::net::unix::pipe::Sender::from_owned_fd);
        if let Ok(pipe) = pipe {
            return Box::new(pipe);
        }
    }
    Box::new(tokio::io::stdout())
}
