//! Gatehouse as an MCP client of Google's Workspace MCP servers (issue 17, items 1, 2 and 4), against the
//! emulator's servers over real HTTP: discovery, calls in rounds, the backend setting, the tool list changing
//! while Gatehouse runs, and a sign-in whose OAuth client Google's servers refuse.

use std::sync::Arc;
use std::time::Duration;

use gatehouse_core::approval::broker::PendingCard;
use gatehouse_core::approval::card::RawAnswer;
use gatehouse_core::approval::model::Verdict;
use gatehouse_core::auth::identity::{AuthMethod, IdentityClass};
use gatehouse_core::auth::state::AuthSnapshot;
use gatehouse_core::config::GoogleBackend;
use gatehouse_core::engine::Reply;
use gatehouse_core::google::Endpoints;
use gatehouse_core::google::auth::StaticToken;
use gatehouse_core::google::mcp::form::{FormAnswer, Repeat, Round};
use gatehouse_core::google::mcp::{McpClient, McpError, McpOptions, Product};
use google_fake::{Identity, OAuthClient};
use rmcp::model::ProtocolVersion;
use serde_json::{Value, json};

use crate::support::{Harness, USER};

/// Requests the emulator's MCP servers ran as REST requests of `product` (recorded under Google's MCP host).
fn mcp_runs(h: &Harness, product: &str) -> usize {
    let host = format!("{product}mcp.googleapis.com");
    h.google.world().requests.iter().filter(|record| record.host == host).count()
}

/// An MCP client of the harness's emulator, signed in with `token`.
fn client(h: &Harness, token: String) -> McpClient {
    McpClient::new(McpOptions {
        http: reqwest::Client::new(),
        endpoints: Endpoints::new(Some(h.google.url().parse().expect("emulator url"))),
        tokens: Arc::new(StaticToken::new(token, Some(USER.to_owned()))),
        timeout: Duration::from_secs(20),
    })
}

fn arguments(value: Value) -> rmcp::model::JsonObject {
    match value {
        Value::Object(map) => map,
        other => panic!("arguments are an object, not {other}"),
    }
}

fn signed_in() -> AuthSnapshot {
    AuthSnapshot {
        method: AuthMethod::OAuth,
        class: Some(IdentityClass::User),
        account: Some(USER.to_owned()),
        granted_scopes: None,
    }
}

fn seed_budget(h: &Harness) -> String {
    let rows = vec![vec![json!("Item"), json!("Cost")], vec![json!("Tea"), json!(3)]];
    h.google.world().create_spreadsheet("Budget", &[("Sheet1", rows)], &h.owner())
}

#[tokio::test]
async fn discovery_lists_each_servers_tools_and_which_google_always_asks_about() {
    let h = Harness::new().await;
    let mcp = client(&h, h.google.issue_token(h.owner()));
    let sheets = mcp.catalogue(Product::Sheets).await.expect("Sheets' tools are listed");
    assert_eq!(sheets.version, ProtocolVersion::V_2026_07_28, "spoken in 2026-07-28, stateless");
    let get_values = sheets.tool("get_values").expect("get_values is listed");
    assert!(!get_values.always_asks, "get_values is on /mcp/v1self too");
    let schema = serde_json::to_value(get_values.definition.input_schema.as_ref()).expect("schema");
    assert_eq!(schema["required"], json!(["spreadsheetId", "range"]), "{schema}");
    assert!(get_values.definition.output_schema.is_some(), "the output schema comes along");
    let hints = get_values.definition.annotations.as_ref().expect("annotations");
    assert_eq!(hints.read_only_hint, Some(true));
    let update = sheets.tool("update_values").expect("update_values is listed");
    assert!(update.always_asks, "update_values is left out of /mcp/v1self: Google asks at every call");
    let docs = mcp.catalogue(Product::Docs).await.expect("Docs' tools are listed");
    assert!(docs.tool("read_doc").is_some());
    assert!(mcp.catalogue(Product::Drive).await.expect("Drive").tool("search_files").is_some());
}

