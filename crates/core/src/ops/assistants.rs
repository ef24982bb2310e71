//! The assistants registered for MCP over HTTP, each with a token of its own: listing them, registering one,
//! revoking its token, and choosing the tools it is offered.

use serde::{Deserialize, Serialize};

use super::Ops;
use crate::approval::store::{Assistant, NewAssistant, StoreError};
use crate::tools::sets::ToolSelection;

/// The assistant revoke's result: whether this request revoked it (`false`: no such assistant, or revoked
/// before), and the assistant as it now stands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AssistantRevoked {
    pub changed: bool,
    pub assistant: Option<Assistant>,
}

/// What choosing an assistant's tools did: whether it changed (`false`: revoked, or no such assistant), and
/// the assistant as it now stands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AssistantTools {
    pub changed: bool,
    pub assistant: Option<Assistant>,
}

impl Ops {
    /// Every assistant registered for HTTP, revoked ones too, newest first.
    pub async fn assistants(&self) -> Result<Vec<Assistant>, StoreError> {
        self.store.list_assistants().await
    }

    /// Registers an assistant for HTTP: its calls are attributed to `name` and are unattended (never asked
    /// about) unless `interactive`. Returns it with its token, the only time the token is told; every server
    /// using the database knows the token once this returns.
    pub async fn add_assistant(&self, name: &str, interactive: bool) -> Result<NewAssistant, StoreError> {
        let added = self.store.add_assistant(name, interactive, chrono::Utc::now()).await?;
        let kind = if interactive { "interactive" } else { "automation" };
        tracing::info!(assistant = %added.assistant.name, kind, "assistant registered");
        self.changed().await;
        Ok(added)
    }

    /// Revokes assistant `id`'s token: every server using the database refuses it from the next request on.
    pub async fn revoke_assistant(&self, id: &str) -> Result<AssistantRevoked, StoreError> {
        let changed = self.store.revoke_assistant(id, chrono::Utc::now()).await?;
        let assistant = self.store.get_assistant(id).await?;
        if changed {
            let name = assistant.as_ref().map(|a| a.name.as_str()).unwrap_or_default();
            tracing::info!(assistant = name, "assistant's token revoked");
        }
        self.changed().await;
        Ok(AssistantRevoked { changed, assistant })
    }

    /// Offers assistant `id` only the tools of `tools` (`None`: every enabled tool), from its next request on.
    pub async fn set_assistant_tools(
        &self,
        id: &str,
        tools: Option<&ToolSelection>,
    ) -> Result<AssistantTools, StoreError> {
        let changed = self.store.set_assistant_tools(id, tools.map(ToolSelection::spec)).await?;
        let assistant = self.store.get_assistant(id).await?;
        self.changed().await;
        Ok(AssistantTools { changed, assistant })
    }
}
