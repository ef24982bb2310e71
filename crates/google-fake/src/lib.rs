//! A stateful, in-memory emulator of the Google APIs Gatehouse uses: Sheets v4, Docs v1, Drive v3 and
//! Drive Activity v2, plus Google's sign-in endpoints (authorize, token, revoke, tokeninfo, userinfo) and a
//! GCE metadata server (see [`auth`]).
//! Gmail v1 is emulated too: messages, threads, labels and drafts of each person's mailbox (module `gmail`).
//! Calendar v3 is emulated too: each person's calendar list, calendars, their ACLs, events and free/busy
//! (module `calendar`).
//! Google's Workspace MCP servers too, over the same world: the server of product `P` (`Pmcp.googleapis.com`)
//! at `<root>/mcp/P/v1` and `<root>/mcp/P/v1self` (see [`mcp`] and `crates/google-fake/MCP.md`).
//!
//! Every path, parameter and field follows Google's discovery documents (see
//! `shared/reference/google-discovery`), with Google's own error bodies and proto3-JSON omission rules, so
//! a client that passes against the emulator passes against Google. All Google hosts collapse onto one
//! root URL, keeping Google's paths below it, exactly as `GATEHOUSE_GOOGLE_ENDPOINT` does in the client.
//!
//! Bearer tokens are checked as Google checks them: a missing, unknown or expired token gets the API's 401,
//! and a token carrying none of the OAuth scopes the method's discovery entry lists gets the 403 Google's
//! front end answers (`insufficientPermissions`, `ACCESS_TOKEN_SCOPE_INSUFFICIENT`, with a
//! `WWW-Authenticate: Bearer … error="insufficient_scope"` challenge); see [`scopes`]. Fixture tokens
//! ([`FakeGoogle::issue_token`]) carry every scope; [`FakeGoogle::issue_token_with_scopes`] picks them.
//!
//! Known leniencies (where the emulator accepts what Google refuses):
//!
//! - `drive.file` is accepted by every method whose discovery entry lists it, on every file; Google limits
//!   it to files the app created or the person opened with it;
//! - the `method` of the insufficient-scopes `ErrorInfo` is the discovery id (`sheets.spreadsheets.get`),
//!   not Google's gRPC name (`google.apps.sheets.v4.SpreadsheetsService.GetSpreadsheet`);
//! - the proto3-JSON request leniencies and unchecked areas listed in [`discovery`].
//!
//! ```no_run
//! # async fn demo() -> std::io::Result<()> {
//! let google = google_fake::FakeGoogle::start().await?;
//! let token = google.issue_token(google_fake::Identity::user("ada@example.com"));
//! println!("emulator at {} accepts bearer {token}", google.url());
//! # Ok(()) }
//! ```

mod activity;
pub mod auth;
mod calendar;
mod call;
pub mod discovery;
mod docs;
mod drive;
mod errors;
mod faults;
mod gmail;
pub mod mcp;
mod rpc;
pub mod scopes;
mod seed;
mod sheets;
mod slides;
mod state;

pub use auth::{Account, ClientKind, ConsentMode, GceMetadata, MetadataServer, OAuthClient};
pub use errors::ApiError;
pub use faults::Fault;
pub use gmail::MailView;
pub use seed::{COLLEAGUE_EMAIL, SANDBOX_EMAIL};
pub use state::{AccessToken, Identity, IdentityKind, RequestRecord, ServiceAccountKey, World};

use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard};

use axum::Router;
use tokio::net::TcpListener;
use tokio::sync::oneshot;

/// Shared handle on the emulator's state, given to every route handler.
#[derive(Clone, Default)]
pub struct Shared(Arc<Mutex<World>>);

impl Shared {
    /// Locks the world. A poisoned lock (a handler panicked) still yields the state: the emulator is a test
    /// fixture and keeps answering so the test sees the real failure rather than a cascade.
    pub fn lock(&self) -> MutexGuard<'_, World> {
        self.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// A running emulator bound to a loopback port. Dropping it stops the server.
pub struct FakeGoogle {
    addr: SocketAddr,
    shared: Shared,
    _shutdown: oneshot::Sender<()>,
}

impl FakeGoogle {
    /// Starts an empty emulator on a free loopback port.
    pub async fn start() -> std::io::Result<Self> {
        Self::start_with(World::default()).await
    }

