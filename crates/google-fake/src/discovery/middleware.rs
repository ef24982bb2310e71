//! The axum middleware that checks every exchange the emulator serves.

use axum::body::{Body as HttpBody, Bytes, HttpBody as _, to_bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, header};
use axum::middleware::Next;
use axum::response::Response;
use serde_json::Value;

use super::validate::{Body, Exchange};
use crate::Shared;

/// Bodies larger than this are passed through unread and unchecked.
pub const MAX_BUFFERED_BYTES: usize = 20 * 1024 * 1024;

/// A body as the middleware saw it.
enum Seen {
    Absent,
    Json(Bytes),
    Other,
    Unread,
}

/// Buffers the request and the response (JSON ones only, up to [`MAX_BUFFERED_BYTES`]), validates the
/// exchange and records violations in the world.
pub async fn middleware(State(shared): State<Shared>, request: Request, next: Next) -> Response {
    let path = request.uri().path().to_owned();
    if shared.lock().skip_discovery_checks || super::non_discovery_route(&path).is_some() {
        return next.run(request).await;
    }
    let method = request.method().as_str().to_owned();
    let query: Vec<(String, String)> = request
        .uri()
        .query()
        .map(|query| url::form_urlencoded::parse(query.as_bytes()).into_owned().collect())
        .unwrap_or_default();
    let (parts, body) = request.into_parts();
    let (body, request_seen) = buffer(&parts.headers, body).await;
    let response = next.run(Request::from_parts(parts, body)).await;
    let (parts, body) = response.into_parts();
    let (body, response_seen) = buffer(&parts.headers, body).await;

    let request_json = parse(&request_seen);
    let response_json = parse(&response_seen);
    let exchange = Exchange {
        method: &method,
        path: &path,
        query: &query,
        request: classify(&request_seen, &request_json),
        status: parts.status.as_u16(),
        response: classify(&response_seen, &response_json),
    };
    let found = match super::model() {
        Ok(discovery) => discovery.validate(&exchange).describe(&exchange),
        Err(error) => vec![format!("the discovery model did not load: {error}")],
    };
    if !found.is_empty() {
        for violation in &found {
            tracing::warn!(%violation, "google emulator diverges from Google's discovery documents");
        }
        shared.lock().discovery_violations.extend(found);
    }
    Response::from_parts(parts, body)
}

/// Reads a JSON body of known, bounded size; leaves every other body untouched.
async fn buffer(headers: &HeaderMap, body: HttpBody) -> (HttpBody, Seen) {
    let hint = body.size_hint();
    if hint.exact() == Some(0) {
        return (body, Seen::Absent);
    }
    if !is_json(headers) {
        return (body, Seen::Other);
    }
    if hint.upper().is_none_or(|upper| upper > MAX_BUFFERED_BYTES as u64) {
        return (body, Seen::Unread);
    }
    match to_bytes(body, MAX_BUFFERED_BYTES).await {
        Ok(bytes) if bytes.is_empty() => (HttpBody::empty(), Seen::Absent),
        Ok(bytes) => (HttpBody::from(bytes.clone()), Seen::Json(bytes)),
        // The body failed mid-read (the peer went away): the handler gets nothing either way.
        Err(_) => (HttpBody::empty(), Seen::Unread),
    }
}

fn is_json(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.split(';').next())
        .map(|mime| mime.trim().to_ascii_lowercase())
        .is_some_and(|mime| mime == "application/json" || mime.ends_with("+json"))
}

fn parse(seen: &Seen) -> Option<Result<Value, serde_json::Error>> {
    match seen {
        Seen::Json(bytes) => Some(serde_json::from_slice(bytes)),
        _ => None,
    }
}

fn classify<'a>(seen: &Seen, parsed: &'a Option<Result<Value, serde_json::Error>>) -> Body<'a> {
    match (seen, parsed) {
        (_, Some(Ok(value))) => Body::Json(value),
        (_, Some(Err(_))) => Body::Malformed,
        (Seen::Absent, None) => Body::Absent,
        (Seen::Other, None) => Body::Other,
        (Seen::Json(_) | Seen::Unread, None) => Body::Unread,
    }
}
