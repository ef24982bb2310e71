//! Gatehouse's MCP client against a second, independent Google Sheets MCP server (issue 17, "Tests and
//! proof"): `tests/servers/sheets_mcp.py`, written with the official MCP Python SDK from the 2026-07-28
//! specification and Google's published `get_values` / `update_values` pages, not from our emulator. A bug
//! that Gatehouse's client and the emulator share (both are rmcp, both ours) can't pass here unseen.
//!
//! The server runs as a real process on loopback, on a port it picks and prints; Gatehouse reaches it the way
//! it reaches Google's servers under `GATEHOUSE_GOOGLE_ENDPOINT` (`<root>/mcp/sheets/v1` and `/v1self`), on
//! the `mcp` backend, signed in with the token the server was started with. What the server holds is read back
//! from its own `/state`, not through the client under test. Its Python is the venv that
//! `scripts/install-deps.sh --validators` makes; without it these tests fail and say so.

use std::path::PathBuf;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::future::BoxFuture;
use gatehouse_core::approval::broker::PendingCard;
use gatehouse_core::approval::card::RawAnswer;
use gatehouse_core::approval::model::Verdict;
use gatehouse_core::approval::policy::Policy;
use gatehouse_core::approval::store::{DATABASE_FILE, Store};
use gatehouse_core::config::{Config, GoogleBackend};
use gatehouse_core::engine::{ApprovalSetup, Reply};
use gatehouse_core::google::auth::{AuthError, StaticToken, TokenSource};
use gatehouse_core::google::mcp::{McpClient, McpError, McpOptions, Product};
use gatehouse_core::google::{Endpoints, RetryPolicy};
use gatehouse_core::{Engine, EngineOptions};
use rmcp::model::ProtocolVersion;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, BufReader};

const ADA: &str = "ada@example.com";
/// The one bearer token the server accepts.
const TOKEN: &str = "independent-test-token";
const SHEET_ID: &str = "py-budget-2026";
/// A sheet's name that A1 notation must quote.
const SHEET: &str = "Q1 Budget";
/// How long the server may take to start (importing the SDK on a busy 2-core machine takes seconds).
const STARTUP: Duration = Duration::from_secs(90);

const INSTALL: &str = "run `bash scripts/install-deps.sh --validators` (it makes the venv target/tools/py with the official MCP Python SDK, mcp 2.3.0)";

/// The workspace's root (this crate is `crates/core`).
fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The venv's Python (under `GATEHOUSE_TOOLS`, else the target folder's `tools`, where install-deps.sh puts
/// it, as for the SDK clients of the e2e tests); a missing one fails the test with what to run.
fn python() -> PathBuf {
    let tools = match std::env::var_os("GATEHOUSE_TOOLS") {
        Some(tools) => PathBuf::from(tools),
        None => std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root().join("target"), PathBuf::from).join("tools"),
    };
    let venv = tools.join("py");
    let python = if cfg!(windows) { venv.join("Scripts/python.exe") } else { venv.join("bin/python") };
    assert!(
        python.exists(),
        "The independent MCP server needs the official MCP Python SDK's venv, and {} is missing: {INSTALL}.",
        python.display()
    );
    python
}

/// The Python server, running; ended when dropped (and by itself when its standard input closes).
struct PyServer {
    child: tokio::process::Child,
    /// Held so that the server's standard input closes only when the test is done with it.
    _stdin: tokio::process::ChildStdin,
    root: String,
    stderr: Arc<Mutex<String>>,
}

impl PyServer {
    /// Starts `tests/servers/sheets_mcp.py` with Ada's "Budget" spreadsheet: sheet "Q1 Budget" holding
    /// Item/Cost, Tea/3, and an empty "Notes".
    async fn start() -> Self {
        Self::start_with(&[]).await
    }

