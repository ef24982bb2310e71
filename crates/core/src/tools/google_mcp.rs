//! Which of Google's surfaces serves a call: its Workspace MCP servers, where a tool's declaration says how
//! ([`McpRoute`], declared next to the tool with [`ToolDef::on_google_mcp`]), or its REST APIs (the tool's
//! handler). The person's setting decides ([`GoogleBackend`], `GATEHOUSE_GOOGLE_BACKEND`):
//!
//! - `rest`: the handler, as before Google's MCP servers;
//! - `mcp`: only tools with a route are offered ([`offered`]), and they run only there;
//! - `both` (the default): through Google's server when the route can express the arguments and the server
//!   lists the tool, the handler otherwise, and also when the server can't be used (unreachable, the sign-in
//!   refused) before the call was sent. A write whose call may have reached Google is never sent again by
//!   REST, and neither is a call Gatehouse left to Google's form (REST would run it unasked).
//!
//! This runs after Gatehouse's own decision (the engine's `call_through`): grants, evaluators, cards, deny
//! rules, pause, tool sets and the audit apply before anything is sent to either surface. The one exception
//! is written in [`google_asks_first`]: a tool Google itself asks about at every call is not carded by
//! Gatehouse first, since Google's form is then the card. Every form Google answers a call with is put to
//! the person on a card ([`crate::approval::rounds`]), and the call goes on with their answers.

use rmcp::model::{CallToolResult, JsonObject};
use serde_json::Value;

use super::registry::{Access, Output, Passed, ToolDef};
use super::{Forms, ToolContext, ToolError};
use crate::approval::rounds::{FormCall, Rounds};
use crate::config::GoogleBackend;

use crate::google::mcp::form::Round;
use crate::google::mcp::{McpError, Product};

/// Gatehouse's arguments as Google's tool takes them: `Ok(None)` when these arguments need something Google's
/// tool can't do (then REST serves the call, or, with `mcp`, the call is refused in words).
pub type RouteArguments = fn(&Value) -> Result<Option<JsonObject>, ToolError>;
/// Google's result (its `structuredContent`, or its text read as JSON) in the shape the tool has always
/// answered; the tool's own arguments come along.
pub type RouteResult = fn(&Value, Value) -> Result<Output, ToolError>;

/// How a Gatehouse tool runs on one of Google's MCP tools.
#[derive(Clone, Copy)]
pub struct McpRoute {
    pub product: Product,
    /// Google's tool, as its server lists it.
    pub tool: &'static str,
    pub arguments: RouteArguments,
    pub result: RouteResult,
}

impl std::fmt::Debug for McpRoute {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}mcp:{}", self.product.name(), self.tool)
    }
}

impl McpRoute {
    /// The route as docs/tools.md shows it: `sheetsmcp/get_values`.
    pub fn path(&self) -> String {
        format!("`{}mcp/{}`", self.product.name(), self.tool)
    }
}

/// Whether `tool` is offered under `backend`: with `mcp`, only the tools that can run on Google's servers;
/// with `rest`, none of Google's own tools ([`super::discovered`]).
pub fn offered(tool: &ToolDef, backend: GoogleBackend) -> bool {
    match backend {
        GoogleBackend::Mcp => tool.reaches_google_mcp(),
        GoogleBackend::Rest => !tool.is_discovered(),
        GoogleBackend::Both => true,
    }
}

/// Where one call goes.
enum Path {
    Rest,
    Mcp {
        route: McpRoute,
        arguments: JsonObject,
    },
    /// One of Google's tools offered as it is: its arguments go as they came (less Gatehouse's `local_path`).
    Discovered {
        product: Product,
        tool: String,
        arguments: JsonObject,
    },
}

/// The Google tool a call of `tool` with `arguments` goes to, when it goes to one of Google's MCP servers:
/// a discovered tool's own definition as listed now, or a routed tool's. The engine attaches it before the
/// decision ([`ToolDef::with_google`]), so a grant covers the call only while Google's definition is the one
/// it was given for. `None` when the call runs on REST.
pub async fn google_tool(
    tool: &ToolDef,
    ctx: &ToolContext,
    arguments: &Value,
) -> Option<std::sync::Arc<crate::google::mcp::GoogleTool>> {
    match choose(tool, ctx, arguments).await {
        Ok((Path::Mcp { route, .. }, _)) => {
            let catalogue = ctx.mcp.known(route.product).await?;
            catalogue.tool(route.tool).cloned().map(std::sync::Arc::new)
        }
        Ok((Path::Discovered { product, tool: name, .. }, _)) => {
            let catalogue = ctx.mcp.known(product).await?;
            catalogue.tool(&name).cloned().map(std::sync::Arc::new)
        }
        _ => None,
    }
}

