//! Changes to the servers' tool lists while the emulator runs, so a client's discovery can be tested: a tool
//! hidden (removed from `tools/list`, and "Unknown tool" when called), shown again (added), or given another
//! description (changed). Google's servers change their lists when Google ships new tools; the emulator's
//! catalogue (`tools.rs`) is static, so these are what tests turn.
//!
//! `tools/list` also carries `ttlMs` (MCP 2026-07-28's cache hint) when a test sets one
//! ([`Changes::set_list_ttl`]): whether Google's servers send one is **unknown**; by default none is sent.

use std::collections::{HashMap, HashSet};

use super::Product;

/// The changes in force, kept in [`crate::World::mcp`].
#[derive(Debug, Default)]
pub struct Changes {
    hidden: HashSet<(Product, String)>,
    descriptions: HashMap<(Product, String), String>,
    unasked: HashSet<(Product, String)>,
    list_ttl_ms: Option<u64>,
}

impl Changes {
    /// Removes `tool` from `product`'s servers (both endpoints); calling it answers "Unknown tool".
    pub fn hide_tool(&mut self, product: Product, tool: &str) {
        self.hidden.insert((product, tool.to_owned()));
    }

    /// Offers a hidden tool again.
    pub fn show_tool(&mut self, product: Product, tool: &str) {
        self.hidden.remove(&(product, tool.to_owned()));
    }

    /// Lists `tool` with `description` instead of its own.
    pub fn describe_tool(&mut self, product: Product, tool: &str, description: &str) {
        self.descriptions.insert((product, tool.to_owned()), description.to_owned());
    }

    /// Runs `tool` without its approval form while still listing it as Google lists a tool it always asks
    /// about (on `/v1`, not on `/v1self`): what a server that broke its word would do, or Google after the
    /// person told its own form to stop asking. A client must not take that as the person's approval.
    pub fn stop_asking(&mut self, product: Product, tool: &str) {
        self.unasked.insert((product, tool.to_owned()));
    }

    /// The `ttlMs` each `tools/list` answer carries; `None` sends none.
    pub fn set_list_ttl(&mut self, ttl_ms: Option<u64>) {
        self.list_ttl_ms = ttl_ms;
    }

    pub(crate) fn is_hidden(&self, product: Product, tool: &str) -> bool {
        self.hidden.contains(&(product, tool.to_owned()))
    }

    pub(crate) fn description(&self, product: Product, tool: &str) -> Option<&str> {
        self.descriptions.get(&(product, tool.to_owned())).map(String::as_str)
    }

    pub(crate) fn asks_no_more(&self, product: Product, tool: &str) -> bool {
        self.unasked.contains(&(product, tool.to_owned()))
    }

    pub(crate) fn list_ttl_ms(&self) -> Option<u64> {
        self.list_ttl_ms
    }
}
