//! Application Default Credentials against the emulator: an `authorized_user` file (refresh token grant),
//! a service-account key, gcloud's well-known file and the GCE metadata server, each classified by what it
//! is; and bad files that say which file, what is wrong and what to do. The environment is a lookup table:
//! no test touches the process environment.

use crate::support::approvals;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use base64::Engine as _;
use gatehouse_core::auth::adc::{self, AdcError, CredentialSource, ResolvedCredential, WELL_KNOWN_FILE};
use gatehouse_core::auth::identity::{AuthMethod, IdentityClass};
use gatehouse_core::auth::status::auth_status;
use gatehouse_core::config::Config;
use gatehouse_core::google::auth::SCOPES;
use gatehouse_core::google::{Endpoints, GoogleClient, RetryPolicy};
use gatehouse_core::tools::all_tools;
use gatehouse_core::{Engine, EngineOptions};
use google_fake::auth::RefreshGrant;
use google_fake::{FakeGoogle, Identity, OAuthClient, ServiceAccountKey};
use serde_json::{Value, json};

const CLIENT_ID: &str = "764086051850-adc.apps.googleusercontent.com";
const CLIENT_SECRET: &str = "d-FL95Q19q7MQmFpd7hHD0Ty";
const USER: &str = "ada@example.com";
const ROBOT: &str = "robot@gatehouse-test.iam.gserviceaccount.com";
const VM_ROBOT: &str = "123456789012-compute@developer.gserviceaccount.com";
const EMAIL_SCOPE: &str = "https://www.googleapis.com/auth/userinfo.email";

struct Env {
    google: FakeGoogle,
    dir: tempfile::TempDir,
    endpoints: Endpoints,
    http: reqwest::Client,
}

impl Env {
    async fn new() -> Self {
        let google = FakeGoogle::start().await.expect("start the emulator");
        google.world().oauth_clients.push(OAuthClient::installed(CLIENT_ID, CLIENT_SECRET));
        let endpoints = Endpoints::new(Some(google.url().parse().expect("emulator url")));
        let http = GoogleClient::http_client(Duration::from_secs(10));
        Self { google, dir: tempfile::tempdir().expect("temp dir"), endpoints, http }
    }

    /// A refresh token the emulator honours for `email`, granted `scopes` (as `gcloud auth
    /// application-default login` leaves one behind).
    fn refresh_token(&self, email: &str, scopes: &[&str]) -> String {
        let token = format!("1//0adc-{}", email.replace('@', "-"));
        let grant = RefreshGrant {
            client_id: CLIENT_ID.into(),
            identity: Identity::user(email),
            scopes: scopes.iter().map(|s| (*s).to_owned()).collect(),
        };
        self.google.world().oauth.refresh_tokens.insert(token.clone(), grant);
        token
    }

    /// An `authorized_user` file as gcloud writes it, naming the emulator's token endpoint: a gcloud file
    /// naming Google's is Google's sign-in, never sent to an emulator (`gclouds_sign_in_is_not_sent_to_an_emulator`).
    fn user_file(&self, name: &str, refresh_token: &str) -> String {
        let body = json!({
            "token_uri": format!("{}/token", self.google.url()),
            "account": "",
            "client_id": CLIENT_ID,
            "client_secret": CLIENT_SECRET,
            "quota_project_id": "gatehouse-test",
            "refresh_token": refresh_token,
            "type": "authorized_user",
            "universe_domain": "googleapis.com",
        });
        self.write(name, &body.to_string())
    }

    /// A service-account key the emulator's token endpoint accepts.
    fn key_json(&self) -> String {
        self.google.world().service_accounts.push(ServiceAccountKey {
            email: ROBOT.into(),
            public_key_pem: include_str!("../../../../tests/data/test-service-account.pub.pem").into(),
        });
        json!({
            "type": "service_account",
            "project_id": "gatehouse-test",
            "private_key_id": "k1",
            "private_key": include_str!("../../../../tests/data/test-service-account.pem"),
            "client_email": ROBOT,
            "client_id": "1234567890",
            "token_uri": "https://oauth2.googleapis.com/token",
        })
        .to_string()
    }

    fn write(&self, name: &str, text: &str) -> String {
        let path = self.dir.path().join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        std::fs::write(&path, text).unwrap();
        path.display().to_string()
    }

    async fn resolve(&self, vars: &[(&str, &str)]) -> Result<Option<ResolvedCredential>, AdcError> {
        let vars: HashMap<String, String> = vars.iter().map(|(k, v)| ((*k).into(), (*v).into())).collect();
        adc::resolve(move |name| vars.get(name).cloned(), &self.endpoints, &self.http).await
    }

