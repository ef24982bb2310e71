//! Grants in the database, and the index that follows them. Decisions read the index; the settings window
//! and `gatehouse approvals` read the database.

use std::path::Path;

use chrono::{DateTime, Utc};
use sqlx::SqlitePool;

use super::chain::{parse_time, time_text};
use super::seal::{RowKey, Seal};
use super::trust::{IgnoredGrant, refusal};
use super::{Candidates, Inner, Store, StoreError};
use crate::approval::model::{Agent, Constraint, Grant, Owner};

/// The columns of `grants` in `GrantRow` order, as a literal so queries stay `&'static str`.
macro_rules! grant_columns {
    () => {
        "id, owner_kind, owner_account, tool, agent, constraint_kind, constraint_value, unattended, created, \
         expires, revoked, last_used, use_count, fingerprint, agent_self_reported, target_name, mac"
    };
}

/// A row of `grants` as stored.
#[derive(sqlx::FromRow)]
struct GrantRow {
    id: String,
    owner_kind: String,
    owner_account: Option<String>,
    tool: String,
    agent: Option<String>,
    constraint_kind: Option<String>,
    constraint_value: Option<String>,
    unattended: bool,
    created: String,
    expires: Option<String>,
    revoked: Option<String>,
    last_used: Option<String>,
    use_count: i64,
    fingerprint: String,
    /// 1: the grant is for a client that says it is `agent`, not for the registered assistant of that name.
    agent_self_reported: i64,
    target_name: Option<String>,
    /// The row's seal (see `seal`): `None` when written before seals, or without a key.
    mac: Option<String>,
}

/// The columns of a grant its seal covers: everything a decision reads, and its revocation (so a revoked
/// grant can't be brought back). Not its use count or last use, which every covered call updates, nor the
/// target's name, which is only words.
fn sealed_fields(grant: &Grant) -> [Option<String>; 12] {
    let (owner_kind, owner_account) = match &grant.owner {
        Owner::User(account) => ("user", Some(account.clone())),
        Owner::Platform => ("platform", None),
    };
    [
        Some(grant.id.clone()),
        Some(owner_kind.to_owned()),
        owner_account,
        Some(grant.tool.clone()),
        grant.agent.as_ref().map(|agent| agent.name.clone()),
        Some(grant.agent.as_ref().is_some_and(|agent| agent.self_reported).to_string()),
        grant.constraint.as_ref().map(|c| format!("{}:{}", c.kind.len(), c.kind) + &c.value),
        Some(grant.unattended.to_string()),
        Some(time_text(&grant.created)),
        grant.expires.as_ref().map(time_text),
        grant.revoked.as_ref().map(time_text),
        Some(grant.fingerprint.clone()),
    ]
}

/// The seal `grant` gets with `key` (`None` without one).
fn grant_tag(key: &RowKey, grant: &Grant) -> Option<String> {
    let fields = sealed_fields(grant);
    let fields: Vec<Option<&str>> = fields.iter().map(Option::as_deref).collect();
    key.tag("grant", &fields)
}

impl GrantRow {
    /// The grant and what its seal says.
    fn into_checked(self, path: &Path, key: &RowKey) -> Result<(Grant, Seal), StoreError> {
        let mac = self.mac.clone();
        let grant = self.into_grant(path)?;
        let fields = sealed_fields(&grant);
        let fields: Vec<Option<&str>> = fields.iter().map(Option::as_deref).collect();
        let seal = key.check("grant", &fields, mac.as_deref());
        Ok((grant, seal))
    }

    fn into_grant(self, path: &Path) -> Result<Grant, StoreError> {
        let id = self.id;
        let bad = |detail: String| StoreError::unreadable(path, format!("grant {id}"), detail);
        let owner = match (self.owner_kind.as_str(), self.owner_account) {
            ("user", Some(account)) => Owner::User(account),
            ("platform", None) => Owner::Platform,
            (kind, _) => return Err(bad(format!("its owner {kind:?} is not a user with an account, or the platform"))),
        };
        let constraint = match (self.constraint_kind, self.constraint_value) {
            (Some(kind), Some(value)) => Some(Constraint { kind, value }),
            (None, None) => None,
            _ => return Err(bad("its constraint has a kind without a value, or a value without a kind".into())),
        };
        let time = |name: &str, text: &str| parse_time(text).map_err(|e| bad(format!("its {name} time {text:?}: {e}")));
        let optional_time = |name: &str, text: Option<String>| text.map(|text| time(name, &text)).transpose();
        Ok(Grant {
            owner,
            tool: self.tool,
            agent: self.agent.map(|name| Agent { name, self_reported: self.agent_self_reported != 0 }),
            constraint,
            target_name: self.target_name,
            unattended: self.unattended,
            created: time("created", &self.created)?,
            expires: optional_time("expiry", self.expires)?,
            revoked: optional_time("revoked", self.revoked)?,
            last_used: optional_time("last used", self.last_used)?,
            use_count: u64::try_from(self.use_count).map_err(|e| bad(format!("its use count: {e}")))?,
            fingerprint: self.fingerprint,
            id,
        })
    }
}

