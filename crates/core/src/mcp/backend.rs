//! What an MCP connection serves from: this process's own engine, or — for a `gatehouse serve` an assistant
//! started while the user's host runs — that host, over the control socket ([`super::relay`]). The MCP face
//! is the same either way; only where calls are decided and run differs.

use futures::future::BoxFuture;
use futures::stream::BoxStream;
use rmcp::model::{JsonObject, Tool};

use crate::approval::CallMeta;
use crate::engine::{CallError, Reply};
use crate::resources::ResourceError;
use crate::tools::{Progress, ToolDef};
use crate::{Engine, auth};

/// The source of an MCP connection's tools, calls and resources.
pub trait Backend: Send + Sync + 'static {
    /// The tools, as `tools/list` shows them.
    fn tools(&self) -> Vec<Tool>;
    /// Serving the built-in emulator's sample files: every answer says so.
    fn is_sandbox(&self) -> bool;
    /// Runs one call through the approvals (see [`Engine::call_as`]).
    fn call(
        &self,
        meta: CallMeta,
        name: String,
        arguments: Option<JsonObject>,
    ) -> BoxFuture<'_, Result<Reply, CallError>>;
    /// [`Backend::call`], the tool reporting how far it has come to `progress` (MCP progress notifications). A
    /// backend that cannot pass progress on runs the call without it.
    fn call_reporting(
        &self,
        meta: CallMeta,
        name: String,
        arguments: Option<JsonObject>,
        progress: Progress,
    ) -> BoxFuture<'_, Result<Reply, CallError>> {
        drop(progress);
        self.call(meta, name, arguments)
    }
    /// Reads a resource's JSON text for `meta`'s caller: one holding the person's data as a call of the tool it
    /// mirrors (see [`Engine::read_resource`]).
    fn read_resource(&self, meta: CallMeta, uri: String) -> BoxFuture<'_, Result<String, ResourceError>>;
    /// Yields whenever `server://auth-status` changes.
    fn auth_changes(&self) -> BoxStream<'static, ()>;
    /// An MCP client finished `initialize` on a connection served from this backend.
    fn assistant_connected(&self);
    /// Brings the tool list up to date before it is shown (Google's tools are discovered while Gatehouse
    /// runs), waiting a bounded time. A backend whose list is fixed has nothing to do.
    fn refresh_tools(&self) -> BoxFuture<'_, ()> {
        Box::pin(std::future::ready(()))
    }
    /// Whether [`Backend::tools`] may change while it serves (Google's tools are discovered at run time): then
    /// clients are offered `notifications/tools/list_changed`.
    fn tools_change(&self) -> bool {
        false
    }
    /// Yields whenever [`Backend::tools`] changes (the MCP layer sends `notifications/tools/list_changed`).
    /// A backend whose list is fixed never yields.
    fn tool_changes(&self) -> BoxStream<'static, ()> {
        Box::pin(futures::stream::pending())
    }
}

impl Backend for Engine {
    fn tools(&self) -> Vec<Tool> {
        self.offered_tools().into_iter().map(ToolDef::to_mcp).collect()
    }

    fn is_sandbox(&self) -> bool {
        Engine::is_sandbox(self)
    }

    fn call(
        &self,
        meta: CallMeta,
        name: String,
        arguments: Option<JsonObject>,
    ) -> BoxFuture<'_, Result<Reply, CallError>> {
        Box::pin(async move { self.call_as(&meta, &name, arguments).await })
    }

    fn call_reporting(
        &self,
        meta: CallMeta,
        name: String,
        arguments: Option<JsonObject>,
        progress: Progress,
    ) -> BoxFuture<'_, Result<Reply, CallError>> {
        Box::pin(async move { self.call_reporting(&meta, &name, arguments, progress).await })
    }

    fn read_resource(&self, meta: CallMeta, uri: String) -> BoxFuture<'_, Result<String, ResourceError>> {
        Box::pin(async move { Engine::read_resource(self, &meta, &uri).await })
    }

    fn auth_changes(&self) -> BoxStream<'static, ()> {
        let mut changes: tokio::sync::watch::Receiver<auth::state::AuthSnapshot> = self.auth().subscribe();
        changes.mark_unchanged();
        Box::pin(futures::stream::unfold(changes, |mut changes| async move {
            changes.changed().await.ok().map(|()| ((), changes))
        }))
    }

    fn assistant_connected(&self) {
        Engine::assistant_connected(self);
    }

    fn refresh_tools(&self) -> BoxFuture<'_, ()> {
        Box::pin(Engine::refresh_tools(self, crate::engine::LIST_WAIT))
    }

    fn tools_change(&self) -> bool {
        Engine::tools_change(self)
    }

    fn tool_changes(&self) -> BoxStream<'static, ()> {
        let mut changes = Engine::tool_changes(self);
        changes.mark_unchanged();
        Box::pin(futures::stream::unfold(changes, |mut changes| async move {
            changes.changed().await.ok().map(|()| ((), changes))
        }))
    }
}
