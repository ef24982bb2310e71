//! Google's tools that no Gatehouse tool covers (issue 17, item 2), discovered on the emulator's MCP servers
//! while Gatehouse runs and offered as `google_P_T`: a real rmcp client (in process, with a session, as over
//! stdio) lists and calls them, hears `notifications/tools/list_changed` when one appears, and a write of one
//! waits on Gatehouse's card; a tool Google always asks about is carded by Google's form alone. Grants are tied
//! to Google's definitions (item 1: a changed definition asks again), for discovered and routed tools alike.

use std::sync::Arc;
use std::time::Duration;

use gatehouse_core::Engine;
use gatehouse_core::approval::broker::PendingCard;
use gatehouse_core::approval::card::{RawAnswer, RawChoice};
use gatehouse_core::approval::model::Verdict;
use gatehouse_core::approval::policy::Policy;
use gatehouse_core::approval::store::Store;
use gatehouse_core::config::GoogleBackend;
use gatehouse_core::engine::Reply;
use gatehouse_core::mcp::McpServer;
use gatehouse_core::tools::Access;
use gatehouse_core::tools::sets::ToolSelection;
use google_fake::mcp::Product as Emulated;
use google_fake::{FakeGoogle, Identity};
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::{NotificationContext, RunningService};
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::{Value, json};
use tokio::sync::mpsc;

use crate::store_engine;

const USER: &str = "ada@example.com";

/// A client that tells the test of every `notifications/tools/list_changed`.
struct Watcher(mpsc::UnboundedSender<()>);

impl ClientHandler for Watcher {
    async fn on_tool_list_changed(&self, _: NotificationContext<RoleClient>) {
        let _ = self.0.send(());
    }
}

type Client = RunningService<RoleClient, Watcher>;

struct Setup {
    google: FakeGoogle,
    home: tempfile::TempDir,
    engine: Arc<Engine>,
    store: Store,
}

/// An engine on `both` over a store, against the emulator, whose servers ask for their lists to be read
/// again after 200 ms (`ttlMs`), so a change there is seen within a second or so.
async fn setup_with(policy: Policy, adjust: impl FnOnce(&mut gatehouse_core::config::Config)) -> Setup {
    let google = FakeGoogle::start().await.expect("the emulator starts");
    google.world().mcp.changes.set_list_ttl(Some(200));
    let home = tempfile::tempdir().expect("a home");
    let (engine, store) = store_engine::engine_over_store_with(&google, home.path(), USER, policy, |config| {
        config.google_backend = GoogleBackend::Both;
        adjust(config);
    })
    .await;
    Setup { google, home, engine, store }
}

async fn setup() -> Setup {
    setup_with(Policy::default(), |_| {}).await
}

/// A real rmcp client of `engine`'s MCP server, connected in process (`initialize`, a session).
async fn connect(engine: &Arc<Engine>) -> (Client, mpsc::UnboundedReceiver<()>) {
    connect_to(McpServer::new(Arc::clone(engine))).await
}

/// A real rmcp client of `server`, connected in process.
async fn connect_to(server: McpServer) -> (Client, mpsc::UnboundedReceiver<()>) {
    let (server_io, client_io) = tokio::io::duplex(256 * 1024);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    let (tx, changes) = mpsc::unbounded_channel();
    let client = Watcher(tx).serve(client_io).await.expect("the client connects");
    (client, changes)
}

async fn names(client: &Client) -> Vec<String> {
    client.peer().list_all_tools().await.expect("tools/list").into_iter().map(|tool| tool.name.to_string()).collect()
}

/// Waits for `notifications/tools/list_changed` (20 s each) until the list the client reads then is what
/// `wanted` looks for: a notification of an earlier change may still be on its way, so the one that matters
/// is the one followed by such a list.
async fn told_until(client: &Client, changes: &mut mpsc::UnboundedReceiver<()>, wanted: impl Fn(&[String]) -> bool) {
    loop {
        tokio::time::timeout(Duration::from_secs(20), changes.recv())
            .await
            .expect("notifications/tools/list_changed within 20 s")
            .expect("the client is still connected");
        if wanted(&names(client).await) {
            return;
        }
    }
}

