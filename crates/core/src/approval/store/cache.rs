//! The response cache's rows (table `response_cache`): kept here because the store owns the database; what is
//! cached, when an entry may be served and when it is dropped is decided in [`crate::cache`].

use chrono::{DateTime, Utc};

use super::chain::{parse_time, time_text};
use super::{Store, StoreError};

/// What identifies a cached result: who asked, which tool, and the tool's arguments in canonical text.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CacheKey {
    pub account: String,
    pub tool: String,
    pub arguments: String,
}

/// A cached result and what it was read from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CachedResult {
    /// The Drive id of the file the result was read from.
    pub target: String,
    /// The folders that file was in.
    pub parents: Vec<String>,
    /// The file's version when the result was read (see `crate::cache`); served only while it is unchanged.
    pub version: String,
    pub stored: DateTime<Utc>,
    /// The tool's result as serialized JSON, before the response cap.
    pub result: String,
}

/// Which cached results to drop.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CacheDrop {
    All,
    /// Those read from one of these files, or from a file directly in one of these folders.
    Targets(Vec<String>),
}

#[derive(sqlx::FromRow)]
struct CacheRow {
    target: String,
    parents: String,
    version: String,
    stored: String,
    result: String,
}

impl Store {
    /// The result cached under `key`, if any (whether it may still be served is the caller's to decide).
    pub async fn cached_result(&self, key: &CacheKey) -> Result<Option<CachedResult>, StoreError> {
        let inner = &self.inner;
        let row: Option<CacheRow> = sqlx::query_as(
            "SELECT target, parents, version, stored, result FROM response_cache \
             WHERE account = ?1 AND tool = ?2 AND arguments = ?3",
        )
        .bind(&key.account)
        .bind(&key.tool)
        .bind(&key.arguments)
        .fetch_optional(&inner.pool)
        .await
        .map_err(StoreError::query(&inner.path, "read the response cache"))?;
        let Some(row) = row else { return Ok(None) };
        let stored = parse_time(&row.stored)
            .map_err(|e| StoreError::unreadable(&inner.path, "a cached result's time".to_owned(), e))?;
        let parents = row.parents.split(',').filter(|id| !id.is_empty()).map(str::to_owned).collect();
        Ok(Some(CachedResult { target: row.target, parents, version: row.version, stored, result: row.result }))
    }

    /// Keeps `entry` under `key` (replacing what was there), and drops every result stored before
    /// `expired_before`, so the cache holds no more than one TTL's worth of answers. `entry` comes back
    /// whatever happened: its result is bound to the statement where it is, not copied.
    pub async fn keep_result(
        &self,
        key: CacheKey,
        entry: CachedResult,
        expired_before: DateTime<Utc>,
    ) -> (Result<(), StoreError>, CachedResult) {
        // Written on the caller's task, not the writer's own (see `Store::write`): nothing follows this commit,
        // so a caller giving up only rolls it back, and the entry stays here to be given back.
        let kept = {
            let _writer = self.inner.writer.lock().await;
            keep_in(&self.inner, key, &entry, expired_before).await
        };
        (kept, entry)
    }

    /// Drops the cached results `which` names, for every account; how many were dropped.
    pub async fn drop_cached(&self, which: CacheDrop) -> Result<u64, StoreError> {
        self.write(move |inner| async move {
            let drop_error = StoreError::query(&inner.path, "drop cached results");
            let dropped = match which {
                CacheDrop::All => {
                    sqlx::query("DELETE FROM response_cache").execute(&inner.pool).await.map_err(drop_error)?
                }
                CacheDrop::Targets(ids) => {
                    let ids = serde_json::Value::from(ids).to_string();
                    sqlx::query(
                        "DELETE FROM response_cache WHERE EXISTS (SELECT 1 FROM json_each(?1) AS id \
                         WHERE id.value = target OR instr(',' || parents || ',', ',' || id.value || ',') > 0)",
                    )
                    .bind(ids)
                    .execute(&inner.pool)
                    .await
                    .map_err(drop_error)?
                }
            };
            Ok(dropped.rows_affected())
        })
        .await
    }
}

/// [`Store::keep_result`]'s transaction, borrowing the entry.
async fn keep_in(
    inner: &super::Inner,
    key: CacheKey,
    entry: &CachedResult,
    expired_before: DateTime<Utc>,
) -> Result<(), StoreError> {
    let mut tx = inner.pool.begin().await.map_err(StoreError::query(&inner.path, "update the response cache"))?;
    sqlx::query("DELETE FROM response_cache WHERE stored < ?1")
        .bind(time_text(&expired_before))
        .execute(&mut *tx)
        .await
        .map_err(StoreError::query(&inner.path, "drop expired cached results"))?;
    sqlx::query(
        "INSERT INTO response_cache (account, tool, arguments, target, parents, version, stored, result) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) \
         ON CONFLICT (account, tool, arguments) DO UPDATE SET target = excluded.target, \
         parents = excluded.parents, version = excluded.version, stored = excluded.stored, \
         result = excluded.result",
    )
    .bind(key.account)
    .bind(key.tool)
    .bind(key.arguments)
    .bind(&entry.target)
    .bind(entry.parents.join(","))
    .bind(&entry.version)
    .bind(time_text(&entry.stored))
    .bind(entry.result.as_str())
    .execute(&mut *tx)
    .await
    .map_err(StoreError::query(&inner.path, "keep a cached result"))?;
    tx.commit().await.map_err(StoreError::query(&inner.path, "update the response cache"))?;
    Ok(())
}
