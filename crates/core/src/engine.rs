//! The engine: the one object a shell builds and calls. It owns the tool registry and the context the
//! tools run in, and applies the rules every call shares (argument parsing, `local_path`, the response
//! cap) in one place.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, RwLock, Weak};
use std::time::Duration;

use serde_json::{Value, json};
use tracing::Instrument;

use crate::approval::evaluator::OnTheEvent;
use crate::approval::gate::TargetNames;
use crate::approval::model::{Agent, AnswerChannel, AuditEntry, CallOutcome, Caller, DecisionSource, Verdict};
use crate::approval::policy::Policy;
use crate::approval::store::{PendingAudit, Store};
use crate::approval::{Approvals, CallMeta, Permit, redact};
use crate::auth::state::{AuthSnapshot, AuthState};
use crate::cache::{self, Lookup, ResponseCache};
use crate::catalog::{Output, Passed, Scope};
use crate::config::{Config, GoogleBackend};
use crate::google::mcp::{McpClient, McpOptions, Product};
use crate::google::{Endpoints, GoogleClient, RetryPolicy, TokenSource};
use crate::limits::local_files::{self, LocalFiles};
use crate::limits::response_cap;
use crate::logging::TIMING_TARGET;
pub use crate::reply::Reply;
use crate::resend::{Claim, Resends};
use crate::resources::{Resource, ResourceError};
use crate::screening;
use crate::tools::{
    Access, Forms, Progress, StartError, ToolContext, ToolDef, ToolError, discovered, enabled_tools, google_mcp,
};

/// A call the engine could not even start: the MCP layer answers these as protocol errors.
#[derive(Debug, thiserror::Error)]
pub enum CallError {
    #[error("There is no tool named {0:?}. Call tools/list to see the tools this server offers.")]
    UnknownTool(String),
}

/// How long a `tools/list` (or a call naming a discovered tool not known yet) waits for Google's servers'
/// lists; past it the list is answered with what is known, and clients are told when more comes
/// (`notifications/tools/list_changed`).
pub const LIST_WAIT: Duration = Duration::from_secs(3);

/// The shortest wait between two readings of the lists a server asked to be read again (`ttlMs`).
const MIN_RELIST: Duration = Duration::from_secs(1);

/// Settings the engine can't read from [`Config`] alone.
pub struct EngineOptions {
    pub config: Config,
    pub tokens: Arc<dyn TokenSource>,
    /// Running against the built-in emulator: every answer says so.
    pub sandbox: bool,
    pub retry: RetryPolicy,
    /// Where standing approvals and the audit log are kept, and the administrator's policy.
    pub approvals: ApprovalSetup,
}

/// What the approval gate is built from.
pub struct ApprovalSetup {
    /// `None`: only the policy's platform grants can apply, no card offers *Always allow*, and the audit
    /// goes to the log only.
    pub store: Option<Store>,
    pub policy: Policy,
}

pub struct Engine {
    auth: AuthState,
    approvals: Arc<Approvals>,
    tools: Vec<ToolDef>,
    index: HashMap<&'static str, usize>,
    /// Google's tools that no Gatehouse tool covers, as last discovered ([`Engine::discover`]).
    discovered: RwLock<Arc<Vec<&'static ToolDef>>>,
    /// Ticks whenever the offered tools change (a discovered tool came, went or changed).
    tool_changes: tokio::sync::watch::Sender<u64>,
    /// One discovery at a time.
    discovering: tokio::sync::Mutex<()>,
    /// Every Gatehouse tool's name, enabled or not: a discovered tool may never take one.
    own_names: HashSet<&'static str>,
    this: Weak<Engine>,
    ctx: ToolContext,
    sandbox: bool,
    /// How many assistants have connected to this core so far (see [`Engine::assistant_connected`]).
    assistants: tokio::sync::watch::Sender<u64>,
    /// The gated requests seen lately and their replies: a re-send is answered from them, never run again.
    resends: Resends,
}

/// Names a card's target from Drive (`files.get` with `fields=name`), a calendar from Calendar
/// (`calendars.get`), and reads an event's attendees before an update or delete is decided (`events.get`):
/// reads, so they need no approval. A name that doesn't come within [`NAME_WITHIN`] is left
/// out rather than holding up the card.
struct DriveNames(GoogleClient);

const NAME_WITHIN: std::time::Duration = std::time::Duration::from_secs(2);

/// How long the decision of an event's update or delete waits for the event's attendees. Longer than a
/// name's wait, since without them a grant can't cover the call: past it, the call is asked.
const ATTENDEES_WITHIN: std::time::Duration = std::time::Duration::from_secs(5);

impl TargetNames for DriveNames {
    fn name<'a>(&'a self, id: &'a str) -> futures::future::BoxFuture<'a, Option<String>> {
        Box::pin(async move {
            match tokio::time::timeout(NAME_WITHIN, self.0.drive().get(id, "name")).await {
                Ok(Ok(file)) => Some(file.name).filter(|name| !name.is_empty()),
                Ok(Err(error)) => {
                    tracing::debug!(id, "the card shows the id: the name could not be read ({error})");
                    None
                }
                Err(_) => None,
            }
        })
    }

