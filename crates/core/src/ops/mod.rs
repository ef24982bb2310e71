//! Management operations, each written once: every front door (the control socket that `gatehouse` commands
//! reach, the commands that open the database themselves when no server runs, the desktop app's pages) calls
//! the function here, so no two of them can do an operation differently. The layer sits above the engine and
//! below the transports (issue 16).
//!
//! An operation works on one approvals database ([`Ops`]) and, when it changes what a running server keeps in
//! memory (a grant's revoke, a never-allow rule, an assistant's token), tells the other running servers that
//! use the same database to read it again before it returns ([`Neighbours`]); the control socket supplies the
//! real ones (`control::RunningServers`), since this layer sits below it.
//!
//! - [`grants`]: list, revoke.
//! - [`never`]: list, make, remove.
//! - [`assistants`]: list, register, revoke, choose their tools.
//! - [`audit`]: a page, a search, verify, export.
//! - [`settings`]: the person's settings as the running engine sees them.

pub mod assistants;
pub mod audit;
pub mod grants;
pub mod never;
pub mod settings;

use std::sync::Arc;

use futures::future::BoxFuture;

use crate::Engine;
use crate::approval::store::{IndexSync, Store, StoreError};

pub use assistants::AssistantRevoked;
pub use audit::{MAX_AUDIT_PAGE, Verification};
pub use grants::Revoked;
pub use never::NeverRemoved;

/// The other running servers that use an approvals database. A change one process makes is in the file at
/// once, but each server keeps grants, never-allow rules and assistants in memory and only reads the file
/// again every few seconds: telling them closes that gap.
pub trait Neighbours: Send + Sync {
    /// Makes each of them read what changed in the database now. One that can't be told is logged, not an
    /// error: its periodic check catches up within seconds.
    fn store_changed(&self) -> BoxFuture<'_, ()>;
}

/// No other server to tell (a test's store, a platform without a control socket).
#[derive(Debug, Clone, Copy, Default)]
pub struct NoNeighbours;

impl Neighbours for NoNeighbours {
    fn store_changed(&self) -> BoxFuture<'_, ()> {
        Box::pin(std::future::ready(()))
    }
}

/// Why an operation was not done, in words that say what to do.
#[derive(Debug, thiserror::Error)]
pub enum OpsError {
    #[error(
        "This Gatehouse server has no approvals database (it could not open one; its log says why), so it keeps no grants or audit log. Fix that and restart it."
    )]
    NoStore,
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The management operations on one approvals database, and the running servers to tell of a change.
#[derive(Clone)]
pub struct Ops {
    store: Store,
    neighbours: Arc<dyn Neighbours>,
}

impl Ops {
    /// The operations on `store`; changes are told to `neighbours`.
    pub fn new(store: Store, neighbours: Arc<dyn Neighbours>) -> Ops {
        Ops { store, neighbours }
    }

    /// The operations on `engine`'s store, or [`OpsError::NoStore`] when it runs without one.
    pub fn of(engine: &Engine, neighbours: Arc<dyn Neighbours>) -> Result<Ops, OpsError> {
        let store = engine.approvals().store().ok_or(OpsError::NoStore)?;
        Ok(Ops::new(store.clone(), neighbours))
    }

    /// The database they work on.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// Tells the other servers using the database that it changed.
    async fn changed(&self) {
        self.neighbours.store_changed().await;
    }
}

/// Brings `store`'s in-memory index (grants, never-allow rules, assistants) in step with what other processes
/// changed: what a `refresh` request and every server's periodic check do.
pub async fn refresh(store: &Store) {
    match store.sync_index().await {
        Ok(sync) if sync == IndexSync::default() => {}
        Ok(IndexSync { forgotten, joined }) => {
            tracing::info!(forgotten, joined, "grants revoked or made by another Gatehouse process now count here")
        }
        Err(error) => tracing::warn!("could not check for grants made or revoked elsewhere: {error}"),
    }
}
