//! The Gatehouse engine.
//!
//! Everything a shell (the `gatehouse` CLI, the desktop app) needs to serve Google Sheets, Docs and Drive
//! to MCP clients: configuration, the Google client, the tool declarations, the response-size safety net
//! and the MCP server itself. This crate knows nothing of windows or terminals.

pub mod a1;
pub mod docs_format;
