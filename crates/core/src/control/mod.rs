//! The control socket: how `gatehouse approvals`, `gatehouse grants` and `gatehouse audit` in another terminal
//! reach a running `gatehouse serve` of the same OS user. Answers to approval cards travel only here, never
//! over the MCP connection.
//!
//! Each serving process listens on its own Unix socket, `<GATEHOUSE_HOME>/control/<pid>.sock`: one per
//! assistant, since every assistant starts its own `gatehouse serve` over stdio. The folder is `0700` and
//! the socket `0600`, and the server also checks each connection's peer is the same user, so only this OS
//! user can answer. The socket gets its name only once it is listening and private (it is bound under a
//! temporary name and renamed), so a name nobody answers on belongs to a process that is gone: servers and
//! clients remove such names when that process no longer runs.
//!
//! On Windows each serving process listens on its own named pipe instead (see `pipe`): only this user's SID
//! may open it, remote clients are refused, and `<GATEHOUSE_HOME>/control/<pid>.pipe` names it for clients.
//!
//! [`protocol`] is the wire format; [`serve`] the server; [`Client`] the client. On platforms with neither
//! both say so ([`ControlError::Unsupported`]).

pub mod answers;
mod neighbours;
pub mod protocol;

#[cfg(any(unix, windows))]
mod client;
#[cfg(windows)]
mod pipe;
#[cfg(any(unix, windows))]
mod server;
#[cfg(any(unix, windows))]
mod server_files;
#[cfg(unix)]
mod socket;

#[cfg(any(unix, windows))]
pub use client::Client;
pub use neighbours::RunningServers;
#[cfg(any(unix, windows))]
pub use server::{ControlHandle, serve};

#[cfg(not(any(unix, windows)))]
mod unsupported;
#[cfg(not(any(unix, windows)))]
pub use unsupported::{Client, ControlHandle, serve};

use std::path::{Path, PathBuf};

use protocol::FailureKind;

/// The folder under `GATEHOUSE_HOME` that holds the sockets.
pub const CONTROL_DIR: &str = "control";

/// Where the sockets of servers using `home` are.
pub fn control_dir(home: &Path) -> PathBuf {
    home.join(CONTROL_DIR)
}

/// What went wrong reaching or running the control socket, in words that say what to do.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ControlError {
    #[error(
        "Answering approvals from a terminal (`gatehouse approvals`, `grants`, `audit` talking to a running server) is not supported on this platform: it needs a Unix socket or a Windows named pipe."
    )]
    Unsupported,

    /// Windows: who this user is (their SID) could not be read, so the pipe can't be limited to them.
    #[cfg(windows)]
    #[error(
        "Your Windows account could not be identified ({detail}), so the control pipe can't be limited to you. Sign out of Windows and back in; if it persists, report it."
    )]
    Identity { detail: String },

    #[error(
        "The control folder {path} could not be prepared: {detail}. Check that GATEHOUSE_HOME is a folder of yours that you can write to."
    )]
    Folder { path: String, detail: String },

    #[error(
        "The control socket {path} would be {len} bytes long, more than a Unix socket's path may be ({max}). Set GATEHOUSE_HOME to a shorter folder."
    )]
    PathTooLong { path: String, len: usize, max: usize },

    #[error(
        "The control socket {path} could not be opened: {detail}. Check that GATEHOUSE_HOME is a folder of yours that you can write to."
    )]
    Bind { path: String, detail: String },

    #[error(
        "Talking to the Gatehouse server (process {pid}) failed: {detail}. If it has just stopped, run the command again."
    )]
    Io { pid: u32, detail: String },

    #[error(
        "The Gatehouse server (process {pid}) did not answer within {seconds} seconds. It may be busy or stuck: try again, or restart the assistant that runs it."
    )]
    Timeout { pid: u32, seconds: u64 },

    #[error(
        "The Gatehouse server (process {pid}) sent an answer this command cannot read: {detail}. Use the same version of gatehouse as the running server (restart your assistants after an update)."
    )]
    Protocol { pid: u32, detail: String },

    #[error("The audit log could not be written out: {detail}. Check the destination can be written to and has space.")]
    Export { detail: String },

    /// The server refused the request; `message` says why and what to do.
    #[error("{message}")]
    Server { pid: u32, kind: FailureKind, message: String },
}
