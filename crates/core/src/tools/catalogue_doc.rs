//! `docs/tools.md`, generated from the tool declarations so the reference can't drift from the code.

use std::fmt::Write;

use serde_json::Value;

use super::registry::{Access, Cap, Effect, ToolDef};

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
            let (rw, destructive, idempotent) = kind(meta.access);
            let cap = cap(meta.cap);
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

/// The section of Google's tools that no Gatehouse tool covers, offered under the naming rule
/// ([`super::discovered`]), from `tools` (derived from a server's list: docs/tools.md lists the emulator's,
/// [`super::discovered::from_emulator`]). Derived exactly as the running server derives them.
pub fn discovered_markdown(tools: &[&ToolDef]) -> String {
    let mut out = String::from(
        "\n## Google's tools offered as they are\n\nGoogle's MCP servers have tools that no Gatehouse tool runs on. Gatehouse \
         discovers them while it runs (each product server's `tools/list`, read again when the server says it \
         changed, after a reconnect, and when its list is due) and offers each under one naming rule: Google's tool `T` of \
         product `P` is **`google_P_T`** (no Gatehouse tool's name starts with `google_`). Everything is derived \
         from Google's definition as for a declared tool: the kind from its annotations, read only in the safe \
         direction (a read needs `readOnlyHint: true` and a place on `/mcp/v1self`), its product's tool sets, \
         the response cap and `local_path` for reads, the product's scope. **Google asks** marks the tools Google \
         asks the person about at every call (left out of `/mcp/v1self`): Google's form, shown on Gatehouse's \
         card, is their approval; every other call is decided by Gatehouse first, as its own tools' are. Their \
         results pass Google's `structuredContent` and resource links on. Offered with \
         `GATEHOUSE_GOOGLE_BACKEND` `both` or `mcp`, not with `rest`. The list below is what the built-in \
         emulator's servers offer (the tools Google publishes); Google's servers may offer more, and those are \
         offered the same way.\n\n\
         | tool | Google's tool | what it does | parameters | R/W | D | I | cap | local_path | fails for | Google asks |\n\
         |---|---|---|---|---|---|---|---|---|---|---|\n",
    );
    for tool in tools {
        let meta = &tool.meta;
        let (rw, destructive, idempotent) = kind(meta.access);
        let google = tool.google().map(|google| format!("`{}mcp/{}`", google.product.name(), google.name()));
        let asks = tool.google().is_some_and(|google| google.always_asks);
        let _ = writeln!(
            out,
            "| `{}` | {} | {} | {} | {rw} | {destructive} | {idempotent} | {} | {} | {} | {} |",
            meta.name,
            google.unwrap_or_default(),
            meta.description.replace('|', "\\|").replace('\n', " "),
            parameters(tool),
            cap(meta.cap),
            if meta.local_path { "yes" } else { "" },
            meta.fails_for.iter().map(|l| format!("`{}`", l.category())).collect::<Vec<_>>().join(", "),
            if asks { "yes" } else { "" },
        );
    }
    out
}

/// The R/W, D and I columns.
fn kind(access: Access) -> (&'static str, &'static str, &'static str) {
    match access {
        Access::Read => ("R", "", "yes"),
        Access::Write(Effect { destructive, idempotent }) => {
            ("W", if destructive { "yes" } else { "" }, if idempotent { "yes" } else { "" })
        }
    }
}

/// The cap column.
fn cap(cap: Cap) -> &'static str {
    match cap {
        Cap::Fixed => "",
        Cap::Narrower => "yes",
        Cap::Paging => "yes (paging)",
        Cap::Download => "yes (download_file)",
    }
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
        let expected = markdown(&all_tools()) + &discovered_markdown(&crate::tools::discovered::from_emulator());
        if std::env::var_os("UPDATE_DOCS").is_some() {
            std::fs::write(&path, &expected).unwrap();
        }
        let actual = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            actual == expected,
            "docs/tools.md is out of date: run `UPDATE_DOCS=1 cargo test -p gatehouse-core catalogue_doc` and commit it"
        );
    }

    /// The emulator's tools that no Gatehouse tool covers are in docs/tools.md, under the naming rule, with
    /// their kind derived from the annotations (a read only with `readOnlyHint` and a place on `/mcp/v1self`).
    #[test]
    fn google_tools_no_gatehouse_tool_covers_are_listed_as_derived() {
        let discovered = crate::tools::discovered::from_emulator();
        let names: Vec<&str> = discovered.iter().map(|tool| tool.meta.name).collect();
        assert!(names.contains(&"google_sheets_get_spreadsheet"), "{names:?}");
        assert!(names.contains(&"google_drive_create_file"), "{names:?}");
        assert!(!names.contains(&"google_sheets_get_values"), "get_sheet_data runs on it: covered, {names:?}");
        let tool = |name: &str| discovered.iter().find(|tool| tool.meta.name == name).copied().expect("listed");
        assert!(tool("google_sheets_get_spreadsheet").meta.is_read_only());
        assert!(tool("google_sheets_get_spreadsheet").meta.local_path);
        assert!(matches!(
            tool("google_drive_create_file").meta.access,
            Access::Write(Effect { destructive: false, .. })
        ));
        let update = tool("google_calendar_update_event");
        assert!(update.google().is_some_and(|google| google.always_asks), "left out of /mcp/v1self");
        let section = discovered_markdown(&discovered);
        for name in &names {
            assert!(section.contains(&format!("| `{name}` |")), "{name} has its row");
        }
        assert!(section.contains("| `google_calendar_update_event` | `calendarmcp/update_event` |"));
    }
}
