//! Google's two error body shapes.
//!
//! Sheets, Docs and Drive Activity answer with the `google.rpc.Status` shape
//! (`{"error":{"code","message","status"}}`); Drive v3 still answers with the legacy shape that adds
//! `errors[]` with a `domain`, `reason` and `location`. Clients must understand both, so the emulator
//! produces each exactly where Google does.
//!
//! Google's API front end (ESF) answers some errors itself, before the API sees the request (insufficient
//! scopes): those come in one shape for every API, `errors[]` *and* `status`, plus `google.rpc` `details`
//! and a `WWW-Authenticate` challenge ([`Frontend`]).

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

/// Which of Google's error bodies to produce.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// `google.rpc.Status`: code, message, status.
    Rpc,
    /// Drive's legacy body: code, message, errors[{domain, reason, message, location, locationType}].
    Legacy,
}

/// An error answered by the emulator, rendered in Google's shape.
#[derive(Debug, Clone)]
pub struct ApiError {
    pub code: u16,
    pub status: &'static str,
    pub reason: &'static str,
    pub message: String,
    pub location: Option<&'static str>,
    pub shape: Shape,
    pub retry_after: Option<u64>,
    /// Set when the error is one Google's front end answers itself: it then decides the body, whatever
    /// `shape` says.
    pub frontend: Option<Box<Frontend>>,
}

/// What an error answered by Google's API front end carries beyond the API's own errors.
#[derive(Debug, Clone)]
pub struct Frontend {
    /// `errors[0].message`, which the front end words apart from the top-level `message`.
    pub item_message: &'static str,
    /// `details`: `google.rpc` messages (`ErrorInfo`), with their `@type`.
    pub details: Vec<Value>,
    /// The `WWW-Authenticate` header value.
    pub challenge: String,
}

fn status_for(code: u16) -> &'static str {
    match code {
        400 => "INVALID_ARGUMENT",
        401 => "UNAUTHENTICATED",
        403 => "PERMISSION_DENIED",
        404 => "NOT_FOUND",
        409 => "ALREADY_EXISTS",
        412 => "FAILED_PRECONDITION",
        429 => "RESOURCE_EXHAUSTED",
        500 => "INTERNAL",
        501 => "UNIMPLEMENTED",
        502 | 503 => "UNAVAILABLE",
        504 => "DEADLINE_EXCEEDED",
        _ => "UNKNOWN",
    }
}

pub(crate) fn reason_for(code: u16) -> &'static str {
    match code {
        400 => "badRequest",
        401 => "authError",
        403 => "forbidden",
        404 => "notFound",
        429 => "rateLimitExceeded",
        500 => "internalError",
        502 | 503 => "backendError",
        _ => "unknown",
    }
}

impl ApiError {
    /// An error in the `google.rpc.Status` shape (Sheets, Docs, Drive Activity).
    pub fn rpc(code: u16, message: impl Into<String>) -> Self {
        Self {
            code,
            status: status_for(code),
            reason: reason_for(code),
            message: message.into(),
            location: None,
            shape: Shape::Rpc,
            retry_after: None,
            frontend: None,
        }
    }

    /// An error in Drive's legacy shape with an explicit `reason`.
    pub fn legacy(code: u16, reason: &'static str, message: impl Into<String>) -> Self {
        Self {
            code,
            status: status_for(code),
            reason,
            message: message.into(),
            location: None,
            shape: Shape::Legacy,
            retry_after: None,
            frontend: None,
        }
    }

    /// Names the request parameter the error is about (legacy `location`, `locationType: parameter`).
    pub fn at(mut self, parameter: &'static str) -> Self {
        self.location = Some(parameter);
        self
    }

    /// Sheets/Docs `INVALID_ARGUMENT`.
    pub fn invalid(message: impl Into<String>) -> Self {
        Self::rpc(400, message)
    }

    /// Sheets/Docs `NOT_FOUND` ("Requested entity was not found.").
    pub fn not_found() -> Self {
        Self::rpc(404, "Requested entity was not found.")
    }

