//! The MCP client of Google's Workspace MCP servers: one connection per product and endpoint, signed with the
//! person's access token, the tools each server lists, and tool calls in rounds.
//!
//! - **Where**: [`Endpoints::mcp_url`], so `GATEHOUSE_GOOGLE_ENDPOINT` moves these servers with the REST APIs
//!   (`<root>/mcp/P/v1`), and a root that is not this computer is refused here too ([`check_root`]).
//! - **Who**: every HTTP request fetches its bearer token from the same [`TokenSource`] as the REST client
//!   (its cache, single-flight refresh, keychain and the rule of [`Endpoints::credential_url`] for the refresh
//!   token), so a token that expires mid-connection is replaced, and a 401 makes one fresh token and one retry.
//! - **Protocol**: MCP 2026-07-28, stateless (`server/discover`, then self-contained requests); a server that
//!   does not know `server/discover` is spoken to in 2025-11-25 (`initialize`, a session). rmcp decides both
//!   ([`ClientLifecycleMode::Auto`]).
//! - **Discovery**: a product's tools are what `tools/list` says on `/mcp/v1`, with whether `/mcp/v1self` lists
//!   them too (a tool it leaves out is one Google always asks the person about). The list is read again when
//!   the server says it changed, after a reconnect, when a call names a tool the server no longer knows, and
//!   once it is older than the server's `ttlMs` (or [`DEFAULT_LIST_AGE`]).
//! - **Calls**: a call gives [`Round::Done`] or, when Google asks the person first, [`Round::AsksPerson`] with
//!   its forms; the caller repeats it with a [`Repeat`]. Input requests that are not forms are refused in words:
//!   nothing here answers anything on the person's behalf.
//! - **Refusals are remembered**: a server that refused the sign-in, could not be reached or did not answer in
//!   time is not asked again by every call for a while (`Refusal`), so with `both` the REST API serves the
//!   next calls at once instead of after another round trip or timeout each; with `mcp` the same words come
//!   back at once. A new access token (a new sign-in, or the hourly one) ends the memory of a refused sign-in.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use reqwest::header::{HeaderName, HeaderValue};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ClientConfig, ClientJsonRpcMessage, ElicitationCapability,
    FormElicitationCapability, Implementation, JsonObject, ProtocolVersion, Tool,
};
use rmcp::service::{
    ClientLifecycleMode, ClientServiceExt, NotificationContext, RoleClient, RunningService, ServiceError,
};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::{
    StreamableHttpClient, StreamableHttpClientTransportConfig, StreamableHttpError, StreamableHttpPostResponse,
    StreamableHttpResponseLimits,
};

use super::form::{GoogleForm, Repeat, Round};
use crate::google::auth::{AuthError, TokenSource};
use crate::google::endpoint::{Endpoints, check_root};

/// How long a product's tool list is used before it is read again, when the server gives no `ttlMs`.
pub const DEFAULT_LIST_AGE: Duration = Duration::from_secs(300);

/// How many times one call is repeated with nothing but Google's `requestState` (a round that asks nobody
/// anything) before Gatehouse gives up on it.
const MAX_STATE_ROUNDS: usize = 4;

/// How long a server that refused the sign-in because the OAuth client is not marked agentic is not asked
/// again with the same access token: only a sign-in with another client mends it, and that brings a new token.
const NOT_AGENTIC_MEMORY: Duration = Duration::from_secs(3600);
/// How long a server that refused a request for another reason (its MCP API not enabled in the project, say)
/// is not asked again with the same token: the person may be fixing it in the Cloud console right now.
const REFUSED_MEMORY: Duration = Duration::from_secs(60);
/// How long a server that could not be reached or did not answer in time is not asked again.
const UNREACHABLE_MEMORY: Duration = Duration::from_secs(30);

/// The most forms one round of a call may ask for. Google asks one approval per call; a round asking for more
/// than this is refused rather than put to the person as a pile of cards.
const MAX_FORMS_PER_ROUND: usize = 8;

/// A Workspace product with a Google MCP server that Gatehouse speaks to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Product {
    Sheets,
    Docs,
    Slides,
    Drive,
    Gmail,
    Calendar,
}

impl Product {
    /// Every product, in the order discovery and docs/tools.md list them.
    pub const ALL: [Product; 6] =
        [Product::Sheets, Product::Docs, Product::Slides, Product::Drive, Product::Gmail, Product::Calendar];

    /// `P` of Google's host `Pmcp.googleapis.com` and of the emulator's `<root>/mcp/P/v1`; also the prefix of
    /// the names Gatehouse offers Google's own tools under.
    pub const fn name(self) -> &'static str {
        match self {
            Product::Sheets => "sheets",
            Product::Docs => "docs",
            Product::Slides => "slides",
            Product::Drive => "drive",
            Product::Gmail => "gmail",
            Product::Calendar => "calendar",
        }
    }

    /// The server in words, for messages.
    pub const fn label(self) -> &'static str {
        match self {
            Product::Sheets => "Google Sheets MCP server",
            Product::Docs => "Google Docs MCP server",
            Product::Slides => "Google Slides MCP server",
            Product::Drive => "Google Drive MCP server",
            Product::Gmail => "Gmail MCP server",
            Product::Calendar => "Google Calendar MCP server",
        }
    }
}

