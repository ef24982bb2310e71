//! Per-assistant HTTP tokens end to end: the real `gatehouse serve --http` against the Google emulator, the
//! person at another terminal running `gatehouse assistants` and `approvals`, and rmcp's HTTP client acting
//! as each assistant with the token it was given.

use std::time::Duration;

use gatehouse_e2e::{Home, gatehouse, next_approval, run_gatehouse, start_http, text};
use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::{Value, json};

const ROBOT: &str = "robot@project.iam.gserviceaccount.com";

type Client = rmcp::service::RunningService<rmcp::RoleClient, ()>;

/// The emulator with a service account, one spreadsheet it owns, and the account's key in `home`.
async fn emulator(home: &Home) -> (google_fake::FakeGoogle, String) {
    let google = google_fake::FakeGoogle::start().await.unwrap();
    google.world().service_accounts.push(google_fake::ServiceAccountKey {
        email: ROBOT.to_owned(),
        public_key_pem: include_str!("../data/test-service-account.pub.pem").to_owned(),
    });
    let owner = google_fake::Identity::service_account(ROBOT);
    let sheet = google.world().create_spreadsheet("Budget", &[("Data", vec![vec![json!("start")]])], &owner);
    let key = json!({
        "type": "service_account",
        "client_email": ROBOT,
        "private_key": include_str!("../data/test-service-account.pem"),
        "private_key_id": "test-key",
        "token_uri": format!("{}/token", google.url()),
    });
    std::fs::write(home.path().join("key.json"), key.to_string()).unwrap();
    (google, sheet)
}

/// `gatehouse serve --http 127.0.0.1:0` acting as the service account, with no administrator's policy.
async fn serve_http(home: &Home, google: &google_fake::FakeGoogle) -> (tokio::process::Child, String) {
    let mut command = gatehouse(home);
    command
        .args(["serve", "--http", "127.0.0.1:0"])
        .env("SERVICE_ACCOUNT_PATH", home.path().join("key.json"))
        .env("GATEHOUSE_GOOGLE_ENDPOINT", google.url())
        .env_remove("GATEHOUSE_POLICY_FILE");
    start_http(command).await.unwrap()
}

/// The token `gatehouse assistants add` printed (the line after the one that introduces it).
fn printed_token(stdout: &str) -> String {
    let mut lines = stdout.lines().skip_while(|line| !line.starts_with("Its token"));
    lines.next().expect("the token is introduced");
    lines.next().expect("the token follows").trim().to_owned()
}

async fn add(home: &Home, args: &[&str]) -> (String, String) {
    let added = run_gatehouse(home, &[&["assistants", "add"], args].concat()).await;
    assert!(added.ok, "{}", added.stderr);
    (printed_token(&added.stdout), added.stdout)
}

async fn connect(url: &str, token: &str) -> Client {
    let mut config = StreamableHttpClientTransportConfig::with_uri(url);
    config.auth_header = Some(token.to_owned());
    let transport = StreamableHttpClientTransport::with_client(reqwest::Client::new(), config);
    ().serve(transport).await.unwrap()
}

fn write(client: &Client, sheet: &str, cell: &str, value: &str) -> tokio::task::JoinHandle<CallToolResult> {
    let peer = client.peer().clone();
    let Value::Object(arguments) =
        json!({ "spreadsheet_id": sheet, "sheet": "Data", "range": cell, "data": [[value]] })
    else {
        unreachable!()
    };
    tokio::spawn(async move {
        peer.call_tool(CallToolRequestParams::new("update_cells").with_arguments(arguments)).await.unwrap()
    })
}

fn cell(google: &google_fake::FakeGoogle, sheet: &str, column: usize) -> String {
    let values = google.world().sheets.values(sheet, "Data");
    values.first().and_then(|cells| cells.get(column)).cloned().unwrap_or_default()
}

/// A bare `initialize` POST with `token`, for the HTTP status alone.
async fn initialize_status(url: &str, token: &str) -> (u16, String) {
    let initialize = json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"probe","version":"1"}}});
    let response = reqwest::Client::new()
        .post(url)
        .bearer_auth(token)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(initialize.to_string())
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    (status, response.text().await.unwrap_or_default())
}

