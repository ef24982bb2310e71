//! `gatehouse audit verify`: walks the chain from record 1 to the head and names the first place it breaks.

use futures::TryStreamExt;

use super::audit::{AuditRow, audit_columns, head_seal};
use super::chain::{GENESIS, record_hash};
use super::seal::Seal;
use super::{Store, StoreError};

/// The result of checking the audit log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AuditVerification {
    /// Every record is as written, in order, none missing, and the log ends where its head says.
    Ok { records: u64 },
    /// The first place the chain breaks.
    Broken(ChainBreak),
}

impl AuditVerification {
    pub fn is_ok(&self) -> bool {
        matches!(self, AuditVerification::Ok { .. })
    }
}

impl std::fmt::Display for AuditVerification {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AuditVerification::Ok { records: 1 } => f.write_str("The audit log is intact: 1 record."),
            AuditVerification::Ok { records } => write!(f, "The audit log is intact: {records} records."),
            AuditVerification::Broken(problem) => write!(f, "The audit log was tampered with: {problem}."),
        }
    }
}

/// How the chain breaks, at its first broken place. `Display` says it in words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChainBreak {
    /// The record's contents no longer match its hash, or a later record no longer follows it.
    Changed { seq: i64 },
    /// Records `after + 1 ..= next - 1` are gone (`after` = 0: the log starts at `next`).
    Missing { after: i64, next: i64 },
    /// The record at `seq` is intact but was written at another place, `written_as`.
    OutOfOrder { seq: i64, written_as: i64 },
    /// The log ends at `last` (0: it is empty) but `head` records were written.
    TailRemoved { last: i64, head: i64 },
    /// There are records but nothing says where the log ends, so removed last records could go unseen.
    HeadMissing { last: i64 },
    /// The last record, `seq`, is not the one the head says ends the log: it, or the whole log, was rewritten.
    HeadMismatch { seq: i64 },
    /// Record `seq` lies beyond the head (record `head`): it was added without going through Gatehouse.
    BeyondHead { seq: i64, head: i64 },
    /// The head (at record `seq`) is not sealed with this person's key (see `seal`): the chain and its head
    /// may have been rewritten together, which the hashes alone can't show.
    HeadUnsealed { seq: i64 },
}

impl ChainBreak {
    /// The first record the break concerns.
    pub fn seq(&self) -> i64 {
        match *self {
            ChainBreak::Changed { seq }
            | ChainBreak::OutOfOrder { seq, .. }
            | ChainBreak::HeadMismatch { seq }
            | ChainBreak::HeadUnsealed { seq }
            | ChainBreak::BeyondHead { seq, .. } => seq,
            ChainBreak::Missing { after, .. } => after + 1,
            ChainBreak::TailRemoved { last, .. } => last + 1,
            ChainBreak::HeadMissing { last } => last,
        }
    }
}

impl std::fmt::Display for ChainBreak {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            ChainBreak::Changed { seq } => write!(f, "record {seq} was changed"),
            ChainBreak::Missing { after, next } => {
                let first = after + 1;
                let last = next - 1;
                match (first == last, after == 0) {
                    (true, true) => write!(f, "record {first} is missing (the log starts at record {next})"),
                    (true, false) => write!(f, "record {first} is missing (the chain jumps from {after} to {next})"),
                    (false, true) => {
                        write!(f, "records {first} to {last} are missing (the log starts at record {next})")
                    }
                    (false, false) => {
                        write!(f, "records {first} to {last} are missing (the chain jumps from {after} to {next})")
                    }
                }
            }
            ChainBreak::OutOfOrder { seq, written_as } => {
                write!(f, "records are out of order: the record in place {seq} was written as record {written_as}")
            }
            ChainBreak::TailRemoved { last: 0, head } => {
                write!(f, "all {head} records were removed (the head says {head} were written)")
            }
            ChainBreak::TailRemoved { last, head } if head - last == 1 => {
                write!(f, "the last record, {head}, was removed (the log ends at record {last})")
            }
            ChainBreak::TailRemoved { last, head } => write!(
                f,
                "the last {} records, {} to {head}, were removed (the log ends at record {last})",
                head - last,
                last + 1
            ),
            ChainBreak::HeadMissing { last } => write!(
                f,
                "the record of where the log ends was removed, so its last records may have been removed too (it now ends at record {last})"
            ),
            ChainBreak::HeadMismatch { seq } => write!(
                f,
                "record {seq}, the last, is not the record the log ended with: it was changed, or the log was rewritten"
            ),
            ChainBreak::BeyondHead { seq, head } => {
                write!(f, "record {seq} was added outside Gatehouse (the log ended at record {head})")
            }
            ChainBreak::HeadUnsealed { seq } => write!(
                f,
                "the record of where the log ends (record {seq}) is not sealed with Gatehouse's key, so the log may have been rewritten from the start to match; or records were written while the keychain was unavailable"
            ),
        }
    }
}

