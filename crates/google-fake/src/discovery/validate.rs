//! The validator: one HTTP exchange checked against the discovery model.

use std::fmt;

use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD_NO_PAD, URL_SAFE_NO_PAD};
use serde_json::{Map, Value};

use super::model::{Api, Discovery, Match, Miss, Parameter, Schema};

/// A request or response body, as far as the validator is concerned.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Body<'a> {
    /// No body (or an empty one).
    Absent,
    /// A JSON body.
    Json(&'a Value),
    /// A body that is not JSON (media, exports, multipart uploads): not validated.
    Other,
    /// A body that was not read (streamed, or over the buffering cap): not validated.
    Unread,
    /// A body declared as JSON that does not parse.
    Malformed,
}

impl<'a> From<Option<&'a Value>> for Body<'a> {
    fn from(value: Option<&'a Value>) -> Self {
        value.map_or(Body::Absent, Body::Json)
    }
}

/// One HTTP exchange: the request as sent and the emulator's answer.
#[derive(Debug, Clone, Copy)]
pub struct Exchange<'a> {
    /// `GET`, `POST`, …
    pub method: &'a str,
    /// The URL path as sent (percent-encoded), on the single root all Google hosts map onto.
    pub path: &'a str,
    /// Decoded query pairs, in order (repeated parameters repeat).
    pub query: &'a [(String, String)],
    pub request: Body<'a>,
    pub status: u16,
    pub response: Body<'a>,
}

/// What kind of rule an exchange broke.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// No discovery method serves the path (or not with this HTTP method), yet the emulator answered it.
    UnknownRoute,
    /// A query parameter neither the method nor the API defines was accepted.
    UnknownQueryParameter,
    /// A query parameter value of the wrong type or outside its `enum` was accepted.
    InvalidQueryParameter,
    /// A required query parameter was missing, yet the request succeeded.
    MissingQueryParameter,
    /// The request body has a field its schema does not define, yet the request succeeded.
    UnknownRequestField,
    /// A request body value has the wrong JSON type, format or enum value, yet the request succeeded.
    InvalidRequestValue,
    /// The request body is not JSON, yet the request succeeded.
    MalformedRequest,
    /// The response body has a field its schema does not define.
    UnknownResponseField,
    /// A response body value has the wrong JSON type, format or enum value.
    InvalidResponseValue,
    /// The response body is missing, not JSON, or present where Google sends none.
    ResponseBody,
    /// An error response is not Google's error envelope.
    ErrorEnvelope,
}

/// One broken rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    pub kind: Kind,
    pub message: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}: {}", self.kind, self.message)
    }
}

/// Everything one exchange got wrong, and the discovery method it was matched to.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Violations {
    /// The discovery id of the matched method (`drive.files.get`), if any.
    pub method: Option<String>,
    pub items: Vec<Violation>,
}

impl Violations {
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn iter(&self) -> impl Iterator<Item = &Violation> {
        self.items.iter()
    }

    /// Whether any violation is of `kind`.
    pub fn contains(&self, kind: Kind) -> bool {
        self.items.iter().any(|violation| violation.kind == kind)
    }

    /// One line per violation, prefixed with the exchange: `GET /drive/v3/files -> 200 (drive.files.list): …`.
    pub fn describe(&self, exchange: &Exchange<'_>) -> Vec<String> {
        let method = self.method.as_deref().unwrap_or("no discovery method");
        self.items
            .iter()
            .map(|violation| {
                format!("{} {} -> {} ({method}): {violation}", exchange.method, exchange.path, exchange.status)
            })
            .collect()
    }

    fn push(&mut self, kind: Kind, message: String) {
        self.items.push(Violation { kind, message });
    }
}

/// The session id Google appends to a resumable upload URI; the session's chunks go there with `PUT`.
const UPLOAD_ID: &str = "upload_id";