#[tokio::test]
async fn a_call_in_rounds_changes_what_rest_reads_once_the_form_is_accepted() {
    let h = Harness::new().await;
    let id = seed_budget(&h);
    let mcp = client(&h, h.google.issue_token(h.owner()));
    let call = || arguments(json!({ "spreadsheetId": id, "range": "Sheet1!A2:B2", "values": [["Coffee", 4]] }));
    let Round::AsksPerson { forms, request_state } =
        mcp.call(Product::Sheets, "update_values", call(), None).await.expect("Google answers")
    else {
        panic!("update_values asks the person first");
    };
    assert_eq!(forms.len(), 1);
    assert!(forms[0].message.contains("Budget"), "{}", forms[0].message);
    // Nothing ran yet.
    let before = h.ok("get_sheet_data", json!({ "spreadsheet_id": id, "sheet": "Sheet1" })).await;
    assert_eq!(before["values"][1][0], "Tea");

    let declined = Repeat::new(&[(forms[0].clone(), FormAnswer::Decline)], request_state.clone());
    let Round::Done(refused) = mcp.call(Product::Sheets, "update_values", call(), Some(declined)).await.expect("done")
    else {
        panic!("a declined form ends the call");
    };
    assert_eq!(refused.is_error, Some(true), "declined: a tool error, nothing changed");
    let unchanged = h.ok("get_sheet_data", json!({ "spreadsheet_id": id, "sheet": "Sheet1" })).await;
    assert_eq!(unchanged["values"][1][0], "Tea");

    let Round::AsksPerson { forms, request_state } =
        mcp.call(Product::Sheets, "update_values", call(), None).await.expect("Google answers")
    else {
        panic!("asked again");
    };
    let accepted = Repeat::new(&[(forms[0].clone(), FormAnswer::Accept(Default::default()))], request_state);
    let Round::Done(done) = mcp.call(Product::Sheets, "update_values", call(), Some(accepted)).await.expect("done")
    else {
        panic!("an accepted form runs the call");
    };
    assert_ne!(done.is_error, Some(true), "{done:?}");
    // Read back through REST (the harness's engine is on the REST backend).
    let after = h.ok("get_sheet_data", json!({ "spreadsheet_id": id, "sheet": "Sheet1" })).await;
    assert_eq!(after["values"][1], json!(["Coffee", "4"]), "{after}");
}

