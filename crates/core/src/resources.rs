//! MCP resources: `server://auth-status` and the template `spreadsheet://{spreadsheet_id}/info`.

use crate::Engine;
use crate::tools::ToolError;

/// A resource template the server lists.
pub struct Template {
    pub uri_template: &'static str,
    pub name: &'static str,
    pub description: &'static str,
}

pub const TEMPLATES: &[Template] = &[Template {
    uri_template: "spreadsheet://{spreadsheet_id}/info",
    name: "spreadsheet_info",
    description: "A spreadsheet's title, URL and sheets (titles, ids, sizes).",
}];

/// The sign-in status: method, identity class, account and what this sign-in cannot do.
pub const AUTH_STATUS_URI: &str = "server://auth-status";

/// A fixed resource the server lists.
pub struct Fixed {
    pub uri: &'static str,
    pub name: &'static str,
    pub description: &'static str,
}

pub const FIXED: &[Fixed] = &[Fixed {
    uri: AUTH_STATUS_URI,
    name: "auth_status",
    description: "How Gatehouse is signed in to Google, and which tools this kind of sign-in cannot use, why, and what to do instead.",
}];

#[derive(Debug, thiserror::Error)]
pub enum ResourceError {
    #[error("No resource at {0:?}. Resources look like spreadsheet://SPREADSHEET_ID/info, or server://auth-status.")]
    Unknown(String),
    #[error("{0}")]
    Tool(#[from] ToolError),
    /// Relayed to the user's host, which could not be reached: the words say what to do.
    #[error("{0}")]
    Host(String),
}

/// Reads a resource by URI and returns its JSON text.
pub async fn read(engine: &Engine, uri: &str) -> Result<String, ResourceError> {
    if uri == AUTH_STATUS_URI {
        return Ok(auth_status(engine).to_string());
    }
    let id = uri
        .strip_prefix("spreadsheet://")
        .and_then(|rest| rest.strip_suffix("/info"))
        .filter(|id| !id.is_empty() && !id.contains('/'))
        .ok_or_else(|| ResourceError::Unknown(uri.to_owned()))?;
    let info = crate::tools::sheets::spreadsheet_info(engine.context(), id).await?;
    Ok(info.to_string())
}

/// `server://auth-status` for the engine's current sign-in.
pub fn auth_status(engine: &Engine) -> serde_json::Value {
    let auth = engine.auth().current();
    crate::auth::status::auth_status(
        auth.method,
        auth.class,
        auth.account.as_deref(),
        auth.granted_scopes.as_deref(),
        engine.tools(),
    )
}
