//! Settings the person changes in the app (ask for reads too, the card's durations…), kept next to the grants
//! so one file holds all of Gatehouse's approval state.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use super::{Store, StoreError};

/// How long a setting read from the file is given again without reading it: the response cache asks for its
/// time to live on every cached read, and a SQLite read per call was a good part of a read's cost. A change
/// made through this store applies at once (it replaces what is remembered); one made by another process on
/// the same file applies within this time.
const REMEMBERED_FOR: Duration = Duration::from_secs(1);

/// The settings read lately, with when they were read.
#[derive(Default)]
pub(super) struct RememberedSettings(Mutex<Remembered>);

#[derive(Default)]
struct Remembered {
    values: HashMap<String, (Instant, Option<String>)>,
    /// Counts this store's setting writes: a value read while one was under way is not remembered (it may be
    /// the one the write replaced).
    writes: u64,
}

impl RememberedSettings {
    fn state(&self) -> MutexGuard<'_, Remembered> {
        // Each entry is replaced whole: a panic elsewhere leaves nothing half-changed.
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The value remembered for `key` while it is fresh, and the write count to give [`Self::remember`].
    fn get(&self, key: &str) -> (Option<Option<String>>, u64) {
        let state = self.state();
        let fresh = state.values.get(key).filter(|(read, _)| read.elapsed() < REMEMBERED_FOR);
        (fresh.map(|(_, value)| value.clone()), state.writes)
    }

    /// Remembers `value`, read after [`Self::get`] returned `writes`, unless a write came in between.
    fn remember(&self, key: &str, value: Option<String>, writes: u64) {
        let mut state = self.state();
        if state.writes == writes {
            state.values.insert(key.to_owned(), (Instant::now(), value));
        }
    }

    fn forget(&self, key: &str) {
        let mut state = self.state();
        state.writes += 1;
        state.values.remove(key);
    }
}

impl Store {
    /// The value saved under `key`, if any (read again from the file after [`REMEMBERED_FOR`]).
    pub async fn get_setting(&self, key: &str) -> Result<Option<String>, StoreError> {
        let inner = &self.inner;
        let (remembered, writes) = inner.settings.get(key);
        if let Some(value) = remembered {
            return Ok(value);
        }
        let value: Option<String> = sqlx::query_scalar("SELECT value FROM settings WHERE key = ?1")
            .bind(key)
            .fetch_optional(&inner.pool)
            .await
            .map_err(StoreError::query(&inner.path, "read a setting"))?;
        inner.settings.remember(key, value.clone(), writes);
        Ok(value)
    }

    /// Saves `value` under `key`, replacing what was there.
    pub async fn set_setting(&self, key: &str, value: &str) -> Result<(), StoreError> {
        let (key, value) = (key.to_owned(), value.to_owned());
        self.write(move |inner| async move {
            sqlx::query("INSERT INTO settings (key, value) VALUES (?1, ?2) ON CONFLICT (key) DO UPDATE SET value = excluded.value")
                .bind(&key)
                .bind(value)
                .execute(&inner.pool)
                .await
                .map_err(StoreError::query(&inner.path, "save a setting"))?;
            inner.settings.forget(&key);
            Ok(())
        })
        .await
    }

    /// Forgets the value under `key`, so the default (or whatever else decides it) applies again.
    pub async fn remove_setting(&self, key: &str) -> Result<(), StoreError> {
        let key = key.to_owned();
        self.write(move |inner| async move {
            sqlx::query("DELETE FROM settings WHERE key = ?1")
                .bind(&key)
                .execute(&inner.pool)
                .await
                .map_err(StoreError::query(&inner.path, "remove a setting"))?;
            inner.settings.forget(&key);
            Ok(())
        })
        .await
    }
}