/// A discovered tool's call: Google's tool as its server lists it now (gone: refused in words, nothing sent).
async fn choose_discovered(tool: &ToolDef, ctx: &ToolContext, arguments: &Value) -> Result<(Path, bool), ToolError> {
    let Some(google) = tool.google() else {
        return Err(ToolError::invalid(format!("{} runs on no Google tool.", tool.meta.name)));
    };
    let (product, name) = (google.product, google.name().to_owned());
    let catalogue = ctx.mcp.catalogue(product).await?;
    let Some(listed) = catalogue.tool(&name) else {
        return Err(McpError::UnknownTool { product, tool: name }.into());
    };
    let mut arguments = match arguments {
        Value::Object(map) => map.clone(),
        _ => JsonObject::new(),
    };
    if tool.meta.local_path {
        arguments.remove("local_path");
    }
    let left_to_google = ctx.mcp.leaves_to_google(product, &name, listed.always_asks);
    Ok((Path::Discovered { product, tool: name, arguments }, left_to_google))
}

/// Chooses the surface before anything is sent; `Err` only with `mcp`, where there is no other.
async fn choose(tool: &ToolDef, ctx: &ToolContext, arguments: &Value) -> Result<(Path, bool), ToolError> {
    let backend = ctx.config.google_backend;
    if tool.is_discovered() {
        return choose_discovered(tool, ctx, arguments).await;
    }
    let Some(route) = tool.mcp_route().copied() else {
        return Ok((Path::Rest, false));
    };
    if backend == GoogleBackend::Rest {
        return Ok((Path::Rest, false));
    }
    let only = backend == GoogleBackend::Mcp;
    let Some(google_arguments) = (route.arguments)(arguments)? else {
        if only {
            return Err(ToolError::invalid(format!(
                "{} can't do this on Google's {} with these arguments (only Google's REST API can), and Gatehouse is set to use Google's MCP servers only (GATEHOUSE_GOOGLE_BACKEND=mcp). Call it without the options Google's tool lacks, or ask the person to set the Google backend to both.",
                tool.meta.name,
                route.product.label()
            )));
        }
        return Ok((Path::Rest, false));
    };
    let catalogue = match ctx.mcp.catalogue(route.product).await {
        Ok(catalogue) => catalogue,
        Err(error) if !only && error.is_unavailable() => {
            tracing::debug!(tool = tool.meta.name, "REST serves the call: {error}");
            return Ok((Path::Rest, false));
        }
        Err(error) => return Err(error.into()),
    };
    let Some(google) = catalogue.tool(route.tool) else {
        if only {
            return Err(McpError::UnknownTool { product: route.product, tool: route.tool.to_owned() }.into());
        }
        return Ok((Path::Rest, false));
    };
    let left_to_google = ctx.mcp.leaves_to_google(route.product, route.tool, google.always_asks);
    Ok((Path::Mcp { route, arguments: google_arguments }, left_to_google))
}

/// Whether the call goes to a Google tool that asks the person with a form at every call (listed on
/// `/mcp/v1`, left out of `/mcp/v1self`): then Gatehouse does not card it first, Google's form is the card.
/// Deny rules, pause, tool sets and the audit still apply (the engine asks this only after them).
pub async fn google_asks_first(tool: &ToolDef, ctx: &ToolContext, arguments: &Value) -> bool {
    matches!(choose(tool, ctx, arguments).await, Ok((Path::Mcp { .. } | Path::Discovered { .. }, true)))
}

