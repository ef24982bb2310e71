//! Settings the person changes in the app (ask for reads too, the card's durations…), kept next to the grants
//! so one file holds all of Gatehouse's approval state.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use super::seal::{RowKey, Seal};
use super::{Store, StoreError};

/// The settings whose saved value counts only when its row is sealed with Gatehouse's key (see `seal`): those
/// whose forged row would loosen what the cards protect. Only *Answer from a terminal*: the others can't
/// loosen anything a missing row doesn't (a removed row means the default, and no seal can show a row was
/// removed), or only tighten it. `crate::settings::Key::needs_seal` reads this list.
pub const SEALED_SETTINGS: &[&str] = &["answer_from_terminal"];

fn setting_tag(key: &RowKey, name: &str, value: &str) -> Option<String> {
    key.tag("setting", &[Some(name), Some(value)])
}

/// Seals every settings row that has no seal yet (the rows from before seals, see `seal`).
pub(super) async fn seal_unsealed(
    tx: &mut sqlx::Transaction<'_, sqlx::Sqlite>,
    path: &std::path::Path,
    key: &RowKey,
) -> Result<usize, StoreError> {
    let rows: Vec<(String, String)> = sqlx::query_as("SELECT key, value FROM settings WHERE mac IS NULL")
        .fetch_all(&mut **tx)
        .await
        .map_err(StoreError::query(path, "read its settings"))?;
    for (name, value) in &rows {
        sqlx::query("UPDATE settings SET mac = ?2 WHERE key = ?1")
            .bind(name)
            .bind(setting_tag(key, name, value))
            .execute(&mut **tx)
            .await
            .map_err(StoreError::query(path, "seal its settings"))?;
    }
    Ok(rows.len())
}

/// A settings row as read: its value and its seal.
type Row = (String, Option<String>);

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
    values: HashMap<String, (Instant, Option<Row>)>,
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
    fn get(&self, key: &str) -> (Option<Option<Row>>, u64) {
        let state = self.state();
        let fresh = state.values.get(key).filter(|(read, _)| read.elapsed() < REMEMBERED_FOR);
        (fresh.map(|(_, value)| value.clone()), state.writes)
    }

    /// Remembers `value`, read after [`Self::get`] returned `writes`, unless a write came in between.
    fn remember(&self, key: &str, value: Option<Row>, writes: u64) {
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
    /// The value saved under `key`, if any, whatever its seal says (see [`Store::get_sealed_setting`]).
    pub async fn get_setting(&self, key: &str) -> Result<Option<String>, StoreError> {
        Ok(self.get_sealed_setting(key).await?.map(|(value, _)| value))
    }

    /// The value saved under `key`, if any, and what its seal says: whether Gatehouse wrote it (see `seal`).
    /// Which settings must be sealed to count is the settings' rule (`crate::settings::Key::needs_seal`).
    pub async fn get_sealed_setting(&self, key: &str) -> Result<Option<(String, Seal)>, StoreError> {
        let inner = &self.inner;
        let (remembered, writes) = inner.settings.get(key);
        let row = match remembered {
            Some(row) => row,
            None => {
                let row: Option<Row> = sqlx::query_as("SELECT value, mac FROM settings WHERE key = ?1")
                    .bind(key)
                    .fetch_optional(&inner.pool)
                    .await
                    .map_err(StoreError::query(&inner.path, "read a setting"))?;
                inner.settings.remember(key, row.clone(), writes);
                row
            }
        };
        Ok(row.map(|(value, mac)| {
            let seal = inner.key.check("setting", &[Some(key), Some(&value)], mac.as_deref());
            (value, seal)
        }))
    }

    /// Saves `value` under `key`, replacing what was there.
    pub async fn set_setting(&self, key: &str, value: &str) -> Result<(), StoreError> {
        let (key, value) = (key.to_owned(), value.to_owned());
        self.write(move |inner| async move {
            let tag = setting_tag(&inner.key, &key, &value);
            sqlx::query("INSERT INTO settings (key, value, mac) VALUES (?1, ?2, ?3) ON CONFLICT (key) DO UPDATE SET value = excluded.value, mac = excluded.mac")
                .bind(&key)
                .bind(value)
                .bind(tag)
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
