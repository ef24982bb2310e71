//! What the Sheets and Docs HTTP surfaces (and Drive Activity) share: the caller answered in the
//! `google.rpc.Status` shape, requests checked against the discovery document, answers cut to `fields`,
//! percent-decoded path segments, and the `batchUpdate` loop over a list of one-of requests.

use axum::Json;
use axum::response::IntoResponse;
use serde_json::{Map, Value};

use crate::call::{Dialect, Reply};
use crate::errors::{ApiError, Shape};
use crate::sheets::fields::{self, Mask};
use crate::sheets::schema::{Api, Query, camel, check_body, check_query, parse_body};

/// A Sheets, Docs or Drive Activity request: its query as Google binds it, its errors in the
/// `google.rpc.Status` shape.
pub(crate) type Call = crate::call::Call<Query>;

impl Dialect for Query {
    const SHAPE: Shape = Shape::Rpc;

    fn parse(raw: Option<&str>) -> Self {
        Query::parse(raw)
    }
}

/// Checks a method's query and JSON body against the discovery document, in the order Google binds
/// them; returns the body.
pub(crate) fn checked_body(
    api: Api,
    method: &[&str],
    query: &Query,
    schema: &str,
    body: &[u8],
) -> Result<Value, ApiError> {
    check_query(api, method, query)?;
    let body = parse_body(body)?;
    check_body(api, schema, &body)?;
    Ok(body)
}

/// Answers `value`, keeping only the fields the `fields` parameter selects.
pub(crate) fn respond(mut value: Value, query: &Query) -> Reply {
    if let Some(spec) = query.get("fields")
        && !spec.trim().is_empty()
    {
        let mask = Mask::parse(spec).ok_or_else(|| ApiError::invalid(format!("Invalid field selection {spec}")))?;
        fields::filter(&mut value, &mask);
    }
    Ok(Json(value).into_response())
}

/// Percent-decodes a path segment.
pub(crate) fn decode(segment: &str) -> Result<String, ApiError> {
    percent_encoding::percent_decode_str(segment)
        .decode_utf8()
        .map(|s| s.into_owned())
        .map_err(|_| ApiError::invalid("Invalid UTF-8 in the request path."))
}

/// Google's 404 for a path no method serves.
pub(crate) fn unknown_path(path: &str) -> ApiError {
    ApiError::rpc(404, format!("The requested URL {path} was not found on this server."))
}

/// A JSON object's members; anything else has none.
pub(crate) fn body_object(body: &Value) -> &Map<String, Value> {
    static EMPTY: std::sync::OnceLock<Map<String, Value>> = std::sync::OnceLock::new();
    body.as_object().unwrap_or_else(|| EMPTY.get_or_init(Map::new))
}

/// Why one request of a `batchUpdate` failed.
pub(crate) enum Failure {
    /// `Invalid requests[i].kind: message`.
    Invalid(String),
    /// A kind the emulator does not implement.
    Unimplemented,
}

impl From<String> for Failure {
    fn from(message: String) -> Self {
        Failure::Invalid(message)
    }
}

impl From<&str> for Failure {
    fn from(message: &str) -> Self {
        Failure::Invalid(message.to_owned())
    }
}

/// Applies the `requests` of a `batchUpdate` (`method`, e.g. `documents.batchUpdate`) in order: each sets
/// exactly one kind of the one-of `oneof`, which `apply` carries out. Returns the replies, or the first
/// failure as Google words it.
pub(crate) fn apply_requests(
    requests: &[Value],
    oneof: &str,
    method: &str,
    mut apply: impl FnMut(&str, &Map<String, Value>) -> Result<Value, Failure>,
) -> Result<Vec<Value>, ApiError> {
    let mut replies = Vec::with_capacity(requests.len());
    for (i, request) in requests.iter().enumerate() {
        let set: Vec<(&String, &Value)> =
            request.as_object().into_iter().flatten().filter(|(_, v)| !v.is_null()).collect();
        let (kind, inner) = match set.as_slice() {
            [(kind, inner)] => (camel(kind), body_object(inner)),
            [] => {
                return Err(ApiError::invalid(format!("Invalid requests[{i}]: No request specified.")));
            }
            [(first, _), (second, _), ..] => {
                return Err(ApiError::invalid(format!(
                    "Invalid value at 'requests[{i}]' (oneof), oneof field '{oneof}' is already set. Cannot set '{second}' (already set: '{first}')"
                )));
            }
        };
        match apply(&kind, inner) {
            Ok(reply) => replies.push(reply),
            Err(Failure::Invalid(message)) => {
                return Err(ApiError::invalid(format!("Invalid requests[{i}].{kind}: {message}")));
            }
            Err(Failure::Unimplemented) => {
                return Err(ApiError::rpc(
                    501,
                    format!("The Google emulator does not implement requests[{i}].{kind} of {method}."),
                ));
            }
        }
    }
    Ok(replies)
}
