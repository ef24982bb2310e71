//! The person's *never allow* rules in the database, and the snapshot of them decisions read. Like the grant
//! index, the snapshot changes only after the database has committed the same change (one writer at a time),
//! and [`Store::sync_index`] brings in rules other processes added or removed.

use std::path::Path;
use std::sync::{Arc, PoisonError};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use sqlx::SqlitePool;

use super::chain::{parse_time, time_text};
use super::{Inner, Store, StoreError};
use crate::approval::model::Constraint;

/// A person's *never allow*: calls of `tool` are refused, without asking, until `expires`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NeverAllow {
    /// A random id (UUID v4 text), shown to the person and used to remove it.
    pub id: String,
    /// The signed-in Google account it belongs to: signed in as someone else, it does not apply.
    pub owner_account: String,
    pub tool: String,
    /// The agent it is limited to; `None` = any agent.
    pub agent: Option<String>,
    /// `None` = any arguments; else only calls the tool's evaluator says satisfy it.
    pub constraint: Option<Constraint>,
    pub created: DateTime<Utc>,
    /// Always set: the person is asked again afterwards, so a forgotten rule does not refuse forever.
    pub expires: DateTime<Utc>,
    pub removed: Option<DateTime<Utc>>,
}

/// The rules that are not removed, as decisions read them: an immutable snapshot, so handing it out is one
/// reference count and a write never disturbs a decision that is reading it.
pub(super) type NeverSnapshot = Arc<[NeverAllow]>;

/// The columns of `never_allow` in `NeverRow` order, as a literal so queries stay `&'static str`.
macro_rules! never_columns {
    () => {
        "id, owner_account, tool, agent, constraint_kind, constraint_value, created, expires, removed"
    };
}

/// A row of `never_allow` as stored.
#[derive(sqlx::FromRow)]
struct NeverRow {
    id: String,
    owner_account: String,
    tool: String,
    agent: Option<String>,
    constraint_kind: Option<String>,
    constraint_value: Option<String>,
    created: String,
    expires: String,
    removed: Option<String>,
}

impl NeverRow {
    fn into_rule(self, path: &Path) -> Result<NeverAllow, StoreError> {
        let id = self.id;
        let bad = |detail: String| StoreError::unreadable(path, format!("never-allow rule {id}"), detail);
        let constraint = match (self.constraint_kind, self.constraint_value) {
            (Some(kind), Some(value)) => Some(Constraint { kind, value }),
            (None, None) => None,
            _ => return Err(bad("its constraint has a kind without a value, or a value without a kind".into())),
        };
        let time = |name: &str, text: &str| parse_time(text).map_err(|e| bad(format!("its {name} time {text:?}: {e}")));
        Ok(NeverAllow {
            owner_account: self.owner_account,
            tool: self.tool,
            agent: self.agent,
            constraint,
            created: time("created", &self.created)?,
            expires: time("expiry", &self.expires)?,
            removed: self.removed.map(|text| time("removed", &text)).transpose()?,
            id,
        })
    }
}

/// The rules that are not removed, oldest first: what the snapshot holds.
pub(super) async fn load_active(pool: &SqlitePool, path: &Path) -> Result<NeverSnapshot, StoreError> {
    let rows: Vec<NeverRow> = sqlx::query_as(concat!(
        "SELECT ",
        never_columns!(),
        " FROM never_allow WHERE removed IS NULL ORDER BY created, rowid"
    ))
    .fetch_all(pool)
    .await
    .map_err(StoreError::query(path, "read its never-allow rules"))?;
    rows.into_iter().map(|row| row.into_rule(path)).collect()
}

impl Inner {
    fn never(&self) -> NeverSnapshot {
        // Whole snapshots are swapped, so a panic elsewhere while the lock was held leaves nothing half-changed.
        self.never.read().unwrap_or_else(PoisonError::into_inner).clone()
    }

    fn set_never(&self, next: NeverSnapshot) {
        *self.never.write().unwrap_or_else(PoisonError::into_inner) = next;
    }

    /// Reads the rules other processes added or removed into the snapshot. Returns whether it changed.
    pub(super) async fn sync_never(&self) -> Result<bool, StoreError> {
        let fresh = load_active(&self.pool, &self.path).await?;
        if *fresh == *self.never() {
            return Ok(false);
        }
        self.set_never(fresh);
        Ok(true)
    }
}

