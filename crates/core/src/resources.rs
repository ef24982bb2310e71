//! MCP resources: `server://auth-status` and the template `spreadsheet://{spreadsheet_id}/info`.

use crate::tools::{ToolContext, ToolError};

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
    /// The resource mirrors a tool this server does not offer (left out by the server's tool list).
    #[error("{uri} is read with the tool {tool}, which this Gatehouse does not offer, so it cannot be read either.")]
    NotOffered { uri: String, tool: &'static str },
    /// The read, as the call of the tool it mirrors, was refused or failed: the words the tool's call gets.
    #[error("{0}")]
    Refused(String),
    #[error("{0}")]
    Tool(#[from] ToolError),
    /// Relayed to the user's host, which could not be reached: the words say what to do.
    #[error("{0}")]
    Host(String),
}

/// A resource, by its URI.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resource {
    /// `server://auth-status`: how Gatehouse is signed in. It holds none of the person's Google data (only the
    /// account's address, which the assistant's every call reports anyway), so it is read without a
    /// decision, a tool selection or an audit record: it mirrors no tool.
    AuthStatus,
    /// `spreadsheet://{spreadsheet_id}/info`: the person's data, so a read of it is a call of the tool it
    /// mirrors (see [`Resource::mirrors`]).
    SpreadsheetInfo { spreadsheet_id: String },
}

impl Resource {
    /// The resource at `uri`.
    pub fn parse(uri: &str) -> Result<Resource, ResourceError> {
        if uri == AUTH_STATUS_URI {
            return Ok(Resource::AuthStatus);
        }
        let id = uri
            .strip_prefix("spreadsheet://")
            .and_then(|rest| rest.strip_suffix("/info"))
            .filter(|id| !id.is_empty() && !id.contains('/'))
            .ok_or_else(|| ResourceError::Unknown(uri.to_owned()))?;
        Ok(Resource::SpreadsheetInfo { spreadsheet_id: id.to_owned() })
    }

    /// The read tool whose data this resource shows, and that tool's arguments for the same data: the one
    /// place that says which tool's decision, tool selection, deny rules and audit a read of it goes through.
    /// `None` for a resource holding none of the person's data.
    pub fn mirrors(&self) -> Option<(&'static str, serde_json::Map<String, serde_json::Value>)> {
        match self {
            Resource::AuthStatus => None,
            // `list_sheets` reads the same spreadsheet fields (`spreadsheet_info`); the resource shows them all.
            Resource::SpreadsheetInfo { spreadsheet_id } => {
                let mut arguments = serde_json::Map::new();
                arguments.insert("spreadsheet_id".to_owned(), spreadsheet_id.clone().into());
                Some(("list_sheets", arguments))
            }
        }
    }

    /// The mirrored tool's name for the resource at `uri`, if it mirrors one (a selection check's input).
    pub fn mirrored_tool(uri: &str) -> Option<&'static str> {
        Resource::parse(uri).ok()?.mirrors().map(|(tool, _)| tool)
    }

    /// The resource's text, once its read was let through as the mirrored tool's call.
    pub(crate) async fn read_permitted(&self, ctx: &ToolContext) -> Result<String, ToolError> {
        match self {
            Resource::AuthStatus => {
                Err(ToolError::invalid("server://auth-status is not read as a tool call: it mirrors no tool."))
            }
            Resource::SpreadsheetInfo { spreadsheet_id } => {
                Ok(crate::tools::sheets::spreadsheet_info(ctx, spreadsheet_id).await?.to_string())
            }
        }
    }
}
