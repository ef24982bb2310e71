//! The control protocol: one JSON object per line each way, one response per request, in order. It carries
//! the person's answers and their grant, never-allow, assistant and audit requests from `gatehouse
//! approvals`, `grants`, `never`, `assistants` and `audit` to a running `gatehouse serve`, never anything
//! from an assistant.
//!
//! Requests are tagged by `op`: `{"op":"pending"}`, `{"op":"answer","id":3,"answer":"Deny"}`. Responses are
//! tagged by their one key: `{"pending":[…]}`, `{"error":{"kind":"not_pending","message":"…"}}`. The
//! `export` request answers with many lines: one audit record per line, oldest first, then
//! `{"exported":N}` (or an `error` line). A `call` whose relay asked for progress is answered with a `progress`
//! line per step of the call, then its `called` line.

use serde::{Deserialize, Serialize};

use crate::approval::CallMeta;
use crate::approval::broker::PendingCard;
use crate::approval::card::RawAnswer;
use crate::approval::model::{Constraint, Grant};
use crate::approval::store::{Assistant, AuditQuery, AuditRecord, IgnoredGrant, NeverAllow, NewAssistant};
pub use crate::ops::assistants::AssistantTools;
pub use crate::ops::{AssistantRevoked, MAX_AUDIT_PAGE, NeverRemoved, Revoked, Verification};

/// The longest `call` line a server reads: a relayed tool call carries its arguments (cells to write, text
/// to insert, a mail of up to 25 MB), so this is generous; every other request is held to a much shorter line
/// (`server::Limits`), and only this OS user can connect at all.
pub const MAX_REQUEST_LINE: usize = 32 * 1024 * 1024;

/// The longest line of any request but `call`: they carry ids, names and small choices.
pub const MAX_SMALL_REQUEST_LINE: usize = 64 * 1024;

/// The longest response line a client reads (a long grant list, a page of audit records with their
/// arguments).
pub const MAX_RESPONSE_LINE: usize = 64 * 1024 * 1024;

pub use crate::ops::never::MAX_NEVER_DAYS;

/// What a client asks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Request {
    /// Which server this is and which store it uses.
    Info,
    /// The pending cards, oldest first.
    Pending,
    /// Answers pending card `id` of this server.
    Answer { id: u64, answer: RawAnswer },
    /// Every grant in the server's store, revoked ones too, newest first.
    Grants,
    /// Revokes grant `id` and takes it out of this server's index.
    Revoke { id: String },
    /// A page of the audit log, newest first (at most [`MAX_AUDIT_PAGE`] records).
    Audit {
        limit: u32,
        #[serde(default)]
        tool: Option<String>,
        #[serde(default)]
        agent: Option<String>,
        #[serde(default)]
        before_seq: Option<i64>,
    },
    /// Checks the whole audit chain.
    Verify,
    /// The grant rows the server's store holds but does not honour (written by something other than
    /// Gatehouse), and why.
    IgnoredGrants,
    /// Everything the server's store holds but does not honour or can't check, in words
    /// ([`Store::seal_report`](crate::approval::store::Store::seal_report)).
    SealReport,
    /// Every *never allow* rule in the server's store, removed ones too, newest first.
    NeverList,
    /// Makes a *never allow* rule for the account the server is signed in as: calls of `tool` (from `agent`,
    /// or any; within `constraint`, or any arguments) are refused for `days` days (1 to [`MAX_NEVER_DAYS`]).
    NeverAdd {
        tool: String,
        #[serde(default)]
        agent: Option<String>,
        days: u32,
        #[serde(default)]
        constraint: Option<Constraint>,
    },
    /// Removes *never allow* rule `id` and takes it out of this server's memory.
    NeverRemove { id: String },
    /// The whole audit log as JSON Lines, oldest first (see the module's documentation).
    Export,
    /// Every assistant registered for HTTP, revoked ones too, newest first.
    Assistants,
    /// Registers an assistant for HTTP: its calls are attributed to `name`, and are unattended (never asked
    /// about) unless `interactive`. Answered with its token, the only time the token is told.
    AssistantAdd { name: String, interactive: bool },
    /// Revokes assistant `id`: its token is refused by this server from the next request on.
    AssistantRevoke { id: String },
    /// Offers assistant `id` only the tools of `tools` (a [`ToolSelection`](crate::tools::sets::ToolSelection)
    /// list; `None`: every tool), from its next request on.
    AssistantTools {
        id: String,
        #[serde(default)]
        tools: Option<String>,
    },
    /// Reads what other processes changed (grants, never-allow rules, assistants) into this server's memory
    /// now, instead of at its next periodic check.
    Refresh,
    /// The MCP tools this server offers (as `tools/list` shows them), counting a connected assistant: what
    /// a `gatehouse serve` of an earlier version asks as it attaches (see [`Request::ToolList`]).
    Tools,
    /// The MCP tools this server offers now, for a `gatehouse serve` relaying an assistant to this host: as it
    /// attaches (`attach`: the host counts a connected assistant), before each `tools/list` it answers
    /// (`refresh`: Google's lists are read first, for a bounded time, as the host's own `tools/list` does), and
    /// now and then to see whether they changed (`unless`: the generation the relay holds; the tools are left
    /// out of the answer while they are still those).
    ToolList {
        #[serde(default)]
        unless: Option<u64>,
        #[serde(default)]
        refresh: bool,
        #[serde(default)]
        attach: bool,
    },
    /// Runs a tool call for a relayed assistant, through this host's approvals: the answer comes when the
    /// call is done (after the person's answer, if one is needed).
    Call {
        name: String,
        #[serde(default)]
        arguments: Option<serde_json::Map<String, serde_json::Value>>,
        meta: CallMeta,
        /// The tools the relayed assistant is offered (`gatehouse serve --tools`, a
        /// [`ToolSelection`](crate::tools::sets::ToolSelection)): the host refuses a call outside them too.
        #[serde(default)]
        tools: Option<String>,
        /// The relayed assistant asked to hear how far the call has come: the host sends a `progress` line
        /// per step before the `called` line.
        #[serde(default)]
        progress: bool,
    },
    /// Reads an MCP resource (`server://auth-status`, `spreadsheet://ID/info`) for a relayed assistant: one
    /// holding the person's data as the call of the tool it mirrors, by `meta`'s caller, within `tools`.
    ReadResource {
        uri: String,
        /// The relayed assistant's call facts; absent (an older relay, `server://auth-status` polls): an
        /// interactive caller that gave no name, whose read is still decided like any call.
        #[serde(default)]
        meta: Option<CallMeta>,
        /// As for [`Request::Call`]: the host refuses a resource whose tool is outside them.
        #[serde(default)]
        tools: Option<String>,
    },
}