    fn calendar_name<'a>(&'a self, id: &'a str) -> futures::future::BoxFuture<'a, Option<String>> {
        Box::pin(async move {
            match tokio::time::timeout(NAME_WITHIN, self.0.calendar().get(id)).await {
                Ok(Ok(calendar)) => Some(calendar.summary).filter(|name| !name.is_empty()),
                Ok(Err(error)) => {
                    tracing::debug!(id, "the card shows the calendar id: its name could not be read ({error})");
                    None
                }
                Err(_) => None,
            }
        })
    }

    fn preview(
        &self,
        tool: &crate::approval::GatedTool,
        args: &Value,
    ) -> Option<crate::approval::preview::PreviewRead> {
        tool.preview(&self.0, args)
    }

    /// `events.get`: the event's attendees as Google lists them. Whatever keeps the whole list from being
    /// known (an error, no answer within [`ATTENDEES_WITHIN`], a list Google says it cut short) is `Unread`,
    /// and the call is asked.
    fn event_attendees<'a>(&'a self, calendar: &'a str, event: &'a str) -> futures::future::BoxFuture<'a, OnTheEvent> {
        Box::pin(async move {
            match tokio::time::timeout(ATTENDEES_WITHIN, self.0.calendar().event(calendar, event)).await {
                Ok(Ok(event)) if event.attendees_omitted => {
                    OnTheEvent::Unread("Google did not list every attendee of the event".to_owned())
                }
                Ok(Ok(event)) => OnTheEvent::Read(event.attendees.into_iter().map(|attendee| attendee.email).collect()),
                Ok(Err(error)) => OnTheEvent::Unread(format!("reading the event from Google failed: {error}")),
                Err(_) => {
                    OnTheEvent::Unread(format!("Google did not answer within {} seconds", ATTENDEES_WITHIN.as_secs()))
                }
            }
        })
    }
}

/// The audit record of a call still under way. Dropped before [`Unfinished::finished`] — the call's future
/// was dropped because the assistant cancelled it or went away — it records the call as the assistant left it:
/// withdrawn before a decision (not run), or approved and stopped while it ran (perhaps done in part).
///
/// A call that changes something is recorded before it is sent ([`Unfinished::record_before`]): its pending
/// record is completed by the final one, or, if the process dies first, recorded as interrupted when a store
/// is next opened. So no write reaches Google without a record.
struct Unfinished<'a> {
    approvals: &'a Arc<Approvals>,
    entry: Option<AuditEntry>,
    /// The call's record written before it was sent, when it changes something.
    pending: Option<PendingAudit>,
    started: std::time::Instant,
}

impl Unfinished<'_> {
    /// The call was let through: dropped from now on, it was stopped while it ran.
    fn decided(&mut self, permit: &Permit, answered_via: Option<AnswerChannel>) {
        if let Some(entry) = &mut self.entry {
            entry.answered_via = answered_via;
        }
        if let (Some(entry), Permit::Run { source }) = (&mut self.entry, permit) {
            entry.verdict = Verdict::Allowed;
            entry.source = source.clone();
            entry.outcome = CallOutcome::Error(STOPPED_WHILE_RUNNING.to_owned());
        }
    }

    /// Records the call, let through, as pending before it is sent. An error says why it could not be
    /// recorded: then it must not run.
    async fn record_before(&mut self) -> Result<(), String> {
        let Some(entry) = &self.entry else { return Ok(()) };
        let pending = AuditEntry { time: chrono::Utc::now(), outcome: CallOutcome::Pending, ..entry.clone() };
        self.pending = self.approvals.begin_audit(&pending).await.map_err(|error| error.to_string())?;
        Ok(())
    }

    /// The call finished: its record (and its pending record, if any) are the caller's to complete and write.
    fn finished(mut self) -> Option<(AuditEntry, Option<PendingAudit>)> {
        let entry = self.entry.take()?;
        Some((entry, self.pending.take()))
    }
}

/// What the audit log says of an approved call whose assistant stopped waiting while it ran.
const STOPPED_WHILE_RUNNING: &str =
    "The assistant stopped waiting while the call ran, so it may have been done only in part.";

impl Drop for Unfinished<'_> {
    fn drop(&mut self) {
        let Some(mut entry) = self.entry.take() else { return };
        entry.time = chrono::Utc::now();
        entry.duration_ms = u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX);
        if entry.source == DecisionSource::Withdrawn {
            tracing::info!(tool = %entry.tool, "the assistant stopped waiting: the call is withdrawn, not run");
        } else {
            tracing::warn!(tool = %entry.tool, "the assistant stopped waiting while the call ran");
        }
        self.approvals.audit_detached(entry, self.pending.take());
    }
}

