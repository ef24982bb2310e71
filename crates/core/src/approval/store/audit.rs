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
use super::seal::{RowKey, Seal};
use super::{Store, StoreError, audit_batch};
use crate::approval::model::{AnswerChannel, AuditEntry, CallOutcome, DecisionSource, Verdict};

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
    AgentName,
    GoogleForm,
}

impl SourceKind {
    pub const ALL: [SourceKind; 13] = [
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
        SourceKind::AgentName,
        SourceKind::GoogleForm,
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
            SourceKind::AgentName => "agent-name",
            SourceKind::GoogleForm => "google-form",
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
            DecisionSource::AgentName => SourceKind::AgentName,
            DecisionSource::GoogleForm => SourceKind::GoogleForm,
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
         prev_hash, hash, agent_self_reported, answered_via"
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
    /// 1: `agent` is only the name the client gave of itself (see [`crate::approval::model::Agent`]).
    agent_self_reported: i64,
    /// Where the card was answered (`AnswerChannel::to_column`), when one was.
    answered_via: Option<String>,
}

impl AuditRow {
    /// The entry the row holds, or which column can't be read.
    pub fn entry(&self) -> Result<AuditEntry, String> {
        Ok(AuditEntry {
            time: parse_time(&self.time).map_err(|e| format!("its time {:?}: {e}", self.time))?,
            agent: stored_agent(&self.agent, self.agent_self_reported),
            tool: self.tool.clone(),
            arguments: serde_json::from_str(&self.arguments).map_err(|e| format!("its arguments: {e}"))?,
            target: self.target.clone(),
            verdict: parse_verdict(&self.verdict).ok_or_else(|| format!("its verdict {:?}", self.verdict))?,
            source: DecisionSource::try_from(self.source.clone()).map_err(|e| format!("its source: {e}"))?,
            outcome: parse_outcome(&self.outcome, self.outcome_detail.clone())
                .ok_or_else(|| format!("its outcome {:?}", self.outcome))?,
            duration_ms: u64::try_from(self.duration_ms).map_err(|e| format!("its duration: {e}"))?,
            answered_via: parse_channel(self.answered_via.as_deref())?,
        })
    }

