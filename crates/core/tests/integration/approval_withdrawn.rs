//! The rule for a call whose assistant goes away while it waits for the person: whatever drops the waiting call
//! (the MCP client cancelling it, its connection closing, a relay hanging up on the control socket, the HTTP
//! request being dropped) withdraws its card at once, nobody can answer it any more, and the audit log records
//! it as withdrawn by the assistant: not run, not the person's refusal, not a timeout.
//!
//! A real engine with a SQLite store, the Google emulator, the real control socket and the real streamable HTTP
//! server with rmcp's client (or plain HTTP, to drop a request mid-call).

use crate::store_engine;

use std::sync::Arc;
use std::time::Duration;

use gatehouse_core::approval::broker::{AnswerError, BrokerEvent, PendingCard};
use gatehouse_core::approval::card::RawAnswer;
use gatehouse_core::approval::model::{AuditEntry, CallOutcome, Caller, DecisionSource, Verdict};
use gatehouse_core::approval::store::{AuditQuery, Store};
use gatehouse_core::approval::{CallMeta, Permit};
use gatehouse_core::control::{Client, ControlHandle};
use gatehouse_core::{Engine, mcp};
use google_fake::{FakeGoogle, Fault, Identity};
use rmcp::model::{
    CallToolRequestParams, ClientCapabilities, ClientConfig, ClientRequest, Implementation, ServerResult,
};
use rmcp::service::{PeerRequestOptions, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Map, Value, json};
use tokio::sync::broadcast;
use tokio_util::sync::CancellationToken;

const ADA: &str = "ada@example.com";
const AGENT: &str = "claude";
const SERVER_TOKEN: &str = "the-servers-own-token";
/// How soon a withdrawn card must be gone.
const AT_ONCE: Duration = Duration::from_secs(2);

struct Setup {
    google: FakeGoogle,
    home: tempfile::TempDir,
    engine: Arc<Engine>,
    store: Store,
    sheet: String,
    events: broadcast::Receiver<BrokerEvent>,
    cancel: CancellationToken,
}

impl Drop for Setup {
    fn drop(&mut self) {
        self.cancel.cancel();
    }
}

/// An engine signed in as Ada over a real store, with no policy: every write asks the person.
async fn setup() -> Setup {
    let google = FakeGoogle::start().await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let sheet = google.world().create_spreadsheet("Budget", &[("Sales", vec![vec![json!("a")]])], &Identity::user(ADA));
    let (engine, store) = store_engine::engine_over_store(&google, home.path(), ADA, |_| {}).await;
    let events = engine.approvals().broker().subscribe();
    Setup { google, home, engine, store, sheet, events, cancel: CancellationToken::new() }
}

impl Setup {
    fn arguments(&self, value: &str) -> Map<String, Value> {
        let Value::Object(arguments) =
            json!({ "spreadsheet_id": self.sheet, "sheet": "Sales", "range": "B1", "data": [[value]] })
        else {
            unreachable!()
        };
        arguments
    }

    fn written(&self) -> String {
        let values = self.google.world().sheets.values(&self.sheet, "Sales");
        values.first().and_then(|row| row.get(1)).cloned().unwrap_or_default()
    }

    /// The card that appears next.
    async fn card(&mut self) -> PendingCard {
        let added = tokio::time::timeout(Duration::from_secs(20), async {
            loop {
                if let BrokerEvent::Added(card) = self.events.recv().await.unwrap() {
                    return *card;
                }
            }
        });
        added.await.expect("a card appeared")
    }

    /// Asserts `card` is withdrawn within [`AT_ONCE`]: gone from the broker, with a `Removed` event, and an
    /// answer to it is refused as no longer pending.
    async fn assert_withdrawn(&mut self, card: &PendingCard) {
        let removed = tokio::time::timeout(AT_ONCE, async {
            loop {
                if let BrokerEvent::Removed(id) = self.events.recv().await.unwrap() {
                    return id;
                }
            }
        });
        assert_eq!(removed.await.expect("the card was withdrawn at once"), card.id);
        let broker = self.engine.approvals().broker();
        assert!(broker.pending().is_empty(), "{:?}", broker.pending());
        assert_eq!(broker.answer(card.id, RawAnswer::AllowOnce), Err(AnswerError::NotPending(card.id)));
    }

    /// The one audit record, once written.
    async fn only_record(&self) -> AuditEntry {
        tokio::time::timeout(AT_ONCE, self.engine.approvals().settle()).await.expect("the record was written");
        let records = self.store.list_audit(&AuditQuery::default()).await.unwrap();
        assert_eq!(records.len(), 1, "{records:?}");
        records.into_iter().next().unwrap().entry
    }

