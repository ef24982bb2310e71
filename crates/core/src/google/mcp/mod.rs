//! Gatehouse as an MCP client of Google's Workspace MCP servers (issue 17).
//!
//! Google's servers (`https://<product>mcp.googleapis.com/mcp/v1`) ask the person to approve consequential
//! actions with MCP form elicitation in the multi-round-trip style: a `tools/call` answers with an
//! `InputRequiredResult`, and the client repeats the same call with `inputResponses`. This layer only speaks
//! to Google; who may answer a form (the person, on a card) is decided above it, in `approval`, so the forms
//! cross this boundary as plain data: [`form::GoogleForm`] going up, [`form::FormAnswer`] coming back.

pub mod client;
pub mod form;
pub mod naming;

pub use client::{Catalogue, GoogleTool, McpClient, McpError, McpOptions, Product};