/// What [`Store::sync_index`] changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct IndexSync {
    /// Grants revoked elsewhere, taken out of the index.
    pub forgotten: usize,
    /// Grants made elsewhere, added to it.
    pub joined: usize,
}

/// The grants that are not revoked, oldest first, with what their seals say: what the index starts from.
pub(super) async fn load_active(
    pool: &SqlitePool,
    path: &Path,
    key: &RowKey,
) -> Result<Vec<(Grant, Seal)>, StoreError> {
    let rows: Vec<GrantRow> = sqlx::query_as(concat!(
        "SELECT ",
        grant_columns!(),
        " FROM grants WHERE revoked IS NULL ORDER BY created, rowid"
    ))
    .fetch_all(pool)
    .await
    .map_err(StoreError::query(path, "read its grants"))?;
    rows.into_iter().map(|row| row.into_checked(path, key)).collect()
}

/// Seals every grant row that has no seal yet (the rows from before seals, see `seal`).
pub(super) async fn seal_unsealed(
    tx: &mut sqlx::Transaction<'_, sqlx::Sqlite>,
    path: &Path,
    key: &RowKey,
) -> Result<usize, StoreError> {
    let rows: Vec<GrantRow> = sqlx::query_as(concat!("SELECT ", grant_columns!(), " FROM grants WHERE mac IS NULL"))
        .fetch_all(&mut **tx)
        .await
        .map_err(StoreError::query(path, "read its grants"))?;
    let count = rows.len();
    for row in rows {
        let grant = row.into_grant(path)?;
        sqlx::query("UPDATE grants SET mac = ?2 WHERE id = ?1")
            .bind(&grant.id)
            .bind(grant_tag(key, &grant))
            .execute(&mut **tx)
            .await
            .map_err(StoreError::query(path, "seal its grants"))?;
    }
    Ok(count)
}

impl Inner {
    /// The grants of `read` the store honours (see `trust`). Each one refused is recorded as ignored and
    /// logged the first time it is met, so someone planting rows is seen in the log.
    pub(super) fn admit(&self, read: Vec<(Grant, Seal)>, now: DateTime<Utc>) -> Vec<Grant> {
        let mut honoured = Vec::with_capacity(read.len());
        for (grant, seal) in read {
            match refusal(&grant, self.max_days, &seal, now) {
                None => honoured.push(grant),
                Some(reason) => {
                    let mut ignored = self.ignored.write().unwrap_or_else(std::sync::PoisonError::into_inner);
                    if !ignored.contains_key(&grant.id) {
                        let row = IgnoredGrant { id: grant.id.clone(), tool: grant.tool.clone(), reason };
                        tracing::warn!(path = %self.path.display(), "{row}");
                        ignored.insert(grant.id.clone(), row);
                    }
                }
            }
        }
        honoured
    }

    /// The ids of the rows found untrustworthy so far.
    fn ignored_ids(&self) -> Vec<String> {
        self.ignored.read().unwrap_or_else(std::sync::PoisonError::into_inner).keys().cloned().collect()
    }
}

impl Store {
    /// The not-revoked grants for `tool`, from memory: the decision's fast path. Callers re-check every
    /// field (expiry, owner, agent, constraint, fingerprint); the index only narrows by tool.
    pub fn candidates(&self, tool: &str) -> Candidates {
        self.inner.index().candidates(tool)
    }

