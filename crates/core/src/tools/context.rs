//! What a tool handler gets to do its work.

use std::sync::Arc;

use crate::approval::Approvals;
use crate::approval::model::Caller;
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

/// The person's side of one call, for Google's approval forms ([`super::google_mcp::run`]): the approvals
/// that put them on cards, and the assistant the call came from.
#[derive(Clone)]
pub struct Forms {
    pub approvals: Arc<Approvals>,
    pub caller: Caller,
    /// Gatehouse's own rules decided the call (a card, a grant, a policy, not gated). `false` when Gatehouse
    /// left it to Google's form, which Google was to ask at every call of this tool
    /// ([`super::google_mcp::google_asks_first`]): then it must be Google's form that asks.
    pub decided_by_gatehouse: bool,
}
