//! The real `gatehouse` binary over streamable HTTP: the bearer token, loopback only, DNS-rebinding
//! protection, and rmcp's HTTP client doing real work.

use gatehouse_e2e::{Home, gatehouse, start_http};
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
