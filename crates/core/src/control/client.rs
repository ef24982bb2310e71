//! The client side, for `gatehouse approvals`, `grants`, `never` and `audit`: finds every running server of this user
//! and sends typed requests, one at a time per connection.

use std::path::Path;
use std::time::Duration;

use tokio::io::{AsyncWrite, AsyncWriteExt, BufReader};
#[cfg(unix)]
use tokio::net::unix::{OwnedReadHalf, OwnedWriteHalf};

use super::protocol::{
    Answer, AssistantRevoked, LineError, MAX_RESPONSE_LINE, NeverRemoved, Request, Response, Revoked, ServerInfo,
    ToolList, Verification, read_line,
};
// On Windows a server's "socket" is the file naming its pipe, and a live one is the opened pipe, split alike.
#[cfg(windows)]
use super::pipe::{
    IntoSplit as _, OwnedReadHalf, OwnedWriteHalf, Probe, probe, registry_files as socket_files,
    registry_path as socket_path,
};
#[cfg(unix)]
use super::socket::{Probe, probe, socket_files, socket_path};
use super::{ControlError, control_dir};
use crate::approval::CallMeta;
use crate::approval::broker::PendingCard;
use crate::approval::card::RawAnswer;
use crate::approval::model::{Constraint, Grant};
use crate::approval::store::{Assistant, AuditQuery, AuditRecord, IgnoredGrant, NeverAllow, NewAssistant};
use crate::engine::Reply;
use crate::tools::Progress;

/// How long a request waits for its answer (for an export: for each line).
const ANSWER_WITHIN: Duration = Duration::from_secs(30);
/// A relayed call waits for the person (the approval timeout, 120 s by default, up to a day by policy) and
/// then for Google.
const CALL_WITHIN: Duration = Duration::from_secs(25 * 60 * 60);
/// Checking a long audit chain reads all of it.
const VERIFY_WITHIN: Duration = Duration::from_secs(600);

/// A connection to one running `gatehouse serve`.
pub struct Client {
    pid: u32,
    reader: BufReader<OwnedReadHalf>,
    writer: OwnedWriteHalf,
}

impl Client {
    /// Connects to every running server of this user under `home`, by process id. Sockets left behind by
    /// processes that are gone are removed; one that can't be reached otherwise is skipped and logged.
    pub async fn connect_all(home: &Path) -> Result<Vec<Client>, ControlError> {
        let mut clients = Vec::new();
        for (pid, path) in socket_files(&control_dir(home))? {
            match probe(pid, &path).await {
                Probe::Live(stream) => {
                    let (read, writer) = stream.into_split();
                    clients.push(Client { pid, reader: BufReader::new(read), writer });
                }
                Probe::Gone => {}
                Probe::Unreachable(detail) => {
                    tracing::warn!(socket = %path.display(), "skipped a Gatehouse server that can't be reached: {detail}");
                }
            }
        }
        Ok(clients)
    }

    /// Connects to this user's host — the desktop app, or `gatehouse serve --headless` — when one runs: the
    /// process a `gatehouse serve` started by an assistant relays to.
    pub async fn connect_host(home: &Path) -> Result<Option<Client>, ControlError> {
        for mut client in Client::connect_all(home).await? {
            if client.info().await.is_ok_and(|info| info.host) {
                return Ok(Some(client));
            }
        }
        Ok(None)
    }

    /// Another connection to the same server (a relay runs each call on its own connection, so a call
    /// waiting for the person doesn't hold up the others).
    pub async fn connect_again(&self, home: &Path) -> Result<Client, ControlError> {
        Client::connect_to(home, self.pid).await
    }

    /// A connection to the server of process `pid` under `home`.
    pub async fn connect_to(home: &Path, pid: u32) -> Result<Client, ControlError> {
        let path = socket_path(&control_dir(home), pid);
        match probe(pid, &path).await {
            Probe::Live(stream) => {
                let (read, writer) = stream.into_split();
                Ok(Client { pid, reader: BufReader::new(read), writer })
            }
            Probe::Gone => Err(ControlError::Io { pid, detail: "it is no longer running".into() }),
            Probe::Unreachable(detail) => Err(ControlError::Io { pid, detail }),
        }
    }

