//! The Gatehouse core of this OS user, as a shell hosts it: the sign-in resolved (or the sandbox started), the
//! administrator's policy and the approvals store opened, the engine built, and the control socket listening
//! (the only way answers to approval cards arrive). `gatehouse serve` and the desktop app both start one of
//! these and add only their own face: MCP over stdio or HTTP, a tray and its cards.

use std::net::SocketAddr;
use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use crate::approval::broker::Dismissal;
use crate::approval::policy::{Policy, PolicyError};
use crate::approval::store::{DATABASE_FILE, Store, StoreOptions};
#[cfg(feature = "sandbox")]
use crate::auth::resolve::Resolution;
use crate::auth::resolve::{ResolveError, resolve};
use crate::config::Config;
use crate::control::{self, ControlHandle};
use crate::engine::{ApprovalSetup, Engine, EngineOptions};
use crate::google::RetryPolicy;
use crate::mcp::http::HttpError;
use crate::settings::{self, PersonSettings};
use crate::tools::StartError;

/// The sandbox's grants and audit log, kept apart from the real account's.
pub const SANDBOX_DATABASE_FILE: &str = "sandbox.db";

/// Why the host could not start. Each message says what to do.
#[derive(Debug, thiserror::Error)]
pub enum HostError {
    #[error(transparent)]
    SignIn(#[from] ResolveError),
    #[error(transparent)]
    Policy(#[from] PolicyError),
    #[error(transparent)]
    Tools(#[from] StartError),
    #[error(
        "The sandbox could not start: {0}. Try again; if it keeps failing, check that this computer lets programs listen on 127.0.0.1."
    )]
    Sandbox(String),
    #[error(transparent)]
    Http(#[from] HttpError),
    #[error(transparent)]
    Token(#[from] crate::mcp::token::TokenFileError),
}

/// What a host is started with.
pub struct HostOptions {
    pub config: Config,
    /// Serve the built-in Google emulator's sample files instead of a Google account.
    pub sandbox: bool,
}

/// A running core.
pub struct Host {
    engine: Arc<Engine>,
    config: Config,
    control: Option<ControlHandle>,
    cancel: CancellationToken,
    /// The sandbox's emulator, kept alive as long as the host.
    #[cfg(feature = "sandbox")]
    _sandbox: Option<google_fake::FakeGoogle>,
}

impl Host {
    /// Starts the core (see the module documentation). The environment is read for the sign-in methods and the
    /// policy file; the person's own settings are applied under both ([`crate::settings`]). A control socket that cannot be opened leaves the host running (cards then wait and time
    /// out) and is logged; everything else that fails stops the start with a message.
    pub async fn start(options: HostOptions) -> Result<Host, HostError> {
        let HostOptions { mut config, sandbox } = options;
        // GATEHOUSE_HOME holds the grants, the audit log and tokens: this user's only (narrowed if looser).
        if let Err(error) = crate::private_files::private_dir(&config.home) {
            tracing::warn!(home = %config.home.display(), "GATEHOUSE_HOME could not be made private to you: {error}");
        }
        // The policy first: a bad file stops the start before anything else begins.
        let policy = load_policy()?;
        #[cfg(feature = "sandbox")]
        let mut sandbox_google = None;
        let resolution = if sandbox {
            #[cfg(feature = "sandbox")]
            {
                let (google, resolution) = start_sandbox(&mut config).await?;
                sandbox_google = Some(google);
                resolution
            }
            #[cfg(not(feature = "sandbox"))]
            return Err(HostError::Sandbox("this build of Gatehouse has no sandbox".into()));
        } else {
            resolve(&config, |name| std::env::var(name).ok()).await?
        };
        let store = open_store(&config, sandbox, policy.max_days()).await;
        // The person's own settings (the app's Advanced page), under the administrator's policy and the
        // environment. They live in the account's store, also while the sandbox runs.
        let person = match (&store, sandbox) {
            (Some(store), false) => PersonSettings::load(store).await.unwrap_or_else(|error| {
                tracing::warn!("{error} Your own settings (Advanced page) are not applied until this is fixed.");
                PersonSettings::default()
            }),
            _ => PersonSettings::load_for_home(&config.home).await,
        };
        let catalogue = crate::tools::sets::catalogue();
        let policy = settings::apply(&mut config, policy, &person, |name| std::env::var(name).ok(), catalogue);
        let engine = Engine::new(EngineOptions {
            config: config.clone(),
            tokens: resolution.tokens.clone(),
            sandbox,
            retry: RetryPolicy::default(),
            approvals: ApprovalSetup { store, policy },
        })?;
        resolution.report_to(engine.auth());
        let cancel = CancellationToken::new();
        let control = match control::serve(engine.clone(), &config.home, cancel.clone()).await {
            Ok(handle) => Some(handle),
            Err(error) => {
                tracing::error!(
                    "{error} Until this is fixed, approval cards can't be answered from `gatehouse approvals`: changes wait for an answer, then are refused."
                );
                None
            }
        };
        Ok(Host {
            engine,
            config,
            control,
            cancel,
            #[cfg(feature = "sandbox")]
            _sandbox: sandbox_google,
        })
    }

    pub fn engine(&self) -> &Arc<Engine> {
        &self.engine
    }

    /// The settings the host runs with (the sandbox's endpoint filled in).
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The control socket, when it could be opened.
    pub fn control(&self) -> Option<&ControlHandle> {
        self.control.as_ref()
    }

    /// Cancelled when the host stops: everything it serves stops with it.
    pub fn cancel_token(&self) -> CancellationToken {
        self.cancel.clone()
    }

    /// Binds MCP over streamable HTTP at `addr` (loopback only) and returns the bound address and the task
    /// serving it until the host stops. The bearer token is the one in `GATEHOUSE_HOME` (created if needed),
    /// or a per-assistant token.
    pub async fn serve_http(
        &self,
        addr: SocketAddr,
    ) -> Result<(SocketAddr, tokio::task::JoinHandle<Result<(), HttpError>>), HostError> {
        crate::mcp::http::check_loopback(addr)?;
        let token = crate::mcp::token::load_or_create(&self.config.home)?;
        let listener = crate::mcp::http::bind(addr).await?;
        let local = listener.local_addr().map_err(|e| HttpError::Bind { addr, detail: e.to_string() })?;
        if let Some(control) = &self.control {
            // So `gatehouse assistants add` can print the URL to give an assistant.
            control.serving_http(local);
        }
        let engine = self.engine.clone();
        let cancel = self.cancel.clone();
        let task = tokio::spawn(async move { crate::mcp::http::serve(engine, listener, &token, cancel).await });
        Ok((local, task))
    }

    /// Stops the host: pending cards are dismissed (their calls are refused, logged as `shutdown`), the control socket is removed
    /// and everything served stops.
    pub async fn shutdown(self) {
        self.engine.approvals().broker().dismiss_all(Dismissal::ShuttingDown);
        self.cancel.cancel();
        if let Some(control) = self.control {
            control.shutdown().await;
        }
        // Calls whose assistant went away are recorded on their own tasks: let those finish first.
        if tokio::time::timeout(SETTLE_WITHIN, self.engine.approvals().settle()).await.is_err() {
            tracing::warn!("stopping before every withdrawn call's audit record was written");
        }
    }
}

/// How long stopping waits for the audit records of calls whose assistant went away.
const SETTLE_WITHIN: std::time::Duration = std::time::Duration::from_secs(5);

/// Resolves on Ctrl-C, or (on Unix) the SIGTERM a service manager, a session manager or an assistant sends to
/// stop the host: every shell stops the same way on it.
pub async fn stop_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut terminate) => {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = terminate.recv() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

/// How a command that opens the approvals store itself (no server runs) opens it: with the policy's
/// `max_days`, so it ignores the same grant rows a server would. A policy file that can't be read is logged
/// and the default used: the command only lists.
pub fn store_options() -> StoreOptions {
    match load_policy() {
        Ok(policy) => StoreOptions { max_days: policy.max_days(), ..StoreOptions::default() },
        Err(error) => {
            tracing::warn!("{error}");
            StoreOptions::default()
        }
    }
}

/// The administrator's policy with the restrictions `GATEHOUSE_POLICY_FILE`'s file adds, or the default when
/// there is none ([`Policy::load`]). A bad file is an error naming the line.
fn load_policy() -> Result<Policy, PolicyError> {
    let tools: Vec<&str> = crate::tools::all_tools().iter().map(|tool| tool.meta.name).collect();
    let loaded = Policy::load(|name| std::env::var(name).ok(), &tools)?;
    for file in &loaded.files {
        tracing::info!("approval policy in force: {}", file.describe());
    }
    Ok(loaded.policy)
}

/// The store of grants and the audit log under `GATEHOUSE_HOME` (the sandbox keeps its own). One that cannot
/// be opened leaves the host running — the person's standing approvals then don't apply and every change not
/// allowed by the policy is asked about — and says why.
async fn open_store(config: &Config, sandbox: bool, max_days: u32) -> Option<Store> {
    let file = if sandbox { SANDBOX_DATABASE_FILE } else { DATABASE_FILE };
    match Store::open_with(&config.home.join(file), StoreOptions { max_days, ..StoreOptions::default() }).await {
        Ok(store) => Some(store),
        Err(error) => {
            tracing::error!("{error} Until then, every change is asked about and your standing approvals don't apply.");
            None
        }
    }
}

/// Starts the seeded emulator and signs in as its sample account (every scope); points `config` at it.
#[cfg(feature = "sandbox")]
async fn start_sandbox(config: &mut Config) -> Result<(google_fake::FakeGoogle, Resolution), HostError> {
    use crate::auth::identity::{AuthMethod, IdentityClass};
    use crate::auth::state::AuthSnapshot;
    use crate::google::auth::StaticToken;

    let google = google_fake::FakeGoogle::start_sandbox().await.map_err(|e| HostError::Sandbox(e.to_string()))?;
    let token = google.issue_token(google_fake::Identity::user(google_fake::SANDBOX_EMAIL));
    config.google_endpoint =
        Some(google.url().parse().map_err(|e: url::ParseError| HostError::Sandbox(e.to_string()))?);
    tracing::info!(endpoint = %google.url(), "sandbox: serving sample files from the built-in Google emulator");
    let account = Some(google_fake::SANDBOX_EMAIL.to_owned());
    let snapshot = AuthSnapshot {
        method: AuthMethod::OAuth,
        class: Some(IdentityClass::User),
        account: account.clone(),
        granted_scopes: None,
    };
    let source = "the sandbox's sample account".to_owned();
    let resolution = Resolution { tokens: Arc::new(StaticToken::new(token, account)), snapshot, user: None, source };
    Ok((google, resolution))
}
