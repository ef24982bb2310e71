//! Our server entry, as each client wants it written, and the snippets for assistants Gatehouse can't configure.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{Map, Value, json};

use super::clients::{Client, Format, Shape};
use super::error::ConnectError;
use super::yaml_file;

/// The name of our entry in every client's config.
pub const ENTRY_NAME: &str = "gatehouse";

/// Goose's default extension timeout (`DEFAULT_EXTENSION_TIMEOUT`), in seconds: longer than an approval card
/// waits for an answer (120 s), so a call waiting on the person is not cut short by Goose.
const GOOSE_TIMEOUT_SECONDS: u64 = 300;

/// Shown by Goose beside the extension.
const DESCRIPTION: &str = "Google Sheets, Docs and Drive, with you approving every change";

/// What an assistant is told to run: `command args…` with `env`, under `name`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerEntry {
    pub name: String,
    /// The absolute path of the `gatehouse` binary: assistants start with a bare PATH, so a plain name would fail.
    pub command: String,
    pub args: Vec<String>,
    pub env: BTreeMap<String, String>,
}

impl ServerEntry {
    /// `gatehouse serve` (or `serve --sandbox`) at `binary`, named [`ENTRY_NAME`].
    pub fn gatehouse(binary: &Path, sandbox: bool) -> Result<Self, ConnectError> {
        let command =
            binary.to_str().ok_or_else(|| ConnectError::BinaryPath { path: binary.display().to_string() })?.to_owned();
        let mut args = vec!["serve".to_owned()];
        if sandbox {
            args.push("--sandbox".to_owned());
        }
        Ok(Self { name: ENTRY_NAME.to_owned(), command, args, env: BTreeMap::new() })
    }

    /// The same entry, offering the assistant only the tools of `tools` (`serve --tools …`).
    pub fn offering(mut self, tools: &crate::tools::sets::ToolSelection) -> Self {
        self.args.extend(["--tools".to_owned(), tools.spec().to_owned()]);
        if let Some(max) = tools.max_tools() {
            self.args.extend(["--max-tools".to_owned(), max.to_string()]);
        }
        self
    }

    /// The entry as written into a client of this shape. An empty `env` is left out where it is optional.
    pub(super) fn value(&self, shape: Shape) -> Value {
        self.render(shape, false)
    }

    fn render(&self, shape: Shape, with_empty_env: bool) -> Value {
        let env =
            Value::Object(self.env.iter().map(|(key, value)| (key.clone(), Value::from(value.clone()))).collect());
        let mut entry = Map::new();
        match shape {
            Shape::Plain | Shape::TypedStdio => {
                if shape == Shape::TypedStdio {
                    entry.insert("type".into(), "stdio".into());
                }
                entry.insert("command".into(), self.command.clone().into());
                entry.insert("args".into(), self.args.clone().into());
                if with_empty_env || !self.env.is_empty() {
                    entry.insert("env".into(), env);
                }
            }
            Shape::GooseExtension => {
                entry.insert("enabled".into(), true.into());
                entry.insert("type".into(), "stdio".into());
                entry.insert("name".into(), self.name.clone().into());
                entry.insert("description".into(), DESCRIPTION.into());
                entry.insert("cmd".into(), self.command.clone().into());
                entry.insert("args".into(), self.args.clone().into());
                entry.insert("envs".into(), env);
                entry.insert("env_keys".into(), Value::Array(Vec::new()));
                entry.insert("timeout".into(), GOOSE_TIMEOUT_SECONDS.into());
            }
        }
        Value::Object(entry)
    }

    /// Whether `existing` already says what we would write: every field we write has the same value (a missing
    /// field and an empty one count as the same, as clients add `"env": {}` when they rewrite a file). Fields the
    /// client added to our entry on its own are left alone.
    pub(super) fn matches(&self, existing: &Value, shape: Shape) -> bool {
        let Value::Object(ours) = self.render(shape, true) else { return false };
        let Value::Object(existing) = existing else { return false };
        ours.iter().all(|(key, value)| {
            let theirs = existing.get(key).unwrap_or(&Value::Null);
            theirs == value || (is_empty(theirs) && is_empty(value))
        })
    }
}

fn is_empty(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::Object(map) => map.is_empty(),
        Value::Array(items) => items.is_empty(),
        _ => false,
    }
}

/// The command an existing entry runs (`command`, or Goose's `cmd`) and its arguments.
pub(super) fn command_of(existing: &Value) -> (Option<String>, Vec<String>) {
    let command = existing.get("command").or_else(|| existing.get("cmd")).and_then(Value::as_str).map(str::to_owned);
    let args = existing
        .get("args")
        .and_then(Value::as_array)
        .map(|args| args.iter().filter_map(Value::as_str).map(str::to_owned).collect())
        .unwrap_or_default();
    (command, args)
}

/// What a person pastes into an assistant's settings to add Gatehouse: for a known client, in its own file's
/// format (JSON with its container key, or Goose's YAML); for any other (`None`), the common
/// `{"mcpServers": …}` form most MCP clients read.
pub fn snippet(client: Option<&Client>, entry: &ServerEntry) -> String {
    match client {
        Some(client) if client.format == Format::Yaml => {
            yaml_file::fresh_document(client.container, &entry.name, &entry.value(client.shape))
        }
        Some(client) => pretty(&json!({ client.container: { entry.name.clone(): entry.value(client.shape) } })),
        None => pretty(&json!({ "mcpServers": { entry.name.clone(): entry.value(Shape::Plain) } })),
    }
}

/// The snippet for a client that speaks streamable HTTP: the URL and a per-assistant bearer token.
pub fn http_snippet(url: &str, token: &str) -> String {
    pretty(&json!({
        "mcpServers": {
            ENTRY_NAME: { "type": "http", "url": url, "headers": { "Authorization": format!("Bearer {token}") } }
        }
    }))
}

/// The URL for a client that takes only a URL (no headers): the token rides in the `access_token` query
/// parameter, which the HTTP server accepts as it accepts the bearer header.
pub fn url_with_token(url: &str, token: &str) -> String {
    let joiner = if url.contains('?') { '&' } else { '?' };
    format!("{url}{joiner}access_token={token}")
}

/// Two-space pretty JSON with a final newline. Serializing a `Value` cannot fail.
pub(super) fn pretty(value: &Value) -> String {
    let mut text = serde_json::to_string_pretty(value).unwrap_or_default();
    text.push('\n');
    text
}