#[tokio::test]
async fn the_backend_setting_picks_the_surface_and_results_keep_their_shape() {
    let h = Harness::new().await;
    let id = seed_budget(&h);
    let read = json!({ "spreadsheet_id": id, "sheet": "Sheet1" });

    let rest = h.ok("get_sheet_data", read.clone()).await;
    assert_eq!(mcp_runs(&h, "sheets"), 0, "rest: nothing goes to Google's MCP server");

    let both = h.engine_with(|config| config.google_backend = GoogleBackend::Both);
    let reply = both.call("get_sheet_data", read.as_object().cloned()).await.expect("known tool");
    assert!(!reply.is_error, "{}", reply.text);
    assert!(mcp_runs(&h, "sheets") > 0, "both: get_sheet_data runs as Google's get_values");
    let through_mcp: Value = serde_json::from_str(&reply.text).expect("JSON");
    assert_eq!(through_mcp, rest, "the same result, whichever surface served it");
    // A write Google asks about at every call goes to Google's server in `both` too: Google's form is put on
    // a card (the harness answers every card: Allow), and the write is done there.
    let served = mcp_runs(&h, "sheets");
    let write = json!({ "spreadsheet_id": id, "sheet": "Sheet1", "range": "A3", "data": [["Milk", 2]] });
    let reply = both.call("update_cells", write.as_object().cloned()).await.expect("known tool");
    assert!(!reply.is_error, "{}", reply.text);
    assert!(mcp_runs(&h, "sheets") > served, "update_cells ran as Google's update_values");
    assert_eq!(h.google.world().sheets.values(&id, "Sheet1")[2], vec!["Milk".to_owned(), "2".to_owned()]);
    let served = mcp_runs(&h, "sheets");
    // Grid data has no MCP tool: REST serves it in `both`.
    let grid = json!({ "spreadsheet_id": id, "sheet": "Sheet1", "include_grid_data": true });
    let reply = both.call("get_sheet_data", grid.as_object().cloned()).await.expect("known tool");
    assert!(!reply.is_error, "{}", reply.text);
    assert_eq!(mcp_runs(&h, "sheets"), served);

    let only = h.engine_with(|config| config.google_backend = GoogleBackend::Mcp);
    let names: Vec<&str> = only.tools().iter().map(|tool| tool.meta.name).collect();
    assert!(names.contains(&"get_sheet_data") && names.contains(&"search_files"), "{names:?}");
    assert!(!names.contains(&"share_file"), "mcp offers only the tools Google's servers can run: {names:?}");
    let reply = only.call("get_sheet_data", grid.as_object().cloned()).await.expect("known tool");
    assert!(reply.is_error && reply.text.contains("GATEHOUSE_GOOGLE_BACKEND=mcp"), "{}", reply.text);
    drop(only);

    // Google asks the person on a form at every update_values: Gatehouse does not card it first, Google's form
    // is the card. Declined, nothing is written and the assistant is told; accepted, the write is done.
    let home = tempfile::tempdir().expect("home");
    let (carded, store) = crate::store_engine::engine_over_store(&h.google, home.path(), USER, |config| {
        config.google_backend = GoogleBackend::Mcp;
    })
    .await;
    let write = json!({ "spreadsheet_id": id, "sheet": "Sheet1", "range": "A4", "data": [["Bread", 1]] });
    let start = || {
        let (carded, write) = (Arc::clone(&carded), write.clone());
        tokio::spawn(async move { carded.call("update_cells", write.as_object().cloned()).await.expect("known") })
    };
    let mut declined = start();
    let card = next_card(&carded, &mut declined).await;
    let form = card.form.as_ref().expect("Google's form, on the only card");
    assert!(!form.google_asks_too, "Gatehouse left the call to Google's form: it is the only card");
    assert!(form.message.contains("“Budget”"), "Google's own message: {}", form.message);
    carded.approvals().broker().answer(card.id, RawAnswer::Deny).expect("Deny declines");
    let reply = declined.await.expect("the call ends");
    assert!(reply.is_error, "{}", reply.text);
    assert!(reply.text.contains("declined Google's approval form for Update cells"), "{}", reply.text);
    assert_eq!(h.google.world().sheets.values(&id, "Sheet1").len(), 3, "declined: nothing more was written");
    let audit = store.list_audit(&Default::default()).await.expect("the audit log");
    let call_record = audit
        .iter()
        .find(|record| record.entry.tool == "update_cells" && record.entry.arguments["google_form"].is_null())
        .expect("the call's record");
    assert_eq!(
        (call_record.entry.verdict, call_record.entry.source.to_string()),
        (Verdict::Denied, "person".to_owned()),
        "the call's record says the person declined it"
    );
    let form_record = audit.iter().find(|record| !record.entry.arguments["google_form"].is_null());
    let form_record = form_record.expect("the form's own record");
    assert_eq!(form_record.entry.arguments["google_form"]["answer"], "decline");

    let mut accepted = start();
    let card = next_card(&carded, &mut accepted).await;
    carded.approvals().broker().answer(card.id, RawAnswer::Form(Default::default())).expect("accepted");
    let reply = accepted.await.expect("the call ends");
    assert!(!reply.is_error, "{}", reply.text);
    assert_eq!(h.google.world().sheets.values(&id, "Sheet1")[3], vec!["Bread".to_owned(), "1".to_owned()]);
    let audit = store.list_audit(&Default::default()).await.expect("the audit log");
    let call_record = audit
        .iter()
        .find(|record| record.entry.tool == "update_cells" && record.entry.arguments["google_form"].is_null())
        .expect("the call's record");
    assert_eq!(call_record.entry.source.to_string(), "google-form", "left to Google's form, recorded as such");
    assert_eq!(call_record.entry.verdict, Verdict::Allowed);
}

