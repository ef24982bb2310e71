//! The real `gatehouse` binary over streamable HTTP: the bearer token, loopback only, DNS-rebinding
//! protection, and real clients doing real work: rmcp's, and the official SDKs' 2026-07-28 clients
//! (stateless, no `initialize`) next to older revisions' sessions.

use gatehouse_e2e::{Home, Sdk, gatehouse, next_approval, run_gatehouse, start_http};
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::json;

async fn print_token(home: &Home) -> String {
    let output = gatehouse(home).args(["serve", "--print-token"]).output().await.unwrap();
    assert!(output.status.success());
    String::from_utf8(output.stdout).unwrap().trim().to_owned()
}

async fn sandbox_http(home: &Home) -> (tokio::process::Child, String) {
    let mut command = gatehouse(home);
    command.args(["serve", "--sandbox", "--http", "127.0.0.1:0"]);
    start_http(command).await.unwrap()
}

#[tokio::test]
async fn the_token_is_made_once_and_kept_private() {
    let home = Home::new();
    let first = print_token(&home).await;
    assert!(first.len() >= 40, "{first}");
    assert_eq!(print_token(&home).await, first);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(home.path().join("http-token")).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
}

#[tokio::test]
async fn an_mcp_client_with_the_token_works() {
    let home = Home::new();
    let token = print_token(&home).await;
    let (_child, url) = sandbox_http(&home).await;
    let mut config = StreamableHttpClientTransportConfig::with_uri(url.as_str());
    config.auth_header = Some(token);
    let transport = StreamableHttpClientTransport::with_client(reqwest::Client::new(), config);
    let client = ().serve(transport).await.unwrap();
    let tools = client.peer().list_all_tools().await.unwrap();
    assert_eq!(tools.len(), gatehouse_core::tools::all_tools().len());
    let params = CallToolRequestParams::new("get_storage_quota");
    let result = client.peer().call_tool(params).await.unwrap();
    assert!(!result.is_error.unwrap_or(false), "{result:?}");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn requests_without_the_token_or_from_foreign_hosts_are_refused() {
    let home = Home::new();
    let token = print_token(&home).await;
    let (_child, url) = sandbox_http(&home).await;
    let port = url.trim_start_matches("http://127.0.0.1:").split('/').next().unwrap().to_owned();
    let http = reqwest::Client::new();
    let initialize = json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"probe","version":"1"}}});
    let post = |host: Option<String>, origin: Option<&str>, bearer: Option<&str>| {
        let mut request = http
            .post(&url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(initialize.to_string());
        if let Some(host) = host {
            request = request.header("host", host);
        }
        if let Some(origin) = origin {
            request = request.header("origin", origin);
        }
        if let Some(bearer) = bearer {
            request = request.bearer_auth(bearer);
        }
        request.send()
    };
    assert_eq!(post(None, None, None).await.unwrap().status(), 401);
    let wrong = post(None, None, Some("wrong")).await.unwrap();
    assert_eq!(wrong.status(), 401);
    assert!(wrong.text().await.unwrap().contains("--print-token"));
    assert_eq!(post(Some(format!("evil.example:{port}")), None, Some(&token)).await.unwrap().status(), 403);
    assert_eq!(post(None, Some("http://evil.example"), Some(&token)).await.unwrap().status(), 403);
    let ok = post(None, Some(&format!("http://localhost:{port}")), Some(&token)).await.unwrap();
    assert_eq!(ok.status(), 200, "{}", ok.text().await.unwrap());
}

#[tokio::test]
async fn non_loopback_addresses_are_refused_at_start() {
    let home = Home::new();
    let output = gatehouse(&home).args(["serve", "--sandbox", "--http", "0.0.0.0:0"]).output().await.unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("loopback"), "{stderr}");
}

#[tokio::test]
async fn malformed_requests_get_a_4xx_and_the_server_keeps_serving() {
    let home = Home::new();
    let token = print_token(&home).await;
    let (_child, url) = sandbox_http(&home).await;
    // No connection reuse: after refusing an oversized body the server closes that connection.
    let http = reqwest::Client::builder().pool_max_idle_per_host(0).build().unwrap();
    let send = |body: String| {
        http.post(&url)
            .bearer_auth(&token)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(body)
            .send()
    };
    for garbage in ["{not json", "[]", "{\"jsonrpc\":\"2.0\",\"id\":1}"] {
        let status = send(garbage.to_owned()).await.unwrap().status();
        assert!(status.is_client_error(), "{garbage:?} answered {status}");
    }
    // Over the body limit the server may answer 413 and close before the client has finished sending;
    // either way the request must not be accepted.
    match send("x".repeat(5 * 1024 * 1024)).await {
        Ok(response) => assert_eq!(response.status(), 413),
        Err(error) => assert!(error.is_request(), "{error}"),
    }
    let initialize = json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"probe","version":"1"}}});
    assert_eq!(send(initialize.to_string()).await.unwrap().status(), 200);
}

/// Answers the next card at another terminal (*Allow once*) and returns the listing that showed it.
async fn allow_next(home: &Home) -> String {
    let (id, listing) = next_approval(home).await;
    let allowed = run_gatehouse(home, &["approvals", "allow", &id]).await;
    assert!(allowed.ok, "{}", allowed.stderr);
    listing
}