    /// Sheets/Docs `PERMISSION_DENIED`.
    pub fn forbidden() -> Self {
        Self::rpc(403, "The caller does not have permission")
    }

    /// Drive's `notFound` for a file id, word for word as Drive says it.
    pub fn drive_file_not_found(file_id: &str) -> Self {
        Self::legacy(404, "notFound", format!("File not found: {file_id}.")).at("fileId")
    }

    /// Drive's `badRequest` / `invalid` for a parameter.
    pub fn drive_invalid(parameter: &'static str, message: impl Into<String>) -> Self {
        Self::legacy(400, "invalid", message).at(parameter)
    }

    /// A missing or unknown bearer token, as every Google API answers it.
    pub fn unauthenticated(shape: Shape) -> Self {
        let message = "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.";
        match shape {
            Shape::Rpc => Self::rpc(401, message),
            Shape::Legacy => Self::legacy(401, "authError", message).at("Authorization"),
        }
    }

    /// A token whose scopes include none of those `accepted` by the method, word for word as Google's front
    /// end answers it for every API. `service` is the API's host (`sheets.googleapis.com`); `method` should
    /// be the gRPC method name (`google.apps.sheets.v4.SpreadsheetsService.GetSpreadsheet`), which discovery
    /// does not give, so the emulator passes the discovery id (`sheets.spreadsheets.get`): clients must
    /// not depend on its value.
    pub fn insufficient_scopes(service: &str, method: &str, accepted: &[String]) -> Self {
        let mut error = Self::rpc(403, "Request had insufficient authentication scopes.");
        error.reason = "insufficientPermissions";
        error.frontend = Some(Box::new(Frontend {
            item_message: "Insufficient Permission",
            details: vec![json!({
                "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                "reason": "ACCESS_TOKEN_SCOPE_INSUFFICIENT",
                "domain": "googleapis.com",
                "metadata": { "service": service, "method": method },
            })],
            challenge: format!(
                "Bearer realm=\"https://accounts.google.com/\", error=\"insufficient_scope\", scope=\"{}\"",
                accepted.join(" ")
            ),
        }));
        error
    }

    /// Adds a `Retry-After` header (seconds) to the response.
    pub fn retry_after(mut self, seconds: u64) -> Self {
        self.retry_after = Some(seconds);
        self
    }

    /// The JSON body Google would send.
    pub fn body(&self) -> Value {
        if let Some(frontend) = &self.frontend {
            let item = json!({ "message": frontend.item_message, "domain": "global", "reason": self.reason });
            return json!({ "error": {
                "code": self.code,
                "message": self.message,
                "errors": [item],
                "status": self.status,
                "details": frontend.details,
            } });
        }
        match self.shape {
            Shape::Rpc => json!({
                "error": { "code": self.code, "message": self.message, "status": self.status }
            }),
            Shape::Legacy => {
                let mut item = json!({
                    "message": self.message,
                    "domain": if self.reason == "rateLimitExceeded" { "usageLimits" } else { "global" },
                    "reason": self.reason,
                });
                if let Some(location) = self.location {
                    item["location"] = json!(location);
                    item["locationType"] = json!(if location == "Authorization" { "header" } else { "parameter" });
                }
                json!({ "error": { "code": self.code, "message": self.message, "errors": [item] } })
            }
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = StatusCode::from_u16(self.code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        let mut response = (status, axum::Json(self.body())).into_response();
        if let Some(value) = self.retry_after.and_then(|s| HeaderValue::from_str(&s.to_string()).ok()) {
            response.headers_mut().insert("retry-after", value);
        }
        if let Some(value) = self.frontend.and_then(|frontend| HeaderValue::from_str(&frontend.challenge).ok()) {
            response.headers_mut().insert(header::WWW_AUTHENTICATE, value);
        }
        response
    }
}

/// Google answers an unknown path with a 404 and an HTML page; APIs answer JSON 404s for unknown
/// resources. The emulator answers the JSON form so a wrong path in the client fails loudly.
pub async fn not_found_route(uri: axum::http::Uri) -> ApiError {
    ApiError::rpc(404, format!("The requested URL {} was not found on this server.", uri.path()))
}
