//! An assistant that goes away while its call waits for the person withdraws the call: the card leaves
//! `gatehouse approvals` at once (not at the timeout), and the audit log records the call as `withdrawn`, not
//! as the person's refusal or a timeout. Real binaries in the sandbox: `gatehouse serve` over stdio hosting its
//! own core, and relays to a `gatehouse serve --headless` host; the assistant is rmcp's client on the child's
//! pipes (so the test can kill the child), or JSON-RPC written by hand (so it can close stdin).

use std::process::Stdio;
use std::time::{Duration, Instant};

use gatehouse_e2e::{Home, gatehouse, next_approval, run_gatehouse};
use rmcp::ServiceExt;
use rmcp::model::{CallToolRequest, CallToolRequestParams, ClientRequest, ServerResult};
use rmcp::service::{PeerRequestOptions, RunningService};
use serde_json::{Map, Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin};

/// How soon a withdrawn card must leave `gatehouse approvals`.
const AT_ONCE: Duration = Duration::from_secs(2);

type Client = RunningService<rmcp::RoleClient, ()>;

/// `gatehouse serve ARGS…` started as an assistant starts it, with rmcp's client on its pipes.
async fn assistant(home: &Home, args: &[&str]) -> (Child, Client) {
    let mut command = gatehouse(home);
    command.arg("serve").args(args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null());
    let mut child = command.spawn().expect("start gatehouse serve");
    let (stdout, stdin) = (child.stdout.take().expect("stdout"), child.stdin.take().expect("stdin"));
    let client = ().serve((stdout, stdin)).await.expect("initialize");
    (child, client)
}

/// Starts `gatehouse serve --headless --sandbox` and waits until it says it is the host.
async fn start_host(home: &Home) -> Child {
    let mut host = gatehouse(home);
    host.args(["serve", "--headless", "--sandbox"]).stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::piped());
    let mut child = host.spawn().expect("start the host");
    let mut lines = BufReader::new(child.stderr.take().expect("stderr")).lines();
    let ready = tokio::time::timeout(Duration::from_secs(30), async {
        while let Ok(Some(line)) = lines.next_line().await {
            if line.contains("is this user's host") {
                return true;
            }
        }
        false
    })
    .await;
    assert_eq!(ready, Ok(true), "the host did not come up");
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    child
}

fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        other => panic!("not an object: {other}"),
    }
}

fn call_request(tool: &str, arguments: Value) -> ClientRequest {
    ClientRequest::CallToolRequest(CallToolRequest::new(
        CallToolRequestParams::new(tool.to_owned()).with_arguments(object(arguments)),
    ))
}

/// The sandbox's "Budget 2026", found as an assistant would.
async fn budget_id(client: &Client) -> String {
    let found = client.peer().send_request(call_request("search_spreadsheets", json!({ "query": "Budget 2026" })));
    let ServerResult::CallToolResult(found) = found.await.expect("search") else { panic!("not a tool result") };
    let text = found.content.iter().find_map(|block| block.as_text().map(|t| t.text.clone())).unwrap_or_default();
    budget_in(&serde_json::from_str(&text).expect("JSON"))
}

fn budget_in(found: &Value) -> String {
    let files = found.get("files").or_else(|| found.get("spreadsheets")).cloned().unwrap_or(found.clone());
    files.as_array().and_then(|f| f.first()).and_then(|f| f["id"].as_str()).expect("Budget 2026").to_owned()
}

fn write(id: &str, cell: &str) -> Value {
    json!({ "spreadsheet_id": id, "sheet": "Sales", "range": cell, "data": [["never"]] })
}

