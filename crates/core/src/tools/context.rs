//! What a tool handler gets to do its work.

use std::sync::Arc;

use crate::cache::ResponseCache;
use crate::config::Config;
use crate::google::GoogleClient;
use crate::limits::local_files::LocalFiles;

/// Shared by every call; cheap to clone.
#[derive(Clone)]
pub struct ToolContext {
    pub google: GoogleClient,
    pub config: Arc<Config>,
    pub local: LocalFiles,
    /// The response cache: the engine serves cached reads from it; the cache tools manage it.
    pub cache: ResponseCache,
}

impl ToolContext {
    /// The response-size cap in characters.
    pub fn max_chars(&self) -> usize {
        self.config.max_response_chars
    }
}
