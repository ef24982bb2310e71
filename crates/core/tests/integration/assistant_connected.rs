//! The core's "an assistant connected" signal ([`Engine::assistant_connections`]), which the desktop app waits
//! for to make its approval card window ahead of the first card. A real engine and store behind real streamable
//! HTTP (rmcp's client in front) and the real control socket (a relay as `gatehouse serve` makes one, and a
//! terminal's `gatehouse approvals`): an MCP `initialize` (or, for a 2026-07-28 client, its `server/discover`)
//! and a relay attaching each count once; a refused HTTP request and a terminal asking about approvals don't
//! count.

use crate::store_engine;

use std::sync::Arc;
use std::time::Duration;

use gatehouse_core::approval::store::Store;
use gatehouse_core::control::{self, Client};
use gatehouse_core::mcp::relay::Relay;
use gatehouse_core::{Engine, mcp};
use google_fake::FakeGoogle;
use rmcp::ServiceExt;
use rmcp::model::{ClientCapabilities, ClientConfig, Implementation, ProtocolVersion};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

const USER: &str = "ada@example.com";
const SERVER_TOKEN: &str = "the-servers-own-token";

/// Waits until `count` assistants have connected, or fails saying how many did.
async fn until_count(connections: &mut watch::Receiver<u64>, count: u64) {
    let reached = tokio::time::timeout(Duration::from_secs(10), connections.wait_for(|seen| *seen >= count))
        .await
        .is_ok_and(|seen| seen.is_ok());
    assert!(reached, "expected {count} assistant connection(s), saw {}", *connections.borrow());
    assert_eq!(*connections.borrow(), count, "more connections were counted than assistants connected");
}

#[tokio::test]
async fn an_http_initialize_and_a_relay_attaching_each_signal_an_assistant_and_nothing_else_does() {
    let google = FakeGoogle::start().await.expect("the emulator starts");
    let home = tempfile::tempdir().expect("a temp home");
    let (engine, _store) = engine_in(home.path(), &google).await;
    let cancel = CancellationToken::new();
    let control = control::serve(Arc::clone(&engine), home.path(), cancel.clone()).await.expect("the control socket");
    control.accept_relays();
    let listener = mcp::http::bind("127.0.0.1:0".parse().expect("an address")).await.expect("a port");
    let url = format!("http://{}/mcp", listener.local_addr().expect("the bound address"));
    tokio::spawn(mcp::http::serve(Arc::clone(&engine), listener, SERVER_TOKEN, cancel.clone()));

    // A receiver made before anything connected starts at zero.
    let mut connections = engine.assistant_connections();
    assert_eq!(*connections.borrow_and_update(), 0);

    // A terminal asking the host about approvals is not an assistant.
    let mut terminal = Client::connect_host(home.path()).await.expect("the host answers").expect("a host runs");
    assert!(terminal.info().await.expect("info").host);
    assert!(terminal.pending().await.expect("pending").is_empty());
    // Nor is an HTTP request refused for its token.
    let refused = reqwest::Client::new()
        .post(&url)
        .bearer_auth("not-the-token")
        .header("accept", "application/json, text/event-stream")
        .json(&serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "x", "version": "1"}}}))
        .send()
        .await
        .expect("the server answers");
    assert_eq!(refused.status(), reqwest::StatusCode::UNAUTHORIZED);
    assert_eq!(*connections.borrow(), 0, "a terminal or a refused request counted as an assistant");

    // An MCP session initialised over HTTP.
    let mut transport = StreamableHttpClientTransportConfig::with_uri(url.as_str());
    transport.auth_header = Some(SERVER_TOKEN.to_owned());
    let transport = StreamableHttpClientTransport::with_client(reqwest::Client::new(), transport);
    let info = ClientConfig::new(ClientCapabilities::default(), Implementation::new("Claude Desktop", "1"));
    let client = info.serve(transport).await.expect("the HTTP session initialises");
    until_count(&mut connections, 1).await;
    // Its calls after the handshake don't count again.
    client.peer().list_all_tools().await.expect("tools/list");
    assert_eq!(*connections.borrow(), 1);

    // A `gatehouse serve` relay attaching over the control socket, as an assistant starts one.
    let relay = Relay::connect(home.path().to_owned()).await.expect("the relay connects").expect("a host runs");
    assert!(!relay.is_sandbox_host());
    until_count(&mut connections, 2).await;

    // A receiver made after the connections sees them at once (the desktop app may subscribe late).
    assert_eq!(*engine.assistant_connections().borrow(), 2);

    client.cancel().await.expect("the HTTP session closes");
    control.shutdown().await;
    cancel.cancel();
}