/// Waits until `gatehouse approvals` lists no card, at most [`AT_ONCE`]; returns how long that took.
async fn until_no_card(home: &Home) -> Duration {
    let started = Instant::now();
    loop {
        let listed = run_gatehouse(home, &["approvals"]).await;
        assert!(listed.ok, "{}", listed.stderr);
        if !listed.stdout.lines().any(|line| line.starts_with("Approval ")) {
            return started.elapsed();
        }
        assert!(started.elapsed() < AT_ONCE, "the card is still listed: {}", listed.stdout);
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The audit log's `update_cells` rows (newest first), through the running server or the store.
/// The audit log's `update_cells` rows, once there are `expected` of them (or what there is after 10 s): a
/// card leaves the list a moment before its call's record is committed.
async fn audited_writes(home: &Home, expected: usize) -> Vec<String> {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let audit = run_gatehouse(home, &["audit", "--sandbox", "--tool", "update_cells"]).await;
        assert!(audit.ok, "{}", audit.stderr);
        let rows: Vec<String> =
            audit.stdout.lines().filter(|line| line.contains("  update_cells  ")).map(str::to_owned).collect();
        if rows.len() >= expected || tokio::time::Instant::now() > deadline {
            return rows;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[track_caller]
fn assert_withdrawn_row(row: &str) {
    let columns: Vec<&str> = row.split("  ").map(str::trim).filter(|column| !column.is_empty()).collect();
    for expected in ["denied", "withdrawn", "refused"] {
        assert!(columns.contains(&expected), "{expected} in {row}");
    }
    assert!(!columns.contains(&"person") && !columns.contains(&"timeout"), "{row}");
}

#[tokio::test]
async fn an_assistant_that_cancels_a_waiting_call_withdraws_its_card() {
    let home = Home::new();
    let (_serve, client) = assistant(&home, &["--sandbox"]).await;
    let id = budget_id(&client).await;
    let request = call_request("update_cells", write(&id, "L1"));
    let handle = client.peer().send_cancellable_request(request, PeerRequestOptions::no_options()).await.unwrap();
    let (card, _) = next_approval(&home).await;

    // notifications/cancelled, as a client sends when its person presses stop.
    handle.cancel(Some("stopped by the person".into())).await.unwrap();
    let took = until_no_card(&home).await;
    eprintln!("the card left `gatehouse approvals` {} ms after the cancel", took.as_millis());
    let late = run_gatehouse(&home, &["approvals", "allow", &card]).await;
    assert!(!late.ok, "a withdrawn card can't be answered: {}", late.stdout);
    let rows = audited_writes(&home, 1).await;
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_withdrawn_row(&rows[0]);
    client.cancel().await.unwrap();
}

/// One JSON-RPC message, one line, as an MCP client writes it on a server's stdin.
async fn send(stdin: &mut ChildStdin, message: Value) {
    let mut line = message.to_string();
    line.push('\n');
    stdin.write_all(line.as_bytes()).await.expect("write to gatehouse serve");
}

#[tokio::test]
async fn an_assistant_that_closes_stdin_withdraws_its_card_and_the_log_keeps_it() {
    let home = Home::new();
    let mut command = gatehouse(&home);
    command.args(["serve", "--sandbox"]).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null());
    let mut serve = command.spawn().expect("start gatehouse serve");
    let mut stdin = serve.stdin.take().expect("stdin");
    let mut replies = BufReader::new(serve.stdout.take().expect("stdout")).lines();
    let mut reply = async |id: u64| -> Value {
        loop {
            let line = replies.next_line().await.expect("read").expect("a reply");
            let message: Value = serde_json::from_str(&line).expect("JSON-RPC");
            if message["id"] == json!(id) {
                return message;
            }
        }
    };
    let client_info = json!({ "name": "hand-written", "version": "1" });
    let initialize = json!({ "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": client_info });
    send(&mut stdin, json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": initialize })).await;
    assert!(reply(1).await["result"].is_object());
    send(&mut stdin, json!({ "jsonrpc": "2.0", "method": "notifications/initialized" })).await;
    let search = json!({ "name": "search_spreadsheets", "arguments": { "query": "Budget 2026" } });
    send(&mut stdin, json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": search })).await;
    let found = reply(2).await;
    let id = budget_in(&serde_json::from_str(found["result"]["content"][0]["text"].as_str().unwrap()).unwrap());
    let call = json!({ "name": "update_cells", "arguments": write(&id, "L2") });
    send(&mut stdin, json!({ "jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": call })).await;
    next_approval(&home).await;

    // The assistant goes away: its end of stdin closes. The server withdraws the call and stops, at once.
    drop(stdin);
    let closed = Instant::now();
    let exited = tokio::time::timeout(Duration::from_secs(10), serve.wait()).await.expect("serve stopped");
    assert!(exited.unwrap().success());
    eprintln!("gatehouse serve stopped {} ms after stdin closed", closed.elapsed().as_millis());
    assert!(closed.elapsed() < Duration::from_secs(4), "withdrawn at once, not after rmcp's 5 s wait");
    until_no_card(&home).await;
    // Read from the store itself: the record was written before the server stopped.
    let rows = audited_writes(&home, 1).await;
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_withdrawn_row(&rows[0]);
}

#[tokio::test]
async fn a_relay_whose_assistant_cancels_or_that_is_killed_withdraws_the_card_from_the_host() {
    let home = Home::new();
    let mut host = start_host(&home).await;

    // A relay whose assistant cancels: the relay hangs up on the host, which withdraws the call.
    let (_first, cancelling) = assistant(&home, &["--sandbox"]).await;
    let id = budget_id(&cancelling).await;
    let request = call_request("update_cells", write(&id, "L3"));
    let handle = cancelling.peer().send_cancellable_request(request, PeerRequestOptions::no_options()).await.unwrap();
    let (_, listing) = next_approval(&home).await;
    assert!(listing.contains("1 Gatehouse server is running"), "only the host holds cards: {listing}");
    handle.cancel(None).await.unwrap();
    let took = until_no_card(&home).await;
    eprintln!("the host withdrew the relayed card {} ms after the cancel", took.as_millis());

    // A relay killed while its call waits: its connection to the host closes, and the host notices.
    let (mut second, killed) = assistant(&home, &["--sandbox"]).await;
    let waiting = tokio::spawn(async move {
        let _ = killed.peer().send_request(call_request("update_cells", write(&id, "L4"))).await;
        killed
    });
    next_approval(&home).await;
    second.kill().await.unwrap();
    let took = until_no_card(&home).await;
    eprintln!("the host withdrew the killed relay's card {} ms after the kill", took.as_millis());
    drop(waiting.await);

    // The host's audit log records both as withdrawn by the assistant.
    let rows = audited_writes(&home, 2).await;
    assert_eq!(rows.len(), 2, "{rows:?}");
    rows.iter().for_each(|row| assert_withdrawn_row(row));
    cancelling.cancel().await.unwrap();
    host.kill().await.unwrap();
}