/// Why a Google MCP server could not be used for a call. Every message says what happened and what to do.
#[derive(Debug, Clone, thiserror::Error)]
pub enum McpError {
    /// No access token could be had (not signed in, the sign-in expired, a refused credential).
    #[error("{0}")]
    Auth(Arc<AuthError>),
    /// The server refused the sign-in because the OAuth client is not marked for AI agents.
    #[error(
        "The {} refused the sign-in: the OAuth client Gatehouse signed in with is not marked \"Use this client for an AI-powered agent\", and Google's MCP servers accept only such clients. In the Google Cloud console (APIs & Services › Credentials), create a new OAuth client of type Desktop app with that box ticked (a client can't be marked after it was created), then sign in to Gatehouse with it.",
        .product.label()
    )]
    NotAgentic { product: Product },
    /// The server refused the sign-in (401 after a fresh token, or 403 for another reason).
    #[error("The {} refused the request ({detail}). Sign in again, or check the MCP API is enabled in your Google Cloud project.", .product.label())]
    Refused { product: Product, detail: String },
    /// The server could not be reached or did not speak MCP as expected.
    #[error("The {} could not be reached ({detail}). Check the internet connection and try again.", .product.label())]
    Unreachable { product: Product, detail: String },
    /// The server answered with a JSON-RPC error.
    #[error("The {} answered an error: {detail}", .product.label())]
    Answered { product: Product, detail: String },
    /// The server does not (or no longer) offer the tool.
    #[error("The {} does not offer the tool {tool:?} (any more). Call tools/list to see the tools this server offers now.", .product.label())]
    UnknownTool { product: Product, tool: String },
    /// Google asked for input that is not a form (a URL to open, sampling, roots): Gatehouse gives none of it.
    #[error(
        "The {} asked for {what} before running {tool}, which Gatehouse does not give on the person's behalf: the call was not run.",
        .product.label()
    )]
    InputNotAForm { product: Product, tool: String, what: String },
    /// The call kept coming back without a result.
    #[error("The {} did not finish {tool} after {rounds} rounds: the call was given up.", .product.label())]
    TooManyRounds { product: Product, tool: String, rounds: usize },
    /// `GATEHOUSE_GOOGLE_ENDPOINT` names a place that is not this computer.
    #[error(
        "Gatehouse does not send requests for Google's MCP servers to {0}: only this computer may replace Google's hosts."
    )]
    NotLocal(String),
    /// The server did not answer within the request timeout.
    #[error("The {} did not answer within {} seconds. Try again in a moment.", .product.label(), .timeout.as_secs())]
    Timeout { product: Product, timeout: Duration },
}

impl McpError {
    /// Whether the server itself could not be used (unreachable, refused the sign-in): the REST API may still
    /// serve the call. A server that answered (with a result, an error or a form) is not such a failure.
    pub fn is_unavailable(&self) -> bool {
        matches!(
            self,
            McpError::NotAgentic { .. }
                | McpError::Refused { .. }
                | McpError::Unreachable { .. }
                | McpError::UnknownTool { .. }
                | McpError::Timeout { .. }
        )
    }
}

/// One tool a server lists, as it lists it.
#[derive(Debug, Clone, PartialEq)]
pub struct GoogleTool {
    pub product: Product,
    /// Google's definition: name, description, input and output schemas, annotations.
    pub definition: Tool,
    /// Listed on `/mcp/v1` but left out of `/mcp/v1self`: Google asks the person with a form at every call.
    pub always_asks: bool,
}

impl GoogleTool {
    pub fn name(&self) -> &str {
        &self.definition.name
    }
}

/// A product's tools as last listed.
#[derive(Debug, Clone)]
pub struct Catalogue {
    pub product: Product,
    pub tools: Vec<GoogleTool>,
    /// The protocol revision the server is spoken to in.
    pub version: ProtocolVersion,
    listed: Instant,
    max_age: Duration,
}

impl Catalogue {
    /// A list as a server gave it, spoken to in 2026-07-28, good for [`DEFAULT_LIST_AGE`] (tests, and the
    /// definitions docs/tools.md is generated from).
    pub fn listed(product: Product, tools: Vec<GoogleTool>) -> Self {
        Self {
            product,
            tools,
            version: ProtocolVersion::V_2026_07_28,
            listed: Instant::now(),
            max_age: DEFAULT_LIST_AGE,
        }
    }

    /// How long after its listing this list is read again, as the server asked (`ttlMs`) or by default.
    pub fn max_age(&self) -> Duration {
        self.max_age
    }

    /// How long this list is still good for (zero once it is due to be read again).
    pub fn fresh_for(&self) -> Duration {
        self.max_age.saturating_sub(self.listed.elapsed())
    }

