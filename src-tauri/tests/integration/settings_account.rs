//! The *Account* page's commands on Tauri's mock runtime, with the app's real capabilities: the browser sign-in
//! end to end through the emulator's OAuth pages (the test plays the browser), with the sign-in kept in a real
//! token file under a temp home (`GATEHOUSE_TOKEN_STORE=file`'s store, so no keychain is needed); switching
//! and signing out; the `server://auth-status` limitations of a service-account key as the page gets them; and
//! every command refused outside the settings window.

use crate::mock;

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use gatehouse_core::approval::policy::Policy;
use gatehouse_core::auth::identity::{AuthMethod, IdentityClass};
use gatehouse_core::auth::keychain::TOKEN_FILE_NAME;
use gatehouse_core::auth::state::AuthSnapshot;
use gatehouse_core::auth::{ClientConfig, ClientSource, Secret, SignInContext, TokenStore};
use gatehouse_core::config::Config;
use gatehouse_core::engine::ApprovalSetup;
use gatehouse_core::google::RetryPolicy;
use gatehouse_core::google::auth::StaticToken;
use gatehouse_core::{Engine, EngineOptions};
use gatehouse_desktop::settings::Core;
use gatehouse_desktop::settings::account::{Opener, SignIn};
use gatehouse_desktop::startup::Mode;
use gatehouse_desktop::{context, with_commands};
use google_fake::{Account, ConsentMode, FakeGoogle, OAuthClient};
use mock::{error_text, invoke};
use serde_json::{Value, json};
use tauri::test::{MockRuntime, mock_builder};
use tauri::{App, Manager, WebviewUrl, WebviewWindow, WebviewWindowBuilder};

const CLIENT_ID: &str = "123-test.apps.googleusercontent.com";
const CLIENT_SECRET: &str = "GOCSPX-test-secret";
const USER: &str = "ada@example.com";
const OTHER_USER: &str = "grace@example.com";
const ROBOT: &str = "reports@project.iam.gserviceaccount.com";

/// The account commands and a body each accepts.
/// A command's request body.
type Body = fn() -> Value;

const COMMANDS: [(&str, Body); 9] = [
    ("account_status", || json!({})),
    ("account_sign_in_start", || json!({})),
    ("account_sign_in_finish", || json!({})),
    ("account_sign_in_cancel", || json!({})),
    ("account_use", || json!({ "email": USER })),
    ("account_sign_out", || json!({ "email": USER })),
    ("account_restart", || json!({})),
    ("account_setup_open", || json!({ "step": "project" })),
    ("account_client_choose", || json!({ "contents": "{}" })),
];

/// The emulator with a Desktop-app OAuth client and two people, and the app on the mock runtime whose sign-in
/// goes there and keeps accounts in a token file under a temp home.
struct World {
    google: FakeGoogle,
    home: tempfile::TempDir,
    app: App<MockRuntime>,
    engine: Arc<Engine>,
    store: TokenStore,
    /// The URLs the app asked the browser to open.
    opened: Arc<Mutex<Vec<String>>>,
}

fn engine(home: &Path, enabled_tools: Option<Vec<String>>, auth: AuthSnapshot) -> Arc<Engine> {
    let mut config = Config::with_home(home);
    config.enabled_tools = enabled_tools;
    let engine = Engine::new(EngineOptions {
        config,
        tokens: Arc::new(StaticToken::new("token", auth.account.clone())),
        sandbox: false,
        retry: RetryPolicy::default(),
        approvals: ApprovalSetup { store: None, policy: Policy::default() },
    })
    .expect("engine");
    engine.auth().set(auth);
    engine
}

fn signed_out_sandbox() -> (Mode, AuthSnapshot) {
    let auth = AuthSnapshot {
        method: AuthMethod::OAuth,
        class: Some(IdentityClass::User),
        account: Some("sandbox@gatehouse.example".into()),
        granted_scopes: None,
    };
    (Mode::Sandbox { because_signed_out: true }, auth)
}

