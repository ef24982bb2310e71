//! What a tool returns.

use serde_json::Value;

/// A tool's result: a JSON value, or JSON text already serialized. Large results (a 20,000-row sheet) are
/// written straight from Google's answer into text, so no intermediate JSON tree is ever held.
#[derive(Debug, Clone)]
pub enum Output {
    Json(Value),
    /// Serialized JSON, produced by the handler.
    Text(String),
    /// A discovered Google tool's result as Google gave it (see [`Passed`]).
    Google(Box<Passed>),
}

/// The result of one of Google's tools that Gatehouse offers as it is ([`crate::tools::discovered`]): its text, and
/// what MCP clients that take them are given besides (`structuredContent`, resource links).
#[derive(Debug, Clone, Default)]
pub struct Passed {
    /// Google's text content, joined; Google's `structuredContent` as JSON text when it gave no text.
    pub text: String,
    pub structured: Option<Value>,
    /// Google's `resource_link` content blocks, as it sent them.
    pub links: Vec<rmcp::model::ContentBlock>,
}

impl From<Value> for Output {
    fn from(value: Value) -> Self {
        Output::Json(value)
    }
}
