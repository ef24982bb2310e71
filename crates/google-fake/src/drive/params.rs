//! Query parameters as Drive reads them (booleans are `true`/`false`, integers are range-checked, page
//! tokens are ours), request bodies, and the JSON answers shaped by `fields`.

use std::str::FromStr;

use axum::Json;
use axum::response::{IntoResponse, Response};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use chrono::{DateTime, Utc};
use serde_json::{Value, json};

use super::fields;
use super::query::parse_time;
use crate::call::Dialect;
use crate::errors::{ApiError, Shape};

/// The decoded query string of a request.
#[derive(Debug, Clone, Default)]
pub(crate) struct Params(Vec<(String, String)>);

impl Params {
    pub(crate) fn parse(raw: Option<&str>) -> Self {
        Self(url::form_urlencoded::parse(raw.unwrap_or_default().as_bytes()).into_owned().collect())
    }

    /// The first value of `name`.
    pub(crate) fn get(&self, name: &str) -> Option<&str> {
        self.0.iter().find(|(key, _)| key == name).map(|(_, value)| value.as_str())
    }

    /// A non-empty value of `name`.
    pub(crate) fn text(&self, name: &str) -> Option<&str> {
        self.get(name).filter(|value| !value.is_empty())
    }

    /// A boolean parameter, `false` when absent.
    pub(crate) fn flag(&self, name: &'static str) -> Result<bool, ApiError> {
        match self.get(name) {
            None => Ok(false),
            Some(value) => match value.to_ascii_lowercase().as_str() {
                "true" => Ok(true),
                "false" => Ok(false),
                _ => Err(ApiError::legacy(
                    400,
                    "invalidParameter",
                    format!("Invalid value '{value}'. Valid values are: [true, false]"),
                )
                .at(name)),
            },
        }
    }

    /// `supportsAllDrives` (or its deprecated twin `supportsTeamDrives`).
    pub(crate) fn all_drives(&self) -> Result<bool, ApiError> {
        Ok(self.flag("supportsAllDrives")? || self.flag("supportsTeamDrives")?)
    }

    /// An integer in `[min, ..]`; values above `max` are coerced to `max`, as Drive documents.
    pub(crate) fn int(&self, name: &'static str, default: i64, min: i64, max: i64) -> Result<i64, ApiError> {
        let Some(value) = self.get(name) else {
            return Ok(default);
        };
        let parsed: i64 = value.trim().parse().map_err(|_| {
            ApiError::legacy(
                400,
                "invalidParameter",
                format!("Invalid value '{value}'. Values must match the following regular expression: '-?\\d+'"),
            )
            .at(name)
        })?;
        if parsed < min {
            return Err(ApiError::legacy(
                400,
                "invalidParameter",
                format!("Invalid value '{value}'. Values must be within the range: [{min}, {max}]"),
            )
            .at(name));
        }
        Ok(parsed.min(max))
    }

    /// The `fields` selector, if given and not empty.
    pub(crate) fn fields(&self) -> Option<&str> {
        self.text("fields")
    }

    /// Drive's 400 when a method that requires `fields` (about.get, comments) is called without it.
    pub(crate) fn require_fields(&self) -> Result<&str, ApiError> {
        self.fields().ok_or_else(|| {
            ApiError::legacy(400, "required", "The 'fields' parameter is required for this method.").at("fields")
        })
    }

    /// A timestamp parameter (RFC 3339).
    pub(crate) fn time(&self, name: &'static str) -> Result<Option<DateTime<Utc>>, ApiError> {
        self.text(name).map(|text| time_at(text, name)).transpose()
    }

    /// The number a page token of ours carries after `prefix` (`None` without a token); Drive's 400 for
    /// any other token.
    pub(crate) fn page_token<T: FromStr>(&self, prefix: &str) -> Result<Option<T>, ApiError> {
        let decode = |token: &str| {
            URL_SAFE_NO_PAD
                .decode(token)
                .ok()
                .and_then(|b| String::from_utf8(b).ok())
                .and_then(|s| s.strip_prefix(prefix).and_then(|n| n.parse::<T>().ok()))
                .ok_or_else(invalid_page_token)
        };
        self.text("pageToken").map(decode).transpose()
    }

