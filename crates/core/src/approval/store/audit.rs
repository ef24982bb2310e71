//! The audit log: one record per tool call, appended and chained, never changed. Appends go through the
//! store's single writer and read the chain's end in the same transaction that extends it, so two appends
//! can never claim the same place.

use std::path::Path;

use futures::TryStreamExt;
use serde::{Deserialize, Serialize};
use tokio::io::{AsyncWrite, AsyncWriteExt};

use super::chain::{
    GENESIS, canonical_value, outcome_columns, parse_outcome, parse_time, parse_verdict, record_hash, time_text,
    verdict_text,
};
use super::{Store, StoreError};
use crate::approval::model::{AnswerChannel, AuditEntry, DecisionSource, Verdict};

/// An entry as it sits in the chain.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuditRecord {
    /// Its place in the log: 1, 2, 3… with no gaps.
    pub seq: i64,
    pub entry: AuditEntry,
    /// The hash of record `seq - 1` (`GENESIS` for record 1).
    pub prev_hash: String,
    /// SHA-256 of the canonical form of (`seq`, `prev_hash`, `entry`), 64 lowercase hex digits.
    pub hash: String,
}

/// Which records `list_audit` returns: the newest `limit` records older than `before_seq`, optionally only
/// one tool's or one agent's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditQuery {
    pub limit: u32,
    /// Only records with a smaller `seq`: pass the last `seq` of one page to get the next.
    pub before_seq: Option<i64>,
    pub tool: Option<String>,
    pub agent: Option<String>,
}

impl Default for AuditQuery {
    fn default() -> Self {
        AuditQuery { limit: 100, before_seq: None, tool: None, agent: None }
    }
}

/// What else a record must match to be listed by [`Store::search_audit`]: the settings window's filters.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AuditMatch {
    pub verdict: Option<Verdict>,
    /// Only records decided this way.
    pub source: Option<SourceKind>,
    /// Only records whose agent, tool, target, arguments, source or error message contain this text
    /// (ignoring case in ASCII letters).
    pub text: Option<String>,
}

/// A kind of [`DecisionSource`], without the grant's or rule's id: what a filter picks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SourceKind {
    Person,
    Grant,
    Policy,
    Deny,
    Timeout,
    NotGated,
    Unattended,
    Paused,
    InvalidArguments,
    Withdrawn,
    Shutdown,
}

impl SourceKind {
    pub const ALL: [SourceKind; 11] = [
        SourceKind::Person,
        SourceKind::Grant,
        SourceKind::Policy,
        SourceKind::Deny,
        SourceKind::Timeout,
        SourceKind::NotGated,
        SourceKind::Unattended,
        SourceKind::Paused,
        SourceKind::InvalidArguments,
        SourceKind::Withdrawn,
        SourceKind::Shutdown,
    ];

    /// The source's text in the log (`grant` for `grant:<id>`).
    pub fn as_str(self) -> &'static str {
        match self {
            SourceKind::Person => "person",
            SourceKind::Grant => "grant",
            SourceKind::Policy => "policy",
            SourceKind::Deny => "deny",
            SourceKind::Timeout => "timeout",
            SourceKind::NotGated => "not-gated",
            SourceKind::Unattended => "unattended",
            SourceKind::Paused => "paused",
            SourceKind::InvalidArguments => "invalid-arguments",
            SourceKind::Withdrawn => "withdrawn",
            SourceKind::Shutdown => "shutdown",
        }
    }

    pub fn of(source: &DecisionSource) -> SourceKind {
        match source {
            DecisionSource::Person => SourceKind::Person,
            DecisionSource::Grant(_) => SourceKind::Grant,
            DecisionSource::Policy(_) => SourceKind::Policy,
            DecisionSource::Deny(_) => SourceKind::Deny,
            DecisionSource::Timeout => SourceKind::Timeout,
            DecisionSource::NotGated => SourceKind::NotGated,
            DecisionSource::Unattended => SourceKind::Unattended,
            DecisionSource::Paused => SourceKind::Paused,
            DecisionSource::InvalidArguments => SourceKind::InvalidArguments,
            DecisionSource::Withdrawn => SourceKind::Withdrawn,
            DecisionSource::Shutdown => SourceKind::Shutdown,
        }
    }
}

impl std::str::FromStr for SourceKind {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        SourceKind::ALL.into_iter().find(|kind| kind.as_str() == text).ok_or_else(|| {
            let known: Vec<&str> = SourceKind::ALL.iter().map(|kind| kind.as_str()).collect();
            format!("“{text}” is not a kind of decision: choose one of {}", known.join(", "))
        })
    }
}