    /// Serves MCP over streamable HTTP; returns its URL.
    async fn serve_http(&self) -> String {
        let listener = mcp::http::bind("127.0.0.1:0".parse().unwrap()).await.unwrap();
        let url = format!("http://{}/mcp", listener.local_addr().unwrap());
        tokio::spawn(mcp::http::serve(Arc::clone(&self.engine), listener, SERVER_TOKEN, self.cancel.clone()));
        url
    }
}

#[track_caller]
fn assert_recorded_as_withdrawn(entry: &AuditEntry, agent: Option<&str>) {
    assert_eq!(entry.tool, "update_cells");
    assert_eq!(entry.agent.as_ref().map(|agent| agent.name.as_str()), agent);
    assert_eq!(entry.source, DecisionSource::Withdrawn, "not the person, not a timeout");
    assert_eq!(entry.verdict, Verdict::Denied, "it did not run");
    assert_eq!(entry.outcome, CallOutcome::Refused);
    assert_eq!(entry.source.to_string(), "withdrawn");
}

fn meta() -> CallMeta {
    CallMeta {
        caller: Caller { agent: Some(gatehouse_core::approval::model::Agent::self_reported(AGENT)), interactive: true },
        retry_marked: false,
        request: None,
        origin: None,
    }
}

#[tokio::test]
async fn a_call_dropped_while_it_waits_withdraws_its_card_and_is_recorded_as_withdrawn() {
    let mut setup = setup().await;
    let call = tokio::spawn({
        let (engine, arguments) = (Arc::clone(&setup.engine), setup.arguments("unasked"));
        async move { engine.call_as(&meta(), "update_cells", Some(arguments)).await }
    });
    let card = setup.card().await;
    call.abort();
    assert!(call.await.unwrap_err().is_cancelled());

    setup.assert_withdrawn(&card).await;
    let entry = setup.only_record().await;
    assert_recorded_as_withdrawn(&entry, Some(AGENT));
    assert_eq!(setup.written(), "", "the withdrawn write did not happen");
}

#[tokio::test]
async fn a_dropped_permit_takes_its_card_away_without_counting_as_an_answer() {
    let mut setup = setup().await;
    let tool = setup.engine.tool("update_cells").unwrap().clone();
    let args = Value::Object(setup.arguments("x"));
    let permit = tokio::spawn({
        let (approvals, tool, args) = (Arc::clone(setup.engine.approvals()), tool.clone(), args.clone());
        async move { approvals.permit(&tool, &args, &meta(), Some(ADA)).await }
    });
    let card = setup.card().await;
    permit.abort();
    let _ = permit.await;
    setup.assert_withdrawn(&card).await;

    // Nobody answered it, so the same call again is no retry: the card offers Always allow.
    let again = tokio::spawn({
        let (approvals, tool, args) = (Arc::clone(setup.engine.approvals()), tool, args);
        async move { approvals.permit(&tool, &args, &meta(), Some(ADA)).await }
    });
    let card = setup.card().await;
    assert!(!card.retry && card.offer.grantable, "{card:?}");
    setup.engine.approvals().broker().answer(card.id, RawAnswer::AllowOnce).unwrap();
    assert_eq!(again.await.unwrap(), Permit::Run { source: DecisionSource::Person });
}

#[tokio::test]
async fn an_answered_call_is_recorded_once_as_the_persons() {
    let mut setup = setup().await;
    let call = tokio::spawn({
        let (engine, arguments) = (Arc::clone(&setup.engine), setup.arguments("approved"));
        async move { engine.call_as(&meta(), "update_cells", Some(arguments)).await }
    });
    let card = setup.card().await;
    setup.engine.approvals().broker().answer(card.id, RawAnswer::AllowOnce).unwrap();
    let reply = call.await.unwrap().unwrap();
    assert!(!reply.is_error, "{}", reply.text);
    let entry = setup.only_record().await;
    assert_eq!(
        (entry.source, entry.verdict, entry.outcome),
        (DecisionSource::Person, Verdict::Allowed, CallOutcome::Ok)
    );
    assert_eq!(setup.written(), "approved");
}

#[tokio::test]
async fn a_call_stopped_while_it_runs_is_recorded_as_approved_and_cut_short() {
    let mut setup = setup().await;
    // Google is slow to answer the write, so the call is still running when its assistant goes.
    setup.google.inject(Fault::delay("/v4/spreadsheets", 10_000, 100));
    let call = tokio::spawn({
        let (engine, arguments) = (Arc::clone(&setup.engine), setup.arguments("slow"));
        async move { engine.call_as(&meta(), "update_cells", Some(arguments)).await }
    });
    let card = setup.card().await;
    setup.engine.approvals().broker().answer(card.id, RawAnswer::AllowOnce).unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(!call.is_finished(), "the write should still be waiting for Google");
    call.abort();
    let _ = call.await;

    let entry = setup.only_record().await;
    assert_eq!((entry.source, entry.verdict), (DecisionSource::Person, Verdict::Allowed), "the person's approval");
    match entry.outcome {
        CallOutcome::Error(message) => assert!(message.contains("stopped waiting while the call ran"), "{message}"),
        other => panic!("expected the cut-short call's error, got {other:?}"),
    }
}

