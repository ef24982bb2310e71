//! Tool sets: derived from the declarations, read from a comma list with plain errors, and applied per
//! assistant — an HTTP assistant's token (rmcp's HTTP client against `mcp::http::serve`, a real store, the
//! Google emulator behind) and a relayed `gatehouse serve --tools` (the control socket's `call`).

use crate::store_engine;

use std::collections::BTreeSet;
use std::sync::Arc;

use chrono::Utc;
use gatehouse_core::approval::store::{DATABASE_FILE, Store};
use gatehouse_core::engine::Reply;
use gatehouse_core::tools::sets::{self, SetError, ToolSelection};
use gatehouse_core::tools::{Access, all_tools};
use gatehouse_core::{Engine, mcp};
use google_fake::{FakeGoogle, Identity};
use rmcp::model::{CallToolRequestParams, CallToolResult, ClientCapabilities, ClientConfig, Implementation};
use rmcp::service::RunningService;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

const USER: &str = "ada@example.com";
const SERVER_TOKEN: &str = "the-servers-own-token";

// --- Derivation -------------------------------------------------------------------------------------------

#[test]
fn every_tool_is_in_all_in_its_products_set_and_reads_alone_in_its_read_set() {
    let metas: Vec<_> = all_tools().into_iter().map(|tool| tool.meta).collect();
    let sets = sets::named_sets(&metas);
    let set = |name: &str| -> BTreeSet<&str> {
        sets.iter()
            .find(|set| set.name == name)
            .unwrap_or_else(|| panic!("no set {name}"))
            .tools
            .iter()
            .copied()
            .collect()
    };
    assert_eq!(sets[0].name, sets::ALL);
    assert_eq!(set("all"), metas.iter().map(|meta| meta.name).collect::<BTreeSet<_>>());
    // Only a product that Google's MCP servers alone serve (Slides) has sets holding none of Gatehouse's tools.
    for named in &sets {
        let google_only = named.name.starts_with("slides");
        assert_eq!(named.tools.is_empty(), google_only, "the set {}", named.name);
    }
    for meta in &metas {
        let key = meta.service.key();
        assert!(set(&key).contains(meta.name), "{} is not in {key}", meta.name);
        let in_reads = set(&format!("{key}-read")).contains(meta.name);
        assert_eq!(in_reads, matches!(meta.access, Access::Read), "{} and {key}-read", meta.name);
    }
    // Only the sets the rule names: all, and each product's two.
    let services: BTreeSet<_> = metas.iter().map(|meta| meta.service.key()).collect();
    let expected: BTreeSet<String> = std::iter::once("all".to_owned())
        .chain(services.iter().flat_map(|key| [key.clone(), format!("{key}-read")]))
        .chain(["slides".to_owned(), "slides-read".to_owned()])
        .collect();
    assert_eq!(sets.iter().map(|set| set.name.clone()).collect::<BTreeSet<_>>(), expected);
    for name in ["sheets", "sheets-read", "drive", "drive-read", "docs", "docs-read"] {
        assert!(expected.contains(name), "{name}");
    }
}

#[test]
fn a_selection_takes_sets_and_tool_names_and_is_written_back_tidily() {
    let selection = ToolSelection::parse(" Sheets-Read , create_doc,").unwrap();
    assert_eq!(selection.spec(), "Sheets-Read,create_doc");
    assert!(selection.allows("get_sheet_data") && selection.allows("create_doc"));
    assert!(!selection.allows("update_cells"), "a write is not in sheets-read");
    assert!(!selection.allows("get_doc_content"), "a Docs read is not in sheets-read");
    let all = ToolSelection::parse("all").unwrap();
    assert!(all_tools().iter().all(|tool| all.allows(tool.meta.name)));
    // Kept for an assistant, `all` is no selection: it is then offered the tools later versions add too.
    assert_eq!(ToolSelection::parse_kept("docs,ALL").unwrap(), None);
    assert_eq!(ToolSelection::parse_kept("docs").unwrap().map(|kept| kept.spec().to_owned()), Some("docs".into()));
    assert!(ToolSelection::parse_kept("doc").is_err());
}