impl Discovery {
    /// Checks one exchange. Request-side rules (path, query, request body) are reported only when the
    /// emulator accepted the request (status < 400): an error answer is what Google gives a request that
    /// breaks them. Responses with status >= 400 are checked against Google's error envelope; others
    /// against the method's response schema.
    pub fn validate(&self, exchange: &Exchange<'_>) -> Violations {
        let mut out = Violations::default();
        let accepted = exchange.status < 400;
        let found = match self.find_exchange(exchange) {
            Ok(found) => found,
            Err(miss) => {
                if accepted {
                    let message = match miss {
                        Miss::UnknownPath => "no discovery method has this path".to_owned(),
                        Miss::UnknownMethod(methods) => {
                            format!("the path is only defined for {}", methods.join(", "))
                        }
                    };
                    out.push(Kind::UnknownRoute, message);
                } else {
                    check_error(exchange.status, exchange.response, &mut out);
                }
                return out;
            }
        };
        let (api, method) = (found.api, found.method);
        out.method = Some(method.id.clone());
        let has = |name: &str| exchange.query.iter().any(|(key, _)| key == name);
        let value_of = |name: &str| exchange.query.iter().find(|(key, _)| key == name).map(|(_, v)| v.as_str());
        // Upload URIs carry media (or multipart) bodies, except when starting a resumable session.
        let session_start = found.upload && value_of("uploadType") == Some("resumable") && !has(UPLOAD_ID);
        let media_request = found.upload && !session_start;
        let media_response = value_of("alt") == Some("media");

        if accepted {
            for (name, value) in exchange.query {
                if found.upload && name == UPLOAD_ID {
                    continue;
                }
                match method.query_parameter(api, name) {
                    None => out.push(Kind::UnknownQueryParameter, format!("query parameter `{name}` is not defined")),
                    Some(parameter) => {
                        if let Some(problem) = check_parameter(parameter, value) {
                            let message = format!("query parameter `{name}` = {value:?}: {problem}");
                            out.push(Kind::InvalidQueryParameter, message);
                        }
                    }
                }
            }
            for (name, parameter) in &method.parameters {
                if parameter.required && parameter.location.as_deref() == Some("query") && !has(name) {
                    let message = format!("required query parameter `{name}` is missing");
                    out.push(Kind::MissingQueryParameter, message);
                }
            }
            if !media_request {
                match (exchange.request, &method.request) {
                    (Body::Json(value), Some(schema)) => {
                        Walker::new(api, Side::Request, &mut out).root(schema, value);
                    }
                    (Body::Malformed, _) => out.push(Kind::MalformedRequest, "request body is not valid JSON".into()),
                    _ => {}
                }
            }
        }

        if !accepted {
            check_error(exchange.status, exchange.response, &mut out);
            return out;
        }
        if media_response || session_start || !(200..300).contains(&exchange.status) {
            return out;
        }
        match (exchange.response, &method.response) {
            (Body::Json(value), Some(schema)) => {
                Walker::new(api, Side::Response, &mut out).root(schema, value);
            }
            (Body::Json(value), None) => {
                let empty = value.as_object().is_some_and(Map::is_empty);
                if !empty && !method.supports_media_download {
                    out.push(Kind::ResponseBody, "Google answers this method with an empty body".into());
                }
            }
            (Body::Absent | Body::Other, Some(schema)) => {
                out.push(Kind::ResponseBody, format!("expected a JSON `{schema}` body"));
            }
            (Body::Malformed, _) => out.push(Kind::ResponseBody, "response body is not valid JSON".into()),
            _ => {}
        }
        out
    }