impl Request {
    /// The `audit` request for `query`.
    pub fn audit(query: &AuditQuery) -> Request {
        Request::Audit {
            limit: query.limit,
            tool: query.tool.clone(),
            agent: query.agent.clone(),
            before_seq: query.before_seq,
        }
    }
}

/// Which server answered, and what it works with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServerInfo {
    pub pid: u32,
    pub version: String,
    /// Serving the built-in emulator's sample files.
    pub sandbox: bool,
    /// The approvals database it uses; `None` when it could not open one.
    pub store: Option<String>,
    /// Where it serves MCP over HTTP (`http://127.0.0.1:PORT/mcp`); `None` when it serves stdio.
    #[serde(default)]
    pub http_url: Option<String>,
    /// It is this user's host (the desktop app, or `gatehouse serve --headless`): a `gatehouse serve` an
    /// assistant starts relays to it instead of hosting its own core.
    #[serde(default)]
    pub host: bool,
    /// It serves the sandbox only because nobody is signed in (the desktop app's own choice, not the
    /// person's): a plain `gatehouse serve` relays to it too, so an assistant connected for the Google account
    /// reaches this app now and the account once the person signs in.
    #[serde(default)]
    pub sandbox_until_sign_in: bool,
}

/// The tools a host offers, as of one generation of its list (the answer to [`Request::ToolList`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolList {
    /// Changes whenever the tools do (Google's tools are discovered while the host runs).
    pub generation: u64,
    /// Whether the list may change while the host runs: a relay's clients are offered
    /// `notifications/tools/list_changed` then.
    pub changes: bool,
    /// The tools, as `tools/list`'s items; `None` when they are still those of the generation asked about.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<serde_json::Value>>,
}

impl ServerInfo {
    /// Whether a `gatehouse serve` an assistant starts (`--sandbox` or not) relays to this server: it must be
    /// the user's host and serve what was asked — the sandbox for `--sandbox`; the account, or the sandbox it
    /// runs only until someone signs in, for a plain `gatehouse serve`.
    pub fn takes_relay(&self, sandbox: bool) -> bool {
        self.host && (self.sandbox == sandbox || (!sandbox && self.sandbox_until_sign_in))
    }
}

/// Why a request was not done.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureKind {
    /// The line was not a request (not JSON, an unknown `op`, a missing field, too long).
    BadRequest,
    /// The card was already answered, timed out, or its caller stopped waiting.
    NotPending,
    /// The server has no approvals store (it could not open one).
    NoStore,
    /// The store failed.
    Store,
    /// The request was read but asks for what can't be done (an unknown tool, a duration out of range).
    Invalid,
    /// Nobody is signed in to Google in the server, so there is no account to keep a rule for.
    NotSignedIn,
    /// A relayed call named no tool this server offers.
    UnknownTool,
    /// A relayed read named no resource.
    UnknownResource,
    /// The answer was not taken from here (see `control::answers`): the message says where to answer.
    Refused,
    /// The server already serves as many connections as it will at once.
    Busy,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Failure {
    pub kind: FailureKind,
    /// What was wrong and what to do, in words.
    pub message: String,
}

