//! Tool declarations: each tool is declared once, here-shaped, and everything else (the MCP tool list, the
//! generated `docs/tools.md`, the response-size rule, where `local_path` applies) is derived from it.

use std::future::Future;
use std::sync::Arc;

use futures::future::BoxFuture;
use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::context::ToolContext;
use super::error::ToolError;
use super::google_mcp::McpRoute;
use crate::approval::evaluator::{ArgEvaluator, Evaluator};
use crate::approval::preview::Preview;
use crate::approval::sentence::Said;
use crate::google::GoogleClient;
use crate::google::mcp::GoogleTool;

/// Which Google product a tool works on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Service {
    Sheets,
    Drive,
    Docs,
    Calendar,
    Gmail,
    /// Gatehouse's own response cache: no Google call.
    Cache,
}

impl Service {
    pub const fn label(self) -> &'static str {
        match self {
            Service::Sheets => "Sheets",
            Service::Drive => "Drive",
            Service::Docs => "Docs",
            Service::Calendar => "Calendar",
            Service::Gmail => "Gmail",
            Service::Cache => "Cache",
        }
    }

    /// The OAuth scope the product's tools need unless a declaration says otherwise; `None` when they make no
    /// Google call.
    pub const fn scope(self) -> Option<Scope> {
        match self {
            Service::Sheets => Some(Scope::Sheets),
            Service::Drive => Some(Scope::Drive),
            Service::Docs => Some(Scope::Docs),
            Service::Calendar => Some(Scope::Calendar),
            Service::Gmail => Some(Scope::Gmail),
            Service::Cache => None,
        }
    }
}

/// The Google API whose OAuth scope a tool's calls need: a person who did not grant it cannot use the tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Scope {
    Sheets,
    Docs,
    Drive,
    DriveActivity,
    Calendar,
    /// A calendar's sharing rules: `acl.list` takes no `calendar.readonly`, so reading them needs its own.
    CalendarAcl,
    Gmail,
}

const SHEETS: &str = "https://www.googleapis.com/auth/spreadsheets";
const SHEETS_READONLY: &str = "https://www.googleapis.com/auth/spreadsheets.readonly";
const DOCS: &str = "https://www.googleapis.com/auth/documents";
const DOCS_READONLY: &str = "https://www.googleapis.com/auth/documents.readonly";
const DRIVE: &str = "https://www.googleapis.com/auth/drive";
const DRIVE_READONLY: &str = "https://www.googleapis.com/auth/drive.readonly";
const ACTIVITY: &str = "https://www.googleapis.com/auth/drive.activity";
const ACTIVITY_READONLY: &str = "https://www.googleapis.com/auth/drive.activity.readonly";
const CALENDAR: &str = "https://www.googleapis.com/auth/calendar";
const CALENDAR_READONLY: &str = "https://www.googleapis.com/auth/calendar.readonly";
const CALENDAR_ACLS: &str = "https://www.googleapis.com/auth/calendar.acls";
const CALENDAR_ACLS_READONLY: &str = "https://www.googleapis.com/auth/calendar.acls.readonly";
/// Full mailbox access; the discovery document lists it on every Gmail method.
const MAIL: &str = "https://mail.google.com/";
/// Read, send, label and trash, but never delete for good: all the Gmail tools need.
const GMAIL_MODIFY: &str = "https://www.googleapis.com/auth/gmail.modify";
const GMAIL_READONLY: &str = "https://www.googleapis.com/auth/gmail.readonly";