    fn into_record(self, path: &Path) -> Result<AuditRecord, StoreError> {
        let entry = self
            .entry()
            .map_err(|detail| StoreError::unreadable(path, format!("audit record {}", self.seq), detail))?;
        Ok(AuditRecord { seq: self.seq, entry, prev_hash: self.prev_hash, hash: self.hash })
    }
}

/// A call recorded before it ran (see [`Store::begin_audit`]), to be completed with [`Store::complete_audit`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PendingAudit(pub i64);

/// A pending row as stored.
#[derive(sqlx::FromRow)]
struct PendingRow {
    id: i64,
    pid: i64,
    time: String,
    agent: Option<String>,
    tool: String,
    arguments: String,
    target: Option<String>,
    verdict: String,
    source: String,
    /// 1: `agent` is only the name the client gave of itself (see [`crate::approval::model::Agent`]).
    agent_self_reported: i64,
    /// Where the card was answered, when one was: an interrupted call's record still says so.
    answered_via: Option<String>,
}

impl PendingRow {
    /// The entry as a crash left it: interrupted.
    fn interrupted(&self) -> Result<AuditEntry, String> {
        Ok(AuditEntry {
            time: parse_time(&self.time).map_err(|e| format!("its time {:?}: {e}", self.time))?,
            agent: stored_agent(&self.agent, self.agent_self_reported),
            tool: self.tool.clone(),
            arguments: serde_json::from_str(&self.arguments).map_err(|e| format!("its arguments: {e}"))?,
            target: self.target.clone(),
            verdict: parse_verdict(&self.verdict).ok_or_else(|| format!("its verdict {:?}", self.verdict))?,
            source: DecisionSource::try_from(self.source.clone()).map_err(|e| format!("its source: {e}"))?,
            outcome: CallOutcome::Interrupted,
            duration_ms: 0,
            answered_via: parse_channel(self.answered_via.as_deref())?,
        })
    }
}

/// The `answered_via` column (in `audit` and `audit_pending` alike).
fn parse_channel(column: Option<&str>) -> Result<Option<AnswerChannel>, String> {
    column.map(AnswerChannel::from_column).transpose().map_err(|e| format!("its answer channel: {e}"))
}

/// The caller as its `agent` and `agent_self_reported` columns keep it (in `audit` and `audit_pending` alike).
fn stored_agent(name: &Option<String>, self_reported: i64) -> Option<crate::approval::model::Agent> {
    name.clone().map(|name| crate::approval::model::Agent { name, self_reported: self_reported != 0 })
}

/// What is stored and hashed of an entry: its duration within SQLite's signed integer (no call lasts 292
/// million years, but the hash must cover what is stored, so clamp before hashing), its arguments canonical.
pub(super) fn stored_form(mut entry: AuditEntry) -> AuditEntry {
    entry.duration_ms = entry.duration_ms.min(i64::MAX as u64);
    entry.arguments = canonical_value(&entry.arguments);
    entry
}

/// The seal of the audit head at (`seq`, `hash`) (see `seal`): it authenticates the chain's end, and so,
/// through the hashes, every record before it.
pub(super) fn head_tag(key: &RowKey, seq: i64, hash: &str) -> Option<String> {
    key.tag("audit_head", &[Some(&seq.to_string()), Some(hash)])
}

/// What the head's seal says.
pub(super) fn head_seal(key: &RowKey, seq: i64, hash: &str, mac: Option<&str>) -> Seal {
    key.check("audit_head", &[Some(&seq.to_string()), Some(hash)], mac)
}

/// Seals the head if it has no seal yet (a log from before seals, see `seal`).
pub(super) async fn seal_unsealed(
    tx: &mut sqlx::Transaction<'_, sqlx::Sqlite>,
    path: &Path,
    key: &RowKey,
) -> Result<usize, StoreError> {
    let head: Option<(i64, String)> = sqlx::query_as("SELECT seq, hash FROM audit_head WHERE id = 1 AND mac IS NULL")
        .fetch_optional(&mut **tx)
        .await
        .map_err(StoreError::query(path, "read the end of the audit log"))?;
    let Some((seq, hash)) = head else { return Ok(0) };
    sqlx::query("UPDATE audit_head SET mac = ?1 WHERE id = 1")
        .bind(head_tag(key, seq, &hash))
        .execute(&mut **tx)
        .await
        .map_err(StoreError::query(path, "seal the end of the audit log"))?;
    Ok(1)
}

/// Appends `entry` to the end of the chain within `tx`.
pub(super) async fn append_in(
    tx: &mut sqlx::Transaction<'_, sqlx::Sqlite>,
    path: &Path,
    key: &RowKey,
    entry: AuditEntry,
) -> Result<AuditRecord, StoreError> {
    // The head is where the chain ends; a log whose tail was cut still continues from there, so the gap
    // stays visible to `verify_audit`.
    let sealed_head: Option<(i64, String, Option<String>)> =
        sqlx::query_as("SELECT seq, hash, mac FROM audit_head WHERE id = 1")
            .fetch_optional(&mut **tx)
            .await
            .map_err(StoreError::query(path, "read the end of the audit log"))?;
    // The new head is sealed only when the old one was (or there was none): a head whose seal is wrong (the
    // chain rewritten to match it) is never sealed over, so `audit verify` keeps saying so.
    let keep_sealing =
        sealed_head.as_ref().is_none_or(|(seq, hash, mac)| head_seal(key, *seq, hash, mac.as_deref()).verified());
    let head = match sealed_head {
        Some((seq, hash, _)) => Some((seq, hash)),
        None => sqlx::query_as("SELECT seq, hash FROM audit ORDER BY seq DESC LIMIT 1")
            .fetch_optional(&mut **tx)
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
        ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)"
    ))
    .bind(seq)
    .bind(time_text(&entry.time))
    .bind(entry.agent.as_ref().map(|agent| &agent.name))
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
    .bind(i64::from(entry.agent.as_ref().is_some_and(|agent| agent.self_reported)))
    .bind(entry.answered_via.as_ref().map(AnswerChannel::to_column))
    .execute(&mut **tx)
    .await
    .map_err(StoreError::query(path, "append to the audit log"))?;
    let tag = if keep_sealing { head_tag(key, seq, &hash) } else { None };
    sqlx::query(
        "INSERT INTO audit_head (id, seq, hash, mac) VALUES (1, ?1, ?2, ?3) \
         ON CONFLICT (id) DO UPDATE SET seq = excluded.seq, hash = excluded.hash, mac = excluded.mac",
    )
    .bind(seq)
    .bind(&hash)
    .bind(tag)
    .execute(&mut **tx)
    .await
    .map_err(StoreError::query(path, "move the end of the audit log"))?;
    Ok(AuditRecord { seq, entry, prev_hash, hash })
}