    /// An engine acting through `credential`, to prove its tokens work on a real tool call.
    fn engine(&self, credential: &ResolvedCredential) -> Arc<Engine> {
        let mut config = Config::with_home(self.dir.path());
        config.google_endpoint = Some(self.google.url().parse().unwrap());
        let engine = Engine::new(EngineOptions {
            config,
            tokens: credential.token_source(),
            sandbox: false,
            approvals: approvals::allow_everything(),
            retry: RetryPolicy {
                max_attempts: 2,
                base_delay: Duration::from_millis(5),
                max_delay: Duration::from_millis(20),
                total_budget: Duration::from_secs(5),
            },
        })
        .expect("engine");
        approvals::approve_every_card(&engine);
        engine
    }

    /// Creates a spreadsheet owned by a person and shared with `email`, then reads it through `credential`.
    async fn read_a_sheet_as(&self, credential: &ResolvedCredential, email: &str) {
        let id = {
            let mut world = self.google.world();
            let id = world.create_spreadsheet(
                "Budget",
                &[("Sales", vec![vec![json!("Q1"), json!(10)]])],
                &Identity::user(USER),
            );
            world.drive.share_with(&id, email, "reader");
            id
        };
        let reply = self
            .engine(credential)
            .call("list_sheets", json!({ "spreadsheet_id": id }).as_object().cloned())
            .await
            .unwrap();
        assert!(!reply.is_error, "{}", reply.text);
        assert!(reply.text.contains("Sales"), "{}", reply.text);
    }

    fn token_requests(&self) -> usize {
        self.google.world().requests.iter().filter(|r| r.path == "/token").count()
    }
}

fn all_scopes() -> Vec<&'static str> {
    let mut scopes = vec!["openid", EMAIL_SCOPE, "https://www.googleapis.com/auth/cloud-platform"];
    scopes.extend(SCOPES);
    scopes
}

#[tokio::test]
async fn an_authorized_user_file_is_a_person_refreshed_once_however_many_wait() {
    let env = Env::new().await;
    let refresh = env.refresh_token(USER, &all_scopes());
    let path = env.user_file("adc.json", &refresh);
    let credential = env.resolve(&[("GOOGLE_APPLICATION_CREDENTIALS", &path), ("NO_GCE_CHECK", "true")]).await;
    let credential = credential.expect("resolves").expect("found");
    assert_eq!(credential.method, AuthMethod::Adc);
    assert_eq!(credential.class, IdentityClass::User);
    assert_eq!(credential.source, CredentialSource::EnvironmentFile(path.clone().into()));
    assert_eq!(credential.account(), None, "unknown until the first token");

    // Fifty concurrent callers, one refresh.
    let source = credential.token_source();
    let tokens = futures::future::join_all((0..50).map(|_| source.token())).await;
    let first = tokens[0].as_ref().expect("a token").clone();
    assert!(tokens.iter().all(|t| t.as_ref().ok() == Some(&first)));
    assert_eq!(env.token_requests(), 1);
    assert_eq!(credential.account().as_deref(), Some(USER), "learned from tokeninfo");
    let granted = credential.granted_scopes().expect("known after a token");
    assert!(SCOPES.iter().all(|s| granted.iter().any(|g| g == s)), "{granted:?}");
    env.read_a_sheet_as(&credential, USER).await;

    // A revoked refresh token: the error names the file and the command that renews it.
    env.google.world().revoke_refresh_tokens_of(USER);
    source.invalidate().await;
    let error = source.token().await.unwrap_err().to_string();
    assert!(error.contains("invalid_grant") && error.contains(&path), "{error}");
    assert!(error.contains("gcloud auth application-default login"), "{error}");
}

