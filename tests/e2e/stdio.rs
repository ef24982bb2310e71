//! The real `gatehouse` binary over stdio, driven by rmcp's client and by the official SDKs' 2026-07-28 clients.

use std::process::Stdio;
use std::time::Duration;

use gatehouse_e2e::{
    Home, Sdk, answer_next_approval, call, gatehouse, json, next_approval, run_gatehouse, stdio_client, text,
};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

fn sandbox(home: &Home) -> tokio::process::Command {
    let mut command = gatehouse(home);
    command.args(["serve", "--sandbox"]);
    command
}

async fn budget_id(client: &gatehouse_e2e::Client) -> String {
    let found = call(client, "search_spreadsheets", json!({ "query": "Budget 2026" })).await.unwrap();
    assert!(!found.is_error.unwrap_or(false), "{}", text(&found));
    let found = json(&found);
    let files = found.get("files").or_else(|| found.get("spreadsheets")).cloned().unwrap_or(found.clone());
    files
        .as_array()
        .and_then(|f| f.first())
        .and_then(|f| f["id"].as_str())
        .expect("Budget 2026 in the sandbox")
        .to_owned()
}

#[tokio::test]
async fn lists_every_declared_tool_with_all_four_annotations() {
    let home = Home::new();
    let client = stdio_client(sandbox(&home)).await.unwrap();
    let tools = client.peer().list_all_tools().await.unwrap();
    let declared: Vec<&str> = gatehouse_core::tools::all_tools().iter().map(|t| t.meta.name).collect();
    let listed: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(listed, declared);
    for tool in &tools {
        let a = tool.annotations.as_ref().unwrap_or_else(|| panic!("{} has no annotations", tool.name));
        assert!(a.read_only_hint.is_some() && a.destructive_hint.is_some(), "{}", tool.name);
        assert!(a.idempotent_hint.is_some() && a.open_world_hint.is_some(), "{}", tool.name);
    }
    let info = client.peer().peer_info().expect("server info");
    assert!(info.instructions.as_deref().unwrap_or_default().contains("Sandbox"));
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn sandbox_reads_and_writes_round_trip_and_say_they_are_the_sandbox() {
    let home = Home::new();
    let client = stdio_client(sandbox(&home)).await.unwrap();
    let id = budget_id(&client).await;
    // A write waits for the person: they allow it from another terminal.
    let arguments = json!({
        "spreadsheet_id": id, "sheet": "Sales", "range": "H1:I2", "data": [["Region", "Total"], ["North", 42]]
    });
    let (written, ()) = tokio::join!(call(&client, "update_cells", arguments), answer_next_approval(&home, "allow"));
    let written = written.unwrap();
    assert!(!written.is_error.unwrap_or(false), "{}", text(&written));
    let read = call(&client, "get_sheet_data", json!({ "spreadsheet_id": id, "sheet": "Sales", "range": "H1:I2" }))
        .await
        .unwrap();
    let body = text(&read);
    assert!(body.contains("North") && body.contains("42") && body.contains("Region"), "{body}");
    let notes: Vec<String> = read.content.iter().filter_map(|c| c.as_text().map(|t| t.text.clone())).collect();
    assert!(notes.iter().any(|n| n.contains("Sandbox")), "{notes:?}");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn bad_input_gets_a_clear_error_and_the_server_keeps_serving() {
    let home = Home::new();
    let client = stdio_client(sandbox(&home)).await.unwrap();
    let id = budget_id(&client).await;

    let unknown = call(&client, "no_such_tool", json!({})).await.unwrap_err().to_string();
    assert!(unknown.contains("no_such_tool"), "{unknown}");

    let missing = call(&client, "get_sheet_data", json!({ "spreadsheet_id": id })).await.unwrap();
    assert!(missing.is_error.unwrap_or(false));
    assert!(text(&missing).contains("sheet"), "{}", text(&missing));

    let wrong_type =
        call(&client, "add_rows", json!({ "spreadsheet_id": id, "sheet": "Sales", "count": "three" })).await.unwrap();
    assert!(wrong_type.is_error.unwrap_or(false));
    assert!(text(&wrong_type).contains("count") || text(&wrong_type).contains("integer"), "{}", text(&wrong_type));

    let bad_range =
        call(&client, "get_sheet_data", json!({ "spreadsheet_id": id, "sheet": "Sales", "range": "1A:??" }))
            .await
            .unwrap();
    assert!(bad_range.is_error.unwrap_or(false));
    assert!(text(&bad_range).contains("1A:??"), "{}", text(&bad_range));

    let huge = "x".repeat(1_000_000);
    let big = call(&client, "get_sheet_data", json!({ "spreadsheet_id": id, "sheet": huge })).await.unwrap();
    assert!(big.is_error.unwrap_or(false));

    let google_404 = call(&client, "list_sheets", json!({ "spreadsheet_id": "does-not-exist" })).await.unwrap();
    assert!(google_404.is_error.unwrap_or(false));
    assert!(text(&google_404).contains("could not find"), "{}", text(&google_404));

    // And the next call is served normally.
    let ok = call(&client, "list_sheets", json!({ "spreadsheet_id": id })).await.unwrap();
    assert!(!ok.is_error.unwrap_or(false), "{}", text(&ok));
    client.cancel().await.unwrap();
}

/// Reads stdout lines until one answers `id`, checking every line is JSON (stdout is the MCP channel).
async fn answer_to(lines: &mut tokio::io::Lines<BufReader<tokio::process::ChildStdout>>, id: i64) -> Value {
    loop {
        let line = tokio::time::timeout(Duration::from_secs(20), lines.next_line())
            .await
            .unwrap()
            .unwrap()
            .expect("stdout open");
        let message: Value =
            serde_json::from_str(&line).unwrap_or_else(|_| panic!("stdout carried a non-JSON line: {line}"));
        if message["id"] == json!(id) {
            return message;
        }
    }
}

#[tokio::test]
async fn malformed_json_rpc_is_answered_and_stdout_stays_pure() {
    let home = Home::new();
    let mut child = sandbox(&home).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null()).spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let init = json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw-test","version":"1"}}});
    stdin.write_all(format!("{init}\n").as_bytes()).await.unwrap();
    let answer = answer_to(&mut lines, 1).await;
    assert!(answer["result"]["serverInfo"].is_object(), "{answer}");
    stdin.write_all(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n").await.unwrap();
    stdin.write_all(b"{this is not json\n").await.unwrap();
    stdin.write_all(b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"no/such/method\"}\n").await.unwrap();
    let unknown = answer_to(&mut lines, 2).await;
    assert!(unknown["error"]["code"].is_i64(), "{unknown}");
    stdin.write_all(b"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\"}\n").await.unwrap();
    let listed = answer_to(&mut lines, 3).await;
    assert!(listed["result"]["tools"].as_array().is_some_and(|t| !t.is_empty()), "{listed}");
    child.kill().await.unwrap();
}

#[tokio::test]
async fn a_service_account_key_is_used_through_its_own_token_uri() {
    let google = google_fake::FakeGoogle::start().await.unwrap();
    let email = "robot@project.iam.gserviceaccount.com";
    google.world().service_accounts.push(google_fake::ServiceAccountKey {
        email: email.to_owned(),
        public_key_pem: include_str!("../data/test-service-account.pub.pem").to_owned(),
    });
    let owner = google_fake::Identity::service_account(email);
    let id = google.world().create_spreadsheet("Robot report", &[("Data", vec![vec![json!("ok")]])], &owner);
    // The key's token endpoint is a second address of the same emulator: the token must be fetched there,
    // not at the rerouted default (https://oauth2.googleapis.com/token → the API address).
    let token_host = google_fake::FakeGoogle::start_sharing(google.shared()).await.unwrap();
    let home = Home::new();
    let key = json!({
        "type": "service_account",
        "client_email": email,
        "private_key": include_str!("../data/test-service-account.pem"),
        "private_key_id": "test-key",
        "token_uri": format!("{}/token", token_host.url()),
    });
    let key_path = home.path().join("key.json");
    std::fs::write(&key_path, key.to_string()).unwrap();
    let mut command = gatehouse(&home);
    command.args(["serve"]).env("SERVICE_ACCOUNT_PATH", &key_path).env("GATEHOUSE_GOOGLE_ENDPOINT", google.url());
    let client = stdio_client(command).await.unwrap();
    let sheets = call(&client, "list_sheets", json!({ "spreadsheet_id": id })).await.unwrap();
    assert!(!sheets.is_error.unwrap_or(false), "{}", text(&sheets));
    assert!(text(&sheets).contains("Data"));
    let status =
        client.peer().read_resource(rmcp::model::ReadResourceRequestParams::new("server://auth-status")).await.unwrap();
    let status = serde_json::to_string(&status).unwrap();
    assert!(status.contains(r#"\"auth_method\":\"service_account\""#), "{status}");
    assert!(status.contains(email), "{status}");
    let token_host_name = token_host.url().trim_start_matches("http://").to_owned();
    let token_requests: Vec<String> =
        google.world().requests.iter().filter(|r| r.path == "/token").map(|r| r.host.clone()).collect();
    assert_eq!(token_requests, [token_host_name], "one token, fetched from the key's token_uri");
    client.cancel().await.unwrap();
}

/// The names `spec` (a `--tools` list) selects, in catalogue order.
fn selected(spec: &str) -> Vec<String> {
    let selection = gatehouse_core::tools::sets::ToolSelection::parse(spec).expect("a valid selection");
    let tools = gatehouse_core::tools::all_tools();
    tools.iter().filter(|tool| selection.allows(tool.meta.name)).map(|tool| tool.meta.name.to_owned()).collect()
}

#[tokio::test]
async fn serve_tools_offers_only_the_chosen_sets_and_refuses_the_rest_saying_how_to_change_it() {
    let home = Home::new();
    let mut command = sandbox(&home);
    command.args(["--tools", "sheets-read,search_spreadsheets"]);
    let client = stdio_client(command).await.unwrap();
    let listed: Vec<String> =
        client.peer().list_all_tools().await.unwrap().into_iter().map(|tool| tool.name.to_string()).collect();
    assert_eq!(listed, selected("sheets-read,search_spreadsheets"));
    assert!(!listed.iter().any(|name| name == "update_cells"));

    let id = budget_id(&client).await;
    let read = call(&client, "get_sheet_data", json!({ "spreadsheet_id": id, "sheet": "Sales", "range": "A1:B2" }))
        .await
        .unwrap();
    assert!(!read.is_error.unwrap_or(false), "{}", text(&read));
    let write = json!({ "spreadsheet_id": id, "sheet": "Sales", "range": "H1", "data": [["no"]] });
    let refused = call(&client, "update_cells", write).await.unwrap();
    assert!(refused.is_error.unwrap_or(false));
    let words = text(&refused);
    assert!(words.contains("update_cells is not among the tools this assistant is offered"), "{words}");
    assert!(words.contains("`--tools sheets-read,search_spreadsheets`"), "{words}");
    client.cancel().await.unwrap();

    // A set that does not exist stops `gatehouse serve` at once, naming it and the valid sets.
    let bad = gatehouse_e2e::run_gatehouse(&home, &["serve", "--sandbox", "--tools", "sheets,sheet-read"]).await;
    assert!(!bad.ok);
    let said = &bad.stderr;
    assert!(said.contains("“sheet-read” is not a tool set") && said.contains("drive-read"), "{said}");
}

#[tokio::test]
async fn a_google_endpoint_off_this_computer_is_refused_at_start() {
    let home = Home::new();
    let mut command = gatehouse(&home);
    command.args(["serve"]).env("GATEHOUSE_GOOGLE_ENDPOINT", "http://attacker.example:8080").stdin(Stdio::null());
    let out = tokio::time::timeout(Duration::from_secs(30), command.output()).await.unwrap().unwrap();
    assert!(!out.status.success(), "serve started with a remote endpoint");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("GATEHOUSE_GOOGLE_ENDPOINT") && stderr.contains("attacker.example"), "{stderr}");
    assert!(stderr.contains("http://127.0.0.1:8080") && stderr.contains("localhost"), "says what is allowed: {stderr}");
}

/// What `gatehouse serve` with `GATEHOUSE_LOG=setting` wrote to stderr while an assistant read the sample sheet,
/// and the sheet's text cells longer than a few letters.
async fn logged_while_reading(setting: &str) -> (String, Vec<String>) {
    use rmcp::ServiceExt;
    use tokio::io::AsyncReadExt;

    let home = Home::new();
    let mut command = sandbox(&home);
    command.env("GATEHOUSE_LOG", setting);
    let (transport, stderr) =
        rmcp::transport::TokioChildProcess::builder(command).stderr(Stdio::piped()).spawn().expect("spawn gatehouse");
    let mut stderr = stderr.expect("stderr piped");
    let logged = tokio::spawn(async move {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text).await;
        text
    });
    let client = ().serve(transport).await.expect("connect");
    let id = budget_id(&client).await;
    let read = call(&client, "get_sheet_data", json!({ "spreadsheet_id": id, "sheet": "Sales" })).await.unwrap();
    assert!(!read.is_error.unwrap_or(false), "{}", text(&read));
    let cells: Vec<String> = json(&read)["values"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_array)
        .flatten()
        .filter_map(Value::as_str)
        .filter(|cell| cell.len() >= 5)
        .map(str::to_owned)
        .collect();
    assert!(!cells.is_empty(), "{}", text(&read));
    client.cancel().await.unwrap();
    (tokio::time::timeout(Duration::from_secs(30), logged).await.unwrap().unwrap(), cells)
}

/// Debug logs (stderr, which assistants keep) never carry a tool's result or its arguments, at any level short
/// of asking for rmcp's whole messages by name (issue 15, item 10).
#[tokio::test]
async fn gatehouse_log_debug_keeps_tool_results_out_of_stderr() {
    for setting in ["debug", "trace", "debug,rmcp=debug"] {
        let (logged, cells) = logged_while_reading(setting).await;
        assert!(logged.contains("tool call"), "{setting}: logging was on:\n{logged}");
        assert!(!logged.contains("\"sheet\""), "{setting}: the arguments reached stderr:\n{logged}");
        for cell in &cells {
            assert!(!logged.contains(cell.as_str()), "{setting}: the cell {cell:?} reached stderr:\n{logged}");
        }
    }
    // Asked for by name, rmcp's whole messages do appear: the test would see a leak.
    let (traced, cells) = logged_while_reading("info,rmcp=trace").await;
    assert!(cells.iter().any(|cell| traced.contains(cell.as_str())), "rmcp=trace shows messages:\n{traced}");
}

/// The official SDKs that speak MCP 2026-07-28 (Python's `mcp`, TypeScript's `@modelcontextprotocol/client`, as
/// `install-deps.sh` pins them) as the assistant over stdio, with no `initialize`: one discovering the server, one
/// pinned to the revision. Each lists every tool, watches `server://auth-status` with `subscriptions/listen`,
/// reads the sample data, and writes a cell after the person allows the card at another terminal; the card and
/// the audit log name it by the `clientInfo` its requests carry, as self-reported.
#[tokio::test]
async fn the_official_2026_sdks_read_and_write_over_stdio_named_by_each_request_as_self_reported() {
    let bin = gatehouse_e2e::gatehouse_bin();
    let bin = bin.to_str().expect("a UTF-8 path");
    for (sdk, mode) in [(Sdk::Python, "auto"), (Sdk::TypeScript, "2026-07-28")] {
        let home = Home::new();
        let person = async {
            let (id, listing) = next_approval(&home).await;
            let allowed = run_gatehouse(&home, &["approvals", "allow", &id]).await;
            assert!(allowed.ok, "{}", allowed.stderr);
            listing
        };
        let (steps, listing) = tokio::join!(sdk.run(&home, &["--stdio", bin, "--mode", mode]), person);
        steps.assert_sandbox_round_trip("2026-07-28", sdk.written_value());
        let says = format!("“{}” (says it is)", sdk.default_name());
        assert!(listing.contains(&format!("{says} wants to run Update cells")), "{listing}");
        let audit = run_gatehouse(&home, &["audit", "--sandbox", "--tool", "update_cells"]).await;
        assert!(audit.ok, "{}", audit.stderr);
        let row = audit.stdout.lines().find(|line| line.contains(&says) && line.contains("update_cells"));
        let row = row.unwrap_or_else(|| panic!("no record of the write by {says}:\n{}", audit.stdout));
        assert!(row.contains("person") && row.contains(" ok "), "{row}");
    }
}
