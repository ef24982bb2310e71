//! Request checking against Google's discovery documents, shared by the Sheets, Docs and Slides emulators.
//!
//! Google binds query parameters and JSON bodies to the method's request message before anything else
//! runs, so an unknown parameter, an unknown field or a value of the wrong type is refused with a fixed
//! family of messages (`Invalid JSON payload received. Unknown name "x" at 'requests[0]': Cannot find
//! field.`). The discovery document says which names exist, so the emulator refuses exactly what Google
//! refuses.

use std::sync::OnceLock;

use serde_json::{Map, Value};

use crate::errors::ApiError;

/// Which discovery document to check against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Api {
    Sheets,
    Docs,
    Slides,
}

impl Api {
    fn document(self) -> &'static Value {
        static SHEETS: OnceLock<Value> = OnceLock::new();
        static DOCS: OnceLock<Value> = OnceLock::new();
        static SLIDES: OnceLock<Value> = OnceLock::new();
        match self {
            Api::Sheets => SHEETS.get_or_init(|| {
                serde_json::from_str(include_str!("../../discovery/sheets.v4.json")).unwrap_or(Value::Null)
            }),
            Api::Docs => DOCS.get_or_init(|| {
                serde_json::from_str(include_str!("../../discovery/docs.v1.json")).unwrap_or(Value::Null)
            }),
            Api::Slides => SLIDES.get_or_init(|| {
                serde_json::from_str(include_str!("../../discovery/slides.v1.json")).unwrap_or(Value::Null)
            }),
        }
    }

    /// The proto package Google names in `Invalid value at …` messages.
    fn package(self) -> &'static str {
        match self {
            Api::Sheets => "google.apps.sheets.v4",
            Api::Docs => "google.apps.docs.v1",
            Api::Slides => "google.apps.slides.v1",
        }
    }
}

/// A request's query string, with repeated parameters kept in order.
#[derive(Debug, Default, Clone)]
pub(crate) struct Query(pub Vec<(String, String)>);

impl Query {
    pub(crate) fn parse(raw: Option<&str>) -> Self {
        let raw = raw.unwrap_or("");
        Self(url::form_urlencoded::parse(raw.as_bytes()).map(|(k, v)| (k.into_owned(), v.into_owned())).collect())
    }

    /// The last value of `name` (Google binds the last one for a non-repeated field).
    pub(crate) fn get(&self, name: &str) -> Option<&str> {
        self.0.iter().rev().find(|(k, _)| k == name || *k == snake(name)).map(|(_, v)| v.as_str())
    }

    pub(crate) fn all(&self, name: &str) -> Vec<&str> {
        self.0.iter().filter(|(k, _)| k == name || *k == snake(name)).map(|(_, v)| v.as_str()).collect()
    }

    /// A boolean parameter (already checked by [`check_query`]).
    pub(crate) fn flag(&self, name: &str) -> bool {
        self.get(name) == Some("true")
    }
}

/// `majorDimension` → `major_dimension`, as Google spells fields in its messages.
pub(crate) fn snake(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 4);
    for ch in name.chars() {
        if ch.is_ascii_uppercase() {
            out.push('_');
            out.push(ch.to_ascii_lowercase());
        } else {
            out.push(ch);
        }
    }
    out
}

/// `major_dimension` → `majorDimension` (Google accepts both spellings in JSON and field masks).
pub(crate) fn camel(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut upper = false;
    for ch in name.chars() {
        if ch == '_' && !out.is_empty() {
            upper = true;
        } else if upper {
            out.push(ch.to_ascii_uppercase());
            upper = false;
        } else {
            out.push(ch);
        }
    }
    out
}

fn method(api: Api, path: &[&str]) -> Option<&'static Value> {
    let (last, resources) = path.split_last()?;
    let mut node = api.document();
    for resource in resources {
        node = node.get("resources")?.get(*resource)?;
    }
    node.get("methods")?.get(*last)
}

/// The Google enum type a query parameter binds to, for `Invalid value at …` messages.
fn enum_type(api: Api, parameter: &str) -> String {
    let name = match parameter {
        "majorDimension" => "Dimension",
        "valueRenderOption" | "responseValueRenderOption" => "ValueRenderOption",
        "dateTimeRenderOption" | "responseDateTimeRenderOption" => "DateTimeRenderOption",
        "valueInputOption" => "ValueInputOption",
        "insertDataOption" => "InsertDataOption",
        "commentsViewMode" => "CommentsViewMode",
        "suggestionsViewMode" => "SuggestionsViewMode",
        _ => return "TYPE_ENUM".to_owned(),
    };
    format!("type.googleapis.com/{}.{name}", api.package())
}

/// Checks every query parameter against the method's parameters and the API's standard parameters.
pub(crate) fn check_query(api: Api, path: &[&str], query: &Query) -> Result<(), ApiError> {
    let Some(method) = method(api, path) else {
        return Ok(());
    };
    let standard = api.document().get("parameters");
    for (raw_name, value) in &query.0 {
        let name = camel(raw_name);
        let spec = method
            .get("parameters")
            .and_then(|p| p.get(name.as_str()))
            .or_else(|| standard.and_then(|p| p.get(raw_name.as_str())));
        let Some(spec) = spec else {
            return Err(ApiError::invalid(format!(
                "Invalid JSON payload received. Unknown name \"{raw_name}\": Cannot bind query parameter. Field '{raw_name}' could not be found in request message."
            )));
        };
        let bad =
            |kind: String| ApiError::invalid(format!("Invalid value at '{}' ({kind}), \"{value}\"", snake(&name)));
        match spec.get("type").and_then(Value::as_str) {
            Some("boolean") if value != "true" && value != "false" => {
                return Err(bad("TYPE_BOOL".into()));
            }
            Some("integer") if value.parse::<i64>().is_err() => {
                return Err(bad("TYPE_INT32".into()));
            }
            _ => {}
        }
        if let Some(allowed) = spec.get("enum").and_then(Value::as_array)
            && !allowed.iter().any(|v| v.as_str() == Some(value))
        {
            return Err(bad(enum_type(api, &name)));
        }
    }
    Ok(())
}

