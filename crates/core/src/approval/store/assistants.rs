//! Assistants registered for HTTP, each with its own bearer token: calls made with a token are attributed to
//! the name bound to it, and are unattended when it was registered as an automation (docs/approvals.md, "Agent").
//!
//! Only the SHA-256 of a token is kept; the token is returned once, by [`Store::add_assistant`]. Every
//! request looks its token up in memory ([`Store::assistant_for_token`]), never on the disk. Like the grant
//! index, that snapshot changes only after the database has committed the same change (one writer at a
//! time), and [`Store::sync_index`] brings in assistants other processes added or revoked.

use std::path::Path;
use std::sync::{Arc, PoisonError};

use base64::Engine as _;
use chrono::{DateTime, TimeDelta, Utc};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use sqlx::SqlitePool;

use super::chain::{parse_time, time_text};
use super::{Inner, Store, StoreError};
use crate::approval::model::{AgentNameError, check_agent_name};

/// The longest name an assistant may have, in characters: it is shown on every card.
pub const MAX_ASSISTANT_NAME: usize = crate::approval::model::MAX_AGENT_NAME;

/// A use is written to the database at most this often per assistant: a request is not worth a disk write,
/// and "last used" to the minute is what the list needs.
const USE_RECORDED_EVERY: TimeDelta = TimeDelta::seconds(60);

/// An assistant registered for HTTP.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Assistant {
    /// A random id (UUID v4 text), shown to the person and usable to revoke.
    pub id: String,
    /// The agent its calls are attributed to (cards, grants, the audit log). Unique among active assistants.
    pub name: String,
    /// A person chats through it; `false` = an automation: never asked, only unattended grants cover it.
    pub interactive: bool,
    pub created: DateTime<Utc>,
    /// The last request made with its token (recorded to the minute).
    pub last_used: Option<DateTime<Utc>>,
    pub revoked: Option<DateTime<Utc>>,
    /// The tools it is offered, as a [`ToolSelection`](crate::tools::sets::ToolSelection) comma list of set
    /// and tool names (`sheets,drive-read`); `None`: every enabled tool.
    #[serde(default)]
    pub tools: Option<String>,
}

impl Assistant {
    /// Whether a request at `at` is worth recording with [`Store::record_assistant_use`]: answered from
    /// memory, so a request need not wait on the disk to find out.
    pub fn use_worth_recording(&self, at: DateTime<Utc>) -> bool {
        self.last_used.is_none_or(|last| at - last >= USE_RECORDED_EVERY)
    }
}

/// A newly added assistant and its token: the only time the token exists outside the client it is given to.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NewAssistant {
    pub assistant: Assistant,
    /// 32 random bytes, base64url without padding.
    pub token: String,
}

impl std::fmt::Debug for NewAssistant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Kept out of logs and panics: it is a password.
        f.debug_struct("NewAssistant").field("assistant", &self.assistant).field("token", &"<redacted>").finish()
    }
}

/// What a presented token belongs to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TokenMatch {
    /// An active assistant's token.
    Active(Arc<Assistant>),
    /// The token of an assistant that was revoked: refused, saying so.
    Revoked(Arc<Assistant>),
    /// No assistant's token.
    Unknown,
}

/// An assistant as requests look it up: its token's hash and the assistant.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Known {
    hash: [u8; 32],
    assistant: Arc<Assistant>,
}

/// Every assistant, revoked ones too (so their tokens are refused by name): an immutable snapshot, swapped
/// whole, so a write never disturbs a request that is reading it.
pub(super) type AssistantSnapshot = Arc<[Known]>;

