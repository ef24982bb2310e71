//! The engine: the one object a shell builds and calls. It owns the tool registry and the context the
//! tools run in, and applies the rules every call shares (argument parsing, `local_path`, the response
//! cap) in one place.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::{Value, json};

use crate::approval::gate::TargetNames;
use crate::approval::model::{AnswerChannel, AuditEntry, CallOutcome, DecisionSource, Verdict};
use crate::approval::policy::Policy;
use crate::approval::store::Store;
use crate::approval::{Approvals, CallMeta, Permit, redact};
use crate::auth::state::{AuthSnapshot, AuthState};
use crate::cache::{self, Lookup, ResponseCache};
use crate::config::Config;
use crate::google::{Endpoints, GoogleClient, RetryPolicy, TokenSource};
use crate::limits::local_files::LocalFiles;
use crate::limits::response_cap;
use crate::tools::registry::{Output, Scope};
use crate::tools::{Progress, StartError, ToolContext, ToolDef, ToolError, enabled_tools};

/// A call the engine could not even start: the MCP layer answers these as protocol errors.
#[derive(Debug, thiserror::Error)]
pub enum CallError {
    #[error("There is no tool named {0:?}. Call tools/list to see the tools this server offers.")]
    UnknownTool(String),
}

/// A finished call: the text to return, and whether it reports a failure.
#[derive(Debug, Clone)]
pub struct Reply {
    pub text: String,
    pub is_error: bool,
}

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
    ctx: ToolContext,
    sandbox: bool,
    /// How many assistants have connected to this core so far (see [`Engine::assistant_connected`]).
    assistants: tokio::sync::watch::Sender<u64>,
}

/// Names a card's target from Drive (`files.get` with `fields=name`), a calendar from Calendar
/// (`calendars.get`): reads, so they need no approval. A name that doesn't come within [`NAME_WITHIN`] is left
/// out rather than holding up the card.
struct DriveNames(GoogleClient);

const NAME_WITHIN: std::time::Duration = std::time::Duration::from_secs(2);

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

    fn mail_words<'a>(&'a self, tool: &'a str, args: &'a Value) -> futures::future::BoxFuture<'a, Option<String>> {
        Box::pin(async move {
            tokio::time::timeout(NAME_WITHIN, crate::tools::gmail::card_words(&self.0, tool, args)).await.ok().flatten()
        })
    }
}

/// The audit record of a call still under way. Dropped before [`Unfinished::finished`] — the call's future
/// was dropped because the assistant cancelled it or went away — it records the call as the assistant left it:
/// withdrawn before a decision (not run), or approved and stopped while it ran (perhaps done in part).
struct Unfinished<'a> {
    approvals: &'a Arc<Approvals>,
    entry: Option<AuditEntry>,
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

    /// The call finished: its record is the caller's to complete and write.
    fn finished(mut self) -> Option<AuditEntry> {
        self.entry.take()
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
        self.approvals.audit_detached(entry);
    }
}

/// The note every sandbox answer carries.
pub const SANDBOX_NOTE: &str =
    "Sandbox: this is sample data from Gatehouse's built-in Google emulator, not the person's Google account.";

impl Engine {
    pub fn new(options: EngineOptions) -> Result<Arc<Self>, StartError> {
        let EngineOptions { config, tokens, sandbox, retry, approvals } = options;
        let tools = enabled_tools(config.enabled_tools.as_deref())?;
        let index = tools.iter().enumerate().map(|(i, tool)| (tool.meta.name, i)).collect();
        let http = GoogleClient::http_client(config.request_timeout);
        let google = GoogleClient::new(
            http,
            Endpoints::new(config.google_endpoint.clone()),
            tokens,
            retry,
            config.request_timeout,
        );
        let auth = AuthState::new(AuthSnapshot { account: google.account(), ..AuthSnapshot::signed_out() });
        let local = LocalFiles::new(config.export_dir.clone(), config.local_roots.clone());
        let names = Arc::new(DriveNames(google.clone()));
        let cache = ResponseCache::new(approvals.store.clone(), google.clone());
        let approvals = Arc::new(Approvals::new(approvals.store, approvals.policy, &tools).with_target_names(names));
        let ctx = ToolContext { google, config: Arc::new(config), local, cache, progress: Progress::none() };
        let (assistants, _) = tokio::sync::watch::channel(0);
        Ok(Arc::new(Self { auth, approvals, tools, index, ctx, sandbox, assistants }))
    }

    /// The tools this server offers, in catalogue order.
    pub fn tools(&self) -> &[ToolDef] {
        &self.tools
    }