/// Checks a JSON body against the schema `schema` (e.g. `BatchUpdateSpreadsheetRequest`).
pub(crate) fn check_body(api: Api, schema: &str, body: &Value) -> Result<(), ApiError> {
    let spec = serde_json::json!({ "$ref": schema });
    check_value(api, &spec, body, "").map_err(ApiError::invalid)
}

/// Parses a request body: empty means `{}`; anything but a JSON object is Google's parse error.
pub(crate) fn parse_body(bytes: &[u8]) -> Result<Value, ApiError> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(Value::Object(Map::new()));
    }
    match serde_json::from_slice::<Value>(bytes) {
        Ok(value @ Value::Object(_)) => Ok(value),
        Ok(other) => Err(ApiError::invalid(format!(
            "Invalid JSON payload received. Expected an object, got {}.",
            kind_name(&other)
        ))),
        Err(error) => Err(ApiError::invalid(format!("Invalid JSON payload received. Unexpected token.\n{error}"))),
    }
}

fn kind_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "list",
        Value::Object(_) => "object",
    }
}

fn join(path: &str, field: &str) -> String {
    if path.is_empty() { snake(field) } else { format!("{path}.{}", snake(field)) }
}

fn invalid_value(path: &str, kind: &str, value: &Value) -> String {
    format!("Invalid value at '{path}' ({kind}), {value}")
}

fn check_value(api: Api, spec: &Value, value: &Value, path: &str) -> Result<(), String> {
    if value.is_null() {
        return Ok(());
    }
    if let Some(reference) = spec.get("$ref").and_then(Value::as_str) {
        let Some(schema) = api.document().get("schemas").and_then(|s| s.get(reference)) else {
            return Ok(());
        };
        let Value::Object(fields) = value else {
            let kind = format!("type.googleapis.com/{}.{reference}", api.package());
            return Err(invalid_value(path, &kind, value));
        };
        return check_object(api, schema, fields, path);
    }
    match spec.get("type").and_then(Value::as_str) {
        Some("object") => {
            let Value::Object(fields) = value else {
                return Err(invalid_value(path, "TYPE_MESSAGE", value));
            };
            if let Some(items) = spec.get("additionalProperties") {
                for (key, item) in fields {
                    check_value(api, items, item, &format!("{path}[{key}]"))?;
                }
                Ok(())
            } else {
                check_object(api, spec, fields, path)
            }
        }
        Some("array") => {
            let Value::Array(items) = value else {
                return Err(invalid_value(path, "TYPE_LIST", value));
            };
            let item_spec = spec.get("items").cloned().unwrap_or(Value::Null);
            for (index, item) in items.iter().enumerate() {
                check_value(api, &item_spec, item, &format!("{path}[{index}]"))?;
            }
            Ok(())
        }
        Some("string") => {
            let format = spec.get("format").and_then(Value::as_str);
            match value {
                Value::String(text) => {
                    if let Some(allowed) = spec.get("enum").and_then(Value::as_array)
                        && !allowed.iter().any(|v| v.as_str() == Some(text))
                    {
                        return Err(invalid_value(path, "TYPE_ENUM", value));
                    }
                    Ok(())
                }
                Value::Number(_) if matches!(format, Some("int64" | "uint64")) => Ok(()),
                _ => Err(invalid_value(path, "TYPE_STRING", value)),
            }
        }
        Some("integer") => {
            let ok = match value {
                Value::Number(n) => n.as_i64().is_some() || n.as_f64().is_some_and(|f| f.fract() == 0.0),
                Value::String(s) => s.trim().parse::<i64>().is_ok(),
                _ => false,
            };
            if ok { Ok(()) } else { Err(invalid_value(path, "TYPE_INT32", value)) }
        }
        Some("number") => {
            let ok = match value {
                Value::Number(_) => true,
                Value::String(s) => s.parse::<f64>().is_ok() || matches!(s.as_str(), "NaN" | "Infinity" | "-Infinity"),
                _ => false,
            };
            let kind =
                if spec.get("format").and_then(Value::as_str) == Some("float") { "TYPE_FLOAT" } else { "TYPE_DOUBLE" };
            if ok { Ok(()) } else { Err(invalid_value(path, kind, value)) }
        }
        Some("boolean") => {
            if value.is_boolean() {
                Ok(())
            } else {
                Err(invalid_value(path, "TYPE_BOOL", value))
            }
        }
        _ => Ok(()),
    }
}

fn check_object(api: Api, schema: &Value, fields: &Map<String, Value>, path: &str) -> Result<(), String> {
    let properties = schema.get("properties");
    for (key, item) in fields {
        let property = properties.and_then(|p| p.get(key.as_str()).or_else(|| p.get(camel(key).as_str())));
        let Some(property) = property else {
            let at = if path.is_empty() { String::new() } else { format!(" at '{path}'") };
            return Err(format!("Invalid JSON payload received. Unknown name \"{key}\"{at}: Cannot find field."));
        };
        check_value(api, property, item, &join(path, key))?;
    }
    Ok(())
}
