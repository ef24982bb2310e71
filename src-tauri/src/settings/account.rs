//! The *Account* page: who Gatehouse acts as and how, every signed-in Google account (*Use this account*),
//! *Sign in with Google*, *Sign out*, and what this kind of sign-in cannot do (the `server://auth-status`
//! limitations, as the core builds them).
//!
//! Without an OAuth client, *How to set it up* guides the person through getting one in Google Cloud (the
//! core's [`SETUP_STEPS`], each opening its console page: [`account_setup_open`]) and takes the downloaded
//! file ([`account_client_choose`]), which the core checks and keeps in `GATEHOUSE_HOME`: *Sign in with
//! Google* works at once, with no terminal and no environment variable.
//!
//! The sign-in is the core's browser flow (the one `gatehouse login` runs): [`account_sign_in_start`] opens the
//! browser on Google's page and [`account_sign_in_finish`] waits for Google to send it back. The running core
//! keeps the sign-in it started with, so after signing in, switching or signing out the page tells the person
//! and restarts the app ([`account_restart`]): the normal shutdown denies what is waiting, and the new start
//! resolves the sign-in afresh (out of the sandbox once someone is signed in).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use gatehouse_core::auth::client_config::{self, SETUP_STEPS, SetupStep};
use gatehouse_core::auth::login::DEFAULT_TIMEOUT;
use gatehouse_core::auth::products::{self, Product};
use gatehouse_core::auth::{ClientConfig, ClientSource, PendingLogin, SignInContext, open_browser};
use serde::{Deserialize, Serialize};
use tauri::{AppHandle, Manager, Runtime, State};
use tokio_util::sync::CancellationToken;

use super::Core;
use crate::Result;
use crate::startup::Mode;

/// Opens a URL in the person's browser; an error means none could be started (the page then shows the URL).
pub type Opener = Arc<dyn Fn(&str) -> std::io::Result<()> + Send + Sync>;

/// What the page's sign-in needs, and the sign-in waiting for the browser. Managed on first use, from the
/// environment (tests manage their own, pointed at the emulator).
pub struct SignIn {
    context: Result<SignInContext, String>,
    /// The OAuth client signing in needs; its absence is said on the page, in the core's words. Replaced when
    /// the person chooses a client file.
    client: Mutex<Result<ClientConfig, ClientProblem>>,
    opener: Opener,
    timeout: Duration,
    waiting: Mutex<Option<PendingLogin>>,
    cancel: Mutex<Option<CancellationToken>>,
}

impl SignIn {
    /// The token store, Google hosts and OAuth client the environment names, as `gatehouse login` uses them.
    pub fn from_env() -> Self {
        Self {
            context: SignInContext::from_env().map_err(|error| error.to_string()),
            client: Mutex::new(ClientConfig::from_env().map_err(ClientProblem::from)),
            opener: Arc::new(open_browser),
            timeout: DEFAULT_TIMEOUT,
            waiting: Mutex::new(None),
            cancel: Mutex::new(None),
        }
    }

    /// Signing in to `context`'s store with `client`, opening URLs with `opener`, waiting at most `timeout`.
    pub fn new(context: SignInContext, client: Option<ClientConfig>, opener: Opener, timeout: Duration) -> Self {
        let client = Mutex::new(client.ok_or(ClientProblem::Missing));
        Self { context: Ok(context), client, opener, timeout, waiting: Mutex::new(None), cancel: Mutex::new(None) }
    }

    fn client(&self) -> Result<ClientConfig, ClientProblem> {
        self.client.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).clone()
    }

    fn context(&self) -> Result<&SignInContext, String> {
        self.context.as_ref().map_err(Clone::clone)
    }

    fn take_waiting(&self) -> Option<PendingLogin> {
        self.waiting.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).take()
    }

    /// Ends the sign-in in progress, if any: the one waiting for the browser and the one being finished.
    fn cancel_any(&self) {
        drop(self.take_waiting());
        if let Some(cancel) = self.cancel.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).take() {
            cancel.cancel();
        }
    }

    fn in_progress(&self) -> bool {
        let waiting = self.waiting.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).is_some();
        waiting || self.cancel.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).is_some()
    }
}

/// Why *Sign in with Google* can't work yet.
#[derive(Debug, Clone)]
enum ClientProblem {
    /// No OAuth client at all: the page shows the guided steps.
    Missing,
    /// One was named but can't be used (an unreadable file, say), in the core's words.
    Unusable(String),
}

impl From<gatehouse_core::auth::ClientConfigError> for ClientProblem {
    fn from(error: gatehouse_core::auth::ClientConfigError) -> Self {
        match error {
            gatehouse_core::auth::ClientConfigError::Missing => Self::Missing,
            other => Self::Unusable(other.to_string()),
        }
    }
}