impl Store {
    /// The rules that are not removed (expired ones too: the decision checks the expiry), oldest first, from
    /// memory: what every gated call consults.
    pub fn never_allows(&self) -> Arc<[NeverAllow]> {
        self.inner.never()
    }

    /// Saves a new rule; once this returns, [`Store::never_allows`] includes it (unless it is already
    /// removed).
    pub async fn add_never_allow(&self, rule: &NeverAllow) -> Result<(), StoreError> {
        let rule = rule.clone();
        self.write(move |inner| async move {
            let result = sqlx::query(concat!(
                "INSERT INTO never_allow (",
                never_columns!(),
                ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)"
            ))
            .bind(&rule.id)
            .bind(&rule.owner_account)
            .bind(&rule.tool)
            .bind(&rule.agent)
            .bind(rule.constraint.as_ref().map(|c| c.kind.as_str()))
            .bind(rule.constraint.as_ref().map(|c| c.value.as_str()))
            .bind(time_text(&rule.created))
            .bind(time_text(&rule.expires))
            .bind(rule.removed.as_ref().map(time_text))
            .execute(&inner.pool)
            .await;
            match result {
                Ok(_) => {}
                Err(e) if e.as_database_error().is_some_and(|e| e.is_unique_violation()) => {
                    return Err(StoreError::DuplicateNeverAllow {
                        path: inner.path.display().to_string(),
                        id: rule.id.clone(),
                    });
                }
                Err(e) => return Err(StoreError::query(&inner.path, "save a never-allow rule")(e)),
            }
            if rule.removed.is_none() {
                // The id was new to the database, so it is new to the snapshot too.
                let next: NeverSnapshot = inner.never().iter().cloned().chain(std::iter::once(rule)).collect();
                inner.set_never(next);
            }
            Ok(())
        })
        .await
    }

    /// Marks a rule removed at `at`. Returns `false` if there is no such rule, or it was already removed. Once
    /// this returns, [`Store::never_allows`] no longer includes it.
    pub async fn remove_never_allow(&self, id: &str, at: DateTime<Utc>) -> Result<bool, StoreError> {
        let id = id.to_owned();
        self.write(move |inner| async move {
            let done = sqlx::query("UPDATE never_allow SET removed = ?2 WHERE id = ?1 AND removed IS NULL")
                .bind(&id)
                .bind(time_text(&at))
                .execute(&inner.pool)
                .await
                .map_err(StoreError::query(&inner.path, "remove a never-allow rule"))?;
            // Taken out of the snapshot even when another process removed it first: that process changed the
            // database but not this process's memory.
            let current = inner.never();
            if current.iter().any(|rule| rule.id == id) {
                inner.set_never(current.iter().filter(|rule| rule.id != id).cloned().collect());
            }
            Ok(done.rows_affected() > 0)
        })
        .await
    }

    /// Every rule, removed ones too, newest first (from the database, not the snapshot).
    pub async fn list_never_allow(&self) -> Result<Vec<NeverAllow>, StoreError> {
        let inner = &self.inner;
        let rows: Vec<NeverRow> =
            sqlx::query_as(concat!("SELECT ", never_columns!(), " FROM never_allow ORDER BY created DESC, rowid DESC"))
                .fetch_all(&inner.pool)
                .await
                .map_err(StoreError::query(&inner.path, "list its never-allow rules"))?;
        rows.into_iter().map(|row| row.into_rule(&inner.path)).collect()
    }

    /// One rule by id, removed or not (from the database).
    pub async fn get_never_allow(&self, id: &str) -> Result<Option<NeverAllow>, StoreError> {
        let inner = &self.inner;
        let row: Option<NeverRow> =
            sqlx::query_as(concat!("SELECT ", never_columns!(), " FROM never_allow WHERE id = ?1"))
                .bind(id)
                .fetch_optional(&inner.pool)
                .await
                .map_err(StoreError::query(&inner.path, "read a never-allow rule"))?;
        row.map(|row| row.into_rule(&inner.path)).transpose()
    }
}
