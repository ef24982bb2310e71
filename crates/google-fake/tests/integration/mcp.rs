//! Google's Workspace MCP servers on the emulator, over real HTTP: rmcp's client speaking 2026-07-28
//! (stateless, `server/discover`, multi-round-trip approval forms), a 2025-11-25 client, and raw JSON-RPC where
//! the HTTP answer itself is the point (401/403 from the front end). Every write through one surface is read
//! through the other.

use google_fake::{Account, ConsentMode, Identity, OAuthClient};
use reqwest::StatusCode;
use rmcp::ServiceExt;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ClientConfig, ElicitationCapability,
    FormElicitationCapability, InputRequiredResult, ProtocolVersion,
};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RoleClient, RunningService, ServiceError};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::{Value, json};

use crate::common::{ADA, BOB, Env};

type Client = RunningService<RoleClient, ClientConfig>;

const SHEETS_READONLY: &str = "https://www.googleapis.com/auth/spreadsheets.readonly";

/// What the client says it can do: show forms, or not.
fn client_info(forms: bool, version: ProtocolVersion) -> ClientConfig {
    let mut info = ClientConfig::default();
    info.protocol_version = version;
    if forms {
        let mut elicitation = ElicitationCapability::default();
        elicitation.form = Some(FormElicitationCapability::default());
        info.capabilities.elicitation = Some(elicitation);
    }
    info
}

fn transport(env: &Env, path: &str, token: &str) -> StreamableHttpClientTransport<reqwest::Client> {
    StreamableHttpClientTransport::from_config(
        StreamableHttpClientTransportConfig::with_uri(env.url(path)).auth_header(token),
    )
}

/// A 2026-07-28 client of `/mcp/P/…` (no `initialize`: `server/discover`, then stateless requests).
async fn modern(env: &Env, path: &str, token: &str) -> Client {
    let lifecycle = ClientLifecycleMode::Discover { preferred_versions: vec![ProtocolVersion::V_2026_07_28] };
    client_info(true, ProtocolVersion::V_2026_07_28)
        .serve_with_lifecycle(transport(env, path, token), lifecycle)
        .await
        .expect("a 2026-07-28 client connects")
}

async fn tool_names(client: &Client) -> Vec<String> {
    client.list_all_tools().await.expect("tools/list").into_iter().map(|tool| tool.name.to_string()).collect()
}

fn call(name: &str, arguments: Value) -> CallToolRequestParams {
    let Value::Object(arguments) = arguments else { panic!("arguments are an object") };
    CallToolRequestParams::new(name.to_owned()).with_arguments(arguments)
}

/// The same call, repeated with the person's answer to the form and the state it came with.
fn answered(params: CallToolRequestParams, form: &InputRequiredResult, answer: Value) -> CallToolRequestParams {
    let mut responses = std::collections::BTreeMap::new();
    responses.insert("approval".to_owned(), answer);
    let mut params = params.with_input_responses(responses);
    params.request_state = form.request_state.clone();
    params
}

async fn once(client: &Client, params: CallToolRequestParams) -> CallToolResponse {
    client.call_tool_once(params).await.expect("tools/call is answered")
}

fn complete(response: CallToolResponse) -> CallToolResult {
    match response {
        CallToolResponse::Complete(result) => result,
        other => panic!("expected a result, got {other:?}"),
    }
}

fn form(response: CallToolResponse) -> InputRequiredResult {
    match response {
        CallToolResponse::InputRequired(form) => form,
        other => panic!("expected an approval form, got {other:?}"),
    }
}

fn text(result: &CallToolResult) -> String {
    serde_json::to_value(&result.content).expect("content serializes").to_string()
}

/// A spreadsheet `title` owned by `token`'s account, with `rows` in Sheet1 from A1 (over REST).
async fn spreadsheet(env: &Env, token: &str, title: &str, rows: Value) -> String {
    let created = env
        .fetch(token, env.http.post(env.url("/v4/spreadsheets")).json(&json!({ "properties": { "title": title } })))
        .await;
    assert_eq!(created.status, StatusCode::OK, "{}", created.json());
    let id = created.json()["spreadsheetId"].as_str().expect("an id").to_owned();
    let put = env.http.put(env.url(&format!("/v4/spreadsheets/{id}/values/Sheet1!A1?valueInputOption=RAW")));
    let written = env.fetch(token, put.json(&json!({ "values": rows }))).await;
    assert_eq!(written.status, StatusCode::OK, "{}", written.json());
    id
}

/// Sheet1's values over REST.
async fn rest_values(env: &Env, id: &str) -> Value {
    let reply = env.get_as(&env.ada, &format!("/v4/spreadsheets/{id}/values/Sheet1"), &[]).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.json());
    reply.json()["values"].clone()
}

fn update(id: &str, values: Value) -> CallToolRequestParams {
    call("update_values", json!({ "spreadsheetId": id, "range": "Sheet1!A1:B1", "values": values }))
}