    /// Starts the emulator seeded with the sandbox's sample files (see [`seed`]).
    pub async fn start_sandbox() -> std::io::Result<Self> {
        let mut world = World { skip_discovery_checks: true, ..World::default() };
        seed::sandbox(&mut world);
        Self::start_with(world).await
    }

    /// Starts the emulator on a free loopback port with the given state.
    pub async fn start_with(world: World) -> std::io::Result<Self> {
        let listener = TcpListener::bind(("127.0.0.1", 0)).await?;
        let addr = listener.local_addr()?;
        let shared = Shared(Arc::new(Mutex::new(world)));
        shared.lock().base_url = format!("http://{addr}");
        Self::serve(listener, addr, shared)
    }

    fn serve(listener: TcpListener, addr: SocketAddr, shared: Shared) -> std::io::Result<Self> {
        let app = router(shared.clone());
        let (tx, rx) = oneshot::channel::<()>();
        tokio::spawn(async move {
            let shutdown = async {
                let _ = rx.await;
            };
            if let Err(error) = axum::serve(listener, app).with_graceful_shutdown(shutdown).await {
                tracing::error!(%error, "google emulator stopped");
            }
        });
        Ok(Self { addr, shared, _shutdown: tx })
    }

    /// Serves the same world on a second loopback address (e.g. a token endpoint apart from the APIs).
    pub async fn start_sharing(shared: Shared) -> std::io::Result<Self> {
        let listener = TcpListener::bind(("127.0.0.1", 0)).await?;
        let addr = listener.local_addr()?;
        Self::serve(listener, addr, shared)
    }

    /// The root URL every Google host maps onto, e.g. `http://127.0.0.1:41234`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The emulator's state, for tests to seed and inspect.
    pub fn world(&self) -> MutexGuard<'_, World> {
        self.shared.lock()
    }

    /// A cheap clone of the state handle.
    pub fn shared(&self) -> Shared {
        self.shared.clone()
    }

    /// Issues a bearer token for `identity`, as if it had signed in granting every scope the emulator
    /// serves.
    pub fn issue_token(&self, identity: Identity) -> String {
        self.shared.lock().issue_token(identity)
    }

    /// Issues a bearer token for `identity` granted only `scopes` (see [`World::issue_token_with_scopes`]).
    pub fn issue_token_with_scopes(&self, identity: Identity, scopes: &[&str]) -> String {
        self.shared.lock().issue_token_with_scopes(identity, scopes)
    }

    /// Every divergence from Google's discovery documents seen so far, one line each (see [`discovery`]).
    pub fn discovery_violations(&self) -> Vec<String> {
        self.shared.lock().discovery_violations.clone()
    }

    /// Queues a fault: the next matching requests fail as described.
    pub fn inject(&self, fault: Fault) {
        self.shared.lock().faults.push(fault);
    }
}

/// The emulator's full router: every API and every MCP server ([`mcp`]), all under one root as Google's paths.
pub fn router(shared: Shared) -> Router {
    let rest = rest_router(shared.clone());
    layered(api_routes().merge(mcp::routes(shared.clone(), rest)), shared)
}

/// The REST APIs alone: what the MCP servers' tools call.
fn rest_router(shared: Shared) -> Router {
    layered(api_routes(), shared)
}

/// Every REST API's routes.
fn api_routes() -> Router<Shared> {
    Router::new()
        .merge(auth::routes())
        .merge(sheets::routes())
        .merge(docs::routes())
        .merge(slides::routes())
        .merge(drive::routes())
        .merge(activity::routes())
        .merge(gmail::routes())
        .merge(calendar::routes())
}

/// `routes` with the 404 fallbacks, the fault injection and the discovery check every request goes through.
fn layered(routes: Router<Shared>, shared: Shared) -> Router {
    routes
        .fallback(errors::not_found_route)
        .method_not_allowed_fallback(errors::not_found_route)
        .layer(axum::middleware::from_fn_with_state(shared.clone(), faults::middleware))
        .layer(axum::middleware::from_fn_with_state(shared.clone(), discovery::middleware))
        .with_state(shared)
}
