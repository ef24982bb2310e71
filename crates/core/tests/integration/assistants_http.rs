//! Assistants' own tokens over real streamable HTTP: a real engine and store behind `mcp::http::serve`, rmcp's
//! HTTP client in front, the Google emulator behind. The bound name wins over the client's `clientInfo`, an
//! automation is never asked about, and a revoked token is refused on the next request.

use crate::store_engine;

use std::sync::Arc;
use std::time::Duration;

use chrono::Utc;
use gatehouse_core::approval::broker::PendingCard;
use gatehouse_core::approval::card::RawAnswer;
use gatehouse_core::approval::model::DecisionSource;
use gatehouse_core::approval::store::{AuditQuery, Store};
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
/// What the client says it is: every call below is attributed to something else unless it uses the
/// server's own token.
const CLIENT_NAME: &str = "some-client";

struct Setup {
    google: FakeGoogle,
    _home: tempfile::TempDir,
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

async fn setup() -> Setup {
    let google = FakeGoogle::start().await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let sheet =
        google.world().create_spreadsheet("Budget", &[("Sales", vec![vec![json!("a")]])], &Identity::user(USER));
    let (engine, store) = store_engine::engine_over_store(&google, home.path(), USER, |_| {}).await;
    let listener = mcp::http::bind("127.0.0.1:0".parse().unwrap()).await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let cancel = CancellationToken::new();
    tokio::spawn(mcp::http::serve(Arc::clone(&engine), listener, SERVER_TOKEN, cancel.clone()));
    Setup { google, _home: home, engine, store, url, sheet, cancel }
}

type Client = RunningService<RoleClient, ClientConfig>;

async fn connect(setup: &Setup, token: &str) -> Client {
    let mut config = StreamableHttpClientTransportConfig::with_uri(setup.url.as_str());
    config.auth_header = Some(token.to_owned());
    let transport = StreamableHttpClientTransport::with_client(reqwest::Client::new(), config);
    let info = ClientConfig::new(ClientCapabilities::default(), Implementation::new(CLIENT_NAME, "1"));
    info.serve(transport).await.unwrap()
}

/// Starts an `update_cells` of `value`, in its own task: it may wait for the person.
fn write(setup: &Setup, client: &Client, value: &str) -> tokio::task::JoinHandle<CallToolResult> {
    let peer = client.peer().clone();
    let Value::Object(arguments) =
        json!({ "spreadsheet_id": setup.sheet, "sheet": "Sales", "range": "B1", "data": [[value]] })
    else {
        unreachable!()
    };
    tokio::spawn(async move {
        peer.call_tool(CallToolRequestParams::new("update_cells").with_arguments(arguments)).await.unwrap()
    })
}

fn text(result: &CallToolResult) -> String {
    result.content.iter().find_map(|block| block.as_text().map(|t| t.text.clone())).unwrap_or_default()
}

fn written(setup: &Setup) -> String {
    let values = setup.google.world().sheets.values(&setup.sheet, "Sales");
    values.first().and_then(|row| row.get(1)).cloned().unwrap_or_default()
}

async fn wait_for_card(setup: &Setup) -> PendingCard {
    for _ in 0..1000 {
        if let Some(card) = setup.engine.approvals().broker().pending().into_iter().next() {
            return card;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("no card appeared");
}

async fn last_audit(setup: &Setup) -> (Option<gatehouse_core::approval::model::Agent>, String, DecisionSource) {
    let query = AuditQuery { limit: 1, before_seq: None, tool: None, agent: None };
    let record = setup.store.list_audit(&query).await.unwrap().into_iter().next().expect("an audit record");
    (record.entry.agent, record.entry.tool, record.entry.source)
}

#[tokio::test]
async fn an_automations_write_is_refused_at_once_as_unattended_and_attributed_to_its_bound_name() {
    let setup = setup().await;
    let nightly = setup.store.add_assistant("nightly", false, Utc::now()).await.unwrap();
    let client = connect(&setup, &nightly.token).await;

    let refused = tokio::time::timeout(Duration::from_secs(10), write(&setup, &client, "unasked"))
        .await
        .expect("the automation's write waited instead of being refused at once")
        .unwrap();
    assert!(refused.is_error.unwrap_or(false), "{}", text(&refused));
    assert!(text(&refused).contains("it came from an unattended assistant"), "{}", text(&refused));
    assert!(setup.engine.approvals().broker().pending().is_empty(), "nobody was asked");
    assert_eq!(written(&setup), "", "the write did not happen");
    assert_eq!(
        last_audit(&setup).await,
        (
            Some(gatehouse_core::approval::model::Agent::registered("nightly")),
            "update_cells".into(),
            DecisionSource::Unattended
        )
    );

    // Reads are not gated: the automation works.
    let quota = client.peer().call_tool(CallToolRequestParams::new("get_storage_quota")).await.unwrap();
    assert!(!quota.is_error.unwrap_or(false), "{}", text(&quota));
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn an_interactive_assistants_write_waits_for_the_person_and_its_card_shows_the_bound_name() {
    let setup = setup().await;
    let chat = setup.store.add_assistant("chat", true, Utc::now()).await.unwrap();
    let client = connect(&setup, &chat.token).await;

    let waiting = write(&setup, &client, "approved");
    let card = wait_for_card(&setup).await;
    assert_eq!(
        card.agent,
        Some(gatehouse_core::approval::model::Agent::registered("chat")),
        "the bound name, not the client's {CLIENT_NAME:?}"
    );
    assert!(!waiting.is_finished(), "the write waits for the person");
    setup.engine.approvals().broker().answer(card.id, RawAnswer::AllowOnce).unwrap();
    let done = tokio::time::timeout(Duration::from_secs(30), waiting).await.unwrap().unwrap();
    assert!(!done.is_error.unwrap_or(false), "{}", text(&done));
    assert_eq!(written(&setup), "approved");
    assert_eq!(
        last_audit(&setup).await,
        (
            Some(gatehouse_core::approval::model::Agent::registered("chat")),
            "update_cells".into(),
            DecisionSource::Person
        )
    );

    // Its use was recorded, without the request waiting for it.
    let mut recorded = None;
    for _ in 0..500 {
        recorded = setup.store.get_assistant(&chat.assistant.id).await.unwrap().unwrap().last_used;
        if recorded.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(recorded.is_some(), "the assistant's last use was not recorded");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn with_the_servers_own_token_calls_are_attributed_to_the_clients_name() {
    let setup = setup().await;
    let client = connect(&setup, SERVER_TOKEN).await;
    let waiting = write(&setup, &client, "declined");
    let card = wait_for_card(&setup).await;
    assert_eq!(
        card.agent,
        Some(gatehouse_core::approval::model::Agent::self_reported(CLIENT_NAME)),
        "only what the client says of itself"
    );
    setup.engine.approvals().broker().answer(card.id, RawAnswer::Deny).unwrap();
    let done = tokio::time::timeout(Duration::from_secs(30), waiting).await.unwrap().unwrap();
    assert!(done.is_error.unwrap_or(false));
    assert_eq!(written(&setup), "");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_revoked_token_is_refused_with_401_on_the_next_request() {
    let setup = setup().await;
    let chat = setup.store.add_assistant("chat", true, Utc::now()).await.unwrap();
    let other = setup.store.add_assistant("other", true, Utc::now()).await.unwrap();
    let client = connect(&setup, &chat.token).await;
    assert!(!client.peer().list_all_tools().await.unwrap().is_empty());

    assert!(setup.store.revoke_assistant(&chat.assistant.id, Utc::now()).await.unwrap());
    let call = client.peer().call_tool(CallToolRequestParams::new("get_storage_quota")).await;
    assert!(call.is_err(), "a call with a revoked token got an answer: {call:?}");

    let initialize = json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"probe","version":"1"}}});
    let post = |token: &str| {
        reqwest::Client::new()
            .post(&setup.url)
            .bearer_auth(token)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(initialize.to_string())
            .send()
    };
    let refused = post(&chat.token).await.unwrap();
    assert_eq!(refused.status(), 401);
    let body = refused.text().await.unwrap();
    assert!(body.contains("“chat” was revoked on") && body.contains("gatehouse assistants add"), "{body}");
    assert_eq!(post(&other.token).await.unwrap().status(), 200, "another assistant's token still works");
}

/// Issue 15: a body that is not JSON used to get HTTP 415 and a plain-text serde message. Every bad body gets
/// a JSON-RPC error (`"id": null`) and the server goes on serving the same client.
#[tokio::test]
async fn a_malformed_body_gets_a_jsonrpc_parse_error_and_the_server_keeps_serving() {
    let setup = setup().await;
    let post = |content_type: &'static str, body: String| {
        reqwest::Client::new()
            .post(&setup.url)
            .bearer_auth(SERVER_TOKEN)
            .header("content-type", content_type)
            .header("accept", "application/json, text/event-stream")
            .body(body)
            .send()
    };
    let error_of = |body: &str| -> (Value, Value) {
        let body: Value = serde_json::from_str(body).unwrap_or_else(|e| panic!("not a JSON body ({e}): {body}"));
        assert_eq!((&body["jsonrpc"], &body["id"]), (&json!("2.0"), &Value::Null), "{body}");
        (body["error"]["code"].clone(), body["error"]["message"].clone())
    };

    for malformed in ["{\"jsonrpc\":\"2.0\",\"id\":1,", "not json at all", ""] {
        let answer = post("application/json", malformed.to_owned()).await.unwrap();
        assert_eq!(answer.status(), 400, "{malformed:?}");
        assert!(answer.headers()["content-type"].to_str().unwrap().starts_with("application/json"));
        let (code, message) = error_of(&answer.text().await.unwrap());
        assert_eq!(code, json!(-32700), "{malformed:?}: {message}");
        assert!(message.as_str().unwrap().contains("not valid JSON"), "{message}");
    }

    // JSON, but no JSON-RPC message: an invalid request.
    let answer = post("application/json", json!({ "hello": "world" }).to_string()).await.unwrap();
    assert_eq!(answer.status(), 400);
    assert_eq!(error_of(&answer.text().await.unwrap()).0, json!(-32600));

    // The wrong Content-Type keeps its 415, with a JSON-RPC body saying what to send.
    let initialize = json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"probe","version":"1"}}});
    let answer = post("text/plain", initialize.to_string()).await.unwrap();
    assert_eq!(answer.status(), 415);
    let (code, message) = error_of(&answer.text().await.unwrap());
    assert_eq!(code, json!(-32600));
    assert!(message.as_str().unwrap().contains("Content-Type: application/json"), "{message}");

    // Still serving: the same request as JSON is answered, and a client connects and lists the tools.
    assert_eq!(post("application/json", initialize.to_string()).await.unwrap().status(), 200);
    let client = connect(&setup, SERVER_TOKEN).await;
    assert!(!client.peer().list_all_tools().await.unwrap().is_empty());
    client.cancel().await.unwrap();
}

/// A client without an assistant's token that gives a registered assistant's name as its own is refused,
/// and nothing runs: the name is that assistant's, and its calls are known by its token (issue 15, item 5).
#[tokio::test]
async fn a_client_claiming_a_registered_assistants_name_without_its_token_is_refused() {
    let setup = setup().await;
    setup.store.add_assistant(CLIENT_NAME, true, Utc::now()).await.unwrap();
    let client = connect(&setup, SERVER_TOKEN).await;
    let refused = tokio::time::timeout(Duration::from_secs(10), write(&setup, &client, "claimed"))
        .await
        .expect("the claim was refused at once, without a card")
        .unwrap();
    assert!(refused.is_error.unwrap_or(false), "{}", text(&refused));
    assert!(text(&refused).contains("Connect with that assistant's token"), "{}", text(&refused));
    assert!(setup.engine.approvals().broker().pending().is_empty(), "nobody was asked");
    assert_eq!(written(&setup), "");
    assert_eq!(
        last_audit(&setup).await,
        (
            Some(gatehouse_core::approval::model::Agent::self_reported(CLIENT_NAME)),
            "update_cells".into(),
            DecisionSource::AgentName
        )
    );
    client.cancel().await.unwrap();
}
