//! The words of docs/approvals.md as types: who a grant belongs to, what it allows, who is calling, and how a
//! decision was reached. Every other approval module speaks in these.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// Whose authority a grant carries.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", content = "account", rename_all = "snake_case")]
pub enum Owner {
    /// The signed-in Google account (by email): signing in as someone else makes its grants inapplicable.
    User(String),
    /// The administrator's policy file: applies to every user of the machine.
    Platform,
}

/// A limit on the arguments a grant covers, produced and checked only by the tool's own evaluator
/// (`spreadsheet` = `1AbC…`, `folder` = `…`, `email_domain` = `example.com`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Constraint {
    pub kind: String,
    pub value: String,
}

/// A standing approval. Every field is re-checked on every read from the store (see `decide`), so a store
/// that returns too much can never widen a decision.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Grant {
    /// A random id (UUID v4 text), shown to the person and used to revoke.
    pub id: String,
    pub owner: Owner,
    /// The tool's name (always one tool: a policy's `"*"` is expanded when the policy is loaded).
    pub tool: String,
    /// The agent it is limited to, as it was identified when the grant was made (a registered assistant's
    /// token, or a name a client gave of itself): it covers only that identity. `None` = any agent.
    pub agent: Option<Agent>,
    /// `None` = any arguments.
    pub constraint: Option<Constraint>,
    /// The name of the constraint's target when the grant was made ("Budget 2026"), as the card showed it,
    /// so a list of grants names it without asking Google. Only words: the decision never reads it.
    #[serde(default)]
    pub target_name: Option<String>,
    /// Also covers unattended calls. Never set by a card: only a policy file's `unattended = true`.
    pub unattended: bool,
    pub created: DateTime<Utc>,
    /// Required for a grant to apply: a grant without one never applies.
    pub expires: Option<DateTime<Utc>>,
    pub revoked: Option<DateTime<Utc>>,
    pub last_used: Option<DateTime<Utc>>,
    pub use_count: u64,
    /// The fingerprint of the tool's definition when granted (see `fingerprint`): a changed tool asks again.
    pub fingerprint: String,
}

/// The longest agent name, in characters: it is shown on every card.
pub const MAX_AGENT_NAME: usize = 64;

/// Who an assistant is, and how Gatehouse knows. A registered assistant's name is bound to the HTTP token
/// it presented, so it is known; a name a client gave of itself (`clientInfo.name` over stdio, or relayed by
/// a `gatehouse serve`) is only what it says, and any program can say anything. The two are different
/// identities: a grant, a card and an audit record say which, and a grant for one never covers the other.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Agent {
    pub name: String,
    /// `true`: the name is only the client's own word (see the type's documentation).
    #[serde(default)]
    pub self_reported: bool,
}

impl Agent {
    /// A registered assistant, known by its token.
    pub fn registered(name: impl Into<String>) -> Self {
        Agent { name: name.into(), self_reported: false }
    }

    /// A name a client gave of itself.
    pub fn self_reported(name: impl Into<String>) -> Self {
        Agent { name: name.into(), self_reported: true }
    }
}

/// Why a name can't be an agent's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum AgentNameError {
    #[error("it is empty")]
    Empty,
    #[error("it is longer than 64 characters")]
    TooLong,
    #[error("it contains a control character (a line break, a tab, an escape)")]
    Control,
    #[error("it contains an invisible character that changes how text reads (a direction mark)")]
    Invisible,
}

/// The rule every agent name follows, registered or self-reported: at most [`MAX_AGENT_NAME`] characters,
/// none of them a control character or an invisible formatting one (see [`crate::shown`]), so a name can
/// neither draw on a terminal nor hide what a card says. Surrounding spaces are not part of a name.
pub fn check_agent_name(name: &str) -> Result<&str, AgentNameError> {
    let trimmed = name.trim();
    if trimmed.is_empty() {
        return Err(AgentNameError::Empty);
    }
    if trimmed.chars().count() > MAX_AGENT_NAME {
        return Err(AgentNameError::TooLong);
    }
    if trimmed.chars().any(char::is_control) {
        return Err(AgentNameError::Control);
    }
    if trimmed.chars().any(crate::shown::is_hidden_format) {
        return Err(AgentNameError::Invisible);
    }
    Ok(trimmed)
}

/// The assistant connection making a call.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Caller {
    /// Its registered name (bound to its HTTP token), or the `clientInfo.name` it gave at `initialize`
    /// (self-reported); `None` if unknown.
    pub agent: Option<Agent>,
    /// A person is chatting with it (`false` for a connection registered as an automation).
    pub interactive: bool,
}

/// How a call was decided, as the audit log records it: `grant:<id>`, `policy:<rule>`, `person`, `timeout`,
/// `deny:<rule>`, `not-gated`, `unattended` (nobody to ask), `paused` (every assistant paused),
/// `invalid-arguments` (the tool refused its arguments before any decision), `agent-name` (the caller's name was
/// refused, see `Approvals::refuse_caller`), `google-form` (left to the form Google's MCP server asks the person
/// with, see `tools::google_mcp::google_asks_first`), `withdrawn` (the assistant stopped
/// waiting — cancelled the call, or went away — before it was decided).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub enum DecisionSource {
    Grant(String),
    Policy(String),
    Person,
    Timeout,
    Deny(String),
    NotGated,
    Unattended,
    Paused,
    InvalidArguments,
    Withdrawn,
    /// Gatehouse quit while the call waited for the person.
    Shutdown,
    /// The caller's name was refused before any decision (too long, control characters, or a registered
    /// assistant's name claimed without its token).
    AgentName,
    /// Not carded by Gatehouse: the call went to a Google MCP tool that asks the person with its own form at
    /// every call (Google's form is the card).
    GoogleForm,
}

