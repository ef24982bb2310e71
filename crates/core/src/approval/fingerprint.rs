//! The fingerprint of a tool's definition: a grant records it, and a grant whose tool has changed since no
//! longer applies (docs/approvals.md, rule 2). It covers what the assistant is shown (name, title, description,
//! input schema, annotations) and how calls are gated (the evaluator kinds), so a tool that now does, says
//! or checks something else asks again.
//!
//! A tool that runs on one of Google's MCP tools (a discovered tool, or a routed one whose call goes to
//! Google's server) also covers Google's definition of that tool (name, title, description, input and output
//! schemas, annotations, and whether Google asks at every call): when Google changes it, grants of the tool
//! ask again. Tools that run on no Google definition hash exactly what they always did.
//!
//! It must be the same in every process and on every run for the same definition, so the JSON it hashes is
//! canonical: object keys sorted at every depth, no whitespace.

use rmcp::model::ToolAnnotations;
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use super::gated_tool::GatedTool;
use crate::google::mcp::GoogleTool;

/// Names the format, so a future change of what is hashed can never collide with today's fingerprints.
const VERSION: &str = "gatehouse-tool-fingerprint/1";

/// The SHA-256 (lowercase hex) of the tool's definition as the assistant sees it, plus its evaluator kinds.
pub fn fingerprint(tool: &GatedTool) -> String {
    digest(&definition(tool))
}

/// What is hashed, before canonicalization.
fn definition(tool: &GatedTool) -> Value {
    let shown = tool.shown();
    // The order evaluators are declared in changes nothing about gating.
    let mut kinds: Vec<&str> = tool.evaluators().iter().map(|evaluator| evaluator.kind()).collect();
    kinds.sort_unstable();
    let mut hashed = json!({
        "version": VERSION,
        "name": shown.name,
        "title": shown.title,
        "description": shown.description,
        "input_schema": Value::Object(shown.input_schema.as_ref().clone()),
        "annotations": shown.annotations.as_ref().map(annotations),
        "evaluators": kinds,
    });
    // Only for tools on a Google definition: every other tool's fingerprint stays what it was.
    if let (Some(google), Value::Object(map)) = (tool.google(), &mut hashed) {
        map.insert("google".to_owned(), google_definition(google));
    }
    hashed
}

/// Google's definition of one of its tools, field by field (see [`annotations`] for why not serialized whole).
fn google_definition(google: &GoogleTool) -> Value {
    let tool = &google.definition;
    json!({
        "product": google.product.name(),
        "name": tool.name,
        "title": tool.title,
        "description": tool.description,
        "input_schema": Value::Object(tool.input_schema.as_ref().clone()),
        "output_schema": tool.output_schema.as_ref().map(|schema| Value::Object(schema.as_ref().clone())),
        "annotations": tool.annotations.as_ref().map(annotations),
        "always_asks": google.always_asks,
    })
}

/// The SHA-256 of Google's definition alone: tells two listings of a tool apart (the same print, the same
/// definition).
pub fn google_definition_print(google: &GoogleTool) -> String {
    digest(&json!({ "version": VERSION, "google": google_definition(google) }))
}

/// The annotations under their MCP names, field by field (absent hints stay absent, as MCP sends them). Listed
/// here rather than serialized, so an rmcp upgrade that serializes them differently does not re-ask every grant;
/// `ToolMeta::annotations` sets exactly these.
fn annotations(annotations: &ToolAnnotations) -> Value {
    let ToolAnnotations { title, read_only_hint, destructive_hint, idempotent_hint, open_world_hint, .. } = annotations;
    let mut out = Map::new();
    let mut put = |key: &str, value: Value| {
        if !value.is_null() {
            out.insert(key.to_owned(), value);
        }
    };
    put("title", json!(title));
    put("readOnlyHint", json!(read_only_hint));
    put("destructiveHint", json!(destructive_hint));
    put("idempotentHint", json!(idempotent_hint));
    put("openWorldHint", json!(open_world_hint));
    Value::Object(out)
}

/// `value` with every object's keys in sorted order, at every depth; arrays keep their order (it means
/// something in a schema: `required`, `enum`).
fn canonical(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort_unstable();
            Value::Object(keys.into_iter().map(|key| (key.clone(), canonical(&map[key]))).collect())
        }
        Value::Array(items) => Value::Array(items.iter().map(canonical).collect()),
        other => other.clone(),
    }
}