impl Scope {
    /// The scope Gatehouse asks for on Google's consent page.
    pub const fn url(self) -> &'static str {
        match self {
            Scope::Sheets => SHEETS,
            Scope::Docs => DOCS,
            Scope::Drive => DRIVE,
            Scope::DriveActivity => ACTIVITY_READONLY,
            Scope::Calendar => CALENDAR,
            Scope::CalendarAcl => CALENDAR_ACLS,
            Scope::Gmail => GMAIL_MODIFY,
        }
    }

    /// The product in words, for messages.
    pub const fn product(self) -> &'static str {
        match self {
            Scope::Sheets => "Sheets",
            Scope::Docs => "Docs",
            Scope::Drive => "Drive",
            Scope::DriveActivity => "Drive Activity",
            Scope::Calendar => "Calendar",
            Scope::CalendarAcl => "Calendar sharing",
            Scope::Gmail => "Gmail",
        }
    }

    /// The scope whose full grant also covers this one's reads, when that is not already said by the read-only
    /// scope: `calendar` opens calendars' sharing rules too, so reading them needs no scope of its own then.
    pub const fn read_covered_by(self) -> Option<Scope> {
        match self {
            Scope::CalendarAcl => Some(Scope::Calendar),
            _ => None,
        }
    }

    /// The narrower scope to ask for when every enabled tool needing this scope only reads.
    pub const fn read_only_url(self) -> &'static str {
        match self {
            Scope::Sheets => SHEETS_READONLY,
            Scope::Docs => DOCS_READONLY,
            Scope::Drive => DRIVE_READONLY,
            Scope::DriveActivity => ACTIVITY_READONLY,
            Scope::Calendar => CALENDAR_READONLY,
            Scope::CalendarAcl => CALENDAR_ACLS_READONLY,
            Scope::Gmail => GMAIL_READONLY,
        }
    }

    /// Every granted scope that lets a tool work, as the discovery documents list them per method (Sheets and
    /// Docs also accept Drive's scopes; reads also the `.readonly` ones). `drive.file` is left out: it reaches
    /// only files Gatehouse created or opened, so it does not make a tool usable in general.
    pub const fn accepted(self, read_only: bool) -> &'static [&'static str] {
        match (self, read_only) {
            (Scope::Sheets, false) => &[SHEETS, DRIVE],
            (Scope::Sheets, true) => &[SHEETS, SHEETS_READONLY, DRIVE, DRIVE_READONLY],
            (Scope::Docs, false) => &[DOCS, DRIVE],
            (Scope::Docs, true) => &[DOCS, DOCS_READONLY, DRIVE, DRIVE_READONLY],
            (Scope::Drive, false) => &[DRIVE],
            (Scope::Drive, true) => &[DRIVE, DRIVE_READONLY],
            (Scope::DriveActivity, _) => &[ACTIVITY, ACTIVITY_READONLY],
            (Scope::Calendar, false) => &[CALENDAR],
            (Scope::Calendar, true) => &[CALENDAR, CALENDAR_READONLY],
            (Scope::CalendarAcl, false) => &[CALENDAR, CALENDAR_ACLS],
            (Scope::CalendarAcl, true) => &[CALENDAR, CALENDAR_ACLS, CALENDAR_ACLS_READONLY],
            (Scope::Gmail, false) => &[MAIL, GMAIL_MODIFY],
            (Scope::Gmail, true) => &[MAIL, GMAIL_MODIFY, GMAIL_READONLY],
        }
    }
}

/// A kind of identity a tool cannot work for, whatever its arguments. `server://auth-status` lists each tool
/// under every limitation its declaration names, so no tool can be forgotten there.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Limitation {
    /// The tool creates, copies or uploads a file the caller then owns. Outside shared drives that takes Drive
    /// storage, which service accounts don't have (Google answers `storageQuotaExceeded`).
    NoDriveStorageQuota,
    /// The tool needs a person with a My Drive: file ownership moves only between people.
    NoPersonalDriveIdentity,
    /// The tool works on the signed-in person's mailbox, which a service account does not have (Gmail
    /// answers `failedPrecondition`); Gatehouse does not impersonate people through domain-wide delegation.
    NoMailbox,
}

impl Limitation {
    pub const ALL: [Limitation; 3] =
        [Limitation::NoDriveStorageQuota, Limitation::NoPersonalDriveIdentity, Limitation::NoMailbox];

    /// The `category` of its `server://auth-status` entry.
    pub const fn category(self) -> &'static str {
        match self {
            Limitation::NoDriveStorageQuota => "no_drive_storage_quota",
            Limitation::NoPersonalDriveIdentity => "no_personal_drive_identity",
            Limitation::NoMailbox => "no_mailbox",
        }
    }
}

/// The gating class: whether a call changes anything (and so, later, needs the person's approval).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Reads only; `readOnlyHint`.
    Read,
    /// Changes Google data or the local disk.
    Write {
        /// Overwrites or removes something (`destructiveHint: true`); `false` for purely additive writes.
        destructive: bool,
        /// Repeating the same call changes nothing more (`idempotentHint`).
        idempotent: bool,
    },
}

