//! Assistants registered for HTTP, against real SQLite files: a token is told once and only its hash is
//! kept, names are unique among active assistants, a revoke is refused from the next lookup on, uses are
//! recorded to the minute, and a second process (a second open store) follows adds and revokes through
//! `sync_index`.

use chrono::{DateTime, TimeDelta, TimeZone, Utc};
use gatehouse_core::approval::store::{Store, StoreError, TokenMatch, token_hash};
use sqlx::sqlite::SqliteConnectOptions;
use sqlx::{ConnectOptions, Connection, Row};

fn at(seconds: i64) -> DateTime<Utc> {
    Utc.timestamp_opt(1_800_000_000 + seconds, 0).unwrap()
}

async fn open(dir: &tempfile::TempDir) -> Store {
    crate::support::open_store(&dir.path().join("gatehouse.db")).await.unwrap()
}

fn active_name(found: TokenMatch) -> Option<(String, bool)> {
    match found {
        TokenMatch::Active(assistant) => Some((assistant.name.clone(), assistant.interactive)),
        _ => None,
    }
}

#[tokio::test]
async fn an_assistant_round_trips_and_only_its_tokens_hash_is_kept() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(&dir).await;
    let added = store.add_assistant("  nightly-report ", false, at(0)).await.unwrap();
    assert_eq!(added.assistant.name, "nightly-report", "the name is trimmed");
    assert!(!added.assistant.interactive);
    assert_eq!((added.assistant.created, added.assistant.last_used, added.assistant.revoked), (at(0), None, None));
    // 32 random bytes, base64url without padding.
    assert_eq!(added.token.len(), 43, "{}", added.token);
    assert!(added.token.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_'));
    assert!(!format!("{added:?}").contains(&added.token), "the token stays out of Debug output");

    let chat = store.add_assistant("chat", true, at(5)).await.unwrap();
    assert_ne!(chat.token, added.token);
    let listed = store.list_assistants().await.unwrap();
    assert_eq!(listed, vec![chat.assistant.clone(), added.assistant.clone()], "newest first");
    assert_eq!(store.get_assistant(&added.assistant.id).await.unwrap(), Some(added.assistant.clone()));
    assert_eq!(store.get_assistant("nope").await.unwrap(), None);
    assert_eq!(active_name(store.assistant_for_token(&added.token)), Some(("nightly-report".into(), false)));
    assert_eq!(active_name(store.assistant_for_token(&chat.token)), Some(("chat".into(), true)));
    assert_eq!(store.assistant_for_token("someone else's"), TokenMatch::Unknown);

    // The database holds the SHA-256 of the token, never the token.
    let mut connection = SqliteConnectOptions::new().filename(store.path()).read_only(true).connect().await.unwrap();
    let row = sqlx::query("SELECT token_hash, tool_set FROM assistants WHERE id = ?1")
        .bind(&added.assistant.id)
        .fetch_one(&mut connection)
        .await
        .unwrap();
    let hash: String = row.get(0);
    let expected: String = token_hash(&added.token).iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(hash, expected);
    assert_eq!(row.get::<Option<String>, _>(1), None, "no tool set yet");
    connection.close().await.unwrap();
    store.close().await;
    for file in std::fs::read_dir(dir.path()).unwrap() {
        let bytes = std::fs::read(file.unwrap().path()).unwrap();
        assert!(!bytes.windows(added.token.len()).any(|w| w == added.token.as_bytes()), "a token on disk");
    }

    // Reopened, the tokens are known again from their hashes.
    let store = open(&dir).await;
    assert_eq!(active_name(store.assistant_for_token(&added.token)), Some(("nightly-report".into(), false)));
    assert_eq!(store.list_assistants().await.unwrap().len(), 2);
}