/// What a server answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Response {
    Info(ServerInfo),
    Pending(Vec<PendingCard>),
    Answered {
        id: u64,
    },
    Grants(Vec<Grant>),
    IgnoredGrants(Vec<IgnoredGrant>),
    SealReport(Vec<String>),
    Revoked(Revoked),
    Audit(Vec<AuditRecord>),
    Verified(Verification),
    NeverAllows(Vec<NeverAllow>),
    NeverAdded(NeverAllow),
    NeverRemoved(NeverRemoved),
    /// Ends an export: how many record lines came before it.
    Exported(u64),
    Assistants(Vec<Assistant>),
    AssistantAdded(NewAssistant),
    AssistantRevoked(AssistantRevoked),
    AssistantTools(AssistantTools),
    Refreshed,
    /// The MCP tools, as JSON (`tools/list`'s items).
    Tools(Vec<serde_json::Value>),
    ToolList(ToolList),
    /// A finished call: the text the assistant gets, whether it reports a failure, and the screening note
    /// that follows it (see `crate::screening`).
    Called {
        text: String,
        is_error: bool,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        notice: Option<String>,
    },
    /// One step of a call still running, for a relay whose assistant asked (see `Request::Call`); the
    /// call's `called` line follows the last.
    Progress {
        progress: f64,
        #[serde(default)]
        total: Option<f64>,
        #[serde(default)]
        message: Option<String>,
    },
    /// A resource's JSON text.
    Resource(String),
    Error(Failure),
}

impl Response {
    pub fn error(kind: FailureKind, message: impl Into<String>) -> Response {
        Response::Error(Failure { kind, message: message.into() })
    }
}

/// What a request is answered with, taken out of its [`Response`]: what lets
/// [`Client::ask`](super::Client::ask) return the answer's own type, so a new request needs no client method.
pub trait Answer: Sized {
    /// The answer, or the response when it is another kind (an error, an answer to another question).
    fn from_response(response: Response) -> Result<Self, Box<Response>>;
}

/// Each answer type and the response variant that carries it (each type is carried by one variant only).
macro_rules! answers {
    ($($variant:ident => $answer:ty),* $(,)?) => {
        $(
            impl Answer for $answer {
                fn from_response(response: Response) -> Result<Self, Box<Response>> {
                    match response {
                        Response::$variant(answer) => Ok(answer),
                        other => Err(Box::new(other)),
                    }
                }
            }
        )*
    };
}

answers! {
    Info => ServerInfo,
    Pending => Vec<PendingCard>,
    Grants => Vec<Grant>,
    IgnoredGrants => Vec<IgnoredGrant>,
    SealReport => Vec<String>,
    Revoked => Revoked,
    Audit => Vec<AuditRecord>,
    Verified => Verification,
    NeverAllows => Vec<NeverAllow>,
    NeverAdded => NeverAllow,
    NeverRemoved => NeverRemoved,
    Assistants => Vec<Assistant>,
    AssistantAdded => NewAssistant,
    AssistantRevoked => AssistantRevoked,
    AssistantTools => AssistantTools,
    Tools => Vec<serde_json::Value>,
    ToolList => ToolList,
    Resource => String,
}

/// Reads one line of at most `max` bytes (without its newline) from `reader`. `Ok(None)` at the end of the
/// stream; `Err(TooLong)` when the line goes on past `max` (the rest of it is not read).
pub async fn read_line<R>(reader: &mut R, max: usize) -> Result<Option<Vec<u8>>, LineError>
where
    R: tokio::io::AsyncBufRead + Unpin,
{
    use tokio::io::AsyncBufReadExt;
    let mut line = Vec::new();
    loop {
        let available = reader.fill_buf().await.map_err(LineError::Io)?;
        if available.is_empty() {
            return Ok((!line.is_empty()).then_some(line));
        }
        let (take, done) = match available.iter().position(|byte| *byte == b'\n') {
            Some(end) => (end + 1, true),
            None => (available.len(), false),
        };
        let content = if done { &available[..take - 1] } else { &available[..take] };
        if line.len() + content.len() > max {
            return Err(LineError::TooLong { max });
        }
        line.extend_from_slice(content);
        reader.consume(take);
        if done {
            return Ok(Some(line));
        }
    }
}

/// Why a line could not be read.
#[derive(Debug, thiserror::Error)]
pub enum LineError {
    #[error("the line is longer than {max} bytes")]
    TooLong { max: usize },
    #[error("{0}")]
    Io(std::io::Error),
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::approval::card::RawChoice;

