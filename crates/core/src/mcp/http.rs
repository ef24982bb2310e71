//! Streamable HTTP at `/mcp`, for loopback clients only.
//!
//! Three checks guard it, each with a plain answer: the `Host` must be this loopback address (a DNS
//! rebinding attack arrives with a foreign host name), a browser `Origin` must be this server's own, and
//! the request must carry a bearer token: the server's own from `GATEHOUSE_HOME` (calls are then attributed
//! to the client's `clientInfo.name`, as interactive), or an active assistant's from the approvals store
//! (calls are then attributed to the name bound to it, interactive or not as it was registered: see
//! [`AssistantToken`]).

use std::net::SocketAddr;
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use chrono::Utc;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio_util::sync::CancellationToken;

use super::McpServer;
use crate::Engine;
use crate::approval::store::{Assistant, Store, TokenMatch};

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

/// The assistant whose token a request carried, put in the request's extensions by the guard. rmcp hands
/// the request's `http::request::Parts` to each handler, so [`McpServer`] finds it there for every call: the
/// bound name wins over the client's `clientInfo.name`, and an automation's calls are unattended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AssistantToken(pub Arc<Assistant>);

/// Fires when the HTTP request a call came in is gone: its response was dropped before it was sent in full
/// (the client hung up). Put in the request's extensions by the guard, so [`McpServer`] can withdraw a call
/// still waiting for the person at once; rmcp keeps a session's call running when its request is dropped.
#[derive(Debug, Clone)]
pub struct RequestGone(pub CancellationToken);

/// The port the server listens on, put in each request's extensions by the guard: with the client's address
/// (axum's `ConnectInfo`) it finds the connection, and so the assistant's process (see `crate::process`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ServerPort(pub u16);

#[derive(Clone)]
struct Guard {
    port: u16,
    token: Arc<str>,
    /// Where assistants' tokens are looked up; `None` (no store could be opened): only the server's token.
    store: Option<Store>,
    hosts: Arc<[String]>,
    origins: Arc<[String]>,
}

/// Whose token a request carried.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Bearer {
    /// The server's own token.
    Server,
    Assistant(Arc<Assistant>),
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
    let guard = Guard {
        port,
        token: Arc::from(token),
        store: engine.approvals().store().cloned(),
        hosts: hosts.into(),
        origins: origins.into(),
    };
    let service = {
        let engine = Arc::clone(&engine);
        StreamableHttpService::new(
            move || Ok(McpServer::new(Arc::clone(&engine))),
            Arc::new(LocalSessionManager::default()),
            config,
        )
    };
    axum::Router::new().nest_service("/mcp", service).layer(axum::middleware::from_fn_with_state(guard, check_request))
}

/// Why a request is not answered: the status, and what to tell the client in words.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Refusal {
    status: StatusCode,
    message: String,
}

fn refuse(status: StatusCode, message: impl Into<String>) -> Refusal {
    Refusal { status, message: message.into() }
}

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        let body = serde_json::json!({ "error": self.message });
        let mut response = (self.status, axum::Json(body)).into_response();
        if self.status == StatusCode::UNAUTHORIZED {
            response.headers_mut().insert(header::WWW_AUTHENTICATE, header::HeaderValue::from_static("Bearer"));
        }
        response
    }
}

async fn check_request(State(guard): State<Guard>, mut request: Request, next: Next) -> Response {
    request.extensions_mut().insert(ServerPort(guard.port));
    let bearer = match guard.check(request.headers(), request.uri().query()) {
        Err(refusal) => return refusal.into_response(),
        Ok(bearer) => bearer,
    };
    if let Bearer::Assistant(assistant) = bearer {
        guard.note_use(&assistant);
        request.extensions_mut().insert(AssistantToken(assistant));
    }
    let request = match json_checked(request).await {
        Ok(request) => request,
        Err(refused) => return refused,
    };
    let response = watched(request, next).await;
    // The body was JSON of the right type (checked above), so rmcp's 415 means it is no JSON-RPC message.
    if response.status() == StatusCode::UNSUPPORTED_MEDIA_TYPE {
        return jsonrpc_error(
            StatusCode::BAD_REQUEST,
            INVALID_REQUEST,
            "The request body is JSON but not a JSON-RPC 2.0 request, notification or response: send an object with \"jsonrpc\": \"2.0\", a \"method\" and, for a request, an \"id\".",
        );
    }
    response
}

/// JSON-RPC's error code for a body that is not JSON.
const PARSE_ERROR: i32 = -32700;
/// JSON-RPC's error code for JSON that is not a request.
const INVALID_REQUEST: i32 = -32600;

/// The largest request body read: rmcp's own limit (`StreamableHttpServerConfig::max_request_body_bytes`).
const MAX_BODY_BYTES: usize = 4 * 1024 * 1024;

/// A JSON-RPC error answer to a message whose id could not be read (`"id": null`), with `status`.
fn jsonrpc_error(status: StatusCode, code: i32, message: &str) -> Response {
    let body = serde_json::json!({ "jsonrpc": "2.0", "id": null, "error": { "code": code, "message": message } });
    (status, axum::Json(body)).into_response()
}