/// Runs a permitted call on the surface [`choose`] picks; on Google's MCP server, in rounds, each form Google
/// asks for put to the person on a card.
pub async fn run(tool: &ToolDef, ctx: ToolContext, arguments: Value, forms: &Forms) -> Result<Output, ToolError> {
    let (path, always_asks) = choose(tool, &ctx, &arguments).await?;
    let left_to_google = !forms.decided_by_gatehouse;
    let (route, google_arguments) = match path {
        Path::Mcp { route, arguments } => (route, arguments),
        Path::Discovered { product, tool: name, arguments: google_arguments } => {
            if left_to_google && !always_asks {
                return Err(stopped_asking(tool));
            }
            return run_discovered(tool, &ctx, &arguments, (product, name, google_arguments), forms).await;
        }
        Path::Rest => {
            if left_to_google {
                return Err(stopped_asking(tool));
            }
            return tool.run(ctx, arguments).await;
        }
    };
    if left_to_google && !always_asks {
        return Err(stopped_asking(tool));
    }
    // A call left to Google's form never falls back to REST, which would run it unasked.
    let only = ctx.config.google_backend == GoogleBackend::Mcp || left_to_google;
    let sent = std::sync::atomic::AtomicU32::new(0);
    let asked = AskedWatch::default();
    let round = |repeat| {
        sent.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        asked.watch(ctx.mcp.call(route.product, route.tool, google_arguments.clone(), repeat))
    };
    let call = FormCall::new(
        &forms.caller,
        (tool.meta.name, tool.meta.title),
        &arguments,
        tool.evaluators(),
        forms.decided_by_gatehouse,
    );
    let ended = match forms.approvals.run_in_rounds(&call, round).await {
        Ok(Rounds::Done(result)) => Ok(result),
        Ok(Rounds::NotApproved { why, message }) => {
            return Err(ToolError::FormNotApproved { ended_by: why.source(), message });
        }
        Err(error) => Err(error),
    };
    if ended.is_ok() && left_to_google && !asked.asked() {
        ctx.mcp.note_ran_unasked(route.product, route.tool);
    }
    match ended {
        Ok(result) => finish(&route, &arguments, result),
        // Google's server can't be used and nothing ran there (a read, or a refusal of the first round before
        // the call): REST. After a form was answered, never: the person answered Google, not Gatehouse.
        Err(error)
            if !only
                && sent.load(std::sync::atomic::Ordering::Relaxed) == 1
                && error.is_unavailable()
                && may_resend(tool, &error) =>
        {
            tracing::info!(tool = tool.meta.name, "Google's MCP server failed; REST serves the call: {error}");
            tool.run(ctx, arguments).await
        }
        Err(error) => Err(error.into()),
    }
}

/// Runs a permitted call of one of Google's tools offered as it is: in rounds, each form put to the person on a
/// card, Google's result passed on as it came. Never REST: there is no other way to run it.
async fn run_discovered(
    tool: &ToolDef,
    ctx: &ToolContext,
    arguments: &Value,
    (product, name, google_arguments): (Product, String, JsonObject),
    forms: &Forms,
) -> Result<Output, ToolError> {
    let asked = AskedWatch::default();
    let round = |repeat| asked.watch(ctx.mcp.call(product, &name, google_arguments.clone(), repeat));
    let call = FormCall::new(
        &forms.caller,
        (tool.meta.name, tool.meta.title),
        arguments,
        tool.evaluators(),
        forms.decided_by_gatehouse,
    );
    let result = match forms.approvals.run_in_rounds(&call, round).await {
        Ok(Rounds::Done(result)) => result,
        Ok(Rounds::NotApproved { why, message }) => {
            return Err(ToolError::FormNotApproved { ended_by: why.source(), message });
        }
        Err(error) => return Err(error.into()),
    };
    if !forms.decided_by_gatehouse && !asked.asked() {
        ctx.mcp.note_ran_unasked(product, &name);
    }
    passed(product, result)
}

/// Whether any round of a call came back asking the person with a form. A call left to Google's form (Gatehouse
/// did not card it) that ends with none asked ran unapproved: Google's server is then no longer trusted to ask
/// about that tool ([`McpClient::note_ran_unasked`](crate::google::mcp::McpClient::note_ran_unasked)).
#[derive(Default)]
struct AskedWatch(std::sync::atomic::AtomicBool);

impl AskedWatch {
    async fn watch<T>(&self, round: impl Future<Output = Result<Round<T>, McpError>>) -> Result<Round<T>, McpError> {
        let round = round.await;
        if matches!(round, Ok(Round::AsksPerson { .. })) {
            self.0.store(true, std::sync::atomic::Ordering::Relaxed);
        }
        round
    }

    fn asked(&self) -> bool {
        self.0.load(std::sync::atomic::Ordering::Relaxed)
    }
}

