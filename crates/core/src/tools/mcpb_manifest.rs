//! The `manifest.json` of Gatehouse's MCP Bundle (`.mcpb`, the format Claude Desktop installs with one
//! click), generated from the tool declarations like `docs/tools.md`, so the bundle can't list a tool the
//! binary doesn't serve. Google's own tools that no Gatehouse tool covers are read from Google's servers while
//! Gatehouse runs (`tools::discovered`), so the manifest lists Gatehouse's tools and says more are generated
//! at run time (`tools_generated`).
//!
//! The bundle holds the `gatehouse` binary. Claude Desktop starts it as `gatehouse serve`, which relays to the
//! desktop app when it runs (one set of cards, grants and sign-in for every assistant) and hosts itself when
//! it doesn't. The format: <https://github.com/anthropics/mcpb/blob/main/MANIFEST.md>, manifest version 0.3.

use serde_json::{Value, json};

use super::registry::ToolDef;

/// The manifest version this module writes (the newest the `@anthropic-ai/mcpb` CLI validates).
pub const MANIFEST_VERSION: &str = "0.3";

/// Where the binary sits inside the bundle.
pub const ENTRY_POINT: &str = "server/gatehouse";

/// The manifest for a bundle of `tools` (every tool, as `gatehouse serve` offers them), for `platform`
/// (`linux`, `darwin` or `win32`: the binary in a bundle runs on one platform only).
pub fn manifest(tools: &[ToolDef], platform: &str) -> Value {
    let entry_point = if platform == "win32" { format!("{ENTRY_POINT}.exe") } else { ENTRY_POINT.to_owned() };
    let tools: Vec<Value> =
        tools.iter().map(|tool| json!({ "name": tool.meta.name, "description": tool.meta.description })).collect();
    json!({
        "manifest_version": MANIFEST_VERSION,
        "name": "gatehouse",
        "display_name": "Gatehouse",
        "version": env!("CARGO_PKG_VERSION"),
        "description": "Your Google Sheets, Docs, Drive, Calendar and Gmail for Claude, with every change waiting for your approval.",
        "long_description": "Gatehouse lets Claude read and work in your Google Sheets, Docs, Drive, Calendar and Gmail. Every change Claude asks for waits until you approve it on a card next to the tray. Install the Gatehouse app too: it signs you in to Google and shows the cards; this bundle talks to it while it runs.",
        "author": { "name": "The Gatehouse developers" },
        "license": "MIT OR Apache-2.0",
        "server": {
            "type": "binary",
            "entry_point": entry_point,
            "mcp_config": {
                "command": format!("${{__dirname}}/{entry_point}"),
                "args": ["serve"],
            },
        },
        "tools": tools,
        "tools_generated": true,
        "keywords": ["google", "sheets", "docs", "drive", "calendar", "gmail", "approvals"],
        "compatibility": { "platforms": [platform] },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::all_tools;

    #[test]
    fn the_manifest_lists_every_tool_once_and_starts_the_bundled_binary() {
        let tools = all_tools();
        let manifest = manifest(&tools, "linux");
        let listed: Vec<&str> =
            manifest["tools"].as_array().into_iter().flatten().filter_map(|tool| tool["name"].as_str()).collect();
        let declared: Vec<&str> = tools.iter().map(|tool| tool.meta.name).collect();
        assert_eq!(listed, declared);
        assert_eq!(manifest["server"]["mcp_config"]["command"], "${__dirname}/server/gatehouse");
        assert_eq!(manifest["server"]["mcp_config"]["args"], json!(["serve"]));
        assert_eq!(manifest["compatibility"]["platforms"], json!(["linux"]));
        assert_eq!(manifest["version"], env!("CARGO_PKG_VERSION"));
    }

    #[test]
    fn a_windows_bundle_starts_the_exe() {
        let manifest = manifest(&all_tools(), "win32");
        assert_eq!(manifest["server"]["entry_point"], "server/gatehouse.exe");
        assert_eq!(manifest["server"]["mcp_config"]["command"], "${__dirname}/server/gatehouse.exe");
    }
}
