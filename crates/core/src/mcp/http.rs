//! Streamable HTTP at `/mcp`, for loopback clients only.
//!
//! Three checks guard it, each with a plain answer: the `Host` must be this loopback address (a DNS
//! rebinding attack arrives with a foreign host name), a browser `Origin` must be this server's own, and
//! the request must carry the bearer token from `GATEHOUSE_HOME`.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio_util::sync::CancellationToken;

use super::McpServer;
use crate::Engine;

/// Why the HTTP server could not start.
#[derive(Debug, thiserror::Error)]
pub enum HttpError {
    #[error(
        "Gatehouse serves HTTP on loopback only, and {0} is not a loopback address. Use 127.0.0.1:PORT (or [::1]:PORT)."
    )]
    NotLoopback(SocketAddr),
    #[error("Gatehouse could not listen on {addr}: {detail}. Pick another port, or stop whatever is using it.")]
    Bind { addr: SocketAddr, detail: String },
}

/// Refuses any address a remote machine could reach.
pub fn check_loopback(addr: SocketAddr) -> Result<(), HttpError> {
    if addr.ip().is_loopback() { Ok(()) } else { Err(HttpError::NotLoopback(addr)) }
}

#[derive(Clone)]
struct Guard {
    token: Arc<str>,
    hosts: Arc<[String]>,
    origins: Arc<[String]>,
}

/// The names this server may be reached by on `port`.
fn loopback_authorities(port: u16) -> Vec<String> {
    ["127.0.0.1", "localhost", "[::1]"].iter().map(|host| format!("{host}:{port}")).collect()
}