impl std::fmt::Display for ClientProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Missing => gatehouse_core::auth::ClientConfigError::Missing.fmt(f),
            Self::Unusable(words) => f.write_str(words),
        }
    }
}

/// The app's [`SignIn`], managed from the environment the first time a command needs it.
fn sign_in<R: Runtime>(app: &AppHandle<R>) -> State<'_, SignIn> {
    if app.try_state::<SignIn>().is_none() {
        app.manage(SignIn::from_env());
    }
    app.state::<SignIn>()
}

/// A signed-in Google account as the page lists it.
#[derive(Debug, Clone, Serialize)]
pub struct KnownAccount {
    pub email: String,
    /// The account Gatehouse uses (from the next start, when it was just switched).
    pub active: bool,
}

/// A tool as a limitation card names it.
#[derive(Debug, Clone, Serialize)]
pub struct ToolName {
    pub name: String,
    /// Its plain-words label ("Copy file"), when the running core offers it.
    pub title: Option<String>,
}

/// One `server://auth-status` limitation, as the core wrote it.
#[derive(Debug, Clone, Serialize)]
pub struct Limitation {
    pub category: String,
    pub reason: String,
    pub alternatives: Vec<String>,
    pub tools: Vec<ToolName>,
}

/// The `limitations` entries of `server://auth-status` (read, not re-derived).
#[derive(Deserialize)]
struct StatusEntry {
    category: String,
    reason: String,
    #[serde(default)]
    alternatives: Vec<String>,
    #[serde(default)]
    tools: Vec<String>,
}

/// What the Account page shows.
#[derive(Debug, Clone, Serialize)]
pub struct AccountView {
    /// The sample files of the built-in emulator are in use.
    pub sandbox: bool,
    /// The app chose the sandbox itself because nobody was signed in.
    pub sandbox_because_signed_out: bool,
    /// The account Gatehouse acts as now.
    pub account: Option<String>,
    /// How it signed in: `oauth`, `service_account`, `adc` or `none` (`server://auth-status`'s `auth_method`).
    pub method: String,
    pub service_account: bool,
    /// Every Google account signed in to Gatehouse.
    pub accounts: Vec<KnownAccount>,
    /// Why the signed-in accounts could not be read (a locked keychain, say).
    pub accounts_problem: Option<String>,
    /// Where the sign-in is kept, in a person's words ("in this computer's keyring").
    pub kept_in: Option<String>,
    /// The same with the keychain service or file path, for a developer (a tooltip, not the page's text).
    pub kept_in_detail: Option<String>,
    pub warnings: Vec<String>,
    pub limitations: Vec<Limitation>,
    /// The Google products a sign-in may ask for, to offer as choices (ticked when `suggested`).
    pub products: Vec<Product>,
    /// Why *Sign in with Google* can't work here (no OAuth client), in the core's words.
    pub sign_in_problem: Option<String>,
    /// There is no OAuth client at all: the page guides the person through getting one ([`Self::setup_steps`]).
    pub client_missing: bool,
    /// Where the OAuth client comes from, in words ("chosen in the Gatehouse window"), when there is one.
    pub client_source: Option<String>,
    /// The steps to an OAuth client in Google Cloud, each with the console page its button opens.
    pub setup_steps: &'static [SetupStep],
    /// The largest client file the page sends (the core checks again).
    pub client_file_max_bytes: u64,
    /// A sign-in is waiting for the browser.
    pub signing_in: bool,
    /// Approval cards waiting for an answer: a restart refuses them.
    pub waiting_cards: usize,
}