/// A raw JSON-RPC POST as a 2026-07-28 client sends it: the status, the `WWW-Authenticate` header and the body.
async fn raw(env: &Env, path: &str, token: Option<&str>, method: &str, params: Value) -> (StatusCode, String, Value) {
    let mut params = params;
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": { "name": "raw", "version": "1" },
        "io.modelcontextprotocol/clientCapabilities": { "elicitation": { "form": {} } }
    });
    let mut request = env
        .http
        .post(env.url(path))
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", method)
        .json(&json!({ "jsonrpc": "2.0", "id": 1, "method": method, "params": params }));
    if let Some(name) = params.get("name").and_then(Value::as_str) {
        request = request.header("mcp-name", name);
    }
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let response = request.send().await.expect("answered");
    let status = response.status();
    let challenge =
        response.headers().get("www-authenticate").and_then(|v| v.to_str().ok()).unwrap_or_default().to_owned();
    let body = response.json().await.unwrap_or(Value::Null);
    (status, challenge, body)
}

#[tokio::test]
async fn discover_and_the_tool_lists_of_v1_and_v1self() {
    let env = Env::new().await;
    let (status, _, discovered) = raw(&env, "/mcp/sheets/v1", Some(&env.ada), "server/discover", json!({})).await;
    assert_eq!(status, StatusCode::OK, "{discovered}");
    let versions = &discovered["result"]["supportedVersions"];
    assert!(versions.as_array().is_some_and(|v| v.contains(&json!("2026-07-28"))), "{discovered}");
    assert!(discovered["result"]["capabilities"]["tools"].is_object(), "{discovered}");

    let sheets = modern(&env, "/mcp/sheets/v1", &env.ada).await;
    assert_eq!(
        tool_names(&sheets).await,
        [
            "get_values",
            "get_spreadsheet",
            "update_values",
            "update_formulas",
            "update_spreadsheet",
            "insert_dimension",
            "append_values",
            "batch_clear_values"
        ],
        "in the order of Google's reference"
    );
    let sheets_self = modern(&env, "/mcp/sheets/v1self", &env.ada).await;
    assert_eq!(tool_names(&sheets_self).await, ["get_values", "get_spreadsheet"], "form-gated tools are left out");
    let docs = modern(&env, "/mcp/docs/v1", &env.ada).await;
    assert_eq!(tool_names(&docs).await, ["read_doc", "update_doc"]);
    let docs_self = modern(&env, "/mcp/docs/v1self", &env.ada).await;
    assert_eq!(tool_names(&docs_self).await, ["read_doc"]);
    let drive = modern(&env, "/mcp/drive/v1", &env.ada).await;
    let drive_tools =
        ["search_files", "list_recent_files", "get_file_metadata", "read_file_content", "create_file", "copy_file"];
    assert_eq!(tool_names(&drive).await, drive_tools);
    let drive_self = modern(&env, "/mcp/drive/v1self", &env.ada).await;
    assert_eq!(tool_names(&drive_self).await, drive_tools);

    let listed = sheets.list_all_tools().await.expect("tools/list");
    let update = listed.iter().find(|tool| tool.name == "update_values").expect("update_values");
    assert_eq!(update.input_schema["required"], json!(["spreadsheetId", "range", "values"]));
    assert_eq!(update.annotations.as_ref().and_then(|a| a.read_only_hint), Some(false));
}

#[tokio::test]
async fn a_read_through_mcp_sees_what_rest_wrote() {
    let env = Env::new().await;
    let id = spreadsheet(&env, &env.ada, "Budget", json!([["Item", "Cost"], ["Tea", 3]])).await;
    let sheets = modern(&env, "/mcp/sheets/v1", &env.ada).await;
    let read =
        complete(once(&sheets, call("get_values", json!({ "spreadsheetId": id, "range": "Sheet1!A1:B2" }))).await);
    assert_ne!(read.is_error, Some(true), "{}", text(&read));
    let values = &read.structured_content.as_ref().expect("structured")["values"];
    assert_eq!(values, &json!([["Item", "Cost"], ["Tea", "3"]]), "formatted values, as REST answers");
    assert!(
        env.google
            .world()
            .requests
            .iter()
            .any(|r| r.host == "sheetsmcp.googleapis.com"
                && r.path.starts_with(&format!("/v4/spreadsheets/{id}/values/"))),
        "the tool ran as its REST request"
    );
}

#[tokio::test]
async fn an_accepted_form_writes_and_rest_reads_the_change() {
    let env = Env::new().await;
    let id = spreadsheet(&env, &env.ada, "Budget", json!([["Item", "Cost"]])).await;
    let sheets = modern(&env, "/mcp/sheets/v1", &env.ada).await;
    let params = update(&id, json!([["Coffee", 4]]));
    let asked = form(once(&sheets, params.clone()).await);
    let request = serde_json::to_value(&asked.input_requests).expect("serializes");
    assert_eq!(request["approval"]["method"], "elicitation/create", "{request}");
    let message = request["approval"]["params"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("Budget") && message.contains("Sheet1!A1:B1"), "{message}");
    assert_eq!(request["approval"]["params"]["requestedSchema"]["type"], "object");
    assert!(asked.request_state.is_some(), "the state comes with the form");
    assert_eq!(rest_values(&env, &id).await, json!([["Item", "Cost"]]), "nothing written before the answer");

    let done =
        complete(once(&sheets, answered(params.clone(), &asked, json!({ "action": "accept", "content": {} }))).await);
    assert_ne!(done.is_error, Some(true), "{}", text(&done));
    assert_eq!(done.structured_content.as_ref().expect("structured")["updatedCells"], 2);
    assert_eq!(rest_values(&env, &id).await, json!([["Coffee", "4"]]));

    // The state was redeemed: presenting it again is refused, and nothing is written again.
    let replay = sheets.call_tool_once(answered(params, &asked, json!({ "action": "accept", "content": {} }))).await;
    assert!(matches!(replay, Err(ServiceError::McpError(ref e)) if e.code.0 == -32602), "{replay:?}");
}