/// The next card `engine` shows for `call` (waits up to 20 s); a call that ended first fails the test with
/// its reply.
async fn next_card(engine: &gatehouse_core::Engine, call: &mut tokio::task::JoinHandle<Reply>) -> PendingCard {
    for _ in 0..2000 {
        if let Some(card) = engine.approvals().broker().pending().into_iter().next() {
            return card;
        }
        if call.is_finished() {
            let reply = call.await.expect("the call ends");
            panic!("the call ended with no card: {}", reply.text);
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("no card appeared");
}

#[tokio::test]
async fn a_tool_added_removed_or_changed_on_googles_server_is_seen_without_a_restart() {
    let h = Harness::new().await;
    let id = seed_budget(&h);
    let read = json!({ "spreadsheet_id": id, "sheet": "Sheet1" });
    // The server says how long its list holds; 0: read it again before every use.
    h.google.world().mcp.changes.set_list_ttl(Some(0));
    h.google.world().mcp.changes.hide_tool(google_fake::mcp::Product::Sheets, "get_values");
    let engine = h.engine_with(|config| config.google_backend = GoogleBackend::Both);
    let mcp = engine.context().mcp.clone();

    let reply = engine.call("get_sheet_data", read.as_object().cloned()).await.expect("known tool");
    assert!(!reply.is_error, "{}", reply.text);
    assert_eq!(mcp_runs(&h, "sheets"), 0, "no get_values on Google's server: REST served it");
    assert!(mcp.known(Product::Sheets).await.expect("listed").tool("get_values").is_none());

    // Added: the next call finds it.
    let seen = mcp.revision();
    h.google.world().mcp.changes.show_tool(google_fake::mcp::Product::Sheets, "get_values");
    let reply = engine.call("get_sheet_data", read.as_object().cloned()).await.expect("known tool");
    assert!(!reply.is_error, "{}", reply.text);
    assert!(mcp_runs(&h, "sheets") > 0, "get_values showed up and served the call");
    assert!(mcp.revision() > seen, "the list's change is counted");

    // Changed: the new definition is what Gatehouse keeps.
    let seen = mcp.revision();
    h.google.world().mcp.changes.describe_tool(google_fake::mcp::Product::Sheets, "get_values", "Reads cells, newly.");
    let catalogue = mcp.catalogue(Product::Sheets).await.expect("listed");
    let description = catalogue.tool("get_values").and_then(|tool| tool.definition.description.clone());
    assert_eq!(description.as_deref(), Some("Reads cells, newly."));
    assert!(mcp.revision() > seen);

    // Removed while Gatehouse still holds a list that has it (the server's list holds for minutes): the call
    // meets "Unknown tool", the list is read again, and REST serves the call.
    h.google.world().mcp.changes.set_list_ttl(None);
    mcp.forget_list(Product::Sheets).await;
    mcp.catalogue(Product::Sheets).await.expect("listed");
    h.google.world().mcp.changes.hide_tool(google_fake::mcp::Product::Sheets, "get_values");
    let served = mcp_runs(&h, "sheets");
    let reply = engine.call("get_sheet_data", read.as_object().cloned()).await.expect("known tool");
    assert!(!reply.is_error, "{}", reply.text);
    assert_eq!(mcp_runs(&h, "sheets"), served, "Google ran nothing");
    assert!(mcp.catalogue(Product::Sheets).await.expect("listed").tool("get_values").is_none(), "it disappeared");
    let direct = mcp.call(Product::Sheets, "get_values", arguments(json!({})), None).await;
    assert!(matches!(direct, Err(McpError::UnknownTool { .. })), "{direct:?}");
}

#[tokio::test]
async fn a_client_not_marked_agentic_gets_the_auth_status_category_and_clear_words() {
    let h = Harness::new().await;
    let id = seed_budget(&h);
    let legacy = OAuthClient::installed("222-legacy.apps.googleusercontent.com", "secret-l").non_agentic();
    let token = {
        let mut world = h.google.world();
        world.oauth_clients.push(legacy.clone());
        world.issue_token_for_client(Identity::user(USER), &legacy.client_id)
    };
    let mcp = client(&h, token.clone());
    let refused = mcp.catalogue(Product::Sheets).await.expect_err("Google's MCP servers refuse the client");
    assert!(matches!(refused, McpError::NotAgentic { .. }), "{refused:?}");
    assert!(refused.to_string().contains("Use this client for an AI-powered agent"), "{refused}");
    assert!(mcp.refused_as_not_agentic());

    // An engine signed in with that client, on Google's MCP servers only: the call says why and what to do.
    let read = json!({ "spreadsheet_id": id, "sheet": "Sheet1" });
    let engine = engine_with_token(&h, token, GoogleBackend::Mcp);
    engine.auth().set(signed_in());
    let reply = engine.call("get_sheet_data", read.as_object().cloned()).await.expect("known tool");
    assert!(reply.is_error, "{}", reply.text);
    assert!(reply.text.contains("not marked \"Use this client for an AI-powered agent\""), "{}", reply.text);
    let status: Value = serde_json::from_str(
        &engine.read_resource(&Default::default(), "server://auth-status").await.expect("auth-status"),
    )
    .expect("JSON");
    let categories: Vec<&str> =
        status["limitations"].as_array().into_iter().flatten().filter_map(|entry| entry["category"].as_str()).collect();
    assert!(categories.contains(&"client_not_agentic"), "{status}");
    let entry = status["limitations"].as_array().into_iter().flatten().find(|e| e["category"] == "client_not_agentic");
    let entry = entry.expect("the entry");
    assert!(entry["tools"].as_array().expect("tools").contains(&json!("get_sheet_data")), "{entry}");
    assert!(entry["alternatives"].to_string().contains("Desktop app"), "{entry}");

    // With both, REST serves the call and auth-status lists the REST tools and the refused client.
    let both = engine_with_token(&h, engine_token(&h, &legacy), GoogleBackend::Both);
    both.auth().set(signed_in());
    let reply = both.call("get_sheet_data", read.as_object().cloned()).await.expect("known tool");
    assert!(!reply.is_error, "REST serves it: {}", reply.text);
    let status: Value =
        serde_json::from_str(&both.read_resource(&Default::default(), "server://auth-status").await.expect("status"))
            .expect("JSON");
    let rest = status["limitations"].as_array().into_iter().flatten().find(|e| e["category"] == "uses_rest_api");
    let rest = rest.expect("tools still on REST are listed");
    assert!(rest["tools"].as_array().expect("tools").contains(&json!("share_file")), "{rest}");
    assert!(!rest["tools"].as_array().expect("tools").contains(&json!("get_sheet_data")), "{rest}");
    assert!(status.to_string().contains("client_not_agentic"), "{status}");
}

/// A server that refused the sign-in is not asked again by every call: with `both` the next calls go to REST at
/// once (no round trip each to be refused again), and a new access token (a sign-in with another client) asks
/// it again, so the fix is seen at once.
#[tokio::test]
async fn a_server_that_refused_the_sign_in_is_not_asked_again_until_the_token_changes() {
    let h = Harness::new().await;
    let id = seed_budget(&h);
    let legacy = OAuthClient::installed("333-legacy.apps.googleusercontent.com", "secret-l").non_agentic();
    let agentic = OAuthClient::installed("444-agent.apps.googleusercontent.com", "secret-a");
    {
        let mut world = h.google.world();
        world.oauth_clients.push(legacy.clone());
        world.oauth_clients.push(agentic.clone());
    }
    let tokens = Arc::new(Rotating { tokens: Default::default(), refused: Default::default() });
    tokens.push(engine_token(&h, &legacy));
    let mut config = gatehouse_core::config::Config::with_home(h.home.path());
    config.google_endpoint = Some(h.google.url().parse().expect("emulator url"));
    config.google_backend = GoogleBackend::Both;
    let engine = gatehouse_core::Engine::new(gatehouse_core::EngineOptions {
        config,
        tokens: Arc::clone(&tokens) as Arc<dyn gatehouse_core::google::TokenSource>,
        sandbox: false,
        approvals: crate::support::approvals::allow_everything(),
        retry: crate::support::quick_retry(),
    })
    .expect("engine");
    engine.auth().set(signed_in());
    let asked = || h.google.world().mcp.http_requests.get(&google_fake::mcp::Product::Sheets).copied().unwrap_or(0);
    let read = json!({ "spreadsheet_id": id, "sheet": "Sheet1" });

    let reply = engine.call("get_sheet_data", read.as_object().cloned()).await.expect("known tool");
    assert!(!reply.is_error && reply.text.contains("Tea"), "REST serves it: {}", reply.text);
    let refused_once = asked();
    assert!(refused_once > 0, "Google's Sheets MCP server was tried first");
    for _ in 0..3 {
        let reply = engine.call("get_sheet_data", read.as_object().cloned()).await.expect("known tool");
        assert!(!reply.is_error && reply.text.contains("Tea"), "{}", reply.text);
    }
    assert_eq!(asked(), refused_once, "the server that refused the sign-in was not asked again with the same token");
    assert_eq!(mcp_runs(&h, "sheets"), 0, "nothing ran at Google's MCP server");

    // The person signs in with a client marked agentic: the new token is tried on Google's server at once.
    tokens.push(engine_token(&h, &agentic));
    gatehouse_core::google::TokenSource::invalidate(tokens.as_ref()).await;
    let reply = engine.call("get_sheet_data", read.as_object().cloned()).await.expect("known tool");
    assert!(!reply.is_error && reply.text.contains("Tea"), "{}", reply.text);
    assert!(asked() > refused_once, "the new sign-in was tried on Google's server");
    assert!(mcp_runs(&h, "sheets") > 0, "and the call ran there");
    assert!(!engine.context().mcp.refused_as_not_agentic(), "auth-status no longer says the client is refused");
}

fn engine_token(h: &Harness, client: &OAuthClient) -> String {
    h.google.world().issue_token_for_client(Identity::user(USER), &client.client_id)
}

/// An engine on the harness's emulator signed in with `token`, on `backend`.
fn engine_with_token(h: &Harness, token: String, backend: GoogleBackend) -> Arc<gatehouse_core::Engine> {
    let mut config = gatehouse_core::config::Config::with_home(h.home.path());
    config.google_endpoint = Some(h.google.url().parse().expect("emulator url"));
    config.google_backend = backend;
    gatehouse_core::Engine::new(gatehouse_core::EngineOptions {
        config,
        tokens: Arc::new(StaticToken::new(token, Some(USER.to_owned()))),
        sandbox: false,
        approvals: crate::support::approvals::allow_everything(),
        retry: crate::support::quick_retry(),
    })
    .expect("engine")
}

/// A token source that hands out its tokens in turn: each refusal (`invalidate_token`) moves on to the next.
struct Rotating {
    tokens: std::sync::Mutex<std::collections::VecDeque<String>>,
    refused: std::sync::atomic::AtomicUsize,
}

impl Rotating {
    fn push(&self, token: String) {
        self.tokens.lock().expect("tokens").push_back(token);
    }
}

impl gatehouse_core::google::TokenSource for Rotating {
    fn token(&self) -> futures::future::BoxFuture<'_, Result<String, gatehouse_core::google::auth::AuthError>> {
        let token = self.tokens.lock().expect("tokens").front().cloned();
        Box::pin(async move { token.ok_or(gatehouse_core::google::auth::AuthError::NotSignedIn) })
    }

    fn invalidate(&self) -> futures::future::BoxFuture<'_, ()> {
        self.refused.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        self.tokens.lock().expect("tokens").pop_front();
        Box::pin(async {})
    }

    fn account(&self) -> Option<String> {
        Some(USER.to_owned())
    }
}