#[test]
fn unknown_or_missing_sets_are_refused_naming_them_and_the_valid_sets() {
    let error = ToolSelection::parse("sheets,sheet-read,frobnicate").unwrap_err();
    let SetError::Unknown { names, .. } = &error else { panic!("{error:?}") };
    assert_eq!(names, "“sheet-read”, “frobnicate”");
    let words = error.to_string();
    assert!(words.starts_with("“sheet-read”, “frobnicate” are not a tool set or a tool of Gatehouse."), "{words}");
    for valid in ["all", "sheets", "sheets-read", "drive", "drive-read", "docs", "docs-read"] {
        assert!(words.contains(valid), "{valid} missing from: {words}");
    }
    let one = ToolSelection::parse("nope").unwrap_err().to_string();
    assert!(one.starts_with("“nope” is not a tool set"), "{one}");
    for empty in ["", " , ,"] {
        let error = ToolSelection::parse(empty).unwrap_err();
        assert!(matches!(error, SetError::Empty { .. }), "{empty:?}");
        assert!(error.to_string().contains("sheets-read"), "{error}");
    }
}

#[test]
fn a_smaller_set_lists_in_fewer_bytes() {
    let tools = all_tools();
    let within = |name: &str| {
        let selection = ToolSelection::parse(name).unwrap();
        let chosen: Vec<_> = tools.iter().filter(|tool| selection.allows(tool.meta.name)).cloned().collect();
        sets::list_size(&chosen).unwrap()
    };
    let (all, sheets, reads) = (within("all"), within("sheets"), within("sheets-read"));
    assert!(all > sheets && sheets > reads && reads > 0, "all {all}, sheets {sheets}, sheets-read {reads}");
}

// --- Per assistant, over HTTP ------------------------------------------------------------------------------

struct Setup {
    google: FakeGoogle,
    home: tempfile::TempDir,
    engine: Arc<Engine>,
    store: Store,
    url: String,
    sheet: String,
    cancel: CancellationToken,
}

impl Drop for Setup {
    fn drop(&mut self) {
        self.cancel.cancel();
    }
}

async fn setup(enabled: Option<&[&str]>) -> Setup {
    let google = FakeGoogle::start().await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let sheet =
        google.world().create_spreadsheet("Budget", &[("Sales", vec![vec![json!("a")]])], &Identity::user(USER));
    let (engine, store) = store_engine::engine_over_store(&google, home.path(), USER, |config| {
        config.enabled_tools = enabled.map(|names| names.iter().map(|name| (*name).to_owned()).collect())
    })
    .await;
    let listener = mcp::http::bind("127.0.0.1:0".parse().unwrap()).await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let cancel = CancellationToken::new();
    tokio::spawn(mcp::http::serve(Arc::clone(&engine), listener, SERVER_TOKEN, cancel.clone()));
    Setup { google, home, engine, store, url, sheet, cancel }
}

type Client = RunningService<RoleClient, ClientConfig>;

async fn connect(setup: &Setup, token: &str) -> Client {
    let mut config = StreamableHttpClientTransportConfig::with_uri(setup.url.as_str());
    config.auth_header = Some(token.to_owned());
    let transport = StreamableHttpClientTransport::with_client(reqwest::Client::new(), config);
    let info = ClientConfig::new(ClientCapabilities::default(), Implementation::new("some-client", "1"));
    info.serve(transport).await.unwrap()
}

async fn listed(client: &Client) -> BTreeSet<String> {
    client.peer().list_all_tools().await.unwrap().into_iter().map(|tool| tool.name.to_string()).collect()
}

fn names_in(spec: &str) -> BTreeSet<String> {
    let selection = ToolSelection::parse(spec).unwrap();
    all_tools().iter().filter(|tool| selection.allows(tool.meta.name)).map(|tool| tool.meta.name.to_owned()).collect()
}