/// A 2026-07-28 client has no `initialize`: its `server/discover` is the connection the desktop app waits for,
/// counted once, and its stateless requests after it don't count again.
#[tokio::test]
async fn a_2026_client_discovering_the_server_over_http_signals_an_assistant_once() {
    let google = FakeGoogle::start().await.expect("the emulator starts");
    let home = tempfile::tempdir().expect("a temp home");
    let (engine, _store) = engine_in(home.path(), &google).await;
    let cancel = CancellationToken::new();
    let listener = mcp::http::bind("127.0.0.1:0".parse().expect("an address")).await.expect("a port");
    let url = format!("http://{}/mcp", listener.local_addr().expect("the bound address"));
    tokio::spawn(mcp::http::serve(Arc::clone(&engine), listener, SERVER_TOKEN, cancel.clone()));
    let mut connections = engine.assistant_connections();
    assert_eq!(*connections.borrow_and_update(), 0);

    let mut transport = StreamableHttpClientTransportConfig::with_uri(url.as_str());
    transport.auth_header = Some(SERVER_TOKEN.to_owned());
    let transport = StreamableHttpClientTransport::with_client(reqwest::Client::new(), transport);
    let info = ClientConfig::new(ClientCapabilities::default(), Implementation::new("Claude Desktop", "1"));
    let lifecycle = ClientLifecycleMode::Discover { preferred_versions: vec![ProtocolVersion::V_2026_07_28] };
    let client = info.serve_with_lifecycle(transport, lifecycle).await.expect("the client discovers the server");
    assert_eq!(
        client.peer().peer_info().map(|info| info.protocol_version.clone()),
        Some(ProtocolVersion::V_2026_07_28)
    );
    until_count(&mut connections, 1).await;
    client.peer().list_all_tools().await.expect("a stateless tools/list");
    client.peer().list_all_resources().await.expect("a stateless resources/list");
    assert_eq!(*connections.borrow(), 1, "a stateless request after discovery counted again");

    client.cancel().await.expect("the client closes");
    cancel.cancel();
}

/// The engine over the store in `home`, as a run of the app makes it.
async fn engine_in(home: &std::path::Path, google: &FakeGoogle) -> (Arc<Engine>, Store) {
    store_engine::engine_over_store(google, home, USER, |_| {}).await
}

/// The desktop app makes its card window at launch in a home assistants used before
/// ([`Engine::used_by_assistants`]), so it must survive a restart: a call in the audit log, or an assistant
/// registered for HTTP, says so; a fresh home does not.
#[tokio::test]
async fn a_home_remembers_across_runs_that_assistants_used_it() {
    let google = FakeGoogle::start().await.expect("the emulator starts");

    // A call, then a new run over the same file.
    let home = tempfile::tempdir().expect("a temp home");
    let (engine, store) = engine_in(home.path(), &google).await;
    assert!(!engine.used_by_assistants().await, "a fresh home says assistants used it");
    let reply = engine.call("list_spreadsheets", None).await.expect("a known tool");
    assert!(!reply.is_error, "the call failed: {reply:?}");
    engine.approvals().settle().await;
    assert!(engine.used_by_assistants().await, "a call in the audit log did not count");
    store.close().await;
    drop(engine);
    let (engine, store) = engine_in(home.path(), &google).await;
    assert!(engine.used_by_assistants().await, "the next run forgot the call");
    store.close().await;

    // An assistant registered for HTTP that has not called anything yet; revoked, it still counts.
    let home = tempfile::tempdir().expect("a temp home");
    let (engine, store) = engine_in(home.path(), &google).await;
    let added = store.add_assistant("nightly-report", false, chrono::Utc::now()).await.expect("added");
    assert!(engine.used_by_assistants().await, "a registered assistant did not count");
    store.revoke_assistant(&added.assistant.id, chrono::Utc::now()).await.expect("revoked");
    assert!(engine.used_by_assistants().await, "a revoked assistant stopped counting");
    store.close().await;
}
