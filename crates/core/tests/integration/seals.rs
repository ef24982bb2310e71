//! Issue 15, item 2: the key that seals the approvals store's rows lives in the real OS keychain (the Secret
//! Service that scripts/test.sh starts: gnome-keyring under dbus-run-session). Like the other keychain tests,
//! a run without one says so and is skipped unless `GATEHOUSE_REQUIRE_KEYCHAIN=1` (then it fails).

use std::path::Path;

use chrono::{TimeDelta, Utc};
use gatehouse_core::approval::store::{DATABASE_FILE, KEY_ENTRY, Store};
use gatehouse_core::auth::TokenStore;
use sqlx::sqlite::SqliteConnectOptions;
use sqlx::{ConnectOptions, Connection};

use crate::auth_common::keychain_store;

/// A person's grant row without a seal, as a Gatehouse from before seals wrote it (or another program).
async fn unsealed_grant(path: &Path, id: &str) {
    let mut db = SqliteConnectOptions::new().filename(path).connect().await.unwrap();
    let now = Utc::now();
    let text = |time: chrono::DateTime<Utc>| time.to_rfc3339_opts(chrono::SecondsFormat::Nanos, true);
    sqlx::query(
        "INSERT INTO grants (id, owner_kind, owner_account, tool, agent, constraint_kind, constraint_value, \
         unattended, created, expires, revoked, last_used, use_count, fingerprint) \
         VALUES (?1, 'user', 'ada@example.com', 'update_cells', NULL, NULL, NULL, 0, ?2, ?3, NULL, NULL, 0, 'f')",
    )
    .bind(id)
    .bind(text(now))
    .bind(text(now + TimeDelta::days(7)))
    .execute(&mut db)
    .await
    .unwrap();
    db.close().await.unwrap();
}

fn ids(store: &Store) -> Vec<String> {
    store.candidates("update_cells").iter().map(|grant| grant.id.clone()).collect()
}

#[tokio::test]
async fn rows_from_before_seals_are_sealed_once_and_a_row_planted_later_is_not() {
    let home = tempfile::tempdir().unwrap();
    if keychain_store(home.path()).await.is_none() {
        return;
    }
    let path = home.path().join(DATABASE_FILE);
    // A database from before seals: its tables, and a grant with no seal.
    crate::support::open_store(&path).await.unwrap().close().await;
    unsealed_grant(&path, "from-before").await;

    // First opened with the keychain's key: the key is made and the older row sealed, once.
    let store = Store::open(&path).await.unwrap();
    assert_eq!(store.key_unavailable(), None, "the keychain is reachable");
    assert_eq!(ids(&store), ["from-before"], "the row from before seals is the person's");
    // A grant made now is sealed with the keychain's key, and honoured after a restart.
    let mut made = store.list_grants().await.unwrap().remove(0);
    made.id = "made-now".into();
    store.insert_grant(&made).await.unwrap();
    store.close().await;

    // A row planted after that first start is never sealed by a later one.
    unsealed_grant(&path, "planted-later").await;
    let store = Store::open(&path).await.unwrap();
    assert_eq!(ids(&store), ["from-before", "made-now"], "the planted row is ignored");
    let report = store.seal_report().await.unwrap();
    assert!(report.iter().any(|line| line.contains("planted-later") && line.contains("seal")), "{report:?}");
    store.close().await;

    // The key is the keychain's, not the test's: the store sealed with the test key doesn't verify them.
    let other = crate::support::open_store(&path).await.unwrap();
    assert!(ids(&other).is_empty(), "another key verifies none of them");
    other.close().await;

    let service = TokenStore::service_for_home(&std::fs::canonicalize(home.path()).unwrap());
    let entry = keyring::Entry::new(&service, KEY_ENTRY).unwrap();
    assert!(entry.get_password().unwrap().contains(&std::fs::canonicalize(&path).unwrap().display().to_string()));
    entry.delete_credential().unwrap();
}