    /// [`PyServer::start`], with `options` on the server's command line.
    async fn start_with(options: &[&str]) -> Self {
        let seed = json!({
            SHEET_ID: {
                "title": "Budget",
                "sheets": { SHEET: [["Item", "Cost"], ["Tea", 3]], "Notes": [] }
            }
        });
        let script = root().join("tests/servers/sheets_mcp.py");
        let mut child = tokio::process::Command::new(python())
            .arg(&script)
            .args(["--token", TOKEN, "--seed", &seed.to_string()])
            .args(options)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .unwrap_or_else(|error| panic!("{} could not be started ({error}): {INSTALL}.", script.display()));
        let stdin = child.stdin.take().expect("piped stdin");
        let stdout = child.stdout.take().expect("piped stdout");
        let mut err = child.stderr.take().expect("piped stderr");
        let stderr = Arc::new(Mutex::new(String::new()));
        let collected = Arc::clone(&stderr);
        tokio::spawn(async move {
            let mut buffer = [0u8; 4096];
            while let Ok(read) = err.read(&mut buffer).await {
                if read == 0 {
                    break;
                }
                collected.lock().expect("stderr buffer").push_str(&String::from_utf8_lossy(&buffer[..read]));
            }
        });
        let mut lines = BufReader::new(stdout).lines();
        let first = tokio::time::timeout(STARTUP, lines.next_line()).await;
        let said = |what: &str| {
            std::thread::sleep(Duration::from_millis(200));
            format!(
                "The independent MCP server {what}. If the SDK is missing or out of date, {INSTALL}. Its stderr:\n{}",
                stderr.lock().expect("stderr buffer")
            )
        };
        let line = match first {
            Ok(Ok(Some(line))) => line,
            Ok(Ok(None)) | Ok(Err(_)) => panic!("{}", said("ended before it listened")),
            Err(_) => panic!("{}", said(&format!("did not listen within {} s", STARTUP.as_secs()))),
        };
        let root = line
            .strip_prefix("listening ")
            .unwrap_or_else(|| panic!("{}", said(&format!("printed {line:?} instead of `listening URL`"))))
            .to_owned();
        assert!(root.starts_with("http://127.0.0.1:"), "the server listens on loopback only: {root}");
        Self { child, _stdin: stdin, root, stderr }
    }

    /// What the server holds now, from its own `/state`: the spreadsheets as stored, the forms it asked,
    /// the forms still waiting for an answer, and the writes it made.
    async fn state(&self) -> Value {
        let response = reqwest::Client::new()
            .get(format!("{}/state", self.root))
            .bearer_auth(TOKEN)
            .send()
            .await
            .expect("the server answers /state");
        assert!(response.status().is_success(), "/state: {}", response.status());
        response.json().await.expect("/state is JSON")
    }

    /// The rows of `sheet` as the server stores them (typed, as written).
    async fn rows(&self, sheet: &str) -> Value {
        self.state().await["spreadsheets"][SHEET_ID]["sheets"][sheet].clone()
    }
}

impl Drop for PyServer {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!(
                "The independent MCP server's stderr:\n{}",
                self.stderr.lock().map(|s| s.clone()).unwrap_or_default()
            );
        }
        // kill_on_drop ends it too; this makes it now.
        let _ = self.child.start_kill();
    }
}

/// An engine on the Python server's root, on Google's MCP servers only, over a real approvals store (so
/// Google's forms are put on cards and recorded), signed in as Ada with the server's token.
async fn engine(server: &PyServer, home: &std::path::Path) -> (Arc<Engine>, Store) {
    let store = crate::support::open_store(&home.join(DATABASE_FILE)).await.expect("the store opens");
    let mut config = Config::with_home(home);
    config.google_endpoint = Some(server.root.parse().expect("the server's URL"));
    config.google_backend = GoogleBackend::Mcp;
    let engine = Engine::new(EngineOptions {
        config,
        tokens: Arc::new(StaticToken::new(TOKEN.to_owned(), Some(ADA.to_owned()))),
        sandbox: false,
        retry: RetryPolicy::default(),
        approvals: ApprovalSetup { store: Some(store.clone()), policy: Policy::default() },
    })
    .expect("the engine starts");
    (engine, store)
}

/// Gatehouse's MCP client of the Python server, signed in with `token`.
fn client(server: &PyServer, token: &str) -> McpClient {
    McpClient::new(McpOptions {
        http: reqwest::Client::new(),
        endpoints: Endpoints::new(Some(server.root.parse().expect("the server's URL"))),
        tokens: Arc::new(StaticToken::new(token.to_owned(), Some(ADA.to_owned()))),
        timeout: Duration::from_secs(30),
    })
}

