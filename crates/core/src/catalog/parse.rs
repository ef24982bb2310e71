//! Reading a tool's raw arguments as its argument type: the one parse the handler, the argument check and the
//! evaluators that judge a call for standing approval all use, so none of them reads a call differently.

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::shown::cut_quoted;

/// Arguments that don't fit a tool's schema: the tool, and what was wrong with which argument.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("Invalid arguments for {tool}: {detail}. Check the tool's input schema and call it again.")]
pub struct ArgumentsError {
    pub tool: &'static str,
    /// serde's words, naming the argument at fault (`count: invalid type …`) where it knows which one it was.
    pub detail: String,
}

impl ArgumentsError {
    fn new(tool: &'static str, error: serde_path_to_error::Error<serde_json::Error>) -> Self {
        let path = error.path().to_string();
        // serde quotes the value it refused; a long one is cut (the path names the argument anyway).
        let inner = cut_quoted(&error.inner().to_string());
        let detail = if path.is_empty() || path == "." { inner } else { format!("`{}`: {inner}", cut_quoted(&path)) };
        Self { tool, detail }
    }
}

/// Parses `tool`'s raw arguments into its argument type.
pub fn parse_args<A: DeserializeOwned>(tool: &'static str, args: Value) -> Result<A, ArgumentsError> {
    serde_path_to_error::deserialize(args).map_err(|error| ArgumentsError::new(tool, error))
}

/// [`parse_args`] without taking the arguments: for checks that only look (the same parsing, the same errors).
pub fn parse_args_ref<A: DeserializeOwned>(tool: &'static str, args: &Value) -> Result<A, ArgumentsError> {
    serde_path_to_error::deserialize(args).map_err(|error| ArgumentsError::new(tool, error))
}