    pub fn tool(&self, name: &str) -> Option<&GoogleTool> {
        self.tools.iter().find(|tool| tool.name() == name)
    }

    fn is_fresh(&self) -> bool {
        self.listed.elapsed() < self.max_age
    }
}

/// What to build the client from: the REST client's HTTP client, endpoints and token source.
#[derive(Clone)]
pub struct McpOptions {
    pub http: reqwest::Client,
    pub endpoints: Endpoints,
    pub tokens: Arc<dyn TokenSource>,
    /// Bounds each request (a call, a list, connecting).
    pub timeout: Duration,
}

/// Cheap to clone; one per engine.
#[derive(Clone)]
pub struct McpClient {
    inner: Arc<Inner>,
}

struct Inner {
    options: McpOptions,
    servers: HashMap<Product, Server>,
    /// Counts every change of any product's tool list, so the layer above knows when to look again.
    revision: AtomicU64,
    /// Ticks when a list changed or may have (a server's `notifications/tools/list_changed`): the engine
    /// reads the lists again then, and tells its own clients (see [`McpClient::changes`]).
    changes: tokio::sync::watch::Sender<u64>,
    /// The last attempt to connect was refused because the OAuth client is not marked agentic
    /// (`server://auth-status` says so); cleared by the next connection that succeeds.
    not_agentic: AtomicBool,
    /// Tools a server lists as ones Google always asks the person about that then ran a call without asking:
    /// Gatehouse no longer leaves their calls to Google's form (see [`McpClient::note_ran_unasked`]).
    unasked: std::sync::Mutex<std::collections::HashSet<(Product, String)>>,
}

/// A product's two endpoints and what they listed.
struct Server {
    product: Product,
    full: Endpoint,
    self_service: Endpoint,
    catalogue: tokio::sync::Mutex<Option<Arc<Catalogue>>>,
    /// The last time the server could not be used, while it is remembered.
    refused: std::sync::Mutex<Option<Refusal>>,
}

/// A server that could not be used, remembered so each call doesn't pay for finding out again.
struct Refusal {
    error: McpError,
    until: Instant,
    /// The access token it refused (hashed: no second copy of the secret is kept), for a refused sign-in:
    /// a new token is asked again at once. `None`: the server was not reached, whatever the token.
    token: Option<u64>,
}

impl Refusal {
    /// The memory of `error`, when it is a failure worth remembering.
    fn of(error: &McpError, token: Option<&str>) -> Option<Refusal> {
        let (memory, keyed) = match error {
            McpError::NotAgentic { .. } => (NOT_AGENTIC_MEMORY, true),
            McpError::Refused { .. } => (REFUSED_MEMORY, true),
            McpError::Unreachable { .. } | McpError::Timeout { .. } => (UNREACHABLE_MEMORY, false),
            _ => return None,
        };
        let token = if keyed { Some(token_key(token?)) } else { None };
        Some(Refusal { error: error.clone(), until: Instant::now() + memory, token })
    }

    /// Whether it still holds for a request signed with `token`.
    fn holds(&self, token: Option<&str>) -> bool {
        Instant::now() < self.until && self.token.is_none_or(|refused| token.map(token_key) == Some(refused))
    }
}

fn token_key(token: &str) -> u64 {
    use std::hash::BuildHasher;
    // One process-wide random key: the hash says only whether two tokens are the same.
    static KEY: std::sync::OnceLock<std::collections::hash_map::RandomState> = std::sync::OnceLock::new();
    KEY.get_or_init(Default::default).hash_one(token)
}

/// One endpoint's connection, made when first needed and again after it broke.
struct Endpoint {
    url: String,
    connection: tokio::sync::Mutex<Option<Arc<Connection>>>,
    /// Set by a `notifications/tools/list_changed`: the list is read again before it is used.
    stale: Arc<AtomicBool>,
}

struct Connection {
    service: RunningService<RoleClient, Listener>,
    version: ProtocolVersion,
}

impl McpClient {
    pub fn new(options: McpOptions) -> Self {
        let servers = Product::ALL
            .into_iter()
            .map(|product| {
                let endpoint = |self_service| Endpoint {
                    url: options.endpoints.mcp_url(product.name(), self_service),
                    connection: tokio::sync::Mutex::new(None),
                    stale: Arc::new(AtomicBool::new(false)),
                };
                let server = Server {
                    product,
                    full: endpoint(false),
                    self_service: endpoint(true),
                    catalogue: tokio::sync::Mutex::new(None),
                    refused: std::sync::Mutex::new(None),
                };
                (product, server)
            })
            .collect();
        Self {
            inner: Arc::new(Inner {
                options,
                servers,
                revision: AtomicU64::new(0),
                changes: tokio::sync::watch::channel(0).0,
                not_agentic: AtomicBool::new(false),
                unasked: Default::default(),
            }),
        }
    }

