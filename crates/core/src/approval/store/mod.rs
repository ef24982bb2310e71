//! The approvals store: grants, the person's *never allow* rules, the assistants registered for HTTP, the
//! audit log and settings in one SQLite file under `GATEHOUSE_HOME`.
//!
//! Every write is committed with the WAL journal and `synchronous = FULL` before it is acknowledged, so a
//! killed process or a power cut loses nothing a caller was told was saved. Writes go through one writer at
//! a time (SQLite allows no more anyway), which keeps the audit chain a single line and lets the in-memory
//! grant index and never-allow snapshot follow the database exactly. Reads go to a small pool and never wait for writes.

mod assistants;
mod audit;
mod audit_batch;
mod cache;
mod chain;
mod error;
mod grants;
mod index;
mod never;
mod seal;
mod settings;
mod trust;
mod verify;

use std::collections::BTreeMap;
use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::{Arc, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::time::Duration;

use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous};

pub use assistants::{Assistant, MAX_ASSISTANT_NAME, NewAssistant, TokenMatch, check_assistant_name, token_hash};
pub use audit::{AuditMatch, AuditQuery, AuditRecord, PendingAudit, SourceKind};
pub use audit_batch::{GROUP_COMMIT_WINDOW, may_group_commit};
pub use cache::{CacheDrop, CacheKey, CachedResult};
pub use chain::{GENESIS, record_hash};
pub use error::StoreError;
pub use grants::IndexSync;
pub use index::Candidates;
pub use never::NeverAllow;
pub use seal::{KEY_ENTRY, KeySource, RowKey, Seal};
pub use settings::SEALED_SETTINGS;
pub use trust::IgnoredGrant;
pub use verify::{AuditVerification, ChainBreak};

use assistants::AssistantSnapshot;
use index::GrantIndex;
use never::NeverSnapshot;

/// The file's name under `GATEHOUSE_HOME`.
pub const DATABASE_FILE: &str = "gatehouse.db";

/// How long a statement waits for another connection's lock before giving up (another Gatehouse process
/// reading, a checkpoint).
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// Readers share a few connections; the single writer takes one of them.
const MAX_CONNECTIONS: u32 = 4;

/// The open approvals database. Cloning is cheap and every clone is the same store.
#[derive(Clone)]
pub struct Store {
    inner: Arc<Inner>,
}

struct Inner {
    pool: SqlitePool,
    path: PathBuf,
    index: RwLock<GrantIndex>,
    /// The *never allow* rules that are not removed (see `never`).
    never: RwLock<NeverSnapshot>,
    /// Every assistant registered for HTTP, by token hash (see `assistants`).
    assistants: RwLock<AssistantSnapshot>,
    /// Held across every database write and the index change that follows it.
    writer: tokio::sync::Mutex<()>,
    /// The longest grant honoured, in days from its creation: the policy's `max_days` (see `trust`).
    max_days: u32,
    /// The grant rows the store holds but does not honour (see `trust`), by id: kept out of the index,
    /// logged once, and not read again at every sync.
    ignored: RwLock<BTreeMap<String, IgnoredGrant>>,
    /// The key rows are sealed and checked with (see `seal`), or why there is none.
    key: RowKey,
    /// Other rows found written or changed by something other than Gatehouse (never-allow rules), by
    /// `never:<id>`, in words: logged once, reported by `gatehouse status` and `audit verify`.
    changed: RwLock<BTreeMap<String, String>>,
    /// Reads' audit records waiting for their group commit (see `audit_batch`).
    audit_queue: audit_batch::AuditQueue,
    /// The settings read lately (see `settings`).
    settings: settings::RememberedSettings,
}

/// How a store is opened.
#[derive(Debug, Clone)]
pub struct StoreOptions {
    /// The longest grant honoured, in days from its creation (the policy's `max_days`): a longer row was
    /// not made on a card.
    pub max_days: u32,
    /// Where the key that seals rows comes from: the OS keychain, unless a test gives one.
    pub key: KeySource,
}

impl Default for StoreOptions {
    fn default() -> Self {
        StoreOptions { max_days: crate::approval::policy::DEFAULT_MAX_DAYS, key: KeySource::Keychain }
    }
}

impl StoreOptions {
    /// The default options with `key` given rather than taken from the keychain (tests, benchmarks).
    pub fn with_key(key: [u8; 32]) -> StoreOptions {
        StoreOptions { key: KeySource::Given(key), ..StoreOptions::default() }
    }
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store").field("path", &self.inner.path).finish_non_exhaustive()
    }
}

impl Store {
    /// Opens (creating if needed) the database at `path` — normally `<GATEHOUSE_HOME>/gatehouse.db` — brings
    /// its tables up to date and loads the grant index.
    pub async fn open(path: &Path) -> Result<Store, StoreError> {
        Store::open_with(path, StoreOptions::default()).await
    }

