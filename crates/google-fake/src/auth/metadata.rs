//! The GCE metadata server (`http://metadata.google.internal`, `169.254.169.254`), as Application Default
//! Credentials meet it on Compute Engine, Cloud Run and GKE: served on a listener of its own, so
//! `GCE_METADATA_HOST` can point at it ([`MetadataServer::host`]).
//!
//! - `GET /` answers with the `Metadata-Flavor: Google` header: that is how clients detect GCE;
//! - under `/computeMetadata/v1/`, a request without `Metadata-Flavor: Google` (or with `X-Forwarded-For`)
//!   is refused with Google's 403 page;
//! - `instance/service-accounts/{default|EMAIL}/token` issues an access token for [`GceMetadata`]'s
//!   service account (`?scopes=a,b` narrows it), `…/email`, `…/scopes`, `…/` (`?recursive=true`: JSON), and
//!   `project/project-id`, `project/numeric-project-id`.
//!
//! Requests are recorded and faults injected as on the main listener ([`crate::faults`]); the discovery
//! check does not run here, as no discovery document describes the metadata server.

use std::net::SocketAddr;

use axum::Router;
use axum::extract::{Query, State};
use axum::http::{HeaderMap, Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use serde_json::json;
use tokio::sync::oneshot;

use super::escape;
use crate::state::Identity;
use crate::{FakeGoogle, Shared};

/// What the metadata server answers.
#[derive(Debug, Clone)]
pub struct GceMetadata {
    /// The VM's attached service account (`default`); `None`: no service account, every
    /// `service-accounts/…` path is 404.
    pub service_account: Option<String>,
    /// The access scopes of the VM (tokens carry them unless `?scopes=` asks for others).
    pub scopes: Vec<String>,
    pub project_id: String,
    pub numeric_project_id: String,
}

impl Default for GceMetadata {
    fn default() -> Self {
        Self {
            service_account: None,
            scopes: vec!["https://www.googleapis.com/auth/cloud-platform".to_owned()],
            project_id: "gatehouse-test".to_owned(),
            numeric_project_id: "123456789012".to_owned(),
        }
    }
}

/// A running metadata server bound to a loopback port. Dropping it stops the server.
pub struct MetadataServer {
    addr: SocketAddr,
    _shutdown: oneshot::Sender<()>,
}

impl MetadataServer {
    /// `127.0.0.1:PORT`, the form `GCE_METADATA_HOST` takes.
    pub fn host(&self) -> String {
        self.addr.to_string()
    }

    /// `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }
}

impl FakeGoogle {
    /// Serves the GCE metadata server for this emulator's world on a free loopback port: its tokens are
    /// accepted by the APIs. Must be called within a Tokio runtime.
    pub fn start_metadata_server(&self) -> std::io::Result<MetadataServer> {
        let listener = std::net::TcpListener::bind(("127.0.0.1", 0))?;
        listener.set_nonblocking(true)?;
        let addr = listener.local_addr()?;
        let listener = tokio::net::TcpListener::from_std(listener)?;
        let shared = self.shared();
        let app = Router::new()
            .fallback(metadata)
            .layer(axum::middleware::from_fn_with_state(shared.clone(), crate::faults::middleware))
            .with_state(shared);
        let (tx, rx) = oneshot::channel::<()>();
        tokio::spawn(async move {
            let shutdown = async {
                let _ = rx.await;
            };
            if let Err(error) = axum::serve(listener, app).with_graceful_shutdown(shutdown).await {
                tracing::error!(%error, "metadata server stopped");
            }
        });
        Ok(MetadataServer { addr, _shutdown: tx })
    }
}

const PREFIX: &str = "/computeMetadata/v1/";

/// An answer with the headers every metadata response carries.
fn answer(status: StatusCode, content_type: &'static str, body: String) -> Response {
    let headers = [
        (header::HeaderName::from_static("metadata-flavor"), "Google"),
        (header::SERVER, "Metadata Server for VM"),
        (header::CONTENT_TYPE, content_type),
    ];
    (status, headers, body).into_response()
}

fn text(body: String) -> Response {
    answer(StatusCode::OK, "application/text", body)
}

/// Google's HTML error page (`Error 404 (Not Found)!!1`).
fn error_page(status: StatusCode, message: &str) -> Response {
    let code = status.as_u16();
    let reason = status.canonical_reason().unwrap_or("Error");
    let page = format!(
        "<!DOCTYPE html>\n<html lang=en>\n  <meta charset=utf-8>\n  <title>Error {code} ({reason})!!1</title>\n  \
         <p><b>{code}.</b> <ins>That’s an error.</ins>\n  <p>{message} <ins>That’s all we know.</ins>\n"
    );
    answer(status, "text/html; charset=UTF-8", page)
}

fn not_found(path: &str) -> Response {
    let message = format!("The requested URL <code>{}</code> was not found on this server.", escape(path));
    error_page(StatusCode::NOT_FOUND, &message)
}

async fn metadata(
    State(shared): State<Shared>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    Query(query): Query<Vec<(String, String)>>,
) -> Response {
    let path = uri.path();
    if method != Method::GET {
        return error_page(StatusCode::METHOD_NOT_ALLOWED, "The request method is not allowed.");
    }
    if path == "/" {
        return text("computeMetadata/\n".to_owned());
    }
    let flavored = headers.get("metadata-flavor").and_then(|value| value.to_str().ok()) == Some("Google");
    if path.starts_with("/computeMetadata/") && (!flavored || headers.contains_key("x-forwarded-for")) {
        let message = format!(
            "Your client does not have permission to get URL <code>{}</code> from this server. Missing \
             Metadata-Flavor:Google header.",
            escape(path)
        );
        return error_page(StatusCode::FORBIDDEN, &message);
    }
    let Some(rest) = path.strip_prefix(PREFIX) else { return not_found(path) };
    let param = |name: &str| query.iter().find(|(key, _)| key == name).map(|(_, value)| value.as_str());
    let mut world = shared.lock();
    let config = world.metadata.clone();
    match rest {
        "" => return text("instance/\noauth2/\nproject/\n".to_owned()),
        "project/project-id" => return text(config.project_id),
        "project/numeric-project-id" => return text(config.numeric_project_id),
        _ => {}
    }
    let Some(account_path) = rest.strip_prefix("instance/service-accounts/") else { return not_found(path) };
    let Some(email) = config.service_account.clone() else { return not_found(path) };
    if account_path.is_empty() {
        return text(format!("default/\n{email}/\n"));
    }
    let (account, item) = account_path.split_once('/').unwrap_or((account_path, ""));
    if account != "default" && account != email {
        return not_found(path);
    }
    match item {
        "" if param("recursive") == Some("true") => {
            let body = json!({ "aliases": ["default"], "email": email, "scopes": config.scopes });
            answer(StatusCode::OK, "application/json", body.to_string())
        }
        "" => text("aliases\nemail\nidentity\nscopes\ntoken\n".to_owned()),
        "aliases" => text("default\n".to_owned()),
        "email" => text(email),
        "scopes" => text(config.scopes.iter().map(|scope| format!("{scope}\n")).collect()),
        "token" => {
            let scopes = match param("scopes").filter(|scopes| !scopes.is_empty()) {
                Some(asked) => asked.split(',').map(|scope| scope.trim().to_owned()).collect(),
                None => config.scopes,
            };
            let access_token = world.issue_expiring(Identity::service_account(&email), scopes, None, None);
            let lifetime = world.token_lifetime();
            let body = json!({ "access_token": access_token, "expires_in": lifetime, "token_type": "Bearer" });
            answer(StatusCode::OK, "application/json", body.to_string())
        }
        _ => not_found(path),
    }
}