async fn call(engine: &Engine, tool: &str, arguments: Value) -> Reply {
    engine.call(tool, arguments.as_object().cloned()).await.expect("a known tool")
}

/// The next card `engine` shows while `running` goes on (up to 30 s); a call that ends first fails the test.
async fn next_card(engine: &Engine, running: &mut tokio::task::JoinHandle<Reply>) -> PendingCard {
    for _ in 0..3000 {
        if let Some(card) = engine.approvals().broker().pending().into_iter().next() {
            return card;
        }
        if running.is_finished() {
            let reply = running.await.expect("the call ends");
            panic!("the call ended with no card: {}", reply.text);
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("no card appeared");
}

#[tokio::test(flavor = "multi_thread")]
async fn discovery_and_reads_work_against_an_independent_python_sdk_server() {
    let server = PyServer::start().await;
    let mcp = client(&server, TOKEN);
    let sheets = mcp.catalogue(Product::Sheets).await.expect("the Python server's tools are listed");
    assert_eq!(sheets.version, ProtocolVersion::V_2026_07_28, "spoken in 2026-07-28 with the Python SDK too");
    let get_values = sheets.tool("get_values").expect("get_values is listed");
    assert!(!get_values.always_asks, "get_values is on /v1self too");
    let schema = serde_json::to_value(get_values.definition.input_schema.as_ref()).expect("a schema");
    assert_eq!(schema["required"], json!(["spreadsheetId", "range"]), "{schema}");
    let update = sheets.tool("update_values").expect("update_values is listed");
    assert!(update.always_asks, "update_values is left out of /v1self: the server asks with a form at every call");

    let (engine, _store) = engine(&server, tempfile::tempdir().expect("home").path()).await;
    // A range on a sheet whose name must be quoted: Gatehouse's result shape, Google's cells as shown.
    let reply =
        call(&engine, "get_sheet_data", json!({ "spreadsheet_id": SHEET_ID, "sheet": SHEET, "range": "A1:B2" })).await;
    assert!(!reply.is_error, "{}", reply.text);
    let read: Value = serde_json::from_str(&reply.text).expect("JSON");
    assert_eq!(
        read,
        json!({
            "spreadsheet_id": SHEET_ID,
            "sheet": SHEET,
            "range": "'Q1 Budget'!A1:B2",
            "values": [["Item", "Cost"], ["Tea", "3"]],
        })
    );
    // The whole sheet: the range is the sheet's grid, trailing empty cells left out.
    let reply = call(&engine, "get_sheet_data", json!({ "spreadsheet_id": SHEET_ID, "sheet": SHEET })).await;
    assert!(!reply.is_error, "{}", reply.text);
    let whole: Value = serde_json::from_str(&reply.text).expect("JSON");
    assert_eq!(whole["range"], "'Q1 Budget'!A1:Z1000", "{whole}");
    assert_eq!(whole["values"], read["values"], "{whole}");
    // An empty range: Google leaves `values` out; Gatehouse's shape still has it, empty.
    let reply = call(&engine, "get_sheet_data", json!({ "spreadsheet_id": SHEET_ID, "sheet": "Notes" })).await;
    assert!(!reply.is_error, "{}", reply.text);
    let empty: Value = serde_json::from_str(&reply.text).expect("JSON");
    assert_eq!(empty, json!({ "spreadsheet_id": SHEET_ID, "sheet": "Notes", "range": "Notes!A1:Z1000", "values": [] }));
    // The server's refusal in its words (a spreadsheet it does not have) reaches the assistant.
    let reply = call(&engine, "get_sheet_data", json!({ "spreadsheet_id": "nope", "sheet": SHEET })).await;
    assert!(reply.is_error && reply.text.contains("Requested entity was not found"), "{}", reply.text);

    assert_eq!(server.state().await["forms_asked"], 0, "a read asks nothing");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_independent_servers_form_is_a_card_and_only_an_accept_writes() {
    let server = PyServer::start().await;
    let home = tempfile::tempdir().expect("home");
    let (engine, store) = engine(&server, home.path()).await;
    let write = json!({ "spreadsheet_id": SHEET_ID, "sheet": SHEET, "range": "A3", "data": [["Milk", 2]] });
    let start = || {
        let (engine, write) = (Arc::clone(&engine), write.clone());
        tokio::spawn(async move { call(&engine, "update_cells", write).await })
    };

    // Declined: nothing is written, the server was told (its form is answered), the assistant gets words.
    let mut declined = start();
    let card = next_card(&engine, &mut declined).await;
    assert_eq!((card.tool.as_str(), card.title.as_str()), ("update_cells", "Update cells"));
    assert_eq!(card.arguments["data"], json!([["Milk", 2]]));
    let form = card.form.as_ref().expect("the server's form, on the card");
    assert!(!form.google_asks_too, "Gatehouse left the call to the server's form: it is the only card");
    assert_eq!(form.key, "confirm_update", "the server's own key for its form");
    assert!(form.message.contains("“Budget”") && form.message.contains("'Q1 Budget'!A3"), "{}", form.message);
    assert!(form.fields.is_empty(), "the server's form asks for no fields");
    let asked = server.state().await;
    assert_eq!((asked["forms_asked"].clone(), asked["writes"].clone()), (json!(1), json!(0)), "{asked}");
    engine.approvals().broker().answer(card.id, RawAnswer::Deny).expect("Deny declines");
    let reply = declined.await.expect("the call ends");
    assert!(reply.is_error, "{}", reply.text);
    assert!(
        reply.text.contains("The person declined Google's approval form for Update cells (update_cells)"),
        "{}",
        reply.text
    );
    assert_eq!(server.rows(SHEET).await, json!([["Item", "Cost"], ["Tea", 3]]), "declined: the sheet is unchanged");
    let after = server.state().await;
    assert_eq!(
        (after["writes"].clone(), after["pending"].clone()),
        (json!(0), json!(0)),
        "the decline was sent: {after}"
    );

    // Accepted: the server writes, and Gatehouse answers in its own shape.
    let mut accepted = start();
    let card = next_card(&engine, &mut accepted).await;
    engine.approvals().broker().answer(card.id, RawAnswer::Form(Default::default())).expect("accepted");
    let reply = accepted.await.expect("the call ends");
    assert!(!reply.is_error, "{}", reply.text);
    let written: Value = serde_json::from_str(&reply.text).expect("JSON");
    assert_eq!(
        written,
        json!({
            "spreadsheet_id": SHEET_ID,
            "updated_range": "'Q1 Budget'!A3:B3",
            "updated_rows": 1,
            "updated_columns": 2,
            "updated_cells": 2,
        })
    );
    assert_eq!(
        server.rows(SHEET).await,
        json!([["Item", "Cost"], ["Tea", 3], ["Milk", 2]]),
        "accepted: the server stored the cells as given"
    );
    let after = server.state().await;
    assert_eq!((after["forms_asked"].clone(), after["writes"].clone()), (json!(2), json!(1)), "{after}");
    // And read back through Gatehouse: the cells as shown.
    let reply =
        call(&engine, "get_sheet_data", json!({ "spreadsheet_id": SHEET_ID, "sheet": SHEET, "range": "A3:B3" })).await;
    assert!(!reply.is_error, "{}", reply.text);
    let read: Value = serde_json::from_str(&reply.text).expect("JSON");
    assert_eq!(read["values"], json!([["Milk", "2"]]), "{read}");

    // Each form's answer is recorded beside the calls.
    let audit = store.list_audit(&Default::default()).await.expect("the audit log");
    let answers: Vec<&Value> = audit
        .iter()
        .filter(|record| !record.entry.arguments["google_form"].is_null())
        .map(|record| &record.entry.arguments["google_form"]["answer"])
        .collect();
    assert_eq!(answers, [&json!("accept"), &json!("decline")], "newest first");
    let calls: Vec<(Verdict, String)> = audit
        .iter()
        .filter(|record| record.entry.tool == "update_cells" && record.entry.arguments["google_form"].is_null())
        .map(|record| (record.entry.verdict, record.entry.source.to_string()))
        .collect();
    assert_eq!(
        calls,
        [(Verdict::Allowed, "google-form".to_owned()), (Verdict::Denied, "person".to_owned())],
        "newest first"
    );
}

/// A sign-in whose token the server refuses until it is refreshed: the first token is stale, and forgetting
/// it (what Gatehouse does after a 401) makes the next one the server's.
struct StaleFirst {
    current: Mutex<String>,
    refreshes: std::sync::atomic::AtomicUsize,
}

impl TokenSource for StaleFirst {
    fn token(&self) -> BoxFuture<'_, Result<String, AuthError>> {
        Box::pin(async { Ok(self.current.lock().expect("token").clone()) })
    }

    fn invalidate(&self) -> BoxFuture<'_, ()> {
        Box::pin(async {
            self.refreshes.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            *self.current.lock().expect("token") = TOKEN.to_owned();
        })
    }

    fn account(&self) -> Option<String> {
        Some(ADA.to_owned())
    }
}

/// The Python SDK refuses a token as MCP's authorization spec says (401 with `WWW-Authenticate`), which rmcp
/// reports as "Auth required", with no status in its words. Gatehouse used to read that as a server it could
/// not reach ("check the internet connection"), and did not fetch a fresh token when connecting.
#[tokio::test(flavor = "multi_thread")]
async fn a_refused_token_is_a_refused_sign_in_and_a_fresh_one_is_tried_once() {
    let server = PyServer::start().await;
    let refused = client(&server, "not-the-token").catalogue(Product::Sheets).await.expect_err("refused");
    assert!(matches!(&refused, McpError::Refused { detail, .. } if detail.contains("401")), "{refused:?}");
    assert!(
        refused.to_string().contains("refused the request") && refused.to_string().contains("Sign in again"),
        "{refused}"
    );

    let tokens = Arc::new(StaleFirst { current: Mutex::new("stale".to_owned()), refreshes: Default::default() });
    let mcp = McpClient::new(McpOptions {
        http: reqwest::Client::new(),
        endpoints: Endpoints::new(Some(server.root.parse().expect("the server's URL"))),
        tokens: Arc::clone(&tokens) as Arc<dyn TokenSource>,
        timeout: Duration::from_secs(30),
    });
    let listed = mcp.catalogue(Product::Sheets).await.expect("listed with the fresh token");
    assert!(listed.tool("get_values").is_some());
    assert_eq!(tokens.refreshes.load(std::sync::atomic::Ordering::SeqCst), 1, "one fresh token");
}

/// A server that asks for more forms in one round than Gatehouse puts to the person (8) gets none of them
/// answered: the call ends with words that say why, no card shows meanwhile, and nothing is written.
#[tokio::test(flavor = "multi_thread")]
async fn a_round_asking_for_more_forms_than_gatehouse_shows_is_refused_without_a_card() {
    let server = PyServer::start_with(&["--forms-per-round", "9"]).await;
    let home = tempfile::tempdir().expect("home");
    let (engine, _store) = engine(&server, home.path()).await;
    let write = json!({ "spreadsheet_id": SHEET_ID, "sheet": SHEET, "range": "A3", "data": [["Milk", 2]] });
    let running = {
        let engine = Arc::clone(&engine);
        tokio::spawn(async move { call(&engine, "update_cells", write).await })
    };
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while !running.is_finished() {
        assert!(engine.approvals().broker().pending().is_empty(), "a card was shown for one of the nine forms");
        assert!(std::time::Instant::now() < deadline, "the call did not end");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let reply = running.await.expect("the call ends");
    assert!(reply.is_error, "{}", reply.text);
    assert!(
        reply.text.contains("asked for 9 approval forms at once")
            && reply.text.contains("at most 8")
            && reply.text.contains("was not run"),
        "{}",
        reply.text
    );
    let state = server.state().await;
    assert_eq!((state["forms_asked"].clone(), state["writes"].clone()), (json!(1), json!(0)), "{state}");
    assert_eq!(server.rows(SHEET).await, json!([["Item", "Cost"], ["Tea", 3]]), "the sheet is unchanged");
}