impl Store {
    /// Appends one record to the end of the chain and returns it as stored. Once this returns, the record
    /// is on disk.
    pub async fn append_audit(&self, entry: AuditEntry) -> Result<AuditRecord, StoreError> {
        self.complete(None, stored_form(entry)).await
    }

    /// Records a call that is about to change something, before it is sent: once this returns, the record is
    /// on disk, outside the chain, as pending. [`Store::complete_audit`] turns it into the call's record in
    /// the chain; if this process dies first, the next store opened over the file appends it to the chain as
    /// [`CallOutcome::Interrupted`] ([`Store::recover_interrupted`]). The chain itself stays append-only and
    /// holds final records only, so `audit verify` checks it as before.
    pub async fn begin_audit(&self, entry: &AuditEntry) -> Result<PendingAudit, StoreError> {
        let entry = stored_form(entry.clone());
        self.write(move |inner| async move {
            let path = &inner.path;
            let arguments = serde_json::to_string(&entry.arguments)
                .map_err(|e| StoreError::Interrupted { path: path.display().to_string(), detail: e.to_string() })?;
            let id: i64 = sqlx::query_scalar(
                "INSERT INTO audit_pending (pid, time, agent, tool, arguments, target, verdict, source, agent_self_reported, answered_via) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10) RETURNING id",
            )
            .bind(i64::from(std::process::id()))
            .bind(time_text(&entry.time))
            .bind(entry.agent.as_ref().map(|agent| &agent.name))
            .bind(&entry.tool)
            .bind(arguments)
            .bind(&entry.target)
            .bind(verdict_text(entry.verdict))
            .bind(entry.source.to_string())
            .bind(i64::from(entry.agent.as_ref().is_some_and(|agent| agent.self_reported)))
            .bind(entry.answered_via.as_ref().map(AnswerChannel::to_column))
            .fetch_one(&inner.pool)
            .await
            .map_err(StoreError::query(path, "record a call before it runs"))?;
            Ok(PendingAudit(id))
        })
        .await
    }

    /// Appends the record of the call [`Store::begin_audit`] recorded as pending, and removes its pending row,
    /// in one transaction: the call is in the log exactly once, pending or final.
    pub async fn complete_audit(&self, pending: PendingAudit, entry: AuditEntry) -> Result<AuditRecord, StoreError> {
        self.complete(Some(pending), stored_form(entry)).await
    }

