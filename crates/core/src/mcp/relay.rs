//! A `gatehouse serve` that relays: when the user's host runs (the desktop app, or `gatehouse serve
//! --headless`), a `gatehouse serve` started by an assistant over stdio serves MCP from the host's core
//! instead of starting its own, so every assistant shares one set of grants, pending cards, audit log and
//! sign-in. It talks to the host over the control socket only this OS user can open; each call gets its own
//! connection, so one waiting for the person holds up no other.
//!
//! The tool list is the host's, kept up to date as the host's own clients see it: read again before each
//! `tools/list` the relay answers, and looked at every [`TOOL_POLL`] while the assistant listens for changes,
//! so a tool Google adds or removes reaches a relayed assistant without a restart.

use std::path::PathBuf;
use std::sync::{Arc, RwLock};
use std::time::Duration;

use futures::future::BoxFuture;
use futures::stream::BoxStream;
use rmcp::model::{JsonObject, Tool};

use super::backend::Backend;
use crate::approval::CallMeta;
use crate::control::protocol::{FailureKind, ServerInfo, ToolList};
use crate::control::{Client, ControlError};
use crate::engine::{CallError, Reply};
use crate::resources::{AUTH_STATUS_URI, ResourceError};
use crate::tools::Progress;
use crate::tools::sets::ToolSelection;

/// How often a relay looks at the host's `server://auth-status` for its subscribers.
const AUTH_POLL: Duration = Duration::from_secs(2);

/// How often a relay whose assistant listens for tool list changes asks the host whether its tools changed
/// (a short answer when they did not).
pub const TOOL_POLL: Duration = Duration::from_secs(2);

/// The host as an MCP backend.
pub struct Relay {
    home: PathBuf,
    /// A connection to the host, kept to open more.
    host: Client,
    /// The tools the assistant is offered, shared with the stream that keeps them up to date.
    listed: Arc<Listed>,
    sandbox: bool,
    /// What the host said of itself when the relay attached (see [`Relay::serves`]).
    info: ServerInfo,
    /// The tools the assistant is offered (`gatehouse serve --tools`), sent with every call so the host
    /// refuses one outside them as well; `None`: every tool the host offers.
    within: Option<String>,
}

/// The host's tools as the relay last read them, within the relay's `--tools`.
struct Listed {
    /// Whether the host's tools may change while it runs (it discovers Google's).
    changes: bool,
    selection: RwLock<Option<ToolSelection>>,
    current: RwLock<Current>,
}

#[derive(Default)]
struct Current {
    generation: u64,
    tools: Vec<Tool>,
}

impl Listed {
    fn tools(&self) -> Vec<Tool> {
        self.current.read().unwrap_or_else(|poisoned| poisoned.into_inner()).tools.clone()
    }

    fn generation(&self) -> u64 {
        self.current.read().unwrap_or_else(|poisoned| poisoned.into_inner()).generation
    }

    /// Takes the host's answer: `true` when it brought another list.
    fn take(&self, list: ToolList, pid: u32) -> Result<bool, ControlError> {
        let Some(tools) = list.tools else { return Ok(false) };
        let mut tools = tools
            .into_iter()
            .map(serde_json::from_value::<Tool>)
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| ControlError::Protocol { pid, detail: e.to_string() })?;
        if let Some(selection) = self.selection.read().unwrap_or_else(|poisoned| poisoned.into_inner()).as_ref() {
            tools.retain(|tool| selection.allows_tool(tool));
        }
        let mut current = self.current.write().unwrap_or_else(|poisoned| poisoned.into_inner());
        let changed = current.tools != tools;
        *current = Current { generation: list.generation, tools };
        Ok(changed)
    }
}

impl Relay {
    /// Connects to the user's host under `home`, if one runs.
    pub async fn connect(home: PathBuf) -> Result<Option<Relay>, ControlError> {
        let Some(mut host) = Client::connect_host(&home).await? else { return Ok(None) };
        let info = host.info().await?;
        let list = match host.tool_list(None, false, true).await {
            Ok(list) => list,
            // A host of an earlier version (the desktop app not yet updated, while an assistant's bundled
            // `gatehouse` is) knows only `tools`: its list is relayed as it is at attach.
            Err(ControlError::Server { kind: FailureKind::BadRequest, .. }) => {
                ToolList { generation: 0, changes: false, tools: Some(host.tools().await?) }
            }
            Err(error) => return Err(error),
        };
        let listed =
            Arc::new(Listed { changes: list.changes, selection: RwLock::new(None), current: Default::default() });
        listed.take(list, host.pid())?;
        tracing::info!(host = host.pid(), "relaying to this user's Gatehouse host");
        Ok(Some(Relay { home, host, listed, sandbox: info.sandbox, info, within: None }))
    }

    /// The same relay, offering the assistant only the tools of `tools`: the host's tools are listed within
    /// it, and every call carries it to the host.
    pub fn offering(self, tools: &ToolSelection) -> Relay {
        {
            let mut current = self.listed.current.write().unwrap_or_else(|poisoned| poisoned.into_inner());
            current.tools.retain(|tool| tools.allows_tool(tool));
        }
        *self.listed.selection.write().unwrap_or_else(|poisoned| poisoned.into_inner()) = Some(tools.clone());
        Relay { within: Some(tools.spec().to_owned()), ..self }
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
        self.listed.tools()
    }

    /// Asks the host for its tools as they are now, Google's lists read first as the host's own `tools/list`
    /// does. A host that can't be asked leaves the list as it was (a call then says the host is gone).
    fn refresh_tools(&self) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            if !self.listed.changes {
                return;
            }
            let pid = self.host.pid();
            let answer = match self.connection().await {
                Ok(mut host) => host.tool_list(Some(self.listed.generation()), true, false).await,
                Err(error) => Err(error),
            };
            if let Err(error) = answer.and_then(|list| self.listed.take(list, pid)) {
                tracing::debug!(host = pid, "the host's tools could not be read again: {error}");
            }
        })
    }

    fn tools_change(&self) -> bool {
        self.listed.changes
    }

    /// Asks the host every [`TOOL_POLL`] whether its tools changed; ends when the host is gone.
    fn tool_changes(&self) -> BoxStream<'static, ()> {
        if !self.listed.changes {
            return Box::pin(futures::stream::pending());
        }
        let state = (self.home.clone(), self.host.pid(), Arc::clone(&self.listed));
        Box::pin(futures::stream::unfold(state, |(home, pid, listed)| async move {
            loop {
                tokio::time::sleep(TOOL_POLL).await;
                let answer = match Client::connect_to(&home, pid).await {
                    Ok(mut host) => host.tool_list(Some(listed.generation()), false, false).await,
                    // The host is gone: no more changes to report.
                    Err(_) => return None,
                };
                match answer.and_then(|list| listed.take(list, pid)) {
                    Ok(true) => return Some(((), (home, pid, listed))),
                    Ok(false) => {}
                    Err(error) => tracing::debug!(host = pid, "the host's tools could not be read again: {error}"),
                }
            }
        }))
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
