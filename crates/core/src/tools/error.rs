//! Why a tool call failed, in words an assistant can relay to the person.

use crate::a1::A1Error;
use crate::google::GoogleError;
use crate::limits::local_files::LocalPathError;
use crate::limits::response_cap::TooLarge;

#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    /// The arguments did not fit the tool's schema.
    #[error("Invalid arguments for {tool}: {detail}. Check the tool's input schema and call it again.")]
    Arguments { tool: &'static str, detail: String },
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
}

impl ToolError {
    /// Names the argument at fault (`count: invalid type …`) where serde knows which one it was.
    pub(crate) fn arguments(tool: &'static str, error: serde_path_to_error::Error<serde_json::Error>) -> Self {
        let path = error.path().to_string();
        let detail = if path.is_empty() || path == "." {
            error.inner().to_string()
        } else {
            format!("`{path}`: {}", error.inner())
        };
        Self::Arguments { tool, detail }
    }

    pub fn invalid(message: impl Into<String>) -> Self {
        Self::Invalid(message.into())
    }
}