#[tokio::test]
async fn declined_and_cancelled_forms_change_nothing() {
    let env = Env::new().await;
    let id = spreadsheet(&env, &env.ada, "Budget", json!([["Item", "Cost"]])).await;
    let sheets = modern(&env, "/mcp/sheets/v1", &env.ada).await;
    for (action, words) in [("decline", "declined"), ("cancel", "dismissed")] {
        let params = update(&id, json!([["Coffee", 4]]));
        let asked = form(once(&sheets, params.clone()).await);
        let answer = complete(once(&sheets, answered(params, &asked, json!({ "action": action }))).await);
        assert_eq!(answer.is_error, Some(true), "{action}");
        assert!(text(&answer).contains(words), "{action}: {}", text(&answer));
        assert_eq!(rest_values(&env, &id).await, json!([["Item", "Cost"]]), "{action} leaves the sheet as it was");
    }
}

#[tokio::test]
async fn a_repeat_with_other_arguments_than_the_form_was_for_is_refused() {
    let env = Env::new().await;
    let id = spreadsheet(&env, &env.ada, "Budget", json!([["Item", "Cost"]])).await;
    let sheets = modern(&env, "/mcp/sheets/v1", &env.ada).await;
    let asked = form(once(&sheets, update(&id, json!([["Coffee", 4]]))).await);
    let swapped = answered(update(&id, json!([["Rent", 900]])), &asked, json!({ "action": "accept", "content": {} }));
    let refused = sheets.call_tool_once(swapped).await;
    let Err(ServiceError::McpError(error)) = refused else { panic!("refused, got {refused:?}") };
    assert_eq!(error.code.0, -32602);
    assert!(error.message.contains("arguments"), "{}", error.message);
    assert_eq!(rest_values(&env, &id).await, json!([["Item", "Cost"]]));
}

#[tokio::test]
async fn v1self_refuses_what_needs_approval_and_v1_asks() {
    let env = Env::new().await;
    let bob = env.google.issue_token(Identity::user(BOB));
    let own = spreadsheet(&env, &env.ada, "Mine", json!([["a"]])).await;
    let theirs = spreadsheet(&env, &bob, "Bob's", json!([["b"]])).await;
    env.google.world().drive.share_with(&theirs, ADA, "writer");

    let restricted = modern(&env, "/mcp/sheets/v1self", &env.ada).await;
    let write = complete(once(&restricted, update(&own, json!([["x"]]))).await);
    assert_eq!(write.is_error, Some(true));
    assert!(text(&write).contains("/mcp/sheets/v1"), "{}", text(&write));
    let read_theirs = call("get_values", json!({ "spreadsheetId": theirs, "range": "Sheet1!A1" }));
    let refused = complete(once(&restricted, read_theirs.clone()).await);
    assert_eq!(refused.is_error, Some(true), "reading an item owned outside the account needs approval");
    let read_own =
        complete(once(&restricted, call("get_values", json!({ "spreadsheetId": own, "range": "A1" }))).await);
    assert_ne!(read_own.is_error, Some(true), "{}", text(&read_own));

    let full = modern(&env, "/mcp/sheets/v1", &env.ada).await;
    let asked = form(once(&full, read_theirs.clone()).await);
    let read = complete(once(&full, answered(read_theirs, &asked, json!({ "action": "accept", "content": {} }))).await);
    assert_eq!(read.structured_content.as_ref().expect("structured")["values"], json!([["b"]]));

    // Drive's lists on v1self hold only the account's own files.
    let drive_self = modern(&env, "/mcp/drive/v1self", &env.ada).await;
    let found = complete(once(&drive_self, call("search_files", json!({ "query": "" }))).await);
    let names: Vec<&str> = found.structured_content.as_ref().expect("structured")["files"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|file| file["title"].as_str())
        .collect();
    assert_eq!(names, ["Mine"]);
}

#[tokio::test]
async fn a_client_without_forms_is_told_the_capability_is_missing() {
    let env = Env::new().await;
    let id = spreadsheet(&env, &env.ada, "Budget", json!([["Item"]])).await;
    let lifecycle = ClientLifecycleMode::Discover { preferred_versions: vec![ProtocolVersion::V_2026_07_28] };
    let formless = client_info(false, ProtocolVersion::V_2026_07_28)
        .serve_with_lifecycle(transport(&env, "/mcp/sheets/v1", &env.ada), lifecycle)
        .await
        .expect("connects");
    let refused = formless.call_tool_once(update(&id, json!([["x"]]))).await;
    assert!(matches!(refused, Err(ServiceError::McpError(ref e)) if e.code.0 == -32021), "{refused:?}");
}

