//! The response cache against the emulator: a repeated read is answered from the store, a change made in
//! Google (the file's version moves) or through a write tool is seen at once, TTL 0 turns it off, the TTL is
//! a saved setting, the response cap applies to kept answers, and `refresh_cache` drops what it is told to.

use crate::support;

use std::sync::Arc;

use gatehouse_core::approval::store::Store;
use gatehouse_core::config::Config;
use gatehouse_core::engine::ApprovalSetup;
use gatehouse_core::google::auth::StaticToken;
use gatehouse_core::tools::{Access, all_tools};
use gatehouse_core::{Engine, EngineOptions};
use serde_json::{Value, json};
use support::{Harness, USER, approvals};

/// The harness's emulator and home, with an engine that keeps its approvals, settings and cache in the
/// home's store (the harness's own engine has no store, so no cache).
struct Cached {
    h: Harness,
    store: Store,
    engine: Arc<Engine>,
}

impl Cached {
    async fn new() -> Self {
        let h = Harness::new().await;
        let store = open(&h).await;
        let engine = engine(&h, &store, |_| {});
        Self { h, store, engine }
    }

    async fn call(&self, tool: &str, args: Value) -> (Value, bool) {
        call(&self.engine, tool, args).await
    }

    async fn ok(&self, tool: &str, args: Value) -> Value {
        let (value, is_error) = self.call(tool, args).await;
        assert!(!is_error, "{tool} failed: {value}");
        value
    }

    fn sheet(&self, title: &str, rows: Vec<Vec<Value>>) -> String {
        self.h.google.world().create_spreadsheet(title, &[("Data", rows)], &self.h.owner())
    }

    /// Requests for spreadsheet data (not the Drive version checks).
    fn sheets_calls(&self) -> usize {
        self.h.google.world().count_requests("/v4/spreadsheets")
    }

    fn version_checks(&self, id: &str) -> usize {
        self.h.google.world().count_requests(&format!("/drive/v3/files/{id}"))
    }
}

async fn open(h: &Harness) -> Store {
    crate::support::open_store(&h.home.path().join("gatehouse.db")).await.expect("open the store")
}

fn engine(h: &Harness, store: &Store, adjust: impl FnOnce(&mut Config)) -> Arc<Engine> {
    let token = h.google.issue_token(h.owner());
    let mut config = Config::with_home(h.home.path());
    config.google_endpoint = Some(h.google.url().parse().expect("emulator url"));
    adjust(&mut config);
    let engine = Engine::new(EngineOptions {
        config,
        tokens: Arc::new(StaticToken::new(token, Some(USER.to_owned()))),
        sandbox: false,
        approvals: ApprovalSetup { store: Some(store.clone()), policy: approvals::allow_everything().policy },
        retry: support::quick_retry(),
    })
    .expect("engine");
    approvals::approve_every_card(&engine);
    engine
}

async fn call(engine: &Engine, tool: &str, args: Value) -> (Value, bool) {
    let Value::Object(map) = args else { panic!("arguments must be an object") };
    let reply = engine.call(tool, Some(map)).await.expect("known tool");
    (serde_json::from_str(&reply.text).unwrap_or(Value::String(reply.text)), reply.is_error)
}

fn read(id: &str) -> Value {
    json!({ "spreadsheet_id": id, "sheet": "Data" })
}

fn rows(n: usize) -> Vec<Vec<Value>> {
    (1..=n).map(|r| vec![json!(format!("row {r}")), json!(r)]).collect()
}

