//! Drive Activity v2 `activity:query` against the emulator, fed by Drive operations.

use crate::common;

use common::{BOB, Env, json_of, sandbox};
use google_fake::Identity;
use reqwest::StatusCode;
use serde_json::{Value, json};

impl Env {
    async fn drive(&self, method: reqwest::Method, path: &str, query: &[(&str, &str)], body: Value) -> Value {
        let request = self.http.request(method, self.url(&format!("drive/v3/{path}"))).query(query).json(&body);
        let reply = self.fetch(&self.ada, request).await;
        assert!(reply.status.is_success(), "{path}: {}", reply.status);
        reply.json()
    }

    async fn query_as(&self, token: &str, body: Value) -> (StatusCode, Value) {
        let reply = self.fetch(token, self.http.post(self.url("v2/activity:query")).json(&body)).await;
        (reply.status, reply.json())
    }

    async fn query(&self, body: Value) -> Value {
        let (status, value) = self.query_as(&self.ada, body).await;
        assert_eq!(status, StatusCode::OK, "{value}");
        value
    }
}

fn cases(response: &Value) -> Vec<String> {
    response["activities"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|a| a["primaryActionDetail"].as_object().and_then(|d| d.keys().next().cloned()))
        .collect()
}

/// Creates a folder and a file in it, then renames, moves, trashes, restores, shares and comments on it.
async fn history(env: &Env) -> (String, String, String) {
    let post = reqwest::Method::POST;
    let patch = reqwest::Method::PATCH;
    let folder = env
        .drive(post.clone(), "files", &[], json!({ "name": "Box", "mimeType": "application/vnd.google-apps.folder" }))
        .await;
    let other = env
        .drive(post.clone(), "files", &[], json!({ "name": "Shelf", "mimeType": "application/vnd.google-apps.folder" }))
        .await;
    let folder = folder["id"].as_str().expect("id").to_owned();
    let other = other["id"].as_str().expect("id").to_owned();
    let file = env.drive(post.clone(), "files", &[], json!({ "name": "draft", "parents": [folder] })).await;
    let file = file["id"].as_str().expect("id").to_owned();
    env.drive(patch.clone(), &format!("files/{file}"), &[], json!({ "name": "final" })).await;
    env.drive(
        patch.clone(),
        &format!("files/{file}"),
        &[("addParents", &other), ("removeParents", &folder)],
        json!({}),
    )
    .await;
    env.drive(patch.clone(), &format!("files/{file}"), &[], json!({ "trashed": true })).await;
    env.drive(patch.clone(), &format!("files/{file}"), &[], json!({ "trashed": false })).await;
    env.drive(
        post.clone(),
        &format!("files/{file}/permissions"),
        &[],
        json!({ "type": "user", "role": "writer", "emailAddress": BOB }),
    )
    .await;
    env.drive(post, &format!("files/{file}/comments"), &[("fields", "id")], json!({ "content": "Looks good" })).await;
    (folder, other, file)
}

