//! Tool declarations: each tool is declared once, here-shaped, and everything else (the MCP tool list, the
//! generated `docs/tools.md`, the response-size rule, where `local_path` applies) is derived from it.

use std::future::Future;
use std::sync::Arc;

use futures::future::BoxFuture;
use rmcp::model::{JsonObject, Tool};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::context::ToolContext;
use super::error::ToolError;
use super::google_mcp::McpRoute;
use crate::approval::evaluator::{ArgEvaluator, Evaluator};
use crate::approval::preview::Preview;
use crate::approval::sentence::Said;
pub use crate::catalog::{
    Access, Cap, Effect, Limitation, Output, Passed, Scope, Service, ToolMeta, parse_args, parse_args_ref,
};
use crate::google::GoogleClient;
use crate::google::mcp::GoogleTool;

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

impl AsRef<ToolMeta> for ToolDef {
    fn as_ref(&self) -> &ToolMeta {
        &self.meta
    }
}

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
            parse_args_ref::<A>(name, args)?;
            Ok(())
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

/// Every tool of this build, in catalogue order. Built once per process and shared after (a `ToolDef` is a
/// few `Arc`s): the schemas are generated from the argument types the first time, so a caller that looks a tool
/// up (a grant's words, the settings page, the tool sets) doesn't rebuild all of them each time.
pub fn all_tools() -> Vec<ToolDef> {
    static ALL: std::sync::OnceLock<Vec<ToolDef>> = std::sync::OnceLock::new();
    ALL.get_or_init(declared).clone()
}

/// The declarations, in catalogue order (see [`all_tools`]).
fn declared() -> Vec<ToolDef> {
    let mut tools = super::sheets::tools();
    tools.extend(super::drive::sheets_tools());
    tools.extend(super::drive::tools());
    tools.extend(super::docs::tools());
    tools.extend(super::cache::tools());
    tools.extend(super::calendar::tools());
    tools.extend(super::gmail::tools());
    tools
}