    /// Whether Google's MCP servers last refused the sign-in because its OAuth client is not marked "Use this
    /// client for an AI-powered agent".
    pub fn refused_as_not_agentic(&self) -> bool {
        self.inner.not_agentic.load(Ordering::SeqCst)
    }

    /// Notes that `product`'s server ran `tool`, a tool it lists as one Google always asks the person about,
    /// without asking anyone: from now on Gatehouse decides its calls itself (a card, as for a write) instead
    /// of leaving them to a form that may not come. Kept while this process runs.
    pub fn note_ran_unasked(&self, product: Product, tool: &str) {
        let mut unasked = self.inner.unasked.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if unasked.insert((product, tool.to_owned())) {
            tracing::warn!(
                product = product.name(),
                tool,
                "Google's server ran a tool it always asks about without asking the person: Gatehouse cards it itself from now on"
            );
        }
    }

    /// Whether Google's form can be left to ask about `tool`'s calls: the server lists it as a tool Google
    /// always asks about (`listed_as_asking`), and it has not run one without asking ([`Self::note_ran_unasked`]).
    pub fn leaves_to_google(&self, product: Product, tool: &str, listed_as_asking: bool) -> bool {
        listed_as_asking
            && !self
                .inner
                .unasked
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner())
                .contains(&(product, tool.to_owned()))
    }

    /// A number that changes whenever a product's tool list changed since it was last read.
    pub fn revision(&self) -> u64 {
        self.inner.revision.load(Ordering::SeqCst)
    }

    /// Ticks whenever a product's tool list changed, or a server said it did (its next use reads it again).
    pub fn changes(&self) -> tokio::sync::watch::Receiver<u64> {
        self.inner.changes.subscribe()
    }

    fn changed(&self) {
        self.inner.revision.fetch_add(1, Ordering::SeqCst);
        self.inner.changes.send_modify(|count| *count = count.wrapping_add(1));
    }

    fn server(&self, product: Product) -> &Server {
        // Every product has its server: `new` makes one for each of `Product::ALL`.
        &self.inner.servers[&product]
    }

    /// The product's tools, listed again when the list may be out of date (see the module documentation).
    pub async fn catalogue(&self, product: Product) -> Result<Arc<Catalogue>, McpError> {
        let server = self.server(product);
        let mut kept = server.catalogue.lock().await;
        if let Some(catalogue) = kept.as_ref()
            && catalogue.is_fresh()
            && !server.full.stale.load(Ordering::SeqCst)
            && !server.self_service.stale.load(Ordering::SeqCst)
        {
            return Ok(Arc::clone(catalogue));
        }
        if let Some(error) = self.remembered_refusal(server).await {
            return Err(error);
        }
        let listed = match self.list(server).await {
            Ok(listed) => Arc::new(listed),
            Err(error) => {
                let token = self.inner.options.tokens.token().await.ok();
                if let Some(refusal) = Refusal::of(&error, token.as_deref()) {
                    tracing::debug!(
                        product = product.name(),
                        "Google's MCP server not asked again for a while: {error}"
                    );
                    *server.refused.lock().unwrap_or_else(|poisoned| poisoned.into_inner()) = Some(refusal);
                }
                return Err(error);
            }
        };
        server.refused.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).take();
        let changed = kept.as_ref().is_none_or(|before| before.tools != listed.tools);
        if changed {
            self.changed();
            tracing::info!(product = product.name(), tools = listed.tools.len(), "Google's MCP tools listed");
        }
        *kept = Some(Arc::clone(&listed));
        Ok(listed)
    }

    /// The failure the server last gave, while it is remembered for the token requests are signed with now.
    async fn remembered_refusal(&self, server: &Server) -> Option<McpError> {
        let keyed = {
            let kept = server.refused.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            kept.as_ref()?.token.is_some()
        };
        // The token is read only for a refused sign-in (from the token source's cache, usually).
        let token = if keyed { self.inner.options.tokens.token().await.ok() } else { None };
        let mut kept = server.refused.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        match kept.as_ref() {
            Some(refusal) if refusal.holds(token.as_deref()) => Some(refusal.error.clone()),
            _ => {
                *kept = None;
                None
            }
        }
    }

    /// The product's tools as last listed, without asking the server (`None` before the first listing).
    pub async fn known(&self, product: Product) -> Option<Arc<Catalogue>> {
        self.server(product).catalogue.lock().await.clone()
    }

    /// Forgets the product's list, so the next use reads it again.
    pub async fn forget_list(&self, product: Product) {
        let server = self.server(product);
        if server.catalogue.lock().await.take().is_some() {
            self.changed();
        }
    }

    async fn list(&self, server: &Server) -> Result<Catalogue, McpError> {
        let product = server.product;
        // Connected first (a new connection marks the list stale), then marked fresh, then listed: a change
        // the server announces while the list is read is not lost.
        self.connect(product, &server.full).await?;
        let restricted_connection = self.connect(product, &server.self_service).await;
        server.full.stale.store(false, Ordering::SeqCst);
        server.self_service.stale.store(false, Ordering::SeqCst);
        let (full, version, ttl) = self.list_endpoint(product, &server.full).await?;
        // A server without `/mcp/v1self` (or one that can't be reached) makes every tool count as one Google may
        // ask about: nothing is left uncarded on a guess.
        let restricted = match restricted_connection.and(Ok(())) {
            Ok(()) => self.list_endpoint(product, &server.self_service).await,
            Err(error) => Err(error),
        };
        let restricted = match restricted {
            Ok((tools, ..)) => Some(tools),
            Err(error) => {
                tracing::debug!(product = product.name(), "/mcp/v1self not listed: {error}");
                None
            }
        };
        let tools = full
            .into_iter()
            .map(|definition| {
                let always_asks =
                    restricted.as_ref().is_some_and(|listed| !listed.iter().any(|tool| tool.name == definition.name));
                GoogleTool { product, definition, always_asks }
            })
            .collect();
        let max_age = ttl.map_or(DEFAULT_LIST_AGE, Duration::from_millis);
        Ok(Catalogue { product, tools, version, listed: Instant::now(), max_age })
    }

    async fn list_endpoint(
        &self,
        product: Product,
        endpoint: &Endpoint,
    ) -> Result<(Vec<Tool>, ProtocolVersion, Option<u64>), McpError> {
        let mut retried = false;
        loop {
            let connection = self.connect(product, endpoint).await?;
            let token = self.inner.options.tokens.token().await.map_err(|error| McpError::Auth(Arc::new(error)))?;
            let listed = self.bounded(product, connection.service.peer().list_all_tools_with_cache_hint()).await;
            let error = match listed {
                Ok(Ok(list)) => return Ok((list.items, connection.version.clone(), list.ttl_ms)),
                Ok(Err(error)) => error,
                Err(timeout) => {
                    self.drop_connection(endpoint, &connection).await;
                    return Err(timeout);
                }
            };
            self.drop_connection(endpoint, &connection).await;
            // The token expired or was revoked since the connection was made: one fresh token, one more try,
            // as for a call.
            if !retried && is_unauthorized(&error) {
                retried = true;
                self.inner.options.tokens.invalidate_token(&token).await;
                continue;
            }
            return Err(service_error(product, &error));
        }
    }

    /// Runs `future` within the request timeout.
    async fn bounded<T>(&self, product: Product, future: impl Future<Output = T>) -> Result<T, McpError> {
        let timeout = self.inner.options.timeout;
        tokio::time::timeout(timeout, future).await.map_err(|_| McpError::Timeout { product, timeout })
    }

    /// The endpoint's connection, made now if there is none. A new connection means the list may have
    /// changed while there was none, so it is read again.
    async fn connect(&self, product: Product, endpoint: &Endpoint) -> Result<Arc<Connection>, McpError> {
        let mut kept = endpoint.connection.lock().await;
        if let Some(connection) = kept.as_ref().filter(|connection| !connection.service.is_closed()) {
            return Ok(Arc::clone(connection));
        }
        let endpoints = &self.inner.options.endpoints;
        if let Some(root) = endpoints.root()
            && let Err(refused) = check_root(root)
        {
            return Err(McpError::NotLocal(format!("{root} ({refused})")));
        }
        let mut retried = false;
        let service = loop {
            // The token is fetched first so a missing sign-in says so, not as a transport failure.
            let token = self.inner.options.tokens.token().await.map_err(|error| McpError::Auth(Arc::new(error)))?;
            let client =
                Signed { http: self.inner.options.http.clone(), tokens: Arc::clone(&self.inner.options.tokens) };
            let mut config = StreamableHttpClientTransportConfig::with_uri(endpoint.url.as_str());
            config.allow_stateless = true;
            let transport = StreamableHttpClientTransport::with_client(client, config);
            let listener = Listener {
                stale: Arc::clone(&endpoint.stale),
                changes: self.inner.changes.clone(),
                info: client_info(),
            };
            let lifecycle = ClientLifecycleMode::Auto {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28, ProtocolVersion::V_2025_11_25],
                legacy_version: Some(ProtocolVersion::V_2025_11_25),
            };
            let started = self.bounded(product, listener.serve_with_lifecycle(transport, lifecycle)).await?;
            match started {
                Ok(service) => break service,
                // A token the server refused (401): one fresh token and one more try, as for a call.
                Err(error) if !retried && error.auth_challenge().is_some_and(is_token_refused) => {
                    retried = true;
                    self.inner.options.tokens.invalidate_token(&token).await;
                }
                Err(error) => {
                    let error = connect_error(product, &error);
                    if matches!(error, McpError::NotAgentic { .. }) {
                        self.inner.not_agentic.store(true, Ordering::SeqCst);
                    }
                    return Err(error);
                }
            }
        };
        self.inner.not_agentic.store(false, Ordering::SeqCst);
        let version = service
            .peer()
            .peer_info()
            .map(|info| info.protocol_version.clone())
            .unwrap_or(ProtocolVersion::V_2025_11_25);
        tracing::debug!(product = product.name(), version = %version.as_str(), "connected to Google's MCP server");
        let connection = Arc::new(Connection { service, version });
        // A (re)connect reads the list again: it may have changed while there was no connection.
        endpoint.stale.store(true, Ordering::SeqCst);
        *kept = Some(Arc::clone(&connection));
        Ok(connection)
    }

    async fn drop_connection(&self, endpoint: &Endpoint, connection: &Arc<Connection>) {
        let mut kept = endpoint.connection.lock().await;
        if kept.as_ref().is_some_and(|kept| Arc::ptr_eq(kept, connection)) {
            *kept = None;
        }
    }

    /// One round of a call of Google's tool `tool` on `product`'s `/mcp/v1` server: its result, or the forms
    /// Google asks the person to fill in first. `repeat` carries the person's answers to the previous round.
    /// A tool the server does not list (any more) is refused without a call, after the list was read again.
    pub async fn call(
        &self,
        product: Product,
        tool: &str,
        arguments: JsonObject,
        repeat: Option<Repeat>,
    ) -> Result<Round<CallToolResult>, McpError> {
        let catalogue = self.catalogue(product).await?;
        if catalogue.tool(tool).is_none() {
            return Err(McpError::UnknownTool { product, tool: tool.to_owned() });
        }
        let mut params = CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments);
        if let Some(repeat) = repeat {
            params = params.with_input_responses(repeat.input_responses);
            params.request_state = repeat.request_state;
        }
        for _ in 0..MAX_STATE_ROUNDS {
            let response = self.call_once(product, tool, params.clone()).await?;
            let asked = match response {
                CallToolResponse::Complete(result) => return Ok(Round::Done(result)),
                CallToolResponse::InputRequired(asked) => asked,
                _ => {
                    return Err(McpError::Answered {
                        product,
                        detail: format!("{tool} answered with a task, which Gatehouse does not follow"),
                    });
                }
            };
            let requests = asked.input_requests.unwrap_or_default();
            if requests.is_empty() {
                // A round that asks nobody anything: repeat it with Google's state alone.
                params.input_responses = None;
                params.request_state = asked.request_state;
                continue;
            }
            if requests.len() > MAX_FORMS_PER_ROUND {
                return Err(McpError::Answered {
                    product,
                    detail: format!(
                        "{tool} asked for {} approval forms at once; Gatehouse puts at most {MAX_FORMS_PER_ROUND} to the person, so the call was not run",
                        requests.len()
                    ),
                });
            }
            let mut forms = Vec::with_capacity(requests.len());
            for (key, request) in &requests {
                match GoogleForm::from_input_request(key, request) {
                    Some(form) => forms.push(form),
                    None => {
                        let what = serde_json::to_value(request)
                            .ok()
                            .and_then(|value| {
                                let mode =
                                    value.pointer("/params/mode").and_then(|mode| mode.as_str()).map(str::to_owned);
                                let method = value.get("method").and_then(|method| method.as_str()).map(str::to_owned);
                                match (method.as_deref(), mode.as_deref()) {
                                    (Some("elicitation/create"), Some("url")) => Some("a web page to open".to_owned()),
                                    (Some(method), _) => Some(format!("input of another kind ({method})")),
                                    _ => None,
                                }
                            })
                            .unwrap_or_else(|| "input of another kind".to_owned());
                        return Err(McpError::InputNotAForm { product, tool: tool.to_owned(), what });
                    }
                }
            }
            return Ok(Round::AsksPerson { forms, request_state: asked.request_state });
        }
        Err(McpError::TooManyRounds { product, tool: tool.to_owned(), rounds: MAX_STATE_ROUNDS })
    }

    /// Sends one `tools/call`, reconnecting once if the connection broke and fetching a new token once if
    /// the server refused the one it had.
    async fn call_once(
        &self,
        product: Product,
        tool: &str,
        params: CallToolRequestParams,
    ) -> Result<CallToolResponse, McpError> {
        let endpoint = &self.server(product).full;
        let mut retried = false;
        loop {
            let connection = self.connect(product, endpoint).await?;
            let token = self.inner.options.tokens.token().await.map_err(|error| McpError::Auth(Arc::new(error)))?;
            let answer = self.bounded(product, connection.service.peer().call_tool_once(params.clone())).await?;
            let error = match answer {
                Ok(response) => return Ok(response),
                Err(error) => error,
            };
            let failure = service_error(product, &error);
            if let ServiceError::McpError(data) = &error
                && data.code == rmcp::model::ErrorCode::INVALID_PARAMS
                && data.message.contains("Unknown tool")
            {
                // The server's list changed under us: read it again, so the tool disappears above.
                self.forget_list(product).await;
                return Err(McpError::UnknownTool { product, tool: tool.to_owned() });
            }
            if matches!(error, ServiceError::McpError(_)) {
                return Err(failure);
            }
            self.drop_connection(endpoint, &connection).await;
            if retried {
                return Err(failure);
            }
            retried = true;
            if is_unauthorized(&error) {
                self.inner.options.tokens.invalidate_token(&token).await;
            } else if !matches!(error, ServiceError::TransportClosed) {
                return Err(failure);
            }
        }
    }
}

