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
use crate::approval::evaluator::Evaluator;
pub use crate::approval::gated_tool::GatedTool;
pub use crate::approval::preview::PreviewRead;
use crate::approval::sentence::Said;
pub use crate::catalog::{
    Access, Cap, Effect, Limitation, Output, Passed, Scope, Service, ToolMeta, parse_args, parse_args_ref,
};
use crate::google::GoogleClient;
use crate::google::mcp::GoogleTool;

type Handler = Arc<dyn Fn(ToolContext, Value) -> BoxFuture<'static, Result<Output, ToolError>> + Send + Sync>;

/// A declared tool: what the gate knows of it ([`GatedTool`]: its metadata, its input schema from the
/// argument type, the evaluators that judge its calls, its card's sentence and preview), its handler, its
/// argument check, and how it runs on Google's MCP servers.
///
/// It dereferences to its [`GatedTool`], so `tool.meta` and the gate's questions read the same either way,
/// and the gate takes a `&ToolDef` where it asks for a `&GatedTool`.
#[derive(Clone)]
pub struct ToolDef {
    gated: GatedTool,
    handler: Handler,
    check: Check,
    /// How the tool runs on Google's MCP servers, where it can ([`ToolDef::on_google_mcp`]).
    mcp: Option<McpRoute>,
}

type Check = Arc<dyn Fn(&Value) -> Result<(), ToolError> + Send + Sync>;

impl std::ops::Deref for ToolDef {
    type Target = GatedTool;

    fn deref(&self) -> &GatedTool {
        &self.gated
    }
}

impl std::ops::DerefMut for ToolDef {
    fn deref_mut(&mut self) -> &mut GatedTool {
        &mut self.gated
    }
}

impl AsRef<GatedTool> for ToolDef {
    fn as_ref(&self) -> &GatedTool {
        &self.gated
    }
}

impl AsRef<ToolMeta> for ToolDef {
    fn as_ref(&self) -> &ToolMeta {
        &self.gated.meta
    }
}

impl std::fmt::Debug for ToolDef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolDef").field("gated", &self.gated).finish_non_exhaustive()
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
        let gated = GatedTool::new(meta, super::schema::input_schema::<A>(), evaluators);
        Self { gated, handler, check, mcp: None }
    }

    /// The same tool, its approval card saying in the person's words what a call will do (see
    /// [`GatedTool::worded`]). Every write declares one (a test holds the catalogue to it).
    pub fn worded<A: DeserializeOwned + 'static>(self, say: fn(&A) -> Said) -> Self {
        Self { gated: self.gated.worded(say), ..self }
    }

    /// The same tool, its approval card previewing the change with what `read` reads from Google (see
    /// [`GatedTool::previewed`]).
    pub fn previewed<A: DeserializeOwned + 'static>(self, read: fn(GoogleClient, A) -> PreviewRead) -> Self {
        Self { gated: self.gated.previewed(read), ..self }
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
        Self { gated: GatedTool::of_google(meta, Arc::new(schema), google), handler, check, mcp: None }
    }

    /// Whether this is one of Google's tools offered as it is ([`super::discovered`]).
    pub fn is_discovered(&self) -> bool {
        self.mcp.is_none() && self.google().is_some()
    }

    /// Whether calls can run on one of Google's MCP servers: a route, or a discovered tool.
    pub fn reaches_google_mcp(&self) -> bool {
        self.mcp.is_some() || self.google().is_some()
    }

    /// The same routed tool, its call going to Google's tool `google` (its fingerprint then covers it).
    pub fn with_google(&self, google: Arc<GoogleTool>) -> Self {
        let tool = self.clone();
        Self { gated: tool.gated.with_google(google), ..tool }
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

    /// The tool as MCP's `tools/list` shows it.
    pub fn to_mcp(&self) -> Tool {
        let mut tool = self.shown();
        // A discovered tool passes Google's structuredContent on, which its output schema describes.
        if self.is_discovered() {
            tool.output_schema = self.google().and_then(|google| google.definition.output_schema.clone());
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
