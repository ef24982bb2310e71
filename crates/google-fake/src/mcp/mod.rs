//! Google's Workspace MCP servers (`https://<P>mcp.googleapis.com/mcp/v1` and `/mcp/v1self`), over the same
//! world as the REST APIs: a write through one is read through the other.
//!
//! # The URL rule
//!
//! The server of product `P` (Google's host `Pmcp.googleapis.com`) is reached at `<root>/mcp/P/v1` and
//! `<root>/mcp/P/v1self`, where `<root>` is the emulator's base URL ([`crate::FakeGoogle::url`], the value of
//! `GATEHOUSE_GOOGLE_ENDPOINT`) and `P` is one of `sheets`, `docs`, `slides`, `drive`, `gmail`, `calendar`
//! ([`Product::ALL`]). Other programs rely on this rule: keep it.
//!
//! # Protocol
//!
//! MCP revision 2026-07-28 over streamable HTTP, stateless (no `initialize`, no session; each request carries
//! `_meta` with its protocol version and client capabilities, and the `MCP-Protocol-Version`, `Mcp-Method`,
//! `Mcp-Name` headers; `server/discover` answers the server's versions and capabilities), and 2025-11-25 for
//! older clients (`initialize`, then a session). The transport is rmcp's `StreamableHttpService`, not a
//! handler of our own: rmcp 3.11 serves 2026-07-28 requests statelessly whatever its session setting,
//! validates their headers and `_meta` against the body, answers `server/discover`, carries
//! `InputRequiredResult`s only to 2026-07-28 clients, and keeps sessions for 2025-11-25 ones. What rmcp does
//! not decide (Google's rules) lives here: `guard` (bearer token, agentic client, tool scopes, before rmcp
//! sees the request), `server` (the tools and the approval forms) and `tools` (the catalogue, with the
//! source of every definition).
//!
//! # Tools run as the REST requests they correspond to
//!
//! Google documents each tool as corresponding to one REST method (`get_values` is `spreadsheets.values.get`,
//! `update_doc` is `documents.batchUpdate`, …). The emulator runs a tool as exactly that request, sent through
//! the emulator's own REST router with the caller's bearer token (`server`), so there is one implementation
//! of every rule (access, validation, Drive Activity, faults, the discovery check). Such a request is recorded
//! in [`crate::World::requests`] under the MCP server's host (e.g. `sheetsmcp.googleapis.com`), next to the
//! MCP request itself.
//!
//! # Who may call
//!
//! - A missing, unknown or expired bearer token gets the APIs' 401 (any MCP method).
//! - A token issued to an OAuth client not marked agentic ([`crate::OAuthClient::agentic`]) gets a 403 on
//!   every MCP request, while the REST APIs keep taking it. Google's exact answer is **unknown** (its release
//!   notes say only that such requests are rejected); the emulator answers 403 `PERMISSION_DENIED` with
//!   [`NOT_AGENTIC`]. Fixture tokens (issued to no client) and service-account tokens pass.
//! - `tools/list` shows every tool whatever the token's scopes; `tools/call` needs one of the tool's scopes,
//!   else 403 with `WWW-Authenticate: Bearer error="insufficient_scope", scope="…"` (MCP authorization's
//!   scope challenge). A tool's scopes are those of the REST methods it runs (from the discovery documents).
//!
//! # Approval by form elicitation
//!
//! See `server` and `crates/google-fake/MCP.md` for which calls ask, the form, and the `requestState`.

mod approval;
mod changes;
mod guard;
mod server;
mod tools;

use std::sync::Arc;

use axum::Router;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

use crate::Shared;

pub use approval::Store;
pub use changes::Changes;
pub use guard::NOT_AGENTIC;

/// A Workspace product with an MCP server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Product {
    Sheets,
    Docs,
    Slides,
    Drive,
    Gmail,
    Calendar,
}

impl Product {
    /// Every product the emulator serves an MCP server for.
    pub const ALL: [Product; 6] =
        [Product::Sheets, Product::Docs, Product::Slides, Product::Drive, Product::Gmail, Product::Calendar];

    /// `P` of the URL rule and of Google's host `Pmcp.googleapis.com`.
    pub fn name(self) -> &'static str {
        match self {
            Product::Sheets => "sheets",
            Product::Docs => "docs",
            Product::Slides => "slides",
            Product::Drive => "drive",
            Product::Gmail => "gmail",
            Product::Calendar => "calendar",
        }
    }

    /// Google's host for this product's MCP server, e.g. `sheetsmcp.googleapis.com`.
    pub fn host(self) -> String {
        format!("{}mcp.googleapis.com", self.name())
    }
}

/// The definitions `product`'s server lists on `/mcp/v1` (before any test changed them, see [`Changes`]),
/// each with whether `/mcp/v1self` lists it too: what a client discovers, for generating documentation from
/// (Gatehouse's docs/tools.md lists the tools it offers from them).
pub fn published(product: Product) -> Vec<(rmcp::model::Tool, bool)> {
    tools::catalogue(product).iter().map(|tool| (tool.tool.clone(), tool.gate != tools::Gate::Always)).collect()
}

/// The two endpoints of each server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Endpoint {
    /// `/mcp/v1`: every tool; consequential actions ask the person with a form.
    Full,
    /// `/mcp/v1self`: for hosts that cannot show forms; tools that always ask are left out, lists and searches
    /// return only what needs no approval, and any call that would need approval is refused.
    SelfService,
}

impl Endpoint {
    pub fn segment(self) -> &'static str {
        match self {
            Endpoint::Full => "v1",
            Endpoint::SelfService => "v1self",
        }
    }
}

/// The path of a product's endpoint below the emulator's root: `/mcp/P/v1` or `/mcp/P/v1self`.
pub fn path(product: Product, endpoint: Endpoint) -> String {
    format!("/mcp/{}/{}", product.name(), endpoint.segment())
}

/// Whether `path` is an MCP endpoint (outside every discovery document).
pub(crate) fn is_endpoint(path: &str) -> bool {
    Product::ALL.iter().any(|product| {
        [Endpoint::Full, Endpoint::SelfService].iter().any(|endpoint| self::path(*product, *endpoint) == path)
    })
}

/// The MCP endpoints of every product. `rest` is the emulator's REST router, which the tools call.
pub(crate) fn routes(shared: Shared, rest: Router) -> Router<Shared> {
    let mut router = Router::new();
    for product in Product::ALL {
        for endpoint in [Endpoint::Full, Endpoint::SelfService] {
            let handler = server::GoogleMcp::new(shared.clone(), product, endpoint, rest.clone());
            // Sessions only for 2025-11-25 clients; rmcp serves 2026-07-28 requests statelessly regardless.
            // Answers are JSON unless a handler emits something before its result. Host checks keep rmcp's
            // loopback default: the emulator listens on loopback only.
            let config = StreamableHttpServerConfig::default().with_json_response(true);
            let service = StreamableHttpService::new(
                move || Ok(handler.clone()),
                Arc::new(LocalSessionManager::default()),
                config,
            );
            let guarded = Router::new().nest_service(&path(product, endpoint), service).layer(
                axum::middleware::from_fn_with_state(guard::Guard { shared: shared.clone(), product }, guard::check),
            );
            router = router.merge(guarded);
        }
    }
    router
}