/// What to suggest when a result is over the response-size cap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cap {
    /// The result's size does not depend on the data (a confirmation, a count): not capped.
    Fixed,
    /// Capped; ask for a narrower range or fewer items.
    Narrower,
    /// Capped; a paginated listing: ask for fewer results per page and page on.
    Paging,
    /// Capped; fetch the file with `download_file` instead.
    Download,
}

/// The static part of a tool's declaration.
#[derive(Debug, Clone, Copy)]
pub struct ToolMeta {
    pub name: &'static str,
    /// A short label in plain words, for cards and settings ("Update cells").
    pub title: &'static str,
    /// What the tool does, for the assistant. Short and exact.
    pub description: &'static str,
    pub service: Service,
    pub access: Access,
    pub cap: Cap,
    /// Whether the tool takes `local_path` to write its full result to a file in the export folder.
    pub local_path: bool,
    /// The identities the tool cannot work for (see [`ToolMeta::failing_for`]); empty for most tools.
    pub fails_for: &'static [Limitation],
    /// The OAuth scope its Google calls need (the product's, unless [`ToolMeta::with_scope`] says otherwise);
    /// `None` for a tool that makes no Google call.
    pub scope: Option<Scope>,
    /// For a read whose results the response cache may keep ([`ToolMeta::cached`]): the argument naming the
    /// Drive file the result is read from, whose version decides whether a kept result is still good.
    pub cached_from: Option<&'static str>,
}

impl ToolMeta {
    /// A read tool, without `local_path` (see [`ToolMeta::with_local_path`]).
    pub const fn read(
        service: Service,
        name: &'static str,
        title: &'static str,
        description: &'static str,
        cap: Cap,
    ) -> Self {
        Self {
            name,
            title,
            description,
            service,
            access: Access::Read,
            cap,
            local_path: false,
            fails_for: &[],
            scope: service.scope(),
            cached_from: None,
        }
    }

    /// A write tool. Its result is a confirmation whose size doesn't depend on the data, so it is never
    /// capped (refusing a result after the write happened would only hide what was done).
    pub const fn write(
        service: Service,
        name: &'static str,
        title: &'static str,
        description: &'static str,
        destructive: bool,
        idempotent: bool,
    ) -> Self {
        Self {
            name,
            title,
            description,
            service,
            access: Access::Write { destructive, idempotent },
            cap: Cap::Fixed,
            local_path: false,
            fails_for: &[],
            scope: service.scope(),
            cached_from: None,
        }
    }

    /// The same tool, also taking `local_path` to write its full result to the export folder.
    pub const fn with_local_path(self) -> Self {
        Self { local_path: true, ..self }
    }

    /// The same tool, declared to fail for the identities `limitations` describe.
    pub const fn failing_for(self, limitations: &'static [Limitation]) -> Self {
        Self { fails_for: limitations, ..self }
    }

    /// The same tool, needing `scope` instead of its product's.
    pub const fn with_scope(self, scope: Scope) -> Self {
        Self { scope: Some(scope), ..self }
    }

    /// The same read, its results kept by the response cache (`crate::cache`) and served again while the
    /// Drive file named by the argument `file_argument` is unchanged. Only for reads whose result depends
    /// on that one file's content alone, so its Drive version tells when a kept result is stale.
    pub const fn cached(self, file_argument: &'static str) -> Self {
        Self { cached_from: Some(file_argument), ..self }
    }

    /// Whether the declaration names `limitation`.
    pub fn fails(&self, limitation: Limitation) -> bool {
        self.fails_for.contains(&limitation)
    }

    /// Whether granting `granted` lets the tool work (any of its [`Scope::accepted`] scopes).
    pub fn scope_granted(&self, granted: &[String]) -> bool {
        let Some(scope) = self.scope else { return true };
        scope.accepted(self.is_read_only()).iter().any(|accepted| granted.iter().any(|g| g == accepted))
    }

    pub const fn is_read_only(&self) -> bool {
        matches!(self.access, Access::Read)
    }

    /// Whether the tool's result carries content other people can write: every read of Google data (a shared
    /// file's cells and text, mail, invitations, comments, names). Such a result is followed by
    /// [`crate::screening`]'s note, and the tool's description says so.
    pub const fn carries_others_content(&self) -> bool {
        self.is_read_only() && self.scope.is_some()
    }