#[tokio::test]
async fn an_automations_write_is_refused_as_unattended_an_interactive_ones_card_names_it_and_a_revoke_ends_its_token() {
    let home = Home::new();
    let (google, sheet) = emulator(&home).await;
    let (_server, url) = serve_http(&home, &google).await;

    // 1. An automation: its token, the URL of the running server and a snippet to paste, printed once.
    let (nightly, printed) = add(&home, &["nightly", "--automation"]).await;
    assert_eq!(nightly.len(), 43, "{printed}");
    assert!(printed.contains(&format!("Gatehouse serves it at: {url}")), "{printed}");
    assert!(printed.contains(&format!("\"Authorization\": \"Bearer {nightly}\"")), "{printed}");
    assert!(printed.contains(&format!("\"url\": \"{url}\"")), "{printed}");
    assert!(printed.contains(&format!("{url}?access_token={nightly}")), "{printed}");

    // Its write is refused at once, as unattended: nobody is asked.
    let robot = connect(&url, &nightly).await;
    let refused = tokio::time::timeout(Duration::from_secs(30), write(&robot, &sheet, "B1", "unasked"))
        .await
        .expect("the automation's write waited instead of being refused at once")
        .unwrap();
    assert!(refused.is_error.unwrap_or(false), "{}", text(&refused));
    assert!(text(&refused).contains("it came from an unattended assistant"), "{}", text(&refused));
    assert_eq!(cell(&google, &sheet, 1), "", "the write did not happen");
    let pending = run_gatehouse(&home, &["approvals"]).await;
    assert!(!pending.stdout.contains("Approval "), "nothing waits: {}", pending.stdout);

    // The audit log names it, and says why it was refused.
    let audit = run_gatehouse(&home, &["audit"]).await;
    assert!(audit.ok, "{}", audit.stderr);
    let row = audit.stdout.lines().find(|line| line.contains("update_cells")).expect("the write's record");
    let columns: Vec<&str> = row.split("  ").map(str::trim).filter(|column| !column.is_empty()).collect();
    // The assistant's name as every printer shows outside text: quoted, escaped (issue 15, item 6).
    for expected in ["“nightly”", "unattended", "refused", "denied"] {
        assert!(columns.contains(&expected), "{expected} in {row}");
    }

    // 2. An interactive assistant's write waits for the person, and the card shows its bound name.
    let (chat, _) = add(&home, &["chat"]).await;
    let person = connect(&url, &chat).await;
    let waiting = write(&person, &sheet, "C1", "approved");
    let (id, listing) = next_approval(&home).await;
    assert!(listing.contains("“chat” wants to run Update cells"), "{listing}");
    assert!(!waiting.is_finished(), "the write waits for the person");
    let allowed = run_gatehouse(&home, &["approvals", "allow", &id]).await;
    assert!(allowed.ok, "{}", allowed.stderr);
    let done = tokio::time::timeout(Duration::from_secs(30), waiting).await.unwrap().unwrap();
    assert!(!done.is_error.unwrap_or(false), "{}", text(&done));
    assert_eq!(cell(&google, &sheet, 2), "approved");

    // A name already in use is refused, saying so.
    let taken = run_gatehouse(&home, &["assistants", "add", "Chat"]).await;
    assert!(!taken.ok);
    assert!(taken.stderr.contains("already registered"), "{}", taken.stderr);

    // 3. The list shows both.
    let listed = run_gatehouse(&home, &["assistants"]).await;
    assert!(listed.ok, "{}", listed.stderr);
    for expected in [
        "Assistants: 2 (2 active).",
        "Assistant nightly",
        "Assistant chat",
        "Kind:       automation (never asked)",
        "Kind:       interactive",
        "State:      active",
    ] {
        assert!(listed.stdout.contains(expected), "{expected:?} in {}", listed.stdout);
    }

    // 4. Revoked: the next request with its token gets 401 saying so; the other token still works.
    let revoked = run_gatehouse(&home, &["assistants", "revoke", "nightly"]).await;
    assert!(revoked.ok, "{}", revoked.stderr);
    assert!(revoked.stdout.contains("Revoked the token of the assistant “nightly”"), "{}", revoked.stdout);
    let (status, body) = initialize_status(&url, &nightly).await;
    assert_eq!(status, 401, "{body}");
    assert!(body.contains("“nightly” was revoked"), "{body}");
    assert!(robot.peer().list_all_tools().await.is_err(), "the open session is refused too");
    assert_eq!(initialize_status(&url, &chat).await.0, 200);
    let listed = run_gatehouse(&home, &["assistants"]).await;
    assert!(listed.stdout.contains("Assistants: 2 (1 active).") && listed.stdout.contains("State:      revoked"));
    let again = run_gatehouse(&home, &["assistants", "revoke", "nightly"]).await;
    assert!(again.ok && again.stdout.contains("was already revoked"), "{} {}", again.stdout, again.stderr);

    person.cancel().await.unwrap();
}

