//! `GATEHOUSE_GOOGLE_ENDPOINT` (issue 15, item 3): a rerouted endpoint never receives a credential kept on this
//! machine that was obtained from Google — the person's sign-in (token file or keychain: refresh token and
//! client secret), gcloud's `authorized_user` file, a downloaded OAuth client's secret — and a service
//! account's assertion sent there is minted for it, worthless at Google. A tiny listener on loopback stands
//! in for the endpoint and records every byte it receives.

use crate::auth_common::{self, SignInWorld, USER};

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine as _;
use gatehouse_core::auth::adc::{self, AdcError};
use gatehouse_core::auth::resolve::resolve;
use gatehouse_core::auth::{
    ClientConfig, ClientSource, LoginError, LoginOptions, PendingLogin, Secret, StoredAccount, TokenStore, UserTokens,
    logout,
};
use gatehouse_core::config::Config;
use gatehouse_core::google::auth::{AuthError, ServiceAccount, ServiceAccountKey};
use gatehouse_core::google::{Endpoints, GoogleClient, TokenSource};
use gatehouse_core::tools::all_tools;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const REFRESH_TOKEN: &str = "1//0g-the-persons-google-refresh-token";
const CLIENT_SECRET: &str = "GOCSPX-the-persons-client-secret";
const GOOGLE_TOKEN_URI: &str = "https://oauth2.googleapis.com/token";

/// A loopback HTTP listener that keeps every byte sent to it and answers each request with a 400.
struct Recorder {
    url: String,
    received: Arc<Mutex<Vec<u8>>>,
}

impl Recorder {
    async fn start() -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind the recorder");
        let url = format!("http://{}", listener.local_addr().expect("its address"));
        let received = Arc::new(Mutex::new(Vec::new()));
        let keep = received.clone();
        tokio::spawn(async move {
            while let Ok((mut stream, _)) = listener.accept().await {
                let keep = keep.clone();
                tokio::spawn(async move {
                    let mut buffer = [0u8; 16 * 1024];
                    // Read what arrives within a short while (headers and a small form), then answer.
                    while let Ok(Ok(read)) =
                        tokio::time::timeout(Duration::from_millis(300), stream.read(&mut buffer)).await
                    {
                        if read == 0 {
                            break;
                        }
                        keep.lock().unwrap().extend_from_slice(&buffer[..read]);
                    }
                    let answer = "HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\ncontent-length: 26\r\nconnection: close\r\n\r\n{\"error\":\"invalid_grant\"}\n";
                    let _ = stream.write_all(answer.as_bytes()).await;
                });
            }
        });
        Self { url, received }
    }

    fn endpoints(&self) -> Endpoints {
        Endpoints::new(Some(self.url.parse().expect("recorder url")))
    }

    fn text(&self) -> String {
        String::from_utf8_lossy(&self.received.lock().unwrap()).into_owned()
    }
}

fn http() -> reqwest::Client {
    GoogleClient::http_client(Duration::from_secs(5))
}

/// The person's sign-in as `gatehouse login` keeps it after signing in with Google.
fn google_sign_in() -> StoredAccount {
    StoredAccount {
        email: USER.into(),
        refresh_token: Secret::new(REFRESH_TOKEN),
        client_id: auth_common::CLIENT_ID.into(),
        client_secret: Some(Secret::new(CLIENT_SECRET)),
        token_uri: GOOGLE_TOKEN_URI.into(),
        scopes: vec!["https://www.googleapis.com/auth/drive".into()],
        endpoint: None,
    }
}

/// Every way the kept sign-in could leave — resolving, a tool's token, signing out — with the recorder as the
/// rerouted endpoint: none sends the refresh token or the client secret.
async fn a_kept_google_sign_in_stays_home(store: TokenStore, home: &std::path::Path, lookup_store: &str) {
    store.save(google_sign_in()).await.expect("keep the sign-in");
    let recorder = Recorder::start().await;
    let mut config = Config::with_home(home);
    config.google_endpoint = Some(recorder.url.parse().unwrap());
    let vars: HashMap<String, String> = [
        ("GATEHOUSE_TOKEN_STORE", lookup_store),
        ("NO_GCE_CHECK", "true"),
        ("GATEHOUSE_HOME", &home.display().to_string()),
    ]
    .iter()
    .map(|(k, v)| ((*k).into(), (*v).into()))
    .collect();
    let resolution = resolve(&config, |name| vars.get(name).cloned()).await.expect("resolve");
    assert!(!resolution.source.contains(USER), "the Google sign-in does not serve the endpoint: {}", resolution.source);
    let _ = resolution.tokens.token().await;

    let tokens = UserTokens::new(store.clone(), recorder.endpoints(), http());
    assert_eq!(tokens.load().await.expect("load"), None, "counts as no sign-in here");
    let error = tokens.token().await.unwrap_err();
    assert!(matches!(error, AuthError::Rerouted(_)), "{error:?}");
    let message = error.to_string();
    assert!(message.contains("GATEHOUSE_GOOGLE_ENDPOINT") && message.contains(USER), "{message}");

    let out = logout(&store, None, &recorder.endpoints(), &http()).await.expect("signed out here");
    let problem = out.revoke_problem.expect("not revoked at the endpoint");
    assert!(problem.contains("not revoked") && problem.contains("GATEHOUSE_GOOGLE_ENDPOINT"), "{problem}");

    tokio::time::sleep(Duration::from_millis(400)).await;
    let received = recorder.text();
    assert!(!received.contains(REFRESH_TOKEN), "the refresh token reached the endpoint:\n{received}");
    assert!(!received.contains(CLIENT_SECRET), "the client secret reached the endpoint:\n{received}");
}

