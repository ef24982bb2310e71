//! The key that tells the rows Gatehouse wrote from rows written by anything else (issue 15, item 2). The
//! database is a file of this OS user, so any of their programs can write to it: an assistant's shell with
//! `sqlite3` could plant a grant, take back a *never allow* removal, turn on *Answer from a terminal*, or
//! rewrite the audit chain and its head to match. So each row that decides something carries a tag, an
//! HMAC-SHA256 of its deciding columns under a 256-bit key kept in the OS keychain (where the sign-in
//! tokens are, see [`crate::auth::keychain`]), never on disk: a program that can write the file but not read
//! the keychain can't make a tag that verifies.
//!
//! - **First start.** The key is made (random) the first time a store under a Gatehouse folder is opened, and
//!   kept in the keychain under the service `gatehouse:<folder>`, entry [`KEY_ENTRY`], with the list of
//!   databases whose older rows were already sealed.
//! - **Rows from before this** (no tag): sealed once, the first time each database is opened with the key
//!   (the rows there then are taken as Gatehouse's own; the database is noted in the keychain first, so a
//!   row planted later is never sealed by a later start). From then on a row without a tag is not
//!   Gatehouse's.
//! - **No keychain** (locked, no Secret Service, no session bus, a headless server): the store opens, but
//!   nothing can be verified or sealed. Fail closed: no grant in the database is honoured and none can be
//!   made (every change is asked about on a card), a *never allow* rule stays in force whatever the file says
//!   about its removal, *Answer from a terminal* is off, and `audit verify` says the log's end is unsealed.
//!   `gatehouse status` says so, and why.
//!
//! Which rows count given their tag is `trust`'s rule (grants) and each table's loader's (never-allow rules,
//! settings, the audit head); this module only makes and checks tags.

use std::path::Path;
use std::sync::Arc;

use hmac::{Hmac, KeyInit, Mac};
use rand::RngCore;
use serde::{Deserialize, Serialize};
use sha2::Sha256;

use crate::auth::keychain::{self, TokenStore};

/// The keychain entry (under the folder's service) that holds the key.
pub const KEY_ENTRY: &str = "approvals-key";

/// Where a store's key comes from.
#[derive(Clone)]
pub enum KeySource {
    /// The OS keychain, under the service of the database's folder (what every Gatehouse process uses).
    Keychain,
    /// A key given by the caller: for tests and benchmarks, which have no keychain of their own. A host never
    /// uses it (a program that knows the key could seal rows anyway).
    Given([u8; 32]),
}

impl std::fmt::Debug for KeySource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            KeySource::Keychain => f.write_str("Keychain"),
            KeySource::Given(_) => f.write_str("Given(…)"),
        }
    }
}

/// The key a store seals and checks its rows with, or why there is none.
#[derive(Clone)]
pub enum RowKey {
    Key(Arc<[u8; 32]>),
    /// The keychain could not be used: why, in words that say what to do.
    Unavailable(String),
}

impl std::fmt::Debug for RowKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RowKey::Key(_) => f.write_str("Key(…)"),
            RowKey::Unavailable(why) => f.debug_tuple("Unavailable").field(why).finish(),
        }
    }
}

/// What a row's tag says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Seal {
    /// Written by Gatehouse with this key.
    Verified,
    /// Missing or wrong: written or changed by something else.
    Wrong,
    /// No key to check it with: why.
    Unchecked(String),
}

impl Seal {
    pub fn verified(&self) -> bool {
        matches!(self, Seal::Verified)
    }

    /// Why a row that is not verified is not honoured, in words (`None` when it is verified).
    pub fn problem(&self) -> Option<String> {
        match self {
            Seal::Verified => None,
            Seal::Wrong => Some(
                "its seal is missing or wrong: it was written or changed by something other than Gatehouse".to_owned(),
            ),
            Seal::Unchecked(why) => Some(format!("Gatehouse can't check its seal without the keychain ({why})")),
        }
    }
}