#[tokio::test]
async fn a_repeated_read_is_answered_from_the_cache_after_a_version_check() {
    let c = Cached::new().await;
    let id = c.sheet("Budget", rows(3));
    // A first read goes straight to Google: one round trip, no version check, nothing kept.
    let first = c.ok("get_sheet_data", read(&id)).await;
    let fetched = c.sheets_calls();
    assert!(fetched > 0);
    assert_eq!(c.version_checks(&id), 0, "a one-off read costs no extra round trip");
    // The second checks the version first and keeps the answer; the third is answered from it.
    let second = c.ok("get_sheet_data", read(&id)).await;
    assert_eq!(first, second);
    assert!(c.sheets_calls() > fetched, "the second read fetched the data to keep");
    let fetched = c.sheets_calls();
    let third = c.ok("get_sheet_data", read(&id)).await;
    assert_eq!(first, third);
    assert_eq!(c.sheets_calls(), fetched, "the third read fetched no data");
    assert_eq!(c.version_checks(&id), 2, "the second and third reads checked the file's version once each");

    // Other arguments are another answer; local_path does not change the answer.
    c.ok("get_sheet_data", json!({ "spreadsheet_id": id, "sheet": "Data", "range": "A1:A2" })).await;
    assert!(c.sheets_calls() > fetched);
    let after_range = c.sheets_calls();
    let written =
        c.ok("get_sheet_data", json!({ "spreadsheet_id": id, "sheet": "Data", "local_path": "b.json" })).await;
    assert!(written["local_path"].as_str().is_some_and(|p| p.ends_with("b.json")), "{written}");
    assert_eq!(c.sheets_calls(), after_range, "the kept answer went to the file");
    let file = std::fs::read_to_string(c.h.home.path().join("exports/b.json")).expect("the export");
    assert_eq!(serde_json::from_str::<Value>(&file).unwrap(), first);
}

#[tokio::test]
async fn a_change_made_in_google_is_seen_on_the_next_read() {
    let c = Cached::new().await;
    let id = c.sheet("Budget", rows(2));
    c.ok("list_sheets", json!({ "spreadsheet_id": id })).await;
    c.ok("get_sheet_data", read(&id)).await;
    let before = c.ok("get_sheet_data", read(&id)).await;
    assert_eq!(before["values"][0][0], "row 1");
    assert_eq!(c.ok("refresh_cache", json!({ "spreadsheet_id": id })).await["dropped"], 1, "it was kept");
    c.ok("get_sheet_data", read(&id)).await;
    {
        // Someone edits the sheet in the browser: its content and its Drive version change.
        let mut world = c.h.google.world();
        world.sheets.insert_with_values(&id, "Budget", &[("Data", vec![vec![json!("edited")]])]);
        world.drive.touch_native_file(&id, &c.h.owner());
    }
    let fetched = c.sheets_calls();
    let after = c.ok("get_sheet_data", read(&id)).await;
    assert_eq!(after["values"], json!([["edited"]]));
    assert!(c.sheets_calls() > fetched, "the stale answer was not used");
}

#[tokio::test]
async fn a_write_through_a_tool_drops_what_it_changed_and_only_that() {
    let c = Cached::new().await;
    let (a, b) = (c.sheet("A", rows(2)), c.sheet("B", rows(2)));
    // Each read twice: the second keeps its answer.
    for _ in 0..2 {
        c.ok("get_sheet_data", read(&a)).await;
        c.ok("get_sheet_formulas", read(&a)).await;
        c.ok("get_sheet_data", read(&b)).await;
    }
    c.ok("update_cells", json!({ "spreadsheet_id": a, "sheet": "Data", "range": "A1", "data": [["new"]] })).await;
    // A's two answers went with the write; B's is still kept.
    assert_eq!(c.ok("refresh_cache", json!({})).await["dropped"], 1);

    c.ok("get_sheet_data", read(&a)).await;
    let got = c.ok("get_sheet_data", read(&a)).await;
    assert_eq!(got["values"][0][0], "new");
    // A write that names no spreadsheet, document or file may have touched anything: it drops every answer.
    c.ok("create_folder", json!({ "name": "Reports" })).await;
    assert_eq!(c.ok("refresh_cache", json!({})).await["dropped"], 0);
}