    /// The MCP tools the server offers, as `tools/list` items.
    pub async fn tools(&mut self) -> Result<Vec<serde_json::Value>, ControlError> {
        self.ask(&Request::Tools).await
    }

    /// The host's tools now (see [`Request::ToolList`]).
    pub async fn tool_list(
        &mut self,
        unless: Option<u64>,
        refresh: bool,
        attach: bool,
    ) -> Result<ToolList, ControlError> {
        self.ask(&Request::ToolList { unless, refresh, attach }).await
    }

    /// Runs a tool call in the server, for a relayed assistant. It waits as long as the call does (the
    /// person's answer included: the server's approval timeout bounds that).
    pub async fn call(
        &mut self,
        name: &str,
        arguments: Option<serde_json::Map<String, serde_json::Value>>,
        meta: CallMeta,
    ) -> Result<Reply, ControlError> {
        self.call_within(name, arguments, meta, None).await
    }

    /// [`Client::call`] for a relayed assistant offered only the tools of `tools` (a
    /// [`ToolSelection`](crate::tools::sets::ToolSelection) list): the server refuses a call outside them.
    pub async fn call_within(
        &mut self,
        name: &str,
        arguments: Option<serde_json::Map<String, serde_json::Value>>,
        meta: CallMeta,
        tools: Option<String>,
    ) -> Result<Reply, ControlError> {
        self.call_reporting(name, arguments, meta, tools, &Progress::none()).await
    }

    /// [`Client::call_within`], passing the call's progress steps on to `progress` as the server sends them
    /// (it sends none unless `progress` is wanted).
    pub async fn call_reporting(
        &mut self,
        name: &str,
        arguments: Option<serde_json::Map<String, serde_json::Value>>,
        meta: CallMeta,
        tools: Option<String>,
        progress: &Progress,
    ) -> Result<Reply, ControlError> {
        let wanted = progress.is_wanted();
        self.send(&Request::Call { name: name.to_owned(), arguments, meta, tools, progress: wanted }).await?;
        loop {
            let line = self.receive(CALL_WITHIN).await?;
            match serde_json::from_slice::<Response>(&line) {
                Ok(Response::Progress { progress: step, total, message }) => {
                    progress.report(step, total, message.unwrap_or_default()).await;
                }
                Ok(Response::Called { text, is_error, notice }) => {
                    return Ok(Reply { text, is_error, notice, ..Reply::default() });
                }
                Ok(other) => return Err(self.unexpected(&other)),
                Err(e) => return Err(ControlError::Protocol { pid: self.pid, detail: e.to_string() }),
            }
        }
    }

    /// Reads an MCP resource in the server, as an interactive caller that gave no name.
    pub async fn read_resource(&mut self, uri: &str) -> Result<String, ControlError> {
        self.read_resource_request(Request::ReadResource { uri: uri.to_owned(), meta: None, tools: None }).await
    }

    /// Reads an MCP resource in the server for a relayed assistant: `meta` its call facts, `tools` its
    /// `--tools` (see [`Client::call_within`]).
    pub async fn read_resource_as(
        &mut self,
        uri: &str,
        meta: CallMeta,
        tools: Option<String>,
    ) -> Result<String, ControlError> {
        self.read_resource_request(Request::ReadResource { uri: uri.to_owned(), meta: Some(meta), tools }).await
    }

    async fn read_resource_request(&mut self, request: Request) -> Result<String, ControlError> {
        self.ask(&request).await
    }

    /// The server's process id (its socket's name).
    pub fn pid(&self) -> u32 {
        self.pid
    }

    pub async fn info(&mut self) -> Result<ServerInfo, ControlError> {
        self.ask(&Request::Info).await
    }

    /// The server's pending cards, oldest first.
    pub async fn pending(&mut self) -> Result<Vec<PendingCard>, ControlError> {
        self.ask(&Request::Pending).await
    }