async fn world(mode: Mode, auth: AuthSnapshot, enabled_tools: Option<Vec<String>>, client: bool) -> World {
    let google = FakeGoogle::start().await.expect("start the emulator");
    {
        let mut world = google.world();
        world.oauth_clients.push(OAuthClient::installed(CLIENT_ID, CLIENT_SECRET));
        world.accounts.push(Account::user(USER, "Ada Lovelace"));
        world.accounts.push(Account::user(OTHER_USER, "Grace Hopper"));
        world.consent = ConsentMode::Page;
    }
    let home = tempfile::tempdir().expect("temp home");
    let mut config = Config::with_home(home.path());
    config.google_endpoint = Some(google.url().parse().expect("emulator url"));
    let store = TokenStore::file(home.path().join(TOKEN_FILE_NAME));
    let client = client.then(|| ClientConfig {
        client_id: CLIENT_ID.into(),
        client_secret: Some(Secret::new(CLIENT_SECRET)),
        token_uri: gatehouse_core::auth::client_config::DEFAULT_TOKEN_URI.into(),
        source: ClientSource::Environment,
    });
    let opened = Arc::new(Mutex::new(Vec::new()));
    let record = opened.clone();
    let opener: Opener = Arc::new(move |url: &str| {
        record.lock().expect("lock").push(url.to_owned());
        Ok(())
    });
    let sign_in = SignIn::new(SignInContext::new(config, store.clone()), client, opener, Duration::from_secs(20));

    let engine = engine(home.path(), enabled_tools, auth);
    let app = with_commands(mock_builder()).build(context()).expect("the app builds on the mock runtime");
    app.manage(Core { engine: engine.clone(), config: Config::with_home(home.path()), mode, http: None });
    app.manage(sign_in);
    World { google, home, app, engine, store, opened }
}

impl World {
    fn window(&self, label: &str) -> WebviewWindow<MockRuntime> {
        self.app.get_webview_window(label).unwrap_or_else(|| {
            WebviewWindowBuilder::new(&self.app, label, WebviewUrl::default()).build().expect("a mock window")
        })
    }

    fn status(&self) -> Value {
        invoke(&self.window("settings"), "account_status", json!({})).expect("the settings window may read it")
    }

    /// *Sign in with Google* as `email`, the test playing the browser on the emulator's consent page.
    async fn sign_in_as(&self, email: &str) -> Value {
        self.sign_in_choosing(email, json!({})).await
    }

    /// [`World::sign_in_as`], with `account_sign_in_start`'s arguments (the products chosen).
    async fn sign_in_choosing(&self, email: &str, args: Value) -> Value {
        let settings = self.window("settings");
        let started = invoke(&settings, "account_sign_in_start", args).expect("the sign-in starts");
        let url = started["url"].as_str().expect("the sign-in URL").to_owned();
        assert_eq!(started["browser_opened"], true);
        assert_eq!(self.opened.lock().expect("lock").last(), Some(&url), "the browser was opened on it");
        let browser = tokio::spawn(play_browser(url, Some(email.to_owned())));
        let finished = invoke_async(&settings, "account_sign_in_finish", json!({})).await;
        let (status, page) = browser.await.expect("browser task");
        assert_eq!(status, 200, "{page}");
        finished.expect("the sign-in finishes")
    }
}

/// [`invoke`] off the test's threads, for a command that waits on something the test does meanwhile.
async fn invoke_async(window: &WebviewWindow<MockRuntime>, command: &'static str, body: Value) -> Result<Value, Value> {
    let window = window.clone();
    tokio::task::spawn_blocking(move || invoke(&window, command, body)).await.expect("the command's thread")
}

