//! Standing approvals (grants): listing them, and revoking one so its calls are asked about again.

use serde::{Deserialize, Serialize};

use super::Ops;
use crate::approval::model::Grant;
use crate::approval::store::{IgnoredGrant, StoreError};

/// The revoke's result: whether this request revoked it (`false`: no such grant, or revoked before), and the
/// grant as it now stands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Revoked {
    pub changed: bool,
    pub grant: Option<Grant>,
}

impl Ops {
    /// Every grant, revoked ones too, newest first.
    pub async fn grants(&self) -> Result<Vec<Grant>, StoreError> {
        self.store.list_grants().await
    }

    /// The grant rows the database holds but does not honour (written by something other than Gatehouse),
    /// and why.
    pub async fn ignored_grants(&self) -> Result<Vec<IgnoredGrant>, StoreError> {
        self.store.ignored_grants().await
    }

    /// Revokes grant `id` (its full id). From the moment this returns, no running server using the database
    /// covers a call by it: this process's index drops it with the revoke, and the others are told.
    pub async fn revoke_grant(&self, id: &str) -> Result<Revoked, StoreError> {
        let changed = self.store.revoke_grant(id, chrono::Utc::now()).await?;
        if changed {
            tracing::info!(grant = %id, "grant revoked");
        }
        let grant = self.store.get_grant(id).await?;
        // Told even when it was revoked before: a server that started meanwhile may have loaded it.
        self.changed().await;
        Ok(Revoked { changed, grant })
    }
}
