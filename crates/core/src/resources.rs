//! MCP resources: `spreadsheet://{spreadsheet_id}/info`.

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

#[derive(Debug, thiserror::Error)]
pub enum ResourceError {
    #[error("No resource at {0:?}. Resources look like spreadsheet://SPREADSHEET_ID/info.")]
    Unknown(String),
    #[error("{0}")]
    Tool(#[from] ToolError),
}

/// Reads a resource by URI and returns its JSON text.
pub async fn read(engine: &Engine, uri: &str) -> Result<String, ResourceError> {
    let id = uri
        .strip_prefix("spreadsheet://")
        .and_then(|rest| rest.strip_suffix("/info"))
        .filter(|id| !id.is_empty() && !id.contains('/'))
        .ok_or_else(|| ResourceError::Unknown(uri.to_owned()))?;
    let info = crate::tools::sheets::spreadsheet_info(engine.context(), id).await?;
    Ok(info.to_string())
}
