//! The card window is made ahead of the first card once cards become likely, and not before: at launch in a
//! home assistants used before or with an assistant set up to start Gatehouse, when the person opens the
//! *Assistants* page or connects an assistant there, and when the first assistant connects. A real sandbox
//! core (its control socket accepting relays, its store on disk) and a relay attaching as `gatehouse serve`
//! does, with the app on Tauri's mock runtime and the app's real configuration and capabilities. (The mock runtime reports every window visible, so that the prepared
//! window is hidden is checked in real WebKit by the desktop benchmark, tests/bench/desktop.rs.)

use crate::mock;

use std::time::{Duration, Instant};

use gatehouse_core::Engine;
use gatehouse_core::approval::broker::{Dismissal, PendingCard};
use gatehouse_core::approval::model::Caller;
use gatehouse_core::approval::{CallMeta, Permit};
use gatehouse_core::config::Config;
use gatehouse_core::connect;
use gatehouse_core::host::{Host, HostOptions};
use gatehouse_core::mcp::relay::Relay;
use gatehouse_desktop::settings::assistants::Connector;
use gatehouse_desktop::settings::{self, Core};
use gatehouse_desktop::startup::Mode;
use gatehouse_desktop::{Cards, card, context, with_commands};
use mock::invoke;
use serde_json::json;
use tauri::test::{MockRuntime, mock_builder};
use tauri::{App, Manager};

async fn sandbox_host(home: &std::path::Path) -> Host {
    let host = Host::start(HostOptions { config: Config::with_home(home), sandbox: true }).await.expect("the host");
    host.control().expect("a control socket").accept_relays();
    host
}

/// The app as `run` sets it up for cards: the queue's commands and the card watcher with the core's signals.
async fn app(engine: &Engine) -> App<MockRuntime> {
    app_with(engine, None).await
}

/// [`app`], looking for assistants set up to start Gatehouse with `set_up_in`.
async fn app_with(engine: &Engine, set_up_in: Option<card::SetUpIn>) -> App<MockRuntime> {
    let app = with_commands(mock_builder()).build(context()).expect("the app builds on the mock runtime");
    app.manage(Cards::new(engine.approvals().clone()));
    let connections = engine.assistant_connections();
    let ahead = card::Ahead { connections, used_before: engine.used_by_assistants().await, set_up_in };
    card::watch_and_prepare(app.handle().clone(), engine.approvals().clone(), Some(ahead));
    app
}

/// Waits a while and checks no card window was made.
async fn no_card_window_yet(app: &App<MockRuntime>) {
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(app.get_webview_window(card::LABEL).is_none(), "the card window was made with no card likely");
}

