//! Google Docs tools.

use super::registry::ToolDef;

/// The Docs tools, in catalogue order.
pub fn tools() -> Vec<ToolDef> {
    Vec::new()
}