/// The columns of `audit` in `AuditRow` order.
macro_rules! audit_columns {
    () => {
        "seq, time, agent, tool, arguments, target, verdict, source, outcome, outcome_detail, duration_ms, \
         prev_hash, hash, answered_via"
    };
}
pub(super) use audit_columns;

/// A row of `audit` as stored.
#[derive(sqlx::FromRow)]
pub(super) struct AuditRow {
    pub seq: i64,
    time: String,
    agent: Option<String>,
    tool: String,
    arguments: String,
    target: Option<String>,
    verdict: String,
    source: String,
    outcome: String,
    outcome_detail: Option<String>,
    duration_ms: i64,
    pub prev_hash: String,
    pub hash: String,
    answered_via: Option<String>,
}

impl AuditRow {
    /// The entry the row holds, or which column can't be read.
    pub fn entry(&self) -> Result<AuditEntry, String> {
        Ok(AuditEntry {
            time: parse_time(&self.time).map_err(|e| format!("its time {:?}: {e}", self.time))?,
            agent: self.agent.clone(),
            tool: self.tool.clone(),
            arguments: serde_json::from_str(&self.arguments).map_err(|e| format!("its arguments: {e}"))?,
            target: self.target.clone(),
            verdict: parse_verdict(&self.verdict).ok_or_else(|| format!("its verdict {:?}", self.verdict))?,
            source: DecisionSource::try_from(self.source.clone()).map_err(|e| format!("its source: {e}"))?,
            outcome: parse_outcome(&self.outcome, self.outcome_detail.clone())
                .ok_or_else(|| format!("its outcome {:?}", self.outcome))?,
            duration_ms: u64::try_from(self.duration_ms).map_err(|e| format!("its duration: {e}"))?,
            answered_via: self
                .answered_via
                .as_deref()
                .map(AnswerChannel::from_column)
                .transpose()
                .map_err(|e| format!("its answer channel: {e}"))?,
        })
    }

    fn into_record(self, path: &Path) -> Result<AuditRecord, StoreError> {
        let entry = self
            .entry()
            .map_err(|detail| StoreError::unreadable(path, format!("audit record {}", self.seq), detail))?;
        Ok(AuditRecord { seq: self.seq, entry, prev_hash: self.prev_hash, hash: self.hash })
    }
}