fn arguments(value: Value) -> serde_json::Map<String, Value> {
    let Value::Object(map) = value else { unreachable!() };
    map
}

async fn call(client: &Client, tool: &str, args: Value) -> CallToolResult {
    client.peer().call_tool(CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments(args))).await.unwrap()
}

fn text(result: &CallToolResult) -> String {
    result.content.iter().find_map(|block| block.as_text().map(|t| t.text.clone())).unwrap_or_default()
}

fn cell_b1(setup: &Setup) -> String {
    let values = setup.google.world().sheets.values(&setup.sheet, "Sales");
    values.first().and_then(|row| row.get(1)).cloned().unwrap_or_default()
}

#[tokio::test]
async fn an_assistants_token_is_offered_only_its_set_and_a_call_outside_it_is_refused_saying_how_to_change_it() {
    let setup = setup(None).await;
    let reader = setup.store.add_assistant("reader", true, Utc::now()).await.unwrap();
    let everything = setup.store.add_assistant("everything", true, Utc::now()).await.unwrap();
    let selection = ToolSelection::parse("sheets-read").unwrap();
    assert!(setup.store.set_assistant_tools(&reader.assistant.id, Some(selection.spec())).await.unwrap());

    let client = connect(&setup, &reader.token).await;
    assert_eq!(listed(&client).await, names_in("sheets-read"));
    let other = connect(&setup, &everything.token).await;
    assert_eq!(listed(&other).await, names_in("all"), "an assistant without a set is offered every tool");

    // A read in the set runs; a write outside it is refused before anyone is asked, and nothing is written.
    let read = call(&client, "get_sheet_data", json!({ "spreadsheet_id": setup.sheet, "sheet": "Sales" })).await;
    assert!(!read.is_error.unwrap_or(false), "{}", text(&read));
    let write = json!({ "spreadsheet_id": setup.sheet, "sheet": "Sales", "range": "B1", "data": [["no"]] });
    let refused = call(&client, "update_cells", write).await;
    assert!(refused.is_error.unwrap_or(false));
    let words = text(&refused);
    assert!(words.contains("update_cells is not among the tools this assistant is offered"), "{words}");
    assert!(
        words.contains("“sheets-read”") && words.contains("“reader”") && words.contains("Assistants page"),
        "{words}"
    );
    assert!(setup.engine.approvals().broker().pending().is_empty(), "nobody is asked about a refused tool");
    assert_eq!(cell_b1(&setup), "");

    // Changing the set takes effect at the assistant's next request, on the same connection.
    let wider = ToolSelection::parse("sheets-read,update_cells").unwrap();
    assert!(setup.store.set_assistant_tools(&reader.assistant.id, Some(wider.spec())).await.unwrap());
    assert_eq!(listed(&client).await, names_in("sheets-read,update_cells"));
    assert!(setup.store.set_assistant_tools(&reader.assistant.id, None).await.unwrap());
    assert_eq!(listed(&client).await, names_in("all"));
    assert_eq!(setup.store.get_assistant(&reader.assistant.id).await.unwrap().unwrap().tools, None);

    // The set is kept in the database: another store on the same file reads it.
    assert!(setup.store.set_assistant_tools(&reader.assistant.id, Some(selection.spec())).await.unwrap());
    let stored = setup.store.list_assistants().await.unwrap();
    let stored = stored.iter().find(|assistant| assistant.name == "reader").unwrap();
    assert_eq!(stored.tools.as_deref(), Some("sheets-read"));
    client.cancel().await.unwrap();
    other.cancel().await.unwrap();
}