    pub fn tool(&self, name: &str) -> Option<&ToolDef> {
        self.index.get(name).map(|&i| &self.tools[i])
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
        let tool = self.tool(name).ok_or_else(|| CallError::UnknownTool(name.to_owned()))?;
        let arguments = Value::Object(arguments.unwrap_or_default());
        let started = std::time::Instant::now();
        let account = self.auth.current().account;
        // What the audit log keeps of the call is taken now, so the arguments themselves can go to the tool
        // without a copy.
        // Until the call finishes, its record says it was withdrawn: if this future is dropped first (the
        // assistant cancelled the call or went away while it waited for the person), the record is still
        // written, and the card has already gone with the dropped wait (see `Broker::ask`).
        let mut unfinished = Unfinished {
            approvals: &self.approvals,
            entry: Some(AuditEntry {
                time: chrono::Utc::now(),
                agent: meta.caller.agent.clone(),
                tool: name.to_owned(),
                target: redact::target(tool, &arguments),
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
        let (reply, verdict, source, outcome) = match tool.check_arguments(&arguments) {
            Ok(()) => {
                let (permit, answered_via) =
                    self.approvals.permit_answered(tool, &arguments, meta, account.as_deref()).await;
                unfinished.decided(&permit, answered_via);
                self.carry_out(tool, arguments, permit, progress).await
            }
            Err(error) => {
                let text = error.to_string();
                let reply = Reply { text: text.clone(), is_error: true };
                (reply, Verdict::Denied, DecisionSource::InvalidArguments, CallOutcome::Error(text))
            }
        };
        let duration_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        tracing::info!(tool = name, ok = !reply.is_error, elapsed_ms = duration_ms, "tool call");
        if let Some(entry) = unfinished.finished() {
            let entry = AuditEntry { time: chrono::Utc::now(), verdict, source, outcome, duration_ms, ..entry };
            self.approvals.audit(entry).await;
        }
        Ok(reply)
    }

    /// Runs the call when permitted; the reply and what the audit log records about it.
    async fn carry_out(
        &self,
        tool: &ToolDef,
        arguments: Value,
        permit: Permit,
        progress: Progress,
    ) -> (Reply, Verdict, DecisionSource, CallOutcome) {
        match permit {
            Permit::Refuse { source, message } => {
                (Reply { text: message, is_error: true }, Verdict::Denied, source, CallOutcome::Refused)
            }
            Permit::Run { source } => match self.run(tool, arguments, progress).await {
                Ok(text) => (Reply { text, is_error: false }, Verdict::Allowed, source, CallOutcome::Ok),
                Err(error) => {
                    let text = error.to_string();
                    (Reply { text: text.clone(), is_error: true }, Verdict::Allowed, source, CallOutcome::Error(text))
                }
            },
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
    async fn run_cached(&self, tool: &ToolDef, arguments: Value, progress: Progress) -> Result<Output, ToolError> {
        let cache = &self.ctx.cache;
        let ctx = self.ctx.reporting(progress);
        if let Some(changed) = cache::changed_by(tool, &arguments) {
            cache.forget_changed(&changed).await;
            let output = tool.run(ctx, arguments).await;
            cache.forget_changed(&changed).await;
            return output;
        }
        let auth = self.auth.current();
        match cache.lookup(&tool.meta, &arguments, auth.account.as_deref(), auth.granted_scopes.as_deref()).await {
            Lookup::Off => tool.run(ctx, arguments).await,
            Lookup::Hit(text) => Ok(Output::Text(text)),
            Lookup::Miss(pending) => {
                let output = tool.run(ctx, arguments).await?;
                match &output {
                    Output::Json(value) => cache.keep(pending, &value.to_string(), self.ctx.max_chars()).await,
                    Output::Text(text) => cache.keep(pending, text, self.ctx.max_chars()).await,
                }
                Ok(output)
            }
        }
    }

    async fn run(&self, tool: &ToolDef, arguments: Value, progress: Progress) -> Result<String, ToolError> {
        self.check_scope(tool).await?;
        // A bad local_path fails before any Google call.
        let local_target = match (tool.meta.local_path, arguments.get("local_path")) {
            (true, Some(Value::String(path))) => Some(self.ctx.local.export_target(path)?),
            _ => None,
        };
        let output = self.run_cached(tool, arguments, progress).await?;
        match local_target {
            Some(path) => {
                let text = match output {
                    Output::Json(value) => serde_json::to_string_pretty(&value).unwrap_or_else(|_| value.to_string()),
                    Output::Text(text) => text,
                };
                let bytes = self.ctx.local.write(&path, text.as_bytes()).await?;
                let reply = json!({
                    "local_path": path.display().to_string(),
                    "bytes": bytes,
                    "message": format!("The full result ({bytes} bytes of JSON) was written to {}.", path.display()),
                });
                Ok(reply.to_string())
            }
            None => Ok(response_cap::render(&tool.meta, output, self.ctx.max_chars())?),
        }
    }
}