/// The Account page.
#[tauri::command]
pub async fn account_status<R: Runtime>(app: AppHandle<R>, core: State<'_, Core>) -> Result<AccountView> {
    let sign_in = sign_in(&app);
    let client = sign_in.client();
    let auth = core.engine.auth().current();
    let status = core.engine.auth_status();
    let entries: Vec<StatusEntry> = serde_json::from_value(status["limitations"].clone())
        .map_err(|error| format!("Gatehouse could not read its own sign-in status ({error}). Restart Gatehouse."))?;
    let limitations = entries
        .into_iter()
        .map(|entry| Limitation {
            tools: entry
                .tools
                .into_iter()
                .map(|name| {
                    let title = core.engine.tool(&name).map(|tool| tool.meta.title.to_owned());
                    ToolName { name, title }
                })
                .collect(),
            category: entry.category,
            reason: entry.reason,
            alternatives: entry.alternatives,
        })
        .collect();
    let (mut accounts, mut accounts_problem, mut warnings) = (Vec::new(), None, Vec::new());
    let (mut kept_in, mut kept_in_detail) = (None, None);
    match sign_in.context() {
        Ok(context) => {
            kept_in = Some(context.store.plain_words().to_owned());
            kept_in_detail = Some(context.store.describe());
            warnings = context.store.warnings();
            match context.store.accounts().await {
                Ok(list) => {
                    accounts = list
                        .accounts
                        .iter()
                        .map(|email| KnownAccount {
                            active: list.active.as_deref() == Some(email.as_str()),
                            email: email.clone(),
                        })
                        .collect();
                }
                Err(error) => accounts_problem = Some(error.to_string()),
            }
        }
        Err(problem) => accounts_problem = Some(problem),
    }
    Ok(AccountView {
        sandbox: matches!(core.mode, Mode::Sandbox { .. }),
        sandbox_because_signed_out: matches!(core.mode, Mode::Sandbox { because_signed_out: true }),
        account: auth.account,
        method: auth.method.as_str().to_owned(),
        service_account: status["is_service_account_identity"].as_bool().unwrap_or(false),
        accounts,
        accounts_problem,
        kept_in,
        kept_in_detail,
        warnings,
        limitations,
        products: products::offered(core.engine.tools(), auth.granted_scopes.as_deref()),
        sign_in_problem: client.as_ref().err().map(ToString::to_string),
        client_missing: matches!(client, Err(ClientProblem::Missing)),
        client_source: client.as_ref().ok().map(|client| match &client.source {
            ClientSource::Kept(_) => "the client file you chose".to_owned(),
            other => other.to_string(),
        }),
        setup_steps: SETUP_STEPS,
        client_file_max_bytes: client_config::MAX_CLIENT_FILE_BYTES,
        signing_in: sign_in.in_progress(),
        waiting_cards: core.engine.approvals().broker().pending().len(),
    })
}

/// A sign-in waiting for the person in the browser.
#[derive(Debug, Clone, Serialize)]
pub struct SignInStarted {
    /// Google's sign-in page, for the person to open themselves when the browser did not start.
    pub url: String,
    pub browser_opened: bool,
}

/// *Sign in with Google*: opens the browser on Google's sign-in page, asking for the scopes the enabled tools of
/// the chosen `products` need (keys of [`AccountView::products`]; all of them when none are named). A sign-in
/// already waiting is cancelled first. Then call [`account_sign_in_finish`].
#[tauri::command]
pub async fn account_sign_in_start<R: Runtime>(
    app: AppHandle<R>,
    core: State<'_, Core>,
    products: Option<Vec<String>>,
) -> Result<SignInStarted> {
    let tools = match &products {
        Some(keys) => products::chosen(core.engine.tools(), keys).map_err(|error| error.to_string())?,
        None => core.engine.tools().to_vec(),
    };
    let sign_in = sign_in(&app);
    sign_in.cancel_any();
    let context = sign_in.context()?;
    let client = sign_in.client().map_err(|problem| problem.to_string())?;
    let mut options = context.login_options(client, &tools);
    options.timeout = sign_in.timeout;
    let pending = PendingLogin::start(options, &context.store).await.map_err(|error| error.to_string())?;
    let url = pending.authorize_url().to_owned();
    *sign_in.waiting.lock().unwrap_or_else(|poisoned| poisoned.into_inner()) = Some(pending);
    let browser_opened = match (sign_in.opener)(&url) {
        Ok(()) => true,
        Err(error) => {
            tracing::warn!("the browser could not be opened for the sign-in: {error}");
            false
        }
    };
    Ok(SignInStarted { url, browser_opened })
}

/// A console page opened for a setup step.
#[derive(Debug, Clone, Serialize)]
pub struct ConsoleOpened {
    /// The page, for the person to open themselves when the browser did not start.
    pub url: &'static str,
    pub browser_opened: bool,
}

/// A setup step's button: opens the Google Cloud console page of step `step` (a key of the core's
/// [`SETUP_STEPS`]) in the person's browser. Only those pages: the window names a step, never an address.
#[tauri::command]
pub fn account_setup_open<R: Runtime>(app: AppHandle<R>, step: String) -> Result<ConsoleOpened> {
    let found = SETUP_STEPS
        .iter()
        .find(|known| known.key == step)
        .ok_or_else(|| format!("There is no setup step {step:?}. Reopen the Account page and try again."))?;
    let browser_opened = match (sign_in(&app).opener)(found.url) {
        Ok(()) => true,
        Err(error) => {
            tracing::warn!("the browser could not be opened on Google Cloud's console: {error}");
            false
        }
    };
    Ok(ConsoleOpened { url: found.url, browser_opened })
}

/// A client file the person chose, as kept.
#[derive(Debug, Clone, Serialize)]
pub struct ClientChosen {
    pub client_id: String,
    /// Someone is signed in already: their sign-in keeps the client it was made with until they sign in again.
    pub sign_in_again: bool,
}