async fn until_card_window(app: &App<MockRuntime>, what: &str) -> tauri::WebviewWindow<MockRuntime> {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if let Some(window) = app.get_webview_window(card::LABEL) {
            return window;
        }
        assert!(Instant::now() < deadline, "{what}: no card window within 10 s");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// A call of `update_cells` waiting for the person, as an assistant's call makes one.
fn ask(engine: &std::sync::Arc<Engine>, spreadsheet: &str) -> tokio::task::JoinHandle<Permit> {
    let engine = engine.clone();
    let args = json!({ "spreadsheet_id": spreadsheet, "sheet": "Sales", "range": "A1", "data": [["x"]] });
    tokio::spawn(async move {
        let tool = engine.tool("update_cells").expect("update_cells");
        let meta = CallMeta {
            caller: Caller {
                agent: Some(gatehouse_core::approval::model::Agent::self_reported("claude")),
                interactive: true,
            },
            ..CallMeta::default()
        };
        engine.approvals().permit(tool, &args, &meta, Some("sandbox@gatehouse.example")).await
    })
}

fn listed(window: &tauri::WebviewWindow<MockRuntime>) -> Vec<PendingCard> {
    serde_json::from_value(invoke(window, "card_pending", json!({})).expect("the card may list")).expect("cards")
}

/// The core serves as soon as it starts, while the app is still making its tray and its first window: an
/// assistant that was waiting for the app can have a card waiting before the card watcher starts. That card
/// is shown, not lost with the event nobody was listening to yet. (Seen in the desktop tests: a call relayed
/// while the welcome window was being made never got its card.)
#[tokio::test(flavor = "multi_thread")]
async fn a_card_waiting_before_the_app_watches_the_queue_is_shown() {
    let home = tempfile::tempdir().expect("temp dir");
    let host = sandbox_host(home.path()).await;
    let engine = host.engine().clone();
    let waiting = ask(&engine, "S0");
    let deadline = Instant::now() + Duration::from_secs(10);
    while engine.approvals().broker().pending().is_empty() {
        assert!(Instant::now() < deadline, "the call did not wait for the person");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }

    // No assistant connected and a fresh home: only the waiting card can make the window.
    let app = app(&engine).await;
    let window = until_card_window(&app, "with a card already waiting").await;
    let deadline = Instant::now() + Duration::from_secs(10);
    while listed(&window).is_empty() {
        assert!(Instant::now() < deadline, "the waiting card is not in the window");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(listed(&window)[0].tool, "update_cells");
    engine.approvals().broker().dismiss_all(Dismissal::ShuttingDown);
    waiting.await.expect("the call ends");
    host.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_relay_attaching_makes_the_card_window_before_any_card_and_the_card_then_shows_in_it() {
    let home = tempfile::tempdir().expect("temp dir");
    let host = sandbox_host(home.path()).await;
    let engine = host.engine().clone();
    let app = app(&engine).await;

    // A fresh home and no assistant yet: no window (and none of WebKit's processes, in the real app).
    no_card_window_yet(&app).await;

    // An assistant starts `gatehouse serve`, which attaches to this app over the control socket.
    let _relay = Relay::connect(home.path().to_owned()).await.expect("the relay connects").expect("the host runs");
    let prepared = until_card_window(&app, "after a relay attached").await;
    assert!(prepared.url().expect("its URL").path().ends_with("card.html"), "{:?}", prepared.url());
    assert!(engine.approvals().broker().pending().is_empty(), "the window was made with no card waiting");
    assert!(listed(&prepared).is_empty());

    // The first card shows in that same window.
    let waiting = ask(&engine, "S1");
    let deadline = Instant::now() + Duration::from_secs(10);
    while listed(&prepared).is_empty() {
        assert!(Instant::now() < deadline, "the card did not reach the prepared window");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(listed(&prepared)[0].tool, "update_cells");
    assert_eq!(app.webview_windows().len(), 1, "a second card window was made: {:?}", app.webview_windows().keys());
    engine.approvals().broker().dismiss_all(Dismissal::ShuttingDown);
    waiting.await.expect("the call ends");
    host.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn an_http_initialize_makes_the_card_window_and_a_card_arriving_with_it_gets_one_window() {
    let home = tempfile::tempdir().expect("temp dir");
    let host = sandbox_host(home.path()).await;
    let engine = host.engine().clone();
    let (addr, _served) = host.serve_http("127.0.0.1:0".parse().expect("an address")).await.expect("HTTP");
    let app = app(&engine).await;
    no_card_window_yet(&app).await;

    // An MCP `initialize` over HTTP, with the server's token, and a card at the same moment: the window being
    // made for the assistant and the card's own never make two windows, and the card shows.
    let token = gatehouse_core::mcp::token::load_or_create(home.path()).expect("the server's token");
    let waiting = ask(&engine, "S2");
    let initialized = reqwest::Client::new()
        .post(format!("http://{addr}/mcp"))
        .bearer_auth(token)
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .body(
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "Claude Desktop", "version": "1"}}})
            .to_string(),
        )
        .send()
        .await
        .expect("the server answers");
    assert!(initialized.status().is_success(), "initialize was refused: {}", initialized.status());
    let window = until_card_window(&app, "after an HTTP initialize").await;
    let deadline = Instant::now() + Duration::from_secs(10);
    while listed(&window).is_empty() {
        assert!(Instant::now() < deadline, "the card did not reach the window");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(*engine.assistant_connections().borrow() >= 1, "the initialize was not counted");
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(app.webview_windows().len(), 1, "two card windows: {:?}", app.webview_windows().keys());
    engine.approvals().broker().dismiss_all(Dismissal::ShuttingDown);
    waiting.await.expect("the call ends");
    host.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn in_a_home_assistants_used_before_the_card_window_is_made_at_launch() {
    let home = tempfile::tempdir().expect("temp dir");
    // A first run: an assistant's call lands in the audit log.
    let host = sandbox_host(home.path()).await;
    let reply = host.engine().call("list_spreadsheets", None).await.expect("a known tool");
    assert!(!reply.is_error, "{reply:?}");
    host.engine().approvals().settle().await;
    host.shutdown().await;

    // The next launch makes the window with no assistant connected yet.
    let host = sandbox_host(home.path()).await;
    let engine = host.engine().clone();
    let app = app(&engine).await;
    let prepared = until_card_window(&app, "at launch in a used home").await;
    assert_eq!(*engine.assistant_connections().borrow(), 0, "an assistant connected after all");
    assert!(listed(&prepared).is_empty(), "the window was made with no card waiting");
    host.shutdown().await;
}

/// An assistant whose config file already starts Gatehouse (pasted by hand, or connected in an earlier run)
/// will call: the window is made at launch of a fresh home too. Other servers in that file are not enough.
#[tokio::test(flavor = "multi_thread")]
async fn an_assistant_set_up_to_start_gatehouse_makes_the_card_window_at_launch() {
    let home = tempfile::tempdir().expect("temp dir");
    let user_home = home.path().join("user");
    let config = user_home.join(".cursor").join("mcp.json");
    std::fs::create_dir_all(config.parent().expect("a folder")).expect("Cursor's folder");
    let set_up_in = |user_home: &std::path::Path| -> card::SetUpIn {
        let env = user_home.display().to_string();
        Box::new(move || {
            let found = connect::set_up_in(connect::ENTRY_NAME, &|name| (name == "HOME").then(|| env.clone()));
            found.map(|client| client.name)
        })
    };

    // Cursor with another server only: a fresh home, so no window.
    std::fs::write(&config, r#"{"mcpServers": {"github": {"command": "docker", "args": ["run"]}}}"#)
        .expect("Cursor's config");
    let host = sandbox_host(home.path()).await;
    let app = app_with(host.engine(), Some(set_up_in(&user_home))).await;
    no_card_window_yet(&app).await;
    host.shutdown().await;
    drop(app);

    // The person pastes the app's snippet into Cursor's file and starts Gatehouse again.
    let cursor = connect::find_client("cursor").expect("Cursor is known");
    let entry =
        connect::ServerEntry::gatehouse(std::path::Path::new("/opt/gatehouse/bin/gatehouse"), false).expect("an entry");
    std::fs::write(&config, connect::snippet(Some(cursor), &entry)).expect("Cursor's config");
    let host = sandbox_host(home.path()).await;
    let engine = host.engine().clone();
    assert!(!engine.used_by_assistants().await, "the home was used after all");
    let app = app_with(&engine, Some(set_up_in(&user_home))).await;
    let prepared = until_card_window(&app, "at launch with Cursor set up").await;
    assert_eq!(*engine.assistant_connections().borrow(), 0, "an assistant connected after all");
    assert!(listed(&prepared).is_empty(), "the window was made with no card waiting");
    host.shutdown().await;
}

/// Each of the *Assistants* page's ways to connect an assistant makes the card window: opening the page (its
/// snippet may be copied into an assistant by hand), *Connect*, and a token.
#[tokio::test(flavor = "multi_thread")]
async fn the_assistants_page_makes_the_card_window() {
    let commands = [
        ("assistants_list", json!({})),
        ("assistants_connect", json!({ "client": "cursor" })),
        ("assistants_create_token", json!({ "name": "my-notebook" })),
    ];
    for (command, args) in commands {
        let home = tempfile::tempdir().expect("temp dir");
        let host = sandbox_host(home.path()).await;
        let engine = host.engine().clone();
        let app = app(&engine).await;
        app.manage(Core {
            engine: engine.clone(),
            config: Config::with_home(home.path()),
            mode: Mode::Sandbox { because_signed_out: false },
            http: None,
        });
        // The assistants' config files in a folder of the test's own, and a `gatehouse` program for the entry.
        let user_home = home.path().join("user");
        std::fs::create_dir_all(&user_home).expect("a HOME");
        let program = format!("gatehouse{}", std::env::consts::EXE_SUFFIX);
        std::fs::write(home.path().join(program), "#!/bin/sh\n").expect("a gatehouse program");
        let env = user_home.display().to_string();
        app.manage(Connector::new(move |name| (name == "HOME").then(|| env.clone()), home.path()));
        no_card_window_yet(&app).await;

        let settings_window = mock::window(&app, settings::LABEL);
        invoke(&settings_window, command, args).unwrap_or_else(|error| panic!("{command} failed: {error}"));
        let prepared = until_card_window(&app, command).await;
        assert!(listed(&prepared).is_empty(), "{command}: the window was made with no card waiting");
        host.shutdown().await;
    }
}