#[tokio::test]
async fn with_no_server_running_an_assistant_is_added_to_the_store_with_a_hint_and_revoked_there() {
    let home = Home::new();
    let (token, printed) = add(&home, &["report"]).await;
    assert_eq!(token.len(), 43, "{printed}");
    assert!(printed.contains("No Gatehouse server is serving HTTP right now"), "{printed}");
    assert!(printed.contains("gatehouse serve --http 127.0.0.1:8765"), "{printed}");

    let bad = run_gatehouse(&home, &["assistants", "add", " "]).await;
    assert!(!bad.ok && bad.stderr.contains("can't be an assistant's name"), "{}", bad.stderr);

    // A server started afterwards knows the token.
    let (google, _) = emulator(&home).await;
    let (mut server, url) = serve_http(&home, &google).await;
    assert_eq!(initialize_status(&url, &token).await.0, 200);
    server.kill().await.unwrap();
    server.wait().await.unwrap();

    let revoked = run_gatehouse(&home, &["assistants", "revoke", "report"]).await;
    assert!(revoked.ok, "{}", revoked.stderr);
    let listed = run_gatehouse(&home, &["assistants"]).await;
    assert!(listed.stdout.contains("State:      revoked"), "{}", listed.stdout);
    let missing = run_gatehouse(&home, &["assistants", "revoke", "nobody"]).await;
    assert!(!missing.ok && missing.stderr.contains("There is no assistant nobody"), "{}", missing.stderr);
}

#[tokio::test]
async fn an_assistants_tools_are_set_from_another_terminal_and_its_running_server_offers_only_those() {
    let home = Home::new();
    let (google, sheet) = emulator(&home).await;
    let (mut server, url) = serve_http(&home, &google).await;
    let (token, _) = add(&home, &["reader"]).await;
    let client = connect(&url, &token).await;
    let listed =
        |tools: Vec<rmcp::model::Tool>| tools.into_iter().map(|tool| tool.name.to_string()).collect::<Vec<_>>();
    assert!(listed(client.peer().list_all_tools().await.unwrap()).contains(&"update_cells".to_owned()));

    let wrong = run_gatehouse(&home, &["assistants", "tools", "reader", "sheet-read"]).await;
    assert!(!wrong.ok && wrong.stderr.contains("“sheet-read” is not a tool set"), "{}", wrong.stderr);
    let set = run_gatehouse(&home, &["assistants", "tools", "reader", "sheets-read"]).await;
    assert!(set.ok, "{}", set.stderr);
    assert!(set.stdout.contains("“reader” is now offered the tool set “sheets-read”"), "{}", set.stdout);
    let shown = run_gatehouse(&home, &["assistants"]).await;
    assert!(shown.stdout.contains("Tools:      sheets-read"), "{}", shown.stdout);

    // The running server knows at the assistant's next request, on the same connection.
    let selection = gatehouse_core::tools::sets::ToolSelection::parse("sheets-read").unwrap();
    let expected: Vec<String> = gatehouse_core::tools::all_tools()
        .iter()
        .filter(|tool| selection.allows(tool.meta.name))
        .map(|tool| tool.meta.name.to_owned())
        .collect();
    assert_eq!(listed(client.peer().list_all_tools().await.unwrap()), expected);
    let refused = write(&client, &sheet, "B1", "no").await.unwrap();
    assert!(refused.is_error.unwrap_or(false));
    assert!(text(&refused).contains("not among the tools this assistant is offered"), "{}", text(&refused));
    assert_eq!(cell(&google, &sheet, 1), "");

    let all = run_gatehouse(&home, &["assistants", "tools", "reader", "all"]).await;
    assert!(all.ok && all.stdout.contains("now offered every tool"), "{}", all.stdout);
    assert!(listed(client.peer().list_all_tools().await.unwrap()).contains(&"update_cells".to_owned()));
    client.cancel().await.unwrap();
    server.kill().await.unwrap();
}
