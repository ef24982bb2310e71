//! One host per OS user: with `gatehouse serve --headless` running (as the desktop app will), the `gatehouse
//! serve` each assistant starts over stdio relays to it — the cards wait in the host, a standing approval made
//! for one assistant's call covers the other's, and the host's audit log records both. Real binaries, rmcp's
//! client, the sandbox.

use std::process::Stdio;
use std::time::Duration;

use gatehouse_e2e::{Home, call, gatehouse, json, next_approval, run_gatehouse, stdio_client, text};
use serde_json::json;
use tokio::io::{AsyncBufReadExt, BufReader};

/// Starts `gatehouse serve --headless --sandbox` and waits until it says it is the host.
async fn start_host(home: &Home) -> tokio::process::Child {
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
    // Keep draining its log so it never blocks on a full pipe.
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    child
}

async fn assistant(home: &Home) -> gatehouse_e2e::Client {
    let mut serve = gatehouse(home);
    serve.args(["serve", "--sandbox"]);
    stdio_client(serve).await.expect("an assistant's gatehouse serve")
}

async fn budget_id(client: &gatehouse_e2e::Client) -> String {
    let found = json(&call(client, "search_spreadsheets", json!({ "query": "Budget 2026" })).await.unwrap());
    let files = found.get("files").or_else(|| found.get("spreadsheets")).cloned().unwrap_or(found.clone());
    files.as_array().and_then(|f| f.first()).and_then(|f| f["id"].as_str()).expect("Budget 2026").to_owned()
}

#[tokio::test]
async fn assistants_started_over_stdio_share_the_hosts_cards_grants_and_audit() {
    let home = Home::new();
    let mut host = start_host(&home).await;
    let first = assistant(&home).await;
    let second = assistant(&home).await;
    let id = budget_id(&first).await;
    let write =
        |cell: &str, value: &str| json!({ "spreadsheet_id": id, "sheet": "Sales", "range": cell, "data": [[value]] });

    // Only the host listens for answers: the relays start no core (and no control socket) of their own.
    let waiting = tokio::spawn({
        let args = write("J1", "from the first");
        async move {
            let result = call(&first, "update_cells", args).await;
            (first, result)
        }
    });
    let (card, listing) = next_approval(&home).await;
    assert!(listing.contains("1 Gatehouse server is running"), "{listing}");
    let always = ["approvals", "always", card.as_str(), "--scope", "tool", "--days", "1", "--constrained"];
    let answered = run_gatehouse(&home, &always).await;
    assert!(answered.ok, "{}", answered.stderr);
    let (first, result) = waiting.await.unwrap();
    let result = result.unwrap();
    assert!(!result.is_error.unwrap_or(false), "{}", text(&result));

    // The grant made for the first assistant's call covers the second's on the same spreadsheet: one core.
    let covered = call(&second, "update_cells", write("J2", "from the second")).await.unwrap();
    assert!(!covered.is_error.unwrap_or(false), "{}", text(&covered));
    let read = call(&first, "get_sheet_data", json!({ "spreadsheet_id": id, "sheet": "Sales", "range": "J1:J2" }))
        .await
        .unwrap();
    assert!(text(&read).contains("from the first") && text(&read).contains("from the second"), "{}", text(&read));

    // The host's audit log has both writes, with their sources.
    let audit = run_gatehouse(&home, &["audit", "--sandbox", "--tool", "update_cells"]).await;
    assert!(audit.ok, "{}", audit.stderr);
    assert!(audit.stdout.contains("person") && audit.stdout.contains("grant:"), "{}", audit.stdout);

    // The host's sign-in status reaches the assistants too.
    let status =
        first.peer().read_resource(rmcp::model::ReadResourceRequestParams::new("server://auth-status")).await.unwrap();
    assert!(serde_json::to_string(&status).unwrap().contains("sandbox@"), "{status:?}");

    first.cancel().await.unwrap();
    second.cancel().await.unwrap();
    host.kill().await.unwrap();
}

#[tokio::test]
async fn without_a_host_an_assistants_gatehouse_serve_hosts_its_own_core() {
    let home = Home::new();
    let client = assistant(&home).await;
    let id = budget_id(&client).await;
    let waiting = tokio::spawn(async move {
        let args = json!({ "spreadsheet_id": id, "sheet": "Sales", "range": "K1", "data": [["x"]] });
        call(&client, "update_cells", args).await
    });
    // Its own control socket answers.
    let (card, _) = next_approval(&home).await;
    assert!(run_gatehouse(&home, &["approvals", "deny", &card]).await.ok);
    let refused = waiting.await.unwrap().unwrap();
    assert!(refused.is_error.unwrap_or(false) && text(&refused).contains("declined"), "{}", text(&refused));
}

