//! Our tool surface against mcp-gee-sweet 0.9.5's (`tests/data/mcp-gee-sweet-0.9.5-tools.txt`, read from
//! its own `tools/list`): same names, parameter names, required sets and defaults, and annotations that
//! agree except where we correct them on purpose.

use std::collections::{BTreeMap, BTreeSet};

use gatehouse_core::tools::all_tools;
use serde_json::Value;

/// One reference line: `name [R|W|-] (param:type=default, ...)`.
struct RefTool {
    marker: char,
    params: BTreeMap<String, RefParam>,
}

struct RefParam {
    ty: String,
    nullable: bool,
    default: Option<Value>,
}

fn reference() -> BTreeMap<String, RefTool> {
    let text = include_str!("data/mcp-gee-sweet-0.9.5-tools.txt");
    text.lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| {
            let (name, rest) = line.split_once(' ').expect("name");
            let marker = rest.chars().nth(1).expect("marker");
            let inner = rest.split_once('(').and_then(|(_, r)| r.rsplit_once(')')).map(|(p, _)| p).expect("params");
            let params = split_params(inner)
                .into_iter()
                .map(|param| {
                    let (pname, spec) = param.split_once(':').expect("param:type");
                    let (ty, default) = match spec.split_once('=') {
                        Some((ty, default)) => {
                            (ty, Some(serde_json::from_str(default).unwrap_or(Value::String(default.to_owned()))))
                        }
                        None => (spec, None),
                    };
                    let nullable = ty.ends_with('?');
                    (pname.trim().to_owned(), RefParam { ty: ty.trim_end_matches('?').to_owned(), nullable, default })
                })
                .collect();
            (name.to_owned(), RefTool { marker, params })
        })
        .collect()
}

/// Splits on commas outside `<…>`.
fn split_params(inner: &str) -> Vec<String> {
    let (mut out, mut depth, mut current) = (Vec::new(), 0, String::new());
    for c in inner.chars() {
        match c {
            '<' => depth += 1,
            '>' => depth -= 1,
            ',' if depth == 0 => {
                out.push(current.trim().to_owned());
                current.clear();
                continue;
            }
            _ => {}
        }
        current.push(c);
    }
    if !current.trim().is_empty() {
        out.push(current.trim().to_owned());
    }
    out
}

/// Tools whose 0.9.5 annotation is wrong and which we declare as what they really do (README of
/// shared/reference): these write to disk or the cache though 0.9.5 calls them read-only.
const CORRECTED_TO_WRITE: &[&str] = &["download_file", "download_folder", "refresh_cache"];

/// The JSON-schema type names a reference type allows.
fn json_types(ty: &str) -> BTreeSet<&'static str> {
    ty.split('|')
        .map(|t| match t.split('<').next().unwrap_or(t) {
            "string" => "string",
            "integer" => "integer",
            "number" => "number",
            "boolean" => "boolean",
            "object" => "object",
            "array" => "array",
            "any" => "any",
            other => panic!("unknown reference type {other}"),
        })
        .collect()
}

fn schema_types(property: &Value) -> BTreeSet<String> {
    let mut types = BTreeSet::new();
    let mut collect = |v: &Value| match v.get("type") {
        Some(Value::String(t)) => {
            types.insert(t.clone());
        }
        Some(Value::Array(ts)) => types.extend(ts.iter().filter_map(Value::as_str).map(str::to_owned)),
        _ => {}
    };
    collect(property);
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(variants)) = property.get(key) {
            variants.iter().for_each(&mut collect);
        }
    }
    types
}

