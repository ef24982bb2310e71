//! Settings the person changes in the app (ask for reads too, the card's durations…), kept next to the grants
//! so one file holds all of Gatehouse's approval state.

use super::{Store, StoreError};

impl Store {
    /// The value saved under `key`, if any.
    pub async fn get_setting(&self, key: &str) -> Result<Option<String>, StoreError> {
        let inner = &self.inner;
        sqlx::query_scalar("SELECT value FROM settings WHERE key = ?1")
            .bind(key)
            .fetch_optional(&inner.pool)
            .await
            .map_err(StoreError::query(&inner.path, "read a setting"))
    }

    /// Saves `value` under `key`, replacing what was there.
    pub async fn set_setting(&self, key: &str, value: &str) -> Result<(), StoreError> {
        let (key, value) = (key.to_owned(), value.to_owned());
        self.write(move |inner| async move {
            sqlx::query("INSERT INTO settings (key, value) VALUES (?1, ?2) ON CONFLICT (key) DO UPDATE SET value = excluded.value")
                .bind(key)
                .bind(value)
                .execute(&inner.pool)
                .await
                .map_err(StoreError::query(&inner.path, "save a setting"))?;
            Ok(())
        })
        .await
    }

    /// Forgets the value under `key`, so the default (or whatever else decides it) applies again.
    pub async fn remove_setting(&self, key: &str) -> Result<(), StoreError> {
        let key = key.to_owned();
        self.write(move |inner| async move {
            sqlx::query("DELETE FROM settings WHERE key = ?1")
                .bind(key)
                .execute(&inner.pool)
                .await
                .map_err(StoreError::query(&inner.path, "remove a setting"))?;
            Ok(())
        })
        .await
    }
}
