//! Shared fixtures of the sign-in tests: the emulator with an OAuth client and an account, a real token store,
//! and a test that plays the browser.
#![allow(dead_code)]

use crate::support::approvals;

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use gatehouse_core::auth::{ClientConfig, ClientSource, LoginOptions, PendingLogin, SignedIn, TokenStore, UserTokens};
use gatehouse_core::config::Config;
use gatehouse_core::google::{Endpoints, GoogleClient, RetryPolicy};
use gatehouse_core::tools::all_tools;
use gatehouse_core::{Engine, EngineOptions};
use google_fake::{Account, ConsentMode, FakeGoogle, OAuthClient};
use tokio_util::sync::CancellationToken;

pub const CLIENT_ID: &str = "123-test.apps.googleusercontent.com";
pub const CLIENT_SECRET: &str = "GOCSPX-test-secret";
pub const USER: &str = "ada@example.com";
pub const OTHER_USER: &str = "grace@example.com";

/// The keychain must be real: under `scripts/test.sh` (which sets `GATEHOUSE_REQUIRE_KEYCHAIN=1` inside a
/// `dbus-run-session` with an unlocked gnome-keyring) a missing keychain fails the test; elsewhere (a plain
/// `cargo test` without a Secret Service) the keychain tests say they were skipped.
pub async fn keychain_store(home: &Path) -> Option<TokenStore> {
    let store = TokenStore::keychain(TokenStore::service_for_home(home));
    match store.accounts().await {
        Ok(_) => Some(store),
        Err(error) if std::env::var("GATEHOUSE_REQUIRE_KEYCHAIN").as_deref() == Ok("1") => {
            panic!("the keychain tests need a real Secret Service: {error}")
        }
        Err(error) => {
            eprintln!("SKIPPED: no usable keychain here ({error}); scripts/test.sh runs these tests with one");
            None
        }
    }
}

pub struct SignInWorld {
    pub google: FakeGoogle,
    pub home: tempfile::TempDir,
    pub config: Config,
    pub store: TokenStore,
    pub client: ClientConfig,
    pub endpoints: Endpoints,
    pub http: reqwest::Client,
}

impl SignInWorld {
    /// The emulator with a Desktop-app client and two accounts, and a token store in the real keychain
    /// (`None` when there is none and none is required).
    pub async fn with_keychain() -> Option<Self> {
        let home = tempfile::tempdir().expect("temp home");
        let store = keychain_store(home.path()).await?;
        Some(Self::build(home, store).await)
    }

    /// The same with the opt-in token file under the home.
    pub async fn with_file_store() -> Self {
        let home = tempfile::tempdir().expect("temp home");
        let store = TokenStore::file(home.path().join(gatehouse_core::auth::keychain::TOKEN_FILE_NAME));
        Self::build(home, store).await
    }

    async fn build(home: tempfile::TempDir, store: TokenStore) -> Self {
        let google = FakeGoogle::start().await.expect("start the emulator");
        {
            let mut world = google.world();
            world.oauth_clients.push(OAuthClient::installed(CLIENT_ID, CLIENT_SECRET));
            world.accounts.push(Account::user(USER, "Ada Lovelace"));
            world.accounts.push(Account::user(OTHER_USER, "Grace Hopper"));
            world.consent = ConsentMode::Page;
        }
        let endpoints = Endpoints::new(Some(google.url().parse().expect("emulator url")));
        let mut config = Config::with_home(home.path());
        config.google_endpoint = Some(google.url().parse().expect("emulator url"));
        let client = ClientConfig {
            client_id: CLIENT_ID.into(),
            client_secret: Some(gatehouse_core::auth::Secret::new(CLIENT_SECRET)),
            token_uri: gatehouse_core::auth::client_config::DEFAULT_TOKEN_URI.into(),
            source: ClientSource::Environment,
        };
        let http = GoogleClient::http_client(Duration::from_secs(10));
        Self { google, home, config, store, client, endpoints, http }
    }

    pub fn options(&self) -> LoginOptions {
        let mut options =
            LoginOptions::new(self.client.clone(), self.endpoints.clone(), self.http.clone(), &all_tools());
        options.timeout = Duration::from_secs(20);
        options
    }

    /// A whole sign-in as `email`, the test playing the browser on the emulator's consent page.
    pub async fn login_as(&self, email: &str) -> SignedIn {
        let pending = PendingLogin::start(self.options(), &self.store).await.expect("start the sign-in");
        let url = pending.authorize_url().to_owned();
        let browser = tokio::spawn(play_browser(url, Decision::Allow(email.to_owned())));
        let signed_in = pending.finish(CancellationToken::new()).await.expect("sign in");
        let (status, page) = browser.await.expect("browser task");
        assert_eq!(status, 200, "{page}");
        assert!(page.contains("You can close this tab"), "{page}");
        signed_in
    }

    /// The signed-in person's token source, rechecking the store on every call while signed out.
    pub fn user_tokens(&self) -> Arc<UserTokens> {
        Arc::new(
            UserTokens::new(self.store.clone(), self.endpoints.clone(), self.http.clone())
                .with_recheck_interval(Duration::ZERO),
        )
    }

    pub fn engine(&self, tokens: Arc<UserTokens>) -> Arc<Engine> {
        let engine = Engine::new(EngineOptions {
            config: self.config.clone(),
            tokens,
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

    /// How many token requests the emulator has answered so far.
    pub fn token_requests(&self) -> usize {
        self.google.world().requests.iter().filter(|r| r.path == "/token").count()
    }
}

/// What the person does on Google's consent page.
#[derive(Clone)]
pub enum Decision {
    Allow(String),
    Cancel,
}

/// Plays the browser: opens the authorize URL, answers the consent page's form, and follows the redirect to
/// the loopback listener. Returns the final page's status and text.
pub async fn play_browser(url: String, decision: Decision) -> (u16, String) {
    let browser = reqwest::Client::new();
    let response = browser.get(&url).send().await.expect("open the authorize URL");
    let final_url = response.url().clone();
    let status = response.status().as_u16();
    let page = response.text().await.expect("page text");
    if final_url.path() != "/o/oauth2/v2/auth" || !page.contains("name=\"request\"") {
        // Consent came at once (or an error page): this is where the redirect ended.
        return (status, page);
    }
    let request_id = page
        .split("name=\"request\" value=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .expect("the consent form's request id")
        .to_owned();
    let mut form = vec![("request", request_id)];
    match decision {
        Decision::Allow(email) => {
            form.push(("account", email));
            form.push(("decision", "approve".into()));
        }
        Decision::Cancel => form.push(("decision", "deny".into())),
    }
    let consent = final_url.join("/signin/oauth/consent").expect("consent URL");
    let response = browser.post(consent).form(&form).send().await.expect("post the consent form");
    let status = response.status().as_u16();
    (status, response.text().await.unwrap_or_default())
}

/// Every file under `root` (recursively) whose bytes contain `needle`.
pub fn files_containing(root: &Path, needle: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for entry in entries.flatten() {
            let path = entry.path();
            let Ok(kind) = entry.file_type() else { continue };
            if kind.is_dir() {
                stack.push(path);
            } else if kind.is_file()
                && let Ok(bytes) = std::fs::read(&path)
                && bytes.windows(needle.len()).any(|window| window == needle.as_bytes())
            {
                found.push(path.display().to_string());
            }
        }
    }
    found
}
