//! The person's *never allow* rules in the database, and the snapshot of them decisions read. Like the grant
//! index, the snapshot changes only after the database has committed the same change (one writer at a time),
//! and [`Store::sync_index`] brings in rules other processes added or removed.

use std::path::Path;
use std::sync::{Arc, PoisonError};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use sqlx::SqlitePool;

use super::chain::{parse_time, time_text};
use super::seal::{RowKey, Seal};
use super::{Inner, Store, StoreError};
use crate::approval::model::Constraint;
use crate::approval::words::one_line;

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
        "id, owner_account, tool, agent, constraint_kind, constraint_value, created, expires, removed, mac"
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
    /// The row's seal (see `seal`).
    mac: Option<String>,
}

/// The columns of a rule its seal covers: all of them.
fn sealed_fields(rule: &NeverAllow) -> [Option<String>; 8] {
    [
        Some(rule.id.clone()),
        Some(rule.owner_account.clone()),
        Some(rule.tool.clone()),
        rule.agent.clone(),
        rule.constraint.as_ref().map(|c| format!("{}:{}", c.kind.len(), c.kind) + &c.value),
        Some(time_text(&rule.created)),
        Some(time_text(&rule.expires)),
        rule.removed.as_ref().map(time_text),
    ]
}

fn never_tag(key: &RowKey, rule: &NeverAllow) -> Option<String> {
    let fields = sealed_fields(rule);
    let fields: Vec<Option<&str>> = fields.iter().map(Option::as_deref).collect();
    key.tag("never", &fields)
}

impl NeverRow {
    fn into_checked(self, path: &Path, key: &RowKey) -> Result<(NeverAllow, Seal), StoreError> {
        let mac = self.mac.clone();
        let rule = self.into_rule(path)?;
        let fields = sealed_fields(&rule);
        let fields: Vec<Option<&str>> = fields.iter().map(Option::as_deref).collect();
        let seal = key.check("never", &fields, mac.as_deref());
        Ok((rule, seal))
    }

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

/// The rules in force, oldest first: what the snapshot holds; and the rows whose seal is wrong, in words.
///
/// A rule's row whose seal is wrong was changed by something other than Gatehouse. Ignoring it would
/// loosen what the person asked for, so it stays in force as though never removed and never expiring (its
/// removal or expiry can't be believed), and is reported. A row that can't be checked (no keychain) is taken
/// as written: the worst a changed one does then is turn a refusal into a card, never run a change unasked.
pub(super) async fn load_active(
    pool: &SqlitePool,
    path: &Path,
    key: &RowKey,
) -> Result<(NeverSnapshot, Vec<(String, String)>), StoreError> {
    let rows: Vec<NeverRow> =
        sqlx::query_as(concat!("SELECT ", never_columns!(), " FROM never_allow ORDER BY created, rowid"))
            .fetch_all(pool)
            .await
            .map_err(StoreError::query(path, "read its never-allow rules"))?;
    let mut active = Vec::new();
    let mut changed = Vec::new();
    for row in rows {
        let (mut rule, seal) = row.into_checked(path, key)?;
        if seal == Seal::Wrong {
            changed.push((
                format!("never:{}", rule.id),
                format!(
                    "The never-allow rule {} for {} in the approvals database was written or changed by something other than Gatehouse (its seal is missing or wrong): it stays in force, whatever the file says about its removal or expiry.",
                    one_line(&rule.id, 40),
                    one_line(&rule.tool, 64)
                ),
            ));
            rule.removed = None;
            rule.expires = DateTime::<Utc>::MAX_UTC;
        }
        if rule.removed.is_none() {
            active.push(rule);
        }
    }
    Ok((active.into(), changed))
}

/// Seals every never-allow row that has no seal yet (the rows from before seals, see `seal`).
pub(super) async fn seal_unsealed(
    tx: &mut sqlx::Transaction<'_, sqlx::Sqlite>,
    path: &Path,
    key: &RowKey,
) -> Result<usize, StoreError> {
    let rows: Vec<NeverRow> =
        sqlx::query_as(concat!("SELECT ", never_columns!(), " FROM never_allow WHERE mac IS NULL"))
            .fetch_all(&mut **tx)
            .await
            .map_err(StoreError::query(path, "read its never-allow rules"))?;
    let count = rows.len();
    for row in rows {
        let rule = row.into_rule(path)?;
        sqlx::query("UPDATE never_allow SET mac = ?2 WHERE id = ?1")
            .bind(&rule.id)
            .bind(never_tag(key, &rule))
            .execute(&mut **tx)
            .await
            .map_err(StoreError::query(path, "seal its never-allow rules"))?;
    }
    Ok(count)
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
        let (fresh, changed) = load_active(&self.pool, &self.path, &self.key).await?;
        self.note_changed(changed);
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
                ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)"
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
            .bind(never_tag(&inner.key, &rule))
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
            // The seal covers the removal, so the row is sealed anew; without a key the removal is written
            // unsealed (a rule's unchecked row is taken as written, see `load_active`).
            let row: Option<NeverRow> = sqlx::query_as(concat!(
                "SELECT ",
                never_columns!(),
                " FROM never_allow WHERE id = ?1 AND removed IS NULL"
            ))
            .bind(&id)
            .fetch_optional(&inner.pool)
            .await
            .map_err(StoreError::query(&inner.path, "remove a never-allow rule"))?;
            let tag = match row {
                Some(row) => {
                    let mut rule = row.into_rule(&inner.path)?;
                    rule.removed = Some(at);
                    never_tag(&inner.key, &rule)
                }
                None => None,
            };
            let done = sqlx::query("UPDATE never_allow SET removed = ?2, mac = ?3 WHERE id = ?1 AND removed IS NULL")
                .bind(&id)
                .bind(time_text(&at))
                .bind(tag)
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