    async fn complete(&self, pending: Option<PendingAudit>, entry: AuditEntry) -> Result<AuditRecord, StoreError> {
        self.write(move |inner| async move {
            let path = &inner.path;
            let mut tx = inner
                .pool
                .begin_with("BEGIN IMMEDIATE")
                .await
                .map_err(StoreError::query(path, "start an audit write"))?;
            // Reads' records waiting for a group commit go first, in this commit (see `audit_batch`).
            let queued = audit_batch::append_queued_in(&mut tx, &inner).await?;
            let appended = async {
                let record = append_in(&mut tx, path, &inner.key, entry).await?;
                if let Some(PendingAudit(id)) = pending {
                    sqlx::query("DELETE FROM audit_pending WHERE id = ?1")
                        .bind(id)
                        .execute(&mut *tx)
                        .await
                        .map_err(StoreError::query(path, "complete a pending audit record"))?;
                }
                Ok(record)
            }
            .await;
            match appended {
                Ok(record) => audit_batch::commit_or_restore(tx, &inner, queued).await.map(|()| record),
                Err(error) => {
                    inner.audit_queue.restore(queued);
                    Err(error)
                }
            }
        })
        .await
    }

    /// Appends to the chain, as [`CallOutcome::Interrupted`], every pending record whose process no longer
    /// runs (it was killed or crashed while the call ran: the change may have reached Google, in part or
    /// whole), and returns how many. Records of a process still running (this one included) are left alone.
    /// Called whenever a store is opened.
    pub async fn recover_interrupted(&self) -> Result<usize, StoreError> {
        self.write(move |inner| async move {
            let path = &inner.path;
            let mut tx = inner
                .pool
                .begin_with("BEGIN IMMEDIATE")
                .await
                .map_err(StoreError::query(path, "start an audit write"))?;
            let rows: Vec<PendingRow> = sqlx::query_as(
                "SELECT id, pid, time, agent, tool, arguments, target, verdict, source, agent_self_reported, answered_via FROM audit_pending ORDER BY id",
            )
            .fetch_all(&mut *tx)
            .await
            .map_err(StoreError::query(path, "read the calls left pending"))?;
            let own = i64::from(std::process::id());
            let mut recovered = 0;
            for row in rows {
                let gone = row.pid != own && u32::try_from(row.pid).is_ok_and(|pid| !crate::process::runs(pid));
                if !gone {
                    continue;
                }
                let entry = row.interrupted().map_err(|detail| {
                    StoreError::unreadable(path, format!("pending audit record {}", row.id), detail)
                })?;
                append_in(&mut tx, path, &inner.key, stored_form(entry)).await?;
                sqlx::query("DELETE FROM audit_pending WHERE id = ?1")
                    .bind(row.id)
                    .execute(&mut *tx)
                    .await
                    .map_err(StoreError::query(path, "complete a pending audit record"))?;
                recovered += 1;
            }
            tx.commit().await.map_err(StoreError::query(path, "save the interrupted calls' records"))?;
            if recovered > 0 {
                tracing::warn!(recovered, "calls interrupted by a crash were recorded as interrupted in the audit log");
            }
            Ok(recovered)
        })
        .await
    }

    /// The calls recorded as pending (under way, or left by a process that is still running), oldest first.
    pub async fn pending_audit(&self) -> Result<Vec<AuditEntry>, StoreError> {
        let inner = &self.inner;
        let rows: Vec<PendingRow> = sqlx::query_as(
            "SELECT id, pid, time, agent, tool, arguments, target, verdict, source, agent_self_reported, answered_via FROM audit_pending ORDER BY id",
        )
        .fetch_all(&inner.pool)
        .await
        .map_err(StoreError::query(&inner.path, "read the calls under way"))?;
        rows.iter()
            .map(|row| {
                let mut entry = row.interrupted().map_err(|detail| {
                    StoreError::unreadable(&inner.path, format!("pending audit record {}", row.id), detail)
                })?;
                entry.outcome = CallOutcome::Pending;
                Ok(entry)
            })
            .collect()
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
        // This process's reads waiting for their group commit are part of the log it shows.
        self.flush_audit().await?;
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
        self.flush_audit().await?;
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