/// The SHA-256 of a token.
pub fn token_hash(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

fn unhex(text: &str) -> Option<[u8; 32]> {
    let mut out = [0u8; 32];
    if text.len() != 64 || !text.is_ascii() {
        return None;
    }
    for (i, byte) in out.iter_mut().enumerate() {
        *byte = u8::from_str_radix(&text[2 * i..2 * i + 2], 16).ok()?;
    }
    Some(out)
}

/// Compares without leaking, through timing, how much matched.
fn same_hash(a: &[u8; 32], b: &[u8; 32]) -> bool {
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// The name as it will be stored (trimmed), or why it can't be one: the rule every agent name follows
/// ([`check_agent_name`]).
pub fn check_assistant_name(name: &str) -> Result<String, StoreError> {
    let invalid = |reason: &'static str| StoreError::AssistantName { name: name.to_owned(), reason };
    match check_agent_name(name) {
        Ok(trimmed) => Ok(trimmed.to_owned()),
        Err(AgentNameError::Empty) => Err(invalid("it is empty")),
        Err(AgentNameError::TooLong) => Err(invalid("it is longer than 64 characters")),
        Err(AgentNameError::Control) => Err(invalid("it contains a control character (a line break, a tab)")),
        Err(AgentNameError::Invisible) => {
            Err(invalid("it contains an invisible character that changes how text reads (a direction mark)"))
        }
    }
}

/// The columns of `assistants` in `AssistantRow` order, as a literal so queries stay `&'static str`.
macro_rules! assistant_columns {
    () => {
        "id, name, token_hash, interactive, created, last_used, revoked, tool_set"
    };
}

/// A row of `assistants` as stored.
#[derive(sqlx::FromRow)]
struct AssistantRow {
    id: String,
    name: String,
    token_hash: String,
    interactive: bool,
    created: String,
    last_used: Option<String>,
    revoked: Option<String>,
    tool_set: Option<String>,
}

impl AssistantRow {
    fn into_known(self, path: &Path) -> Result<Known, StoreError> {
        let id = self.id;
        let bad = |detail: String| StoreError::unreadable(path, format!("assistant {id}"), detail);
        let hash = unhex(&self.token_hash).ok_or_else(|| bad("its token hash is not 64 hex digits".into()))?;
        let time = |name: &str, text: &str| parse_time(text).map_err(|e| bad(format!("its {name} time {text:?}: {e}")));
        let optional_time = |name: &str, text: Option<String>| text.map(|text| time(name, &text)).transpose();
        let assistant = Assistant {
            name: self.name,
            interactive: self.interactive,
            created: time("created", &self.created)?,
            last_used: optional_time("last used", self.last_used)?,
            revoked: optional_time("revoked", self.revoked)?,
            tools: self.tool_set,
            id,
        };
        Ok(Known { hash, assistant: Arc::new(assistant) })
    }
}

/// Every assistant, oldest first: what the snapshot holds.
pub(super) async fn load_all(pool: &SqlitePool, path: &Path) -> Result<AssistantSnapshot, StoreError> {
    let rows: Vec<AssistantRow> =
        sqlx::query_as(concat!("SELECT ", assistant_columns!(), " FROM assistants ORDER BY created, rowid"))
            .fetch_all(pool)
            .await
            .map_err(StoreError::query(path, "read its assistants"))?;
    rows.into_iter().map(|row| row.into_known(path)).collect()
}

impl Inner {
    fn assistants(&self) -> AssistantSnapshot {
        // Whole snapshots are swapped, so a panic elsewhere while the lock was held leaves nothing half-changed.
        self.assistants.read().unwrap_or_else(PoisonError::into_inner).clone()
    }

    fn set_assistants(&self, next: AssistantSnapshot) {
        *self.assistants.write().unwrap_or_else(PoisonError::into_inner) = next;
    }

    /// The snapshot with one assistant replaced by `change` of it.
    fn change_assistant(&self, id: &str, change: impl FnOnce(&mut Assistant)) {
        let current = self.assistants();
        let Some(position) = current.iter().position(|known| known.assistant.id == id) else { return };
        let mut changed = (*current[position].assistant).clone();
        change(&mut changed);
        let next: AssistantSnapshot = current
            .iter()
            .enumerate()
            .map(|(i, known)| Known {
                hash: known.hash,
                assistant: if i == position { Arc::new(changed.clone()) } else { Arc::clone(&known.assistant) },
            })
            .collect();
        self.set_assistants(next);
    }

    /// Reads the assistants other processes added, revoked or used into the snapshot. Returns whether the
    /// set of active assistants changed (a use alone is not worth a log line).
    pub(super) async fn sync_assistants(&self) -> Result<bool, StoreError> {
        let fresh = load_all(&self.pool, &self.path).await?;
        let current = self.assistants();
        if *fresh == *current {
            return Ok(false);
        }
        let active = |snapshot: &[Known]| -> Vec<String> {
            snapshot.iter().filter(|known| known.assistant.revoked.is_none()).map(|k| k.assistant.id.clone()).collect()
        };
        let changed = active(&fresh) != active(&current);
        self.set_assistants(fresh);
        Ok(changed)
    }
}

impl Store {
    /// The assistant `token` belongs to, from memory: every HTTP request asks this. Each hash is compared in
    /// constant time and every one is compared, so timing tells nothing about which matched or how closely.
    pub fn assistant_for_token(&self, token: &str) -> TokenMatch {
        let presented = token_hash(token);
        let snapshot = self.inner.assistants();
        let mut found = None;
        for known in snapshot.iter() {
            if same_hash(&known.hash, &presented) {
                found = Some(Arc::clone(&known.assistant));
            }
        }
        match found {
            Some(assistant) if assistant.revoked.is_none() => TokenMatch::Active(assistant),
            Some(assistant) => TokenMatch::Revoked(assistant),
            None => TokenMatch::Unknown,
        }
    }

    /// Whether `name` is an active registered assistant's (ignoring ASCII case, as registration does), from
    /// memory: a client that names itself so over stdio is refused, since the name is that assistant's.
    pub fn is_registered_name(&self, name: &str) -> bool {
        let name = name.trim();
        self.inner
            .assistants()
            .iter()
            .any(|known| known.assistant.revoked.is_none() && known.assistant.name.eq_ignore_ascii_case(name))
    }

    /// Registers an assistant named `name` (trimmed; unique among active ones, ignoring ASCII case) and
    /// returns it with its token. Only the token's hash is saved: this is the one time the token is known.
    /// Once this returns, [`Store::assistant_for_token`] knows it.
    pub async fn add_assistant(
        &self,
        name: &str,
        interactive: bool,
        at: DateTime<Utc>,
    ) -> Result<NewAssistant, StoreError> {
        let name = check_assistant_name(name)?;
        let token = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(rand::random::<[u8; 32]>());
        let hash = token_hash(&token);
        let assistant = Assistant {
            id: uuid::Uuid::new_v4().to_string(),
            name,
            interactive,
            created: at,
            last_used: None,
            revoked: None,
            tools: None,
        };
        let added = assistant.clone();
        self.write(move |inner| async move {
            let result = sqlx::query(concat!(
                "INSERT INTO assistants (",
                assistant_columns!(),
                ") VALUES (?1, ?2, ?3, ?4, ?5, NULL, NULL, NULL)"
            ))
            .bind(&assistant.id)
            .bind(&assistant.name)
            .bind(hex(&hash))
            .bind(assistant.interactive)
            .bind(time_text(&assistant.created))
            .execute(&inner.pool)
            .await;
            match result {
                Ok(_) => {}
                // The token is 256 random bits, so a clash is the name's.
                Err(e) if e.as_database_error().is_some_and(|e| e.is_unique_violation()) => {
                    return Err(StoreError::DuplicateAssistant {
                        path: inner.path.display().to_string(),
                        name: assistant.name.clone(),
                    });
                }
                Err(e) => return Err(StoreError::query(&inner.path, "save an assistant")(e)),
            }
            let known = Known { hash, assistant: Arc::new(assistant) };
            let next: AssistantSnapshot = inner
                .assistants()
                .iter()
                .map(|k| Known { hash: k.hash, assistant: Arc::clone(&k.assistant) })
                .chain(std::iter::once(known))
                .collect();
            inner.set_assistants(next);
            Ok(())
        })
        .await?;
        Ok(NewAssistant { assistant: added, token })
    }

    /// Marks an assistant revoked at `at`: its token is refused from the next request on. Returns `false` if
    /// there is no such assistant, or it was already revoked.
    pub async fn revoke_assistant(&self, id: &str, at: DateTime<Utc>) -> Result<bool, StoreError> {
        let id = id.to_owned();
        self.write(move |inner| async move {
            let done = sqlx::query("UPDATE assistants SET revoked = ?2 WHERE id = ?1 AND revoked IS NULL")
                .bind(&id)
                .bind(time_text(&at))
                .execute(&inner.pool)
                .await
                .map_err(StoreError::query(&inner.path, "revoke an assistant"))?;
            // Marked in memory even when another process revoked it first: that process changed the database
            // but not this process's memory. The time is the database's.
            let revoked: Option<String> = sqlx::query_scalar("SELECT revoked FROM assistants WHERE id = ?1")
                .bind(&id)
                .fetch_optional(&inner.pool)
                .await
                .map_err(StoreError::query(&inner.path, "read an assistant"))?
                .flatten();
            if let Some(text) = revoked {
                let when =
                    parse_time(&text).map_err(|e| StoreError::unreadable(&inner.path, format!("assistant {id}"), e))?;
                inner.change_assistant(&id, |assistant| assistant.revoked = Some(when));
            }
            Ok(done.rows_affected() > 0)
        })
        .await
    }

    /// Offers assistant `id` only the tools of the selection `tools` (a checked `ToolSelection`'s spec, as
    /// `ops` passes it; `None`: every enabled tool), from its next request on. Returns `false` if there is no
    /// such active assistant.
    pub async fn set_assistant_tools(&self, id: &str, tools: Option<&str>) -> Result<bool, StoreError> {
        let (id, spec) = (id.to_owned(), tools.map(str::to_owned));
        self.write(move |inner| async move {
            let done = sqlx::query("UPDATE assistants SET tool_set = ?2 WHERE id = ?1 AND revoked IS NULL")
                .bind(&id)
                .bind(&spec)
                .execute(&inner.pool)
                .await
                .map_err(StoreError::query(&inner.path, "change an assistant's tools"))?;
            if done.rows_affected() == 0 {
                return Ok(false);
            }
            inner.change_assistant(&id, |assistant| assistant.tools = spec);
            Ok(true)
        })
        .await
    }

    /// Records that assistant `id` made a request at `at`, unless a use within the last minute was already
    /// recorded. Returns whether it wrote.
    pub async fn record_assistant_use(&self, id: &str, at: DateTime<Utc>) -> Result<bool, StoreError> {
        let id = id.to_owned();
        self.write(move |inner| async move {
            let recent = inner.assistants().iter().any(|known| {
                known.assistant.id == id && known.assistant.last_used.is_some_and(|last| at - last < USE_RECORDED_EVERY)
            });
            if recent {
                return Ok(false);
            }
            let done = sqlx::query(
                "UPDATE assistants SET last_used = ?2 WHERE id = ?1 AND (last_used IS NULL OR last_used < ?2)",
            )
            .bind(&id)
            .bind(time_text(&at))
            .execute(&inner.pool)
            .await
            .map_err(StoreError::query(&inner.path, "record an assistant's use"))?;
            if done.rows_affected() == 0 {
                return Ok(false);
            }
            inner.change_assistant(&id, |assistant| assistant.last_used = Some(at));
            Ok(true)
        })
        .await
    }

    /// Every assistant, revoked ones too, newest first (from the database, not the snapshot).
    pub async fn list_assistants(&self) -> Result<Vec<Assistant>, StoreError> {
        let inner = &self.inner;
        let rows: Vec<AssistantRow> = sqlx::query_as(concat!(
            "SELECT ",
            assistant_columns!(),
            " FROM assistants ORDER BY created DESC, rowid DESC"
        ))
        .fetch_all(&inner.pool)
        .await
        .map_err(StoreError::query(&inner.path, "list its assistants"))?;
        rows.into_iter().map(|row| row.into_known(&inner.path).map(|known| (*known.assistant).clone())).collect()
    }

    /// One assistant by id, revoked or not (from the database).
    pub async fn get_assistant(&self, id: &str) -> Result<Option<Assistant>, StoreError> {
        let inner = &self.inner;
        let row: Option<AssistantRow> =
            sqlx::query_as(concat!("SELECT ", assistant_columns!(), " FROM assistants WHERE id = ?1"))
                .bind(id)
                .fetch_optional(&inner.pool)
                .await
                .map_err(StoreError::query(&inner.path, "read an assistant"))?;
        row.map(|row| row.into_known(&inner.path).map(|known| (*known.assistant).clone())).transpose()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_round_trip_through_hex() {
        let hash = token_hash("a token");
        assert_eq!(unhex(&hex(&hash)), Some(hash));
        assert_eq!(unhex("zz"), None);
        assert!(same_hash(&hash, &token_hash("a token")));
        assert!(!same_hash(&hash, &token_hash("another")));
    }

    #[test]
    fn names_are_trimmed_and_checked() {
        assert_eq!(check_assistant_name("  nightly ").unwrap(), "nightly");
        for bad in ["", "   ", "two\nlines", &"x".repeat(65)] {
            assert!(matches!(check_assistant_name(bad), Err(StoreError::AssistantName { .. })), "{bad:?}");
        }
        assert!(check_assistant_name(&"é".repeat(64)).is_ok());
    }
}