/// SHA-256 of the compact canonical JSON text, as lowercase hex.
fn digest(value: &Value) -> String {
    let text = canonical(value).to_string();
    Sha256::digest(text.as_bytes()).iter().map(|byte| format!("{byte:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use schemars::JsonSchema;
    use serde::Deserialize;

    use std::sync::Arc;

    use super::*;
    use crate::approval::evaluator::Evaluator;
    use crate::tools::registry::{Effect, Service, ToolMeta};
    use crate::tools::{ToolContext, ToolDef, ToolError};

    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code, reason = "only the schema is used")]
    struct Args {
        /// The spreadsheet's id.
        spreadsheet_id: String,
    }

    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code, reason = "only the schema is used")]
    struct MoreArgs {
        /// The spreadsheet's id.
        spreadsheet_id: String,
        /// A new argument.
        sheet: Option<String>,
    }

    async fn run<A>(_ctx: ToolContext, _args: A) -> Result<Value, ToolError> {
        Ok(Value::Null)
    }

    fn meta(description: &'static str, destructive: bool) -> ToolMeta {
        ToolMeta::write(Service::Sheets, "tidy", "Tidy up", description, Effect { destructive, idempotent: true })
    }

    fn tool(description: &'static str) -> ToolDef {
        ToolDef::new(meta(description, true), run::<Args>)
    }

    #[test]
    fn the_same_definition_gives_the_same_fingerprint() {
        let a = fingerprint(&tool("Tidy a sheet."));
        assert_eq!(a, fingerprint(&tool("Tidy a sheet.")));
        assert_eq!(a.len(), 64);
        assert!(a.chars().all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase()), "{a}");
    }

    #[test]
    fn any_change_the_assistant_sees_or_the_gating_changes_it() {
        let base = fingerprint(&tool("Tidy a sheet."));
        let changes = [
            ("description", fingerprint(&tool("Tidy a sheet, and delete the rest."))),
            ("schema", fingerprint(&ToolDef::new(meta("Tidy a sheet.", true), run::<MoreArgs>))),
            ("annotations", fingerprint(&ToolDef::new(meta("Tidy a sheet.", false), run::<Args>))),
            (
                "title",
                fingerprint(&ToolDef::new(
                    ToolMeta::write(
                        Service::Sheets,
                        "tidy",
                        "Tidy",
                        "Tidy a sheet.",
                        Effect { destructive: true, idempotent: true },
                    ),
                    run::<Args>,
                )),
            ),
            (
                "name",
                fingerprint(&ToolDef::new(
                    ToolMeta::write(
                        Service::Sheets,
                        "tidy2",
                        "Tidy up",
                        "Tidy a sheet.",
                        Effect { destructive: true, idempotent: true },
                    ),
                    run::<Args>,
                )),
            ),
            (
                "evaluators",
                fingerprint(&ToolDef::evaluated(
                    meta("Tidy a sheet.", true),
                    run::<Args>,
                    [Evaluator::spreadsheet(|a: &Args| &a.spreadsheet_id)],
                )),
            ),
        ];
        for (what, changed) in changes {
            assert_ne!(changed, base, "a changed {what} must change the fingerprint");
        }
    }

    #[test]
    fn evaluator_order_does_not_matter() {
        let declare = |veto_first: bool| {
            let mut evaluators = vec![Evaluator::spreadsheet(|a: &Args| &a.spreadsheet_id)];
            let veto = Evaluator::always_ask("careful", "Careful always asks.");
            if veto_first {
                evaluators.insert(0, veto);
            } else {
                evaluators.push(veto);
            }
            fingerprint(&ToolDef::evaluated(meta("Tidy a sheet.", true), run::<Args>, evaluators))
        };
        assert_eq!(declare(true), declare(false));
    }

    #[test]
    fn key_order_does_not_matter_and_the_digest_is_fixed() {
        let a = json!({ "b": 1, "a": { "y": [2, 1], "x": null } });
        let b = json!({ "a": { "x": null, "y": [2, 1] }, "b": 1 });
        assert_eq!(canonical(&a).to_string(), r#"{"a":{"x":null,"y":[2,1]},"b":1}"#);
        assert_eq!(digest(&a), digest(&b));
        // sha256 of the text above: the same in every process, on every machine.
        assert_eq!(digest(&a), "6f5fa05819f86157f9b4bde2072131af0923211d5a7a1afe196ff99ecf36f307");
        assert_ne!(digest(&json!({ "a": { "y": [1, 2] }, "b": 1 })), digest(&a), "array order counts");
    }

    fn google_tool(description: &str, always_asks: bool) -> Arc<GoogleTool> {
        let definition = serde_json::from_value(json!({
            "name": "get_values",
            "description": description,
            "inputSchema": { "type": "object", "properties": { "range": { "type": "string" } } },
            "annotations": { "readOnlyHint": true },
        }))
        .expect("a tool");
        Arc::new(GoogleTool { product: crate::google::mcp::Product::Sheets, definition, always_asks })
    }

    #[test]
    fn a_tool_on_a_google_definition_asks_again_when_google_changes_it() {
        let own = tool("Tidy a sheet.");
        let base = fingerprint(&own);
        let on_google = fingerprint(&own.with_google(google_tool("Returns values.", false)));
        assert_ne!(on_google, base, "the Google definition is part of the fingerprint");
        assert_eq!(on_google, fingerprint(&own.with_google(google_tool("Returns values.", false))));
        let changed = fingerprint(&own.with_google(google_tool("Returns values, and more.", false)));
        assert_ne!(changed, on_google, "Google changed its description");
        let gated = fingerprint(&own.with_google(google_tool("Returns values.", true)));
        assert_ne!(gated, on_google, "Google now asks at every call");
        assert_ne!(
            google_definition_print(&google_tool("a", false)),
            google_definition_print(&google_tool("b", false))
        );
    }
}
