//! Google's MCP tools that no Gatehouse tool covers, offered to assistants as Gatehouse tools (issue 17,
//! item 2). They are not declared here: each is derived from the definition its product's server lists
//! (`tools/list` on `/mcp/v1`), so Gatehouse's list changes while it runs, as Google's does.
//!
//! # The naming rule
//!
//! Google's tool `T` of product `P` (the `P` of `Pmcp.googleapis.com`: `sheets`, `docs`, `slides`, `drive`,
//! `gmail`, `calendar`) is offered as **`google_P_T`** (`google_sheets_insert_dimension`). No Gatehouse tool's name
//! starts with `google_` (a test holds the declarations to it), and `P` holds no `_`, so a name tells its
//! product and Google's tool apart and two products can't meet. `T` must be 1–[`MAX_GOOGLE_NAME`] characters
//! of MCP's tool-name alphabet (ASCII letters, digits, `_`, `-`, `.`), so the offered name is within MCP's
//! rule (1–128 characters of that alphabet).
//!
//! # Everything else is derived, as for a declared tool
//!
//! - **Kind** from the annotations, read only in the safe direction: a read needs `readOnlyHint: true` *and*
//!   a place on `/mcp/v1self`; a tool that says it only reads but that Google always asks about is a write.
//!   Anything else is a write (`destructiveHint` absent counts as destructive, as in MCP).
//! - **Tool sets**: its product's set (`sheets`, …), reads also in `<product>-read`.
//! - **Response cap and `local_path`**: reads are capped and take `local_path` (unless Google's tool has an
//!   argument of that name), writes are not capped.
//! - **Scopes and auth-status**: its product's scope; Gmail's tools fail for identities without a mailbox.
//! - **Fingerprint**: Google's definition is part of it ([`crate::approval::fingerprint`]), so a grant no longer
//!   covers a tool Google changed.
//!
//! # Hostile definitions
//!
//! A server's list is untrusted input. A tool whose name breaks the rule, is listed twice, names a tool a
//! Gatehouse tool already runs on (it is covered, not offered twice), whose input schema is not a JSON-schema
//! object, or whose definition is larger than [`MAX_DEFINITION_BYTES`], is refused with a logged reason; the
//! rest are still offered.
//!
//! # Why definitions are kept for the whole run
//!
//! The rest of Gatehouse holds tool declarations as `&'static` data (names in grants, sets, the audit). A
//! discovered definition is made `'static` once ([`keep`]), and kept: a definition Google lists again is the
//! same one. Their total size is bounded ([`MAX_KEPT_BYTES`]): past it, new definitions are refused (logged,
//! with what to do) until Gatehouse restarts.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, OnceLock};

use rmcp::model::JsonObject;
use serde_json::{Value, json};

use super::registry::{Access, Cap, Effect, Limitation, Service, ToolDef, ToolMeta};
use crate::google::mcp::{Catalogue, GoogleTool, Product};

/// The largest definition (its JSON) Gatehouse takes from a server.
pub const MAX_DEFINITION_BYTES: usize = 64 * 1024;

/// How much definition text one run keeps, at most (see the module documentation).
pub const MAX_KEPT_BYTES: usize = 8 * 1024 * 1024;

pub use crate::google::mcp::naming::{MAX_GOOGLE_NAME, PREFIX, is_google_name, offered_name, parse_name};

/// The Gatehouse product of a Google product.
pub const fn service(product: Product) -> Service {
    match product {
        Product::Sheets => Service::Sheets,
        Product::Docs => Service::Docs,
        Product::Slides => Service::Slides,
        Product::Drive => Service::Drive,
        Product::Gmail => Service::Gmail,
        Product::Calendar => Service::Calendar,
    }
}

/// Why a listed tool is not offered.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refused {
    #[error(
        "its name is not 1 to {MAX_GOOGLE_NAME} characters of letters, digits, '_', '-' and '.' (MCP's tool-name rule)"
    )]
    Name,
    #[error("the server lists a tool of this name twice; only the first is offered")]
    Twice,
    #[error("its input schema is not a JSON-schema object (\"type\": \"object\", properties an object)")]
    Schema,
    #[error("its definition is {0} bytes, over the {MAX_DEFINITION_BYTES} Gatehouse takes")]
    TooLarge(usize),
    #[error("{0} is already a tool of Gatehouse")]
    Collides(String),
    #[error(
        "Gatehouse has taken in {MAX_KEPT_BYTES} bytes of Google's tool definitions in this run, its most; restart Gatehouse to take in the new ones"
    )]
    Budget,
}