    /// The description an assistant reads: the declared one, with what [`crate::screening`]'s note is where it
    /// applies.
    pub fn described(&self) -> std::borrow::Cow<'static, str> {
        match self.carries_others_content() {
            true => format!("{} {}", self.description, crate::screening::DESCRIBED).into(),
            false => self.description.into(),
        }
    }

    /// MCP's annotations, derived from the declaration so they can't disagree with it. Every tool talks
    /// to Google, an open world.
    pub fn annotations(&self) -> ToolAnnotations {
        let (read_only, destructive, idempotent) = match self.access {
            Access::Read => (true, false, true),
            Access::Write { destructive, idempotent } => (false, destructive, idempotent),
        };
        ToolAnnotations::from_raw(
            Some(self.title.to_owned()),
            Some(read_only),
            Some(destructive),
            Some(idempotent),
            Some(true),
        )
    }
}

/// A tool's result: a JSON value, or JSON text already serialized. Large results (a 20,000-row sheet) are
/// written straight from Google's answer into text, so no intermediate JSON tree is ever held.
#[derive(Debug, Clone)]
pub enum Output {
    Json(Value),
    /// Serialized JSON, produced by the handler.
    Text(String),
    /// A discovered Google tool's result as Google gave it (see [`Passed`]).
    Google(Box<Passed>),
}

/// The result of one of Google's tools that Gatehouse offers as it is ([`super::discovered`]): its text, and
/// what MCP clients that take them are given besides (`structuredContent`, resource links).
#[derive(Debug, Clone, Default)]
pub struct Passed {
    /// Google's text content, joined; Google's `structuredContent` as JSON text when it gave no text.
    pub text: String,
    pub structured: Option<Value>,
    /// Google's `resource_link` content blocks, as it sent them.
    pub links: Vec<rmcp::model::ContentBlock>,
}

impl From<Value> for Output {
    fn from(value: Value) -> Self {
        Output::Json(value)
    }
}

type Handler = Arc<dyn Fn(ToolContext, Value) -> BoxFuture<'static, Result<Output, ToolError>> + Send + Sync>;

/// A declared tool: its metadata, its input schema (from the argument type), its handler and the evaluators
/// that judge its calls for standing approval.
#[derive(Clone)]
pub struct ToolDef {
    pub meta: ToolMeta,
    schema: Arc<JsonObject>,
    handler: Handler,
    evaluators: Vec<Arc<dyn ArgEvaluator>>,
    check: Check,
    /// How the tool runs on Google's MCP servers, where it can ([`ToolDef::on_google_mcp`]).
    mcp: Option<McpRoute>,
    /// What its approval card says a call will do ([`ToolDef::worded`]).
    wording: Option<Wording>,
    /// How its card's preview of the change is read ([`ToolDef::previewed`]).
    preview: Option<Previewer>,
    /// The Google tool definition the tool runs on, when known: a discovered tool's own
    /// ([`ToolDef::discovered`]); for a routed tool, the one its call goes to ([`ToolDef::with_google`]). Its
    /// fingerprint covers it, so a grant stops covering a tool whose Google definition changed.
    google: Option<Arc<GoogleTool>>,
}

/// A preview being read from Google; the error in words for the card.
pub type PreviewRead = BoxFuture<'static, Result<Preview, String>>;

/// A tool's preview reader for a call's raw arguments; `None` when they don't parse as the tool's own.
type Previewer = Arc<dyn Fn(GoogleClient, &Value) -> Option<PreviewRead> + Send + Sync>;

/// A tool's sentence for a call's raw arguments; `None` when they don't parse as the tool's own.
type Wording = Arc<dyn Fn(&Value) -> Option<Said> + Send + Sync>;

type Check = Arc<dyn Fn(&Value) -> Result<(), ToolError> + Send + Sync>;

impl std::fmt::Debug for ToolDef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kinds: Vec<&str> = self.evaluators.iter().map(|e| e.kind()).collect();
        f.debug_struct("ToolDef").field("meta", &self.meta).field("evaluators", &kinds).finish_non_exhaustive()
    }
}

impl ToolDef {
    /// Declares a tool whose arguments are `A` (its JSON schema is the tool's input schema; the bounds on
    /// strings and parsing into `A` are the argument check, see [`ToolDef::check_arguments`]) and whose work is `run`. It has no evaluator: a write declared
    /// this way may be granted standing approval for any arguments (see [`ToolDef::evaluated`]).
    pub fn new<A, O, F, Fut>(meta: ToolMeta, run: F) -> Self
    where
        A: DeserializeOwned + JsonSchema + 'static,
        O: Into<Output>,
        F: Fn(ToolContext, A) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<O, ToolError>> + Send + 'static,
    {
        Self::evaluated(meta, run, [])
    }