    /// The page a list paged by position asks for: `pageSize` (`default` when absent, at most 100) and the
    /// position an `offset:` page token carries, which may not lie past `last`.
    pub(crate) fn page(&self, default: i64, last: usize) -> Result<Page, ApiError> {
        let fallback = usize::try_from(default).unwrap_or_default();
        let size = usize::try_from(self.int("pageSize", default, 1, 100)?).unwrap_or(fallback);
        let start = self.page_token::<usize>("offset:")?.unwrap_or(0);
        if start > last {
            return Err(invalid_page_token());
        }
        Ok(Page { start, size })
    }

    /// A comma-separated list parameter, empty entries dropped.
    pub(crate) fn list(&self, name: &str) -> Vec<String> {
        self.get(name)
            .map(|value| value.split(',').map(str::trim).filter(|s| !s.is_empty()).map(str::to_owned).collect())
            .unwrap_or_default()
    }
}

impl Dialect for Params {
    const SHAPE: Shape = Shape::Legacy;

    fn parse(raw: Option<&str>) -> Self {
        Params::parse(raw)
    }
}

/// Drive's 400 for a page token it did not issue (or issued for another request).
pub(crate) fn invalid_page_token() -> ApiError {
    ApiError::drive_invalid("pageToken", "Invalid Value")
}

/// A page token of ours: `prefix` and a number, opaque to the client.
pub(crate) fn new_page_token(prefix: &str, number: impl std::fmt::Display) -> String {
    URL_SAFE_NO_PAD.encode(format!("{prefix}{number}"))
}

/// One page of a list paged by position (see [`Params::page`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Page {
    start: usize,
    size: usize,
}

impl Page {
    /// The list resource `kind` with this page of `all`, rendered, under `key`, and the token of the next
    /// page when there is one.
    pub(crate) fn list<T>(self, kind: &str, key: &str, all: &[T], render: impl FnMut(&T) -> Value) -> Value {
        let items: Vec<Value> = all.iter().skip(self.start).take(self.size).map(render).collect();
        let mut body = json!({ "kind": kind });
        body[key] = Value::Array(items);
        let next = self.start + self.size;
        if next < all.len() {
            body["nextPageToken"] = json!(new_page_token("offset:", next));
        }
        body
    }
}

/// Answers `value` (a whole resource of `schema`) cut down to `fields`, or to `default` without it.
pub(crate) fn respond(params: &Params, default: &str, schema: &str, value: &Value) -> Result<Response, ApiError> {
    let selector = params.fields().unwrap_or(default);
    let body = fields::select(selector, schema, value)?;
    Ok(Json(body).into_response())
}

/// The request body as a JSON object: an empty body is `{}`; anything else must be an object.
pub(crate) fn json_body(bytes: &[u8]) -> Result<serde_json::Map<String, Value>, ApiError> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(serde_json::Map::new());
    }
    match serde_json::from_slice::<Value>(bytes) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err(ApiError::legacy(400, "badRequest", "Invalid JSON payload received. Expected an object.")),
        Err(error) => Err(ApiError::legacy(400, "parseError", format!("Parse Error: {error}"))),
    }
}

/// A string member of a request body; `null` reads as absent, any other type is Drive's 400.
pub(crate) fn str_field<'a>(
    body: &'a serde_json::Map<String, Value>,
    name: &'static str,
) -> Result<Option<&'a str>, ApiError> {
    match body.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) => Ok(Some(text)),
        Some(_) => Err(ApiError::legacy(400, "invalid", format!("Invalid value for field '{name}'.")).at(name)),
    }
}

/// A boolean member of a request body.
pub(crate) fn bool_field(body: &serde_json::Map<String, Value>, name: &'static str) -> Result<Option<bool>, ApiError> {
    match body.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(flag)) => Ok(Some(*flag)),
        Some(_) => Err(ApiError::legacy(400, "invalid", format!("Invalid value for field '{name}'.")).at(name)),
    }
}

/// A timestamp member of a request body (RFC 3339).
pub(crate) fn time_field(
    body: &serde_json::Map<String, Value>,
    name: &'static str,
) -> Result<Option<DateTime<Utc>>, ApiError> {
    str_field(body, name)?.map(|text| time_at(text, name)).transpose()
}

/// `text` as a timestamp; Drive's `invalid` 400 at `name` when it is not one.
fn time_at(text: &str, name: &'static str) -> Result<DateTime<Utc>, ApiError> {
    parse_time(text).ok_or_else(|| ApiError::drive_invalid(name, "Invalid Value"))
}