/// The Google tools Gatehouse tools run on (their routes): covered, so not offered under a second name.
pub fn covered() -> &'static HashSet<(Product, &'static str)> {
    static COVERED: OnceLock<HashSet<(Product, &'static str)>> = OnceLock::new();
    COVERED.get_or_init(|| {
        super::all_tools().iter().filter_map(|tool| tool.mcp_route().map(|route| (route.product, route.tool))).collect()
    })
}

/// The tools to offer from `catalogues`: every listed tool no Gatehouse tool covers, under the naming rule,
/// in the servers' order; those refused are logged with the reason. `own` are the names of Gatehouse's tools
/// (a collision is refused, whatever the naming rule says).
pub fn derive(catalogues: &[Arc<Catalogue>], own: &HashSet<&str>) -> Vec<&'static ToolDef> {
    let mut offered = Vec::new();
    for catalogue in catalogues {
        let mut seen = HashSet::new();
        for tool in &catalogue.tools {
            if covered().contains(&(tool.product, tool.name())) {
                continue;
            }
            let name = tool.name();
            let refused = if !seen.insert(name) { Err(Refused::Twice) } else { accept(tool, own) };
            match refused {
                Ok(def) => offered.push(def),
                Err(why) => tracing::warn!(
                    product = tool.product.name(),
                    tool = %crate::shown::cut_line(name, MAX_GOOGLE_NAME, "cut"),
                    "a tool of Google's MCP server is not offered: {why}"
                ),
            }
        }
    }
    offered
}

/// One listed tool as a Gatehouse tool, or why not.
fn accept(tool: &GoogleTool, own: &HashSet<&str>) -> Result<&'static ToolDef, Refused> {
    if !is_google_name(tool.name()) {
        return Err(Refused::Name);
    }
    let name = offered_name(tool.product, tool.name());
    if own.contains(name.as_str()) {
        return Err(Refused::Collides(name));
    }
    let size = serde_json::to_vec(&tool.definition).map_or(usize::MAX, |json| json.len());
    if size > MAX_DEFINITION_BYTES {
        return Err(Refused::TooLarge(size));
    }
    let schema = tool.definition.input_schema.as_ref();
    let is_object =
        schema.get("type") == Some(&json!("object")) && schema.get("properties").is_none_or(Value::is_object);
    if !is_object {
        return Err(Refused::Schema);
    }
    keep(tool, &name, size)
}

/// The kind of call, from the annotations read only in the safe direction (see the module documentation).
pub fn access(tool: &GoogleTool) -> Access {
    let hints = tool.definition.annotations.as_ref();
    let says_read = hints.and_then(|hints| hints.read_only_hint) == Some(true);
    if says_read && !tool.always_asks {
        return Access::Read;
    }
    Access::Write(Effect {
        destructive: hints.and_then(|hints| hints.destructive_hint) != Some(false),
        idempotent: hints.and_then(|hints| hints.idempotent_hint) == Some(true),
    })
}

/// A short label in plain words: Google's title, else its name in words (`insert_dimension` → "Insert
/// dimension"); control characters dropped, at most 60 characters.
pub fn title(tool: &GoogleTool) -> String {
    let given = tool
        .definition
        .title
        .clone()
        .or_else(|| tool.definition.annotations.as_ref().and_then(|hints| hints.title.clone()))
        .filter(|title| !title.trim().is_empty());
    let words = given.unwrap_or_else(|| {
        let spaced = tool.name().replace(['_', '-', '.'], " ");
        let mut chars = spaced.trim().chars();
        chars.next().map(|first| first.to_uppercase().chain(chars).collect::<String>()).unwrap_or_default()
    });
    words.chars().filter(|c| !c.is_control()).take(60).collect::<String>().trim().to_owned()
}

/// What the assistant reads: Google's description, and where the tool comes from.
fn description(tool: &GoogleTool) -> String {
    let google = tool.definition.description.as_deref().unwrap_or("").trim();
    let origin = format!("Google's tool {} of the {}, run through Gatehouse.", tool.name(), tool.product.label());
    match google.is_empty() {
        true => origin,
        false => format!("{google} ({origin})"),
    }
}

/// The `local_path` property a read takes.
fn local_path_property() -> Value {
    json!({
        "type": "string",
        "description": "Write the full result as JSON to this file (or a new file in this folder) in the export folder instead of returning it."
    })
}