#[tokio::test]
async fn a_2025_11_25_client_initializes_and_reads() {
    let env = Env::new().await;
    let id = spreadsheet(&env, &env.ada, "Budget", json!([["Item"]])).await;
    let legacy = client_info(false, ProtocolVersion::V_2025_11_25)
        .serve(transport(&env, "/mcp/sheets/v1", &env.ada))
        .await
        .expect("a 2025-11-25 client initializes");
    assert_eq!(tool_names(&legacy).await.len(), 8);
    let read = legacy.call_tool(call("get_values", json!({ "spreadsheetId": id, "range": "A1" }))).await.expect("call");
    assert_eq!(read.structured_content.as_ref().expect("structured")["values"], json!([["Item"]]));
}

#[tokio::test]
async fn tools_call_needs_the_tools_scopes_and_tools_list_does_not() {
    let env = Env::new().await;
    let id = spreadsheet(&env, &env.ada, "Budget", json!([["Item"]])).await;
    let narrow = env.google.issue_token_with_scopes(Identity::user(ADA), &[SHEETS_READONLY]);
    let listed = modern(&env, "/mcp/sheets/v1", &narrow).await;
    assert_eq!(tool_names(&listed).await.len(), 8, "every tool is listed whatever the scopes");
    let args =
        json!({ "name": "update_values", "arguments": { "spreadsheetId": id, "range": "A1", "values": [["x"]] } });
    let (status, challenge, body) = raw(&env, "/mcp/sheets/v1", Some(&narrow), "tools/call", args).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    assert!(challenge.contains("insufficient_scope"), "{challenge}");
    let args = json!({ "name": "get_values", "arguments": { "spreadsheetId": id, "range": "A1" } });
    let (status, _, body) = raw(&env, "/mcp/sheets/v1", Some(&narrow), "tools/call", args).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, _, _) = raw(&env, "/mcp/sheets/v1", None, "tools/list", json!({})).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
}

/// Signs Ada in through `client` with the code flow (the emulator's consent answers at once): the access token.
async fn sign_in(env: &Env, client: &OAuthClient) -> String {
    let redirect = "http://127.0.0.1:49152/";
    let verifier = "v".repeat(64);
    let challenge = {
        use base64::Engine;
        use sha2::Digest;
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(sha2::Sha256::digest(verifier.as_bytes()))
    };
    let query = [
        ("client_id", client.client_id.as_str()),
        ("redirect_uri", redirect),
        ("response_type", "code"),
        ("scope", "https://www.googleapis.com/auth/spreadsheets"),
        ("state", "s"),
        ("code_challenge", challenge.as_str()),
        ("code_challenge_method", "S256"),
    ];
    let response = env.http.get(env.url("/o/oauth2/v2/auth")).query(&query).send().await.expect("authorize");
    let location = response.headers().get("location").and_then(|v| v.to_str().ok()).expect("a redirect").to_owned();
    let code = url::Url::parse(&location)
        .expect("url")
        .query_pairs()
        .find(|(key, _)| key == "code")
        .map(|(_, code)| code.into_owned())
        .expect("a code");
    let form = [
        ("grant_type", "authorization_code"),
        ("code", code.as_str()),
        ("code_verifier", verifier.as_str()),
        ("redirect_uri", redirect),
        ("client_id", client.client_id.as_str()),
        ("client_secret", client.client_secret.as_str()),
    ];
    let tokens: Value =
        env.http.post(env.url("/token")).form(&form).send().await.expect("token").json().await.expect("JSON");
    tokens["access_token"].as_str().expect("an access token").to_owned()
}

#[tokio::test]
async fn a_non_agentic_clients_token_is_refused_on_mcp_and_accepted_on_rest() {
    let env = Env::new().await;
    let agent = OAuthClient::installed("111-agent.apps.googleusercontent.com", "secret-a");
    let legacy = OAuthClient::installed("222-legacy.apps.googleusercontent.com", "secret-l").non_agentic();
    {
        let mut world = env.google.world();
        world.oauth_clients = vec![agent.clone(), legacy.clone()];
        world.accounts = vec![Account::user(ADA, "Ada Lovelace")];
        world.consent = ConsentMode::Approve(Identity::user(ADA));
    }
    let id = spreadsheet(&env, &env.ada, "Budget", json!([["Item"]])).await;
    let agent_token = sign_in(&env, &agent).await;
    let legacy_token = sign_in(&env, &legacy).await;

    let (status, _, body) = raw(&env, "/mcp/sheets/v1", Some(&legacy_token), "server/discover", json!({})).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    assert_eq!(body["error"]["message"], google_fake::mcp::NOT_AGENTIC);
    let args = json!({ "name": "get_values", "arguments": { "spreadsheetId": id, "range": "A1" } });
    let (status, _, _) = raw(&env, "/mcp/sheets/v1self", Some(&legacy_token), "tools/call", args.clone()).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "every endpoint refuses it");
    let fixture = env.google.world().issue_token_for_client(Identity::user(ADA), &legacy.client_id);
    let (status, _, _) = raw(&env, "/mcp/sheets/v1", Some(&fixture), "tools/list", json!({})).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "a fixture token of the non-agentic client is refused too");
    let rest = env.get_as(&legacy_token, &format!("/v4/spreadsheets/{id}/values/A1"), &[]).await;
    assert_eq!(rest.status, StatusCode::OK, "REST keeps working for a non-agentic client");

    let (status, _, body) = raw(&env, "/mcp/sheets/v1", Some(&agent_token), "tools/call", args).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["result"]["structuredContent"]["values"], json!([["Item"]]));
}