#[tokio::test]
async fn enabled_tools_stay_the_upper_bound_of_an_assistants_set() {
    let setup = setup(Some(&["list_sheets", "get_sheet_data", "update_cells", "create_doc"])).await;
    let added = setup.store.add_assistant("reader", true, Utc::now()).await.unwrap();
    let selection = ToolSelection::parse("sheets-read,create_folder").unwrap();
    setup.store.set_assistant_tools(&added.assistant.id, Some(selection.spec())).await.unwrap();
    let client = connect(&setup, &added.token).await;
    let expected: BTreeSet<String> = ["list_sheets", "get_sheet_data"].map(String::from).into();
    assert_eq!(listed(&client).await, expected, "only what both ENABLED_TOOLS and the set take");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_revoked_assistants_set_cannot_be_changed() {
    let setup = setup(None).await;
    let added = setup.store.add_assistant("gone", true, Utc::now()).await.unwrap();
    assert!(setup.store.revoke_assistant(&added.assistant.id, Utc::now()).await.unwrap());
    let selection = ToolSelection::parse("docs").unwrap();
    assert!(!setup.store.set_assistant_tools(&added.assistant.id, Some(selection.spec())).await.unwrap());
    assert!(!setup.store.set_assistant_tools("no-such-id", Some(selection.spec())).await.unwrap());
}

// --- A relayed assistant's set reaches the host ------------------------------------------------------------

#[cfg(unix)]
#[tokio::test]
async fn the_host_refuses_a_relayed_call_outside_the_relays_set() {
    let setup = setup(None).await;
    let home = setup.home.path().to_owned();
    let _control =
        gatehouse_core::control::serve(Arc::clone(&setup.engine), &home, CancellationToken::new()).await.unwrap();
    let mut clients = gatehouse_core::control::Client::connect_all(&home).await.unwrap();
    let mut host = clients.remove(0);
    let write = arguments(json!({ "spreadsheet_id": setup.sheet, "sheet": "Sales", "range": "B1", "data": [["no"]] }));
    let Reply { text, is_error, .. } =
        host.call_within("update_cells", Some(write), Default::default(), Some("sheets-read".into())).await.unwrap();
    assert!(is_error);
    assert!(text.contains("update_cells is not among") && text.contains("--tools sheets-read"), "{text}");
    assert_eq!(cell_b1(&setup), "");
    let read = arguments(json!({ "spreadsheet_id": setup.sheet, "sheet": "Sales" }));
    let mut host = gatehouse_core::control::Client::connect_all(&home).await.unwrap().remove(0);
    let Reply { text, is_error, .. } =
        host.call_within("get_sheet_data", Some(read), Default::default(), Some("sheets-read".into())).await.unwrap();
    assert!(!is_error, "{text}");
}

#[tokio::test]
async fn a_stored_set_this_version_does_not_know_is_said_on_listing_not_served_wide_open() {
    let setup = setup(None).await;
    let added = setup.store.add_assistant("old", true, Utc::now()).await.unwrap();
    // As an older or newer Gatehouse could have left it: a tool this build does not have.
    let pool = sqlx::SqlitePool::connect(&format!("sqlite://{}", setup.home.path().join(DATABASE_FILE).display()))
        .await
        .unwrap();
    sqlx::query("UPDATE assistants SET tool_set = 'sheets-read,retired_tool' WHERE id = ?1")
        .bind(&added.assistant.id)
        .execute(&pool)
        .await
        .unwrap();
    pool.close().await;
    setup.store.sync_index().await.unwrap();

    let client = connect(&setup, &added.token).await;
    let error = client.peer().list_all_tools().await.unwrap_err().to_string();
    assert!(error.contains("The tool set of the assistant “old” no longer fits"), "{error}");
    assert!(error.contains("“retired_tool” is not a tool set") && error.contains("gatehouse assistants tools old"));
    let call = client
        .peer()
        .call_tool(CallToolRequestParams::new("get_sheet_data").with_arguments(arguments(json!({}))))
        .await
        .unwrap_err()
        .to_string();
    assert!(call.contains("no longer fits"), "{call}");
    client.cancel().await.unwrap();
}