impl Store {
    /// Checks the whole audit log, in one consistent snapshot (appends may continue meanwhile).
    pub async fn verify_audit(&self) -> Result<AuditVerification, StoreError> {
        // Reads' records still waiting for their group commit are checked too.
        self.flush_audit().await?;
        let inner = &self.inner;
        let path = &inner.path;
        let read_error = || StoreError::query(path, "read the audit log");
        let mut tx = inner.pool.begin().await.map_err(read_error())?;
        let sealed_head: Option<(i64, String, Option<String>)> =
            sqlx::query_as("SELECT seq, hash, mac FROM audit_head WHERE id = 1")
                .fetch_optional(&mut *tx)
                .await
                .map_err(read_error())?;
        let head = sealed_head.as_ref().map(|(seq, hash, _)| (*seq, hash.clone()));
        let max_seq: Option<i64> =
            sqlx::query_scalar("SELECT MAX(seq) FROM audit").fetch_one(&mut *tx).await.map_err(read_error())?;
        // The highest place any record could have been written at: where a moved record is searched for.
        let highest = max_seq.unwrap_or(0).max(head.as_ref().map_or(0, |head| head.0));

        let mut rows = sqlx::query_as::<_, AuditRow>(concat!("SELECT ", audit_columns!(), " FROM audit ORDER BY seq"))
            .fetch(&mut *tx);
        let mut last_seq = 0;
        let mut last_hash = GENESIS.to_owned();
        let mut records = 0u64;
        while let Some(row) = rows.try_next().await.map_err(read_error())? {
            if let Some(problem) = check(&row, last_seq, &last_hash, highest) {
                return Ok(AuditVerification::Broken(problem));
            }
            last_seq = row.seq;
            last_hash = row.hash;
            records += 1;
        }
        drop(rows);

        let problem = match head {
            None if records == 0 => None,
            None => Some(ChainBreak::HeadMissing { last: last_seq }),
            Some((head_seq, _)) if head_seq > last_seq => {
                Some(ChainBreak::TailRemoved { last: last_seq, head: head_seq })
            }
            Some((head_seq, _)) if head_seq < last_seq => {
                Some(ChainBreak::BeyondHead { seq: head_seq + 1, head: head_seq })
            }
            Some((_, head_hash)) if head_hash != last_hash => Some(ChainBreak::HeadMismatch { seq: last_seq }),
            // The chain is whole and ends at its head; the head's seal says whether Gatehouse put it there. Without
            // a key it can't be told: `Store::seal_problems` says so.
            Some(_) => sealed_head.and_then(|(seq, hash, mac)| {
                (head_seal(&inner.key, seq, &hash, mac.as_deref()) == Seal::Wrong)
                    .then_some(ChainBreak::HeadUnsealed { seq })
            }),
        };
        Ok(problem.map_or(AuditVerification::Ok { records }, AuditVerification::Broken))
    }
}

/// Whether `row` correctly follows the record `prev_seq` whose hash is `prev_hash`.
fn check(row: &AuditRow, prev_seq: i64, prev_hash: &str, highest: i64) -> Option<ChainBreak> {
    if row.seq != prev_seq + 1 {
        return Some(ChainBreak::Missing { after: prev_seq, next: row.seq });
    }
    let Ok(entry) = row.entry() else { return Some(ChainBreak::Changed { seq: row.seq }) };
    let hashes_as = |seq: i64| record_hash(seq, &row.prev_hash, &entry).is_ok_and(|hash| hash == row.hash);
    let intact = hashes_as(row.seq);
    let linked = row.prev_hash == prev_hash;
    match (linked, intact) {
        (true, true) => None,
        (true, false) => Some(ChainBreak::Changed { seq: row.seq }),
        // Intact but not following its predecessor: the one before was changed and given a fresh hash (or,
        // for record 1, this one's link was rewritten).
        (false, true) => Some(ChainBreak::Changed { seq: prev_seq.max(1) }),
        // Neither: if the record is intact at another place, it was moved; otherwise it was changed.
        (false, false) => Some(match (1..=highest).find(|&seq| seq != row.seq && hashes_as(seq)) {
            Some(written_as) => ChainBreak::OutOfOrder { seq: row.seq, written_as },
            None => ChainBreak::Changed { seq: row.seq },
        }),
    }
}