#[tokio::test]
async fn docs_and_drive_tools_share_the_rest_world() {
    let env = Env::new().await;
    let drive = modern(&env, "/mcp/drive/v1", &env.ada).await;
    use base64::Engine;
    let content = base64::engine::general_purpose::STANDARD.encode("Hello from MCP");
    let created = complete(
        once(
            &drive,
            call("create_file", json!({ "title": "Notes", "contentMimeType": "text/plain", "base64Content": content })),
        )
        .await,
    );
    assert_ne!(created.is_error, Some(true), "{}", text(&created));
    let file = created.structured_content.clone().expect("structured");
    assert_eq!(file["mimeType"], "application/vnd.google-apps.document", "text/plain becomes a Doc");
    let doc_id = file["id"].as_str().expect("an id").to_owned();

    // REST sees the new Doc; a REST edit is read back through the Docs and Drive servers.
    let edit = json!({ "requests": [{ "insertText": { "location": { "index": 1 }, "text": "REST says hi. " } }] });
    let url = env.url(&format!("/v1/documents/{doc_id}:batchUpdate"));
    let edited = env.fetch(&env.ada, env.http.post(url).json(&edit)).await;
    assert_eq!(edited.status, StatusCode::OK, "{}", edited.json());
    let read = complete(once(&drive, call("read_file_content", json!({ "fileId": doc_id }))).await);
    let content =
        read.structured_content.as_ref().expect("structured")["fileContent"].as_str().unwrap_or_default().to_owned();
    assert!(content.contains("REST says hi. Hello from MCP"), "{content}");

    let docs = modern(&env, "/mcp/docs/v1", &env.ada).await;
    let doc = complete(once(&docs, call("read_doc", json!({ "documentId": doc_id }))).await);
    assert_eq!(
        doc.structured_content.as_ref().expect("structured")["content"]["title"],
        "Notes",
        "the document under content"
    );
    let change = call(
        "update_doc",
        json!({ "documentId": doc_id, "requests": [
        { "replaceAllText": { "containsText": { "text": "hi", "matchCase": true }, "replaceText": "hello" } }
    ] }),
    );
    let asked = form(once(&docs, change.clone()).await);
    let done = complete(once(&docs, answered(change, &asked, json!({ "action": "accept", "content": {} }))).await);
    assert_ne!(done.is_error, Some(true), "{}", text(&done));
    let exported =
        env.get_as(&env.ada, &format!("/drive/v3/files/{doc_id}/export"), &[("mimeType", "text/plain")]).await;
    assert!(String::from_utf8_lossy(&exported.bytes).contains("REST says hello."), "{:?}", exported.bytes);

    let recent = complete(once(&drive, call("list_recent_files", json!({}))).await);
    assert_eq!(recent.structured_content.as_ref().expect("structured")["files"][0]["id"], json!(doc_id));
    let meta = complete(once(&drive, call("get_file_metadata", json!({ "fileId": doc_id }))).await);
    let meta = meta.structured_content.expect("structured");
    assert_eq!((meta["title"].clone(), meta["owner"].clone()), (json!("Notes"), json!(ADA)), "Google's File: {meta}");
    assert!(meta["viewUrl"].as_str().is_some_and(|url| url.contains(&doc_id)), "{meta}");
    assert!(meta.get("name").is_none(), "not the REST resource: {meta}");
}

/// `search_files` speaks the query language Google's tool documents (`title`, `parentId`, `owner`,
/// `sharedWithMe`, …), not Drive's `q`; a term outside it is refused in words, and trashed files stay out.
#[tokio::test]
async fn search_files_takes_googles_query_language_and_answers_googles_files() {
    let env = Env::new().await;
    let (folder, trashed) = {
        let mut world = env.google.world();
        let ada = Identity::user(ADA);
        let folder = world.drive.create_folder("Plans", None, &ada);
        let budget = world.create_spreadsheet("Budget 2027", &[("Sheet1", vec![vec![json!("x")]])], &ada);
        world.drive.set_parent(&budget, &folder);
        let trashed = world.create_document("Budget draft", "old", &ada);
        let theirs = world.create_document("Budget by Bob", "theirs", &Identity::user(BOB));
        world.drive.share_with(&theirs, ADA, "reader");
        (folder, trashed)
    };
    let url = env.url(&format!("/drive/v3/files/{trashed}"));
    let binned = env.fetch(&env.ada, env.http.patch(url).json(&json!({ "trashed": true }))).await;
    assert_eq!(binned.status, StatusCode::OK, "{}", binned.json());
    let drive = modern(&env, "/mcp/drive/v1", &env.ada).await;
    let search = |query: &str| call("search_files", json!({ "query": query }));
    let titles = |result: &CallToolResult| -> Vec<String> {
        result.structured_content.as_ref().expect("structured")["files"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|file| file["title"].as_str().map(str::to_owned))
            .collect()
    };

    let found = complete(once(&drive, search("title contains 'Budget'")).await);
    let mut all = titles(&found);
    all.sort();
    assert_eq!(all, ["Budget 2027", "Budget by Bob"], "the trashed draft stays out");
    let in_folder = complete(once(&drive, search(&format!("parentId = '{folder}' and title contains 'Budget'"))).await);
    assert_eq!(titles(&in_folder), ["Budget 2027"]);
    assert_eq!(in_folder.structured_content.as_ref().expect("structured")["files"][0]["parentId"], json!(folder));
    let mine = complete(once(&drive, search("owner = 'me' and title contains 'Budget'")).await);
    assert_eq!(titles(&mine), ["Budget 2027"]);
    let shared = complete(once(&drive, search("sharedWithMe = true")).await);
    assert_eq!(titles(&shared), ["Budget by Bob"]);
    let sheets = complete(once(&drive, search("mimeType = 'application/vnd.google-apps.spreadsheet'")).await);
    assert_eq!(titles(&sheets), ["Budget 2027"]);

    for (query, words) in [
        ("name contains 'Budget'", "not a query term"),
        ("trashed = true", "not a query term"),
        ("title contains 'x", "not closed"),
    ] {
        let refused = complete(once(&drive, search(query)).await);
        assert_eq!(refused.is_error, Some(true), "{query}");
        assert!(text(&refused).contains(words), "{query}: {}", text(&refused));
    }
}