impl Store {
    /// Appends one record to the end of the chain and returns it as stored. Once this returns, the record
    /// is on disk.
    pub async fn append_audit(&self, entry: AuditEntry) -> Result<AuditRecord, StoreError> {
        let mut entry = entry;
        // Stored as SQLite's signed integer; no call lasts 292 million years, but the hash must cover what is
        // stored, so clamp before hashing rather than after.
        entry.duration_ms = entry.duration_ms.min(i64::MAX as u64);
        entry.arguments = canonical_value(&entry.arguments);
        self.write(move |inner| async move {
            let path = &inner.path;
            let mut tx = inner
                .pool
                .begin_with("BEGIN IMMEDIATE")
                .await
                .map_err(StoreError::query(path, "start an audit write"))?;
            // The head is where the chain ends; a log whose tail was cut still continues from there, so the
            // gap stays visible to `verify_audit`.
            let head: Option<(i64, String)> = sqlx::query_as("SELECT seq, hash FROM audit_head WHERE id = 1")
                .fetch_optional(&mut *tx)
                .await
                .map_err(StoreError::query(path, "read the end of the audit log"))?;
            let head = match head {
                Some(head) => Some(head),
                None => sqlx::query_as("SELECT seq, hash FROM audit ORDER BY seq DESC LIMIT 1")
                    .fetch_optional(&mut *tx)
                    .await
                    .map_err(StoreError::query(path, "read the end of the audit log"))?,
            };
            let (seq, prev_hash) = match head {
                Some((seq, hash)) => (seq + 1, hash),
                None => (1, GENESIS.to_owned()),
            };
            let hash = record_hash(seq, &prev_hash, &entry)
                .map_err(|e| StoreError::Interrupted { path: path.display().to_string(), detail: e.to_string() })?;
            let arguments = serde_json::to_string(&entry.arguments)
                .map_err(|e| StoreError::Interrupted { path: path.display().to_string(), detail: e.to_string() })?;
            let (outcome, outcome_detail) = outcome_columns(&entry.outcome);
            sqlx::query(concat!(
                "INSERT INTO audit (",
                audit_columns!(),
                ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)"
            ))
            .bind(seq)
            .bind(time_text(&entry.time))
            .bind(&entry.agent)
            .bind(&entry.tool)
            .bind(arguments)
            .bind(&entry.target)
            .bind(verdict_text(entry.verdict))
            .bind(entry.source.to_string())
            .bind(outcome)
            .bind(outcome_detail)
            .bind(entry.duration_ms as i64)
            .bind(&prev_hash)
            .bind(&hash)
            .bind(entry.answered_via.as_ref().map(AnswerChannel::to_column))
            .execute(&mut *tx)
            .await
            .map_err(StoreError::query(path, "append to the audit log"))?;
            sqlx::query(
                "INSERT INTO audit_head (id, seq, hash) VALUES (1, ?1, ?2) \
                 ON CONFLICT (id) DO UPDATE SET seq = excluded.seq, hash = excluded.hash",
            )
            .bind(seq)
            .bind(&hash)
            .execute(&mut *tx)
            .await
            .map_err(StoreError::query(path, "move the end of the audit log"))?;
            tx.commit().await.map_err(StoreError::query(path, "save an audit record"))?;
            Ok(AuditRecord { seq, entry, prev_hash, hash })
        })
        .await
    }

    /// Records matching `query`, newest first.
    pub async fn list_audit(&self, query: &AuditQuery) -> Result<Vec<AuditRecord>, StoreError> {
        self.search_audit(query, &AuditMatch::default()).await
    }

    /// Records matching `query` and `matching`, newest first.
    pub async fn search_audit(
        &self,
        query: &AuditQuery,
        matching: &AuditMatch,
    ) -> Result<Vec<AuditRecord>, StoreError> {
        let inner = &self.inner;
        let text = matching.text.as_deref().map(str::trim).filter(|text| !text.is_empty());
        let rows: Vec<AuditRow> = sqlx::query_as(concat!(
            "SELECT ",
            audit_columns!(),
            " FROM audit WHERE (?1 IS NULL OR seq < ?1) AND (?2 IS NULL OR tool = ?2) AND (?3 IS NULL OR agent = ?3) \
             AND (?5 IS NULL OR verdict = ?5) AND (?6 IS NULL OR source = ?6 OR substr(source, 1, length(?6) + 1) = ?6 || ':') \
             AND (?7 IS NULL OR instr(lower(coalesce(agent, '') || ' ' || tool || ' ' || coalesce(target, '') || ' ' || \
             arguments || ' ' || source || ' ' || coalesce(outcome_detail, '')), lower(?7)) > 0) \
             ORDER BY seq DESC LIMIT ?4"
        ))
        .bind(query.before_seq)
        .bind(&query.tool)
        .bind(&query.agent)
        .bind(i64::from(query.limit))
        .bind(matching.verdict.map(verdict_text))
        .bind(matching.source.map(SourceKind::as_str))
        .bind(text)
        .fetch_all(&inner.pool)
        .await
        .map_err(StoreError::query(&inner.path, "read the audit log"))?;
        rows.into_iter().map(|row| row.into_record(&inner.path)).collect()
    }

    /// Writes the whole log to `writer` as JSON Lines, oldest first, one `AuditRecord` per line, and returns
    /// how many records were written. Reads one consistent snapshot, so appends meanwhile are not included.
    pub async fn export_audit<W: AsyncWrite + Unpin>(&self, writer: &mut W) -> Result<u64, StoreError> {
        let inner = &self.inner;
        let path = &inner.path;
        let mut tx = inner.pool.begin().await.map_err(StoreError::query(path, "read the audit log"))?;
        let mut rows = sqlx::query_as::<_, AuditRow>(concat!("SELECT ", audit_columns!(), " FROM audit ORDER BY seq"))
            .fetch(&mut *tx);
        let mut written = 0;
        while let Some(row) = rows.try_next().await.map_err(StoreError::query(path, "read the audit log"))? {
            let record = row.into_record(path)?;
            let mut line = serde_json::to_vec(&record).map_err(|e| StoreError::Export { detail: e.to_string() })?;
            line.push(b'\n');
            writer.write_all(&line).await.map_err(|e| StoreError::Export { detail: e.to_string() })?;
            written += 1;
        }
        writer.flush().await.map_err(|e| StoreError::Export { detail: e.to_string() })?;
        Ok(written)
    }
}
