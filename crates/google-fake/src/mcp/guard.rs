//! What Google's front end checks before an MCP server sees a request: the bearer token, whether the OAuth
//! client it was issued to is marked agentic, and (for `tools/call`) whether it carries one of the tool's
//! scopes. Each refusal is an HTTP answer, not a JSON-RPC one, as Google's front end gives them.

use axum::body::{Body, to_bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderValue, Method, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde_json::Value;

use super::Product;
use super::tools;
use crate::Shared;
use crate::errors::{ApiError, Shape};
use crate::state::{AccessToken, Identity, World};

/// The message of the 403 an MCP server answers to a token of a client not marked agentic. Google's own
/// wording is unknown: its release notes (2026-10-12) say only that such requests are rejected.
pub const NOT_AGENTIC: &str = "The OAuth client this access token was issued to is not marked \"Use this client for an AI-powered agent\", and Google Workspace MCP servers accept only such clients. Create a new OAuth client with that box ticked in the Google Cloud console (a client cannot be marked after it was created) and sign in with it.";

/// The largest request body the guard reads to find a `tools/call`'s tool (rmcp's own limit is the same).
const MAX_BODY: usize = 4 * 1024 * 1024;

#[derive(Clone)]
pub(super) struct Guard {
    pub(super) shared: Shared,
    pub(super) product: Product,
}

impl World {
    /// The live access token of an MCP request, once it passed the checks Google's front end makes of every
    /// MCP request: a live bearer token (the APIs' 401 otherwise), issued to an agentic client (403
    /// [`NOT_AGENTIC`] otherwise; fixture and service-account tokens have no client and pass).
    pub(crate) fn mcp_bearer(&self, headers: &axum::http::HeaderMap) -> Result<&AccessToken, ApiError> {
        let access = self.bearer(headers, Shape::Rpc)?;
        if let Some(client_id) = &access.client_id {
            let agentic = self.oauth_clients.iter().any(|client| &client.client_id == client_id && client.agentic);
            if !agentic {
                return Err(ApiError::rpc(403, NOT_AGENTIC));
            }
        }
        Ok(access)
    }
}

/// Who an MCP request comes from, once the guard let it through: rmcp hands the request's parts, with this in
/// their extensions, to the server's handlers.
#[derive(Debug, Clone)]
pub(super) struct Caller {
    pub(super) identity: Identity,
    /// The request's `Authorization` header, which the tools' REST requests carry on.
    pub(super) authorization: HeaderValue,
}

pub(super) async fn check(State(guard): State<Guard>, request: Request, next: Next) -> Response {
    let (mut parts, body) = request.into_parts();
    let (caller, granted) = {
        let mut world = guard.shared.lock();
        *world.mcp.http_requests.entry(guard.product).or_default() += 1;
        match world.mcp_bearer(&parts.headers) {
            Ok(access) => {
                // `mcp_bearer` found a bearer token, so the header is there.
                let authorization =
                    parts.headers.get(header::AUTHORIZATION).cloned().unwrap_or(HeaderValue::from_static(""));
                (Caller { identity: access.identity.clone(), authorization }, access.scopes.clone())
            }
            Err(error) => return error.into_response(),
        }
    };
    parts.extensions.insert(caller);
    if parts.method != Method::POST {
        return next.run(Request::from_parts(parts, body)).await;
    }
    let Ok(bytes) = to_bytes(body, MAX_BODY).await else {
        return ApiError::rpc(413, "The request body is too large.").into_response();
    };
    if let Some(tool) = called_tool(&bytes).and_then(|name| tools::find(guard.product, &name))
        && let Err(error) = tool.require_scopes(&granted, guard.product)
    {
        return error.into_response();
    }
    next.run(Request::from_parts(parts, Body::from(bytes))).await
}

/// The tool a JSON-RPC `tools/call` body names, if the body is one.
fn called_tool(body: &[u8]) -> Option<String> {
    let message: Value = serde_json::from_slice(body).ok()?;
    (message.get("method")?.as_str()? == "tools/call").then_some(())?;
    message.get("params")?.get("name")?.as_str().map(str::to_owned)
}