/// The summary of Ada's event `id`, over REST.
async fn rest_summary(env: &Env, id: &str) -> Value {
    env.get_as(&env.ada, &format!("/calendar/v3/calendars/primary/events/{id}"), &[]).await.json()["summary"].clone()
}

#[tokio::test]
async fn calendar_changes_ask_and_answer_googles_event_shape() {
    let env = Env::new().await;
    let calendar = modern(&env, "/mcp/calendar/v1", &env.ada).await;
    let every = [
        "list_events",
        "get_event",
        "list_calendars",
        "create_event",
        "update_event",
        "delete_event",
        "respond_to_event",
        "search_events",
    ];
    assert_eq!(tool_names(&calendar).await, every);
    let restricted = modern(&env, "/mcp/calendar/v1self", &env.ada).await;
    assert_eq!(
        tool_names(&restricted).await,
        ["list_events", "get_event", "list_calendars", "create_event", "search_events"]
    );

    let create = json!({
        "summary": "Tea", "startTime": "2026-12-02T10:00:00Z", "endTime": "2026-12-02T10:30:00Z",
        "attendeeEmails": ["bob@example.com"], "location": "Kitchen"
    });
    let created = complete(once(&calendar, call("create_event", create)).await);
    assert_ne!(created.is_error, Some(true), "{}", text(&created));
    let made = created.structured_content.expect("structured");
    let event_id = made["id"].as_str().expect("an id").to_owned();
    assert_eq!(made["attendees"][0]["email"], "bob@example.com", "Google's Event: {made}");
    assert_eq!(rest_summary(&env, &event_id).await, "Tea", "REST reads what MCP created");

    // Moving the start alone keeps the event's half hour; a guest goes, another comes.
    let change = call(
        "update_event",
        json!({ "eventId": event_id, "summary": "Coffee", "startTime": "2026-12-02T11:00:00Z",
                "addedAttendeeEmails": ["cy@example.com"], "removedAttendeeEmails": ["bob@example.com"] }),
    );
    let asked = form(once(&calendar, change.clone()).await);
    let declined = complete(once(&calendar, answered(change.clone(), &asked, json!({ "action": "decline" }))).await);
    assert_eq!(declined.is_error, Some(true));
    assert_eq!(rest_summary(&env, &event_id).await, "Tea", "declined: unchanged");
    let done = accepted(&calendar, change).await;
    let changed = done.structured_content.expect("structured");
    assert_eq!(rest_summary(&env, &event_id).await, "Coffee");
    assert!(changed["end"]["dateTime"].as_str().is_some_and(|end| end.starts_with("2026-12-02T11:30:00")), "{changed}");
    let guests: Vec<&str> =
        changed["attendees"].as_array().into_iter().flatten().filter_map(|g| g["email"].as_str()).collect();
    assert_eq!(guests, ["cy@example.com"]);

    let listed = complete(once(&calendar, call("list_events", json!({ "startTime": "2026-12-01T00:00:00Z" }))).await);
    assert_eq!(listed.structured_content.as_ref().expect("structured")["events"][0]["summary"], "Coffee");
    let found = complete(once(&calendar, call("search_events", json!({ "query": "coffee" }))).await);
    assert_eq!(found.structured_content.as_ref().expect("structured")["events"][0]["id"], json!(event_id));
    let calendars = complete(once(&calendar, call("list_calendars", json!({}))).await);
    assert_eq!(calendars.structured_content.as_ref().expect("structured")["calendars"][0]["id"], json!(ADA));

    let answer = call("respond_to_event", json!({ "eventId": event_id, "responseStatus": "accepted" }));
    let asked = form(once(&calendar, answer.clone()).await);
    let refused =
        complete(once(&calendar, answered(answer, &asked, json!({ "action": "accept", "content": {} }))).await);
    assert_eq!(refused.is_error, Some(true), "the organizer is no guest of her own event");
    assert!(text(&refused).contains("not a guest"), "{}", text(&refused));
    let gone = accepted(&calendar, call("delete_event", json!({ "eventId": event_id }))).await;
    assert_eq!(gone.structured_content.expect("structured")["summary"], "Coffee", "the event as it was");
    let after = env.get_as(&env.ada, &format!("/calendar/v3/calendars/primary/events/{event_id}"), &[]).await;
    assert!(after.status == StatusCode::GONE || after.json()["status"] == "cancelled", "{:?}", after.status);
}