/// The fields a tag covers, in order: each written with its length, so no two lists give the same bytes.
pub(super) type Fields<'a> = &'a [Option<&'a str>];

impl RowKey {
    /// The tag of a row of kind `kind` ("grant", "never", "setting", "audit_head") with these fields, as 64
    /// hex digits; `None` without a key (the row is then written unsealed).
    pub(super) fn tag(&self, kind: &str, fields: Fields<'_>) -> Option<String> {
        let RowKey::Key(key) = self else { return None };
        let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(key.as_slice()).ok()?;
        mac.update(&framed(kind, fields));
        Some(mac.finalize().into_bytes().iter().map(|byte| format!("{byte:02x}")).collect())
    }

    /// Whether `tag` (as stored) is the tag of these fields.
    pub(super) fn check(&self, kind: &str, fields: Fields<'_>, tag: Option<&str>) -> Seal {
        let key = match self {
            RowKey::Key(key) => key,
            RowKey::Unavailable(why) => return Seal::Unchecked(why.clone()),
        };
        let Some(tag) = tag.and_then(from_hex) else { return Seal::Wrong };
        let Ok(mut mac) = <Hmac<Sha256> as KeyInit>::new_from_slice(key.as_slice()) else { return Seal::Wrong };
        mac.update(&framed(kind, fields));
        // Compared in constant time.
        match mac.verify_slice(&tag) {
            Ok(()) => Seal::Verified,
            Err(_) => Seal::Wrong,
        }
    }

    /// Why there is no key, when there is none.
    pub fn unavailable(&self) -> Option<&str> {
        match self {
            RowKey::Key(_) => None,
            RowKey::Unavailable(why) => Some(why),
        }
    }
}

fn framed(kind: &str, fields: Fields<'_>) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(64 + fields.len() * 16);
    bytes.extend_from_slice(format!("gatehouse-row-v1:{}:{kind};", kind.len()).as_bytes());
    for field in fields {
        match field {
            Some(text) => bytes.extend_from_slice(format!("{}:{text};", text.len()).as_bytes()),
            None => bytes.extend_from_slice(b"-;"),
        }
    }
    bytes
}

fn from_hex(text: &str) -> Option<Vec<u8>> {
    if text.len() != 64 || !text.is_ascii() {
        return None;
    }
    (0..32).map(|i| u8::from_str_radix(text.get(i * 2..i * 2 + 2)?, 16).ok()).collect()
}

/// What the keychain entry holds.
#[derive(Serialize, Deserialize)]
struct KeyEntry {
    /// 64 hex digits.
    key: String,
    /// The databases (full paths) whose rows from before sealing were sealed once; a database not listed
    /// is sealed when next opened.
    #[serde(default)]
    sealed: Vec<String>,
}

/// The key for the database at `database` (a full path), and whether its older rows still need sealing
/// (then they must be sealed now: the keychain already lists it as sealed, so they never will be again).
pub(super) async fn load(source: &KeySource, database: &Path) -> (RowKey, bool) {
    match source {
        // A given key is taken as already known to every database: rows without a seal are never sealed
        // with it (the first-start sealing is the keychain's, tested with a real one).
        KeySource::Given(key) => (RowKey::Key(Arc::new(*key)), false),
        KeySource::Keychain => {
            let folder = database.parent().unwrap_or(database).to_owned();
            let service = TokenStore::service_for_home(&folder);
            let name = database.display().to_string();
            let loaded = tokio::task::spawn_blocking(move || keychain::with_lock(|| load_blocking(&service, &name)))
                .await
                .map_err(|e| e.to_string());
            match loaded {
                Ok(Ok((key, first))) => (RowKey::Key(Arc::new(key)), first),
                Ok(Err(error)) => (RowKey::Unavailable(error.to_string()), false),
                Err(error) => (RowKey::Unavailable(format!("the keychain task stopped ({error})")), false),
            }
        }
    }
}

fn load_blocking(service: &str, database: &str) -> Result<([u8; 32], bool), keychain::StoreError> {
    let entry = match keychain::keychain_get(service, KEY_ENTRY)? {
        Some(text) => serde_json::from_str::<KeyEntry>(&text).map_err(|e| keychain::StoreError::Corrupt {
            store: format!("the keychain entry {KEY_ENTRY} of service \"{service}\""),
            detail: e.to_string(),
        })?,
        None => {
            let mut key = [0u8; 32];
            rand::rng().fill_bytes(&mut key);
            KeyEntry { key: key.iter().map(|byte| format!("{byte:02x}")).collect(), sealed: Vec::new() }
        }
    };
    let key: [u8; 32] =
        from_hex(&entry.key).and_then(|bytes| bytes.try_into().ok()).ok_or_else(|| keychain::StoreError::Corrupt {
            store: format!("the keychain entry {KEY_ENTRY} of service \"{service}\""),
            detail: "its key is not 64 hex digits".to_owned(),
        })?;
    let first = !entry.sealed.iter().any(|sealed| sealed == database);
    if first {
        let mut entry = entry;
        entry.sealed.push(database.to_owned());
        let text =
            serde_json::to_string(&entry).map_err(|e| keychain::StoreError::Unavailable { detail: e.to_string() })?;
        keychain::keychain_set(service, KEY_ENTRY, &text)?;
        // Two processes starting at once could each make a key: the one the keychain kept is the key.
        let kept = keychain::keychain_get(service, KEY_ENTRY)?
            .and_then(|text| serde_json::from_str::<KeyEntry>(&text).ok())
            .and_then(|kept| from_hex(&kept.key))
            .and_then(|bytes| <[u8; 32]>::try_from(bytes).ok());
        return Ok((kept.unwrap_or(key), true));
    }
    Ok((key, false))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tag_verifies_only_for_its_own_fields_and_key() {
        let key = RowKey::Key(Arc::new([7; 32]));
        let other = RowKey::Key(Arc::new([8; 32]));
        let fields: Fields<'_> = &[Some("g1"), None, Some("update_cells")];
        let tag = key.tag("grant", fields).unwrap();
        assert_eq!(key.check("grant", fields, Some(&tag)), Seal::Verified);
        assert_eq!(other.check("grant", fields, Some(&tag)), Seal::Wrong, "another key");
        assert_eq!(key.check("never", fields, Some(&tag)), Seal::Wrong, "another kind of row");
        assert_eq!(key.check("grant", &[Some("g1"), Some(""), Some("update_cells")], Some(&tag)), Seal::Wrong);
        // Fields can't be shifted into one another.
        assert_ne!(key.tag("grant", &[Some("ab"), Some("c")]), key.tag("grant", &[Some("a"), Some("bc")]));
        assert_eq!(key.check("grant", fields, None), Seal::Wrong, "no tag");
        assert_eq!(key.check("grant", fields, Some("zz")), Seal::Wrong, "not hex");
        let none = RowKey::Unavailable("locked".into());
        assert_eq!(none.tag("grant", fields), None);
        assert!(matches!(none.check("grant", fields, Some(&tag)), Seal::Unchecked(_)));
    }
}