#[tokio::test]
async fn drive_operations_are_recorded_newest_first() {
    let env = Env::new().await;
    let (folder, other, file) = history(&env).await;
    let response = env.query(json!({ "itemName": format!("items/{file}") })).await;
    assert_eq!(cases(&response), vec!["comment", "permissionChange", "restore", "delete", "move", "rename", "create"]);
    assert!(response.get("nextPageToken").is_none());

    let activities = response["activities"].as_array().expect("activities");
    let rename = &activities[5];
    assert_eq!(rename["primaryActionDetail"], json!({ "rename": { "oldTitle": "draft", "newTitle": "final" } }));
    assert_eq!(rename["actions"][0]["detail"], rename["primaryActionDetail"]);
    let actor = &rename["actors"][0]["user"]["knownUser"];
    assert_eq!(actor["isCurrentUser"], true);
    assert!(actor["personName"].as_str().is_some_and(|p| p.starts_with("people/")));
    let target = &rename["targets"][0]["driveItem"];
    assert_eq!(target["name"], format!("items/{file}"));
    assert_eq!(target["title"], "final");
    assert_eq!(target["mimeType"], "application/octet-stream");
    assert_eq!(target["owner"]["user"]["knownUser"]["isCurrentUser"], true);
    let timestamp = rename["timestamp"].as_str().expect("timestamp");
    assert!(chrono::DateTime::parse_from_rfc3339(timestamp).is_ok() && timestamp.ends_with('Z'));

    let moved = &activities[4]["primaryActionDetail"]["move"];
    assert_eq!(moved["addedParents"][0]["driveItem"]["name"], format!("items/{other}"));
    assert_eq!(moved["addedParents"][0]["driveItem"]["title"], "Shelf");
    assert_eq!(moved["removedParents"][0]["driveItem"]["name"], format!("items/{folder}"));
    assert_eq!(activities[3]["primaryActionDetail"], json!({ "delete": { "type": "TRASH" } }));
    assert_eq!(activities[2]["primaryActionDetail"], json!({ "restore": { "type": "UNTRASH" } }));
    let added = &activities[1]["primaryActionDetail"]["permissionChange"]["addedPermissions"][0];
    assert_eq!(added["role"], "EDITOR");
    assert_eq!(added["user"]["knownUser"]["isCurrentUser"], false);
    assert_eq!(activities[0]["primaryActionDetail"], json!({ "comment": { "post": { "subtype": "ADDED" } } }));
    assert_eq!(activities[6]["primaryActionDetail"], json!({ "create": { "new": {} } }));

    // Everything under a folder, with ancestorName.
    let under = env.query(json!({ "ancestorName": format!("items/{other}") })).await;
    let items: Vec<&str> = under["activities"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|a| a["targets"][0]["driveItem"]["name"].as_str())
        .collect();
    assert_eq!(items.len(), 8, "the file's seven and the folder's own creation");

    // Permanent deletion is recorded too.
    env.drive(reqwest::Method::DELETE, &format!("files/{file}"), &[], Value::Null).await;
    let after = env.query(json!({ "itemName": format!("items/{file}") })).await;
    assert_eq!(after["activities"][0]["primaryActionDetail"], json!({ "delete": { "type": "PERMANENT_DELETE" } }));
}

#[tokio::test]
async fn paging_and_filters() {
    let env = Env::new().await;
    let (_, _, file) = history(&env).await;
    let item = format!("items/{file}");
    let mut seen = Vec::new();
    let mut token: Option<String> = None;
    loop {
        let mut body = json!({ "itemName": item, "pageSize": 3 });
        if let Some(token) = &token {
            body["pageToken"] = json!(token);
        }
        let page = env.query(body).await;
        seen.extend(cases(&page));
        match page["nextPageToken"].as_str() {
            Some(next) => token = Some(next.to_owned()),
            None => break,
        }
    }
    assert_eq!(seen, vec!["comment", "permissionChange", "restore", "delete", "move", "rename", "create"]);

    let renames = env.query(json!({ "itemName": item, "filter": "detail.action_detail_case:RENAME" })).await;
    assert_eq!(cases(&renames), vec!["rename"]);
    let some = env.query(json!({ "itemName": item, "filter": "detail.action_detail_case:(CREATE RESTORE)" })).await;
    assert_eq!(cases(&some), vec!["restore", "create"]);
    let not_moves = env.query(json!({ "itemName": item, "filter": "-detail.action_detail_case:MOVE" })).await;
    assert_eq!(cases(&not_moves).len(), 6);
    let future = env.query(json!({ "itemName": item, "filter": "time > \"2999-01-01T00:00:00Z\"" })).await;
    assert_eq!(future, json!({}), "an empty answer omits every field (proto3)");
    let all_time = env.query(json!({ "itemName": item, "filter": "time >= 0 AND time <= 99999999999999" })).await;
    assert_eq!(cases(&all_time).len(), 7);
}

#[tokio::test]
async fn errors_use_the_rpc_shape() {
    let env = Env::new().await;
    let (status, body) = env.query_as("nope", json!({})).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_eq!(body["error"]["status"], "UNAUTHENTICATED");
    assert!(body["error"].get("errors").is_none());

    let (status, body) = env.query_as(&env.ada, json!({ "itemName": "files/abc" })).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(body["error"]["status"], "INVALID_ARGUMENT");
    let (status, body) = env.query_as(&env.ada, json!({ "item": "items/abc" })).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(body["error"]["message"], "Invalid JSON payload received. Unknown name \"item\": Cannot find field.");
    let (status, _) = env.query_as(&env.ada, json!({ "itemName": "items/a", "ancestorName": "items/b" })).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let (status, _) = env.query_as(&env.ada, json!({ "filter": "what ever" })).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn others_activity_stays_private() {
    let env = Env::new().await;
    let (_, _, file) = history(&env).await;
    let carol = env.google.issue_token(Identity::user("carol@example.com"));
    let (status, body) = env.query_as(&carol, json!({ "itemName": format!("items/{file}") })).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body, json!({}));
    // Bob was given writer access in the history, so he sees it, and is not the current user in it.
    let bob = env.google.issue_token(Identity::user(BOB));
    let (_, body) = env.query_as(&bob, json!({ "itemName": format!("items/{file}"), "pageSize": 1 })).await;
    assert_eq!(body["activities"][0]["actors"][0]["user"]["knownUser"]["isCurrentUser"], false);
    assert!(body["nextPageToken"].is_string());
}