    /// Declares a tool like [`ToolDef::new`], with the evaluators that judge its calls for standing approval
    /// (which spreadsheet, folder or recipients a grant may be limited to; what always asks). They take the
    /// same `A` as `run`, so they read the arguments exactly as the tool does: the compiler holds the two to
    /// one type, and both parse with `parse_args`.
    pub fn evaluated<A, O, F, Fut>(meta: ToolMeta, run: F, evaluators: impl IntoIterator<Item = Evaluator<A>>) -> Self
    where
        A: DeserializeOwned + JsonSchema + 'static,
        O: Into<Output>,
        F: Fn(ToolContext, A) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<O, ToolError>> + Send + 'static,
    {
        let run = Arc::new(run);
        let name = meta.name;
        let handler: Handler = Arc::new(move |ctx, args| {
            let run = Arc::clone(&run);
            Box::pin(async move {
                let args: A = parse_args(name, args)?;
                run(ctx, args).await.map(Into::into)
            })
        });
        let evaluators = evaluators.into_iter().map(|evaluator| evaluator.bind(name)).collect();
        let check: Check = Arc::new(move |args| {
            crate::limits::arguments::check(name, args)?;
            parse_args_ref::<A>(name, args).map(drop)
        });
        Self {
            meta,
            schema: super::schema::input_schema::<A>(),
            handler,
            evaluators,
            check,
            mcp: None,
            wording: None,
            preview: None,
            google: None,
        }
    }