/// A posted message must be JSON, sent as JSON: otherwise it is answered with a JSON-RPC error body (a parse
/// error, `-32700`, for a body that is not JSON), never rmcp's plain-text 415, and the connection and the
/// server go on serving. The body is read here (within rmcp's size limit) and handed on unchanged.
async fn json_checked(request: Request) -> Result<Request, Response> {
    if request.method() != axum::http::Method::POST {
        return Ok(request);
    }
    let content_type = request.headers().get(header::CONTENT_TYPE).and_then(|value| value.to_str().ok());
    let is_json = content_type.is_some_and(|value| {
        value.split_once(';').map_or(value, |(essence, _)| essence).trim().eq_ignore_ascii_case("application/json")
    });
    if !is_json {
        return Err(jsonrpc_error(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            INVALID_REQUEST,
            "Send MCP messages as JSON, with the header Content-Type: application/json.",
        ));
    }
    let (parts, body) = request.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, MAX_BODY_BYTES).await else {
        return Err(jsonrpc_error(
            StatusCode::PAYLOAD_TOO_LARGE,
            INVALID_REQUEST,
            &format!(
                "The request body could not be read whole, or is larger than {} MiB: send smaller messages.",
                MAX_BODY_BYTES / (1024 * 1024)
            ),
        ));
    };
    // Only the syntax is checked (nothing is built): rmcp reads the message itself.
    if let Err(error) = serde_json::from_slice::<serde::de::IgnoredAny>(&bytes) {
        tracing::info!("refused a request body that is not JSON ({error})");
        return Err(jsonrpc_error(
            StatusCode::BAD_REQUEST,
            PARSE_ERROR,
            &format!(
                "Parse error: the request body is not valid JSON ({error}). Send one JSON-RPC 2.0 message as JSON."
            ),
        ));
    }
    Ok(Request::from_parts(parts, axum::body::Body::from(bytes)))
}

/// Answers `request`, firing its [`RequestGone`] when the answer is dropped unfinished: while it is being made,
/// or while its body (a call's event stream) is being sent. Once the body is sent in full the call has ended,
/// so firing then changes nothing.
async fn watched(mut request: Request, next: Next) -> Response {
    let gone = CancellationToken::new();
    request.extensions_mut().insert(RequestGone(gone.clone()));
    let guard = gone.drop_guard();
    let response = next.run(request).await;
    response.map(|body| {
        use futures::StreamExt;
        axum::body::Body::from_stream(body.into_data_stream().map(move |chunk| {
            let _held_until_the_body_is_dropped = &guard;
            chunk
        }))
    })
}

impl Guard {
    /// Whose token the request carries, or the refusal to answer it with.
    fn check(&self, headers: &HeaderMap, query: Option<&str>) -> Result<Bearer, Refusal> {
        match self.refusal(headers) {
            Some(refusal) => Err(refusal),
            None => self.bearer(headers, query),
        }
    }

    /// Records, now and then, that an assistant's token was used (the list's "last used"), without making
    /// the request wait for the disk.
    fn note_use(&self, assistant: &Assistant) {
        let now = Utc::now();
        let Some(store) = self.store.clone().filter(|_| assistant.use_worth_recording(now)) else { return };
        let id = assistant.id.clone();
        tokio::spawn(async move {
            if let Err(error) = store.record_assistant_use(&id, now).await {
                tracing::warn!(assistant = %id, "could not record an assistant's use: {error}");
            }
        });
    }

    /// The Host and Origin checks.
    fn refusal(&self, headers: &HeaderMap) -> Option<Refusal> {
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
        None
    }

