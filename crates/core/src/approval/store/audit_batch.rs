//! Group commit for the audit records of reads that nobody had to decide ([`DecisionSource::NotGated`]).
//!
//! Every audit record used to be its own `synchronous = FULL` commit, awaited before the call's reply: one
//! fsync per read, about half a millisecond on this project's disks, more than everything else a read of a
//! few cells costs Gatehouse. A read that needed no decision changes nothing and was approved by nobody, so
//! its record may wait a few milliseconds: it is queued here and committed, with every other record queued
//! meanwhile, in one transaction [`GROUP_COMMIT_WINDOW`] after the first of them (or sooner, by the next
//! durable append, which takes the queue into its own transaction so the chain stays in the order the calls
//! finished). Everything else stays as it was — the pending record of a write before it is sent, its final
//! record, and the record of every call that was decided (allowed or refused by a rule, a grant or the person)
//! are committed before the call's reply — and so does the chain: records are hashed and numbered under the
//! store's one writer, in the same transaction that appends them.
//!
//! What a crash can lose: the records of reads that finished in the last [`GROUP_COMMIT_WINDOW`] plus one
//! commit before it (a `kill -9`, a power cut). Stopping normally loses nothing: [`Store::close`] and
//! [`crate::approval::Approvals::settle`] commit the queue first, and so does every reader of the log in this
//! process ([`Store::search_audit`], [`Store::export_audit`], [`Store::verify_audit`]), so what this process
//! reads of its own log is never behind.

use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use super::{Inner, Store, StoreError};
use crate::approval::model::{AuditEntry, DecisionSource};

/// How long a read's record may wait for others to share its commit: the most a crash can lose of reads'
/// records, with the one commit that follows it.
pub const GROUP_COMMIT_WINDOW: Duration = Duration::from_millis(4);

/// At most this many records wait at once; past it, the call that queues one waits for the commit (the disk
/// is slower than the calls, or failing: memory must not grow without bound meanwhile).
const MAX_QUEUED: usize = 4096;

/// Whether `entry`'s record may be group-committed rather than committed before its call's reply: only a
/// read nobody had to decide. This is the one place that says so.
pub fn may_group_commit(entry: &AuditEntry) -> bool {
    entry.source == DecisionSource::NotGated
}

/// The records waiting for their commit, oldest first, in stored form (see `audit::stored_form`).
#[derive(Default)]
pub(super) struct AuditQueue {
    state: Mutex<QueueState>,
}

#[derive(Default)]
struct QueueState {
    entries: Vec<AuditEntry>,
    /// A commit of the queue is scheduled (a task waits out the window).
    scheduled: bool,
}

/// What [`AuditQueue::push`] left to the caller.
enum Queued {
    /// The first record since the last commit: schedule one.
    Schedule,
    /// A commit is scheduled already.
    Waiting,
    /// The queue is full: commit now.
    Full,
}

impl AuditQueue {
    fn state(&self) -> MutexGuard<'_, QueueState> {
        // The state is a list and a flag, each changed whole: nothing is left half-done by a panic.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn push(&self, entry: AuditEntry) -> Queued {
        let mut state = self.state();
        state.entries.push(entry);
        if state.entries.len() >= MAX_QUEUED {
            Queued::Full
        } else if state.scheduled {
            Queued::Waiting
        } else {
            state.scheduled = true;
            Queued::Schedule
        }
    }

    /// Takes every queued record, for a commit under the store's writer lock.
    pub(super) fn take(&self) -> Vec<AuditEntry> {
        let mut state = self.state();
        state.scheduled = false;
        std::mem::take(&mut state.entries)
    }

    /// Puts back, ahead of what was queued since, the records of a commit that failed: they are tried again
    /// with the next commit.
    pub(super) fn restore(&self, mut entries: Vec<AuditEntry>) {
        if entries.is_empty() {
            return;
        }
        let mut state = self.state();
        entries.append(&mut state.entries);
        state.entries = entries;
    }

    fn is_empty(&self) -> bool {
        self.state().entries.is_empty()
    }
}