/// Once connected, a token Google's server refuses (it expired) on `tools/list` or `tools/call` makes one fresh
/// token and one more try, as connecting does: the person sees no error for an access token's ordinary end.
#[tokio::test]
async fn a_token_refused_after_connecting_is_replaced_once_for_a_list_and_for_a_call() {
    let h = Harness::new().await;
    let id = seed_budget(&h);
    let tokens = Arc::new(Rotating { tokens: Default::default(), refused: Default::default() });
    tokens.push(h.google.issue_token(h.owner()));
    let mcp = McpClient::new(McpOptions {
        http: reqwest::Client::new(),
        endpoints: Endpoints::new(Some(h.google.url().parse().expect("emulator url"))),
        tokens: Arc::clone(&tokens) as Arc<dyn gatehouse_core::google::TokenSource>,
        timeout: Duration::from_secs(20),
    });
    mcp.catalogue(Product::Sheets).await.expect("listed with the first token");

    // The first token expires; the next one Gatehouse would get is fresh.
    h.google.world().expire_access_tokens();
    tokens.push(h.google.issue_token(h.owner()));
    mcp.forget_list(Product::Sheets).await;
    let listed = mcp.catalogue(Product::Sheets).await.expect("tools/list: a fresh token, one more try");
    assert!(listed.tool("get_values").is_some());
    assert_eq!(tokens.refused.load(std::sync::atomic::Ordering::SeqCst), 1, "one token refused, one replaced");

    h.google.world().expire_access_tokens();
    tokens.push(h.google.issue_token(h.owner()));
    let read = arguments(json!({ "spreadsheetId": id, "range": "Sheet1!A1:B2" }));
    let Round::Done(result) = mcp.call(Product::Sheets, "get_values", read, None).await.expect("tools/call: retried")
    else {
        panic!("the account's own sheet is read without a form");
    };
    assert_ne!(result.is_error, Some(true), "{result:?}");
    assert_eq!(tokens.refused.load(std::sync::atomic::Ordering::SeqCst), 2);

    // A token refused again after the fresh one: said, not retried for ever.
    h.google.world().expire_access_tokens();
    mcp.forget_list(Product::Sheets).await;
    let refused = mcp.catalogue(Product::Sheets).await.expect_err("no token left that Google takes");
    assert!(matches!(refused, McpError::Refused { .. } | McpError::Auth(_)), "{refused:?}");
}