    /// The same tool, its approval card saying in the person's words what a call will do (see
    /// [`crate::approval::sentence`]): `say` reads the tool's own argument type `A`, parsed as the tool
    /// parses it. Every write declares one (a test holds the catalogue to it).
    pub fn worded<A: DeserializeOwned + 'static>(self, say: fn(&A) -> Said) -> Self {
        let name = self.meta.name;
        let wording: Wording = Arc::new(move |args| parse_args_ref::<A>(name, args).ok().map(|args| say(&args)));
        Self { wording: Some(wording), ..self }
    }

    /// The same tool, its approval card previewing the change with what `read` reads from Google (see
    /// [`crate::approval::preview`]): `read` takes the tool's own argument type `A`. Reads only, within the
    /// card's budget; the gate never waits on it to take the answer.
    pub fn previewed<A: DeserializeOwned + 'static>(self, read: fn(GoogleClient, A) -> PreviewRead) -> Self {
        let name = self.meta.name;
        let previewer: Previewer =
            Arc::new(move |google, args| parse_args_ref::<A>(name, args).ok().map(|args| read(google, args)));
        Self { preview: Some(previewer), ..self }
    }

    /// The call's preview being read through `google`, when the tool has one and takes these arguments.
    pub fn preview(&self, google: &GoogleClient, args: &Value) -> Option<PreviewRead> {
        self.preview.as_ref().and_then(|read| read(google.clone(), args))
    }

    /// Whether the tool declares a preview ([`ToolDef::previewed`]).
    pub fn is_previewed(&self) -> bool {
        self.preview.is_some()
    }

    /// Whether the tool declares its own sentence ([`ToolDef::worded`]).
    pub fn is_worded(&self) -> bool {
        self.wording.is_some()
    }

    /// What the card says the call `args` will do: the tool's own sentence, or, for a tool that declares
    /// none or arguments it would not take, one from its title and description ([`Said::generic`]).
    pub fn said(&self, args: &Value) -> Said {
        self.wording
            .as_ref()
            .and_then(|wording| wording(args))
            .unwrap_or_else(|| Said::generic(self.meta.title, self.meta.description))
    }

    /// A tool of Google's MCP server offered as it is (see [`super::discovered`]): `schema` is what the
    /// assistant is shown, and every call goes to Google's tool ([`super::google_mcp::run`]), never to a handler.
    pub(crate) fn discovered(meta: ToolMeta, schema: JsonObject, google: Arc<GoogleTool>) -> Self {
        let name = meta.name;
        let server = google.product.label();
        let handler: Handler = Arc::new(move |_ctx, _args| {
            Box::pin(async move { Err(ToolError::invalid(format!("{name} runs only on the {server}."))) })
        });
        let check: Check = Arc::new(move |args| {
            crate::limits::arguments::check(name, args)?;
            match args {
                Value::Object(_) => Ok(()),
                _ => Err(ToolError::invalid(format!("{name} takes its arguments as a JSON object."))),
            }
        });
        Self {
            meta,
            schema: Arc::new(schema),
            handler,
            evaluators: Vec::new(),
            check,
            mcp: None,
            wording: None,
            preview: None,
            google: Some(google),
        }
    }

    /// Whether this is one of Google's tools offered as it is ([`super::discovered`]).
    pub fn is_discovered(&self) -> bool {
        self.mcp.is_none() && self.google.is_some()
    }

    /// Whether calls can run on one of Google's MCP servers: a route, or a discovered tool.
    pub fn reaches_google_mcp(&self) -> bool {
        self.mcp.is_some() || self.google.is_some()
    }

    /// The Google tool definition this tool runs on, when known (see the field's documentation).
    pub fn google(&self) -> Option<&Arc<GoogleTool>> {
        self.google.as_ref()
    }

    /// The same routed tool, its call going to Google's tool `google` (its fingerprint then covers it).
    pub fn with_google(&self, google: Arc<GoogleTool>) -> Self {
        Self { google: Some(google), ..self.clone() }
    }

    /// The same tool, also able to run on Google's MCP server as `route` says (see [`super::google_mcp`]).
    pub fn on_google_mcp(self, route: McpRoute) -> Self {
        Self { mcp: Some(route), ..self }
    }

    /// How the tool runs on Google's MCP servers, if it can.
    pub fn mcp_route(&self) -> Option<&McpRoute> {
        self.mcp.as_ref()
    }

    /// Checks `args` as the tool will, without running it: every string within its kind's bound
    /// ([`crate::limits::arguments`], from the argument's declared name), then parsed as the tool parses
    /// them. Arguments it would refuse fail before anyone is asked to approve the call, and before Google.
    pub fn check_arguments(&self, args: &Value) -> Result<(), ToolError> {
        (self.check)(args)
    }

    /// The evaluators that judge this tool's calls for standing approval, in declaration order; empty for a
    /// tool whose calls any grant may cover (and for every read).
    pub fn evaluators(&self) -> &[Arc<dyn ArgEvaluator>] {
        &self.evaluators
    }

    /// The JSON schema of the tool's arguments.
    pub fn input_schema(&self) -> &Arc<JsonObject> {
        &self.schema
    }

    /// The tool as MCP's `tools/list` shows it.
    pub fn to_mcp(&self) -> Tool {
        let mut tool = Tool::new(self.meta.name, self.meta.described(), Arc::clone(&self.schema));
        tool.title = Some(self.meta.title.to_owned());
        tool.annotations = Some(self.meta.annotations());
        // A discovered tool passes Google's structuredContent on, which its output schema describes.
        if self.is_discovered() {
            tool.output_schema = self.google.as_ref().and_then(|google| google.definition.output_schema.clone());
        }
        tool
    }

    /// Runs the handler on raw arguments (parsing them first).
    pub(crate) fn run(&self, ctx: ToolContext, args: Value) -> BoxFuture<'static, Result<Output, ToolError>> {
        (self.handler)(ctx, args)
    }
}

/// Parses a tool's raw arguments into its argument type: the one argument check, shared by the handler and
/// the tool's evaluators so an evaluator never judges arguments the tool would read differently.
pub(crate) fn parse_args<A: DeserializeOwned>(tool: &'static str, args: Value) -> Result<A, ToolError> {
    serde_path_to_error::deserialize(args).map_err(|e| ToolError::arguments(tool, e))
}

/// [`parse_args`] without taking the arguments: for checks that only look (the same parsing, the same errors).
pub(crate) fn parse_args_ref<A: DeserializeOwned>(tool: &'static str, args: &Value) -> Result<A, ToolError> {
    serde_path_to_error::deserialize(args).map_err(|e| ToolError::arguments(tool, e))
}

/// Every tool of this build, in catalogue order.
pub fn all_tools() -> Vec<ToolDef> {
    let mut tools = super::sheets::tools();
    tools.extend(super::drive::sheets_tools());
    tools.extend(super::drive::tools());
    tools.extend(super::docs::tools());
    tools.extend(super::cache::tools());
    tools.extend(super::calendar::tools());
    tools.extend(super::gmail::tools());
    tools
}
