//! Which credential serves: `AUTH_METHOD` pins one method; unset, a signed-in person comes first, then a
//! service-account key (`SERVICE_ACCOUNT_PATH`, `CREDENTIALS_CONFIG`), then Application Default Credentials.
//! The reported identity class is the resolved credential's. The environment is a lookup table: no test
//! touches the process environment, and `NO_GCE_CHECK` keeps the metadata server out of them.

use crate::auth_common;

use std::collections::HashMap;

use auth_common::{SignInWorld, USER};
use base64::Engine as _;
use gatehouse_core::auth::identity::{AuthMethod, IdentityClass};
use gatehouse_core::auth::resolve::{Resolution, ResolveError, resolve};
use gatehouse_core::auth::state::AuthState;
use google_fake::auth::RefreshGrant;
use google_fake::{Identity, ServiceAccountKey};
use serde_json::json;

const ROBOT: &str = "robot@gatehouse-test.iam.gserviceaccount.com";

/// Credentials the emulator honours, written as files in the test's home.
struct Files<'a> {
    world: &'a SignInWorld,
}

impl<'a> Files<'a> {
    fn key_json(&self) -> String {
        self.world.google.world().service_accounts.push(ServiceAccountKey {
            email: ROBOT.into(),
            public_key_pem: include_str!("../../../../tests/data/test-service-account.pub.pem").into(),
        });
        json!({
            "type": "service_account",
            "private_key_id": "k1",
            "private_key": include_str!("../../../../tests/data/test-service-account.pem"),
            "client_email": ROBOT,
            "token_uri": "https://oauth2.googleapis.com/token",
        })
        .to_string()
    }

    fn key_file(&self) -> String {
        let key = self.key_json();
        self.write("key.json", &key)
    }

    /// An `authorized_user` file, as `gcloud auth application-default login` writes it, for `email`.
    fn adc_user_file(&self, email: &str) -> String {
        let token = format!("1//0adc-{email}");
        let grant = RefreshGrant {
            client_id: auth_common::CLIENT_ID.into(),
            identity: Identity::user(email),
            scopes: vec![
                "https://www.googleapis.com/auth/userinfo.email".into(),
                "https://www.googleapis.com/auth/drive".into(),
            ],
        };
        self.world.google.world().oauth.refresh_tokens.insert(token.clone(), grant);
        let body = json!({
            "type": "authorized_user",
            // The emulator's: a file naming Google's token endpoint is Google's sign-in, never sent to it.
            "token_uri": format!("{}/token", self.world.google.url()),
            "client_id": auth_common::CLIENT_ID,
            "client_secret": auth_common::CLIENT_SECRET,
            "refresh_token": token,
        });
        self.write("adc.json", &body.to_string())
    }

    fn write(&self, name: &str, text: &str) -> String {
        let path = self.world.home.path().join(name);
        std::fs::write(&path, text).unwrap();
        path.display().to_string()
    }
}

async fn resolve_with(world: &SignInWorld, vars: &[(&str, &str)]) -> Result<Resolution, ResolveError> {
    let mut vars: HashMap<String, String> = vars.iter().map(|(k, v)| ((*k).into(), (*v).into())).collect();
    vars.insert("GATEHOUSE_TOKEN_STORE".into(), "file".into());
    vars.insert("NO_GCE_CHECK".into(), "true".into());
    resolve(&world.config, move |name| vars.get(name).cloned()).await
}

/// What `server://auth-status` would report for the resolution.
fn reported(resolution: &Resolution) -> (AuthMethod, Option<IdentityClass>, Option<String>) {
    let state = AuthState::new(resolution.snapshot.clone());
    resolution.report_to(&state);
    let snapshot = state.current();
    (snapshot.method, snapshot.class, snapshot.account)
}

#[tokio::test]
async fn a_signed_in_person_comes_before_a_service_account_key() {
    let world = SignInWorld::with_file_store().await;
    world.login_as(USER).await;
    let files = Files { world: &world };
    let key = files.key_file();
    let resolution = resolve_with(&world, &[("SERVICE_ACCOUNT_PATH", &key)]).await.unwrap();
    assert_eq!(reported(&resolution), (AuthMethod::OAuth, Some(IdentityClass::User), Some(USER.into())));
    assert!(resolution.user.is_some(), "the person's source reports its own changes");
}

#[tokio::test]
async fn with_nobody_signed_in_a_service_account_key_serves() {
    let world = SignInWorld::with_file_store().await;
    let files = Files { world: &world };
    let key = files.key_file();
    let adc = files.adc_user_file(USER);
    let resolution = resolve_with(&world, &[("SERVICE_ACCOUNT_PATH", &key), ("GOOGLE_APPLICATION_CREDENTIALS", &adc)])
        .await
        .unwrap();
    assert_eq!(
        reported(&resolution),
        (AuthMethod::ServiceAccount, Some(IdentityClass::ServiceAccount), Some(ROBOT.into()))
    );
    assert!(resolution.tokens.token().await.is_ok(), "the key's JWT grant works at the emulator");
}