    /// The method of an exchange (see [`Discovery::find_request`]).
    fn find_exchange(&self, exchange: &Exchange<'_>) -> Result<Match<'_>, Miss> {
        let in_session = exchange.query.iter().any(|(key, _)| key == UPLOAD_ID);
        self.find_request(exchange.method, exchange.path, in_session)
    }
}

/// Why a query parameter value does not fit its definition, if it does not.
fn check_parameter(parameter: &Parameter, value: &str) -> Option<String> {
    if !parameter.enum_values.is_empty() && !parameter.enum_values.iter().any(|allowed| allowed == value) {
        return Some(format!("not one of {:?}", parameter.enum_values));
    }
    let fits = match (parameter.kind.as_deref(), parameter.format.as_deref()) {
        (Some("boolean"), _) => value == "true" || value == "false",
        (Some("integer"), Some("uint32")) => value.parse::<u32>().is_ok(),
        (Some("integer"), Some("int32")) => value.parse::<i32>().is_ok(),
        (Some("integer"), _) => value.parse::<i64>().is_ok(),
        (Some("number"), _) => value.parse::<f64>().is_ok(),
        (Some("string"), format) => check_string_format(format, value),
        _ => true,
    };
    (!fits).then(|| format!("not a valid {}", describe_type(parameter.kind.as_deref(), parameter.format.as_deref())))
}

fn describe_type(kind: Option<&str>, format: Option<&str>) -> String {
    match (kind, format) {
        (Some(kind), Some(format)) => format!("{kind} ({format})"),
        (Some(kind), None) => kind.to_owned(),
        (None, _) => "value".to_owned(),
    }
}

/// Whether a JSON string fits the schema's `format` (Google writes 64-bit integers as strings).
fn check_string_format(format: Option<&str>, value: &str) -> bool {
    match format {
        Some("int64") => value.parse::<i64>().is_ok(),
        Some("uint64") => value.parse::<u64>().is_ok(),
        Some("int32") => value.parse::<i32>().is_ok(),
        Some("uint32") => value.parse::<u32>().is_ok(),
        Some("date-time" | "google-datetime") => chrono::DateTime::parse_from_rfc3339(value).is_ok(),
        Some("date") => chrono::NaiveDate::parse_from_str(value, "%Y-%m-%d").is_ok(),
        Some("byte") => {
            let trimmed = value.trim_end_matches('=');
            STANDARD_NO_PAD.decode(trimmed).is_ok() || URL_SAFE_NO_PAD.decode(trimmed).is_ok()
        }
        Some("google-duration") => value.strip_suffix('s').is_some_and(|seconds| seconds.parse::<f64>().is_ok()),
        _ => true,
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    Request,
    Response,
}

/// One step from a body's root to a value: a field name or an array index.
#[derive(Debug, Clone, Copy)]
enum Step<'v> {
    Key(&'v str),
    Index(usize),
}

/// Walks a JSON body along its schema. The path to the current value is kept as steps and rendered
/// (`$.sheets[0].properties`) only when something is wrong, so a large clean body costs one pass.
struct Walker<'a, 'v> {
    api: &'a Api,
    side: Side,
    out: &'a mut Violations,
    steps: Vec<Step<'v>>,
}

impl<'a, 'v> Walker<'a, 'v> {
    fn new(api: &'a Api, side: Side, out: &'a mut Violations) -> Self {
        Self { api, side, out, steps: Vec::new() }
    }

    fn root(&mut self, schema: &str, value: &'v Value) {
        match self.api.schema(schema) {
            Some(resolved) => self.value(resolved, schema, value),
            None => self.invalid(format!("schema `{schema}` is not in the discovery document")),
        }
    }

    fn value(&mut self, schema: &Schema, owner: &str, value: &'v Value) {
        if let Some(name) = &schema.reference {
            match self.api.schema(name) {
                Some(resolved) => self.value(resolved, name, value),
                None => self.invalid(format!("schema `{name}` is not in the discovery document")),
            }
            return;
        }
        let kind = schema.kind.as_deref().unwrap_or("any");
        if kind == "any" {
            return;
        }
        if value.is_null() {
            // Requests may send null for "unset"; Google omits unset fields from its answers.
            if self.side == Side::Response {
                self.invalid("null (Google omits unset fields)".to_owned());
            }
            return;
        }
        let request = self.side == Side::Request;
        let fits = match kind {
            "object" => match value.as_object() {
                Some(map) => {
                    self.object(schema, owner, map);
                    true
                }
                None => false,
            },
            "array" => match value.as_array() {
                Some(items) => {
                    if let Some(item_schema) = schema.items.as_deref().filter(|items| !is_any(items)) {
                        for (index, item) in items.iter().enumerate() {
                            self.steps.push(Step::Index(index));
                            self.value(item_schema, owner, item);
                            self.steps.pop();
                        }
                    }
                    true
                }
                None => false,
            },
            "string" => match value {
                Value::String(text) => {
                    if !check_string_format(schema.format.as_deref(), text) {
                        let expected = describe_type(Some(kind), schema.format.as_deref());
                        self.invalid(format!("{text:?} is not a valid {expected}"));
                    }
                    if !schema.enum_values.is_empty() && !schema.enum_values.iter().any(|allowed| allowed == text) {
                        self.invalid(format!("{text:?} is not one of {:?}", schema.enum_values));
                    }
                    true
                }
                // Proto3 JSON parsers accept 64-bit integers and enum numbers as JSON numbers; Google
                // itself always writes strings.
                Value::Number(number) => {
                    request
                        && (number.is_i64() || number.is_u64())
                        && (!schema.enum_values.is_empty()
                            || matches!(schema.format.as_deref(), Some("int64" | "uint64")))
                }
                _ => false,
            },
            "integer" => match value {
                Value::Number(number) => match schema.format.as_deref() {
                    Some("int32") => number.as_i64().is_some_and(|n| i32::try_from(n).is_ok()),
                    Some("uint32") => number.as_u64().is_some_and(|n| u32::try_from(n).is_ok()),
                    _ => number.is_i64() || number.is_u64(),
                },
                Value::String(text) => {
                    request && check_string_format(Some(schema.format.as_deref().unwrap_or("int64")), text)
                }
                _ => false,
            },
            "number" => match value {
                Value::Number(_) => true,
                Value::String(text) => {
                    matches!(text.as_str(), "NaN" | "Infinity" | "-Infinity")
                        || (request && text.parse::<f64>().is_ok())
                }
                _ => false,
            },
            "boolean" => value.is_boolean(),
            _ => true,
        };
        if !fits {
            let expected = describe_type(Some(kind), schema.format.as_deref());
            self.invalid(format!("expected {expected}, got {}", json_type(value)));
        }
    }

    fn object(&mut self, schema: &Schema, owner: &str, map: &'v Map<String, Value>) {
        for (key, field) in map {
            self.steps.push(Step::Key(key));
            if let Some(property) = schema.properties.get(key) {
                self.value(property, owner, field);
            } else if let Some(values) = &schema.additional_properties {
                self.value(values, owner, field);
            } else {
                let kind = match self.side {
                    Side::Request => Kind::UnknownRequestField,
                    Side::Response => Kind::UnknownResponseField,
                };
                let message = format!("{} field `{}` is not defined by `{owner}`", self.side_name(), self.here());
                self.out.push(kind, message);
            }
            self.steps.pop();
        }
    }

    fn invalid(&mut self, problem: String) {
        let kind = match self.side {
            Side::Request => Kind::InvalidRequestValue,
            Side::Response => Kind::InvalidResponseValue,
        };
        let message = format!("{} field `{}`: {problem}", self.side_name(), self.here());
        self.out.push(kind, message);
    }

    /// The current path, e.g. `$.sheets[0].properties.title`.
    fn here(&self) -> String {
        let mut path = String::from("$");
        for step in &self.steps {
            match step {
                Step::Key(key) => {
                    path.push('.');
                    path.push_str(key);
                }
                Step::Index(index) => path.push_str(&format!("[{index}]")),
            }
        }
        path
    }

    fn side_name(&self) -> &'static str {
        match self.side {
            Side::Request => "request",
            Side::Response => "response",
        }
    }
}

/// A schema that accepts any value (`type: any`, or no type and no `$ref`).
fn is_any(schema: &Schema) -> bool {
    schema.reference.is_none() && matches!(schema.kind.as_deref(), None | Some("any"))
}

fn json_type(value: &Value) -> String {
    match value {
        Value::Null => "null".to_owned(),
        Value::Bool(flag) => format!("boolean {flag}"),
        Value::Number(number) => format!("number {number}"),
        Value::String(text) => format!("string {text:?}"),
        Value::Array(_) => "array".to_owned(),
        Value::Object(_) => "object".to_owned(),
    }
}

/// `google.rpc.Code` names and the HTTP status Google answers each with.
const CANONICAL_CODES: [(&str, &[u16]); 17] = [
    ("OK", &[200]),
    ("CANCELLED", &[499]),
    ("UNKNOWN", &[500]),
    ("INVALID_ARGUMENT", &[400]),
    ("DEADLINE_EXCEEDED", &[504]),
    ("NOT_FOUND", &[404]),
    ("ALREADY_EXISTS", &[409]),
    ("PERMISSION_DENIED", &[403]),
    ("UNAUTHENTICATED", &[401]),
    ("RESOURCE_EXHAUSTED", &[429]),
    ("FAILED_PRECONDITION", &[400]),
    ("ABORTED", &[409]),
    ("OUT_OF_RANGE", &[400]),
    ("UNIMPLEMENTED", &[501]),
    ("INTERNAL", &[500]),
    ("UNAVAILABLE", &[503]),
    ("DATA_LOSS", &[500]),
];

/// Fields of an `errors[]` item in Google's (legacy, Drive v3) error body.
const ERROR_ITEM_FIELDS: [&str; 7] =
    ["domain", "reason", "message", "location", "locationType", "extendedHelp", "sendReport"];

/// Checks an error answer against Google's envelope:
/// `{"error": {"code", "message", "status"?, "errors"?: [...], "details"?: [{"@type", …}]}}`.
fn check_error(status: u16, body: Body<'_>, out: &mut Violations) {
    let value = match body {
        Body::Json(value) => value,
        Body::Unread => return,
        Body::Absent | Body::Other | Body::Malformed => {
            out.push(Kind::ErrorEnvelope, "error response is not a JSON error envelope".into());
            return;
        }
    };
    let mut fail = |message: String| out.push(Kind::ErrorEnvelope, message);
    let Some(root) = value.as_object() else {
        fail("error body is not a JSON object".into());
        return;
    };
    for key in root.keys().filter(|key| *key != "error") {
        fail(format!("error body has field `{key}` outside `error`"));
    }
    let Some(error) = root.get("error").and_then(Value::as_object) else {
        fail("error body has no `error` object".into());
        return;
    };
    for required in ["code", "message"] {
        if !error.contains_key(required) {
            fail(format!("`error.{required}` is missing"));
        }
    }
    for (key, field) in error {
        match key.as_str() {
            "code" => match field.as_u64() {
                Some(code) if code == u64::from(status) => {}
                Some(code) => fail(format!("`error.code` {code} is not the HTTP status {status}")),
                None => fail(format!("`error.code` is {}, not an integer", json_type(field))),
            },
            "message" if field.is_string() => {}
            "message" => fail(format!("`error.message` is {}, not a string", json_type(field))),
            "status" => match field.as_str().and_then(|name| CANONICAL_CODES.iter().find(|(n, _)| *n == name)) {
                Some((_, statuses)) if statuses.contains(&status) => {}
                Some((name, _)) => fail(format!("`error.status` {name} does not go with HTTP status {status}")),
                None => fail(format!("`error.status` {field} is not a google.rpc.Code name")),
            },
            "errors" => match field.as_array() {
                Some(items) => {
                    for (index, item) in items.iter().enumerate() {
                        let Some(item) = item.as_object() else {
                            fail(format!("`error.errors[{index}]` is not an object"));
                            continue;
                        };
                        for (name, value) in item {
                            if !ERROR_ITEM_FIELDS.contains(&name.as_str()) {
                                fail(format!("`error.errors[{index}].{name}` is not a field of Google's errors"));
                            } else if !value.is_string() {
                                fail(format!("`error.errors[{index}].{name}` is not a string"));
                            }
                        }
                    }
                }
                None => fail("`error.errors` is not an array".into()),
            },
            "details" => match field.as_array() {
                Some(items) => {
                    for (index, item) in items.iter().enumerate() {
                        if !item.get("@type").is_some_and(Value::is_string) {
                            fail(format!("`error.details[{index}]` has no `@type`"));
                        }
                    }
                }
                None => fail("`error.details` is not an array".into()),
            },
            other => fail(format!("`error.{other}` is not a field of Google's error envelope")),
        }
    }
}