/// The schema shown to the assistant: Google's, with `local_path` for a read whose tool has no such argument.
fn shown_schema(tool: &GoogleTool, read: bool) -> (JsonObject, bool) {
    // In the spelling every assistant reads, as Gatehouse's own schemas are (`type` lists become `anyOf`).
    let mut portable = Value::Object(tool.definition.input_schema.as_ref().clone());
    super::schema::make_portable(&mut portable);
    let Value::Object(mut schema) = portable else { return (tool.definition.input_schema.as_ref().clone(), false) };
    let has_own = schema.get("properties").and_then(Value::as_object).is_some_and(|p| p.contains_key("local_path"));
    if !read || has_own {
        return (schema, false);
    }
    let properties = schema.entry("properties").or_insert_with(|| json!({}));
    if let Some(properties) = properties.as_object_mut() {
        properties.insert("local_path".to_owned(), local_path_property());
    }
    (schema, true)
}

/// The definitions kept so far, by their fingerprint, and the strings they are made of.
#[derive(Default)]
struct Kept {
    tools: HashMap<String, &'static ToolDef>,
    strings: HashSet<&'static str>,
    bytes: usize,
}

fn kept() -> &'static Mutex<Kept> {
    static KEPT: OnceLock<Mutex<Kept>> = OnceLock::new();
    KEPT.get_or_init(Mutex::default)
}

impl Kept {
    fn string(&mut self, text: String) -> &'static str {
        if let Some(kept) = self.strings.get(text.as_str()) {
            return kept;
        }
        self.bytes += text.len();
        let kept: &'static str = Box::leak(text.into_boxed_str());
        self.strings.insert(kept);
        kept
    }
}

/// `tool` as a `'static` Gatehouse tool named `name`, the same one each time Google lists the same definition.
fn keep(tool: &GoogleTool, name: &str, size: usize) -> Result<&'static ToolDef, Refused> {
    let key = crate::approval::fingerprint::google_definition_print(tool);
    let mut kept = kept().lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(def) = kept.tools.get(&key) {
        return Ok(def);
    }
    if kept.bytes.saturating_add(size) > MAX_KEPT_BYTES {
        return Err(Refused::Budget);
    }
    let access = access(tool);
    let read = matches!(access, Access::Read);
    let (schema, local_path) = shown_schema(tool, read);
    let product = tool.product;
    let meta = ToolMeta {
        name: kept.string(name.to_owned()),
        title: kept.string(title(tool)),
        description: kept.string(description(tool)),
        service: service(product),
        access,
        cap: if read { Cap::Narrower } else { Cap::Fixed },
        local_path,
        fails_for: if product == Product::Gmail { &[Limitation::NoMailbox] } else { &[] },
        scope: service(product).scope(),
        cached_from: None,
    };
    kept.bytes += size;
    let def: &'static ToolDef = Box::leak(Box::new(ToolDef::discovered(meta, schema, Arc::new(tool.clone()))));
    kept.tools.insert(key, def);
    Ok(def)
}

