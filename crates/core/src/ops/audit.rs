//! The audit log: a page of it, a search, checking its chain, and writing it out whole.

use serde::{Deserialize, Serialize};
use tokio::io::AsyncWrite;

use super::Ops;
use crate::approval::store::{AuditMatch, AuditQuery, AuditRecord, AuditVerification, StoreError};

/// The most audit records one page holds; a reader pages on with `before_seq`.
pub const MAX_AUDIT_PAGE: u32 = 500;

/// The result of checking the audit chain, as it travels and as every shell shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Verification {
    pub intact: bool,
    /// How many records were checked, when intact.
    pub records: Option<u64>,
    /// The first record the break concerns, when broken.
    pub broken_at: Option<i64>,
    /// In words: "The audit log is intact: 3 records." or what broke where.
    pub message: String,
    /// Each row of the store that is not honoured because something other than Gatehouse wrote it, or that
    /// can't be checked (no keychain), in words: the database was tampered with even when the log is intact.
    #[serde(default)]
    pub ignored: Vec<String>,
}

impl From<&AuditVerification> for Verification {
    fn from(verification: &AuditVerification) -> Self {
        let message = verification.to_string();
        match verification {
            AuditVerification::Ok { records } => {
                Verification { intact: true, records: Some(*records), broken_at: None, message, ignored: Vec::new() }
            }
            AuditVerification::Broken(problem) => Verification {
                intact: false,
                records: None,
                broken_at: Some(problem.seq()),
                message,
                ignored: Vec::new(),
            },
        }
    }
}

impl Ops {
    /// One page of the log, newest first: at most [`MAX_AUDIT_PAGE`] records, whatever `query` asks.
    pub async fn audit(&self, query: &AuditQuery) -> Result<Vec<AuditRecord>, StoreError> {
        let query = AuditQuery { limit: query.limit.min(MAX_AUDIT_PAGE), ..query.clone() };
        self.store.list_audit(&query).await
    }

    /// The records of `query` that also match `matching` (a decision, how it was decided, any text), newest
    /// first.
    pub async fn search_audit(
        &self,
        query: &AuditQuery,
        matching: &AuditMatch,
    ) -> Result<Vec<AuditRecord>, StoreError> {
        self.store.search_audit(query, matching).await
    }

    /// Checks the whole chain, and lists what the database holds but does not honour.
    pub async fn verify(&self) -> Result<Verification, StoreError> {
        let mut verification = Verification::from(&self.store.verify_audit().await?);
        verification.ignored = self.store.seal_report().await?;
        Ok(verification)
    }

    /// Everything the database holds but does not honour or can't check, in words.
    pub async fn seal_report(&self) -> Result<Vec<String>, StoreError> {
        self.store.seal_report().await
    }

    /// Writes the whole log to `out` as JSON Lines, oldest first; returns how many records.
    pub async fn export<W: AsyncWrite + Unpin>(&self, out: &mut W) -> Result<u64, StoreError> {
        self.store.export_audit(out).await
    }
}