    /// [`open`](Store::open) with `options` (a host passes its policy's `max_days`).
    pub async fn open_with(path: &Path, options: StoreOptions) -> Result<Store, StoreError> {
        let StoreOptions { max_days, key } = options;
        let open_error = |detail: String| StoreError::Open { path: path.display().to_string(), detail };
        if let Some(parent) = path.parent().filter(|parent| !parent.as_os_str().is_empty()) {
            // Normally GATEHOUSE_HOME: private to this user (crate::private_files).
            crate::private_files::private_dir(parent)
                .map_err(|e| open_error(format!("its folder could not be created ({e})")))?;
        }
        create_private(path).map_err(|e| open_error(e.to_string()))?;

        let options = SqliteConnectOptions::new()
            .filename(path)
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Full)
            .foreign_keys(true)
            .busy_timeout(BUSY_TIMEOUT);
        let pool = SqlitePoolOptions::new()
            .max_connections(MAX_CONNECTIONS)
            .connect_with(options)
            .await
            .map_err(|e| open_error(e.to_string()))?;
        sqlx::migrate!("./migrations")
            .run(&pool)
            .await
            .map_err(|e| StoreError::Migrate { path: path.display().to_string(), detail: e.to_string() })?;

        // The key is the folder's, found by the database's full path (every process names it alike).
        let full_path = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_owned());
        let (key, first) = seal::load(&key, &full_path).await;
        match (&key, first) {
            (RowKey::Unavailable(why), _) => tracing::warn!(
                "Gatehouse can't reach the key in the keychain that tells its own approval rows from rows written by other programs ({why}). Until it can, standing approvals are not honoured and none can be made: every change is asked about on a card."
            ),
            (RowKey::Key(_), true) => seal_unsealed(&pool, path, &key).await?,
            (RowKey::Key(_), false) => {}
        }
        let grants = grants::load_active(&pool, path, &key).await?;
        let (never, never_changed) = never::load_active(&pool, path, &key).await?;
        let assistants = assistants::load_all(&pool, path).await?;
        let never_count = never.len();
        let inner = Inner {
            pool,
            path: path.to_owned(),
            index: RwLock::new(GrantIndex::new(Vec::new())),
            never: RwLock::new(never),
            assistants: RwLock::new(assistants),
            writer: tokio::sync::Mutex::new(()),
            max_days,
            ignored: RwLock::new(BTreeMap::new()),
            key,
            changed: RwLock::new(BTreeMap::new()),
            audit_queue: audit_batch::AuditQueue::default(),
            settings: settings::RememberedSettings::default(),
        };
        inner.note_changed(never_changed);
        let honoured = inner.admit(grants, chrono::Utc::now());
        *inner.index_mut() = GrantIndex::new(honoured);
        tracing::debug!(path = %path.display(), grants = inner.index().len(), never = never_count, "approvals store open");
        let store = Store { inner: Arc::new(inner) };
        // Calls a crashed process left pending go into the chain as interrupted. A failure here loses no
        // record (the rows stay, for the next open) and must not keep the store shut.
        if let Err(error) = store.recover_interrupted().await {
            tracing::warn!("the calls a crash left pending could not be recorded as interrupted yet: {error}");
        }
        Ok(store)
    }

    /// Where the database file is.
    pub fn path(&self) -> &Path {
        &self.inner.path
    }

    /// Why this store has no key to seal and check its rows with (see `seal`), when it has none.
    pub fn key_unavailable(&self) -> Option<&str> {
        self.inner.key.unavailable()
    }

    /// Everything the store holds but does not honour, or can't check, in words: the grants it ignores and
    /// [`Store::seal_problems`]. Empty when every row is Gatehouse's. What `gatehouse status`, `gatehouse
    /// grants` and `gatehouse audit verify` report.
    pub async fn seal_report(&self) -> Result<Vec<String>, StoreError> {
        let mut report: Vec<String> = self.ignored_grants().await?.iter().map(ToString::to_string).collect();
        report.extend(self.seal_problems().await?);
        Ok(report)
    }

    /// What is wrong with the database's seals, in words, besides the grants it ignores
    /// ([`Store::ignored_grants`]): no key to check them with, never-allow rules or settings rows written by
    /// something other than Gatehouse. `gatehouse status` and `gatehouse audit verify` say each.
    pub async fn seal_problems(&self) -> Result<Vec<String>, StoreError> {
        let inner = &self.inner;
        let mut problems = Vec::new();
        if let Some(why) = inner.key.unavailable() {
            problems.push(format!(
                "Gatehouse can't reach its key in the keychain ({why}), so it can't tell its own approval rows from rows other programs wrote: standing approvals are not honoured and none can be made, *Answer from a terminal* is off, and the audit log's end can't be checked."
            ));
            return Ok(problems);
        }
        inner.sync_never().await?;
        problems.extend(inner.changed.read().unwrap_or_else(PoisonError::into_inner).values().cloned());
        for key in settings::SEALED_SETTINGS {
            if let Some((_, Seal::Wrong)) = self.get_sealed_setting(key).await? {
                problems.push(format!(
                    "The saved setting {key} in the approvals database was written by something other than Gatehouse (its seal is missing or wrong): it is ignored. Set it again on the Advanced page if you want it."
                ));
            }
        }
        Ok(problems)
    }

    /// Whether assistants have used this store before: a call in the audit log, or an assistant registered for
    /// HTTP (revoked ones too). A shell gets ready for them at launch when they have (the desktop app makes its
    /// card window then).
    pub async fn used_by_assistants(&self) -> Result<bool, StoreError> {
        let inner = &self.inner;
        sqlx::query_scalar("SELECT EXISTS (SELECT 1 FROM audit) OR EXISTS (SELECT 1 FROM assistants)")
            .fetch_one(&inner.pool)
            .await
            .map_err(StoreError::query(&inner.path, "tell whether assistants used it before"))
    }

    /// Commits the reads' audit records still queued, then closes every connection, folding the write-ahead log
    /// into the file. Calls made afterwards fail.
    pub async fn close(&self) {
        // Reads' records waiting for their group commit are written first (see `audit_batch`).
        if let Err(error) = self.flush_audit().await {
            tracing::error!("closing the store before the audit records of recent reads were written: {error}");
        }
        self.inner.pool.close().await;
    }

    /// Runs one write with the writer lock held, on its own task: once the database has begun a write,
    /// a caller giving up (a dropped future) cannot stop the index from following the commit.
    async fn write<T, F, Fut>(&self, write: F) -> Result<T, StoreError>
    where
        F: FnOnce(Arc<Inner>) -> Fut + Send + 'static,
        Fut: Future<Output = Result<T, StoreError>> + Send + 'static,
        T: Send + 'static,
    {
        let inner = Arc::clone(&self.inner);
        let path = inner.path.display().to_string();
        tokio::spawn(async move {
            let _writer = inner.writer.lock().await;
            write(Arc::clone(&inner)).await
        })
        .await
        .map_err(|e| StoreError::Interrupted { path, detail: e.to_string() })?
    }
}

