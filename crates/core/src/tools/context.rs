//! What a tool handler gets to do its work.

use std::sync::Arc;

use crate::cache::ResponseCache;
use crate::config::Config;
use crate::google::GoogleClient;
use crate::google::mcp::McpClient;
use crate::limits::local_files::LocalFiles;

use super::progress::Progress;

/// Shared by every call; cheap to clone.
#[derive(Clone)]
pub struct ToolContext {
    pub google: GoogleClient,
    /// Google's Workspace MCP servers, signed with the same tokens as `google` ([`super::google_mcp`]).
    pub mcp: McpClient,
    pub config: Arc<Config>,
    pub local: LocalFiles,
    /// The response cache: the engine serves cached reads from it; the cache tools manage it.
    pub cache: ResponseCache,
    /// Where the call reports how far it has come ([`Progress::none`] unless the client asked).
    pub progress: Progress,
}

impl ToolContext {
    /// The same context for one call whose progress goes to `progress`.
    pub fn reporting(&self, progress: Progress) -> Self {
        Self { progress, ..self.clone() }
    }

    /// The response-size cap in characters.
    pub fn max_chars(&self) -> usize {
        self.config.max_response_chars
    }
}