#[tokio::test]
async fn a_relay_that_hangs_up_on_the_control_socket_withdraws_its_call() {
    let mut setup = setup().await;
    let _control: ControlHandle =
        gatehouse_core::control::serve(Arc::clone(&setup.engine), setup.home.path(), setup.cancel.clone())
            .await
            .unwrap();
    let mut relay = Client::connect_all(setup.home.path()).await.unwrap().remove(0);
    let arguments = setup.arguments("relayed");
    // The relay's own call, as `gatehouse serve` makes it for its assistant; dropped when its assistant goes.
    let call = tokio::spawn(async move { relay.call("update_cells", Some(arguments), meta()).await });
    let card = setup.card().await;
    call.abort();
    let _ = call.await;

    setup.assert_withdrawn(&card).await;
    assert_recorded_as_withdrawn(&setup.only_record().await, Some(AGENT));
    assert_eq!(setup.written(), "");
}

type HttpClient = RunningService<RoleClient, ClientConfig>;

async fn connect(url: &str) -> HttpClient {
    let mut config = StreamableHttpClientTransportConfig::with_uri(url);
    config.auth_header = Some(SERVER_TOKEN.to_owned());
    let transport = StreamableHttpClientTransport::with_client(reqwest::Client::new(), config);
    let info = ClientConfig::new(ClientCapabilities::default(), Implementation::new(AGENT, "1"));
    info.serve(transport).await.unwrap()
}

#[tokio::test]
async fn an_http_client_that_cancels_its_call_withdraws_it() {
    let mut setup = setup().await;
    let url = setup.serve_http().await;
    let client = connect(&url).await;
    let request = ClientRequest::CallToolRequest(rmcp::model::Request::new(
        CallToolRequestParams::new("update_cells").with_arguments(setup.arguments("cancelled")),
    ));
    let handle = client.peer().send_cancellable_request(request, PeerRequestOptions::no_options()).await.unwrap();
    let card = setup.card().await;
    handle.cancel(Some("the person pressed stop".into())).await.unwrap();

    setup.assert_withdrawn(&card).await;
    assert_recorded_as_withdrawn(&setup.only_record().await, Some(AGENT));
    assert_eq!(setup.written(), "");

    // The connection itself carries on: the next call asks again, and is answered.
    let next = tokio::spawn({
        let peer = client.peer().clone();
        let arguments = setup.arguments("next");
        async move {
            let request = ClientRequest::CallToolRequest(rmcp::model::Request::new(
                CallToolRequestParams::new("update_cells").with_arguments(arguments),
            ));
            peer.send_request(request).await
        }
    });
    let card = setup.card().await;
    setup.engine.approvals().broker().answer(card.id, RawAnswer::AllowOnce).unwrap();
    assert!(matches!(next.await.unwrap().unwrap(), ServerResult::CallToolResult(_)));
    assert_eq!(setup.written(), "next");
    client.cancel().await.unwrap();
}

/// One JSON-RPC message POSTed as a streamable HTTP client does.
fn post(url: &str, session: Option<&str>, body: Value) -> reqwest::RequestBuilder {
    let request = reqwest::Client::new()
        .post(url)
        .bearer_auth(SERVER_TOKEN)
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .header("mcp-protocol-version", "2025-06-18")
        .json(&body);
    match session {
        Some(session) => request.header("mcp-session-id", session),
        None => request,
    }
}

#[tokio::test]
async fn an_http_client_that_drops_its_request_withdraws_the_call() {
    let mut setup = setup().await;
    let url = setup.serve_http().await;
    let initialize = json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": { "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": { "name": AGENT, "version": "1" } }
    });
    let initialized = post(&url, None, initialize).send().await.unwrap();
    assert!(initialized.status().is_success(), "{initialized:?}");
    let session = initialized.headers()["mcp-session-id"].to_str().unwrap().to_owned();
    drop(initialized.text().await.unwrap());
    let notified = post(&url, Some(&session), json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }))
        .send()
        .await
        .unwrap();
    assert!(notified.status().is_success(), "{notified:?}");

    let call = json!({
        "jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": { "name": "update_cells", "arguments": setup.arguments("dropped") }
    });
    let waiting = post(&url, Some(&session), call).send().await.unwrap();
    assert!(waiting.status().is_success(), "{waiting:?}");
    let card = setup.card().await;
    // The client hangs up: no cancel notification, the request's stream just goes away.
    drop(waiting);

    setup.assert_withdrawn(&card).await;
    assert_recorded_as_withdrawn(&setup.only_record().await, Some(AGENT));
    assert_eq!(setup.written(), "");
}