impl Store {
    /// Appends `entry`'s record to the chain: committed before this returns, unless [`may_group_commit`]
    /// lets it wait for the next group commit (then it is queued and this returns at once).
    pub async fn record_audit(&self, entry: AuditEntry) -> Result<(), StoreError> {
        if !may_group_commit(&entry) {
            return self.append_audit(entry).await.map(drop);
        }
        match self.inner.audit_queue.push(super::audit::stored_form(entry)) {
            Queued::Waiting => Ok(()),
            Queued::Full => self.flush_audit().await,
            Queued::Schedule => {
                let Ok(runtime) = tokio::runtime::Handle::try_current() else {
                    // No runtime to wait on: commit now rather than leave the record for a later call.
                    return self.flush_audit().await;
                };
                let store = self.clone();
                runtime.spawn(async move {
                    tokio::time::sleep(GROUP_COMMIT_WINDOW).await;
                    if let Err(error) = store.flush_audit().await {
                        tracing::error!("the audit records of recent reads could not be written yet: {error}");
                    }
                });
                Ok(())
            }
        }
    }

    /// Commits the records waiting for a group commit, if any. Once this returns, every record queued before
    /// it was called is on disk (or this says why not; they stay queued for the next commit).
    pub async fn flush_audit(&self) -> Result<(), StoreError> {
        if self.inner.audit_queue.is_empty() {
            return Ok(());
        }
        self.write(move |inner| async move {
            let mut tx = inner
                .pool
                .begin_with("BEGIN IMMEDIATE")
                .await
                .map_err(StoreError::query(&inner.path, "start an audit write"))?;
            let queued = append_queued_in(&mut tx, &inner).await?;
            commit_or_restore(tx, &inner, queued).await
        })
        .await
    }
}

/// Appends the queued records within `tx`, under the writer lock, and returns them: the caller hands them to
/// [`commit_or_restore`] once its own appends are in the same transaction.
pub(super) async fn append_queued_in(
    tx: &mut sqlx::Transaction<'_, sqlx::Sqlite>,
    inner: &Inner,
) -> Result<Vec<AuditEntry>, StoreError> {
    let queued = inner.audit_queue.take();
    for entry in &queued {
        if let Err(error) = super::audit::append_in(tx, &inner.path, &inner.key, entry.clone()).await {
            inner.audit_queue.restore(queued);
            return Err(error);
        }
    }
    Ok(queued)
}

/// Commits `tx`; if that fails, `queued` goes back to the queue (the transaction, and so their appends, are
/// rolled back).
pub(super) async fn commit_or_restore(
    tx: sqlx::Transaction<'_, sqlx::Sqlite>,
    inner: &Inner,
    queued: Vec<AuditEntry>,
) -> Result<(), StoreError> {
    match tx.commit().await {
        Ok(()) => Ok(()),
        Err(error) => {
            inner.audit_queue.restore(queued);
            Err(StoreError::query(&inner.path, "save an audit record")(error))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::approval::model::{CallOutcome, Verdict};

    fn entry(tool: &str, source: DecisionSource) -> AuditEntry {
        AuditEntry {
            time: chrono::Utc::now(),
            agent: None,
            tool: tool.to_owned(),
            arguments: serde_json::json!({}),
            target: None,
            verdict: Verdict::Allowed,
            source,
            outcome: CallOutcome::Ok,
            duration_ms: 0,
            answered_via: None,
        }
    }

    #[test]
    fn only_reads_nobody_decided_may_wait_for_a_group_commit() {
        assert!(may_group_commit(&entry("get_sheet_data", DecisionSource::NotGated)));
        for source in [
            DecisionSource::Person,
            DecisionSource::Grant("g".into()),
            DecisionSource::Policy("allow[0]".into()),
            DecisionSource::Deny("deny[0]".into()),
            DecisionSource::Timeout,
            DecisionSource::Unattended,
            DecisionSource::Paused,
            DecisionSource::InvalidArguments,
            DecisionSource::Withdrawn,
            DecisionSource::Shutdown,
            DecisionSource::AgentName,
        ] {
            assert!(!may_group_commit(&entry("update_cells", source.clone())), "{source}");
        }
    }

    #[test]
    fn a_failed_commit_puts_its_records_back_ahead_of_newer_ones() {
        let queue = AuditQueue::default();
        assert!(matches!(queue.push(entry("a", DecisionSource::NotGated)), Queued::Schedule));
        assert!(matches!(queue.push(entry("b", DecisionSource::NotGated)), Queued::Waiting));
        let taken = queue.take();
        assert!(matches!(queue.push(entry("c", DecisionSource::NotGated)), Queued::Schedule));
        queue.restore(taken);
        let order: Vec<String> = queue.take().into_iter().map(|entry| entry.tool).collect();
        assert_eq!(order, ["a", "b", "c"]);
    }
}