    /// Saves a new grant; once this returns, `candidates` includes it (unless it is already revoked).
    pub async fn insert_grant(&self, grant: &Grant) -> Result<(), StoreError> {
        let grant = grant.clone();
        // The same rules as for a row read back: a grant the store would ignore is never written (without a
        // key to seal it with, none is).
        let seal = match self.inner.key.unavailable() {
            None => Seal::Verified,
            Some(why) => Seal::Unchecked(why.to_owned()),
        };
        if let Some(reason) = refusal(&grant, self.inner.max_days, &seal, Utc::now()) {
            return Err(StoreError::RefusedGrant {
                path: self.inner.path.display().to_string(),
                id: grant.id.clone(),
                reason,
            });
        }
        self.write(move |inner| async move {
            let (owner_kind, owner_account) = match &grant.owner {
                Owner::User(account) => ("user", Some(account.as_str())),
                Owner::Platform => ("platform", None),
            };
            let use_count = i64::try_from(grant.use_count).unwrap_or(i64::MAX);
            let result = sqlx::query(concat!(
                "INSERT INTO grants (",
                grant_columns!(),
                ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)"
            ))
            .bind(&grant.id)
            .bind(owner_kind)
            .bind(owner_account)
            .bind(&grant.tool)
            .bind(grant.agent.as_ref().map(|agent| agent.name.as_str()))
            .bind(grant.constraint.as_ref().map(|c| c.kind.as_str()))
            .bind(grant.constraint.as_ref().map(|c| c.value.as_str()))
            .bind(grant.unattended)
            .bind(time_text(&grant.created))
            .bind(grant.expires.as_ref().map(time_text))
            .bind(grant.revoked.as_ref().map(time_text))
            .bind(grant.last_used.as_ref().map(time_text))
            .bind(use_count)
            .bind(&grant.fingerprint)
            .bind(i64::from(grant.agent.as_ref().is_some_and(|agent| agent.self_reported)))
            .bind(&grant.target_name)
            .bind(grant_tag(&inner.key, &grant))
            .execute(&inner.pool)
            .await;
            match result {
                Ok(_) => {}
                Err(e) if e.as_database_error().is_some_and(|e| e.is_unique_violation()) => {
                    return Err(StoreError::DuplicateGrant {
                        path: inner.path.display().to_string(),
                        id: grant.id.clone(),
                    });
                }
                Err(e) => return Err(StoreError::query(&inner.path, "save a grant")(e)),
            }
            inner.index_mut().insert(grant);
            Ok(())
        })
        .await
    }

    /// Marks a grant revoked at `at`. Returns `false` if there is no such grant, or it was already revoked.
    /// Once this returns, `candidates` no longer includes it.
    pub async fn revoke_grant(&self, id: &str, at: DateTime<Utc>) -> Result<bool, StoreError> {
        let id = id.to_owned();
        self.write(move |inner| async move {
            // The seal covers the revocation, so it is sealed anew (a row that was not Gatehouse's is sealed as
            // revoked: it then applies even less).
            let row: Option<GrantRow> =
                sqlx::query_as(concat!("SELECT ", grant_columns!(), " FROM grants WHERE id = ?1 AND revoked IS NULL"))
                    .bind(&id)
                    .fetch_optional(&inner.pool)
                    .await
                    .map_err(StoreError::query(&inner.path, "revoke a grant"))?;
            let tag = match row {
                Some(row) => {
                    let mut grant = row.into_grant(&inner.path)?;
                    grant.revoked = Some(at);
                    grant_tag(&inner.key, &grant)
                }
                None => None,
            };
            let done = sqlx::query("UPDATE grants SET revoked = ?2, mac = ?3 WHERE id = ?1 AND revoked IS NULL")
                .bind(&id)
                .bind(time_text(&at))
                .bind(tag)
                .execute(&inner.pool)
                .await
                .map_err(StoreError::query(&inner.path, "revoke a grant"))?;
            // Taken out of the index even when another process revoked it first: that process's revoke
            // changed the database but not this process's memory.
            inner.index_mut().remove(&id);
            Ok(done.rows_affected() > 0)
        })
        .await
    }

    /// Brings this process's index in step with grants other processes (another `gatehouse serve`, the
    /// settings window) wrote in the database since it was loaded: revoked ones leave it, new ones join it.
    /// Each process keeps its own index, so this is how their grants and revokes reach its decisions. The
    /// *never allow* snapshot is read again too, so rules added or removed elsewhere count here as well, and
    /// so are the assistants registered for HTTP, so a token revoked elsewhere is refused here too.
    pub async fn sync_index(&self) -> Result<IndexSync, StoreError> {
        self.write(move |inner| async move {
            if inner.sync_never().await? {
                tracing::info!("never-allow rules added or removed by another Gatehouse process now count here");
            }
            if inner.sync_assistants().await? {
                tracing::info!("assistants added or revoked by another Gatehouse process now count here");
            }
            let indexed = serde_json::Value::from(inner.index().ids()).to_string();
            // Rows already found untrustworthy are not read again at every sync.
            let ignored = serde_json::Value::from(inner.ignored_ids()).to_string();
            let revoked: Vec<String> = sqlx::query_scalar(
                "SELECT id FROM grants WHERE revoked IS NOT NULL AND id IN (SELECT value FROM json_each(?1))",
            )
            .bind(&indexed)
            .fetch_all(&inner.pool)
            .await
            .map_err(StoreError::query(&inner.path, "read which grants were revoked"))?;
            let rows: Vec<GrantRow> = sqlx::query_as(concat!(
                "SELECT ",
                grant_columns!(),
                " FROM grants WHERE revoked IS NULL AND id NOT IN (SELECT value FROM json_each(?1)) \
                 AND id NOT IN (SELECT value FROM json_each(?2)) ORDER BY created, rowid"
            ))
            .bind(&indexed)
            .bind(&ignored)
            .fetch_all(&inner.pool)
            .await
            .map_err(StoreError::query(&inner.path, "read grants made elsewhere"))?;
            let read =
                rows.into_iter().map(|row| row.into_checked(&inner.path, &inner.key)).collect::<Result<Vec<_>, _>>()?;
            let added = inner.admit(read, Utc::now());
            let mut index = inner.index_mut();
            let forgotten = revoked.iter().filter(|id| index.remove(id)).count();
            let joined = added.len();
            for grant in added {
                index.insert(grant);
            }
            Ok(IndexSync { forgotten, joined })
        })
        .await
    }

    /// Records that a grant allowed a call at `at` (last used, one more use). Returns `false` if there is no
    /// such grant. A revoked grant still counts the use: the decision read it before the revoke.
    pub async fn record_use(&self, id: &str, at: DateTime<Utc>) -> Result<bool, StoreError> {
        let id = id.to_owned();
        self.write(move |inner| async move {
            let count: Option<i64> = sqlx::query_scalar(
                "UPDATE grants SET last_used = ?2, use_count = use_count + 1 WHERE id = ?1 RETURNING use_count",
            )
            .bind(&id)
            .bind(time_text(&at))
            .fetch_optional(&inner.pool)
            .await
            .map_err(StoreError::query(&inner.path, "record a grant's use"))?;
            let Some(count) = count else { return Ok(false) };
            let count = u64::try_from(count).unwrap_or(0);
            inner.index_mut().update(&id, |grant| {
                grant.last_used = Some(at);
                grant.use_count = count;
            });
            Ok(true)
        })
        .await
    }

    /// Every grant, revoked ones too, newest first (from the database, not the index).
    pub async fn list_grants(&self) -> Result<Vec<Grant>, StoreError> {
        let inner = &self.inner;
        let rows: Vec<GrantRow> =
            sqlx::query_as(concat!("SELECT ", grant_columns!(), " FROM grants ORDER BY created DESC, rowid DESC"))
                .fetch_all(&inner.pool)
                .await
                .map_err(StoreError::query(&inner.path, "list its grants"))?;
        // Each row not revoked is judged as the index would judge it (a row planted since the last sync too);
        // revoked ones apply to nothing and are listed as history.
        let now = Utc::now();
        let mut listed = Vec::with_capacity(rows.len());
        for row in rows {
            let (grant, seal) = row.into_checked(&inner.path, &inner.key)?;
            if grant.revoked.is_some() || !inner.admit(vec![(grant.clone(), seal)], now).is_empty() {
                listed.push(grant);
            }
        }
        Ok(listed)
    }

    /// The grant rows the store holds but does not honour, and why (see `trust`): the database is read again,
    /// so rows written since the last sync are included. `gatehouse grants` and `audit verify` say them.
    pub async fn ignored_grants(&self) -> Result<Vec<IgnoredGrant>, StoreError> {
        let inner = &self.inner;
        let rows: Vec<GrantRow> = sqlx::query_as(concat!(
            "SELECT ",
            grant_columns!(),
            " FROM grants WHERE revoked IS NULL ORDER BY created, rowid"
        ))
        .fetch_all(&inner.pool)
        .await
        .map_err(StoreError::query(&inner.path, "read its grants"))?;
        let grants =
            rows.into_iter().map(|row| row.into_checked(&inner.path, &inner.key)).collect::<Result<Vec<_>, _>>()?;
        let ids: Vec<String> = grants.iter().map(|(grant, _)| grant.id.clone()).collect();
        inner.admit(grants, Utc::now());
        let ignored = inner.ignored.read().unwrap_or_else(std::sync::PoisonError::into_inner);
        Ok(ids.iter().filter_map(|id| ignored.get(id).cloned()).collect())
    }

    /// One grant by id, revoked or not (from the database).
    pub async fn get_grant(&self, id: &str) -> Result<Option<Grant>, StoreError> {
        let inner = &self.inner;
        let row: Option<GrantRow> = sqlx::query_as(concat!("SELECT ", grant_columns!(), " FROM grants WHERE id = ?1"))
            .bind(id)
            .fetch_optional(&inner.pool)
            .await
            .map_err(StoreError::query(&inner.path, "read a grant"))?;
        row.map(|row| row.into_grant(&inner.path)).transpose()
    }
}