#[test]
fn every_declared_tool_matches_the_reference() {
    let reference = reference();
    let mut problems = Vec::new();
    for tool in all_tools() {
        let name = tool.meta.name;
        let Some(expected) = reference.get(name) else {
            problems.push(format!("{name}: not in the reference catalogue"));
            continue;
        };
        let schema = tool.input_schema();
        let properties = schema.get("properties").and_then(Value::as_object).cloned().unwrap_or_default();
        let required: BTreeSet<String> = schema
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).map(str::to_owned).collect())
            .unwrap_or_default();
        let ours: BTreeSet<&String> = properties.keys().collect();
        let theirs: BTreeSet<&String> = expected.params.keys().collect();
        if ours != theirs {
            problems.push(format!("{name}: parameters {ours:?}, reference {theirs:?}"));
            continue;
        }
        for (pname, param) in &expected.params {
            let property = &properties[pname];
            let is_required = param.default.is_none();
            if required.contains(pname) != is_required {
                problems
                    .push(format!("{name}.{pname}: required = {}, reference {is_required}", required.contains(pname)));
            }
            if let Some(default) = &param.default {
                let ours = property.get("default").cloned().unwrap_or(Value::Null);
                if &ours != default {
                    problems.push(format!("{name}.{pname}: default {ours}, reference {default}"));
                }
            }
            let allowed = json_types(&param.ty);
            let types = schema_types(property);
            if !allowed.contains("any") && !types.is_empty() {
                for t in &types {
                    let fits = t == "null" && param.nullable
                        || allowed.contains(t.as_str())
                        || (t == "integer" && allowed.contains("number"));
                    if !fits {
                        problems.push(format!(
                            "{name}.{pname}: type {types:?}, reference {}{}",
                            param.ty,
                            if param.nullable { "?" } else { "" }
                        ));
                        break;
                    }
                }
            }
        }
        let read_only = tool.meta.is_read_only();
        let expected_read_only = match expected.marker {
            'R' => !CORRECTED_TO_WRITE.contains(&name),
            'W' => false,
            _ => read_only, // the reference declares nothing: ours must declare, either way
        };
        if read_only != expected_read_only {
            problems.push(format!("{name}: readOnly {read_only}, reference marker {}", expected.marker));
        }
    }
    assert!(problems.is_empty(), "tool surface differs from the reference:\n{}", problems.join("\n"));
}

/// The tools the foundation must offer (issue: the headless core).
const FOUNDATION: &[&str] = &[
    "get_sheet_data",
    "get_sheet_formulas",
    "get_multiple_sheet_data",
    "get_multiple_spreadsheet_summary",
    "find_in_spreadsheet",
    "list_sheets",
    "clear_values",
    "update_cells",
    "batch_update_cells",
    "batch_update",
    "create_spreadsheet",
    "create_sheet",
    "rename_sheet",
    "duplicate_sheet",
    "copy_sheet",
    "delete_sheet",
    "add_rows",
    "add_columns",
    "delete_rows",
    "delete_columns",
    "list_spreadsheets",
    "search_spreadsheets",
    "list_folders",
    "list_files",
    "search_files",
    "list_recent_files",
    "list_shared_with_me",
    "get_file_metadata",
    "get_storage_quota",
    "create_folder",
    "copy_file",
    "move_file",
    "rename_file",
    "delete_file",
    "restore_file",
    "export_file",
    "download_file",
    "upload_file",
    "upload_local_file",
    "share_file",
    "list_permissions",
    "update_permission",
    "remove_permission",
    "transfer_ownership",
    "list_file_activity",
    "create_doc",
    "get_doc_content",
    "get_doc_as_markdown",
    "get_doc_structure",
    "find_in_doc",
    "insert_doc_text",
    "delete_doc_range",
    "list_doc_comments",
    "add_doc_comment",
];

#[test]
fn the_foundation_tools_are_all_declared() {
    let declared: BTreeSet<&str> = all_tools().iter().map(|t| t.meta.name).collect();
    let missing: Vec<&&str> = FOUNDATION.iter().filter(|name| !declared.contains(**name)).collect();
    assert!(missing.is_empty(), "missing tools: {missing:?}");
}

/// The whole catalogue: a user of the reference server loses no tool by switching.
#[test]
fn every_reference_tool_is_declared() {
    let declared: BTreeSet<&str> = all_tools().iter().map(|t| t.meta.name).collect();
    let reference = reference();
    let missing: Vec<&String> = reference.keys().filter(|name| !declared.contains(name.as_str())).collect();
    assert!(missing.is_empty(), "tools of the reference catalogue not declared: {missing:?}");
    assert_eq!(reference.len(), 139, "the reference catalogue lists 139 tools");
}

#[test]
fn tool_names_are_unique() {
    let tools = all_tools();
    let names: BTreeSet<&str> = tools.iter().map(|t| t.meta.name).collect();
    assert_eq!(names.len(), tools.len());
}