fn object(value: Value) -> serde_json::Map<String, Value> {
    match value {
        Value::Object(map) => map,
        other => panic!("arguments are an object, not {other}"),
    }
}

async fn call(client: &Client, tool: &str, args: Value) -> CallToolResult {
    let params = CallToolRequestParams::new(tool.to_owned()).with_arguments(object(args));
    client.peer().call_tool(params).await.expect("tools/call")
}

fn text(result: &CallToolResult) -> String {
    result.content.iter().find_map(|block| block.as_text().map(|t| t.text.clone())).unwrap_or_default()
}

/// The next card `engine` shows while `call` runs (waits up to 20 s); a call that ended first fails the test.
async fn next_card<T: std::fmt::Debug>(engine: &Engine, call: &mut tokio::task::JoinHandle<T>) -> PendingCard {
    for _ in 0..2000 {
        if let Some(card) = engine.approvals().broker().pending().into_iter().next() {
            return card;
        }
        if call.is_finished() {
            let ended = call.await.expect("the call ends");
            panic!("the call ended with no card: {ended:?}");
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("no card appeared");
}

/// The engine's call of `tool`, on its own task (so a card can be answered while it waits).
fn start(engine: &Arc<Engine>, tool: &'static str, args: Value) -> tokio::task::JoinHandle<Reply> {
    let engine = Arc::clone(engine);
    tokio::spawn(async move { engine.call(tool, Some(object(args))).await.expect("a known tool") })
}

fn always_for_any() -> RawAnswer {
    RawAnswer::Always(RawChoice { scope: "TOOL".into(), days: "1".into(), limit: "ANY".into() })
}

#[tokio::test]
async fn an_assistant_lists_and_calls_googles_own_tools_hears_when_they_change_and_a_write_waits_on_a_card() {
    let s = setup().await;
    let sheet =
        s.google.world().create_spreadsheet("Budget", &[("Sheet1", vec![vec![json!("a")]])], &Identity::user(USER));
    s.google.world().mcp.changes.hide_tool(Emulated::Sheets, "get_spreadsheet");
    let (client, mut changes) = connect(&s.engine).await;

    let listed = names(&client).await;
    for offered in ["google_drive_create_file", "google_drive_get_file_metadata", "google_calendar_update_event"] {
        assert!(listed.iter().any(|name| name == offered), "{offered} is offered: {listed:?}");
    }
    assert!(!listed.iter().any(|name| name == "google_sheets_get_values"), "get_sheet_data covers it: {listed:?}");
    assert!(!listed.iter().any(|name| name == "google_sheets_get_spreadsheet"), "hidden on Google's server");
    assert!(listed.iter().any(|name| name == "get_sheet_data"), "Gatehouse's own tools stay");
    let tools = client.peer().list_all_tools().await.expect("tools/list");
    let metadata = tools.iter().find(|tool| tool.name == "google_drive_get_file_metadata").expect("listed");
    assert_eq!(metadata.annotations.as_ref().and_then(|hints| hints.read_only_hint), Some(true));
    assert!(metadata.output_schema.is_some(), "Google's output schema comes along");
    assert!(metadata.description.as_deref().unwrap_or("").contains("Google's tool get_file_metadata"));
    let metadata_schema = serde_json::to_value(metadata.input_schema.as_ref()).expect("schema");
    assert!(metadata_schema["properties"]["local_path"].is_object(), "a read takes local_path: {metadata_schema}");

    // Added on Google's server while Gatehouse runs: the client is told, and lists it.
    s.google.world().mcp.changes.show_tool(Emulated::Sheets, "get_spreadsheet");
    told_until(&client, &mut changes, |listed| listed.iter().any(|name| name == "google_sheets_get_spreadsheet")).await;

    // A read: Google's structuredContent passes through, its text stays the first block.
    let read = call(&client, "google_sheets_get_spreadsheet", json!({ "spreadsheetId": sheet })).await;
    assert_ne!(read.is_error, Some(true), "{}", text(&read));
    let structured = read.structured_content.as_ref().expect("structuredContent passed through");
    assert_eq!(structured["properties"]["title"], "Budget", "{structured}");
    let first: Value = serde_json::from_str(&text(&read)).expect("the text is Google's JSON");
    assert_eq!(&first, structured);

    // A write Google does not ask about: Gatehouse's own card first.
    let peer = client.peer().clone();
    let mut write = tokio::spawn(async move {
        let args = object(json!({ "title": "Notes", "contentMimeType": "application/vnd.google-apps.document" }));
        peer.call_tool(CallToolRequestParams::new("google_drive_create_file").with_arguments(args)).await
    });
    let card = next_card(&s.engine, &mut write).await;
    assert_eq!(card.tool, "google_drive_create_file");
    assert_eq!(card.title, "Create file");
    assert!(card.form.is_none(), "Gatehouse's own card, not a form of Google's");
    s.engine.approvals().broker().answer(card.id, RawAnswer::AllowOnce).expect("Allow once");
    let created = write.await.expect("the call ends").expect("tools/call");
    assert_ne!(created.is_error, Some(true), "{}", text(&created));
    let id = created.structured_content.as_ref().and_then(|file| file["id"].as_str()).expect("the new file's id");
    let file = call(&client, "google_drive_get_file_metadata", json!({ "fileId": id })).await;
    assert_eq!(file.structured_content.as_ref().map(|file| file["title"].clone()), Some(json!("Notes")));

    let audit = s.store.list_audit(&Default::default()).await.expect("the audit log");
    let record = audit.iter().find(|record| record.entry.tool == "google_drive_create_file").expect("recorded");
    assert_eq!((record.entry.verdict, record.entry.source.to_string()), (Verdict::Allowed, "person".to_owned()));
    client.cancel().await.expect("the client ends");
}

/// An assistant whose `gatehouse serve` relays to the host (the desktop app) hears of Google's tools changing
/// as the host's own clients do: the relay reads the host's list again and tells its client, for a tool that
/// appears and for one that goes away.
#[cfg(unix)]
#[tokio::test]
async fn a_relayed_assistant_hears_when_googles_tools_change_on_the_host_and_lists_them() {
    use gatehouse_core::mcp::backend::Backend as _;
    let s = setup().await;
    s.google.world().mcp.changes.hide_tool(Emulated::Sheets, "get_spreadsheet");
    let home = s.home.path().to_owned();
    let cancel = tokio_util::sync::CancellationToken::new();
    let control = gatehouse_core::control::serve(Arc::clone(&s.engine), &home, cancel.clone()).await.expect("control");
    control.accept_relays();
    let relay = gatehouse_core::mcp::relay::Relay::connect(home).await.expect("the host answers").expect("a host");
    assert!(relay.tools_change(), "the host discovers Google's tools, so the relay offers list_changed");
    let (client, mut changes) = connect_to(McpServer::with_backend(Arc::new(relay))).await;
    let offers = |listed: &[String], name: &str| listed.iter().any(|offered| offered == name);

    let listed = names(&client).await;
    assert!(offers(&listed, "google_drive_create_file"), "the host's discovered tools are listed: {listed:?}");
    assert!(offers(&listed, "get_sheet_data"), "and Gatehouse's own");
    assert!(!offers(&listed, "google_sheets_get_spreadsheet"), "hidden on Google's server");

    // Added on Google's server while the host runs: the relayed client is told, and lists it.
    s.google.world().mcp.changes.show_tool(Emulated::Sheets, "get_spreadsheet");
    told_until(&client, &mut changes, |listed| offers(listed, "google_sheets_get_spreadsheet")).await;
    let sheet =
        s.google.world().create_spreadsheet("Budget", &[("Sheet1", vec![vec![json!("a")]])], &Identity::user(USER));
    let read = call(&client, "google_sheets_get_spreadsheet", json!({ "spreadsheetId": sheet })).await;
    assert_ne!(read.is_error, Some(true), "the new tool runs through the host: {}", text(&read));

    // Removed again: told again, and gone from the list.
    s.google.world().mcp.changes.hide_tool(Emulated::Sheets, "get_spreadsheet");
    told_until(&client, &mut changes, |listed| !offers(listed, "google_sheets_get_spreadsheet")).await;
    client.cancel().await.expect("the client ends");
    cancel.cancel();
}

#[tokio::test]
async fn a_tool_google_always_asks_about_is_carded_by_googles_form_alone() {
    let s = setup().await;
    let event = json!({ "calendarId": "primary", "summary": "Tea", "startTime": "2026-12-10T10:00:00Z", "endTime": "2026-12-10T11:00:00Z" });
    let mut create = start(&s.engine, "google_calendar_create_event", event);
    let card = next_card(&s.engine, &mut create).await;
    assert!(card.form.is_none(), "create_event is on /mcp/v1self: Gatehouse decides it");
    s.engine.approvals().broker().answer(card.id, RawAnswer::AllowOnce).expect("Allow once");
    let created = create.await.expect("the call ends");
    assert!(!created.is_error, "{}", created.text);
    let id = serde_json::from_str::<Value>(&created.text).expect("JSON")["id"].as_str().expect("an id").to_owned();

    let tool = s.engine.tool("google_calendar_update_event").expect("offered");
    assert!(matches!(tool.meta.access, Access::Write(_)));
    let change = json!({ "calendarId": "primary", "eventId": id, "summary": "Coffee" });
    let mut declined = start(&s.engine, "google_calendar_update_event", change.clone());
    let card = next_card(&s.engine, &mut declined).await;
    let form = card.form.as_ref().expect("Google's form is the card");
    assert!(!form.google_asks_too, "Gatehouse did not card it first");
    s.engine.approvals().broker().answer(card.id, RawAnswer::Deny).expect("Deny declines");
    let reply = declined.await.expect("the call ends");
    assert!(reply.is_error, "{}", reply.text);

    let mut accepted = start(&s.engine, "google_calendar_update_event", change);
    let card = next_card(&s.engine, &mut accepted).await;
    assert!(card.form.is_some());
    s.engine.approvals().broker().answer(card.id, RawAnswer::Form(Default::default())).expect("accepted");
    let reply = accepted.await.expect("the call ends");
    assert!(!reply.is_error, "{}", reply.text);
    let updated: Value = serde_json::from_str(&reply.text).expect("JSON");
    assert_eq!(updated["summary"], "Coffee", "{updated}");
}

/// A tool Google lists as one it always asks about (so Gatehouse leaves its calls to Google's form) whose
/// server then runs a call without asking: that is not taken as the person's approval again. Gatehouse cards
/// the tool itself from then on, and a Deny there leaves the event as it was.
#[tokio::test]
async fn a_tool_google_ran_without_its_form_is_carded_by_gatehouse_from_then_on() {
    let s = setup().await;
    let event = json!({ "summary": "Tea", "start": { "dateTime": "2026-12-10T10:00:00Z" }, "end": { "dateTime": "2026-12-10T11:00:00Z" } });
    let id = s.google.world().calendar.add_event(USER, &Identity::user(USER), event).expect("an event");
    s.google.world().mcp.changes.stop_asking(Emulated::Calendar, "update_event");
    let summary = |s: &Setup| s.google.world().calendar.event_json(USER, &id).expect("the event")["summary"].clone();

    // Left to Google's form, which does not come: the call ran at Google unasked.
    let change = |summary: &str| json!({ "calendarId": USER, "eventId": id, "summary": summary });
    let unasked = start(&s.engine, "google_calendar_update_event", change("Coffee")).await.expect("the call ends");
    assert!(!unasked.is_error, "{}", unasked.text);
    assert_eq!(summary(&s), json!("Coffee"), "Google ran it without a form");

    // From then on Gatehouse's own card decides it first.
    let mut next = start(&s.engine, "google_calendar_update_event", change("Juice"));
    let card = next_card(&s.engine, &mut next).await;
    assert!(card.form.is_none(), "Gatehouse's own card, not a form of Google's");
    s.engine.approvals().broker().answer(card.id, RawAnswer::Deny).expect("Deny");
    let denied = next.await.expect("the call ends");
    assert!(denied.is_error, "{}", denied.text);
    assert_eq!(summary(&s), json!("Coffee"), "nothing reached Google after the Deny");
}

#[tokio::test]
async fn a_grant_of_a_discovered_tool_no_longer_covers_it_once_google_changes_its_definition() {
    let s = setup().await;
    let file = |name: &str| json!({ "name": name, "mimeType": "application/vnd.google-apps.folder" });
    let mut first = start(&s.engine, "google_drive_create_file", file("One"));
    let card = next_card(&s.engine, &mut first).await;
    s.engine.approvals().broker().answer(card.id, always_for_any()).expect("Always allow");
    assert!(!first.await.expect("the call ends").is_error);

    let covered = s.engine.call("google_drive_create_file", Some(object(file("Two")))).await.expect("known");
    assert!(!covered.is_error, "the grant covers the next call, no card: {}", covered.text);

    s.google.world().mcp.changes.describe_tool(Emulated::Drive, "create_file", "Creates a file, and now more.");
    tokio::time::sleep(Duration::from_millis(300)).await;
    let mut asked = start(&s.engine, "google_drive_create_file", file("Three"));
    let card = next_card(&s.engine, &mut asked).await;
    assert_eq!(card.tool, "google_drive_create_file", "Google changed the tool: the person is asked again");
    s.engine.approvals().broker().answer(card.id, RawAnswer::Deny).expect("Deny");
    assert!(asked.await.expect("the call ends").is_error);
    let tool = s.engine.tool("google_drive_create_file").expect("still offered");
    assert!(tool.meta.description.starts_with("Creates a file, and now more."), "{}", tool.meta.description);
}

#[tokio::test]
async fn a_grant_of_a_routed_tool_no_longer_covers_it_once_google_changes_the_tool_it_runs_on() {
    let names: Vec<&str> = gatehouse_core::tools::all_tools().iter().map(|tool| tool.meta.name).collect();
    let policy = Policy::parse("gate_reads = true\n", std::path::Path::new("policy.toml"), &names).expect("a policy");
    let s = setup_with(policy, |_| {}).await;
    let sheet =
        s.google.world().create_spreadsheet("Budget", &[("Sheet1", vec![vec![json!("a")]])], &Identity::user(USER));
    // Three different reads: a request repeating one the person just answered asks again by itself (replay).
    let read = |range: &str| json!({ "spreadsheet_id": sheet, "sheet": "Sheet1", "range": range });
    let mut first = start(&s.engine, "get_sheet_data", read("A1"));
    let card = next_card(&s.engine, &mut first).await;
    s.engine.approvals().broker().answer(card.id, always_for_any()).expect("Always allow");
    assert!(!first.await.expect("the call ends").is_error);
    let covered = s.engine.call("get_sheet_data", Some(object(read("A1:B1")))).await.expect("known");
    assert!(!covered.is_error, "covered by the grant: {}", covered.text);

    // get_sheet_data runs on Google's get_values: Google changing get_values asks again.
    s.google.world().mcp.changes.describe_tool(Emulated::Sheets, "get_values", "Returns values, differently.");
    tokio::time::sleep(Duration::from_millis(300)).await;
    let mut asked = start(&s.engine, "get_sheet_data", read("A1:C1"));
    let card = next_card(&s.engine, &mut asked).await;
    assert_eq!(card.tool, "get_sheet_data");
    s.engine.approvals().broker().answer(card.id, RawAnswer::AllowOnce).expect("Allow once");
    assert!(!asked.await.expect("the call ends").is_error);
}

#[tokio::test]
async fn discovered_tools_belong_to_their_products_sets_and_enabled_tools_bounds_them() {
    let s = setup().await;
    s.engine.discover().await;
    let discovered = s.engine.discovered_tools();
    let shown = |name: &str| discovered.iter().find(|tool| tool.meta.name == name).expect("discovered").to_mcp();
    let (metadata, create) = (shown("google_drive_get_file_metadata"), shown("google_drive_create_file"));
    let read = ToolSelection::parse("drive-read").expect("a set");
    assert!(read.allows_tool(&metadata) && !read.allows_tool(&create), "a write is not in drive-read");
    let drive = ToolSelection::parse("drive").expect("a set");
    assert!(drive.allows_tool(&metadata) && drive.allows_tool(&create));
    let sheets = ToolSelection::parse("sheets").expect("a set");
    assert!(!sheets.allows_tool(&metadata), "another product's set");
    let named = ToolSelection::parse("get_sheet_data,google_drive_create_file").expect("named one by one");
    assert!(named.allows_tool(&create) && !named.allows_tool(&metadata));

    let only = setup_with(Policy::default(), |config| {
        config.enabled_tools = Some(vec!["get_sheet_data".to_owned(), "google_drive_get_file_metadata".to_owned()]);
    })
    .await;
    only.engine.discover().await;
    let offered: Vec<&str> = only.engine.offered_tools().iter().map(|tool| tool.meta.name).collect();
    assert_eq!(offered, ["get_sheet_data", "google_drive_get_file_metadata"]);
}

/// `serve --tools drive --max-tools N` (what *Connect* writes for an assistant that takes only so many tools):
/// the list holds Gatehouse's own Drive tools, then Google's own while there is room, and never more than N.
#[tokio::test]
async fn a_bounded_selection_lists_gatehouses_own_tools_first_and_leaves_googles_out_past_the_bound() {
    let s = setup().await;
    s.engine.discover().await;
    let drive = ToolSelection::parse("drive").expect("a set");
    let (unbounded, _) = connect_to(McpServer::new(Arc::clone(&s.engine)).offering(drive.clone())).await;
    let every = names(&unbounded).await;
    let own = every.iter().take_while(|name| !name.starts_with("google_")).count();
    assert!(own > 0 && every.len() > own + 1, "Drive has tools of both kinds: {every:?}");

    let max = own + 1;
    let (bounded, _) = connect_to(McpServer::new(Arc::clone(&s.engine)).offering(drive.at_most(max))).await;
    let listed = names(&bounded).await;
    assert_eq!(listed, every[..max], "the first {max}: every one of Gatehouse's, and one of Google's");
}

/// An administrator's deny rule can name one of Google's own tools by the name Gatehouse offers it under: the
/// call is refused at once, with no card, and nothing reaches Google; the audit log names the rule.
#[tokio::test]
async fn a_deny_rule_naming_one_of_googles_tools_refuses_it_before_google_hears_of_it() {
    let names: Vec<&str> = gatehouse_core::tools::all_tools().iter().map(|tool| tool.meta.name).collect();
    let text = "[[deny]]\nname = \"no-new-files\"\ntool = \"google_drive_create_file\"\n";
    let policy = Policy::parse(text, std::path::Path::new("policy.toml"), &names).expect("a policy");
    let s = setup_with(policy, |_| {}).await;
    s.engine.discover().await;
    let files_before = s.google.world().drive.ids();
    let args = json!({ "name": "Refused", "mimeType": "application/vnd.google-apps.folder" });
    let refused = s.engine.call("google_drive_create_file", Some(object(args))).await.expect("a known tool");
    assert!(refused.is_error, "{}", refused.text);
    assert!(s.engine.approvals().broker().pending().is_empty(), "no card for a denied call");
    assert_eq!(s.google.world().drive.ids(), files_before, "nothing reached Google: no folder was made");
    let audit = s.store.list_audit(&Default::default()).await.expect("the audit log");
    let record = audit.iter().find(|record| record.entry.tool == "google_drive_create_file").expect("recorded");
    assert_eq!(record.entry.verdict, Verdict::Denied);
    assert!(record.entry.source.to_string().contains("no-new-files"), "{}", record.entry.source);
}

/// Google Slides has no Gatehouse tool of its own: its server's tools are offered as discovered, under the
/// Slides product (its scope, the sign-in's Slides choice). A read runs at once after Gatehouse's decision; a
/// change is Google's to ask about, so Google's form is the card, and only an accepted form changes the deck.
#[tokio::test]
async fn googles_slides_tools_are_offered_a_read_runs_and_a_change_waits_on_googles_form() {
    let s = setup().await;
    let deck = s.google.world().create_presentation("Launch deck", &Identity::user(USER));
    let title = s.google.world().slides.json(&deck).expect("the deck")["slides"][0]["pageElements"][0]["objectId"]
        .as_str()
        .expect("a title placeholder")
        .to_owned();
    let (client, _) = connect(&s.engine).await;
    let listed = names(&client).await;
    for offered in
        ["google_slides_read_presentation", "google_slides_read_slide_page", "google_slides_update_presentation"]
    {
        assert!(listed.iter().any(|name| name == offered), "{offered} is offered: {listed:?}");
    }
    let update = s.engine.tool("google_slides_update_presentation").expect("offered");
    assert_eq!(update.meta.service, gatehouse_core::tools::Service::Slides);
    assert_eq!(update.meta.scope, Some(gatehouse_core::catalog::Scope::Slides));
    assert!(matches!(update.meta.access, Access::Write(_)));
    let offered = s.engine.discovered_tools();
    let shown = |name: &str| offered.iter().find(|tool| tool.meta.name == name).expect("discovered").to_mcp();
    let (read_deck, change_deck) =
        (shown("google_slides_read_presentation"), shown("google_slides_update_presentation"));
    let slides = ToolSelection::parse("slides").expect("a set, though Gatehouse declares no Slides tool");
    assert!(slides.allows_tool(&read_deck) && slides.allows_tool(&change_deck));
    let reads = ToolSelection::parse("slides-read").expect("a set");
    assert!(reads.allows_tool(&read_deck) && !reads.allows_tool(&change_deck), "a change is not a read");
    assert!(!ToolSelection::parse("docs").expect("a set").allows_tool(&read_deck), "another product's set");
    let products = gatehouse_core::auth::products::offered(&offered, None);
    let slides = products.iter().find(|product| product.key == "slides").expect("Slides is a sign-in choice");
    assert_eq!(slides.name, "Google Slides");
    assert!(!slides.suggested, "asked for only when the person ticks it");

    let read =
        call(&client, "google_slides_read_presentation", json!({ "presentationId": deck, "fields": ["title"] })).await;
    assert_ne!(read.is_error, Some(true), "{}", text(&read));
    assert_eq!(
        read.structured_content.as_ref().map(|content| content["content"]["title"].clone()),
        Some(json!("Launch deck"))
    );

    let change =
        json!({ "presentationId": deck, "requests": [{ "insertText": { "objectId": title, "text": "Launch" } }] });
    let mut declined = start(&s.engine, "google_slides_update_presentation", change.clone());
    let card = next_card(&s.engine, &mut declined).await;
    let form = card.form.as_ref().expect("Google's form is the card");
    assert!(!form.google_asks_too, "Gatehouse leaves a tool Google always asks about to Google's form");
    s.engine.approvals().broker().answer(card.id, RawAnswer::Deny).expect("Deny declines");
    assert!(declined.await.expect("the call ends").is_error);
    assert_eq!(s.google.world().slides.plain_text(&deck).as_deref(), Some(""), "a declined form changes nothing");

    let mut accepted = start(&s.engine, "google_slides_update_presentation", change);
    let card = next_card(&s.engine, &mut accepted).await;
    s.engine.approvals().broker().answer(card.id, RawAnswer::Form(Default::default())).expect("accepted");
    let reply = accepted.await.expect("the call ends");
    assert!(!reply.is_error, "{}", reply.text);
    assert_eq!(s.google.world().slides.plain_text(&deck).as_deref(), Some("Launch\n"));
    client.cancel().await.expect("the client ends");
}