/// `search_files` through Google's Drive server speaks that tool's own query language (`fullText`,
/// `mimeType`, `parentId`) and reads Google's MCP `File` (`title`, `parentId`, `viewUrl`, `owner`), so an
/// assistant gets the same answer whichever surface served it; the emulator refuses Drive's `q` terms there.
#[tokio::test]
async fn search_files_on_googles_server_asks_in_its_language_and_answers_as_rest_does() {
    let h = Harness::new().await;
    let (folder, kept) = {
        let mut world = h.google.world();
        let folder = world.drive.create_folder("Plans", None, &h.owner());
        let kept = world.create_spreadsheet("Budget 2027", &[("Sheet1", vec![vec![json!("x")]])], &h.owner());
        world.drive.set_parent(&kept, &folder);
        world.create_document("Budget notes", "a budget", &h.owner());
        (folder, kept)
    };
    let both = h.engine_with(|config| config.google_backend = GoogleBackend::Both);
    for args in [
        json!({ "query": "Budget" }),
        json!({ "query": "Budget", "mime_type": "spreadsheet" }),
        json!({ "query": "Budget", "folder_id": folder }),
        json!({ "query": "it's" }),
    ] {
        let rest = h.ok("search_files", args.clone()).await;
        let served = mcp_runs(&h, "drive");
        let reply = both.call("search_files", args.as_object().cloned()).await.expect("known tool");
        assert!(!reply.is_error, "{args}: {}", reply.text);
        assert!(mcp_runs(&h, "drive") > served, "{args}: served by Google's search_files");
        let through_mcp: Value = serde_json::from_str(&reply.text).expect("JSON");
        assert_eq!(through_mcp, rest, "{args}: the same result, whichever surface served it");
    }
    let in_folder = h.ok("search_files", json!({ "query": "Budget", "folder_id": folder })).await;
    assert_eq!(in_folder["files"][0]["id"], json!(kept), "{in_folder}");
    assert_eq!(in_folder["files"][0]["folder_id"], json!(folder));
    assert_eq!(in_folder["files"][0]["owner"], json!(USER));
}

/// `get_doc_content` and `get_doc_structure` run as Google's `read_doc`, whose answer holds the document under
/// `content` (Google's reference): the same text and outline as over REST.
#[tokio::test]
async fn doc_reads_on_googles_server_unwrap_read_docs_content_and_answer_as_rest_does() {
    let h = Harness::new().await;
    let doc = h.google.world().create_document("Plan", "Goals\nShip the card\n", &h.owner());
    let both = h.engine_with(|config| config.google_backend = GoogleBackend::Both);
    for (tool, args) in
        [("get_doc_content", json!({ "file_id": doc })), ("get_doc_structure", json!({ "doc_id": doc }))]
    {
        let rest = h.ok(tool, args.clone()).await;
        let served = mcp_runs(&h, "docs");
        let reply = both.call(tool, args.as_object().cloned()).await.expect("known tool");
        assert!(!reply.is_error, "{tool}: {}", reply.text);
        assert!(mcp_runs(&h, "docs") > served, "{tool}: served by Google's read_doc");
        let through_mcp: Value = serde_json::from_str(&reply.text).expect("JSON");
        assert_eq!(through_mcp, rest, "{tool}: the same result, whichever surface served it");
    }
}