#[tokio::test]
async fn a_ttl_of_zero_turns_the_cache_off() {
    let c = Cached::new().await;
    let id = c.sheet("Budget", rows(2));
    let set = c.ok("set_cache_ttl", json!({ "ttl_seconds": 0 })).await;
    assert_eq!(set["enabled"], false);
    c.ok("get_sheet_data", read(&id)).await;
    let fetched = c.sheets_calls();
    c.ok("get_sheet_data", read(&id)).await;
    assert!(c.sheets_calls() > fetched, "the second read fetched again");
    assert_eq!(c.version_checks(&id), 0, "no version check without a cache");
    assert_eq!(c.ok("refresh_cache", json!({})).await["dropped"], 0, "nothing was kept");
}

#[tokio::test]
async fn the_ttl_is_a_saved_setting_that_survives_a_restart() {
    let c = Cached::new().await;
    let got = c.ok("get_cache_ttl", json!({})).await;
    assert_eq!((got["ttl_seconds"].as_u64(), got["source"].as_str()), (Some(300), Some("default")));
    c.ok("set_cache_ttl", json!({ "ttl_seconds": 120 })).await;
    let got = c.ok("get_cache_ttl", json!({})).await;
    assert_eq!((got["ttl_seconds"].as_u64(), got["source"].as_str()), (Some(120), Some("person")));

    // Gatehouse restarts: a new store handle and a new engine on the same file.
    c.store.close().await;
    let store = open(&c.h).await;
    let restarted = engine(&c.h, &store, |_| {});
    let (got, _) = call(&restarted, "get_cache_ttl", json!({})).await;
    assert_eq!((got["ttl_seconds"].as_u64(), got["source"].as_str()), (Some(120), Some("person")));
    let view = gatehouse_core::settings::PersonSettings::load(&store).await.expect("settings");
    assert_eq!(view.cache_ttl, Some(std::time::Duration::from_secs(120)));

    for bad in [json!(-1), json!(86_401)] {
        let (text, is_error) = call(&restarted, "set_cache_ttl", json!({ "ttl_seconds": bad })).await;
        assert!(is_error, "{bad} was accepted");
        let text = text.as_str().unwrap_or_default().to_owned();
        assert!(text.contains("ttl_seconds") && text.contains("86400"), "{text}");
    }
    let (text, is_error) = call(&restarted, "set_cache_ttl", json!({ "ttl_seconds": "soon" })).await;
    assert!(is_error && text.to_string().contains("ttl_seconds"), "{text}");
}

#[tokio::test]
async fn the_response_cap_applies_to_a_kept_answer() {
    let c = Cached::new().await;
    let id = c.sheet("Big", rows(1_000));
    c.ok("get_sheet_data", read(&id)).await;
    let kept = c.ok("get_sheet_data", read(&id)).await;
    let size = kept.to_string().chars().count();
    assert!(size > 12_000, "{size}");

    // The same store under a smaller cap: its second read is answered from what the first engine kept, and
    // refused, with the cap's own advice.
    let small = engine(&c.h, &c.store, |config| config.max_response_chars = 10_000);
    let (_, is_error) = call(&small, "get_sheet_data", read(&id)).await;
    assert!(is_error, "over the cap");
    let fetched = c.sheets_calls();
    let (text, is_error) = call(&small, "get_sheet_data", read(&id)).await;
    assert!(is_error, "a kept answer over the cap was served");
    let text = text.as_str().unwrap_or_default().to_owned();
    assert!(text.contains("MAX_TOOL_RESPONSE_CHARS") && text.contains("10000"), "{text}");
    assert_eq!(c.sheets_calls(), fetched, "the refused answer came from the cache");
}

#[tokio::test]
async fn an_answer_over_the_cap_is_not_kept() {
    let c = Cached::new().await;
    let small = engine(&c.h, &c.store, |config| config.max_response_chars = 10_000);
    let id = c.sheet("Big", rows(1_000));
    for _ in 0..2 {
        let (_, is_error) = call(&small, "get_sheet_data", read(&id)).await;
        assert!(is_error);
    }
    assert_eq!(c.ok("refresh_cache", json!({})).await["dropped"], 0);
}