#[tokio::test]
async fn a_person_without_every_scope_sees_which_tools_are_missing_them() {
    let env = Env::new().await;
    let narrow = ["openid", EMAIL_SCOPE, "https://www.googleapis.com/auth/spreadsheets"];
    let refresh = env.refresh_token(USER, &narrow);
    let path = env.user_file("adc.json", &refresh);
    let credential = env.resolve(&[("GOOGLE_APPLICATION_CREDENTIALS", &path)]).await.unwrap().unwrap();
    credential.check().await.expect("a token");
    let granted = credential.granted_scopes().unwrap();
    let tools = all_tools();
    let account = credential.account();
    let status = auth_status(credential.method, Some(credential.class), account.as_deref(), Some(&granted), &tools);
    assert_eq!(status["auth_method"], "adc");
    assert_eq!(status["is_service_account_identity"], false);
    assert_eq!(status["account"], USER);
    let entries = status["limitations"].as_array().unwrap();
    assert_eq!(entries.len(), 1, "{status:#}");
    assert_eq!(entries[0]["category"], "missing_scopes");
    let listed: Vec<&str> = entries[0]["tools"].as_array().unwrap().iter().map(|t| t.as_str().unwrap()).collect();
    // Sheets tools work with the spreadsheets scope; Drive and Docs tools don't.
    assert!(!listed.contains(&"update_cells") && !listed.contains(&"get_sheet_data"), "{listed:?}");
    for tool in ["list_files", "create_doc", "get_doc_content", "list_file_activity", "list_spreadsheets"] {
        assert!(listed.contains(&tool), "{tool} missing from {listed:?}");
    }
    let alternatives = entries[0]["alternatives"].to_string();
    assert!(alternatives.contains("gcloud auth application-default login --scopes="), "{alternatives}");
    assert!(!alternatives.to_lowercase().contains("use application default credentials"), "{alternatives}");
}

#[tokio::test]
async fn a_service_account_key_in_google_application_credentials_is_a_service_account() {
    let env = Env::new().await;
    let path = env.write("key.json", &env.key_json());
    let credential = env.resolve(&[("GOOGLE_APPLICATION_CREDENTIALS", &path)]).await.unwrap().unwrap();
    assert_eq!((credential.method, credential.class), (AuthMethod::Adc, IdentityClass::ServiceAccount));
    assert_eq!(credential.account().as_deref(), Some(ROBOT));
    env.read_a_sheet_as(&credential, ROBOT).await;
}

#[tokio::test]
async fn gclouds_well_known_file_is_found_through_cloudsdk_config_and_home() {
    let env = Env::new().await;
    let refresh = env.refresh_token(USER, &all_scopes());
    let path = env.user_file(&format!("gcloud-config/{WELL_KNOWN_FILE}"), &refresh);
    let config = env.dir.path().join("gcloud-config").display().to_string();
    let home = env.dir.path().join("home").display().to_string();
    let credential = env.resolve(&[("CLOUDSDK_CONFIG", &config), ("HOME", &home)]).await.unwrap().unwrap();
    assert_eq!(credential.source, CredentialSource::WellKnownFile(path.into()));
    assert_eq!((credential.method, credential.class), (AuthMethod::Adc, IdentityClass::User));
    env.read_a_sheet_as(&credential, USER).await;

    // GOOGLE_APPLICATION_CREDENTIALS comes first.
    let key = env.write("key.json", &env.key_json());
    let vars = [("GOOGLE_APPLICATION_CREDENTIALS", key.as_str()), ("CLOUDSDK_CONFIG", config.as_str())];
    assert_eq!(env.resolve(&vars).await.unwrap().unwrap().class, IdentityClass::ServiceAccount);

    // Without CLOUDSDK_CONFIG, gcloud's default folder under HOME.
    if !cfg!(windows) {
        let path = env.user_file(&format!("home/.config/gcloud/{WELL_KNOWN_FILE}"), &refresh);
        let found = env.resolve(&[("HOME", &home), ("NO_GCE_CHECK", "true")]).await.unwrap().unwrap();
        assert_eq!(found.source, CredentialSource::WellKnownFile(path.into()));
    }
}

#[tokio::test]
async fn the_metadata_server_is_the_machines_service_account() {
    let env = Env::new().await;
    env.google.world().metadata.service_account = Some(VM_ROBOT.into());
    let metadata = env.google.start_metadata_server().expect("metadata server");
    let home = env.dir.path().display().to_string();
    let credential =
        env.resolve(&[("GCE_METADATA_HOST", &metadata.host()), ("HOME", &home)]).await.unwrap().expect("found");
    assert_eq!(credential.source, CredentialSource::MetadataServer(metadata.host()));
    assert_eq!((credential.method, credential.class), (AuthMethod::Adc, IdentityClass::ServiceAccount));
    assert_eq!(credential.account().as_deref(), Some(VM_ROBOT));
    env.read_a_sheet_as(&credential, VM_ROBOT).await;
    assert_eq!(credential.granted_scopes().unwrap(), SCOPES, "the scopes asked for, as tokeninfo reports them");

    // Expired tokens are fetched again, one at a time.
    let before = env.google.world().requests.iter().filter(|r| r.path.ends_with("/token")).count();
    env.google.world().expire_access_tokens();
    let source = credential.token_source();
    source.invalidate().await;
    let tokens = futures::future::join_all((0..20).map(|_| source.token())).await;
    assert!(tokens.iter().all(Result::is_ok));
    let after = env.google.world().requests.iter().filter(|r| r.path.ends_with("/token")).count();
    assert_eq!(after - before, 1);
}