/// Seals every row from before seals, in one transaction: the first time a database is opened with the key
/// (see `seal`).
async fn seal_unsealed(pool: &SqlitePool, path: &Path, key: &RowKey) -> Result<(), StoreError> {
    let mut tx = pool.begin_with("BEGIN IMMEDIATE").await.map_err(StoreError::query(path, "seal its rows"))?;
    let grants = grants::seal_unsealed(&mut tx, path, key).await?;
    let never = never::seal_unsealed(&mut tx, path, key).await?;
    let settings = settings::seal_unsealed(&mut tx, path, key).await?;
    let head = audit::seal_unsealed(&mut tx, path, key).await?;
    tx.commit().await.map_err(StoreError::query(path, "seal its rows"))?;
    if grants + never + settings + head > 0 {
        tracing::info!(
            grants,
            never,
            settings,
            "sealed the approval rows written before seals, with the key in the keychain"
        );
    }
    Ok(())
}

impl Inner {
    /// Notes rows found changed by something other than Gatehouse; each is logged the first time.
    fn note_changed(&self, changed: Vec<(String, String)>) {
        if changed.is_empty() {
            return;
        }
        let mut known = self.changed.write().unwrap_or_else(PoisonError::into_inner);
        for (id, words) in changed {
            if let std::collections::btree_map::Entry::Vacant(entry) = known.entry(id) {
                tracing::warn!(path = %self.path.display(), "{words}");
                entry.insert(words);
            }
        }
    }

    /// The index can't be left half-changed (its changes swap whole snapshots), so a panic elsewhere while
    /// the lock was held leaves nothing to distrust.
    fn index(&self) -> RwLockReadGuard<'_, GrantIndex> {
        self.index.read().unwrap_or_else(PoisonError::into_inner)
    }

    fn index_mut(&self) -> RwLockWriteGuard<'_, GrantIndex> {
        self.index.write().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Creates the database file readable by this OS user only (SQLite gives its `-wal` and `-shm` files the
/// same mode), and narrows an existing file that others could read.
fn create_private(path: &Path) -> std::io::Result<()> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(false);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let file = options.open(path)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = file.metadata()?.permissions().mode();
        if mode & 0o077 != 0 {
            file.set_permissions(std::fs::Permissions::from_mode(mode & 0o700))?;
        }
    }
    drop(file);
    Ok(())
}