#[tokio::test]
async fn refresh_cache_drops_the_named_targets_or_everything() {
    let c = Cached::new().await;
    let (a, b) = (c.sheet("A", rows(2)), c.sheet("B", rows(2)));
    let doc = c.h.google.world().create_document("Notes", "Hello cache", &c.h.owner());
    let folder = c.h.google.world().drive.create_folder("Team", None, &c.h.owner());
    c.h.google.world().drive.set_parent(&b, &folder);
    // Each read twice: the second keeps its answer.
    for _ in 0..2 {
        c.ok("get_sheet_data", read(&a)).await;
        c.ok("list_sheets", json!({ "spreadsheet_id": a })).await;
        c.ok("get_sheet_data", read(&b)).await;
        c.ok("get_doc_content", json!({ "file_id": doc })).await;
        c.ok("get_doc_structure", json!({ "doc_id": doc })).await;
    }

    let got = c.ok("refresh_cache", json!({ "spreadsheet_id": a })).await;
    assert_eq!(got["dropped"], 2, "{got}");
    let fetched = c.sheets_calls();
    c.ok("get_sheet_data", read(&a)).await;
    assert!(c.sheets_calls() > fetched, "A is read afresh");

    assert_eq!(c.ok("refresh_cache", json!({ "calendar_id": "primary" })).await["dropped"], 0);
    assert_eq!(c.ok("refresh_cache", json!({ "folder_id": folder })).await["dropped"], 1, "B is in the folder");
    assert_eq!(c.ok("refresh_cache", json!({ "doc_id": doc })).await["dropped"], 2);
    let all = c.ok("refresh_cache", json!({ "spreadsheet_id": null, "doc_id": null })).await;
    assert_eq!(all["dropped"], 1, "{all}");
    let (text, is_error) = c.call("refresh_cache", json!({ "doc_id": " " })).await;
    assert!(is_error && text.to_string().contains("empty"), "{text}");
}

/// Derivation: every cached tool is a read whose named argument is a required string, the file id the
/// cache checks; and the cache's own tools declare no Google scope.
#[test]
fn every_cached_tool_is_a_read_of_one_named_file() {
    let mut cached = Vec::new();
    for tool in all_tools() {
        let meta = &tool.meta;
        if meta.service.label() == "Cache" {
            assert!(meta.scope.is_none(), "{} makes no Google call", meta.name);
        }
        let Some(argument) = meta.cached_from else { continue };
        cached.push(meta.name);
        assert_eq!(meta.access, Access::Read, "{} is cached but not a read", meta.name);
        let schema = tool.input_schema();
        let required = schema.get("required").and_then(Value::as_array).cloned().unwrap_or_default();
        assert!(required.contains(&json!(argument)), "{}: {argument} is not required", meta.name);
        let property = &schema["properties"][argument];
        assert_eq!(property["type"], "string", "{}: {argument} is not a string id", meta.name);
    }
    assert!(cached.contains(&"get_sheet_data") && cached.contains(&"get_doc_content"), "{cached:?}");
}

#[tokio::test]
async fn without_a_drive_scope_drive_is_not_asked_and_nothing_is_kept() {
    let c = Cached::new().await;
    let id = c.sheet("Budget", rows(2));
    let sheets_only = vec!["https://www.googleapis.com/auth/spreadsheets".to_owned()];
    let auth = c.engine.auth().current();
    c.engine.auth().set(gatehouse_core::auth::state::AuthSnapshot { granted_scopes: Some(sheets_only), ..auth });
    c.ok("get_sheet_data", read(&id)).await;
    c.ok("get_sheet_data", read(&id)).await;
    assert_eq!(c.version_checks(&id), 0, "no files.get the sign-in can't make");
    assert_eq!(c.ok("refresh_cache", json!({})).await["dropped"], 0, "nothing was kept");
}