/// What a call runs once it is let through: the tool itself, or a resource that mirrors the tool (read
/// through the tool's decision, deny rules and audit, answering with the resource's own text).
#[derive(Clone, Copy)]
enum Body<'a> {
    Tool,
    Resource(&'a Resource),
}

/// The note every sandbox answer carries.
pub const SANDBOX_NOTE: &str =
    "Sandbox: this is sample data from Gatehouse's built-in Google emulator, not the person's Google account.";

impl Engine {
    pub fn new(options: EngineOptions) -> Result<Arc<Self>, StartError> {
        let EngineOptions { config, tokens, sandbox, retry, approvals } = options;
        let mut tools = enabled_tools(config.enabled_tools.as_deref())?;
        tools.retain(|tool| crate::tools::google_mcp::offered(tool, config.google_backend));
        let index = tools.iter().enumerate().map(|(i, tool)| (tool.meta.name, i)).collect();
        let http = GoogleClient::http_client(config.request_timeout);
        let endpoints = Endpoints::new(config.google_endpoint.clone());
        let mcp = McpClient::new(McpOptions {
            http: http.clone(),
            endpoints: endpoints.clone(),
            tokens: Arc::clone(&tokens),
            timeout: config.request_timeout,
        });
        let google = GoogleClient::new(http, endpoints, tokens, retry, config.request_timeout);
        let auth = AuthState::new(AuthSnapshot { account: google.account(), ..AuthSnapshot::signed_out() });
        let local = LocalFiles::new(config.export_dir.clone(), config.local_roots.clone());
        let names = Arc::new(DriveNames(google.clone()));
        let cache = ResponseCache::new(approvals.store.clone(), google.clone());
        let approvals = Arc::new(Approvals::new(approvals.store, approvals.policy, &tools).with_target_names(names));
        let ctx = ToolContext { google, mcp, config: Arc::new(config), local, cache, progress: Progress::none() };
        let (assistants, _) = tokio::sync::watch::channel(0);
        let resends = Resends::new(crate::approval::gate::DEFAULT_RETRY_WINDOW);
        let own_names = crate::tools::sets::catalogue().iter().map(|meta| meta.name).collect();
        let engine = Arc::new_cyclic(|this| Self {
            auth,
            approvals,
            tools,
            index,
            discovered: RwLock::new(Arc::new(Vec::new())),
            tool_changes: tokio::sync::watch::channel(0).0,
            discovering: tokio::sync::Mutex::new(()),
            own_names,
            this: this.clone(),
            ctx,
            sandbox,
            assistants,
            resends,
        });
        if engine.ctx.config.google_backend != GoogleBackend::Rest
            && let Ok(runtime) = tokio::runtime::Handle::try_current()
        {
            runtime.spawn(keep_discovering(Arc::downgrade(&engine)));
        }
        Ok(engine)
    }

    /// Gatehouse's own tools this server offers, in catalogue order (see [`Engine::offered_tools`] for all).
    pub fn tools(&self) -> &[ToolDef] {
        &self.tools
    }

    /// Every tool this server offers now: its own, then Google's tools it discovered ([`discovered`]).
    pub fn offered_tools(&self) -> Vec<&ToolDef> {
        let discovered = self.discovered_tools();
        self.tools.iter().chain(discovered.iter().copied()).collect()
    }

