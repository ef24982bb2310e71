//! The browser sign-in end to end against the emulator, with the refresh token kept in a real keychain:
//! a test plays the browser, the redirect reaches the loopback listener, then a tool call acts as the person.
//! Every way a sign-in can end early stores nothing, and no token ever reaches the disk outside the keychain.

use crate::auth_common;

use std::time::Duration;

use auth_common::{Decision, OTHER_USER, SignInWorld, USER, files_containing, play_browser};
use gatehouse_core::auth::{LoginError, PendingLogin};
use gatehouse_core::tools::all_tools;
use gatehouse_core::tools::registry::{Scope, Service};
use google_fake::{ConsentMode, Identity};
use serde_json::json;
use tokio_util::sync::CancellationToken;

#[tokio::test]
async fn the_browser_sign_in_stores_the_account_and_a_tool_call_then_acts_as_the_person() {
    let Some(world) = SignInWorld::with_keychain().await else { return };
    let id = world.google.world().create_spreadsheet("Budget 2026", &[("Sales", vec![])], &Identity::user(USER));

    let pending = PendingLogin::start(world.options(), &world.store).await.unwrap();
    let redirect = url::Url::parse(pending.redirect_uri()).unwrap();
    assert_eq!(redirect.host_str(), Some("127.0.0.1"));
    assert_ne!(redirect.port(), None);
    let (favicon, url) = (redirect.join("/favicon.ico").unwrap(), pending.authorize_url().to_owned());
    let browser = tokio::spawn(async move {
        // A stray request (a favicon, the bare URL) is answered without ending the sign-in.
        let stray = reqwest::get(favicon).await.unwrap();
        assert_eq!(stray.status(), 404);
        play_browser(url, Decision::Allow(USER.into())).await
    });
    let signed_in = pending.finish(CancellationToken::new()).await.unwrap();
    let (status, page) = browser.await.unwrap();
    assert_eq!(status, 200, "{page}");
    assert!(page.contains("You can close this tab"), "{page}");
    assert_eq!(signed_in.email, USER);
    assert!(signed_in.missing_scopes.is_empty(), "{:?}", signed_in.missing_scopes);

    // What Google was asked: PKCE S256, a state, offline access with consent, a loopback redirect.
    let asked = world.google.world().oauth.authorize_requests.last().cloned().unwrap();
    let param = |name: &str| asked.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone());
    assert_eq!(param("code_challenge_method").as_deref(), Some("S256"));
    assert_eq!(param("access_type").as_deref(), Some("offline"));
    assert_eq!(param("prompt").as_deref(), Some("consent"));
    assert!(param("state").is_some_and(|state| state.len() >= 22));
    assert_eq!(param("redirect_uri").as_deref(), Some(redirect.as_str()));

    let stored = world.store.active().await.unwrap().expect("the account is stored");
    assert_eq!(stored.email, USER);
    assert_eq!(world.store.accounts().await.unwrap().accounts, [USER]);

    // A tool call through the engine with the person's token.
    let tokens = world.user_tokens();
    let engine = world.engine(tokens.clone());
    let reply = engine.call("list_sheets", json!({ "spreadsheet_id": id }).as_object().cloned()).await.unwrap();
    assert!(!reply.is_error, "{}", reply.text);
    assert!(reply.text.contains("Sales"), "{}", reply.text);
    assert_eq!(gatehouse_core::google::TokenSource::account(tokens.as_ref()).as_deref(), Some(USER));

    // No token reaches the disk outside the keychain: neither the refresh token nor any access token.
    let access_tokens: Vec<String> = world
        .google
        .world()
        .tokens
        .iter()
        .filter(|(_, access)| access.identity.email == USER)
        .map(|(token, _)| token.clone())
        .collect();
    assert!(access_tokens.len() >= 2, "the sign-in's token and the refreshed one");
    let mut roots = vec![world.home.path().to_path_buf()];
    // Under scripts/test.sh HOME is a fresh folder holding the (encrypted) keyring: scan it whole.
    if std::env::var("GATEHOUSE_REQUIRE_KEYCHAIN").as_deref() == Ok("1")
        && let Some(home) = std::env::var_os("HOME")
    {
        roots.push(home.into());
    }
    for root in &roots {
        for secret in access_tokens.iter().map(String::as_str).chain([stored.refresh_token.expose()]) {
            let found = files_containing(root, secret);
            assert!(found.is_empty(), "a token was written to {found:?}");
        }
    }
}

