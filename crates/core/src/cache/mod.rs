//! The response cache: answers of the reads declared [`cached`](crate::catalog::ToolMeta::cached), kept in the
//! core's SQLite store and given again to the same call (same account, tool and arguments) without fetching
//! the data, as long as
//! - the Drive file the answer was read from is unchanged: every use first asks Drive for the file's
//!   `modifiedTime` and `version` (one small `files.get`) and compares them with those kept with the answer,
//!   read *before* the data was fetched, so a change made while fetching makes the kept answer stale;
//! - it is younger than the person's time to live (`cache_ttl`, see [`crate::settings`]; 0 turns the cache off).
//!
//! Any write through a tool drops, before and after it runs, the answers read from the files its arguments
//! name (as its approval evaluators read them); a write that names no spreadsheet, document or file drops
//! every answer, since what it touched is not known. The response cap applies on the way out, to kept answers
//! exactly as to fresh ones; an answer over the cap when it was read is not kept.
//!
//! The cache only saves work: when anything about it fails (no store, Drive can't be asked, the store can't
//! be written), the call runs as if there were no cache.
//!
//! It costs no round trip where it can't save one: a call this server has not seen before runs straight away
//! and keeps nothing (asking Drive for the version first would make every one-off read two round trips to
//! Google instead of one); from its second time on it goes through the cache as above. The time to live is
//! read from the store at most once every [`TTL_REREAD`] (at once in the server that saves it), not at every
//! call.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::approval::evaluator::ArgEvaluator;
use crate::approval::evaluator::target::Target;
use crate::approval::redact::canonical_text;
use crate::approval::store::{CacheDrop, CacheKey, CachedResult, Store, StoreError};
use crate::catalog::{Scope, ToolMeta};
use crate::google::GoogleClient;
use crate::settings::{self, Decided, SettingsError};