#[tokio::test]
async fn the_sandbox_has_history() {
    let (sandbox, token) = sandbox().await;
    let request = reqwest::Client::new().post(format!("{}/v2/activity:query", sandbox.url()));
    let response = json_of(&token, request.json(&json!({ "pageSize": 100 }))).await;
    let titles: Vec<&str> = response["activities"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|a| a["targets"][0]["driveItem"]["title"].as_str())
        .collect();
    assert!(titles.contains(&"Budget 2026"), "{titles:?}");
    assert!(titles.contains(&"Marketing calendar"), "{titles:?}");
    let stamps: Vec<&str> =
        response["activities"].as_array().into_iter().flatten().filter_map(|a| a["timestamp"].as_str()).collect();
    let mut sorted = stamps.clone();
    sorted.sort_by(|a, b| b.cmp(a));
    assert_eq!(stamps, sorted, "newest first");
}

impl Env {
    /// A Sheets or Docs call as `token`; asserts it succeeded.
    async fn native(&self, token: &str, method: reqwest::Method, path: &str, body: Value) -> Value {
        let reply = self.fetch(token, self.http.request(method, self.url(path)).json(&body)).await;
        let value = reply.json();
        assert!(reply.status.is_success(), "{path}: {} {value}", reply.status);
        value
    }
}

#[tokio::test]
async fn sheets_and_docs_edits_are_recorded() {
    let env = Env::new().await;
    let (post, put) = (reqwest::Method::POST, reqwest::Method::PUT);
    let book =
        env.native(&env.ada, post.clone(), "v4/spreadsheets", json!({ "properties": { "title": "Ledger" } })).await;
    let book = book["spreadsheetId"].as_str().expect("id").to_owned();
    let item = json!({ "itemName": format!("items/{book}") });
    assert_eq!(cases(&env.query(item.clone()).await), ["create"]);

    // A writer's values.update is an edit by them.
    env.google.world().drive.share_with(&book, BOB, "writer");
    let bob = env.google.issue_token(Identity::user(BOB));
    env.native(
        &bob,
        put,
        &format!("v4/spreadsheets/{book}/values/A1?valueInputOption=RAW"),
        json!({ "values": [["42"]] }),
    )
    .await;
    let (status, seen_by_bob) = env.query_as(&bob, item.clone()).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(cases(&seen_by_bob), ["edit", "create"]);
    let edit = &seen_by_bob["activities"][0];
    assert_eq!(edit["actors"][0]["user"]["knownUser"]["isCurrentUser"], true);
    assert_eq!(edit["targets"][0]["driveItem"]["title"], "Ledger");
    assert_eq!(edit["targets"][0]["driveItem"]["mimeType"], "application/vnd.google-apps.spreadsheet");

    // A title change through Sheets is a rename (and the batchUpdate an edit).
    env.native(
        &env.ada,
        post.clone(),
        &format!("v4/spreadsheets/{book}:batchUpdate"),
        json!({ "requests": [{ "updateSpreadsheetProperties": {
            "properties": { "title": "Ledger 2026" }, "fields": "title" } }] }),
    )
    .await;
    let recent = env.query(item).await;
    assert_eq!(cases(&recent)[..2], ["edit", "rename"]);
    assert_eq!(
        recent["activities"][1]["primaryActionDetail"]["rename"],
        json!({ "oldTitle": "Ledger", "newTitle": "Ledger 2026" })
    );

    // Reads record nothing.
    env.native(&env.ada, reqwest::Method::GET, &format!("v4/spreadsheets/{book}"), Value::Null).await;
    assert_eq!(env.google.world().activity.for_item(&book).len(), 4);

    let doc = env.native(&env.ada, post.clone(), "v1/documents", json!({ "title": "Notes" })).await;
    let doc = doc["documentId"].as_str().expect("id").to_owned();
    env.native(
        &env.ada,
        post,
        &format!("v1/documents/{doc}:batchUpdate"),
        json!({ "requests": [{ "insertText": { "location": { "index": 1 }, "text": "Hi" } }] }),
    )
    .await;
    let recent = env.query(json!({ "itemName": format!("items/{doc}") })).await;
    assert_eq!(cases(&recent), ["edit", "create"]);
}
