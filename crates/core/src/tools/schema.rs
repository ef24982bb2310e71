//! Tools' input schemas, in the spelling every assistant can read.
//!
//! schemars writes an optional field as `"type": ["string", "null"]`. That is legal JSON Schema, but
//! clients that map schemas onto a one-`type` dialect (Gemini's function declarations, for one) reject
//! the tool or drop the field's constraints. Here each such field becomes `anyOf` one branch per type,
//! the same contract in the form the MCP Inspector's portability check asks for. Cell values get their
//! own schema ([`CellValue`]) rather than the bare `true` that `serde_json::Value` would give.

use schemars::JsonSchema;
use serde_json::{Map, Value};

use rmcp::model::JsonObject;

/// The default of a yes/no argument that is on unless the assistant turns it off
/// (`#[serde(default = "crate::tools::schema::default_true")]`); schemars writes it into the schema as `true`.
pub(crate) fn default_true() -> bool {
    true
}

/// What one cell of a written row may be: text (a formula when it starts with `=`), a number,
/// true/false, or null to leave the cell as it is. Only its schema is used; cells are read as JSON values.
#[derive(JsonSchema)]
#[schemars(untagged)]
#[allow(dead_code)]
pub(crate) enum CellValue {
    Text(String),
    Number(f64),
    Boolean(bool),
    Keep(()),
}

/// Keywords that describe a field as a whole and stay beside `anyOf`; the rest constrain one type and
/// move into its branch.
const ANNOTATIONS: &[&str] = &["title", "description", "default", "examples", "deprecated", "readOnly", "writeOnly"];

/// The input schema of a tool whose arguments are `A`.
pub(crate) fn input_schema<A: JsonSchema + 'static>() -> std::sync::Arc<JsonObject> {
    let schema = rmcp::handler::server::common::schema_for_type::<A>();
    let mut object = Value::Object((*schema).clone());
    make_portable(&mut object);
    match object {
        Value::Object(map) => std::sync::Arc::new(map),
        _ => schema,
    }
}

/// Rewrites every `"type": [..]` in `schema` (and its sub-schemas) as `anyOf` single-type branches.
pub(crate) fn make_portable(schema: &mut Value) {
    match schema {
        Value::Object(map) => {
            for child in map.values_mut() {
                make_portable(child);
            }
            split_type_list(map);
        }
        Value::Array(items) => items.iter_mut().for_each(make_portable),
        _ => {}
    }
}

fn split_type_list(map: &mut Map<String, Value>) {
    let Some(Value::Array(types)) = map.get("type") else { return };
    let types = types.clone();
    map.remove("type");
    let (kept, constraints): (Map<String, Value>, Map<String, Value>) =
        std::mem::take(map).into_iter().partition(|(key, _)| ANNOTATIONS.contains(&key.as_str()));
    let branches = types
        .into_iter()
        .map(|ty| {
            let mut branch = Map::new();
            if ty != "null" {
                branch.extend(constraints.clone());
            }
            branch.insert("type".into(), ty);
            Value::Object(branch)
        })
        .collect();
    *map = kept;
    map.insert("anyOf".into(), Value::Array(branches));
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_type_list_becomes_one_branch_per_type_with_the_constraints_on_the_typed_branch() {
        let mut schema = json!({
            "type": "object",
            "properties": {
                "insert_index": {"type": ["integer", "null"], "format": "uint32", "minimum": 0, "default": null, "description": "Where."}
            }
        });
        make_portable(&mut schema);
        assert_eq!(
            schema["properties"]["insert_index"],
            json!({
                "anyOf": [{"type": "integer", "format": "uint32", "minimum": 0}, {"type": "null"}],
                "default": null,
                "description": "Where."
            })
        );
        assert_eq!(schema["type"], "object", "a single type is left as it is");
    }

    #[test]
    fn a_cell_value_is_text_number_boolean_or_null() {
        let schema = serde_json::to_value(schemars::schema_for!(CellValue)).unwrap_or_default();
        let types: Vec<&str> =
            schema["anyOf"].as_array().into_iter().flatten().filter_map(|branch| branch["type"].as_str()).collect();
        assert_eq!(types, ["string", "number", "boolean", "null"]);
    }
}