    /// Google's tools that no Gatehouse tool covers, as last discovered.
    pub fn discovered_tools(&self) -> Arc<Vec<&'static ToolDef>> {
        Arc::clone(&self.discovered.read().unwrap_or_else(|poisoned| poisoned.into_inner()))
    }

    /// The offered tool named `name`: one of Gatehouse's, or one of Google's it discovered.
    pub fn tool(&self, name: &str) -> Option<&ToolDef> {
        if let Some(&i) = self.index.get(name) {
            return Some(&self.tools[i]);
        }
        let discovered = self.discovered_tools();
        discovered.iter().copied().find(|tool| tool.meta.name == name)
    }

    /// Whether the offered tools may change while this server runs: Google's tools are discovered, unless
    /// Gatehouse is set to use Google's REST APIs only.
    pub fn tools_change(&self) -> bool {
        self.ctx.config.google_backend != GoogleBackend::Rest
    }

    /// Ticks whenever the offered tools change: the MCP layer tells its clients
    /// (`notifications/tools/list_changed`).
    pub fn tool_changes(&self) -> tokio::sync::watch::Receiver<u64> {
        self.tool_changes.subscribe()
    }

    /// Reads Google's servers' tool lists (each as fresh as its server asks, see [`McpClient::catalogue`]) and
    /// offers the tools no Gatehouse tool covers. A server that can't be reached keeps its last list. Nothing
    /// with `GATEHOUSE_GOOGLE_BACKEND=rest`.
    pub async fn discover(&self) {
        if self.ctx.config.google_backend == GoogleBackend::Rest {
            return;
        }
        let _one = self.discovering.lock().await;
        let mcp = &self.ctx.mcp;
        let listed = futures::future::join_all(Product::ALL.map(|product| async move {
            match mcp.catalogue(product).await {
                Ok(catalogue) => Some(catalogue),
                Err(error) => {
                    tracing::debug!(product = product.name(), "Google's tool list could not be read: {error}");
                    mcp.known(product).await
                }
            }
        }))
        .await;
        let catalogues: Vec<_> = listed.into_iter().flatten().collect();
        let mut found = discovered::derive(&catalogues, &self.own_names);
        if let Some(enabled) = &self.ctx.config.enabled_tools {
            found.retain(|tool| enabled.iter().any(|name| name == tool.meta.name));
        }
        let changed = {
            let mut kept = self.discovered.write().unwrap_or_else(|poisoned| poisoned.into_inner());
            let same = kept.len() == found.len() && kept.iter().zip(&found).all(|(a, b)| std::ptr::eq(*a, *b));
            if !same {
                *kept = Arc::new(found);
            }
            !same
        };
        if changed {
            tracing::info!(
                tools = self.discovered_tools().len(),
                "the tools discovered on Google's MCP servers changed"
            );
            self.tool_changes.send_modify(|count| *count = count.wrapping_add(1));
        }
    }

    /// [`Engine::discover`], waiting for it at most `within`; past that it goes on by itself (and clients are
    /// told when it changes the tools).
    pub async fn refresh_tools(&self, within: Duration) {
        if self.ctx.config.google_backend == GoogleBackend::Rest {
            return;
        }
        let Some(engine) = self.this.upgrade() else { return };
        let discovery = tokio::spawn(async move { engine.discover().await });
        if tokio::time::timeout(within, discovery).await.is_err() {
            tracing::debug!("Google's tool lists are still being read; tools/list answers with what is known");
        }
    }

    /// When the lists a server asked to be read again (`ttlMs`) are next due; `None` when no server asked.
    async fn next_list_due(&self) -> Option<Duration> {
        let mut due: Option<Duration> = None;
        for product in Product::ALL {
            if let Some(catalogue) = self.ctx.mcp.known(product).await
                && catalogue.max_age() != crate::google::mcp::client::DEFAULT_LIST_AGE
            {
                let wait = catalogue.fresh_for().max(MIN_RELIST);
                due = Some(due.map_or(wait, |due| due.min(wait)));
            }
        }
        due
    }

    /// The sign-in state reported as `server://auth-status`; the shell sets it once it knows the method.
    pub fn auth(&self) -> &AuthState {
        &self.auth
    }

    /// The approval gate: pending cards, grants, the audit log.
    pub fn approvals(&self) -> &Arc<Approvals> {
        &self.approvals
    }

    pub fn is_sandbox(&self) -> bool {
        self.sandbox
    }

    /// Notes that an assistant connected to this core: an MCP session initialised (over HTTP, or stdio when
    /// this process serves its own engine), or a `gatehouse serve` relay attaching over the control socket.
    /// A shell uses it to get ready for approval cards only once they become likely (the desktop app makes
    /// its card window then, not at launch, so an app with no assistant stays small).
    pub fn assistant_connected(&self) {
        self.assistants.send_modify(|count| *count = count.saturating_add(1));
    }

    /// How many assistants have connected so far ([`Engine::assistant_connected`]). A receiver made after the
    /// first connection still sees it: `wait_for(|count| *count > 0)` returns at once then.
    pub fn assistant_connections(&self) -> tokio::sync::watch::Receiver<u64> {
        self.assistants.subscribe()
    }

    /// Whether assistants used this home before, in an earlier run or this one
    /// ([`crate::approval::store::Store::used_by_assistants`]): a shell expecting them again gets ready for
    /// cards at launch. `false` with no approvals store, or one that can't be read (logged: only readiness
    /// depends on it).
    pub async fn used_by_assistants(&self) -> bool {
        let Some(store) = self.approvals.store() else { return false };
        store.used_by_assistants().await.unwrap_or_else(|error| {
            tracing::warn!("{error}");
            false
        })
    }

    pub fn context(&self) -> &ToolContext {
        &self.ctx
    }

    /// Runs one tool call from an interactive caller that gave no name (tests, tools of the shell itself).
    pub async fn call(
        &self,
        name: &str,
        arguments: Option<serde_json::Map<String, Value>>,
    ) -> Result<Reply, CallError> {
        self.call_as(&CallMeta::default(), name, arguments).await
    }

    /// Runs one tool call: the approval decision first (asking the person when the rules say so), then the
    /// tool, then its audit record. Tool failures and refusals come back as an error [`Reply`] the assistant
    /// can relay; only a call naming no known tool is a [`CallError`].
    pub async fn call_as(
        &self,
        meta: &CallMeta,
        name: &str,
        arguments: Option<serde_json::Map<String, Value>>,
    ) -> Result<Reply, CallError> {
        self.call_reporting(meta, name, arguments, Progress::none()).await
    }

    /// [`Engine::call_as`], the tool reporting how far it has come to `progress` (an MCP client's
    /// `progressToken`, see [`crate::tools::progress`]).
    pub async fn call_reporting(
        &self,
        meta: &CallMeta,
        name: &str,
        arguments: Option<serde_json::Map<String, Value>>,
        progress: Progress,
    ) -> Result<Reply, CallError> {
        // Boxed: the whole decision and run is a large future, and callers (tests on a 2 MB thread stack among
        // them) then hold a pointer to it rather than the state itself.
        Box::pin(self.call_through(meta, name, arguments, progress, Body::Tool)).await
    }

    /// Reads the resource at `uri` for `meta`'s caller. A resource holding the person's data is read as a
    /// call of the read tool it mirrors ([`Resource::mirrors`]): the same decision (asked when the policy
    /// gates reads), deny rules and audit record as that tool's call, and unavailable when the tool is left
    /// out of this server's tools. The MCP layer applies the connection's tool selection to the same tool.
    pub async fn read_resource(&self, meta: &CallMeta, uri: &str) -> Result<String, ResourceError> {
        let resource = Resource::parse(uri)?;
        let Some((tool, arguments)) = resource.mirrors() else {
            // server://auth-status: none of the person's data, so no decision (see `Resource::AuthStatus`).
            return Ok(self.auth_status().to_string());
        };
        // A resource read is no tools/call: its JSON-RPC id is not one the re-send memory knows.
        let meta = CallMeta { request: None, ..meta.clone() };
        let reply =
            Box::pin(self.call_through(&meta, tool, Some(arguments), Progress::none(), Body::Resource(&resource)))
                .await
                .map_err(|_| ResourceError::NotOffered { uri: uri.to_owned(), tool })?;
        match reply.is_error {
            true => Err(ResourceError::Refused(reply.text)),
            false => Ok(reply.text),
        }
    }

    /// `server://auth-status` for the current sign-in: how Gatehouse is signed in, and what that sign-in
    /// can't do, why, and what to do instead (see [`crate::auth::status`]).
    pub fn auth_status(&self) -> Value {
        let auth = self.auth().current();
        // Google's discovered tools are listed with the rest: they need their product's scope, and run on
        // Google's MCP servers.
        let tools = self.offered_tools();
        let mut status = crate::auth::status::auth_status(
            auth.method,
            auth.class,
            auth.account.as_deref(),
            auth.granted_scopes.as_deref(),
            &tools,
        );
        if auth.method != crate::auth::identity::AuthMethod::None {
            let reach = crate::auth::status::GoogleReach {
                backend: self.ctx.config.google_backend,
                not_agentic: self.ctx.mcp.refused_as_not_agentic(),
            };
            crate::auth::status::add_google_backend(&mut status, &reach, &tools, |tool| tool.reaches_google_mcp());
        }
        status
    }

    /// A tool's call, from its decision to its audit record, running `body` once permitted; timed as
    /// `call` (see [`crate::logging::TIMING_TARGET`]).
    async fn call_through(
        &self,
        meta: &CallMeta,
        name: &str,
        arguments: Option<serde_json::Map<String, Value>>,
        progress: Progress,
        body: Body<'_>,
    ) -> Result<Reply, CallError> {
        let span = tracing::trace_span!(target: TIMING_TARGET, "call");
        self.call_phases(meta, name, arguments, progress, body).instrument(span).await
    }

    async fn call_phases(
        &self,
        meta: &CallMeta,
        name: &str,
        arguments: Option<serde_json::Map<String, Value>>,
        progress: Progress,
        body: Body<'_>,
    ) -> Result<Reply, CallError> {
        // A discovered tool an assistant names before Gatehouse knew of it (its list came from an earlier run).
        if self.tool(name).is_none() && discovered::parse_name(name).is_some() {
            self.refresh_tools(LIST_WAIT).await;
        }
        let mut tool = self.tool(name).ok_or_else(|| CallError::UnknownTool(name.to_owned()))?;
        let arguments = Value::Object(arguments.unwrap_or_default());
        // Google changed a discovered tool since it was listed: the call is decided as the tool is now.
        if let Some(google) = tool.google().filter(|_| tool.is_discovered())
            && google_mcp::google_tool(tool, &self.ctx, &arguments).await.is_some_and(|now| now != *google)
        {
            self.discover().await;
            tool = self.tool(name).ok_or_else(|| CallError::UnknownTool(name.to_owned()))?;
        }
        let started = std::time::Instant::now();
        let account = self.auth.current().account;
        // What the audit log keeps of the call is taken now, so the arguments themselves can go to the tool
        // without a copy.
        // Until the call finishes, its record says it was withdrawn: if this future is dropped first (the
        // assistant cancelled the call or went away while it waited for the person), the record is still
        // written, and the card has already gone with the dropped wait (see `Broker::ask`).
        let mut unfinished = Unfinished {
            approvals: &self.approvals,
            pending: None,
            entry: Some(AuditEntry {
                time: chrono::Utc::now(),
                // A name that was refused may be long: the record keeps what the card would show.
                agent: meta.caller.agent.as_ref().map(|agent| Agent {
                    name: agent.name.chars().take(crate::approval::model::MAX_AGENT_NAME).collect(),
                    self_reported: agent.self_reported,
                }),
                tool: name.to_owned(),
                target: redact::target(tool.evaluators(), &arguments),
                arguments: redact::for_audit(&arguments),
                verdict: Verdict::Denied,
                source: DecisionSource::Withdrawn,
                outcome: CallOutcome::Refused,
                duration_ms: 0,
                answered_via: None,
            }),
            started,
        };
        // Arguments the tool would refuse fail at once: nobody is asked to approve a call that cannot run.
        // Who is calling first: a name that can't be accepted gets nothing, not even a card.
        let checked = match self.approvals.refuse_caller(&meta.caller) {
            Some(refusal) => Err(refusal),
            None => Ok(tool.check_arguments(&arguments)),
        };
        let (reply, verdict, source, outcome) = match checked {
            Err(refusal) => self.carry_out(tool, arguments, refusal, progress, body, &meta.caller).await,
            // Pause and deny rules come before anything, a re-send's stored reply included.
            Ok(Ok(())) => match self.approvals.screen(tool, &arguments, meta, account.as_deref()) {
                Some(refused) => self.carry_out(tool, arguments, refused, progress, body, &meta.caller).await,
                None => {
                    let first = match self.claim(tool, &arguments, meta) {
                        Some(Claim::Resent(resent)) => {
                            // Not a new call: nothing runs and nothing is recorded; the first run has its record.
                            drop(unfinished.finished());
                            tracing::info!(tool = name, "a re-sent request: answered with the first run's reply");
                            return Ok(resent.reply().await);
                        }
                        Some(Claim::First(first)) => Some(first),
                        None => None,
                    };
                    // Google's form is the card of a tool Google asks about at every call: Gatehouse does not
                    // ask first (pause, deny rules and tool sets were applied above; the audit follows). Not for
                    // an unattended assistant: nobody would answer the form, so Gatehouse's rules refuse it now.
                    // A routed tool whose call goes to Google's server is decided with Google's definition of
                    // that tool: a grant covers it only while the definition is the one it was given for.
                    let attached;
                    let tool = match tool.mcp_route().is_some() && self.approvals.is_gated(tool) {
                        true => match google_mcp::google_tool(tool, &self.ctx, &arguments).await {
                            Some(google) => {
                                attached = tool.with_google(google);
                                &attached
                            }
                            None => tool,
                        },
                        false => tool,
                    };
                    let (permit, answered_via) = if self.approvals.is_gated(tool)
                        && meta.caller.interactive
                        && google_mcp::google_asks_first(tool, &self.ctx, &arguments).await
                    {
                        (Permit::Run { source: DecisionSource::GoogleForm }, None)
                    } else {
                        self.approvals
                            .permit_answered(tool, &arguments, meta, account.as_deref())
                            .instrument(tracing::trace_span!(target: TIMING_TARGET, "decide"))
                            .await
                    };
                    unfinished.decided(&permit, answered_via);
                    // A change is on disk as pending before it is sent, or not sent at all.
                    let permit = match (permit, &tool.meta.access) {
                        (Permit::Run { source }, Access::Write(_)) => match unfinished.record_before().await {
                            Ok(()) => Permit::Run { source },
                            Err(error) => {
                                tracing::error!(tool = name, "the call could not be recorded before it ran: {error}");
                                Permit::Refuse {
                                    source,
                                    message: format!(
                                        "{name} was not run: Gatehouse could not record it in its audit log first ({error}). Ask the person to check Gatehouse's data folder (free disk space, permissions), then try again."
                                    ),
                                }
                            }
                        },
                        (permit, _) => permit,
                    };
                    let carried = self.carry_out(tool, arguments, permit, progress, body, &meta.caller).await;
                    if let Some(first) = first {
                        first.answered(&carried.0);
                    }
                    carried
                }
            },
            Ok(Err(error)) => {
                let text = error.for_assistant();
                let reply = Reply::error(text.clone());
                (reply, Verdict::Denied, DecisionSource::InvalidArguments, CallOutcome::Error(text))
            }
        };
        let duration_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        tracing::info!(tool = name, ok = !reply.is_error, elapsed_ms = duration_ms, "tool call");
        if let Some((entry, pending)) = unfinished.finished() {
            let entry = AuditEntry { time: chrono::Utc::now(), verdict, source, outcome, duration_ms, ..entry };
            self.approvals
                .finish_audit(entry, pending)
                .instrument(tracing::trace_span!(target: TIMING_TARGET, "audit"))
                .await;
        }
        Ok(reply)
    }

    /// Claims a gated call's request in the re-send memory; `None` for a call that is not gated (running a
    /// read twice needs nobody's approval) or that came without a request id.
    fn claim(&self, tool: &ToolDef, arguments: &Value, meta: &CallMeta) -> Option<Claim> {
        let request = meta.request.as_deref()?;
        if !self.approvals.is_gated(tool) {
            return None;
        }
        Some(self.resends.claim(request, crate::approval::gate::call_key(tool.meta.name, arguments, meta)))
    }

    /// Runs the call when permitted; the reply and what the audit log records about it. A form of Google's the
    /// person did not accept is a refusal, recorded with who ended it (`person`, `timeout`, …).
    async fn carry_out(
        &self,
        tool: &ToolDef,
        arguments: Value,
        permit: Permit,
        progress: Progress,
        body: Body<'_>,
        caller: &Caller,
    ) -> (Reply, Verdict, DecisionSource, CallOutcome) {
        match permit {
            Permit::Refuse { source, message } => {
                (Reply::error(message), Verdict::Denied, source, CallOutcome::Refused)
            }
            Permit::Run { source } => {
                match self.run(tool, arguments, progress, body, self.forms(caller, &source)).await {
                    Ok((text, notice, google)) => {
                        let reply = Reply { text, is_error: false, notice, google };
                        (reply, Verdict::Allowed, source, CallOutcome::Ok)
                    }
                    Err(ToolError::FormNotApproved { ended_by, message }) => {
                        let source = ended_by.unwrap_or(source);
                        (Reply::error(message), Verdict::Denied, source, CallOutcome::Refused)
                    }
                    Err(error) => {
                        let text = error.for_assistant();
                        (Reply::error(text.clone()), Verdict::Allowed, source, CallOutcome::Error(text))
                    }
                }
            }
        }
    }

    /// Who asks the person the forms Google may answer this call with: the approvals, for this caller. A call
    /// permitted as [`DecisionSource::GoogleForm`] was not carded by Gatehouse, so Google's form is its card.
    fn forms(&self, caller: &Caller, source: &DecisionSource) -> Forms {
        Forms {
            approvals: Arc::clone(&self.approvals),
            caller: caller.clone(),
            decided_by_gatehouse: *source != DecisionSource::GoogleForm,
        }
    }

    /// Refuses a tool whose OAuth scope the sign-in is known not to carry, before asking Google. The sign-in
    /// is read again first, so permissions granted since (by `gatehouse login` in another terminal) count.
    async fn check_scope(&self, tool: &ToolDef) -> Result<(), ToolError> {
        let lacks = |auth: &AuthSnapshot| auth.granted_scopes.as_ref().is_some_and(|g| !tool.meta.scope_granted(g));
        if !lacks(&self.auth.current()) {
            return Ok(());
        }
        self.ctx.google.tokens().reload().await;
        let auth = self.auth.current();
        if !lacks(&auth) {
            return Ok(());
        }
        Err(ToolError::ScopeNotGranted {
            tool: tool.meta.name,
            product: tool.meta.scope.map_or("Google", Scope::product),
            account: auth.account.map(|account| format!(" of {account}")).unwrap_or_default(),
        })
    }

    /// Runs the tool through the response cache (see [`crate::cache`]): a cached read may be answered from it,
    /// and a write drops what it may change, before and after it runs (also when it fails: it may have done part).
    async fn run_cached(
        &self,
        tool: &ToolDef,
        arguments: Value,
        progress: Progress,
        forms: Forms,
    ) -> Result<Output, ToolError> {
        let cache = &self.ctx.cache;
        let ctx = self.ctx.reporting(progress);
        if let Some(changed) = cache::changed_by(&tool.meta, tool.evaluators(), &arguments) {
            cache.forget_changed(&changed).await;
            let output = google_mcp::run(tool, ctx, arguments, &forms).await;
            cache.forget_changed(&changed).await;
            return output;
        }
        let auth = self.auth.current();
        let lookup = cache
            .lookup(&tool.meta, &arguments, auth.account.as_deref(), auth.granted_scopes.as_deref())
            .instrument(tracing::trace_span!(target: TIMING_TARGET, "cache_lookup"))
            .await;
        let keep = || tracing::trace_span!(target: TIMING_TARGET, "cache_keep");
        match lookup {
            Lookup::Off => {
                google_mcp::run(tool, ctx, arguments, &forms)
                    .instrument(tracing::trace_span!(target: TIMING_TARGET, "tool"))
                    .await
            }
            Lookup::Hit(text) => Ok(Output::Text(text)),
            Lookup::Miss(pending) => {
                // A result written to a file is written pretty from its JSON; any other is serialized once,
                // and that text is both kept and returned.
                let to_file = tool.meta.local_path && arguments.get("local_path").is_some();
                let output = google_mcp::run(tool, ctx, arguments, &forms)
                    .instrument(tracing::trace_span!(target: TIMING_TARGET, "tool"))
                    .await?;
                let cap = self.ctx.max_chars();
                Ok(match output {
                    Output::Json(value) if to_file => {
                        cache.keep(pending, value.to_string(), cap).instrument(keep()).await;
                        Output::Json(value)
                    }
                    Output::Json(value) => {
                        Output::Text(cache.keep(pending, value.to_string(), cap).instrument(keep()).await)
                    }
                    Output::Text(text) => Output::Text(cache.keep(pending, text, cap).instrument(keep()).await),
                    // Google's own tools are never kept (they read no single Drive file).
                    google @ Output::Google(_) => google,
                })
            }
        }
    }

    /// Runs a permitted call: its text, and the screening note that follows a result carrying other people's
    /// content (see [`crate::screening`]), read from the whole result also when it went to a file.
    async fn run(
        &self,
        tool: &ToolDef,
        arguments: Value,
        progress: Progress,
        body: Body<'_>,
        forms: Forms,
    ) -> Result<(String, Option<String>, Option<Box<Passed>>), ToolError> {
        self.check_scope(tool).await?;
        if let Body::Resource(resource) = body {
            return Ok((resource.read_permitted(&self.ctx).await?, None, None));
        }
        let screened =
            |text: &str| tool.meta.carries_others_content().then(|| screening::notice(&screening::scan(text)));
        // A bad local_path fails before any Google call. One naming a folder gets the result in a new file
        // there, named after the call (mcp-gee-sweet's users pass a folder).
        let local_target = match (tool.meta.local_path, arguments.get("local_path")) {
            (true, Some(Value::String(path))) => {
                let target = self.ctx.local.export_target(path)?;
                Some(match target.is_dir() {
                    true => {
                        let stem = local_files::result_file_stem(tool.meta.name, &arguments);
                        (self.ctx.local.unused_file_in(&target, &stem, "json")?, Some(path.clone()))
                    }
                    false => (target, None),
                })
            }
            _ => None,
        };
        let output = self.run_cached(tool, arguments, progress, forms).await?;
        match local_target {
            Some((path, folder)) => {
                let text = match output {
                    Output::Json(value) => serde_json::to_string_pretty(&value).unwrap_or_else(|_| value.to_string()),
                    Output::Text(text) => text,
                    Output::Google(passed) => match passed.structured {
                        Some(value) => serde_json::to_string_pretty(&value).unwrap_or_else(|_| value.to_string()),
                        None => passed.text,
                    },
                };
                let notice = screened(&text);
                let bytes = self.ctx.local.write(&path, text.as_bytes()).await?;
                let message = match (&folder, path.file_name()) {
                    (Some(folder), Some(name)) => format!(
                        "local_path {folder:?} is a folder, so the full result ({bytes} bytes of JSON) was written into it as {}.",
                        name.to_string_lossy()
                    ),
                    _ => format!("The full result ({bytes} bytes of JSON) was written to {}.", path.display()),
                };
                let reply = json!({ "local_path": path.display().to_string(), "bytes": bytes, "message": message });
                Ok((reply.to_string(), notice, None))
            }
            None => {
                let _render = tracing::trace_span!(target: TIMING_TARGET, "render").entered();
                let (output, mut passed) = match output {
                    Output::Google(mut passed) => (Output::Text(std::mem::take(&mut passed.text)), Some(passed)),
                    other => (other, None),
                };
                let text = response_cap::render(&tool.meta, output, self.ctx.max_chars())?;
                // Google's structured result is capped as its text is: an assistant reads either.
                if let Some(structured) = passed.as_ref().and_then(|passed| passed.structured.as_ref()) {
                    response_cap::render(&tool.meta, Output::Text(structured.to_string()), self.ctx.max_chars())?;
                }
                let notice = screened(&text);
                if let Some(passed) = &mut passed {
                    passed.text.clear();
                }
                Ok((text, notice, passed))
            }
        }
    }
}

/// Reads Google's tool lists again whenever they may have changed (a server said so, a list changed under a
/// call, the sign-in changed) and when a server asked for it (`ttlMs`), until the engine is gone.
async fn keep_discovering(engine: Weak<Engine>) {
    let (mut changes, mut signed_in) = match engine.upgrade() {
        Some(engine) => (engine.ctx.mcp.changes(), engine.auth.subscribe()),
        None => return,
    };
    loop {
        let due = match engine.upgrade() {
            Some(engine) => engine.next_list_due().await,
            None => return,
        };
        let due = async {
            match due {
                Some(wait) => tokio::time::sleep(wait).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            changed = changes.changed() => {
                if changed.is_err() {
                    return;
                }
            }
            changed = signed_in.changed() => {
                if changed.is_err() {
                    return;
                }
            }
            () = due => {}
        }
        match engine.upgrade() {
            Some(engine) => engine.discover().await,
            None => return,
        }
        // Reads are spaced whatever asked for them: a server that says its list changed over and over (or a
        // change this very read made) is read again at most once every MIN_RELIST.
        tokio::time::sleep(MIN_RELIST).await;
    }
}