    #[test]
    fn requests_read_as_documented() {
        let answer: Request = serde_json::from_value(json!({
            "op": "answer", "id": 3, "answer": { "Always": { "scope": "TOOL", "days": 7, "limit": "CONSTRAINED" } }
        }))
        .unwrap();
        let choice = RawChoice { scope: "TOOL".into(), days: "7".into(), limit: "CONSTRAINED".into() };
        assert_eq!(answer, Request::Answer { id: 3, answer: RawAnswer::Always(choice) });
        let audit: Request = serde_json::from_value(json!({ "op": "audit", "limit": 5 })).unwrap();
        assert_eq!(audit, Request::Audit { limit: 5, tool: None, agent: None, before_seq: None });
        assert_eq!(serde_json::to_value(Request::Pending).unwrap(), json!({ "op": "pending" }));
        let add: Request =
            serde_json::from_value(json!({ "op": "never_add", "tool": "update_cells", "days": 7 })).unwrap();
        assert_eq!(add, Request::NeverAdd { tool: "update_cells".into(), agent: None, days: 7, constraint: None });
        assert_eq!(serde_json::to_value(Request::NeverList).unwrap(), json!({ "op": "never_list" }));
        assert_eq!(
            serde_json::to_value(Request::NeverRemove { id: "n1".into() }).unwrap(),
            json!({ "op": "never_remove", "id": "n1" })
        );
        let add: Request =
            serde_json::from_value(json!({ "op": "assistant_add", "name": "nightly", "interactive": false })).unwrap();
        assert_eq!(add, Request::AssistantAdd { name: "nightly".into(), interactive: false });
        assert_eq!(serde_json::to_value(Request::Refresh).unwrap(), json!({ "op": "refresh" }));
        let poll: Request = serde_json::from_value(json!({ "op": "tool_list", "unless": 3 })).unwrap();
        assert_eq!(poll, Request::ToolList { unless: Some(3), refresh: false, attach: false });
        let unchanged = Response::ToolList(ToolList { generation: 3, changes: true, tools: None });
        assert_eq!(
            serde_json::to_value(&unchanged).unwrap(),
            json!({ "tool_list": { "generation": 3, "changes": true } }),
            "an unchanged list is a short line"
        );
        let old_info: ServerInfo =
            serde_json::from_value(json!({ "pid": 1, "version": "0.1.0", "sandbox": false, "store": null })).unwrap();
        assert_eq!(old_info.http_url, None, "a server from before assistants answers without it");
        assert!(!old_info.sandbox_until_sign_in, "a server from before the fallback answers without it");
        let failure = Response::error(FailureKind::NotPending, "gone");
        assert_eq!(
            serde_json::to_value(failure).unwrap(),
            json!({ "error": { "kind": "not_pending", "message": "gone" } })
        );
    }

    #[test]
    fn a_plain_serve_relays_to_a_host_in_the_sandbox_only_until_sign_in() {
        let info = |host, sandbox, sandbox_until_sign_in| ServerInfo {
            pid: 1,
            version: "0".into(),
            sandbox,
            store: None,
            http_url: None,
            host,
            sandbox_until_sign_in,
        };
        // Signed in: plain relays, --sandbox does not.
        assert!(info(true, false, false).takes_relay(false));
        assert!(!info(true, false, false).takes_relay(true));
        // The sandbox the person chose: only --sandbox relays.
        assert!(info(true, true, false).takes_relay(true));
        assert!(!info(true, true, false).takes_relay(false));
        // The sandbox because nobody is signed in: both relay.
        assert!(info(true, true, true).takes_relay(false));
        assert!(info(true, true, true).takes_relay(true));
        // Not the user's host: nothing relays.
        assert!(!info(false, true, true).takes_relay(false));
        assert!(!info(false, false, false).takes_relay(false));
    }

    #[tokio::test]
    async fn lines_are_read_whole_and_bounded() {
        let text = b"first\nsecond line\n\nlast-without-newline".to_vec();
        let mut reader = tokio::io::BufReader::with_capacity(4, text.as_slice());
        assert_eq!(read_line(&mut reader, 100).await.unwrap().unwrap(), b"first");
        assert_eq!(read_line(&mut reader, 100).await.unwrap().unwrap(), b"second line");
        assert_eq!(read_line(&mut reader, 100).await.unwrap().unwrap(), b"");
        assert_eq!(read_line(&mut reader, 100).await.unwrap().unwrap(), b"last-without-newline");
        assert!(read_line(&mut reader, 100).await.unwrap().is_none());

        let long = vec![b'x'; 50];
        let mut reader = tokio::io::BufReader::with_capacity(8, long.as_slice());
        assert!(matches!(read_line(&mut reader, 10).await, Err(LineError::TooLong { max: 10 })));
    }
}
