//! The Gatehouse engine.
//!
//! Everything a shell (the `gatehouse` CLI, the desktop app) needs to serve Google Sheets, Docs and Drive
//! to MCP clients: configuration, the Google client, the tool declarations, the response-size safety net
//! and the MCP server itself. This crate knows nothing of windows or terminals.

pub mod a1;
pub mod approval;
pub mod auth;
pub mod autostart;
pub mod cache;
pub mod catalog;
pub mod config;
pub mod connect;
pub mod control;
pub(crate) mod csv;
pub mod docs_format;
pub mod drive_query;
pub mod engine;
pub mod google;
pub mod host;
pub mod limits;
pub mod logging;
pub mod mcp;
pub mod ops;
pub mod private_files;
pub mod process;
pub mod reply;
pub mod resend;
pub mod resources;
pub mod screening;
pub mod settings;
pub mod shown;
pub mod tools;
pub mod updates;
pub mod welcome;

pub use engine::{Engine, EngineOptions};

// What a shell (the `gatehouse` CLI, the desktop app) reaches for most, each by one short path: the
// operations, the host, the store they work on and the words every shell prints (issue 16). One item per
// line, so the architecture test can tell which module each comes from.
pub use approval::model::Grant;
pub use approval::store::Store;
pub use approval::words;
pub use config::Config;
pub use control::Client;
pub use control::RunningServers;
pub use host::Host;
pub use ops::Ops;
pub use tools::sets::ToolSelection;