#[tokio::test]
async fn a_metadata_host_that_does_not_answer_or_has_no_account_says_so() {
    let env = Env::new().await;
    let dead = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().to_string()
    };
    let error = env.resolve(&[("GCE_METADATA_HOST", &dead)]).await.unwrap_err().to_string();
    assert!(error.contains("GCE_METADATA_HOST") && error.contains(&dead), "{error}");

    let metadata = env.google.start_metadata_server().expect("metadata server");
    let error = env.resolve(&[("GCE_METADATA_HOST", &metadata.host())]).await.unwrap_err().to_string();
    assert!(error.contains("no service account"), "{error}");

    // Nothing configured anywhere (and no probe of metadata.google.internal): no credential, no error.
    let home = env.dir.path().join("empty-home").display().to_string();
    assert!(env.resolve(&[("HOME", &home), ("NO_GCE_CHECK", "true")]).await.unwrap().is_none());
}

/// The error of resolving `GOOGLE_APPLICATION_CREDENTIALS=path`.
async fn error_for(env: &Env, path: &str) -> String {
    env.resolve(&[("GOOGLE_APPLICATION_CREDENTIALS", path)]).await.unwrap_err().to_string()
}

#[tokio::test]
async fn bad_files_name_the_file_what_is_wrong_and_what_to_do() {
    let env = Env::new().await;
    let missing = env.dir.path().join("nope.json").display().to_string();
    let error = error_for(&env, &missing).await;
    assert!(error.contains("GOOGLE_APPLICATION_CREDENTIALS") && error.contains(&missing), "{error}");
    assert!(error.contains("or unset it"), "{error}");

    let path = env.write("garbage.json", "client_id=abc");
    let error = error_for(&env, &path).await;
    assert!(error.contains(&path) && error.contains("not JSON"), "{error}");
    assert!(error.contains("gcloud auth application-default login"), "{error}");

    let path = env.write("no-token.json", &json!({ "type": "authorized_user", "client_id": CLIENT_ID }).to_string());
    let error = error_for(&env, &path).await;
    assert!(error.contains(&path) && error.contains("without client_secret"), "{error}");

    let mut key: Value = serde_json::from_str(&env.key_json()).unwrap();
    key["private_key"] = json!("-----BEGIN PRIVATE KEY-----\nnot a key\n-----END PRIVATE KEY-----\n");
    let path = env.write("bad-key.json", &key.to_string());
    let error = error_for(&env, &path).await;
    assert!(error.contains(&path) && error.contains("private_key"), "{error}");
    assert!(error.contains("Download a new JSON key"), "{error}");

    let path = env.write("wif.json", &json!({ "type": "external_account", "audience": "//iam" }).to_string());
    let error = error_for(&env, &path).await;
    assert!(error.contains(&path) && error.contains("external_account"), "{error}");

    // A broken well-known file is an error too, named as gcloud's.
    let config = env.dir.path().join("broken-gcloud");
    env.write(&format!("broken-gcloud/{WELL_KNOWN_FILE}"), "{");
    let config = config.display().to_string();
    let error = env.resolve(&[("CLOUDSDK_CONFIG", &config)]).await.unwrap_err().to_string();
    assert!(error.contains("gcloud") && error.contains(WELL_KNOWN_FILE), "{error}");
}

#[tokio::test]
async fn credentials_config_is_a_base64_service_account_key() {
    let env = Env::new().await;
    let encoded = base64::engine::general_purpose::STANDARD.encode(env.key_json());
    let vars: HashMap<&str, String> = [("CREDENTIALS_CONFIG", encoded)].into();
    let credential = adc::from_credentials_config(|name| vars.get(name).cloned(), &env.endpoints, &env.http)
        .expect("valid")
        .expect("set");
    assert_eq!(credential.method, AuthMethod::ServiceAccount);
    assert_eq!(credential.class, IdentityClass::ServiceAccount);
    assert_eq!(credential.source, CredentialSource::CredentialsConfig);
    env.read_a_sheet_as(&credential, ROBOT).await;

    let not_a_key = base64::engine::general_purpose::STANDARD.encode(r#"{"type":"authorized_user"}"#);
    let vars: HashMap<&str, String> = [("CREDENTIALS_CONFIG", not_a_key)].into();
    let error = adc::from_credentials_config(|name| vars.get(name).cloned(), &env.endpoints, &env.http)
        .unwrap_err()
        .to_string();
    assert!(error.contains("CREDENTIALS_CONFIG") && error.contains("service_account"), "{error}");
}