/// Plays the browser: opens the authorize URL, answers the consent page (`Some(email)` allows as that person,
/// `None` cancels) and follows the redirect to the app's loopback listener. Returns the last page.
async fn play_browser(url: String, allow_as: Option<String>) -> (u16, String) {
    let browser = reqwest::Client::new();
    let response = browser.get(&url).send().await.expect("open the authorize URL");
    let final_url = response.url().clone();
    let status = response.status().as_u16();
    let page = response.text().await.expect("page text");
    if final_url.path() != "/o/oauth2/v2/auth" || !page.contains("name=\"request\"") {
        return (status, page);
    }
    let request_id = page
        .split("name=\"request\" value=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .expect("the consent form's request id")
        .to_owned();
    let mut form = vec![("request", request_id)];
    match allow_as {
        Some(email) => {
            form.push(("account", email));
            form.push(("decision", "approve".into()));
        }
        None => form.push(("decision", "deny".into())),
    }
    let consent = final_url.join("/signin/oauth/consent").expect("consent URL");
    let response = browser.post(consent).form(&form).send().await.expect("post the consent form");
    let status = response.status().as_u16();
    (status, response.text().await.unwrap_or_default())
}

fn emails(status: &Value) -> Vec<(String, bool)> {
    status["accounts"]
        .as_array()
        .expect("accounts")
        .iter()
        .map(|account| (account["email"].as_str().expect("email").to_owned(), account["active"] == true))
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn signing_in_from_the_sandbox_keeps_the_account_for_the_restart() {
    let (mode, auth) = signed_out_sandbox();
    // Only two Sheets tools are enabled: the sign-in asks for what they need and no more.
    let world = world(mode, auth, Some(vec!["get_sheet_data".into(), "update_cells".into()]), true).await;

    let before = world.status();
    assert_eq!((before["sandbox"].as_bool(), before["sandbox_because_signed_out"].as_bool()), (Some(true), Some(true)));
    // The header knows why the sandbox is in use too, to say it beside the badge.
    let header = invoke(&world.window("settings"), "settings_overview", json!({})).expect("the header");
    assert_eq!((header["sandbox"].as_bool(), header["sandbox_because_signed_out"].as_bool()), (Some(true), Some(true)));
    assert_eq!(before["accounts"], json!([]));
    assert_eq!(before["accounts_problem"], Value::Null);
    assert_eq!(before["sign_in_problem"], Value::Null);
    // Where sign-ins are kept, in plain words; the file's path only in the detail a developer can look at.
    assert_eq!(before["kept_in"], "in a private file on this computer", "{before}");
    assert!(before["kept_in_detail"].as_str().expect("where exactly").contains(TOKEN_FILE_NAME), "{before}");
    assert_eq!(before["waiting_cards"], 0);

    let signed_in = world.sign_in_as(USER).await;
    assert_eq!(signed_in["email"], USER);
    assert_eq!(signed_in["missing_scopes"], json!([]));

    // What Google was asked: the enabled tools' scope only, with PKCE, for offline use.
    let asked = world.google.world().oauth.authorize_requests.last().cloned().expect("an authorize request");
    let param = |name: &str| asked.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone()).unwrap_or_default();
    let scope = param("scope");
    assert!(scope.contains("https://www.googleapis.com/auth/spreadsheets"), "{scope}");
    assert!(!scope.contains("auth/drive") && !scope.contains("auth/documents"), "{scope}");
    assert_eq!((param("code_challenge_method"), param("access_type")), ("S256".into(), "offline".into()));

    // The account is kept (the restarted app resolves it) and the page lists it as the one in use.
    assert_eq!(world.store.active().await.expect("read").map(|account| account.email).as_deref(), Some(USER));
    assert!(world.home.path().join(TOKEN_FILE_NAME).exists());
    let after = world.status();
    assert_eq!(emails(&after), [(USER.to_owned(), true)]);
    assert_eq!(after["signing_in"], false);
}

/// Google's consent page lists every permission asked for: the page offers the products the enabled tools use,
/// suggests Sheets, Docs and Drive but not mail or calendars, and the sign-in asks for the ticked ones only.
/// The tools of the others are then listed as not allowed, with how to allow them.
#[tokio::test(flavor = "multi_thread")]
async fn the_sign_in_asks_only_for_the_products_ticked() {
    let (mode, auth) = signed_out_sandbox();
    let world = world(mode, auth, None, true).await;
    let offered = world.status()["products"].clone();
    let keys = |filter: &dyn Fn(&Value) -> bool| -> Vec<String> {
        offered
            .as_array()
            .expect("products")
            .iter()
            .filter(|p| filter(p))
            .map(|p| p["key"].as_str().expect("key").to_owned())
            .collect()
    };
    assert_eq!(keys(&|_| true), ["sheets", "docs", "drive", "calendar", "gmail"], "{offered}");
    assert_eq!(keys(&|p| p["suggested"] == true), ["sheets", "docs", "drive"], "{offered}");
    assert_eq!(offered[0]["name"], "Google Sheets");
    assert_eq!(offered[0]["allows"], "read and change your spreadsheets");

    // Nothing, or something no enabled tool uses: refused in words, nothing started.
    let settings = world.window("settings");
    let refused = error_text(invoke(&settings, "account_sign_in_start", json!({ "products": [] })));
    assert_eq!(refused, "Choose at least one Google product for your assistants to use, then sign in.");
    let refused = error_text(invoke(&settings, "account_sign_in_start", json!({ "products": ["photos"] })));
    assert!(refused.starts_with("\"photos\" is not a Google product"), "{refused}");
    assert!(world.google.world().oauth.authorize_requests.is_empty(), "a refused choice reached Google");

    let signed_in = world.sign_in_choosing(USER, json!({ "products": ["sheets", "docs"] })).await;
    assert_eq!(signed_in["missing_scopes"], json!([]), "{signed_in}");
    let scopes = world.google.world().oauth.last_scopes_asked();
    assert_eq!(
        scopes,
        [
            "email",
            "https://www.googleapis.com/auth/documents",
            "https://www.googleapis.com/auth/spreadsheets",
            "openid"
        ]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn another_account_can_be_used_and_one_signed_out_is_revoked_at_google() {
    let auth = AuthSnapshot {
        method: AuthMethod::OAuth,
        class: Some(IdentityClass::User),
        account: Some(USER.into()),
        granted_scopes: None,
    };
    let mode = Mode::Account { account: Some(USER.into()), method: AuthMethod::OAuth };
    let world = world(mode, auth, None, true).await;
    world.sign_in_as(USER).await;
    world.sign_in_as(OTHER_USER).await;
    assert_eq!(emails(&world.status()), [(USER.to_owned(), false), (OTHER_USER.to_owned(), true)]);
    let settings = world.window("settings");

    assert_eq!(invoke(&settings, "account_use", json!({ "email": USER })), Ok(json!(USER)));
    assert_eq!(emails(&world.status()), [(USER.to_owned(), true), (OTHER_USER.to_owned(), false)]);
    let unknown = error_text(invoke(&settings, "account_use", json!({ "email": "linus@example.com" })));
    assert!(unknown.contains("linus@example.com is not signed in to Gatehouse"), "{unknown}");

    let live = |email: &str| {
        world.google.world().oauth.refresh_tokens.values().filter(|grant| grant.identity.email == email).count()
    };
    assert_eq!(live(OTHER_USER), 1);
    let out = invoke_async(&settings, "account_sign_out", json!({ "email": OTHER_USER })).await.expect("signed out");
    assert_eq!(out["email"], OTHER_USER);
    assert_eq!(out["revoke_problem"], Value::Null, "Google confirmed the revocation");
    assert_eq!(out["now_active"], USER);
    assert_eq!(live(OTHER_USER), 0, "the refresh token no longer works at Google");
    assert_eq!(emails(&world.status()), [(USER.to_owned(), true)]);

    // Without an account named: the active one.
    let out = invoke_async(&settings, "account_sign_out", json!({})).await.expect("signed out");
    assert_eq!((out["email"].as_str(), &out["now_active"]), (Some(USER), &Value::Null));
    assert_eq!(world.status()["accounts"], json!([]));
    let again = error_text(invoke_async(&settings, "account_sign_out", json!({})).await);
    assert!(again.contains("No Google account is signed in"), "{again}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_cancelled_or_refused_sign_in_stores_nothing() {
    let (mode, auth) = signed_out_sandbox();
    let world = world(mode, auth, None, true).await;
    let settings = world.window("settings");

    // Cancelled while waiting for the browser.
    invoke(&settings, "account_sign_in_start", json!({})).expect("started");
    assert_eq!(world.status()["signing_in"], true);
    let finishing = tokio::spawn({
        let settings = settings.clone();
        async move { invoke_async(&settings, "account_sign_in_finish", json!({})).await }
    });
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(invoke(&settings, "account_sign_in_cancel", json!({})), Ok(Value::Null));
    let cancelled = error_text(finishing.await.expect("the finish returns"));
    assert!(cancelled.contains("cancelled") && cancelled.contains("Nothing was stored"), "{cancelled}");
    assert_eq!(world.status()["signing_in"], false);

    // Nothing to finish.
    let nothing = error_text(invoke(&settings, "account_sign_in_finish", json!({})));
    assert!(nothing.contains("No sign-in is waiting"), "{nothing}");

    // The person presses Cancel on Google's page.
    let started = invoke(&settings, "account_sign_in_start", json!({})).expect("started");
    let browser = tokio::spawn(play_browser(started["url"].as_str().expect("url").to_owned(), None));
    let denied = error_text(invoke_async(&settings, "account_sign_in_finish", json!({})).await);
    assert!(denied.contains("Access was not granted") && denied.contains("Nothing was stored"), "{denied}");
    browser.await.expect("browser");

    assert_eq!(world.store.accounts().await.expect("read").accounts, Vec::<String>::new());
    assert!(world.google.world().oauth.refresh_tokens.is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn without_an_oauth_client_the_page_says_what_is_missing() {
    let (mode, auth) = signed_out_sandbox();
    let world = world(mode, auth, None, false).await;
    let problem = world.status()["sign_in_problem"].as_str().expect("a problem").to_owned();
    assert!(problem.contains("no OAuth client"), "{problem}");
    let refused = error_text(invoke(&world.window("settings"), "account_sign_in_start", json!({})));
    assert_eq!(refused, problem);
    assert!(world.opened.lock().expect("lock").is_empty(), "no browser was opened");
}

#[tokio::test(flavor = "multi_thread")]
async fn without_a_client_the_steps_open_google_cloud_and_a_chosen_desktop_client_is_kept_for_sign_in() {
    let (mode, auth) = signed_out_sandbox();
    let world = world(mode, auth, None, false).await;
    let status = world.status();
    assert_eq!(status["client_missing"], true);
    let keys: Vec<&str> =
        status["setup_steps"].as_array().expect("steps").iter().filter_map(|step| step["key"].as_str()).collect();
    assert_eq!(keys, ["project", "apis", "mcp_apis", "consent", "client"]);
    let settings = world.window("settings");

    // A step's button opens its console page, and only a step's page: the window names steps, not addresses.
    let opened = invoke(&settings, "account_setup_open", json!({ "step": "client" })).expect("the console opens");
    assert_eq!(opened["browser_opened"], true);
    assert_eq!(opened["url"], "https://console.cloud.google.com/apis/credentials/oauthclient");
    assert_eq!(world.opened.lock().expect("lock").as_slice(), [opened["url"].as_str().unwrap_or_default()]);
    let unknown = error_text(invoke(&settings, "account_setup_open", json!({ "step": "https://evil.example" })));
    assert!(unknown.contains("There is no setup step"), "{unknown}");
    assert_eq!(world.opened.lock().expect("lock").len(), 1);

    // A web client is refused in words; nothing is kept and sign-in stays off.
    let kept = world.home.path().join(gatehouse_core::auth::client_config::KEPT_FILE);
    let web = json!({ "web": { "client_id": CLIENT_ID, "client_secret": CLIENT_SECRET } }).to_string();
    let refused = error_text(invoke(&settings, "account_client_choose", json!({ "contents": web })));
    assert!(refused.contains("Web application") && refused.contains("Desktop app"), "{refused}");
    assert!(!kept.exists());
    assert_eq!(world.status()["client_missing"], true);

    // A Desktop client: kept 0600, and Sign in with Google works at once (no restart, no variable).
    let desktop = json!({ "installed": { "client_id": CLIENT_ID, "client_secret": CLIENT_SECRET,
        "token_uri": "https://oauth2.googleapis.com/token", "redirect_uris": ["http://localhost"] } })
    .to_string();
    let chosen = invoke(&settings, "account_client_choose", json!({ "contents": desktop })).expect("kept");
    assert_eq!(chosen["client_id"], CLIENT_ID);
    assert_eq!(chosen["sign_in_again"], false, "nobody was signed in");
    let mode = std::os::unix::fs::PermissionsExt::mode(&std::fs::metadata(&kept).expect("kept").permissions());
    assert_eq!(mode & 0o777, 0o600);
    let status = world.status();
    assert_eq!(status["sign_in_problem"], Value::Null, "{status}");
    assert_eq!(status["client_missing"], false);
    assert_eq!(status["client_source"], "the client file you chose");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_service_account_key_shows_its_limitations_with_what_to_do_instead() {
    let auth = AuthSnapshot {
        method: AuthMethod::ServiceAccount,
        class: Some(IdentityClass::ServiceAccount),
        account: Some(ROBOT.into()),
        granted_scopes: None,
    };
    let mode = Mode::Account { account: Some(ROBOT.into()), method: AuthMethod::ServiceAccount };
    let world = world(mode, auth, None, true).await;
    let status = world.status();
    assert_eq!((status["account"].as_str(), status["method"].as_str()), (Some(ROBOT), Some("service_account")));
    assert_eq!(status["service_account"], true);
    assert_eq!(status["sandbox"], false);

    // The same entries server://auth-status holds, in its order, with each tool's title.
    let resource = world.engine.auth_status();
    let categories: Vec<&str> =
        status["limitations"].as_array().expect("limitations").iter().filter_map(|l| l["category"].as_str()).collect();
    // `uses_rest_api`: with the default backend (`both`), the tools Google's MCP servers can't run still use a
    // REST API for an AI agent (issue 17, item 4).
    assert_eq!(categories, ["no_drive_storage_quota", "no_personal_drive_identity", "no_mailbox", "uses_rest_api"]);
    for (shown, core) in
        status["limitations"].as_array().expect("shown").iter().zip(resource["limitations"].as_array().expect("core"))
    {
        assert_eq!(shown["reason"], core["reason"]);
        assert_eq!(shown["alternatives"], core["alternatives"]);
        let names: Vec<&Value> = shown["tools"].as_array().expect("tools").iter().map(|tool| &tool["name"]).collect();
        assert_eq!(names, core["tools"].as_array().expect("tools").iter().collect::<Vec<_>>());
        assert!(shown["tools"].as_array().expect("tools").iter().all(|tool| tool["title"].is_string()), "{shown}");
        let alternatives = shown["alternatives"].as_array().expect("alternatives");
        assert!(!alternatives.is_empty());
        // Never the method already in use.
        assert!(alternatives.iter().all(|alt| !alt.as_str().unwrap_or_default().contains("SERVICE_ACCOUNT_PATH")));
    }
    let storage = &status["limitations"][0];
    assert!(storage["reason"].as_str().expect("reason").contains("no Drive storage"), "{storage}");
    let tools: Vec<&str> =
        storage["tools"].as_array().expect("tools").iter().filter_map(|t| t["name"].as_str()).collect();
    assert!(tools.contains(&"copy_file"), "{tools:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_account_commands_answer_only_the_settings_window() {
    let (mode, auth) = signed_out_sandbox();
    let world = world(mode, auth, None, true).await;
    for label in ["card", "main"] {
        let window = world.window(label);
        for (command, body) in COMMANDS {
            let text = error_text(invoke(&window, command, body()));
            assert!(text.contains(command) && text.contains("not allowed"), "{label} {command}: {text}");
        }
    }
    assert!(world.opened.lock().expect("lock").is_empty(), "no refused command ran");
    // And the card's answer stays the card's.
    let settings = world.window("settings");
    let text = error_text(invoke(&settings, "card_answer", json!({ "id": 1, "answer": "AllowOnce" })));
    assert!(text.contains("card_answer") && text.contains("not allowed"), "{text}");
}