    /// Answers the server's pending card `id`. A card already answered (or gone) is a
    /// [`ControlError::Server`] of kind `NotPending`.
    pub async fn answer(&mut self, id: u64, answer: RawAnswer) -> Result<(), ControlError> {
        match self.request(&Request::Answer { id, answer }).await? {
            Response::Answered { id: answered } if answered == id => Ok(()),
            other => Err(self.unexpected(&other)),
        }
    }

    /// Every grant in the server's store, newest first.
    pub async fn grants(&mut self) -> Result<Vec<Grant>, ControlError> {
        self.ask(&Request::Grants).await
    }

    /// Revokes grant `id` in the server's store and its index.
    pub async fn revoke(&mut self, id: &str) -> Result<Revoked, ControlError> {
        self.ask(&Request::Revoke { id: id.to_owned() }).await
    }

    /// Every *never allow* rule in the server's store, removed ones too, newest first.
    pub async fn never_list(&mut self) -> Result<Vec<NeverAllow>, ControlError> {
        self.ask(&Request::NeverList).await
    }

    /// Makes a *never allow* rule for the account the server is signed in as, and returns it. The server
    /// refuses an unknown tool, a duration outside 1 to
    /// [`MAX_NEVER_DAYS`](super::protocol::MAX_NEVER_DAYS) days, or nobody signed in.
    pub async fn never_add(
        &mut self,
        tool: &str,
        agent: Option<&str>,
        days: u32,
        constraint: Option<Constraint>,
    ) -> Result<NeverAllow, ControlError> {
        let request = Request::NeverAdd { tool: tool.to_owned(), agent: agent.map(str::to_owned), days, constraint };
        self.ask(&request).await
    }

    /// Removes *never allow* rule `id` in the server's store and its memory.
    pub async fn never_remove(&mut self, id: &str) -> Result<NeverRemoved, ControlError> {
        self.ask(&Request::NeverRemove { id: id.to_owned() }).await
    }

    /// Every assistant registered for HTTP in the server's store, revoked ones too, newest first.
    pub async fn assistants(&mut self) -> Result<Vec<Assistant>, ControlError> {
        self.ask(&Request::Assistants).await
    }

    /// Registers an assistant for HTTP in the server's store and memory, and returns it with its token (told
    /// only this once). A name that is empty, too long, or already an active assistant's is a
    /// [`ControlError::Server`] of kind `Invalid`.
    pub async fn assistant_add(&mut self, name: &str, interactive: bool) -> Result<NewAssistant, ControlError> {
        self.ask(&Request::AssistantAdd { name: name.to_owned(), interactive }).await
    }

    /// Revokes assistant `id` in the server's store and memory: its token is refused from the next request on.
    pub async fn assistant_revoke(&mut self, id: &str) -> Result<AssistantRevoked, ControlError> {
        self.ask(&Request::AssistantRevoke { id: id.to_owned() }).await
    }

    /// Makes the server read what other processes changed (grants, never-allow rules, assistants) now.
    pub async fn refresh(&mut self) -> Result<(), ControlError> {
        match self.request(&Request::Refresh).await? {
            Response::Refreshed => Ok(()),
            other => Err(self.unexpected(&other)),
        }
    }

    /// One page of the audit log, newest first; the server returns at most
    /// [`MAX_AUDIT_PAGE`](super::protocol::MAX_AUDIT_PAGE) records.
    pub async fn audit(&mut self, query: &AuditQuery) -> Result<Vec<AuditRecord>, ControlError> {
        match self.request(&Request::audit(query)).await? {
            Response::Audit(records) => Ok(records),
            other => Err(self.unexpected(&other)),
        }
    }

    /// The grant rows the server's store ignores (see [`Store::ignored_grants`](crate::approval::store::Store::ignored_grants)).
    pub async fn ignored_grants(&mut self) -> Result<Vec<IgnoredGrant>, ControlError> {
        self.ask(&Request::IgnoredGrants).await
    }

    /// Everything the server's store holds but does not honour or can't check, in words.
    pub async fn seal_report(&mut self) -> Result<Vec<String>, ControlError> {
        self.ask(&Request::SealReport).await
    }

    /// Checks the server's audit chain.
    pub async fn verify(&mut self) -> Result<Verification, ControlError> {
        self.ask(&Request::Verify).await
    }