/// What a plain `gatehouse serve` (stdio, no `--sandbox`) says it does when a host runs: relay to it, or serve
/// on its own because the host serves something else.
async fn plain_serve_choice(home: &Home) -> &'static str {
    let mut serve = gatehouse(home);
    serve.arg("serve").stdin(Stdio::piped()).stdout(Stdio::null()).stderr(Stdio::piped());
    let mut child = serve.spawn().expect("start gatehouse serve");
    let mut lines = BufReader::new(child.stderr.take().expect("stderr")).lines();
    let said = tokio::time::timeout(Duration::from_secs(30), async {
        while let Ok(Some(line)) = lines.next_line().await {
            if line.contains("serving this assistant from the running Gatehouse host") {
                return "relays";
            }
            if line.contains("a Gatehouse host runs, but for the other") {
                return "serves on its own";
            }
        }
        "said nothing"
    })
    .await
    .unwrap_or("said nothing in time");
    child.kill().await.expect("stop it");
    said
}

/// The desktop app runs the sandbox by itself while nobody is signed in; an assistant it connected starts a
/// plain `gatehouse serve` (so it reaches the Google account once the person signs in), and that relays to the
/// app now — its calls run in the app's core, with the app's cards and audit log. A sandbox the person chose
/// takes only `gatehouse serve --sandbox`. The host is the core's own, in this process, as the app hosts it.
#[tokio::test]
async fn a_plain_serve_relays_to_a_host_in_the_sandbox_only_until_someone_signs_in() {
    use gatehouse_core::approval::store::AuditQuery;
    use gatehouse_core::config::Config;
    use gatehouse_core::host::{Host, HostOptions};

    let chosen = Home::new();
    let host =
        Host::start(HostOptions { config: on_rest(Config::with_home(chosen.path())), sandbox: true }).await.unwrap();
    host.control().expect("a control socket").accept_relays();
    assert_eq!(plain_serve_choice(&chosen).await, "serves on its own", "the person chose the sandbox");
    host.shutdown().await;

    let home = Home::new();
    let host =
        Host::start(HostOptions { config: on_rest(Config::with_home(home.path())), sandbox: true }).await.unwrap();
    let control = host.control().expect("a control socket");
    control.accept_relays();
    control.sandbox_until_sign_in();
    assert_eq!(plain_serve_choice(&home).await, "relays");

    // An assistant's plain `gatehouse serve` works on the host's sample files, and the host records the call.
    let mut serve = gatehouse(&home);
    serve.arg("serve");
    let client = stdio_client(serve).await.expect("a plain gatehouse serve");
    let id = budget_id(&client).await;
    let store = host.engine().approvals().store().expect("the host's approvals database");
    let query = AuditQuery { limit: 10, before_seq: None, tool: Some("search_spreadsheets".into()), agent: None };
    let records = store.list_audit(&query).await.unwrap();
    assert_eq!(records.len(), 1, "the search ran in the host: {records:?}");
    assert!(!id.is_empty());
    client.cancel().await.unwrap();
    host.shutdown().await;
}

#[tokio::test]
async fn a_relayed_assistant_started_with_tools_is_offered_only_those_by_the_host() {
    let home = Home::new();
    let mut host = start_host(&home).await;
    let mut serve = gatehouse(&home);
    serve.args(["serve", "--sandbox", "--tools", "sheets-read,search_spreadsheets"]);
    let client = stdio_client(serve).await.expect("an assistant's gatehouse serve");
    let selection = gatehouse_core::tools::sets::ToolSelection::parse("sheets-read,search_spreadsheets").unwrap();
    let expected: Vec<&str> = gatehouse_core::tools::all_tools()
        .iter()
        .map(|tool| tool.meta.name)
        .filter(|name| selection.allows(name))
        .collect();
    let listed: Vec<String> =
        client.peer().list_all_tools().await.unwrap().into_iter().map(|tool| tool.name.to_string()).collect();
    assert_eq!(listed, expected);
    let id = budget_id(&client).await;
    let write = json!({ "spreadsheet_id": id, "sheet": "Sales", "range": "L1", "data": [["no"]] });
    let refused = call(&client, "update_cells", write).await.unwrap();
    assert!(refused.is_error.unwrap_or(false));
    assert!(text(&refused).contains("`--tools sheets-read,search_spreadsheets`"), "{}", text(&refused));
    // Nothing waits in the host for the refused call.
    let pending = run_gatehouse(&home, &["approvals"]).await;
    assert!(pending.ok && !pending.stdout.contains("update_cells"), "{}", pending.stdout);
    client.cancel().await.unwrap();
    host.kill().await.unwrap();
}

/// `config` on Google's REST APIs, as the other e2e tests ([`gatehouse_e2e::E2E_BACKEND`]): Gatehouse's own
/// cards and grants decide the writes.
fn on_rest(mut config: gatehouse_core::config::Config) -> gatehouse_core::config::Config {
    config.google_backend = gatehouse_core::config::GoogleBackend::Rest;
    config
}
