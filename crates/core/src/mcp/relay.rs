//! A `gatehouse serve` that relays: when the user's host runs (the desktop app, or `gatehouse serve
//! --headless`), a `gatehouse serve` started by an assistant over stdio serves MCP from the host's core
//! instead of starting its own, so every assistant shares one set of grants, pending cards, audit log and
//! sign-in. It talks to the host over the control socket only this OS user can open; each call gets its own
//! connection, so one waiting for the person holds up no other.

use std::path::PathBuf;
use std::time::Duration;

use futures::future::BoxFuture;
use futures::stream::BoxStream;
use rmcp::model::{JsonObject, Tool};

use super::backend::Backend;
use crate::approval::CallMeta;
use crate::control::protocol::{FailureKind, ServerInfo};
use crate::control::{Client, ControlError};
use crate::engine::{CallError, Reply};
use crate::resources::{AUTH_STATUS_URI, ResourceError};
use crate::tools::Progress;

/// How often a relay looks at the host's `server://auth-status` for its subscribers.
const AUTH_POLL: Duration = Duration::from_secs(2);

/// The host as an MCP backend.
pub struct Relay {
    home: PathBuf,
    /// A connection to the host, kept to open more.
    host: Client,
    tools: Vec<Tool>,
    sandbox: bool,
    /// What the host said of itself when the relay attached (see [`Relay::serves`]).
    info: ServerInfo,
    /// The tools the assistant is offered (`gatehouse serve --tools`), sent with every call so the host
    /// refuses one outside them as well; `None`: every tool the host offers.
    within: Option<String>,
}

impl Relay {
    /// Connects to the user's host under `home`, if one runs.
    pub async fn connect(home: PathBuf) -> Result<Option<Relay>, ControlError> {
        let Some(mut host) = Client::connect_host(&home).await? else { return Ok(None) };
        let info = host.info().await?;
        let tools = host
            .tools()
            .await?
            .into_iter()
            .map(serde_json::from_value::<Tool>)
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| ControlError::Protocol { pid: host.pid(), detail: e.to_string() })?;
        tracing::info!(host = host.pid(), "relaying to this user's Gatehouse host");
        Ok(Some(Relay { home, host, tools, sandbox: info.sandbox, info, within: None }))
    }

    /// The same relay, offering the assistant only the tools of `tools`: the host's tools are listed within
    /// it, and every call carries it to the host.
    pub fn offering(self, tools: &crate::tools::sets::ToolSelection) -> Relay {
        let mut offered = self.tools;
        offered.retain(|tool| tools.allows_tool(tool));
        Relay { tools: offered, within: Some(tools.spec().to_owned()), ..self }
    }

    /// Whether the host serves the sandbox.
    pub fn is_sandbox_host(&self) -> bool {
        self.sandbox
    }

    /// Whether this relay should serve a `gatehouse serve` started with (or without) `--sandbox`: the host
    /// serves what was asked, or the sandbox only until someone signs in for a plain one
    /// ([`ServerInfo::takes_relay`]).
    pub fn serves(&self, sandbox: bool) -> bool {
        self.info.takes_relay(sandbox)
    }

    /// The host's process id.
    pub fn host_pid(&self) -> u32 {
        self.host.pid()
    }

    async fn connection(&self) -> Result<Client, ControlError> {
        self.host.connect_again(&self.home).await
    }
}

/// The words an assistant gets when the host can't be reached mid-call.
fn host_gone(error: &ControlError) -> String {
    format!(
        "The Gatehouse app this assistant reaches could not finish the call: {error}. Ask the person to check that Gatehouse is running, then try again."
    )
}

impl Backend for Relay {
    fn tools(&self) -> Vec<Tool> {
        self.tools.clone()
    }

    /// Nothing to tell: the host heard of this assistant when the relay attached (it asked for the tools).
    fn assistant_connected(&self) {}

    fn is_sandbox(&self) -> bool {
        self.sandbox
    }

    fn call(
        &self,
        meta: CallMeta,
        name: String,
        arguments: Option<JsonObject>,
    ) -> BoxFuture<'_, Result<Reply, CallError>> {
        self.call_reporting(meta, name, arguments, Progress::none())
    }

    /// The host sends the call's progress steps over the control socket; they are passed on as they come.
    fn call_reporting(
        &self,
        meta: CallMeta,
        name: String,
        arguments: Option<JsonObject>,
        progress: Progress,
    ) -> BoxFuture<'_, Result<Reply, CallError>> {
        Box::pin(async move {
            let answer = match self.connection().await {
                Ok(mut host) => host.call_reporting(&name, arguments, meta, self.within.clone(), &progress).await,
                Err(error) => Err(error),
            };
            match answer {
                Ok(reply) => Ok(reply),
                Err(ControlError::Server { kind: FailureKind::UnknownTool, .. }) => Err(CallError::UnknownTool(name)),
                Err(error) => Ok(Reply::error(host_gone(&error))),
            }
        })
    }

    /// The host reads it as the assistant's call of the tool it mirrors, within the relay's `--tools`, as it
    /// runs the relay's calls.
    fn read_resource(&self, meta: CallMeta, uri: String) -> BoxFuture<'_, Result<String, ResourceError>> {
        Box::pin(async move {
            let answer = match self.connection().await {
                Ok(mut host) => host.read_resource_as(&uri, meta, self.within.clone()).await,
                Err(error) => Err(error),
            };
            answer.map_err(|error| match error {
                ControlError::Server { kind: FailureKind::UnknownResource, .. } => ResourceError::Unknown(uri),
                // The host's words: the read refused (as its tool's call), or failed.
                ControlError::Server { kind: FailureKind::Invalid, message, .. } => ResourceError::Refused(message),
                other => ResourceError::Host(host_gone(&other)),
            })
        })
    }

    fn auth_changes(&self) -> BoxStream<'static, ()> {
        let (home, pid) = (self.home.clone(), self.host.pid());
        let state = (home, pid, None::<String>);
        Box::pin(futures::stream::unfold(state, |(home, pid, mut last)| async move {
            loop {
                tokio::time::sleep(AUTH_POLL).await;
                let status = match Client::connect_host(&home).await {
                    Ok(Some(mut host)) if host.pid() == pid => host.read_resource(AUTH_STATUS_URI).await.ok(),
                    // The host is gone: no more changes to report.
                    _ => return None,
                };
                let Some(status) = status else { continue };
                let changed = last.as_ref().is_some_and(|last| *last != status);
                last = Some(status);
                if changed {
                    return Some(((), (home, pid, last)));
                }
            }
        }))
    }
}
