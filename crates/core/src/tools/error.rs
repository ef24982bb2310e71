//! Why a tool call failed, in words an assistant can relay to the person.

use crate::a1::A1Error;
use crate::google::GoogleError;
use crate::limits::arguments::TooLong;
use crate::limits::local_files::LocalPathError;
use crate::limits::response_cap::TooLarge;
use crate::shown::cut_quoted;

#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    /// The arguments did not fit the tool's schema.
    #[error("{0}")]
    Arguments(#[from] crate::catalog::ArgumentsError),
    /// A string argument is longer than its kind allows (see [`crate::limits::arguments`]).
    #[error("{0}")]
    TooLong(#[from] TooLong),
    /// An argument parsed but makes no sense (a negative count, an empty list).
    #[error("{0}")]
    Invalid(String),
    #[error("{0}")]
    Range(#[from] A1Error),
    #[error("{0}")]
    Google(#[from] GoogleError),
    #[error("{0}")]
    TooLarge(#[from] TooLarge),
    #[error("{0}")]
    LocalPath(#[from] LocalPathError),
    #[error("{0}")]
    Cache(#[from] crate::cache::CacheError),
    /// The sign-in does not carry the OAuth scope the tool needs: asking Google would only fail.
    #[error(
        "{tool} needs permission to use Google {product}, which the sign-in{account} was not given. Sign in to Google again from the Gatehouse app (tray menu › Open Gatehouse › Account) or with `gatehouse login` and allow it; only the missing permission is asked."
    )]
    ScopeNotGranted { tool: &'static str, product: &'static str, account: String },
    /// Something named in the arguments doesn't exist (e.g. a sheet title).
    #[error("{0}")]
    NotFound(String),
    /// Google's MCP server for the tool could not be used (see [`crate::google::mcp::McpError`]).
    #[error("{0}")]
    GoogleMcp(#[from] crate::google::mcp::McpError),
    /// Google's MCP server ran the call and answered a tool error, in its words (hostile text, cut).
    #[error("The {server} refused the call: {words:?}")]
    GoogleMcpRefused { server: &'static str, words: String },
    /// The person did not accept Google's approval form (declined, no answer, a pause), or it could not be
    /// shown: Google did not run the call. `ended_by` is who ended it, for the audit log (`None`: nobody
    /// decided, as for a form that could not be shown).
    #[error("{message}")]
    FormNotApproved { ended_by: Option<crate::approval::model::DecisionSource>, message: String },
    /// Gatehouse left the call to Google's form, and Google's server no longer asks one for it (its list of
    /// tools changed since): nothing was sent, so nothing runs unasked.
    #[error(
        "The {server} no longer asks the person to approve {tool} on its own form (its tools changed since Gatehouse checked this call), so Gatehouse did not send it. Call it again: Gatehouse will ask the person on its own card."
    )]
    GoogleStoppedAsking { tool: &'static str, server: &'static str },
}

impl ToolError {
    /// The error as the assistant reads it: every long value it quotes cut to its start
    /// ([`cut_quoted`]), whoever wrote the message (a tool, serde, Google).
    pub fn for_assistant(&self) -> String {
        cut_quoted(&self.to_string())
    }

    pub fn invalid(message: impl Into<String>) -> Self {
        Self::Invalid(message.into())
    }
}
