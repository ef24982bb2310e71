//! The MCP server: the protocol face of the [`Engine`](crate::Engine), over stdio or streamable HTTP.

pub mod backend;
pub mod http;
#[cfg(any(unix, windows))]
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
    serve_stdio_offering(backend, interactive, None).await
}

/// [`serve_stdio`], offering only the tools of `tools` when given (`gatehouse serve --tools`).
pub async fn serve_stdio_offering(
    backend: Arc<dyn Backend>,
    interactive: bool,
    tools: Option<crate::tools::sets::ToolSelection>,
) -> Result<(), std::io::Error> {
    // The client closing stdin means it has gone: calls waiting for the person are withdrawn then, not when
    // rmcp stops waiting for their answers seconds later.
    let closed = tokio_util::sync::CancellationToken::new();
    let transport = (NoticeEnd { inner: stdin_reader(), closed: closed.clone() }, stdout_writer());
    let server = if interactive { McpServer::with_backend(backend) } else { McpServer::unattended(backend) };
    let server = server.closed_by(closed);
    let server = match tools {
        Some(tools) => server.offering(tools),
        None => server,
    };
    let service = server.serve(transport).await.map_err(|e| std::io::Error::other(e.to_string()))?;
    service.waiting().await.map_err(|e| std::io::Error::other(e.to_string()))?;
    Ok(())
}

/// A reader that fires `closed` when its input ends (or fails).
struct NoticeEnd<R> {
    inner: R,
    closed: tokio_util::sync::CancellationToken,
}

impl<R: tokio::io::AsyncRead + Unpin> tokio::io::AsyncRead for NoticeEnd<R> {
    fn poll_read(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        let (before, room) = (buf.filled().len(), buf.remaining() > 0);
        let polled = std::pin::Pin::new(&mut self.inner).poll_read(cx, buf);
        match &polled {
            std::task::Poll::Ready(Ok(())) if room && buf.filled().len() == before => self.closed.cancel(),
            std::task::Poll::Ready(Err(_)) => self.closed.cancel(),
            _ => {}
        }
        polled
    }
}

/// Where MCP messages come from. When stdin is a pipe (as when an assistant launches us) it is read as the
/// pipe it is, woken by the runtime's poller: tokio's `Stdin` reads on a blocking thread and hands each chunk
/// over to the runtime, a thread switch on every message (docs/benchmarks.md), and its blocked read keeps the
/// process from ending until one more line comes.
fn stdin_reader() -> Box<dyn tokio::io::AsyncRead + Send + Unpin> {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        let pipe =
            std::io::stdin().as_fd().try_clone_to_owned().and_then(tokio::net::unix::pipe::Receiver::from_owned_fd);
        if let Ok(pipe) = pipe {
            return Box::new(pipe);
        }
    }
    Box::new(tokio::io::stdin())
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