/// The `/mcp` router. `port` is the port the listener is bound to (Host checks need it).
pub fn router(engine: Arc<Engine>, token: &str, port: u16, cancel: CancellationToken) -> axum::Router {
    let hosts = loopback_authorities(port);
    let origins: Vec<String> = hosts.iter().map(|host| format!("http://{host}")).collect();
    let config = StreamableHttpServerConfig::default()
        .with_allowed_hosts(hosts.clone())
        .with_allowed_origins(origins.clone())
        .with_cancellation_token(cancel);
    let service = StreamableHttpService::new(
        move || Ok(McpServer::new(Arc::clone(&engine))),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let guard = Guard { token: Arc::from(token), hosts: hosts.into(), origins: origins.into() };
    axum::Router::new().nest_service("/mcp", service).layer(axum::middleware::from_fn_with_state(guard, check_request))
}

fn refuse(status: StatusCode, message: &str) -> Response {
    let body = serde_json::json!({ "error": message });
    let mut response = (status, axum::Json(body)).into_response();
    if status == StatusCode::UNAUTHORIZED {
        response.headers_mut().insert(header::WWW_AUTHENTICATE, header::HeaderValue::from_static("Bearer"));
    }
    response
}

async fn check_request(State(guard): State<Guard>, request: Request, next: Next) -> Response {
    if let Some(refusal) = guard.refusal(request.headers(), request.uri().query()) {
        return refusal;
    }
    next.run(request).await
}

impl Guard {
    fn refusal(&self, headers: &HeaderMap, query: Option<&str>) -> Option<Response> {
        let host = headers.get(header::HOST).and_then(|v| v.to_str().ok()).unwrap_or("");
        if !self.hosts.iter().any(|allowed| allowed.eq_ignore_ascii_case(host)) {
            tracing::warn!(host, "refused a request with a foreign Host header");
            return Some(refuse(
                StatusCode::FORBIDDEN,
                "This Gatehouse server only answers requests addressed to its loopback address (Host header refused).",
            ));
        }
        if let Some(origin) = headers.get(header::ORIGIN) {
            let origin = origin.to_str().unwrap_or("");
            if !self.origins.iter().any(|allowed| allowed.eq_ignore_ascii_case(origin)) {
                tracing::warn!(origin, "refused a request from a foreign Origin");
                return Some(refuse(
                    StatusCode::FORBIDDEN,
                    "This Gatehouse server does not answer web pages from other sites (Origin header refused).",
                ));
            }
        }
        // RFC 6750 allows the token in the header or, for clients that can only be given a URL, in the
        // `access_token` query parameter (the URL Gatehouse shows for such clients).
        let presented = headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .map(str::trim)
            .or_else(|| query_token(query?));
        match presented {
            Some(token) if constant_time_eq(token.as_bytes(), self.token.as_bytes()) => None,
            Some(_) => Some(refuse(
                StatusCode::UNAUTHORIZED,
                "The bearer token is wrong. Run `gatehouse serve --print-token` to see the right one.",
            )),
            None => Some(refuse(
                StatusCode::UNAUTHORIZED,
                "A bearer token is required (Authorization: Bearer …). Run `gatehouse serve --print-token` to see it.",
            )),
        }
    }
}

fn query_token(query: &str) -> Option<&str> {
    query.split('&').find_map(|pair| pair.strip_prefix("access_token="))
}

/// Compares without leaking, through timing, how much of the token matched.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Binds the listener, refusing non-loopback addresses. Port 0 picks a free port: read it from the listener.
pub async fn bind(addr: SocketAddr) -> Result<tokio::net::TcpListener, HttpError> {
    check_loopback(addr)?;
    tokio::net::TcpListener::bind(addr).await.map_err(|e| HttpError::Bind { addr, detail: e.to_string() })
}

/// Serves on a bound listener until `cancel` fires.
pub async fn serve(
    engine: Arc<Engine>,
    listener: tokio::net::TcpListener,
    token: &str,
    cancel: CancellationToken,
) -> Result<(), HttpError> {
    let local = listener
        .local_addr()
        .map_err(|e| HttpError::Bind { addr: ([127, 0, 0, 1], 0).into(), detail: e.to_string() })?;
    let app = router(engine, token, local.port(), cancel.clone());
    axum::serve(listener, app)
        .with_graceful_shutdown(async move { cancel.cancelled().await })
        .await
        .map_err(|e| HttpError::Bind { addr: local, detail: e.to_string() })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn guard() -> Guard {
        let hosts = loopback_authorities(8080);
        let origins: Vec<String> = hosts.iter().map(|h| format!("http://{h}")).collect();
        Guard { token: Arc::from("secret"), hosts: hosts.into(), origins: origins.into() }
    }

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(*name, value.parse().unwrap());
        }
        map
    }

    #[test]
    fn loopback_only() {
        assert!(check_loopback("127.0.0.1:1".parse().unwrap()).is_ok());
        assert!(check_loopback("[::1]:1".parse().unwrap()).is_ok());
        assert!(check_loopback("0.0.0.0:1".parse().unwrap()).is_err());
        assert!(check_loopback("192.168.1.2:1".parse().unwrap()).is_err());
    }

    #[test]
    fn a_good_request_passes() {
        let ok = headers(&[("host", "127.0.0.1:8080"), ("authorization", "Bearer secret")]);
        assert!(guard().refusal(&ok, None).is_none());
        let ok = headers(&[
            ("host", "localhost:8080"),
            ("origin", "http://localhost:8080"),
            ("authorization", "Bearer secret"),
        ]);
        assert!(guard().refusal(&ok, None).is_none());
    }

    #[test]
    fn the_token_may_come_in_the_url() {
        let no_header = headers(&[("host", "127.0.0.1:8080")]);
        assert!(guard().refusal(&no_header, Some("access_token=secret")).is_none());
        assert!(guard().refusal(&no_header, Some("x=1&access_token=nope")).is_some());
    }

    #[test]
    fn foreign_host_origin_or_token_are_refused() {
        let cases = [
            (headers(&[("host", "evil.example:8080"), ("authorization", "Bearer secret")]), StatusCode::FORBIDDEN),
            (
                headers(&[
                    ("host", "127.0.0.1:8080"),
                    ("origin", "http://evil.example"),
                    ("authorization", "Bearer secret"),
                ]),
                StatusCode::FORBIDDEN,
            ),
            (headers(&[("host", "127.0.0.1:8080"), ("authorization", "Bearer wrong")]), StatusCode::UNAUTHORIZED),
            (headers(&[("host", "127.0.0.1:8080")]), StatusCode::UNAUTHORIZED),
        ];
        for (request, status) in cases {
            assert_eq!(guard().refusal(&request, None).map(|r| r.status()), Some(status));
        }
    }
}
