//! Google Drive tools.

use super::registry::ToolDef;

/// The Drive tools, in catalogue order.
pub fn tools() -> Vec<ToolDef> {
    Vec::new()
}