/// Google's result as Gatehouse passes it on: a tool error in Google's words, or its text, its
/// `structuredContent` and its resource links.
fn passed(product: Product, result: CallToolResult) -> Result<Output, ToolError> {
    let text = result
        .content
        .iter()
        .filter_map(|content| content.as_text().map(|text| text.text.as_str()))
        .collect::<Vec<_>>()
        .join("\n");
    if result.is_error == Some(true) {
        let words: String = text.chars().take(2_000).collect();
        return Err(ToolError::GoogleMcpRefused { server: product.label(), words });
    }
    let links =
        result.content.iter().filter(|content| content.as_resource_link().is_some()).cloned().collect::<Vec<_>>();
    let structured = result.structured_content;
    let text = match (text.is_empty(), &structured) {
        (true, Some(value)) => value.to_string(),
        _ => text,
    };
    Ok(Output::Google(Box::new(Passed { text, structured, links })))
}

/// A call Gatehouse left to Google's form whose tool Google no longer asks about.
fn stopped_asking(tool: &ToolDef) -> ToolError {
    let server = tool
        .mcp_route()
        .map(|route| route.product.label())
        .or_else(|| tool.google().map(|google| google.product.label()))
        .unwrap_or("Google's MCP server");
    ToolError::GoogleStoppedAsking { tool: tool.meta.name, server }
}

/// Whether REST may run a call whose MCP attempt failed with `error`: always for a read; for a write only when
/// the server refused it before running anything (an unknown tool, a refused sign-in), never after a timeout or
/// a broken connection, when Google may have done it.
fn may_resend(tool: &ToolDef, error: &McpError) -> bool {
    match tool.meta.access {
        Access::Read => true,
        Access::Write(_) => {
            matches!(error, McpError::UnknownTool { .. } | McpError::NotAgentic { .. } | McpError::Refused { .. })
        }
    }
}

/// Google's result as the tool answers: a tool error in Google's words, or the route's reshaping of it.
fn finish(route: &McpRoute, arguments: &Value, result: CallToolResult) -> Result<Output, ToolError> {
    let text = || {
        result
            .content
            .iter()
            .filter_map(|content| content.as_text().map(|text| text.text.as_str()))
            .collect::<Vec<_>>()
            .join("\n")
    };
    if result.is_error == Some(true) {
        let words: String = text().chars().take(2_000).collect();
        return Err(ToolError::GoogleMcpRefused { server: route.product.label(), words });
    }
    let value = match result.structured_content.clone() {
        Some(value) => value,
        None => serde_json::from_str(&text()).map_err(|_| ToolError::GoogleMcpRefused {
            server: route.product.label(),
            words: format!(
                "{} answered something other than JSON, which Gatehouse can't read as its result.",
                route.tool
            ),
        })?,
    };
    (route.result)(arguments, value)
}

/// A route's arguments, written with `json!` (an object by construction).
pub(crate) fn object(value: Value) -> JsonObject {
    match value {
        Value::Object(map) => map,
        _ => JsonObject::new(),
    }
}

#[cfg(test)]
mod tests {
    use rmcp::model::{ContentBlock, Resource};

    use super::*;

    #[test]
    fn a_discovered_tools_result_passes_structured_content_and_resource_links_on() {
        let mut result = CallToolResult::structured(serde_json::json!({ "id": "f1", "name": "Notes" }));
        let link = ContentBlock::resource_link(Resource::new("https://drive.google.com/file/d/f1", "Notes"));
        result.content.push(link);
        let Ok(Output::Google(given)) = passed(Product::Drive, result) else { panic!("Google's result") };
        assert_eq!(given.structured, Some(serde_json::json!({ "id": "f1", "name": "Notes" })));
        assert_eq!(serde_json::from_str::<Value>(&given.text).ok(), given.structured, "the text is the JSON");
        assert_eq!(given.links.len(), 1);
        assert!(
            given.links[0].as_resource_link().is_some_and(|found| found.uri == "https://drive.google.com/file/d/f1")
        );

        let refused = CallToolResult::error(vec![ContentBlock::text("No such file.")]);
        let Err(ToolError::GoogleMcpRefused { words, .. }) = passed(Product::Drive, refused) else {
            panic!("a tool error in Google's words")
        };
        assert_eq!(words, "No such file.");
    }
}