/// The official SDKs that speak MCP 2026-07-28 over streamable HTTP, stateless (no `initialize`, no session):
/// each request says who the client is, and the rules for names hold per request. With the server's token the
/// name is the request's `clientInfo`, self-reported; with a registered assistant's token it is the bound name,
/// whatever `clientInfo` says; and a request naming itself as that assistant without its token is refused. An
/// older client (the Python SDK's `initialize` handshake, 2025-11-25) keeps working on the same server.
#[tokio::test]
async fn the_official_2026_sdks_are_served_statelessly_and_named_by_each_request() {
    let home = Home::new();
    let token = print_token(&home).await;
    let (_child, url) = sandbox_http(&home).await;

    // Tokens are URL-safe base64, which may begin with `-`: given as `--token=…`, so that no client's argument
    // parser takes one for an option (the Python client refused a token so, 1 run in 64).
    let token_arg = format!("--token={token}");

    // Python, pinned to 2026-07-28, with the server's token.
    let python = Sdk::Python.run(&home, &["--http", &url, &token_arg, "--mode", "2026-07-28"]);
    let (steps, listing) = tokio::join!(python, allow_next(&home));
    steps.assert_sandbox_round_trip("2026-07-28", Sdk::Python.written_value());
    assert!(listing.contains("“python-sdk-2026” (says it is) wants to run Update cells"), "{listing}");

    // TypeScript, discovering the server, with the token of a registered assistant, calling itself another name.
    let added = run_gatehouse(&home, &["assistants", "add", "--sandbox", "chat"]).await;
    assert!(added.ok, "{}", added.stderr);
    let mut lines = added.stdout.lines().skip_while(|line| !line.starts_with("Its token"));
    let chat = lines.nth(1).expect("the printed token").trim().to_owned();
    let chat_arg = format!("--token={chat}");
    let typescript = Sdk::TypeScript.run(&home, &["--http", &url, &chat_arg, "--name", "impostor"]);
    let (steps, listing) = tokio::join!(typescript, allow_next(&home));
    steps.assert_sandbox_round_trip("2026-07-28", Sdk::TypeScript.written_value());
    assert!(listing.contains("“chat” wants to run Update cells"), "{listing}");
    assert!(!listing.contains("impostor"), "{listing}");

    // The registered name, said by a request with the server's token: refused before anything runs.
    let refused = Sdk::Python.run(&home, &["--http", &url, &token_arg, "--name", "Chat"]).await;
    let search = refused.step("search");
    assert_eq!(search["is_error"], true, "{}", refused.output);
    assert!(search["text"].as_str().unwrap_or_default().contains("did not present its token"), "{}", refused.output);

    // The Python SDK's older handshake (2025-11-25, with a session) on the same server.
    let legacy = Sdk::Python.run(&home, &["--http", &url, &token_arg, "--mode", "legacy", "--name", "legacy"]);
    let (steps, _) = tokio::join!(legacy, allow_next(&home));
    steps.assert_sandbox_round_trip("2025-11-25", Sdk::Python.written_value());

    let audit = run_gatehouse(&home, &["audit", "--sandbox"]).await;
    assert!(audit.ok, "{}", audit.stderr);
    let row = |tool: &str, agent: &str| {
        let found = audit.stdout.lines().find(|line| line.contains(tool) && line.contains(agent));
        found.unwrap_or_else(|| panic!("no {tool} record by {agent}:\n{}", audit.stdout)).to_owned()
    };
    assert!(row("update_cells", "“python-sdk-2026” (says it is)").contains("person"));
    let bound = row("update_cells", "“chat” ");
    assert!(bound.contains("person") && !bound.contains("says it is"), "{bound}");
    assert!(row("search_spreadsheets", "“Chat” (says it is)").contains("agent-name"));
    assert!(row("update_cells", "“legacy” (says it is)").contains("person"));
}

/// A 2025-06-18 client's session: `initialize` agrees on 2025-06-18 and the session serves its requests.
#[tokio::test]
async fn a_2025_06_18_session_is_still_served() {
    let home = Home::new();
    let token = print_token(&home).await;
    let (_child, url) = sandbox_http(&home).await;
    let http = reqwest::Client::new();
    let post = |body: serde_json::Value, session: Option<&str>| {
        let mut request = http
            .post(&url)
            .bearer_auth(&token)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(body.to_string());
        if let Some(session) = session {
            request = request.header("mcp-session-id", session).header("mcp-protocol-version", "2025-06-18");
        }
        request.send()
    };
    let initialize = json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"old","version":"1"}}});
    let answered = post(initialize, None).await.unwrap();
    assert_eq!(answered.status(), 200);
    let session = answered.headers().get("mcp-session-id").and_then(|v| v.to_str().ok()).map(str::to_owned);
    let session = session.expect("a session for a 2025 client");
    let result = jsonrpc_result(&answered.text().await.unwrap());
    assert_eq!(result["protocolVersion"], "2025-06-18", "{result}");
    let initialized = json!({"jsonrpc":"2.0","method":"notifications/initialized"});
    assert!(post(initialized, Some(&session)).await.unwrap().status().is_success());
    let listed = post(json!({"jsonrpc":"2.0","id":2,"method":"tools/list"}), Some(&session)).await.unwrap();
    assert_eq!(listed.status(), 200);
    let result = jsonrpc_result(&listed.text().await.unwrap());
    let tools = result["tools"].as_array().map(Vec::len);
    assert_eq!(tools, Some(gatehouse_core::tools::all_tools().len()), "{result}");
}

/// The `result` of a JSON-RPC answer sent as JSON or as server-sent events.
fn jsonrpc_result(body: &str) -> serde_json::Value {
    let messages = std::iter::once(body).chain(body.lines().filter_map(|line| line.strip_prefix("data:")));
    messages
        .filter_map(|text| serde_json::from_str::<serde_json::Value>(text.trim()).ok())
        .find_map(|message| message.get("result").cloned())
        .unwrap_or_else(|| panic!("no JSON-RPC result in {body}"))
}