#[tokio::test]
async fn a_second_account_becomes_active_and_both_stay_signed_in() {
    let Some(world) = SignInWorld::with_keychain().await else { return };
    world.login_as(USER).await;
    world.login_as(OTHER_USER).await;
    let list = world.store.accounts().await.unwrap();
    assert_eq!(list.accounts, [USER, OTHER_USER]);
    assert_eq!(list.active.as_deref(), Some(OTHER_USER));
    world.store.set_active(USER).await.unwrap();
    assert_eq!(world.store.active().await.unwrap().unwrap().email, USER);
    world.store.remove(USER).await.unwrap();
    world.store.remove(OTHER_USER).await.unwrap();
    assert!(world.store.accounts().await.unwrap().accounts.is_empty());
}

async fn assert_nothing_stored(world: &SignInWorld) {
    let list = world.store.accounts().await.unwrap();
    assert!(list.accounts.is_empty() && list.active.is_none(), "{list:?}");
    assert!(world.google.world().oauth.refresh_tokens.is_empty(), "no refresh token was even issued");
}

#[tokio::test]
async fn access_denied_stores_nothing() {
    let Some(world) = SignInWorld::with_keychain().await else { return };
    // The person presses Cancel on the consent page.
    let pending = PendingLogin::start(world.options(), &world.store).await.unwrap();
    let browser = tokio::spawn(play_browser(pending.authorize_url().to_owned(), Decision::Cancel));
    let error = pending.finish(CancellationToken::new()).await.unwrap_err();
    assert!(matches!(error, LoginError::Denied), "{error}");
    assert!(error.to_string().contains("Nothing was stored"), "{error}");
    let (status, page) = browser.await.unwrap();
    assert_eq!(status, 400);
    assert!(page.contains("Access was not granted"), "{page}");
    // Google refuses at once (an admin policy, say).
    world.google.world().consent = ConsentMode::Deny;
    let pending = PendingLogin::start(world.options(), &world.store).await.unwrap();
    let browser = tokio::spawn(play_browser(pending.authorize_url().to_owned(), Decision::Cancel));
    let error = pending.finish(CancellationToken::new()).await.unwrap_err();
    assert!(matches!(error, LoginError::Denied), "{error}");
    browser.await.unwrap();
    assert_nothing_stored(&world).await;
}

#[tokio::test]
async fn a_wrong_state_is_refused_and_stores_nothing() {
    let Some(world) = SignInWorld::with_keychain().await else { return };
    world.google.world().consent = ConsentMode::Approve(Identity::user(USER));
    let pending = PendingLogin::start(world.options(), &world.store).await.unwrap();
    // A forged answer: a real code from Google, but not for this sign-in's state.
    let mut forged = url::Url::parse(pending.authorize_url()).unwrap();
    let pairs: Vec<(String, String)> = forged
        .query_pairs()
        .map(|(k, v)| if k == "state" { (k.into_owned(), "forged".into()) } else { (k.into_owned(), v.into_owned()) })
        .collect();
    forged.query_pairs_mut().clear().extend_pairs(pairs);
    let browser = tokio::spawn(play_browser(forged.to_string(), Decision::Cancel));
    let error = pending.finish(CancellationToken::new()).await.unwrap_err();
    assert!(matches!(error, LoginError::WrongState), "{error}");
    let (status, page) = browser.await.unwrap();
    assert_eq!(status, 400);
    assert!(page.contains("does not belong to this sign-in"), "{page}");
    assert!(world.store.accounts().await.unwrap().accounts.is_empty());
    assert!(world.google.world().oauth.refresh_tokens.is_empty(), "the code was never redeemed");
}

#[tokio::test]
async fn a_timeout_and_a_cancel_store_nothing() {
    let Some(world) = SignInWorld::with_keychain().await else { return };
    let mut options = world.options();
    options.timeout = Duration::from_millis(300);
    let pending = PendingLogin::start(options, &world.store).await.unwrap();
    let error = pending.finish(CancellationToken::new()).await.unwrap_err();
    assert!(matches!(error, LoginError::TimedOut(_)), "{error}");
    assert!(error.to_string().contains("not finished within"), "{error}");

    let pending = PendingLogin::start(world.options(), &world.store).await.unwrap();
    let redirect = pending.redirect_uri().to_owned();
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(100)).await;
        trigger.cancel();
    });
    let error = pending.finish(cancel).await.unwrap_err();
    assert!(matches!(error, LoginError::Cancelled), "{error}");
    // The listener is gone with the sign-in.
    assert!(reqwest::get(&redirect).await.is_err());
    assert_nothing_stored(&world).await;
}

