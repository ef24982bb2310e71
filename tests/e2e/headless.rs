//! The desktop app where there is no display: the real `gatehouse-desktop`, started with DISPLAY and
//! WAYLAND_DISPLAY unset, says so and hosts the core as `gatehouse serve --headless --http` does: MCP over HTTP
//! for rmcp's client with the bearer token, the `gatehouse serve` an assistant starts relaying to it, cards
//! answered with `gatehouse approvals`; SIGTERM stops it cleanly.

use std::process::Stdio;
use std::time::Duration;

use gatehouse_e2e::desktop::desktop_bin;
use gatehouse_e2e::{Home, call, gatehouse, next_approval, run_gatehouse, stdio_client, text};
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::json;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::Command;

/// `gatehouse-desktop` in `home` with no display, on a free loopback port, with nobody signed in.
fn desktop_without_display(home: &Home) -> Command {
    let mut command = Command::new(desktop_bin());
    command
        .env("GATEHOUSE_HOME", home.path())
        .env("GATEHOUSE_HTTP_ADDR", "127.0.0.1:0")
        .env("GATEHOUSE_LOG", "info")
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .env_remove("GATEHOUSE_SANDBOX")
        .env_remove("GATEHOUSE_GOOGLE_ENDPOINT")
        .env_remove("SERVICE_ACCOUNT_PATH")
        .env_remove("ENABLED_TOOLS")
        .env_remove("MAX_TOOL_RESPONSE_CHARS")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    command
}

#[tokio::test]
async fn without_a_display_the_app_serves_headless_until_sigterm() {
    let home = Home::new();
    let token =
        gatehouse(&home).args(["serve", "--print-token"]).output().await.expect("gatehouse serve --print-token");
    assert!(token.status.success());
    let token = String::from_utf8(token.stdout).expect("a token").trim().to_owned();

    let mut app = desktop_without_display(&home).spawn().expect("starting gatehouse-desktop");
    let mut lines = BufReader::new(app.stderr.take().expect("stderr")).lines();
    // What it says, up to its last word on starting: where approvals are answered.
    let mut said = Vec::new();
    let started = tokio::time::timeout(Duration::from_secs(60), async {
        while let Ok(Some(line)) = lines.next_line().await {
            let last = line.contains("answer them in another terminal with `gatehouse approvals`");
            said.push(line);
            if last {
                return true;
            }
        }
        false
    })
    .await;
    let said_text = said.join("\n");
    assert_eq!(started, Ok(true), "the app did not come up headless:\n{said_text}");
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    assert!(said_text.contains("There is no graphical display here"), "{said_text}");
    assert!(said_text.contains("starting in the sandbox"), "nobody is signed in: {said_text}");
    assert!(said_text.contains("gatehouse serve --print-token"), "{said_text}");
    let url = said
        .iter()
        .find_map(|line| line.split("serving MCP at ").nth(1))
        .and_then(|rest| rest.split_whitespace().next())
        .expect("the MCP URL")
        .to_owned();

    // MCP-ready over HTTP, with the token.
    let mut config = StreamableHttpClientTransportConfig::with_uri(url.as_str());
    config.auth_header = Some(token);
    let transport = StreamableHttpClientTransport::with_client(reqwest::Client::new(), config);
    let http = ().serve(transport).await.expect("an MCP session over HTTP");
    let tools = http.peer().list_all_tools().await.expect("tools/list");
    assert_eq!(tools.len(), gatehouse_e2e::sandbox_tools().len(), "Gatehouse's tools and Google's uncovered ones");
    let quota = http.peer().call_tool(CallToolRequestParams::new("get_storage_quota")).await.expect("a call");
    assert!(!quota.is_error.unwrap_or(false), "{quota:?}");

    // An assistant's `gatehouse serve` relays to the app: its change waits for `gatehouse approvals`.
    let mut serve = gatehouse(&home);
    serve.args(["serve", "--sandbox"]);
    let assistant = stdio_client(serve).await.expect("an assistant's gatehouse serve");
    let created = call(&assistant, "create_folder", json!({ "name": "From the assistant" }));
    let answered = async {
        let (card, listing) = next_approval(&home).await;
        assert!(listing.contains("1 Gatehouse server is running"), "the assistant's serve hosts no core: {listing}");
        let allowed = run_gatehouse(&home, &["approvals", "allow", &card]).await;
        assert!(allowed.ok, "{}", allowed.stderr);
    };
    let (created, ()) = tokio::join!(created, answered);
    let created = created.expect("create_folder");
    assert!(!created.is_error.unwrap_or(false), "{}", text(&created));
    assistant.cancel().await.expect("the assistant disconnects");
    http.cancel().await.expect("the HTTP session ends");

    // SIGTERM stops it cleanly: it exits with success and no longer answers as a host.
    let pid = app.id().expect("the app's process id").to_string();
    let sent = std::process::Command::new("kill").args(["-TERM", &pid]).status().expect("kill");
    assert!(sent.success());
    let status = tokio::time::timeout(Duration::from_secs(20), app.wait())
        .await
        .expect("the app stops within 20 s of SIGTERM")
        .expect("its exit status");
    assert!(status.success(), "{status:?}");
    let listed = run_gatehouse(&home, &["approvals"]).await;
    assert!(listed.stdout.contains("No Gatehouse server is running"), "{}{}", listed.stdout, listed.stderr);
}