/// Why the cache's own tools could not do what was asked.
#[derive(Debug, thiserror::Error)]
pub enum CacheError {
    #[error(
        "This Gatehouse runs without its database (gatehouse.db under GATEHOUSE_HOME), so it keeps no response cache and can't save the cache's time to live. Start Gatehouse with its home folder (the app and `gatehouse serve` do) to use the cache."
    )]
    NoStore,
    #[error("{0}")]
    Store(#[from] StoreError),
    #[error("{0}")]
    Settings(#[from] SettingsError),
}

/// What the cache has for one call.
#[derive(Debug)]
pub enum Lookup {
    /// The call is not cached (not a cached tool, the cache is off, or the file's version can't be read): run
    /// it and keep nothing.
    Off,
    /// A kept answer, still good.
    Hit(String),
    /// Nothing good is kept: run the call, then [`ResponseCache::keep`] its answer.
    Miss(Pending),
}

/// A call to keep the answer of once it has run: its key and the file's version read before it ran.
#[derive(Debug)]
pub struct Pending {
    key: CacheKey,
    target: String,
    parents: Vec<String>,
    version: String,
    ttl: Duration,
}

/// How long the time to live read from the store is used before it is read again: a change saved by another
/// process (the desktop's Advanced page while a `gatehouse serve` runs) applies within this.
pub const TTL_REREAD: Duration = Duration::from_secs(1);

/// How many calls' keys a server remembers having seen (a hash each); past that it starts again, so a call
/// seen before may once more run straight away.
const SEEN_KEYS: usize = 16_384;

/// The response cache of one engine. Cheap to clone.
#[derive(Clone)]
pub struct ResponseCache {
    store: Option<Store>,
    google: GoogleClient,
    /// The time to live as last read, and when.
    ttl: Arc<Mutex<Option<(Instant, Duration)>>>,
    /// The keys of the cached calls this server has run (hashed): only those go through the cache.
    seen: Arc<Mutex<HashSet<u64>>>,
}

impl ResponseCache {
    /// The cache kept in `store` (none without one), checking versions through `google`.
    pub fn new(store: Option<Store>, google: GoogleClient) -> Self {
        Self { store, google, ttl: Arc::default(), seen: Arc::default() }
    }

    fn store(&self) -> Result<&Store, CacheError> {
        self.store.as_ref().ok_or(CacheError::NoStore)
    }

    /// The time to live now, and who decided it (read from the store).
    pub async fn ttl(&self) -> Result<Decided<Duration>, CacheError> {
        let decided = settings::cache_ttl_in(self.store()?).await?;
        self.remember_ttl(decided.value);
        Ok(decided)
    }

    /// Saves the person's time to live (`input`: whole seconds, 0 turns the cache off); it applies at once.
    pub async fn set_ttl(&self, input: &Value) -> Result<Duration, CacheError> {
        let saved = settings::save_cache_ttl(self.store()?, input).await?;
        self.remember_ttl(saved);
        Ok(saved)
    }

    fn remember_ttl(&self, ttl: Duration) {
        *self.ttl.lock().unwrap_or_else(|poisoned| poisoned.into_inner()) = Some((Instant::now(), ttl));
    }

    /// The time to live for a call: as last read when that was within [`TTL_REREAD`], else read again.
    async fn current_ttl(&self, store: &Store) -> Result<Duration, StoreError> {
        let known = *self.ttl.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some((_, ttl)) = known.filter(|(read, _)| read.elapsed() < TTL_REREAD) {
            return Ok(ttl);
        }
        let ttl = settings::cache_ttl_in(store).await?.value;
        self.remember_ttl(ttl);
        Ok(ttl)
    }

    /// Notes the call of `key` as seen; whether it had been seen before.
    fn seen_before(&self, key: &CacheKey) -> bool {
        use std::hash::BuildHasher;
        static KEYS: std::sync::OnceLock<std::collections::hash_map::RandomState> = std::sync::OnceLock::new();
        let hash = KEYS.get_or_init(Default::default).hash_one(key);
        let mut seen = self.seen.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if seen.len() >= SEEN_KEYS && !seen.contains(&hash) {
            seen.clear();
        }
        !seen.insert(hash)
    }

    /// Drops the answers read from `targets` (files, or files directly in these folders), or every answer
    /// when `targets` is empty; how many were dropped.
    pub async fn refresh(&self, targets: Vec<String>) -> Result<u64, CacheError> {
        let which = if targets.is_empty() { CacheDrop::All } else { CacheDrop::Targets(targets) };
        Ok(self.store()?.drop_cached(which).await?)
    }

    /// Whether `meta`'s call with `args` for `account` may be answered from the cache, and with what.
    /// `granted`: the sign-in's scopes when known; without a Drive scope the file's version can't be read, so
    /// Drive is not asked only to refuse.
    pub async fn lookup(
        &self,
        meta: &ToolMeta,
        args: &Value,
        account: Option<&str>,
        granted: Option<&[String]>,
    ) -> Lookup {
        let (Some(store), Some(argument), Some(account)) = (&self.store, meta.cached_from, account) else {
            return Lookup::Off;
        };
        let drive_readable =
            |granted: &[String]| Scope::Drive.accepted(true).iter().any(|s| granted.iter().any(|g| g == s));
        if granted.is_some_and(|granted| !drive_readable(granted)) {
            return Lookup::Off;
        }
        let Some(target) = args.get(argument).and_then(Value::as_str).filter(|id| !id.trim().is_empty()) else {
            return Lookup::Off;
        };
        let ttl = match self.current_ttl(store).await {
            Ok(ttl) if ttl.is_zero() => return Lookup::Off,
            Ok(ttl) => ttl,
            Err(error) => {
                tracing::warn!(tool = meta.name, "the call is not cached: {error}");
                return Lookup::Off;
            }
        };
        let key = CacheKey { account: account.to_owned(), tool: meta.name.to_owned(), arguments: key_text(args) };
        if !self.seen_before(&key) {
            // A first call: straight to Google, one round trip; the cache starts with its second.
            return Lookup::Off;
        }
        // The kept answer is read while Drive is asked for the file's version: the SQLite read costs nothing
        // then, next to the round trip to Google.
        let drive = self.google.drive();
        let (file, kept) = tokio::join!(drive.get(target, "modifiedTime,version,parents"), store.cached_result(&key));
        let file = match file {
            Ok(file) => file,
            Err(error) => {
                tracing::debug!(tool = meta.name, target, "not cached: the file's version could not be read ({error})");
                return Lookup::Off;
            }
        };
        let version = match (file.modified_time, file.version) {
            (None, None) => return Lookup::Off,
            (modified, version) => format!("{} v{}", modified.unwrap_or_default(), version.unwrap_or_default()),
        };
        match kept {
            Ok(Some(kept)) if kept.version == version && fresh(&kept, ttl) => {
                tracing::debug!(tool = meta.name, target, "answered from the response cache");
                return Lookup::Hit(kept.result);
            }
            Ok(_) => {}
            Err(error) => tracing::warn!(tool = meta.name, "the response cache could not be read: {error}"),
        }
        Lookup::Miss(Pending { key, target: target.to_owned(), parents: file.parents, version, ttl })
    }

    /// Keeps `result`, the answer of the call `pending` stands for, unless it is over the response cap `cap`
    /// (it would only be refused, or written to a file), and gives it back: the text goes to the store and
    /// back without a copy (a 20,000-row sheet is megabytes).
    pub async fn keep(&self, pending: Pending, result: String, cap: usize) -> String {
        let Some(store) = &self.store else { return result };
        if result.len() > cap && result.chars().count() > cap {
            return result;
        }
        let now = chrono::Utc::now();
        let expired_before = now - chrono::Duration::from_std(pending.ttl).unwrap_or(chrono::Duration::zero());
        let entry = CachedResult {
            target: pending.target,
            parents: pending.parents,
            version: pending.version,
            stored: now,
            result,
        };
        let (kept, entry) = store.keep_result(pending.key, entry, expired_before).await;
        if let Err(error) = kept {
            tracing::warn!("an answer could not be kept in the response cache: {error}");
        }
        entry.result
    }

    /// Drops what a write call may change (see the module documentation); done before and after the write.
    pub async fn forget_changed(&self, which: &CacheDrop) {
        let Some(store) = &self.store else { return };
        if let Err(error) = store.drop_cached(which.clone()).await {
            tracing::warn!("cached answers a write may have changed could not be dropped: {error}");
        }
    }
}

/// What a call of the tool `meta` declares, judged by its `evaluators`, may change in the cache with `args`:
/// nothing for a read or a tool that makes no Google call; for a write, the spreadsheets, documents and files
/// its evaluators see in its arguments, or everything when they see none.
pub fn changed_by(meta: &ToolMeta, evaluators: &[Arc<dyn ArgEvaluator>], args: &Value) -> Option<CacheDrop> {
    if meta.is_read_only() || meta.scope.is_none() {
        return None;
    }
    let files = [Target::Spreadsheet, Target::Document, Target::File].map(Target::kind);
    let targets: Vec<String> = evaluators
        .iter()
        .filter(|evaluator| evaluator.constrains())
        .filter_map(|evaluator| evaluator.propose(args).ok().flatten())
        .filter(|constraint| files.contains(&constraint.kind.as_str()))
        .map(|constraint| constraint.value)
        .collect();
    Some(if targets.is_empty() { CacheDrop::All } else { CacheDrop::Targets(targets) })
}

/// The arguments as the key holds them: canonical, without `local_path` (where the answer goes, not what it is).
fn key_text(args: &Value) -> String {
    match args {
        Value::Object(map) if map.contains_key("local_path") => {
            let mut map = map.clone();
            map.remove("local_path");
            canonical_text(&Value::Object(map))
        }
        other => canonical_text(other),
    }
}

fn fresh(kept: &CachedResult, ttl: Duration) -> bool {
    let age = chrono::Utc::now().signed_duration_since(kept.stored);
    age.to_std().map_or(true, |age| age < ttl)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_key_ignores_where_the_answer_goes_and_the_order_of_arguments() {
        let a = key_text(&json!({ "sheet": "S", "spreadsheet_id": "X", "local_path": "out.json" }));
        let b = key_text(&json!({ "spreadsheet_id": "X", "sheet": "S" }));
        assert_eq!(a, b);
        assert_ne!(b, key_text(&json!({ "spreadsheet_id": "X", "sheet": "T" })));
    }

    #[test]
    fn an_answer_is_fresh_only_within_the_ttl() {
        let kept = |age: i64| CachedResult {
            target: "X".into(),
            parents: vec![],
            version: "v".into(),
            stored: chrono::Utc::now() - chrono::Duration::seconds(age),
            result: String::new(),
        };
        assert!(fresh(&kept(10), Duration::from_secs(60)));
        assert!(!fresh(&kept(61), Duration::from_secs(60)));
    }
}