#[tokio::test]
async fn the_opt_in_token_file_works_the_same_and_is_private() {
    let world = SignInWorld::with_file_store().await;
    world.login_as(USER).await;
    let path = world.home.path().join(gatehouse_core::auth::keychain::TOKEN_FILE_NAME);
    assert!(path.is_file(), "the sign-in is kept in {}", path.display());
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
    }
    assert_eq!(world.store.active().await.unwrap().unwrap().email, USER);
    assert!(!world.store.warnings().is_empty());
}

/// Signs in through the browser with `options`, returning the `scope` Google was asked for.
async fn sign_in_asking(world: &SignInWorld, options: gatehouse_core::auth::LoginOptions) -> String {
    let pending = PendingLogin::start(options, &world.store).await.unwrap();
    let browser = tokio::spawn(play_browser(pending.authorize_url().to_owned(), Decision::Allow(USER.into())));
    pending.finish(CancellationToken::new()).await.unwrap();
    assert_eq!(browser.await.unwrap().0, 200);
    let asked = world.google.world().oauth.authorize_requests.last().cloned().unwrap();
    assert!(asked.iter().any(|(k, v)| k == "include_granted_scopes" && v == "true"), "{asked:?}");
    asked.into_iter().find(|(k, _)| k == "scope").map(|(_, v)| v).unwrap()
}

#[tokio::test]
async fn scopes_are_the_fewest_the_tools_need_and_a_later_tool_asks_only_for_what_is_missing() {
    let world = SignInWorld::with_file_store().await;
    let id = world.google.world().create_spreadsheet("Budget", &[("Sales", vec![])], &Identity::user(USER));

    // Only the Sheets read tools are enabled: the sign-in asks for read-only Sheets access and nothing else.
    let mut options = world.options();
    options.tools = all_tools()
        .into_iter()
        .map(|tool| tool.meta)
        .filter(|meta| meta.service == Service::Sheets && meta.is_read_only() && meta.scope == Some(Scope::Sheets))
        .collect();
    let asked = sign_in_asking(&world, options).await;
    assert_eq!(asked, "openid email https://www.googleapis.com/auth/spreadsheets.readonly");

    let tokens = world.user_tokens();
    let engine = world.engine(tokens.clone());
    tokens.report_to(engine.auth().clone());
    let read = engine.call("list_sheets", json!({ "spreadsheet_id": id }).as_object().cloned()).await.unwrap();
    assert!(!read.is_error, "{}", read.text);
    let writes_before = world.google.world().requests.iter().filter(|r| r.method == "PUT").count();
    let args = json!({ "spreadsheet_id": id, "sheet": "Sales", "range": "A1", "data": [["x"]] });
    let write = engine.call("update_cells", args.as_object().cloned()).await.unwrap();
    assert!(write.is_error);
    assert!(
        write.text.contains("needs permission to use Google Sheets") && write.text.contains(USER),
        "{}",
        write.text
    );
    assert_eq!(
        world.google.world().requests.iter().filter(|r| r.method == "PUT").count(),
        writes_before,
        "Google was not asked"
    );

    // Every tool enabled now: signing in again asks only for the scopes not yet granted, and keeps the others.
    let asked = sign_in_asking(&world, world.options()).await;
    assert!(!asked.contains("spreadsheets.readonly"), "{asked}");
    assert!(
        asked.contains("https://www.googleapis.com/auth/spreadsheets ") && asked.contains("/auth/drive"),
        "{asked}"
    );
    let stored = world.store.active().await.unwrap().unwrap().scopes;
    assert!(stored.iter().any(|s| s.ends_with("/spreadsheets.readonly")), "{stored:?}");
    assert!(stored.iter().any(|s| s.ends_with("/spreadsheets")), "{stored:?}");
    // The running engine reads the sign-in again when a tool lacks a scope: no restart, no reload call.
    let write = engine.call("update_cells", args.as_object().cloned()).await.unwrap();
    assert!(!write.is_error, "{}", write.text);
}