#[tokio::test]
async fn credentials_config_is_the_service_account_method() {
    let world = SignInWorld::with_file_store().await;
    let files = Files { world: &world };
    let encoded = base64::engine::general_purpose::STANDARD.encode(files.key_json());
    let resolution = resolve_with(&world, &[("CREDENTIALS_CONFIG", &encoded)]).await.unwrap();
    assert_eq!(
        reported(&resolution),
        (AuthMethod::ServiceAccount, Some(IdentityClass::ServiceAccount), Some(ROBOT.into()))
    );
}

#[tokio::test]
async fn adc_comes_last_and_is_classified_by_the_credential_it_finds() {
    let world = SignInWorld::with_file_store().await;
    let files = Files { world: &world };
    let adc = files.adc_user_file(USER);
    let resolution = resolve_with(&world, &[("GOOGLE_APPLICATION_CREDENTIALS", &adc)]).await.unwrap();
    assert_eq!(reported(&resolution), (AuthMethod::Adc, Some(IdentityClass::User), Some(USER.into())));

    let key = files.key_file();
    let resolution = resolve_with(&world, &[("GOOGLE_APPLICATION_CREDENTIALS", &key)]).await.unwrap();
    assert_eq!(reported(&resolution), (AuthMethod::Adc, Some(IdentityClass::ServiceAccount), Some(ROBOT.into())));
}

#[tokio::test]
async fn auth_method_pins_one_method_even_when_others_would_come_first() {
    let world = SignInWorld::with_file_store().await;
    world.login_as(USER).await;
    let files = Files { world: &world };
    let key = files.key_file();
    let adc = files.adc_user_file("grace@example.com");
    let vars = [("SERVICE_ACCOUNT_PATH", key.as_str()), ("GOOGLE_APPLICATION_CREDENTIALS", adc.as_str())];

    let mut pinned = vars.to_vec();
    pinned.push(("AUTH_METHOD", "adc"));
    let resolution = resolve_with(&world, &pinned).await.unwrap();
    assert_eq!(reported(&resolution), (AuthMethod::Adc, Some(IdentityClass::User), Some("grace@example.com".into())));

    pinned.pop();
    pinned.push(("AUTH_METHOD", "Service_Account"));
    let resolution = resolve_with(&world, &pinned).await.unwrap();
    assert_eq!(reported(&resolution).0, AuthMethod::ServiceAccount);
}

#[tokio::test]
async fn a_pinned_method_that_finds_nothing_says_what_to_set() {
    let world = SignInWorld::with_file_store().await;
    let files = Files { world: &world };
    let adc = files.adc_user_file(USER);
    let error = resolve_with(&world, &[("AUTH_METHOD", "service_account"), ("GOOGLE_APPLICATION_CREDENTIALS", &adc)])
        .await
        .expect_err("refused");
    assert!(matches!(error, ResolveError::NoServiceAccount), "{error}");
    assert!(error.to_string().contains("SERVICE_ACCOUNT_PATH"), "{error}");

    let error = resolve_with(&world, &[("AUTH_METHOD", "adc")]).await.expect_err("refused");
    assert!(matches!(error, ResolveError::NoAdc), "{error}");
    assert!(error.to_string().contains("gcloud auth application-default login"), "{error}");

    let error = resolve_with(&world, &[("AUTH_METHOD", "kerberos")]).await.expect_err("refused");
    assert!(error.to_string().contains("\"kerberos\"") && error.to_string().contains("oauth"), "{error}");
}

#[tokio::test]
async fn pinned_oauth_waits_for_a_sign_in_rather_than_using_a_key() {
    let world = SignInWorld::with_file_store().await;
    let files = Files { world: &world };
    let key = files.key_file();
    let resolution = resolve_with(&world, &[("AUTH_METHOD", "oauth"), ("SERVICE_ACCOUNT_PATH", &key)]).await.unwrap();
    assert_eq!(reported(&resolution), (AuthMethod::None, None, None));
    let error = resolution.tokens.token().await.expect_err("not signed in yet");
    assert!(error.to_string().contains("gatehouse login"), "{error}");

    // A sign-in made afterwards is used by the same source, without resolving again.
    world.login_as(USER).await;
    let user = resolution.user.as_ref().expect("the person's source");
    user.reload().await;
    assert!(resolution.tokens.token().await.is_ok());
    assert_eq!(resolution.tokens.account().as_deref(), Some(USER));
}

#[tokio::test]
async fn with_no_credential_at_all_every_call_explains_how_to_sign_in() {
    let world = SignInWorld::with_file_store().await;
    let resolution = resolve_with(&world, &[]).await.unwrap();
    assert_eq!(reported(&resolution), (AuthMethod::None, None, None));
    let error = resolution.tokens.token().await.expect_err("signed out");
    assert!(error.to_string().contains("Sign in"), "{error}");
}