/// *Choose the downloaded file…* (or a file dropped on the page): `contents` is the file's text, which the core
/// checks (a Desktop client, not a web one; see [`client_config::check_chosen`]) and keeps in
/// `GATEHOUSE_HOME`, readable by this user only. *Sign in with Google* uses it at once. A client named in the
/// environment (`CREDENTIALS_PATH`, `GATEHOUSE_OAUTH_CLIENT_ID`) still comes first, as for `gatehouse login`.
#[tauri::command]
pub async fn account_client_choose<R: Runtime>(
    app: AppHandle<R>,
    core: State<'_, Core>,
    contents: String,
) -> Result<ClientChosen> {
    let sign_in = sign_in(&app);
    let kept = client_config::keep_chosen(&core.config.home, contents.as_bytes()).map_err(|error| error.to_string())?;
    tracing::info!("an OAuth client file was chosen on the Account page");
    let client_id = kept.client_id.clone();
    // What signing in uses now: the environment's client if one is named there, else the one just kept.
    let now = ClientConfig::find(Some(&core.config.home), |name| std::env::var(name).ok()).unwrap_or(kept);
    *sign_in.client.lock().unwrap_or_else(|poisoned| poisoned.into_inner()) = Ok(now);
    Ok(ClientChosen { client_id, sign_in_again: matches!(core.mode, Mode::Account { .. }) })
}

/// A finished sign-in.
#[derive(Debug, Clone, Serialize)]
pub struct SignedInView {
    pub email: String,
    /// Permissions the person unticked on Google's page: the tools needing them won't work.
    pub missing_scopes: Vec<String>,
}

/// Waits for the sign-in [`account_sign_in_start`] began to finish in the browser (or to be cancelled, or to
/// time out), and keeps the account: it becomes the active one.
#[tauri::command]
pub async fn account_sign_in_finish<R: Runtime>(app: AppHandle<R>) -> Result<SignedInView> {
    let sign_in = sign_in(&app);
    let pending =
        sign_in.take_waiting().ok_or("No sign-in is waiting. Press Sign in with Google to start one.".to_owned())?;
    let cancel = CancellationToken::new();
    *sign_in.cancel.lock().unwrap_or_else(|poisoned| poisoned.into_inner()) = Some(cancel.clone());
    let finished = pending.finish(cancel).await;
    sign_in.cancel.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).take();
    let signed_in = finished.map_err(|error| error.to_string())?;
    tracing::info!(account = %signed_in.email, "signed in from the Account page");
    Ok(SignedInView { email: signed_in.email, missing_scopes: signed_in.missing_scopes })
}

/// Stops the sign-in in progress; nothing is stored.
#[tauri::command]
pub fn account_sign_in_cancel<R: Runtime>(app: AppHandle<R>) {
    sign_in(&app).cancel_any();
}

/// *Use this account*: makes another signed-in account the active one (as `gatehouse use EMAIL`).
#[tauri::command]
pub async fn account_use<R: Runtime>(app: AppHandle<R>, email: String) -> Result<String> {
    let sign_in = sign_in(&app);
    let context = sign_in.context()?;
    let email = context.use_account(&email).await.map_err(|error| error.to_string())?;
    tracing::info!(account = %email, "made the active account from the Account page");
    Ok(email)
}

/// What signing out did.
#[derive(Debug, Clone, Serialize)]
pub struct SignedOutView {
    pub email: String,
    /// Why Google could not confirm the revocation (the sign-in was deleted here all the same).
    pub revoke_problem: Option<String>,
    /// The account that is active now, if another is still signed in.
    pub now_active: Option<String>,
}

/// *Sign out*: revokes the account's access at Google and deletes it from the keychain (as `gatehouse logout`);
/// `email` absent = the active account.
#[tauri::command]
pub async fn account_sign_out<R: Runtime>(app: AppHandle<R>, email: Option<String>) -> Result<SignedOutView> {
    let sign_in = sign_in(&app);
    let context = sign_in.context()?;
    let out = context.sign_out(email.as_deref()).await.map_err(|error| error.to_string())?;
    tracing::info!(account = %out.email, "signed out from the Account page");
    Ok(SignedOutView { email: out.email, revoke_problem: out.revoke_problem, now_active: out.now_active })
}

/// Restarts Gatehouse so a changed sign-in or setting is used: the app exits the normal way (what is waiting
/// is refused, the core stopped), then starts again with the same options.
#[tauri::command]
pub fn account_restart<R: Runtime>(app: AppHandle<R>) {
    restart(&app);
}

/// The restart behind every *Restart now*.
pub(crate) fn restart<R: Runtime>(app: &AppHandle<R>) {
    tracing::info!("restarting, as asked in the settings window");
    if let Some(sign_in) = app.try_state::<SignIn>() {
        sign_in.cancel_any();
    }
    app.request_restart();
}