impl std::fmt::Display for DecisionSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DecisionSource::Grant(id) => write!(f, "grant:{id}"),
            DecisionSource::Policy(rule) => write!(f, "policy:{rule}"),
            DecisionSource::Person => f.write_str("person"),
            DecisionSource::Timeout => f.write_str("timeout"),
            DecisionSource::Deny(rule) => write!(f, "deny:{rule}"),
            DecisionSource::NotGated => f.write_str("not-gated"),
            DecisionSource::Unattended => f.write_str("unattended"),
            DecisionSource::Paused => f.write_str("paused"),
            DecisionSource::InvalidArguments => f.write_str("invalid-arguments"),
            DecisionSource::Withdrawn => f.write_str("withdrawn"),
            DecisionSource::Shutdown => f.write_str("shutdown"),
            DecisionSource::AgentName => f.write_str("agent-name"),
            DecisionSource::GoogleForm => f.write_str("google-form"),
        }
    }
}

impl From<DecisionSource> for String {
    fn from(source: DecisionSource) -> Self {
        source.to_string()
    }
}

impl TryFrom<String> for DecisionSource {
    type Error = String;

    fn try_from(text: String) -> Result<Self, Self::Error> {
        Ok(match text.split_once(':') {
            Some(("grant", id)) => DecisionSource::Grant(id.to_owned()),
            Some(("policy", rule)) => DecisionSource::Policy(rule.to_owned()),
            Some(("deny", rule)) => DecisionSource::Deny(rule.to_owned()),
            None if text == "person" => DecisionSource::Person,
            None if text == "timeout" => DecisionSource::Timeout,
            None if text == "not-gated" => DecisionSource::NotGated,
            None if text == "unattended" => DecisionSource::Unattended,
            None if text == "paused" => DecisionSource::Paused,
            None if text == "invalid-arguments" => DecisionSource::InvalidArguments,
            None if text == "withdrawn" => DecisionSource::Withdrawn,
            None if text == "shutdown" => DecisionSource::Shutdown,
            None if text == "agent-name" => DecisionSource::AgentName,
            None if text == "google-form" => DecisionSource::GoogleForm,
            _ => return Err(format!("{text:?} is not a decision source")),
        })
    }
}

/// Whether the call was let through.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Allowed,
    Denied,
}

/// How a call that ran (or was refused) ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "detail", rename_all = "snake_case")]
pub enum CallOutcome {
    Ok,
    /// The tool failed (a Google error, bad arguments…): the message the assistant got.
    Error(String),
    /// The approval decision refused it.
    Refused,
    /// Recorded before it was sent and still running (only outside the chain: see `Store::begin_audit`).
    Pending,
    /// It was let through and sent, and Gatehouse stopped (was killed, crashed, lost power) before it ended:
    /// the change may have been made, in part or whole.
    Interrupted,
}

/// One audit record before it is chained: one per tool call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuditEntry {
    pub time: DateTime<Utc>,
    pub agent: Option<Agent>,
    pub tool: String,
    /// The arguments with secrets redacted.
    pub arguments: serde_json::Value,
    /// The target in words or as an id, when the tool names one (a spreadsheet, a file).
    pub target: Option<String>,
    pub verdict: Verdict,
    pub source: DecisionSource,
    pub outcome: CallOutcome,
    pub duration_ms: u64,
    /// Where the person answered the call's card, when they did (`None`: no card was answered).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answered_via: Option<AnswerChannel>,
}

/// Where an answer to a card came from, as the audit log records it and the Activity page shows it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum AnswerChannel {
    /// The card window next to the tray.
    Card,
    // No `Notification`: a notification only announces a card and opens it (src-tauri/src/notify.rs); its
    // answer is the card's.
    /// `gatehouse approvals` over the control socket, from process `pid` running `exe` (when the OS says).
    Terminal {
        pid: Option<u32>,
        #[serde(default)]
        exe: Option<String>,
    },
}

impl std::fmt::Display for AnswerChannel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AnswerChannel::Card => f.write_str("card"),
            AnswerChannel::Terminal { pid, exe } => {
                f.write_str("terminal")?;
                match (pid, exe) {
                    (Some(pid), Some(exe)) => write!(f, " (process {pid}, {exe})"),
                    (Some(pid), None) => write!(f, " (process {pid})"),
                    (None, _) => Ok(()),
                }
            }
        }
    }
}

impl AnswerChannel {
    /// The form kept in the audit log's `answered_via` column (JSON: the hash covers it as stored).
    pub fn to_column(&self) -> String {
        // Built by hand rather than with `serde_json::to_string`, which can't fail here but says it might:
        // no fallback that could record the wrong channel. `from_column` reads it back with the derive.
        let value = match self {
            AnswerChannel::Card => serde_json::json!({ "kind": "card" }),
            AnswerChannel::Terminal { pid, exe } => serde_json::json!({ "kind": "terminal", "pid": pid, "exe": exe }),
        };
        value.to_string()
    }

    pub fn from_column(text: &str) -> Result<AnswerChannel, String> {
        serde_json::from_str(text).map_err(|e| format!("{text:?} is not an answer channel: {e}"))
    }
}