/// What Gatehouse tells Google's servers about itself: it can show forms (on its cards), so `/mcp/v1` asks it
/// with forms rather than refusing the calls that need one.
fn client_info() -> ClientConfig {
    let mut info = ClientConfig::default();
    let mut elicitation = ElicitationCapability::default();
    elicitation.form = Some(FormElicitationCapability::default());
    info.capabilities.elicitation = Some(elicitation);
    info.client_info = Implementation::new("gatehouse", env!("CARGO_PKG_VERSION"));
    info
}

/// The client side of a connection: notes a changed tool list, and answers no request on anyone's behalf
/// (rmcp's default declines any in-session elicitation; 2026-07-28 servers ask in the call's own result).
#[derive(Clone)]
struct Listener {
    stale: Arc<AtomicBool>,
    changes: tokio::sync::watch::Sender<u64>,
    info: ClientConfig,
}

impl rmcp::ClientHandler for Listener {
    fn get_info(&self) -> ClientConfig {
        self.info.clone()
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.stale.store(true, Ordering::SeqCst);
        self.changes.send_modify(|count| *count = count.wrapping_add(1));
    }
}

/// The text of `error` and what it tells about the server, as an [`McpError`].
fn service_error(product: Product, error: &ServiceError) -> McpError {
    if let Some(challenge) = error.auth_challenge() {
        return challenge_refusal(product, challenge);
    }
    match error {
        ServiceError::McpError(data) => McpError::Answered { product, detail: data.message.to_string() },
        ServiceError::Timeout { timeout } => McpError::Timeout { product, timeout: *timeout },
        other => transport_failure(product, other),
    }
}