    /// The bearer token check: the server's own token, or an active assistant's.
    fn bearer(&self, headers: &HeaderMap, query: Option<&str>) -> Result<Bearer, Refusal> {
        // RFC 6750 allows the token in the header or, for clients that can only be given a URL, in the
        // `access_token` query parameter (the URL Gatehouse shows for such clients).
        let presented = headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .map(str::trim)
            .or_else(|| query_token(query?));
        let Some(token) = presented else {
            return Err(refuse(
                StatusCode::UNAUTHORIZED,
                "A bearer token is required (Authorization: Bearer …): the one `gatehouse assistants add` printed for this assistant, or the server's own (`gatehouse serve --print-token`).",
            ));
        };
        if constant_time_eq(token.as_bytes(), self.token.as_bytes()) {
            return Ok(Bearer::Server);
        }
        match self.store.as_ref().map(|store| store.assistant_for_token(token)) {
            Some(TokenMatch::Active(assistant)) => Ok(Bearer::Assistant(assistant)),
            Some(TokenMatch::Revoked(assistant)) => {
                tracing::warn!(assistant = %assistant.name, "refused a request with a revoked assistant token");
                let when = assistant.revoked.map(|at| format!(" on {}", at.format("%Y-%m-%d at %H:%M UTC")));
                Err(refuse(
                    StatusCode::UNAUTHORIZED,
                    format!(
                        "The token of the assistant “{}” was revoked{}, so Gatehouse no longer answers it. If it should still have access, make it a new one with `gatehouse assistants add` and give it the new token.",
                        assistant.name,
                        when.unwrap_or_default()
                    ),
                ))
            }
            Some(TokenMatch::Unknown) | None => Err(refuse(
                StatusCode::UNAUTHORIZED,
                "The bearer token is wrong. Use the token `gatehouse assistants add` printed for this assistant, or the server's own (`gatehouse serve --print-token`).",
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
    axum::serve(listener, app.into_make_service_with_connect_info::<SocketAddr>())
        .with_graceful_shutdown(async move { cancel.cancelled().await })
        .await
        .map_err(|e| HttpError::Bind { addr: local, detail: e.to_string() })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn guard_with(store: Option<Store>) -> Guard {
        let hosts = loopback_authorities(8080);
        let origins: Vec<String> = hosts.iter().map(|h| format!("http://{h}")).collect();
        Guard { port: 8080, token: Arc::from("secret"), store, hosts: hosts.into(), origins: origins.into() }
    }

    fn guard() -> Guard {
        guard_with(None)
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
        assert_eq!(guard().check(&ok, None).ok(), Some(Bearer::Server));
        let ok = headers(&[
            ("host", "localhost:8080"),
            ("origin", "http://localhost:8080"),
            ("authorization", "Bearer secret"),
        ]);
        assert_eq!(guard().check(&ok, None).ok(), Some(Bearer::Server));
    }

    #[test]
    fn the_token_may_come_in_the_url() {
        let no_header = headers(&[("host", "127.0.0.1:8080")]);
        assert_eq!(guard().check(&no_header, Some("access_token=secret")).ok(), Some(Bearer::Server));
        assert!(guard().check(&no_header, Some("x=1&access_token=nope")).is_err());
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
            assert_eq!(guard().check(&request, None).err().map(|r| r.status), Some(status));
        }
    }

    #[tokio::test]
    async fn an_assistant_token_passes_bound_to_its_name_and_a_revoked_one_is_refused_saying_so() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("gatehouse.db")).await.unwrap();
        let nightly = store.add_assistant("nightly", false, Utc::now()).await.unwrap();
        let chat = store.add_assistant("chat", true, Utc::now()).await.unwrap();
        let guard = guard_with(Some(store.clone()));

        let bearer =
            |token: &str| headers(&[("host", "127.0.0.1:8080"), ("authorization", &format!("Bearer {token}"))]);
        let Ok(Bearer::Assistant(found)) = guard.check(&bearer(&nightly.token), None) else {
            panic!("the assistant's token was refused")
        };
        assert_eq!((found.name.as_str(), found.interactive), ("nightly", false));
        let in_url = headers(&[("host", "127.0.0.1:8080")]);
        let Ok(Bearer::Assistant(found)) = guard.check(&in_url, Some(&format!("access_token={}", chat.token))) else {
            panic!("the assistant's token in the URL was refused")
        };
        assert_eq!((found.name.as_str(), found.interactive), ("chat", true));
        // Host and Origin are still checked for assistants.
        let foreign = headers(&[("host", "evil.example:8080"), ("authorization", &format!("Bearer {}", chat.token))]);
        assert_eq!(guard.check(&foreign, None).err().map(|r| r.status), Some(StatusCode::FORBIDDEN));

        // Revoked: the very next request is refused, naming the assistant; the other token still works.
        assert!(store.revoke_assistant(&nightly.assistant.id, Utc::now()).await.unwrap());
        let refused = guard.check(&bearer(&nightly.token), None).expect_err("a revoked token passed");
        assert_eq!(refused.status, StatusCode::UNAUTHORIZED);
        assert!(refused.message.contains("“nightly” was revoked on"), "{}", refused.message);
        let response = refused.into_response();
        assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
        assert_eq!(response.headers().get(header::WWW_AUTHENTICATE).unwrap(), "Bearer");
        assert!(matches!(guard.check(&bearer(&chat.token), None), Ok(Bearer::Assistant(_))));

        // A token no one was given names where the right ones come from.
        let wrong = guard.check(&bearer("not-a-token"), None).expect_err("a wrong token passed");
        assert_eq!(wrong.status, StatusCode::UNAUTHORIZED);
        assert!(wrong.message.contains("gatehouse assistants add") && wrong.message.contains("--print-token"));
    }

    #[tokio::test]
    async fn without_a_store_only_the_servers_token_passes() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("gatehouse.db")).await.unwrap();
        let added = store.add_assistant("chat", true, Utc::now()).await.unwrap();
        let request = headers(&[("host", "127.0.0.1:8080"), ("authorization", &format!("Bearer {}", added.token))]);
        assert_eq!(guard().check(&request, None).err().map(|r| r.status), Some(StatusCode::UNAUTHORIZED));
    }
}