#[tokio::test]
async fn slides_tools_read_what_rest_made_and_a_change_asks_first() {
    let env = Env::new().await;
    let (status, created) =
        env.send(env.http.post(env.url("/v1/presentations")).json(&json!({ "title": "Launch deck" }))).await;
    assert_eq!(status, 200, "{created}");
    let id = created["presentationId"].as_str().expect("an id").to_owned();
    let title = created["slides"][0]["pageElements"][0]["objectId"].as_str().expect("a title").to_owned();

    let slides = modern(&env, "/mcp/slides/v1", &env.ada).await;
    assert_eq!(tool_names(&slides).await, ["read_presentation", "read_slide_page", "update_presentation"]);
    let slides_self = modern(&env, "/mcp/slides/v1self", &env.ada).await;
    assert_eq!(tool_names(&slides_self).await, ["read_presentation", "read_slide_page"]);

    let read = complete(
        once(
            &slides,
            call("read_presentation", json!({ "presentationId": id, "fields": ["title", "slides.objectId"] })),
        )
        .await,
    );
    assert_ne!(read.is_error, Some(true), "{}", text(&read));
    assert_eq!(
        read.structured_content.as_ref().expect("structured")["content"],
        json!({ "title": "Launch deck", "slides": [{ "objectId": "p" }] }),
        "the field mask is applied"
    );

    let change = call(
        "update_presentation",
        json!({ "presentationId": id, "requests": [{ "insertText": { "objectId": title, "text": "Launch" } }] }),
    );
    let asked = form(once(&slides, change.clone()).await);
    let message = serde_json::to_value(&asked.input_requests).expect("serializes")["approval"]["params"]["message"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(message.contains("Launch deck"), "{message}");
    assert!(env.google.world().slides.plain_text(&id).is_some_and(|text| text.is_empty()), "nothing before the answer");
    let done = complete(once(&slides, answered(change, &asked, json!({ "action": "accept", "content": {} }))).await);
    assert_ne!(done.is_error, Some(true), "{}", text(&done));
    assert_eq!(env.google.world().slides.plain_text(&id).as_deref(), Some("Launch\n"));

    let page = complete(
        once(
            &slides,
            call(
                "read_slide_page",
                json!({ "presentationId": id, "pageId": "p", "fields": ["pageElements.objectId"] }),
            ),
        )
        .await,
    );
    assert_eq!(
        page.structured_content.as_ref().expect("structured")["content"]["pageElements"][0]["objectId"],
        json!(title)
    );
    let comments = complete(
        once(&slides, call("read_presentation", json!({ "presentationId": id, "commentsIncluded": true }))).await,
    );
    assert_eq!(comments.is_error, Some(true), "comments are not emulated, and say so");
    assert!(text(&comments).contains("commentsIncluded"), "{}", text(&comments));
}

/// Accepts the form `call` is answered with, and returns the tool's result.
async fn accepted(client: &Client, params: CallToolRequestParams) -> CallToolResult {
    let asked = form(once(client, params.clone()).await);
    let done = complete(once(client, answered(params, &asked, json!({ "action": "accept", "content": {} }))).await);
    assert_ne!(done.is_error, Some(true), "{}", text(&done));
    done
}

#[tokio::test]
async fn sheets_formulas_rows_appends_and_clears_each_ask_and_land_as_rest_reads_them() {
    let env = Env::new().await;
    let id = spreadsheet(&env, &env.ada, "Budget", json!([["Item", "Cost"], ["Tea", 3], ["Cake", 4]])).await;
    let sheets = modern(&env, "/mcp/sheets/v1", &env.ada).await;

    let formulas = call(
        "update_formulas",
        json!({ "spreadsheetId": id, "range": "Sheet1!C2:C3", "formulas": [["=B2*2"], ["=B3*2"]] }),
    );
    accepted(&sheets, formulas).await;
    assert_eq!(rest_values(&env, &id).await[1], json!(["Tea", "3", "6"]), "the formula was parsed and computed");

    let sheet_id = {
        let read = complete(
            once(
                &sheets,
                call("get_spreadsheet", json!({ "spreadsheetId": id, "fields": ["sheets.properties.sheetId"] })),
            )
            .await,
        );
        let structured = read.structured_content.expect("structured");
        assert_eq!(structured.as_object().map(|o| o.len()), Some(1), "only the masked fields: {structured}");
        structured["sheets"][0]["properties"]["sheetId"].as_i64().expect("a sheet id")
    };
    accepted(
        &sheets,
        call("append_values", json!({ "spreadsheetId": id, "range": "Sheet1!A1", "values": [["Jam", 5]] })),
    )
    .await;
    let values = rest_values(&env, &id).await;
    assert_eq!(values[3], json!(["Jam", "5"]), "after the table's last row: {values}");

    let cleared =
        accepted(&sheets, call("batch_clear_values", json!({ "spreadsheetId": id, "ranges": ["Sheet1!A3:C3"] }))).await;
    let content = &cleared.structured_content.expect("structured")["content"];
    assert_eq!(content["clearedRanges"], json!(["Sheet1!A3:C3"]), "{content}");
    assert_eq!(content["status"], "OK");
    let values = rest_values(&env, &id).await;
    assert_eq!(values[2], json!([]), "Cake's row is cleared: {values}");

    // Last: the emulator does not rewrite formulas across inserted rows (see its Sheets module).
    let insert = call(
        "insert_dimension",
        json!({ "spreadsheetId": id, "sheetId": sheet_id, "dimension": "ROWS", "startIndex": 1, "endIndex": 2 }),
    );
    accepted(&sheets, insert).await;
    let values = rest_values(&env, &id).await;
    assert_eq!(
        (values[1].clone(), values[2][0].clone()),
        (json!([]), json!("Tea")),
        "an empty row above Tea: {values}"
    );

    let bad = call(
        "insert_dimension",
        json!({ "spreadsheetId": id, "sheetId": sheet_id, "dimension": "SIDEWAYS", "startIndex": 0, "endIndex": 1 }),
    );
    let asked = form(once(&sheets, bad.clone()).await);
    let refused = complete(once(&sheets, answered(bad, &asked, json!({ "action": "accept", "content": {} }))).await);
    assert_eq!(refused.is_error, Some(true), "a bad dimension is a tool error");
    assert!(text(&refused).contains("ROWS or COLUMNS"), "{}", text(&refused));
}

/// The Gmail server's tools answer Google's own `Thread`, `Message` and `Draft` shapes, over the mailbox the
/// REST API reads: a draft lands there, labels go on and off a thread, and an address with a name or a
/// line break is refused.
#[tokio::test]
async fn gmail_tools_answer_googles_shapes_over_the_mailbox_rest_reads() {
    let env = Env::new().await;
    let gmail = modern(&env, "/mcp/gmail/v1", &env.ada).await;
    assert_eq!(
        tool_names(&gmail).await,
        [
            "search_threads",
            "get_thread",
            "create_draft",
            "list_labels",
            "label_thread",
            "unlabel_thread",
            "label_message",
            "unlabel_message"
        ]
    );
    let draft = call(
        "create_draft",
        json!({ "to": ["bob@example.com"], "cc": ["cy@example.com"], "subject": "Tea?", "body": "At ten." }),
    );
    let made = complete(once(&gmail, draft).await);
    assert_ne!(made.is_error, Some(true), "{}", text(&made));
    let made = made.structured_content.expect("structured");
    assert_eq!(
        (made["subject"].clone(), made["toRecipients"].clone()),
        (json!("Tea?"), json!(["bob@example.com"])),
        "{made}"
    );
    let draft_id = made["id"].as_str().expect("a draft id").to_owned();
    let thread_id = made["threadId"].as_str().expect("a thread").to_owned();
    let rest = env.get_as(&env.ada, &format!("/gmail/v1/users/me/drafts/{draft_id}"), &[]).await.json();
    assert!(rest["message"]["labelIds"].as_array().is_some_and(|labels| labels.contains(&json!("DRAFT"))), "{rest}");

    let thread = complete(once(&gmail, call("get_thread", json!({ "threadId": thread_id }))).await);
    let message = &thread.structured_content.as_ref().expect("structured")["messages"][0];
    assert_eq!(message["subject"], "Tea?", "{message}");
    assert_eq!(message["ccRecipients"], json!(["cy@example.com"]));
    assert_eq!(message["plaintextBody"], "At ten.");
    assert!(message["date"].as_str().is_some_and(|date| date.len() == 10), "YYYY-MM-DD: {message}");
    let minimal =
        complete(once(&gmail, call("get_thread", json!({ "threadId": thread_id, "messageFormat": "MINIMAL" }))).await);
    assert!(minimal.structured_content.as_ref().expect("structured")["messages"][0].get("plaintextBody").is_none());

    let starred =
        complete(once(&gmail, call("label_thread", json!({ "threadId": thread_id, "labelIds": ["STARRED"] }))).await);
    assert_ne!(starred.is_error, Some(true), "{}", text(&starred));
    let found = complete(once(&gmail, call("search_threads", json!({ "query": "is:starred" }))).await);
    assert_eq!(found.structured_content.as_ref().expect("structured")["threads"][0]["id"], json!(thread_id));
    complete(once(&gmail, call("unlabel_thread", json!({ "threadId": thread_id, "labelIds": ["STARRED"] }))).await);
    let found = complete(once(&gmail, call("search_threads", json!({ "query": "is:starred" }))).await);
    assert_eq!(found.structured_content.as_ref().expect("structured")["threads"], json!([]));
    let labels = complete(once(&gmail, call("list_labels", json!({}))).await);
    let listed = &labels.structured_content.as_ref().expect("structured")["labels"];
    assert!(
        listed.as_array().is_some_and(|labels| labels.iter().all(|label| label["labelId"] != "INBOX")),
        "user labels only: {listed}"
    );

    for to in ["Bob <bob@example.com>", "bob@example.com\r\nBcc: eve@example.com"] {
        let refused = complete(once(&gmail, call("create_draft", json!({ "to": [to], "subject": "x" }))).await);
        assert_eq!(refused.is_error, Some(true), "{to:?} is refused");
    }
}
