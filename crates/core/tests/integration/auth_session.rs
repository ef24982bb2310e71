//! Staying signed in: access tokens refresh once however many calls wait, a revoked sign-in turns into a
//! message an assistant can relay while the server keeps serving, a new sign-in recovers without a restart,
//! and signing out revokes at Google and deletes the keychain entry.

use crate::auth_common;

use std::sync::Arc;
use std::time::Duration;

use auth_common::{SignInWorld, USER};
use gatehouse_core::Engine;
use gatehouse_core::auth::{LogoutError, logout};
use gatehouse_core::google::TokenSource;
use google_fake::Identity;
use serde_json::json;

const SIGN_IN_AGAIN: &str = "must sign in to Google again from the Gatehouse app (tray menu › Open Gatehouse › Account) or with `gatehouse login`";

async fn list_sheets(engine: &Arc<Engine>, id: &str) -> gatehouse_core::engine::Reply {
    engine.call("list_sheets", json!({ "spreadsheet_id": id }).as_object().cloned()).await.unwrap()
}

async fn fifty_calls(engine: &Arc<Engine>, id: &str) {
    let calls = (0..50).map(|_| {
        let engine = engine.clone();
        let id = id.to_owned();
        tokio::spawn(async move { list_sheets(&engine, &id).await })
    });
    for reply in futures::future::join_all(calls).await {
        let reply = reply.unwrap();
        assert!(!reply.is_error, "{}", reply.text);
    }
}

#[tokio::test]
async fn fifty_calls_with_an_access_token_past_its_lifetime_cause_one_refresh() {
    let Some(world) = SignInWorld::with_keychain().await else { return };
    let id = world.google.world().create_spreadsheet("Budget", &[("Sales", vec![])], &Identity::user(USER));
    world.google.world().token_lifetime_secs = 2;
    world.login_as(USER).await;
    let engine = world.engine(world.user_tokens());
    assert!(!list_sheets(&engine, &id).await.is_error);
    // Refreshed halfway through a 2 s lifetime: after 1.2 s the cached token is due.
    tokio::time::sleep(Duration::from_millis(1200)).await;
    let before = world.token_requests();
    fifty_calls(&engine, &id).await;
    assert_eq!(world.token_requests() - before, 1, "one refresh for 50 waiting calls");
}

#[tokio::test]
async fn fifty_calls_whose_token_google_expired_early_cause_one_refresh() {
    let Some(world) = SignInWorld::with_keychain().await else { return };
    let id = world.google.world().create_spreadsheet("Budget", &[("Sales", vec![])], &Identity::user(USER));
    world.login_as(USER).await;
    let engine = world.engine(world.user_tokens());
    assert!(!list_sheets(&engine, &id).await.is_error);
    // Google stops accepting the cached token before its time: every call gets a 401 and retries once.
    world.google.world().expire_access_tokens();
    let before = world.token_requests();
    fifty_calls(&engine, &id).await;
    assert_eq!(world.token_requests() - before, 1, "the 401s of 50 calls cause one refresh");
}

#[tokio::test]
async fn a_revoked_sign_in_asks_the_person_to_sign_in_again_and_a_new_sign_in_recovers() {
    let Some(world) = SignInWorld::with_keychain().await else { return };
    let id = world.google.world().create_spreadsheet("Budget", &[("Sales", vec![])], &Identity::user(USER));
    world.login_as(USER).await;
    let tokens = world.user_tokens();
    let engine = world.engine(tokens.clone());
    assert!(!list_sheets(&engine, &id).await.is_error);

    // The person removes Gatehouse's access in their Google Account mid-session.
    world.google.world().revoke_all_tokens_of(USER);
    let reply = list_sheets(&engine, &id).await;
    assert!(reply.is_error);
    assert!(reply.text.contains(SIGN_IN_AGAIN), "{}", reply.text);
    assert!(reply.text.contains(USER), "{}", reply.text);
    // The server keeps answering, and the dead refresh token is not sent to Google again.
    let before = world.token_requests();
    for _ in 0..5 {
        let reply = list_sheets(&engine, &id).await;
        assert!(reply.is_error && reply.text.contains(SIGN_IN_AGAIN), "{}", reply.text);
    }
    assert_eq!(world.token_requests(), before);
    // The entry stays, so `gatehouse status` still shows who must sign in again.
    assert_eq!(world.store.accounts().await.unwrap().active.as_deref(), Some(USER));

    // Signing in again (here as another process would: straight into the store) recovers, same engine.
    world.login_as(USER).await;
    let reply = list_sheets(&engine, &id).await;
    assert!(!reply.is_error, "{}", reply.text);
    assert_eq!(tokens.account().as_deref(), Some(USER));
}

#[tokio::test]
async fn an_expired_refresh_token_signs_out_too() {
    let Some(world) = SignInWorld::with_keychain().await else { return };
    let id = world.google.world().create_spreadsheet("Budget", &[("Sales", vec![])], &Identity::user(USER));
    world.login_as(USER).await;
    let engine = world.engine(world.user_tokens());
    assert!(!list_sheets(&engine, &id).await.is_error);
    // Google expires the refresh token (an app in testing, after 7 days); the access token then runs out.
    world.google.world().revoke_refresh_tokens_of(USER);
    world.google.world().expire_access_tokens();
    let reply = list_sheets(&engine, &id).await;
    assert!(reply.is_error && reply.text.contains(SIGN_IN_AGAIN), "{}", reply.text);
}

#[tokio::test]
async fn nobody_signed_in_is_explained_and_a_sign_in_is_picked_up() {
    let Some(world) = SignInWorld::with_keychain().await else { return };
    let id = world.google.world().create_spreadsheet("Budget", &[("Sales", vec![])], &Identity::user(USER));
    let tokens = world.user_tokens();
    assert_eq!(tokens.load().await.unwrap(), None);
    let engine = world.engine(tokens.clone());
    let reply = list_sheets(&engine, &id).await;
    assert!(reply.is_error && reply.text.contains("Not signed in to Google"), "{}", reply.text);
    world.login_as(USER).await;
    assert!(!list_sheets(&engine, &id).await.is_error);
}

#[tokio::test]
async fn logout_revokes_at_google_and_deletes_the_entry() {
    let Some(world) = SignInWorld::with_keychain().await else { return };
    world.login_as(USER).await;
    let refresh_token = world.store.active().await.unwrap().unwrap().refresh_token;
    assert!(world.google.world().oauth.refresh_tokens.contains_key(refresh_token.expose()));

    let out = logout(&world.store, None, &world.endpoints, &world.http).await.unwrap();
    assert_eq!(out.email, USER);
    assert!(out.revoke_problem.is_none(), "{:?}", out.revoke_problem);
    assert!(out.now_active.is_none());
    assert!(!world.google.world().oauth.refresh_tokens.contains_key(refresh_token.expose()), "revoked at Google");
    assert_eq!(world.google.world().requests.iter().filter(|r| r.path == "/revoke").count(), 1);
    assert!(world.store.get(USER).await.unwrap().is_none(), "the keychain entry is gone");
    assert!(world.store.accounts().await.unwrap().accounts.is_empty());

    let again = logout(&world.store, None, &world.endpoints, &world.http).await.unwrap_err();
    assert!(matches!(again, LogoutError::NoAccount), "{again}");
    let tokens = world.user_tokens();
    assert!(matches!(tokens.token().await, Err(gatehouse_core::google::AuthError::NotSignedIn)));
}