#[tokio::test]
async fn a_google_sign_in_in_the_token_file_is_not_sent_to_a_rerouted_endpoint() {
    let home = tempfile::tempdir().unwrap();
    let store = TokenStore::file(home.path().join(gatehouse_core::auth::keychain::TOKEN_FILE_NAME));
    a_kept_google_sign_in_stays_home(store, home.path(), "file").await;
}

#[tokio::test]
async fn a_google_sign_in_in_the_keychain_is_not_sent_to_a_rerouted_endpoint() {
    let home = tempfile::tempdir().unwrap();
    let Some(store) = auth_common::keychain_store(home.path()).await else { return };
    a_kept_google_sign_in_stays_home(store, home.path(), "keychain").await;
}

#[tokio::test]
async fn a_sign_in_made_through_the_emulator_is_recorded_with_it_and_serves_it() {
    let world = SignInWorld::with_file_store().await;
    world.login_as(USER).await;
    let kept = world.store.get(USER).await.unwrap().expect("kept");
    assert_eq!(kept.endpoint.as_deref(), world.endpoints.root().map(url::Url::as_str));
    let tokens = world.user_tokens();
    assert!(tokens.token().await.is_ok(), "the emulator's own sign-in is sent to it");
    // The same sign-in is not sent to Google, nor to another emulator.
    let elsewhere = UserTokens::new(world.store.clone(), Endpoints::default(), world.http.clone());
    assert!(matches!(elsewhere.token().await, Err(AuthError::Rerouted(_))));
}

#[tokio::test]
async fn a_downloaded_oauth_clients_secret_is_not_sent_to_a_rerouted_endpoint() {
    let recorder = Recorder::start().await;
    let home = tempfile::tempdir().unwrap();
    let store = TokenStore::file(home.path().join("tokens.json"));
    let client = ClientConfig {
        client_id: auth_common::CLIENT_ID.into(),
        client_secret: Some(Secret::new(CLIENT_SECRET)),
        token_uri: GOOGLE_TOKEN_URI.into(),
        source: ClientSource::File(home.path().join("client_secret.json")),
    };
    let options = LoginOptions::new(client, recorder.endpoints(), http(), &all_tools());
    let Err(error) = PendingLogin::start(options, &store).await else { panic!("the sign-in started") };
    assert!(matches!(error, LoginError::Rerouted(_)), "{error:?}");
    assert!(error.to_string().contains("GATEHOUSE_GOOGLE_ENDPOINT"), "{error}");
}

#[tokio::test]
async fn gclouds_sign_in_is_not_sent_to_an_emulator() {
    let recorder = Recorder::start().await;
    let dir = tempfile::tempdir().unwrap();
    let file = json!({
        "type": "authorized_user",
        "client_id": auth_common::CLIENT_ID,
        "client_secret": CLIENT_SECRET,
        "refresh_token": REFRESH_TOKEN,
    });
    let config = dir.path().join("gcloud");
    std::fs::create_dir_all(&config).unwrap();
    let path = config.join(adc::WELL_KNOWN_FILE);
    std::fs::write(&path, file.to_string()).unwrap();
    let path_text = path.display().to_string();
    let config_text = config.display().to_string();

    // Named by GOOGLE_APPLICATION_CREDENTIALS: an error that says why.
    let vars = HashMap::from([("GOOGLE_APPLICATION_CREDENTIALS", path_text.as_str()), ("NO_GCE_CHECK", "true")]);
    let Err(error) = adc::resolve(|name| vars.get(name).map(|v| (*v).to_owned()), &recorder.endpoints(), &http()).await
    else {
        panic!("gcloud's sign-in named by GOOGLE_APPLICATION_CREDENTIALS was not refused");
    };
    assert!(matches!(error, AdcError::Rerouted { .. }), "{error:?}");
    assert!(error.to_string().contains("GATEHOUSE_GOOGLE_ENDPOINT"), "{error}");
    // Found in gcloud's folder without being asked for: skipped.
    let vars = HashMap::from([("CLOUDSDK_CONFIG", config_text.as_str()), ("NO_GCE_CHECK", "true")]);
    let found = adc::resolve(|name| vars.get(name).map(|v| (*v).to_owned()), &recorder.endpoints(), &http()).await;
    assert!(matches!(found, Ok(None)), "{:?}", found.map(|c| c.map(|c| c.source)));

    tokio::time::sleep(Duration::from_millis(400)).await;
    assert!(!recorder.text().contains(REFRESH_TOKEN), "{}", recorder.text());
}

#[tokio::test]
async fn a_service_accounts_assertion_is_minted_for_the_endpoint_it_is_sent_to() {
    let recorder = Recorder::start().await;
    let key = ServiceAccountKey::from_json(
        &json!({
            "type": "service_account",
            "client_email": "robot@gatehouse-test.iam.gserviceaccount.com",
            "private_key": include_str!("../../../../tests/data/test-service-account.pem"),
            "private_key_id": "k1",
            "token_uri": GOOGLE_TOKEN_URI,
        })
        .to_string(),
    )
    .unwrap();
    let tokens = ServiceAccount::new(key, &recorder.endpoints(), http());
    assert!(tokens.token().await.is_err(), "the recorder grants nothing");
    let received = recorder.text();
    let assertion = received
        .split("assertion=")
        .nth(1)
        .and_then(|rest| rest.split(['&', '\r', '\n']).next())
        .expect("an assertion was sent");
    let payload = assertion.split('.').nth(1).expect("a JWT");
    let claims: Value =
        serde_json::from_slice(&base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(payload).unwrap()).unwrap();
    assert_eq!(claims["aud"], format!("{}/token", recorder.url), "useless at Google: {claims}");
    assert!(!received.contains("PRIVATE KEY"), "the key never leaves");
}