/// The tools Gatehouse offers from the emulator's servers (`google-fake`, which implements the tools Google
/// publishes): what docs/tools.md lists, generated as the rest of it is.
#[cfg(any(test, feature = "sandbox"))]
pub fn from_emulator() -> Vec<&'static ToolDef> {
    let catalogues: Vec<Arc<Catalogue>> = Product::ALL
        .into_iter()
        .filter_map(|product| {
            let emulated = google_fake::mcp::Product::ALL.into_iter().find(|p| p.name() == product.name())?;
            let tools = google_fake::mcp::published(emulated)
                .into_iter()
                .map(|(definition, on_self)| GoogleTool { product, definition, always_asks: !on_self })
                .collect();
            Some(Arc::new(Catalogue::listed(product, tools)))
        })
        .collect();
    let own = super::sets::catalogue().iter().map(|meta| meta.name).collect();
    derive(&catalogues, &own)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn google(name: &str, definition: Value, always_asks: bool) -> GoogleTool {
        let mut definition = definition;
        definition["name"] = json!(name);
        GoogleTool {
            product: Product::Sheets,
            definition: serde_json::from_value(definition).expect("a tool"),
            always_asks,
        }
    }

    fn plain(name: &str, hints: Value, always_asks: bool) -> GoogleTool {
        google(
            name,
            json!({ "inputSchema": { "type": "object", "properties": {} }, "annotations": hints }),
            always_asks,
        )
    }

    #[test]
    fn names_follow_one_rule_that_no_gatehouse_tool_can_meet() {
        assert_eq!(offered_name(Product::Sheets, "insert_dimension"), "google_sheets_insert_dimension");
        assert_eq!(parse_name("google_sheets_insert_dimension"), Some((Product::Sheets, "insert_dimension")));
        assert_eq!(parse_name("google_slides_x"), Some((Product::Slides, "x")));
        assert_eq!(parse_name("google_tasks_x"), None, "not a product Gatehouse speaks to");
        assert_eq!(parse_name("google_sheets_"), None);
        assert_eq!(parse_name("get_sheet_data"), None);
        for tool in crate::tools::all_tools() {
            assert!(!tool.meta.name.starts_with(PREFIX), "{} would meet the naming rule", tool.meta.name);
        }
        for product in Product::ALL {
            assert!(!product.name().contains('_'), "a product name with '_' would make names ambiguous");
            let longest = offered_name(product, &"x".repeat(MAX_GOOGLE_NAME));
            assert!(longest.len() <= 128, "within MCP's 128 characters: {}", longest.len());
        }
        assert!(!is_google_name("has space") && !is_google_name("ü") && !is_google_name(&"x".repeat(65)));
    }

    #[test]
    fn a_discovered_schema_is_shown_in_the_portable_spelling() {
        let cells =
            json!({ "type": "array", "items": { "type": ["string", "number", "null"] }, "description": "Cells." });
        let tool = google(
            "append",
            json!({ "inputSchema": { "type": "object", "properties": { "values": cells } }, "annotations": {} }),
            false,
        );
        let (schema, _) = shown_schema(&tool, false);
        let items = &schema["properties"]["values"]["items"];
        assert!(items.get("type").is_none(), "no type list is shown: {items}");
        let types: Vec<&str> =
            items["anyOf"].as_array().into_iter().flatten().filter_map(|branch| branch["type"].as_str()).collect();
        assert_eq!(types, ["string", "number", "null"]);
        assert_eq!(schema["properties"]["values"]["description"], "Cells.", "the rest as Google wrote it");
    }

    #[test]
    fn annotations_count_only_in_the_safe_direction() {
        let read = plain("peek", json!({ "readOnlyHint": true }), false);
        assert_eq!(access(&read), Access::Read);
        let says_read_but_google_always_asks = plain("peek", json!({ "readOnlyHint": true }), true);
        assert!(matches!(access(&says_read_but_google_always_asks), Access::Write(_)));
        let silent = plain("poke", json!({}), false);
        assert_eq!(access(&silent), Access::Write(Effect { destructive: true, idempotent: false }));
        let additive = plain("add", json!({ "readOnlyHint": false, "destructiveHint": false }), false);
        assert_eq!(access(&additive), Access::Write(Effect { destructive: false, idempotent: false }));
    }

    #[test]
    fn hostile_definitions_are_refused_and_the_rest_offered() {
        let own: HashSet<&str> = ["google_sheets_taken"].into_iter().collect();
        let tools = vec![
            plain("insert_dimension", json!({ "readOnlyHint": false }), true),
            plain("bad name", json!({}), false),
            plain("insert_dimension", json!({}), false),
            google("flat", json!({ "inputSchema": { "type": "string" } }), false),
            google(
                "huge",
                json!({ "description": "x".repeat(MAX_DEFINITION_BYTES), "inputSchema": { "type": "object" } }),
                false,
            ),
            plain("taken", json!({}), false),
            plain("peek_range", json!({ "readOnlyHint": true }), false),
        ];
        let catalogue = Catalogue::listed(Product::Sheets, tools);
        let offered = derive(&[Arc::new(catalogue)], &own);
        let names: Vec<&str> = offered.iter().map(|tool| tool.meta.name).collect();
        assert_eq!(names, ["google_sheets_insert_dimension", "google_sheets_peek_range"]);
        let read = offered[1];
        assert!(read.meta.local_path && read.meta.cap == Cap::Narrower, "a read takes local_path and is capped");
        assert!(read.input_schema().get("properties").and_then(|p| p.get("local_path")).is_some());
        assert_eq!(read.meta.title, "Peek range", "a title from the name, in words");
        let write = offered[0];
        assert_eq!(write.meta.cap, Cap::Fixed);
        assert!(write.meta.description.contains("Google's tool insert_dimension of the Google Sheets MCP server"));
        // The same definition listed again is the same tool.
        let again = derive(
            &[Arc::new(Catalogue::listed(
                Product::Sheets,
                vec![plain("peek_range", json!({ "readOnlyHint": true }), false)],
            ))],
            &own,
        );
        assert!(std::ptr::eq(again[0], read));
    }

    #[test]
    fn tools_gatehouse_already_runs_on_are_not_offered_twice() {
        let routed = plain("get_values", json!({ "readOnlyHint": true }), false);
        let offered = derive(&[Arc::new(Catalogue::listed(Product::Sheets, vec![routed]))], &HashSet::new());
        assert!(offered.is_empty(), "get_sheet_data runs on get_values");
    }
}
