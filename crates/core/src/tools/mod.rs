//! The tools: declared once each ([`registry`]), grouped by Google product.

pub mod cache;
pub mod calendar;
pub mod catalogue_doc;
pub mod context;
pub mod discovered;
pub mod docs;
pub mod drive;
pub mod error;
pub mod gmail;
pub mod google_mcp;
pub mod mcpb_manifest;
pub mod progress;
pub mod registry;
pub(crate) mod schema;
pub mod sets;
pub mod sheets;

pub use crate::catalog::scopes;
pub use context::{Forms, ToolContext};
pub use error::ToolError;
pub use progress::Progress;
pub use registry::{Access, Cap, Effect, Output, Service, ToolDef, ToolMeta, all_tools};

/// Why the tool set could not be built.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error(
        "ENABLED_TOOLS names {names}, which {verb} not a tool of this server. Remove {them}, or check the spelling against docs/tools.md."
    )]
    UnknownEnabledTools { names: String, verb: &'static str, them: &'static str },
}

/// The tools this server offers: every tool, or those `enabled` (`ENABLED_TOOLS`) names, in catalogue order.
/// A name under the naming rule of Google's discovered tools (`google_sheets_…`, see [`discovered`]) is taken
/// as it is: whether Google offers it is known only once its server is asked, and the engine offers such a
/// tool only when `ENABLED_TOOLS` names it.
pub fn enabled_tools(enabled: Option<&[String]>) -> Result<Vec<ToolDef>, StartError> {
    let mut tools = all_tools();
    let Some(enabled) = enabled else { return Ok(tools) };
    let unknown: Vec<&str> = enabled
        .iter()
        .filter(|name| !tools.iter().any(|tool| tool.meta.name == name.as_str()))
        .filter(|name| discovered::parse_name(name).is_none())
        .map(String::as_str)
        .collect();
    if !unknown.is_empty() {
        let plural = unknown.len() > 1;
        return Err(StartError::UnknownEnabledTools {
            names: unknown.join(", "),
            verb: if plural { "are" } else { "is" },
            them: if plural { "them" } else { "it" },
        });
    }
    tools.retain(|tool| enabled.iter().any(|name| name == tool.meta.name));
    Ok(tools)
}