#[tokio::test]
async fn names_are_unique_among_active_assistants_and_a_revoked_token_is_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(&dir).await;
    let first = store.add_assistant("nightly", false, at(0)).await.unwrap();
    for taken in ["nightly", "NIGHTLY", " Nightly "] {
        match store.add_assistant(taken, true, at(1)).await {
            Err(StoreError::DuplicateAssistant { name, .. }) => assert_eq!(name, taken.trim()),
            other => panic!("{taken:?} was not refused as taken: {other:?}"),
        }
    }
    let error = store.add_assistant("", true, at(1)).await.unwrap_err();
    assert!(matches!(error, StoreError::AssistantName { .. }), "{error:?}");
    assert!(error.to_string().contains("it is empty"), "{error}");

    assert!(store.revoke_assistant(&first.assistant.id, at(10)).await.unwrap());
    match store.assistant_for_token(&first.token) {
        TokenMatch::Revoked(assistant) => assert_eq!(assistant.revoked, Some(at(10))),
        other => panic!("a revoked token was {other:?}"),
    }
    assert!(!store.revoke_assistant(&first.assistant.id, at(20)).await.unwrap(), "already revoked");
    assert!(!store.revoke_assistant("no-such-id", at(20)).await.unwrap());
    assert_eq!(store.get_assistant(&first.assistant.id).await.unwrap().unwrap().revoked, Some(at(10)));

    // The name is free again; the old token still belongs to the revoked one.
    let second = store.add_assistant("nightly", true, at(30)).await.unwrap();
    assert_ne!(second.assistant.id, first.assistant.id);
    assert_eq!(active_name(store.assistant_for_token(&second.token)), Some(("nightly".into(), true)));
    assert!(matches!(store.assistant_for_token(&first.token), TokenMatch::Revoked(_)));
}

#[tokio::test]
async fn uses_are_recorded_at_most_once_a_minute() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(&dir).await;
    let added = store.add_assistant("chat", true, at(0)).await.unwrap();
    let id = &added.assistant.id;
    assert!(added.assistant.use_worth_recording(at(1)), "never used yet");
    assert!(store.record_assistant_use(id, at(100)).await.unwrap());
    assert!(!store.record_assistant_use(id, at(130)).await.unwrap(), "within the minute");
    let TokenMatch::Active(found) = store.assistant_for_token(&added.token) else { panic!("not active") };
    assert_eq!(found.last_used, Some(at(100)), "memory follows the database");
    assert!(!found.use_worth_recording(at(159)));
    assert!(found.use_worth_recording(at(160)));
    assert!(store.record_assistant_use(id, at(160)).await.unwrap());
    assert_eq!(store.get_assistant(id).await.unwrap().unwrap().last_used, Some(at(160)));
    assert!(!store.record_assistant_use("no-such-id", at(500)).await.unwrap());
}

#[tokio::test]
async fn another_process_follows_adds_and_revokes_through_sync_index() {
    let dir = tempfile::tempdir().unwrap();
    let here = open(&dir).await;
    let there = open(&dir).await;
    let now = Utc::now();
    let added = here.add_assistant("nightly", false, now).await.unwrap();
    assert_eq!(there.assistant_for_token(&added.token), TokenMatch::Unknown, "not read yet");
    there.sync_index().await.unwrap();
    assert_eq!(active_name(there.assistant_for_token(&added.token)), Some(("nightly".into(), false)));

    assert!(here.revoke_assistant(&added.assistant.id, now + TimeDelta::seconds(1)).await.unwrap());
    assert!(matches!(there.assistant_for_token(&added.token), TokenMatch::Active(_)), "not read yet");
    there.sync_index().await.unwrap();
    assert!(matches!(there.assistant_for_token(&added.token), TokenMatch::Revoked(_)));

    // A revoke through the second store after the first marks it in the second's memory even though the
    // database had it already.
    let other = here.add_assistant("chat", true, now).await.unwrap();
    there.sync_index().await.unwrap();
    assert!(here.revoke_assistant(&other.assistant.id, now).await.unwrap());
    assert!(!there.revoke_assistant(&other.assistant.id, now).await.unwrap());
    assert!(matches!(there.assistant_for_token(&other.token), TokenMatch::Revoked(_)));
}
