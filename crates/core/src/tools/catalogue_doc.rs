//! `docs/tools.md`, generated from the tool declarations so the reference can't drift from the code.

use std::fmt::Write;

use serde_json::Value;

use super::registry::{Access, Cap, ToolDef};

/// The tool reference as Markdown: one table per product, every tool's parameters and annotations.
pub fn markdown(tools: &[ToolDef]) -> String {
    let mut out = String::from(
        "# Tools\n\nGenerated from the tool declarations by `gatehouse tools`; a test fails when this file \
         and the code disagree. Regenerate with `cargo run -p gatehouse-cli -- tools > docs/tools.md`.\n\n\
         Columns: **R/W** read or write (the gating class: writes wait for the person's approval), **D** destructive, **I** \
         idempotent, **cap** whether the result is capped at `MAX_TOOL_RESPONSE_CHARS`, **local_path** whether \
         the full result can be written to the export folder instead, **fails for** the kinds of identity the tool \
         cannot work for (the `server://auth-status` categories: service accounts have no Drive storage and no My \
         Drive of their own), **path** how the tool reaches Google: `sheetsmcp/get_values` is the tool \
         `get_values` of Google's Sheets MCP server, used when `GATEHOUSE_GOOGLE_BACKEND` is `both` (the default) \
         or `mcp` (REST with `rest`, and where that tool can't take the call's arguments); REST: Google's REST \
         APIs only (not offered with `mcp`).\n\n\
         Every read with a path (an **R** that reaches Google) carries content other people can write: its result \
         is followed by Gatehouse's note marking it as data, not instructions, and flagging hidden text (see \
         docs/security.md, item 14), and its description as assistants read it says so.\n",
    );
    let mut services: Vec<_> = tools.iter().map(|t| t.meta.service).collect();
    services.dedup();
    for service in services {
        let _ = write!(
            out,
            "\n## {}\n\n| tool | what it does | parameters | R/W | D | I | cap | local_path | fails for | path |\n|---|---|---|---|---|---|---|---|---|---|\n",
            service.label()
        );
        for tool in tools.iter().filter(|t| t.meta.service == service) {
            let meta = &tool.meta;
            let (rw, destructive, idempotent) = match meta.access {
                Access::Read => ("R", "", "yes"),
                Access::Write { destructive, idempotent } => {
                    ("W", if destructive { "yes" } else { "" }, if idempotent { "yes" } else { "" })
                }
            };
            let cap = match meta.cap {
                Cap::Fixed => "",
                Cap::Narrower => "yes",
                Cap::Paging => "yes (paging)",
                Cap::Download => "yes (download_file)",
            };
            let _ = writeln!(
                out,
                "| `{}` | {} | {} | {rw} | {destructive} | {idempotent} | {cap} | {} | {} | {} |",
                meta.name,
                meta.description.replace('|', "\\|"),
                parameters(tool),
                if meta.local_path { "yes" } else { "" },
                meta.fails_for.iter().map(|l| format!("`{}`", l.category())).collect::<Vec<_>>().join(", "),
                path(tool),
            );
        }
    }
    out
}

/// How the tool reaches Google: its Google MCP tool (REST where the route can't express the arguments), or
/// REST only; nothing for the tools that make no Google call.
fn path(tool: &ToolDef) -> String {
    match (tool.mcp_route(), tool.meta.scope) {
        (Some(route), _) => format!("{}, else REST", route.path()),
        (None, Some(_)) => "REST".to_owned(),
        (None, None) => String::new(),
    }
}

/// `name` for required parameters, `name=default` for optional ones.
fn parameters(tool: &ToolDef) -> String {
    let schema = tool.input_schema();
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else { return String::new() };
    properties
        .iter()
        .map(|(name, property)| {
            if required.contains(&name.as_str()) {
                format!("`{name}`")
            } else {
                let default = property.get("default").map(Value::to_string).unwrap_or_else(|| "null".to_owned());
                format!("`{name}={}`", default.replace('|', "\\|"))
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::all_tools;

    /// Fails when docs/tools.md is stale; `UPDATE_DOCS=1 cargo test` rewrites it.
    #[test]
    fn docs_tools_md_matches_the_declarations() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/tools.md");
        let expected = markdown(&all_tools());
        if std::env::var_os("UPDATE_DOCS").is_some() {
            std::fs::write(&path, &expected).unwrap();
        }
        let actual = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            actual == expected,
            "docs/tools.md is out of date: run `UPDATE_DOCS=1 cargo test -p gatehouse-core catalogue_doc` and commit it"
        );
    }
}