    /// Copies the server's whole audit log to `out` as JSON Lines, oldest first, one record per line, and
    /// returns how many. Each line is checked to be a record before it is written.
    pub async fn export<W: AsyncWrite + Unpin>(&mut self, out: &mut W) -> Result<u64, ControlError> {
        self.send(&Request::Export).await?;
        let mut written = 0u64;
        loop {
            let line = self.receive(ANSWER_WITHIN).await?;
            if let Ok(response) = serde_json::from_slice::<Response>(&line) {
                return match response {
                    Response::Exported(count) if count == written => Ok(written),
                    Response::Exported(count) => Err(ControlError::Protocol {
                        pid: self.pid,
                        detail: format!("it said {count} records were exported, but {written} arrived"),
                    }),
                    other => Err(self.unexpected(&other)),
                };
            }
            if let Err(e) = serde_json::from_slice::<AuditRecord>(&line) {
                return Err(ControlError::Protocol { pid: self.pid, detail: format!("an exported line: {e}") });
            }
            let export_error = |e: std::io::Error| ControlError::Export { detail: e.to_string() };
            out.write_all(&line).await.map_err(export_error)?;
            out.write_all(b"\n").await.map_err(export_error)?;
            written += 1;
        }
    }

    /// Sends `request` and returns its answer, of the type the request is answered with (see
    /// [`Answer`]): `client.ask::<Revoked>(&Request::Revoke { id })`. A refusal is a [`ControlError::Server`].
    pub async fn ask<T: Answer>(&mut self, request: &Request) -> Result<T, ControlError> {
        let response = self.request(request).await?;
        T::from_response(response).map_err(|other| self.unexpected(&other))
    }

    /// Sends one request and reads its one response. A `Response::Error` is returned as
    /// [`ControlError::Server`].
    pub async fn request(&mut self, request: &Request) -> Result<Response, ControlError> {
        self.send(request).await?;
        let within = if matches!(request, Request::Verify) { VERIFY_WITHIN } else { ANSWER_WITHIN };
        let line = self.receive(within).await?;
        match serde_json::from_slice::<Response>(&line) {
            Ok(Response::Error(failure)) => {
                Err(ControlError::Server { pid: self.pid, kind: failure.kind, message: failure.message })
            }
            Ok(response) => Ok(response),
            Err(e) => Err(ControlError::Protocol { pid: self.pid, detail: e.to_string() }),
        }
    }

    async fn send(&mut self, request: &Request) -> Result<(), ControlError> {
        let mut line =
            serde_json::to_vec(request).map_err(|e| ControlError::Protocol { pid: self.pid, detail: e.to_string() })?;
        line.push(b'\n');
        let io_error = |e: std::io::Error| ControlError::Io { pid: self.pid, detail: e.to_string() };
        self.writer.write_all(&line).await.map_err(io_error)?;
        self.writer.flush().await.map_err(io_error)
    }

    async fn receive(&mut self, within: Duration) -> Result<Vec<u8>, ControlError> {
        let pid = self.pid;
        match tokio::time::timeout(within, read_line(&mut self.reader, MAX_RESPONSE_LINE)).await {
            Err(_) => Err(ControlError::Timeout { pid, seconds: within.as_secs() }),
            Ok(Ok(Some(line))) => Ok(line),
            Ok(Ok(None)) => Err(ControlError::Io { pid, detail: "it closed the connection without answering".into() }),
            Ok(Err(LineError::Io(e))) => Err(ControlError::Io { pid, detail: e.to_string() }),
            Ok(Err(too_long)) => Err(ControlError::Protocol { pid, detail: too_long.to_string() }),
        }
    }

    fn unexpected(&self, response: &Response) -> ControlError {
        if let Response::Error(failure) = response {
            return ControlError::Server { pid: self.pid, kind: failure.kind, message: failure.message.clone() };
        }
        let kind = serde_json::to_value(response)
            .ok()
            .and_then(|value| value.as_object().and_then(|object| object.keys().next().cloned()))
            .unwrap_or_default();
        ControlError::Protocol { pid: self.pid, detail: format!("an answer of kind {kind:?} to another question") }
    }
}