fn connect_error(product: Product, error: &rmcp::service::ClientInitializeError) -> McpError {
    use rmcp::service::ClientInitializeError as Init;
    if let Some(challenge) = error.auth_challenge() {
        return challenge_refusal(product, challenge);
    }
    match error {
        // rmcp took a refused `server/discover` for a legacy server and tried `initialize`: the refusal is in
        // one of the two.
        Init::LegacyFallbackFailed { discover, fallback } => match connect_error(product, fallback) {
            McpError::Unreachable { .. } => connect_error(product, discover),
            found => found,
        },
        Init::JsonRpcError(data) => McpError::Answered { product, detail: data.message.to_string() },
        other => transport_failure(product, other),
    }
}

/// A failure below JSON-RPC: an access token that could not be had, a refused sign-in, or no server.
fn transport_failure(product: Product, error: &(dyn std::error::Error + 'static)) -> McpError {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(error);
    let mut text = String::new();
    while let Some(current) = source {
        if let Some(io) = current.downcast_ref::<std::io::Error>()
            && let Some(auth) = io.get_ref().and_then(|inner| inner.downcast_ref::<AuthError>())
        {
            return McpError::Auth(Arc::new(clone_auth(auth)));
        }
        if !text.is_empty() {
            text.push_str(": ");
        }
        text.push_str(&current.to_string());
        source = current.source();
    }
    classify(product, &text)
}

/// An [`AuthError`] again, from its words (it holds only text).
fn clone_auth(error: &AuthError) -> AuthError {
    match error {
        AuthError::NotSignedIn => AuthError::NotSignedIn,
        other => AuthError::TokenStore(other.to_string()),
    }
}

/// Google's refusals by their HTTP status, as rmcp's transport reports them. Google's exact answer to a client
/// not marked agentic is not published: a 403 whose text speaks of an AI agent (the emulator's, and the wording
/// of Google's release notes) is taken for it.
fn classify(product: Product, text: &str) -> McpError {
    let detail: String = text.chars().take(400).collect();
    let lower = text.to_ascii_lowercase();
    if lower.contains("403") && (lower.contains("ai-powered agent") || lower.contains("agentic")) {
        return McpError::NotAgentic { product };
    }
    if lower.contains("401") || lower.contains("403") || lower.contains("authorization required") {
        return McpError::Refused { product, detail };
    }
    McpError::Unreachable { product, detail }
}

/// A refusal that rmcp read from the server's `WWW-Authenticate` challenge: a 401 (the token), or a 403
/// `insufficient_scope`. A server that follows MCP's authorization spec answers a refused token so, and rmcp's
/// words for it ("Auth required") carry no status for [`classify`] to find: without this the person was told
/// the server could not be reached, and to check the internet connection.
fn challenge_refusal(product: Product, challenge: &str) -> McpError {
    let lower = challenge.to_ascii_lowercase();
    if lower.contains("ai-powered agent") || lower.contains("agentic") {
        return McpError::NotAgentic { product };
    }
    let status = if is_token_refused(challenge) { "HTTP 401" } else { "HTTP 403" };
    let challenge: String = challenge.chars().take(300).collect();
    McpError::Refused { product, detail: format!("{status}, WWW-Authenticate: {challenge}") }
}

/// Whether a `WWW-Authenticate` challenge refuses the token itself (a 401), not its scopes.
fn is_token_refused(challenge: &str) -> bool {
    !challenge.contains("insufficient_scope")
}

/// Whether the server refused the token (HTTP 401).
fn is_unauthorized(error: &ServiceError) -> bool {
    if error.auth_challenge().is_some_and(is_token_refused) {
        return true;
    }
    let text = error.to_string();
    let mut source = std::error::Error::source(error);
    let mut all = text;
    while let Some(current) = source {
        all.push_str(&current.to_string());
        source = current.source();
    }
    all.contains("401")
}

/// rmcp's reqwest transport with a fresh bearer token on every request, from the person's token source.
#[derive(Clone)]
struct Signed {
    http: reqwest::Client,
    tokens: Arc<dyn TokenSource>,
}

impl Signed {
    /// The bearer token; a token that can't be had travels as an I/O error holding the [`AuthError`], which
    /// [`transport_failure`] finds again.
    async fn token(&self) -> Result<String, StreamableHttpError<reqwest::Error>> {
        self.tokens.token().await.map_err(|error| StreamableHttpError::Io(std::io::Error::other(error)))
    }
}

type Headers = HashMap<HeaderName, HeaderValue>;

impl StreamableHttpClient for Signed {
    type Error = reqwest::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        _auth_header: Option<String>,
        custom_headers: Headers,
    ) -> Result<StreamableHttpPostResponse, StreamableHttpError<Self::Error>> {
        let token = self.token().await?;
        self.http.post_message(uri, message, session_id, Some(token), custom_headers).await
    }

    async fn post_message_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        _auth_header: Option<String>,
        custom_headers: Headers,
        max_sse_event_size: usize,
    ) -> Result<StreamableHttpPostResponse, StreamableHttpError<Self::Error>> {
        let token = self.token().await?;
        self.http
            .post_message_with_max_sse_event_size(
                uri,
                message,
                session_id,
                Some(token),
                custom_headers,
                max_sse_event_size,
            )
            .await
    }

    async fn post_message_with_response_limits(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        _auth_header: Option<String>,
        custom_headers: Headers,
        limits: StreamableHttpResponseLimits,
    ) -> Result<StreamableHttpPostResponse, StreamableHttpError<Self::Error>> {
        let token = self.token().await?;
        self.http.post_message_with_response_limits(uri, message, session_id, Some(token), custom_headers, limits).await
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        _auth_header: Option<String>,
        custom_headers: Headers,
    ) -> Result<(), StreamableHttpError<Self::Error>> {
        let token = self.token().await?;
        self.http.delete_session(uri, session_id, Some(token), custom_headers).await
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        _auth_header: Option<String>,
        custom_headers: Headers,
    ) -> Result<
        futures::stream::BoxStream<'static, Result<sse_stream::Sse, sse_stream::Error>>,
        StreamableHttpError<Self::Error>,
    > {
        let token = self.token().await?;
        self.http.get_stream(uri, session_id, last_event_id, Some(token), custom_headers).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_are_told_apart_by_what_the_server_said() {
        let not_agentic = classify(
            Product::Sheets,
            "Send message error HTTP 403 Forbidden: {\"error\":{\"message\":\"… not marked \\\"Use this client for an AI-powered agent\\\" …\"}}",
        );
        assert!(matches!(not_agentic, McpError::NotAgentic { product: Product::Sheets }), "{not_agentic:?}");
        let refused = classify(Product::Docs, "HTTP 403 Forbidden: SERVICE_DISABLED");
        assert!(matches!(refused, McpError::Refused { .. }), "{refused:?}");
        let down = classify(Product::Drive, "error sending request: connection refused");
        assert!(matches!(down, McpError::Unreachable { .. }), "{down:?}");
        assert!(down.is_unavailable() && not_agentic.is_unavailable());
        // A refusal rmcp read from `WWW-Authenticate` (MCP's authorization spec) is a refusal, not a lost server.
        let token = challenge_refusal(Product::Sheets, "Bearer error=\"invalid_token\", error_description=\"expired\"");
        assert!(matches!(&token, McpError::Refused { detail, .. } if detail.starts_with("HTTP 401")), "{token:?}");
        let scope = challenge_refusal(Product::Sheets, "Bearer error=\"insufficient_scope\", scope=\"x\"");
        assert!(matches!(&scope, McpError::Refused { detail, .. } if detail.starts_with("HTTP 403")), "{scope:?}");
        let answered = McpError::Answered { product: Product::Drive, detail: "bad query".into() };
        assert!(!answered.is_unavailable(), "a server that answered is not a reason to ask REST instead");
    }
}
