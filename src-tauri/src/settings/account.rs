//! The *Account* page: who Gatehouse acts as and how, every signed-in Google account (*Use this account*),
//! *Sign in with Google*, *Sign out*, and what this kind of sign-in cannot do (the `server://auth-status`
//! limitations, as the core builds them).
//!
//! The sign-in is the core's browser flow (the one `gatehouse login` runs): [`account_sign_in_start`] opens the
//! browser on Google's page and [`account_sign_in_finish`] waits for Google to send it back. The running core
//! keeps the sign-in it started with, so after signing in, switching or signing out the page tells the person
//! and restarts the app ([`account_restart`]): the normal shutdown denies what is waiting, and the new start
//! resolves the sign-in afresh (out of the sandbox once someone is signed in).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use gatehouse_core::auth::login::DEFAULT_TIMEOUT;
use gatehouse_core::auth::products::{self, Product};
use gatehouse_core::auth::{ClientConfig, PendingLogin, SignInContext, open_browser};
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
    /// The OAuth client signing in needs; its absence is said on the page, in the core's words.
    client: Result<ClientConfig, String>,
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
            client: ClientConfig::from_env().map_err(|error| error.to_string()),
            opener: Arc::new(open_browser),
            timeout: DEFAULT_TIMEOUT,
            waiting: Mutex::new(None),
            cancel: Mutex::new(None),
        }
    }

    /// Signing in to `context`'s store with `client`, opening URLs with `opener`, waiting at most `timeout`.
    pub fn new(context: SignInContext, client: Option<ClientConfig>, opener: Opener, timeout: Duration) -> Self {
        let client = client.ok_or_else(|| gatehouse_core::auth::ClientConfigError::Missing.to_string());
        Self { context: Ok(context), client, opener, timeout, waiting: Mutex::new(None), cancel: Mutex::new(None) }
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
    /// A sign-in is waiting for the browser.
    pub signing_in: bool,
    /// Approval cards waiting for an answer: a restart refuses them.
    pub waiting_cards: usize,
}

/// The Account page.
#[tauri::command]
pub async fn account_status<R: Runtime>(app: AppHandle<R>, core: State<'_, Core>) -> Result<AccountView> {
    let sign_in = sign_in(&app);
    let auth = core.engine.auth().current();
    let status = gatehouse_core::resources::auth_status(&core.engine);
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
        sign_in_problem: sign_in.client.as_ref().err().cloned(),
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
    let client = sign_in.client.clone()?;
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
