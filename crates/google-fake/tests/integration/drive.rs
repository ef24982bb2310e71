//! Drive v3 against the emulator over HTTP, as a client sees it.

use crate::common;

use std::collections::HashSet;

use common::{ADA, BOB, Env, Reply, json_of, sandbox};
use google_fake::Identity;
use md5::{Digest, Md5};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

const ROBOT: &str = "robot@project.iam.gserviceaccount.com";

impl Env {
    fn token(&self, email: &str) -> String {
        self.google.issue_token(Identity::user(email))
    }

    fn robot(&self) -> String {
        self.google.issue_token(Identity::service_account(ROBOT))
    }

    /// `method` on `path` with `query` (and a JSON `body`), as `token`.
    async fn call(
        &self,
        method: Method,
        token: &str,
        path: &str,
        query: &[(&str, &str)],
        body: Option<Value>,
    ) -> Reply {
        let mut request = self.http.request(method, self.url(path)).query(query);
        if let Some(body) = body {
            request = request.json(&body);
        }
        self.fetch(token, request).await
    }

    async fn post_as(&self, token: &str, path: &str, query: &[(&str, &str)], body: Value) -> Reply {
        self.call(Method::POST, token, path, query, Some(body)).await
    }

    async fn patch(&self, token: &str, path: &str, query: &[(&str, &str)], body: Value) -> Reply {
        self.call(Method::PATCH, token, path, query, Some(body)).await
    }

    async fn delete(&self, token: &str, path: &str, query: &[(&str, &str)]) -> Reply {
        self.call(Method::DELETE, token, path, query, None).await
    }

    async fn multipart(&self, token: &str, query: &[(&str, &str)], metadata: Value, mime: &str, bytes: &[u8]) -> Reply {
        let mut body = Vec::new();
        body.extend_from_slice(b"--b0undary\r\nContent-Type: application/json; charset=UTF-8\r\n\r\n");
        body.extend_from_slice(metadata.to_string().as_bytes());
        body.extend_from_slice(format!("\r\n--b0undary\r\nContent-Type: {mime}\r\n\r\n").as_bytes());
        body.extend_from_slice(bytes);
        body.extend_from_slice(b"\r\n--b0undary--\r\n");
        let mut all = vec![("uploadType", "multipart")];
        all.extend_from_slice(query);
        let request = self
            .http
            .post(self.url("/upload/drive/v3/files"))
            .query(&all)
            .header("content-type", "multipart/related; boundary=b0undary")
            .body(body);
        self.fetch(token, request).await
    }

    async fn folder(&self, token: &str, name: &str, parent: Option<&str>) -> String {
        let mut body = json!({ "name": name, "mimeType": "application/vnd.google-apps.folder" });
        if let Some(parent) = parent {
            body["parents"] = json!([parent]);
        }
        let reply = self.post_as(token, "/drive/v3/files", &[], body).await;
        assert_eq!(reply.status, StatusCode::OK, "{}", reply.json());
        reply.json()["id"].as_str().expect("id").to_owned()
    }

    async fn list(&self, token: &str, query: &[(&str, &str)]) -> Reply {
        self.get_as(token, "/drive/v3/files", query).await
    }

    async fn names(&self, token: &str, q: &str) -> Vec<String> {
        let reply = self.list(token, &[("q", q), ("pageSize", "1000")]).await;
        assert_eq!(reply.status, StatusCode::OK, "{q}: {}", reply.json());
        let mut names: Vec<String> = reply.json()["files"]
            .as_array()
            .map(|files| files.iter().filter_map(|f| f["name"].as_str().map(str::to_owned)).collect())
            .unwrap_or_default();
        names.sort();
        names
    }
}

fn hex_md5(bytes: &[u8]) -> String {
    Md5::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// Drive's string-literal quoting: `\` and `'` are backslash-escaped.
fn quote(value: &str) -> String {
    let mut out = String::from("'");
    for c in value.chars() {
        if c == '\\' || c == '\'' {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('\'');
    out
}

fn is_rfc3339_millis(text: &str) -> bool {
    text.len() == 24
        && text.ends_with('Z')
        && text.as_bytes()[19] == b'.'
        && chrono::DateTime::parse_from_rfc3339(text).is_ok()
}

#[tokio::test]
async fn create_get_and_default_fields() {
    let env = Env::new().await;
    let ada = env.token(ADA);
    let reply = env
        .post_as(
            &ada,
            "/drive/v3/files",
            &[],
            json!({ "name": "Plans", "mimeType": "application/vnd.google-apps.folder" }),
        )
        .await;
    assert_eq!(reply.status, StatusCode::OK);
    let created = reply.json();
    let keys: HashSet<&str> = created.as_object().expect("object").keys().map(String::as_str).collect();
    assert_eq!(keys, HashSet::from(["kind", "id", "name", "mimeType"]));
    assert_eq!(created["kind"], "drive#file");
    let id = created["id"].as_str().expect("id");

    let root = env.get_as(&ada, "/drive/v3/files/root", &[("fields", "id,name,mimeType,parents")]).await.json();
    assert_eq!(root["name"], "My Drive");
    assert!(root.get("parents").is_none());

    let full = env.get_as(&ada, &format!("/drive/v3/files/{id}"), &[("fields", "*")]).await.json();
    assert_eq!(full["name"], "Plans");
    assert_eq!(full["parents"], json!([root["id"]]));
    assert_eq!(full["owners"][0]["emailAddress"], ADA);
    assert_eq!(full["owners"][0]["me"], true);
    assert_eq!(full["owners"][0]["kind"], "drive#user");
    assert_eq!(full["ownedByMe"], true);
    assert_eq!(full["trashed"], false);
    assert_eq!(full["starred"], false);
    assert_eq!(full["shared"], false);
    assert_eq!(full["capabilities"]["canEdit"], true);
    assert_eq!(full["capabilities"]["canAddChildren"], true);
    assert_eq!(full["webViewLink"], format!("https://drive.google.com/drive/folders/{id}"));
    assert_eq!(full["quotaBytesUsed"], "0");
    assert!(full.get("size").is_none(), "folders have no size");
    assert!(is_rfc3339_millis(full["createdTime"].as_str().unwrap_or_default()), "{}", full["createdTime"]);
    assert!(is_rfc3339_millis(full["modifiedTime"].as_str().unwrap_or_default()));

    let some = env
        .get_as(&ada, &format!("/drive/v3/files/{id}"), &[("fields", "id,owners(emailAddress),capabilities/canShare")])
        .await
        .json();
    assert_eq!(some, json!({ "id": id, "owners": [{ "emailAddress": ADA }], "capabilities": { "canShare": true } }));

    // Bob cannot see Ada's folder: File not found, in Drive's legacy shape.
    let bob = env.token(BOB);
    let hidden = env.get_as(&bob, &format!("/drive/v3/files/{id}"), &[]).await;
    assert_eq!(hidden.status, StatusCode::NOT_FOUND);
    assert_eq!(
        hidden.json(),
        json!({ "error": { "code": 404, "message": format!("File not found: {id}."), "errors": [{
            "message": format!("File not found: {id}."), "domain": "global", "reason": "notFound",
            "location": "fileId", "locationType": "parameter" }] } })
    );
}

#[tokio::test]
async fn legacy_error_bodies_for_auth_and_bad_fields() {
    let env = Env::new().await;
    let unauthenticated = env.get_as("nope", "/drive/v3/files", &[]).await;
    assert_eq!(unauthenticated.status, StatusCode::UNAUTHORIZED);
    let body = unauthenticated.json();
    assert_eq!(body["error"]["code"], 401);
    assert_eq!(body["error"]["errors"][0]["reason"], "authError");
    assert_eq!(body["error"]["errors"][0]["location"], "Authorization");
    assert_eq!(body["error"]["errors"][0]["locationType"], "header");

    let ada = env.token(ADA);
    let bad = env.list(&ada, &[("fields", "files(id,bogus)")]).await;
    assert_eq!(bad.status, StatusCode::BAD_REQUEST);
    assert_eq!(
        bad.json(),
        json!({ "error": { "code": 400, "message": "Invalid field selection bogus", "errors": [{
            "message": "Invalid field selection bogus", "domain": "global", "reason": "invalidParameter",
            "location": "fields", "locationType": "parameter" }] } })
    );
    let bad_size = env.list(&ada, &[("pageSize", "0")]).await;
    assert_eq!(bad_size.status, StatusCode::BAD_REQUEST);
    assert_eq!(bad_size.reason(), "invalidParameter");
}

#[tokio::test]
async fn uploads_downloads_and_content_updates() {
    let env = Env::new().await;
    let ada = env.token(ADA);
    let content = b"hello, drive";
    let reply = env
        .multipart(
            &ada,
            &[("fields", "id,name,mimeType,size,md5Checksum,webViewLink,fileExtension")],
            json!({ "name": "hello.txt" }),
            "text/plain",
            content,
        )
        .await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.json());
    let file = reply.json();
    let id = file["id"].as_str().expect("id").to_owned();
    assert_eq!(file["mimeType"], "text/plain");
    assert_eq!(file["size"], json!(content.len().to_string()));
    assert_eq!(file["md5Checksum"], json!(hex_md5(content)));
    assert_eq!(file["fileExtension"], "txt");
    assert_eq!(file["webViewLink"], format!("https://drive.google.com/file/d/{id}/view?usp=drivesdk"));

    let download = env.get_as(&ada, &format!("/drive/v3/files/{id}"), &[("alt", "media")]).await;
    assert_eq!(download.status, StatusCode::OK);
    assert_eq!(download.bytes, content);
    assert_eq!(download.headers["content-type"], "text/plain");

    // uploadType=media: bytes only, named "Untitled".
    let media = env
        .http
        .post(format!("{}/upload/drive/v3/files", env.google.url()))
        .bearer_auth(&ada)
        .query(&[("uploadType", "media"), ("fields", "name,mimeType,size")])
        .header("content-type", "image/png")
        .body(vec![0x89_u8, b'P', b'N', b'G'])
        .send()
        .await
        .expect("answered");
    assert_eq!(media.status(), StatusCode::OK);
    assert_eq!(
        media.json::<Value>().await.expect("json"),
        json!({ "name": "Untitled", "mimeType": "image/png", "size": "4" })
    );

    // New content with PATCH on the upload path.
    let before = env.get_as(&ada, &format!("/drive/v3/files/{id}"), &[("fields", "version")]).await.json();
    let patched = env
        .http
        .patch(format!("{}/upload/drive/v3/files/{id}", env.google.url()))
        .bearer_auth(&ada)
        .query(&[("uploadType", "media"), ("fields", "size,md5Checksum,version")])
        .header("content-type", "text/plain")
        .body("second version")
        .send()
        .await
        .expect("answered");
    assert_eq!(patched.status(), StatusCode::OK);
    let after: Value = patched.json().await.expect("json");
    assert_eq!(after["md5Checksum"], json!(hex_md5(b"second version")));
    let version = |v: &Value| v["version"].as_str().and_then(|s| s.parse::<u64>().ok()).unwrap_or_default();
    assert!(version(&after) > version(&before));

    // An upload without uploadType, or a metadata request with one, is Google's wrongUrlForUpload.
    let missing = env
        .http
        .post(format!("{}/upload/drive/v3/files", env.google.url()))
        .bearer_auth(&ada)
        .body("x")
        .send()
        .await
        .expect("answered");
    assert_eq!(missing.status(), StatusCode::BAD_REQUEST);
    let misplaced = env.post_as(&ada, "/drive/v3/files", &[("uploadType", "multipart")], json!({ "name": "x" })).await;
    assert_eq!(misplaced.status, StatusCode::BAD_REQUEST);
    assert_eq!(misplaced.reason(), "wrongUrlForUpload");
}

#[tokio::test]
async fn resumable_upload_in_two_chunks() {
    let env = Env::new().await;
    let ada = env.token(ADA);
    let start = env
        .http
        .post(format!("{}/upload/drive/v3/files", env.google.url()))
        .bearer_auth(&ada)
        .query(&[("uploadType", "resumable"), ("fields", "id,name,size")])
        .header("x-upload-content-type", "text/csv")
        .json(&json!({ "name": "big.csv" }))
        .send()
        .await
        .expect("answered");
    assert_eq!(start.status(), StatusCode::OK);
    let session = start.headers()["location"].to_str().expect("location").to_owned();
    assert!(session.contains("upload_id="));
    let first =
        env.http.put(&session).header("content-range", "bytes 0-3/10").body("a,b\n").send().await.expect("answered");
    assert_eq!(first.status().as_u16(), 308);
    assert_eq!(first.headers()["range"], "bytes=0-3");
    let last =
        env.http.put(&session).header("content-range", "bytes 4-9/10").body("1,2\n3,").send().await.expect("answered");
    assert_eq!(last.status(), StatusCode::OK);
    let file: Value = last.json().await.expect("json");
    assert_eq!(file["name"], "big.csv");
    assert_eq!(file["size"], "10");
    let id = file["id"].as_str().expect("id");
    let bytes = env.get_as(&ada, &format!("/drive/v3/files/{id}"), &[("alt", "media")]).await.bytes;
    assert_eq!(bytes, b"a,b\n1,2\n3,");
}

#[tokio::test]
async fn update_renames_moves_trashes_and_restores() {
    let env = Env::new().await;
    let ada = env.token(ADA);
    let a = env.folder(&ada, "A", None).await;
    let b = env.folder(&ada, "B", None).await;
    let id =
        env.google.world().drive.create_blob("draft.txt", "text/plain", b"x".to_vec(), Some(&a), &Identity::user(ADA));
    let path = format!("/drive/v3/files/{id}");

    let renamed = env
        .patch(
            &ada,
            &path,
            &[("fields", "name,description,starred")],
            json!({ "name": "final.txt", "description": "done", "starred": true }),
        )
        .await;
    assert_eq!(renamed.json(), json!({ "name": "final.txt", "description": "done", "starred": true }));

    let only_add = env.patch(&ada, &path, &[("addParents", &b)], json!({})).await;
    assert_eq!(only_add.status, StatusCode::FORBIDDEN);
    assert_eq!(only_add.reason(), "cannotAddParent");

    let moved =
        env.patch(&ada, &path, &[("addParents", &b), ("removeParents", &a), ("fields", "parents")], json!({})).await;
    assert_eq!(moved.json(), json!({ "parents": [b] }));

    let parents_in_body = env.patch(&ada, &path, &[], json!({ "parents": [a] })).await;
    assert_eq!(parents_in_body.status, StatusCode::FORBIDDEN);
    assert_eq!(parents_in_body.reason(), "fieldNotWritable");

    // Trashing the folder trashes the file inside it, without marking it explicitly trashed.
    env.patch(&ada, &format!("/drive/v3/files/{b}"), &[], json!({ "trashed": true })).await;
    let inside = env.get_as(&ada, &path, &[("fields", "trashed,explicitlyTrashed")]).await.json();
    assert_eq!(inside, json!({ "trashed": true, "explicitlyTrashed": false }));
    assert_eq!(env.names(&ada, "trashed = false").await, vec!["A".to_owned()]);
    assert_eq!(env.names(&ada, "trashed = true").await, vec!["B".to_owned(), "final.txt".to_owned()]);
    // Without a trashed term, trashed files are listed too.
    assert_eq!(env.names(&ada, "").await.len(), 3);
    env.patch(&ada, &format!("/drive/v3/files/{b}"), &[], json!({ "trashed": false })).await;
    assert_eq!(env.get_as(&ada, &path, &[("fields", "trashed")]).await.json(), json!({ "trashed": false }));

    // A reader can star but not rename or trash.
    env.google.world().drive.share_with(&id, BOB, "reader");
    let bob = env.token(BOB);
    assert_eq!(
        env.patch(&bob, &path, &[("fields", "starred")], json!({ "starred": true })).await.json(),
        json!({ "starred": true })
    );
    assert_eq!(env.get_as(&ada, &path, &[("fields", "starred")]).await.json(), json!({ "starred": true }));
    let rename = env.patch(&bob, &path, &[], json!({ "name": "mine" })).await;
    assert_eq!(rename.status, StatusCode::FORBIDDEN);
    assert_eq!(rename.reason(), "insufficientFilePermissions");
    assert_eq!(env.patch(&bob, &path, &[], json!({ "trashed": true })).await.reason(), "insufficientFilePermissions");
}

#[tokio::test]
async fn delete_is_permanent_and_takes_children() {
    let env = Env::new().await;
    let ada = env.token(ADA);
    let folder = env.folder(&ada, "Old", None).await;
    let inner = env.folder(&ada, "Inner", Some(&folder)).await;
    let file =
        env.google.world().drive.create_blob("a.txt", "text/plain", b"a".to_vec(), Some(&inner), &Identity::user(ADA));
    env.google.world().drive.share_with(&folder, BOB, "writer");
    let bob = env.token(BOB);
    let refused = env.delete(&bob, &format!("/drive/v3/files/{folder}"), &[]).await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN);
    assert_eq!(refused.reason(), "insufficientFilePermissions");

    let deleted = env.delete(&ada, &format!("/drive/v3/files/{folder}"), &[]).await;
    assert_eq!(deleted.status, StatusCode::NO_CONTENT);
    assert!(deleted.bytes.is_empty());
    for id in [&folder, &inner, &file] {
        assert_eq!(env.get_as(&ada, &format!("/drive/v3/files/{id}"), &[]).await.status, StatusCode::NOT_FOUND);
    }
    let world = env.google.world();
    assert!(!world.drive.contains(&file));
}

#[tokio::test]
async fn copy_export_and_native_files() {
    let env = Env::new().await;
    let ada = env.token(ADA);
    let owner = Identity::user(ADA);
    let folder = env.folder(&ada, "Work", None).await;
    let blob =
        env.google.world().drive.create_blob("notes.txt", "text/plain", b"notes".to_vec(), Some(&folder), &owner);
    let copy = env
        .post_as(&ada, &format!("/drive/v3/files/{blob}/copy"), &[("fields", "id,name,parents,size")], json!({}))
        .await
        .json();
    assert_eq!(copy["name"], "Copy of notes.txt");
    assert_eq!(copy["parents"], json!([folder]));
    assert_eq!(copy["size"], "5");
    assert_ne!(copy["id"], json!(blob));

    let sheet = {
        let mut world = env.google.world();
        world.create_spreadsheet(
            "Budget",
            &[("Data", vec![vec![json!("a"), json!(1)], vec![json!("b"), json!(2)]])],
            &owner,
        )
    };
    let meta = env
        .get_as(&ada, &format!("/drive/v3/files/{sheet}"), &[("fields", "mimeType,webViewLink,size,exportLinks")])
        .await
        .json();
    assert_eq!(meta["mimeType"], "application/vnd.google-apps.spreadsheet");
    assert_eq!(meta["webViewLink"], format!("https://docs.google.com/spreadsheets/d/{sheet}/edit?usp=drivesdk"));
    assert!(meta.get("size").is_none());
    assert!(meta["exportLinks"]["text/csv"].is_string());

    let csv = env.get_as(&ada, &format!("/drive/v3/files/{sheet}/export"), &[("mimeType", "text/csv")]).await;
    assert_eq!(csv.status, StatusCode::OK);
    assert_eq!(String::from_utf8_lossy(&csv.bytes), "a,1\r\nb,2");
    assert_eq!(csv.headers["content-type"], "text/csv");

    let unsupported = env.get_as(&ada, &format!("/drive/v3/files/{sheet}/export"), &[("mimeType", "text/plain")]).await;
    assert_eq!(unsupported.status, StatusCode::BAD_REQUEST);
    let not_native = env.get_as(&ada, &format!("/drive/v3/files/{blob}/export"), &[("mimeType", "text/plain")]).await;
    assert_eq!(not_native.status, StatusCode::FORBIDDEN);
    assert_eq!(not_native.reason(), "fileNotExportable");
    let download = env.get_as(&ada, &format!("/drive/v3/files/{sheet}"), &[("alt", "media")]).await;
    assert_eq!(download.status, StatusCode::FORBIDDEN);
    assert_eq!(download.reason(), "fileNotDownloadable");
    assert_eq!(
        download.json()["error"]["message"],
        "Only files with binary content can be downloaded. Use Export with Docs Editors files."
    );

    let sheet_copy =
        env.post_as(&ada, &format!("/drive/v3/files/{sheet}/copy"), &[], json!({ "name": "Budget v2" })).await.json();
    let copy_id = sheet_copy["id"].as_str().expect("id").to_owned();
    {
        let world = env.google.world();
        assert!(world.sheets.contains(&copy_id));
        assert_eq!(world.sheets.title(&copy_id).as_deref(), Some("Budget v2"));
    }
    // Renaming through Drive renames the spreadsheet; deleting removes it.
    env.patch(&ada, &format!("/drive/v3/files/{copy_id}"), &[], json!({ "name": "Budget v3" })).await;
    assert_eq!(env.google.world().sheets.title(&copy_id).as_deref(), Some("Budget v3"));
    env.delete(&ada, &format!("/drive/v3/files/{copy_id}"), &[]).await;
    assert!(!env.google.world().sheets.contains(&copy_id));

    // Creating a spreadsheet from CSV converts it.
    let converted = env
        .multipart(
            &ada,
            &[("fields", "id,mimeType")],
            json!({ "name": "Imported", "mimeType": "application/vnd.google-apps.spreadsheet" }),
            "text/csv",
            b"x,y\n1,2\n",
        )
        .await
        .json();
    assert_eq!(converted["mimeType"], "application/vnd.google-apps.spreadsheet");
    let converted_id = converted["id"].as_str().expect("id");
    assert_eq!(env.google.world().sheets.values(converted_id, "Sheet1"), vec![vec!["x", "y"], vec!["1", "2"]]);
}

#[tokio::test]
async fn export_size_limit() {
    let env = Env::new().await;
    let ada = env.token(ADA);
    let big = "x".repeat(2000);
    let rows: Vec<Vec<Value>> = (0..600).map(|_| (0..10).map(|_| json!(big)).collect()).collect();
    let sheet = env.google.world().create_spreadsheet("Huge", &[("Data", rows)], &Identity::user(ADA));
    let reply = env.get_as(&ada, &format!("/drive/v3/files/{sheet}/export"), &[("mimeType", "text/csv")]).await;
    assert_eq!(reply.status, StatusCode::FORBIDDEN);
    assert_eq!(reply.reason(), "exportSizeLimitExceeded");
    assert_eq!(reply.json()["error"]["message"], "This file is too large to be exported.");
}

#[tokio::test]
async fn query_language() {
    let env = Env::new().await;
    let ada = env.token(ADA);
    let me = Identity::user(ADA);
    let projects = env.folder(&ada, "Projects", None).await;
    {
        let mut world = env.google.world();
        world.drive.create_blob(
            "Budget 2026.csv",
            "text/csv",
            b"region,total\nnorth,12".to_vec(),
            Some(&projects),
            &me,
        );
        world.drive.create_blob("HelloWorld.txt", "text/plain", b"greetings".to_vec(), None, &me);
        world.drive.create_blob("photo.png", "image/png", vec![1, 2, 3], None, &me);
        let old = world.drive.create_blob("old notes.txt", "text/plain", b"ancient".to_vec(), None, &me);
        if let Some(file) = world.drive.get_mut(&old) {
            file.modified_time = chrono::DateTime::parse_from_rfc3339("2020-01-01T00:00:00Z").expect("time").into();
        }
    }
    assert_eq!(env.names(&ada, "name = 'Projects'").await, vec!["Projects"]);
    assert_eq!(env.names(&ada, "name contains 'budget'").await, vec!["Budget 2026.csv"]);
    assert_eq!(env.names(&ada, "name contains '2026'").await, vec!["Budget 2026.csv"]);
    assert!(env.names(&ada, "name contains 'World'").await.is_empty(), "prefix matching, as Google documents");
    assert_eq!(env.names(&ada, "fullText contains 'north'").await, vec!["Budget 2026.csv"]);
    assert_eq!(env.names(&ada, "mimeType contains 'image/'").await, vec!["photo.png"]);
    assert_eq!(env.names(&ada, &format!("{} in parents", quote(&projects))).await, vec!["Budget 2026.csv"]);
    assert_eq!(
        env.names(&ada, "'root' in parents and mimeType = 'application/vnd.google-apps.folder'").await,
        vec!["Projects"]
    );
    assert_eq!(env.names(&ada, "'me' in owners and modifiedTime < '2021-01-01T00:00:00'").await, vec!["old notes.txt"]);
    assert_eq!(
        env.names(&ada, "not mimeType = 'text/plain' and (name contains 'photo' or name contains 'budget')").await,
        vec!["Budget 2026.csv", "photo.png"]
    );
    assert_eq!(
        env.names(&ada, "modifiedTime > '2024-01-01T00:00:00+02:00' and mimeType = 'text/plain'").await,
        vec!["HelloWorld.txt"]
    );
    assert!(env.names(&ada, "starred").await.is_empty());
    assert_eq!(env.names(&ada, "sharedWithMe").await.len(), 0);

    for malformed in [
        "name = ",
        "name = 'unterminated",
        "title = 'x'",
        "name > 'x'",
        "'x' in name",
        "(name = 'x'",
        "name = 'x' and",
        "modifiedTime > 'last week'",
        "trashed = perhaps",
    ] {
        let reply = env.list(&ada, &[("q", malformed)]).await;
        assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{malformed}");
        assert_eq!(
            reply.json(),
            json!({ "error": { "code": 400, "message": "Invalid Value", "errors": [{ "message": "Invalid Value",
                "domain": "global", "reason": "invalid", "location": "q", "locationType": "parameter" }] } }),
            "{malformed}"
        );
    }
    let sorted = env.list(&ada, &[("q", "fullText contains 'x'"), ("orderBy", "name")]).await;
    assert_eq!(sorted.status, StatusCode::BAD_REQUEST);
    assert_eq!(sorted.reason(), "badRequest");
}

#[tokio::test]
async fn a_quote_in_a_name_is_never_query_syntax() {
    let env = Env::new().await;
    let ada = env.token(ADA);
    let me = Identity::user(ADA);
    let evil = "x' or name contains '";
    {
        let mut world = env.google.world();
        world.drive.create_blob(evil, "text/plain", Vec::new(), None, &me);
        world.drive.create_blob("xylophone", "text/plain", Vec::new(), None, &me);
        world.drive.create_blob("x", "text/plain", Vec::new(), None, &me);
    }
    assert_eq!(env.names(&ada, r"name = 'x\' or name contains \''").await, vec![evil.to_owned()]);
    assert_eq!(env.names(&ada, &format!("name = {}", quote(r"back\slash"))).await, Vec::<String>::new());
}

#[test]
fn any_name_round_trips_through_an_escaped_query() {
    use proptest::prelude::*;
    use proptest::test_runner::{Config, TestRunner};

    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let env = runtime.block_on(Env::new());
    let ada = env.token(ADA);
    let me = Identity::user(ADA);
    let mut runner = TestRunner::new(Config { cases: 96, ..Config::default() });
    let names = prop_oneof![any::<String>(), "[a-z' \\\\()=]{0,12}", Just("x' or name contains '".to_owned())];
    let result = runner.run(&names, |name| {
        let id = env.google.world().drive.create_blob(&name, "text/plain", Vec::new(), None, &me);
        let reply =
            runtime.block_on(env.list(&ada, &[("q", &format!("name = {}", quote(&name))), ("pageSize", "1000")]));
        prop_assert_eq!(reply.status, StatusCode::OK);
        let ids: Vec<String> = reply.json()["files"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|f| f["id"].as_str().map(str::to_owned))
            .collect();
        prop_assert!(ids.contains(&id), "{name:?} not found");
        let world = env.google.world();
        for other in &ids {
            prop_assert_eq!(world.drive.get(other).map(|f| f.name.clone()), Some(name.clone()));
        }
        Ok(())
    });
    if let Err(error) = result {
        panic!("{error}");
    }
    let garbage = prop_oneof!["[a-z=<>!()' ]{1,20}", any::<String>()];
    let result = runner.run(&garbage, |q| {
        let reply = runtime.block_on(env.list(&ada, &[("q", &q)]));
        // Never a crash: either a listing or Drive's 400 at `q`.
        prop_assert!(reply.status == StatusCode::OK || reply.status == StatusCode::BAD_REQUEST, "{q:?}");
        if reply.status == StatusCode::BAD_REQUEST {
            let body = reply.json();
            prop_assert_eq!(body["error"]["errors"][0]["location"].as_str(), Some("q"));
        }
        Ok(())
    });
    if let Err(error) = result {
        panic!("{error}");
    }
}

#[tokio::test]
async fn paging_visits_every_file_once() {
    let env = Env::new().await;
    let ada = env.token(ADA);
    let me = Identity::user(ADA);
    let mut expected = HashSet::new();
    {
        let mut world = env.google.world();
        for i in 0..57 {
            let name = format!("file {:02}", (i * 37) % 57);
            expected.insert(world.drive.create_blob(&name, "text/plain", vec![b'x'; i], None, &me));
        }
    }
    for order in ["", "name", "modifiedTime desc", "folder,quotaBytesUsed desc,name_natural", "recency"] {
        let mut seen = Vec::new();
        let mut token: Option<String> = None;
        let mut pages = 0;
        loop {
            let mut query = vec![("pageSize", "10"), ("fields", "nextPageToken,files(id)")];
            if !order.is_empty() {
                query.push(("orderBy", order));
            }
            if let Some(token) = &token {
                query.push(("pageToken", token));
            }
            let page = env.list(&ada, &query).await.json();
            pages += 1;
            seen.extend(
                page["files"].as_array().into_iter().flatten().filter_map(|f| f["id"].as_str().map(str::to_owned)),
            );
            match page["nextPageToken"].as_str() {
                Some(next) => token = Some(next.to_owned()),
                None => break,
            }
        }
        assert_eq!(pages, 6, "{order}");
        assert_eq!(seen.len(), expected.len(), "{order}: duplicates or gaps");
        assert_eq!(seen.iter().cloned().collect::<HashSet<_>>(), expected, "{order}");
    }
    // Deleting an already-served file between pages skips nothing.
    let first = env.list(&ada, &[("pageSize", "20"), ("orderBy", "name")]).await.json();
    let served: Vec<String> =
        first["files"].as_array().into_iter().flatten().filter_map(|f| f["id"].as_str().map(str::to_owned)).collect();
    env.delete(&ada, &format!("/drive/v3/files/{}", served[3]), &[]).await;
    let token = first["nextPageToken"].as_str().expect("more pages").to_owned();
    let rest = env.list(&ada, &[("pageSize", "1000"), ("orderBy", "name"), ("pageToken", &token)]).await.json();
    assert_eq!(rest["files"].as_array().map(Vec::len), Some(37));
    // A token from another query is refused.
    let mismatch = env.list(&ada, &[("orderBy", "modifiedTime"), ("pageToken", &token)]).await;
    assert_eq!(mismatch.status, StatusCode::BAD_REQUEST);
    assert_eq!(env.list(&ada, &[("pageToken", "garbage")]).await.reason(), "invalid");
}

#[tokio::test]
async fn list_fields_and_defaults() {
    let env = Env::new().await;
    let ada = env.token(ADA);
    let folder = env.folder(&ada, "Docs", None).await;
    let default = env.list(&ada, &[]).await.json();
    assert_eq!(
        default,
        json!({ "kind": "drive#fileList", "incompleteSearch": false, "files": [{
            "kind": "drive#file", "id": folder, "name": "Docs", "mimeType": "application/vnd.google-apps.folder" }] })
    );
    let cut = env.list(&ada, &[("fields", "files(id,name,parents),nextPageToken")]).await.json();
    let root = env.get_as(&ada, "/drive/v3/files/root", &[("fields", "id")]).await.json()["id"].clone();
    assert_eq!(cut, json!({ "files": [{ "id": folder, "name": "Docs", "parents": [root] }] }));
    let everything = env.list(&ada, &[("fields", "*")]).await.json();
    assert_eq!(everything["files"][0]["capabilities"]["canListChildren"], true);
}

#[tokio::test]
async fn service_accounts_have_no_storage_quota() {
    let env = Env::new().await;
    let robot = env.robot();
    let message = "Service Accounts do not have storage quota. Leverage shared drives (https://developers.google.com/workspace/drive/api/guides/about-shareddrives), or use OAuth delegation (http://support.google.com/a/answer/7281227) instead.";
    let upload = env.multipart(&robot, &[], json!({ "name": "report.txt" }), "text/plain", b"data").await;
    assert_eq!(upload.status, StatusCode::FORBIDDEN);
    assert_eq!(
        upload.json(),
        json!({ "error": { "code": 403, "message": message, "errors": [{
            "message": message, "domain": "global", "reason": "storageQuotaExceeded" }] } })
    );
    let native = env
        .post_as(
            &robot,
            "/drive/v3/files",
            &[],
            json!({ "name": "Sheet", "mimeType": "application/vnd.google-apps.spreadsheet" }),
        )
        .await;
    assert_eq!(native.reason(), "storageQuotaExceeded");
    // Folders take no quota.
    let folder = env.folder(&robot, "Robot folder", None).await;

    // Copies into My Drive are refused too, even of a file shared with the robot.
    let ada = Identity::user(ADA);
    let shared = env.google.world().drive.create_blob("shared.txt", "text/plain", b"x".to_vec(), None, &ada);
    env.google.world().drive.share_with(&shared, ROBOT, "reader");
    let copy = env
        .post_as(&robot, &format!("/drive/v3/files/{shared}/copy"), &[("fields", "id")], json!({ "parents": [folder] }))
        .await;
    assert_eq!(copy.reason(), "storageQuotaExceeded");
    let resumable = env
        .http
        .post(format!("{}/upload/drive/v3/files?uploadType=resumable", env.google.url()))
        .bearer_auth(&robot)
        .json(&json!({ "name": "big.bin" }))
        .send()
        .await
        .expect("answered");
    assert_eq!(resumable.status(), StatusCode::FORBIDDEN);

    // In a shared drive the robot is a member of, uploads work.
    let drive = env.google.world().drive.create_shared_drive("Robots", &Identity::service_account(ROBOT));
    let ok = env
        .multipart(
            &robot,
            &[("supportsAllDrives", "true"), ("fields", "id,driveId,owners")],
            json!({ "name": "ok.txt", "parents": [drive] }),
            "text/plain",
            b"ok",
        )
        .await;
    assert_eq!(ok.status, StatusCode::OK, "{}", ok.json());
    assert_eq!(ok.json()["driveId"], json!(drive));
    assert!(ok.json().get("owners").is_none(), "shared-drive items have no owner");

    let about = env.get_as(&robot, "/drive/v3/about", &[("fields", "storageQuota,user(emailAddress,me)")]).await.json();
    assert_eq!(about["storageQuota"]["limit"], "0");
    assert_eq!(about["user"], json!({ "emailAddress": ROBOT, "me": true }));
}

#[tokio::test]
async fn shared_drives_need_supports_all_drives() {
    let env = Env::new().await;
    let ada_id = Identity::user(ADA);
    let ada = env.token(ADA);
    let (drive, file, mine) = {
        let mut world = env.google.world();
        let drive = world.drive.create_shared_drive("Team Drive", &ada_id);
        let file = world.drive.create_blob("plan.txt", "text/plain", b"plan".to_vec(), Some(&drive), &ada_id);
        let mine = world.drive.create_blob("mine.txt", "text/plain", b"mine".to_vec(), None, &ada_id);
        (drive, file, mine)
    };
    let path = format!("/drive/v3/files/{file}");
    let without = env.get_as(&ada, &path, &[]).await;
    assert_eq!(without.status, StatusCode::NOT_FOUND);
    assert_eq!(without.json()["error"]["message"], format!("File not found: {file}."));
    let with = env
        .get_as(
            &ada,
            &path,
            &[("supportsAllDrives", "true"), ("fields", "id,driveId,parents,capabilities/canReadDrive")],
        )
        .await
        .json();
    assert_eq!(
        with,
        json!({ "id": file, "driveId": drive, "parents": [drive], "capabilities": { "canReadDrive": true } })
    );
    assert_eq!(env.patch(&ada, &path, &[], json!({ "name": "x" })).await.status, StatusCode::NOT_FOUND);

    let names = |reply: Reply| -> Vec<String> {
        reply.json()["files"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|f| f["name"].as_str().map(str::to_owned))
            .collect()
    };
    assert_eq!(names(env.list(&ada, &[]).await), vec!["mine.txt"]);
    assert_eq!(names(env.list(&ada, &[("includeItemsFromAllDrives", "true")]).await), vec!["mine.txt"]);
    let mut all = names(
        env.list(
            &ada,
            &[
                ("includeItemsFromAllDrives", "true"),
                ("supportsAllDrives", "true"),
                ("corpora", "allDrives"),
                ("orderBy", "name"),
            ],
        )
        .await,
    );
    all.sort();
    assert_eq!(all, vec!["mine.txt", "plan.txt"]);
    let one = names(
        env.list(
            &ada,
            &[
                ("includeItemsFromAllDrives", "true"),
                ("supportsAllDrives", "true"),
                ("corpora", "drive"),
                ("driveId", &drive),
            ],
        )
        .await,
    );
    assert_eq!(one, vec!["plan.txt"]);
    let refused = env.list(&ada, &[("corpora", "drive"), ("driveId", &drive)]).await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN);
    assert_eq!(env.list(&ada, &[("corpora", "drive")]).await.status, StatusCode::BAD_REQUEST);

    let drives = env.get_as(&ada, "/drive/v3/drives", &[]).await.json();
    assert_eq!(
        drives,
        json!({ "kind": "drive#driveList", "drives": [{ "kind": "drive#drive", "id": drive, "name": "Team Drive" }] })
    );
    let bob = env.token(BOB);
    assert_eq!(env.get_as(&bob, "/drive/v3/drives", &[]).await.json()["drives"], json!([]));
    assert_eq!(env.get_as(&bob, &path, &[("supportsAllDrives", "true")]).await.status, StatusCode::NOT_FOUND);
    let _ = mine;
}

#[tokio::test]
async fn permissions_and_ownership_transfer() {
    let env = Env::new().await;
    let ada = env.token(ADA);
    let bob = env.token(BOB);
    let file =
        env.google.world().drive.create_blob("deal.txt", "text/plain", b"deal".to_vec(), None, &Identity::user(ADA));
    let perms = format!("/drive/v3/files/{file}/permissions");

    let created = env
        .post_as(
            &ada,
            &perms,
            &[("emailMessage", "Have a look"), ("fields", "id,type,role,emailAddress,displayName")],
            json!({ "type": "user", "role": "writer", "emailAddress": BOB }),
        )
        .await;
    assert_eq!(created.status, StatusCode::OK, "{}", created.json());
    let bob_permission = created.json()["id"].as_str().expect("id").to_owned();
    assert_eq!(created.json()["emailAddress"], BOB);
    assert_eq!(created.json()["displayName"], "Bob");
    {
        let world = env.google.world();
        let sent = world.drive.notifications.last().expect("a notification");
        assert_eq!((sent.to.as_str(), sent.message.as_deref()), (BOB, Some("Have a look")));
    }
    let listed = env.get_as(&ada, &perms, &[]).await.json();
    assert_eq!(listed["kind"], "drive#permissionList");
    let roles: Vec<&str> =
        listed["permissions"].as_array().into_iter().flatten().filter_map(|p| p["role"].as_str()).collect();
    assert_eq!(roles, vec!["owner", "writer"]);
    let shared = env
        .get_as(
            &bob,
            &format!("/drive/v3/files/{file}"),
            &[("fields", "shared,sharedWithMeTime,sharingUser(emailAddress),ownedByMe")],
        )
        .await
        .json();
    assert_eq!(shared["shared"], true);
    assert_eq!(shared["ownedByMe"], false);
    assert_eq!(shared["sharingUser"]["emailAddress"], ADA);
    assert!(shared["sharedWithMeTime"].is_string());
    let bob_view: Vec<String> = env.names(&bob, "sharedWithMe").await;
    assert_eq!(bob_view, vec!["deal.txt"]);

    let anyone = env.post_as(&ada, &perms, &[], json!({ "type": "anyone", "role": "reader" })).await.json();
    assert_eq!(
        anyone,
        json!({ "kind": "drive#permission", "id": "anyoneWithLink", "type": "anyone", "role": "reader", "allowFileDiscovery": false })
    );
    let updated =
        env.patch(&ada, &format!("{perms}/{bob_permission}"), &[], json!({ "role": "commenter" })).await.json();
    assert_eq!(updated["role"], "commenter");
    assert_eq!(env.delete(&ada, &format!("{perms}/anyoneWithLink"), &[]).await.status, StatusCode::NO_CONTENT);
    assert_eq!(env.get_as(&ada, &format!("{perms}/anyoneWithLink"), &[]).await.status, StatusCode::NOT_FOUND);

    // Ownership: transferOwnership is required, only the owner transfers, never to a service account.
    let no_flag = env.post_as(&ada, &perms, &[], json!({ "type": "user", "role": "owner", "emailAddress": BOB })).await;
    assert_eq!(no_flag.status, StatusCode::FORBIDDEN);
    assert_eq!(no_flag.reason(), "forbidden");
    assert_eq!(
        no_flag.json()["error"]["message"],
        "The transferOwnership parameter must be enabled when the permission role is 'owner'."
    );
    env.patch(&ada, &format!("{perms}/{bob_permission}"), &[], json!({ "role": "writer" })).await;
    let by_writer = env
        .post_as(
            &bob,
            &perms,
            &[("transferOwnership", "true")],
            json!({ "type": "user", "role": "owner", "emailAddress": BOB }),
        )
        .await;
    assert_eq!(by_writer.status, StatusCode::FORBIDDEN);
    assert_eq!(by_writer.reason(), "insufficientFilePermissions");
    let to_robot = env
        .post_as(
            &ada,
            &perms,
            &[("transferOwnership", "true")],
            json!({ "type": "user", "role": "owner", "emailAddress": ROBOT }),
        )
        .await;
    assert_eq!(to_robot.status, StatusCode::BAD_REQUEST);
    assert_eq!(to_robot.reason(), "ownershipChangeAcrossDomainNotPermitted");
    let owner_permission = env
        .get_as(&ada, &format!("/drive/v3/files/{file}"), &[("fields", "owners(permissionId)")])
        .await
        .json()["owners"][0]["permissionId"]
        .as_str()
        .expect("permission id")
        .to_owned();
    let remove_owner = env.delete(&ada, &format!("{perms}/{owner_permission}"), &[]).await;
    assert_eq!(remove_owner.status, StatusCode::FORBIDDEN);
    assert_eq!(remove_owner.reason(), "cannotRemoveOwner");

    let transferred = env
        .patch(
            &ada,
            &format!("{perms}/{bob_permission}"),
            &[("transferOwnership", "true"), ("fields", "role,emailAddress")],
            json!({ "role": "owner" }),
        )
        .await;
    assert_eq!(transferred.status, StatusCode::OK, "{}", transferred.json());
    assert_eq!(transferred.json(), json!({ "role": "owner", "emailAddress": BOB }));
    let after = env
        .get_as(&bob, &format!("/drive/v3/files/{file}"), &[("fields", "owners(emailAddress),ownedByMe")])
        .await
        .json();
    assert_eq!(after, json!({ "owners": [{ "emailAddress": BOB }], "ownedByMe": true }));
    let roles = env.get_as(&bob, &perms, &[("fields", "permissions(emailAddress,role)")]).await.json();
    assert_eq!(
        roles,
        json!({ "permissions": [{ "emailAddress": ADA, "role": "writer" }, { "emailAddress": BOB, "role": "owner" }] })
    );

    // Shared-drive items cannot have owners.
    let drive = env.google.world().drive.create_shared_drive("Team", &Identity::user(ADA));
    let team_file =
        env.google.world().drive.create_blob("t.txt", "text/plain", Vec::new(), Some(&drive), &Identity::user(ADA));
    let team_owner = env
        .post_as(
            &ada,
            &format!("/drive/v3/files/{team_file}/permissions"),
            &[("transferOwnership", "true"), ("supportsAllDrives", "true")],
            json!({ "type": "user", "role": "owner", "emailAddress": BOB }),
        )
        .await;
    assert_eq!(team_owner.status, StatusCode::FORBIDDEN);
}

#[tokio::test]
async fn about_requires_fields() {
    let env = Env::new().await;
    let ada = env.token(ADA);
    env.google.world().drive.create_blob(
        "a.bin",
        "application/octet-stream",
        vec![0; 1234],
        None,
        &Identity::user(ADA),
    );
    let missing = env.get_as(&ada, "/drive/v3/about", &[]).await;
    assert_eq!(missing.status, StatusCode::BAD_REQUEST);
    assert_eq!(missing.reason(), "required");
    assert_eq!(missing.json()["error"]["errors"][0]["location"], "fields");
    let about = env.get_as(&ada, "/drive/v3/about", &[("fields", "user,storageQuota,kind")]).await.json();
    assert_eq!(about["kind"], "drive#about");
    assert_eq!(about["user"]["emailAddress"], ADA);
    assert_eq!(about["user"]["me"], true);
    assert_eq!(about["user"]["kind"], "drive#user");
    assert_eq!(
        about["storageQuota"],
        json!({ "limit": "16106127360", "usage": "1234", "usageInDrive": "1234", "usageInDriveTrash": "0" })
    );
}

#[tokio::test]
async fn comments_and_replies() {
    let env = Env::new().await;
    let ada = env.token(ADA);
    let file =
        env.google.world().drive.create_blob("essay.txt", "text/plain", b"words".to_vec(), None, &Identity::user(ADA));
    let path = format!("/drive/v3/files/{file}/comments");
    let no_fields = env.post_as(&ada, &path, &[], json!({ "content": "hi" })).await;
    assert_eq!(no_fields.status, StatusCode::BAD_REQUEST);
    assert_eq!(no_fields.json()["error"]["message"], "The 'fields' parameter is required for this method.");
    assert_eq!(env.get_as(&ada, &path, &[]).await.status, StatusCode::BAD_REQUEST);

    let fields = "id,content,quotedFileContent,resolved,author(displayName,me),createdTime,deleted";
    let mut ids = Vec::new();
    for i in 0..3 {
        let created = env
            .post_as(&ada, &path, &[("fields", fields)], json!({ "content": format!("Point {i}"), "quotedFileContent": { "mimeType": "text/plain", "value": "words" } }))
            .await;
        assert_eq!(created.status, StatusCode::OK, "{}", created.json());
        let body = created.json();
        assert_eq!(body["content"], format!("Point {i}"));
        assert_eq!(body["quotedFileContent"], json!({ "mimeType": "text/plain", "value": "words" }));
        assert_eq!(body["resolved"], false);
        assert_eq!(body["author"], json!({ "displayName": "Ada", "me": true }));
        ids.push(body["id"].as_str().expect("id").to_owned());
    }
    let first = env.get_as(&ada, &path, &[("fields", "comments(id),nextPageToken"), ("pageSize", "2")]).await.json();
    assert_eq!(first["comments"].as_array().map(Vec::len), Some(2));
    let token = first["nextPageToken"].as_str().expect("token").to_owned();
    let second = env
        .get_as(&ada, &path, &[("fields", "comments(id),nextPageToken"), ("pageSize", "2"), ("pageToken", &token)])
        .await
        .json();
    assert_eq!(second, json!({ "comments": [{ "id": ids[2] }] }));

    let reply = env
        .post_as(
            &ada,
            &format!("{path}/{}/replies", ids[0]),
            &[("fields", "action,content")],
            json!({ "action": "resolve", "content": "Fixed" }),
        )
        .await
        .json();
    assert_eq!(reply, json!({ "action": "resolve", "content": "Fixed" }));
    let resolved =
        env.get_as(&ada, &format!("{path}/{}", ids[0]), &[("fields", "resolved,replies(content)")]).await.json();
    assert_eq!(resolved, json!({ "resolved": true, "replies": [{ "content": "Fixed" }] }));

    assert_eq!(env.delete(&ada, &format!("{path}/{}", ids[1]), &[]).await.status, StatusCode::NO_CONTENT);
    let visible = env.get_as(&ada, &path, &[("fields", "comments(id)")]).await.json();
    assert_eq!(visible["comments"].as_array().map(Vec::len), Some(2));
    let with_deleted =
        env.get_as(&ada, &path, &[("fields", "comments(id,deleted,content)"), ("includeDeleted", "true")]).await.json();
    assert_eq!(with_deleted["comments"][1], json!({ "id": ids[1], "deleted": true }));

    let bob = env.token(BOB);
    env.google.world().drive.share_with(&file, BOB, "reader");
    let reader = env.post_as(&bob, &path, &[("fields", "id")], json!({ "content": "me too" })).await;
    assert_eq!(reader.reason(), "insufficientFilePermissions");
}

#[tokio::test]
async fn sandbox_seed() {
    let (google, token) = sandbox().await;
    let list = json_of(
        &token,
        reqwest::Client::new().get(format!("{}/drive/v3/files", google.url())).query(&[
            ("fields", "files(name,mimeType)"),
            ("orderBy", "name"),
            ("q", "trashed = false"),
        ]),
    )
    .await;
    let names: Vec<&str> = list["files"].as_array().into_iter().flatten().filter_map(|f| f["name"].as_str()).collect();
    for wanted in [
        "Budget 2026",
        "Team Contacts",
        "Reports",
        "Sandbox — Projects",
        "sales-export.csv",
        "README.txt",
        "Marketing calendar",
        "Meeting notes",
        "Project plan",
    ] {
        assert!(names.contains(&wanted), "{wanted} missing from {names:?}");
    }
    assert!(!names.contains(&"Team handbook.txt"), "shared-drive items need includeItemsFromAllDrives");
    let world = google.world();
    let budget = world
        .drive
        .ids()
        .into_iter()
        .find(|id| world.drive.get(id).is_some_and(|f| f.name == "Budget 2026"))
        .expect("budget");
    assert_eq!(world.sheets.sheet_titles(&budget), vec!["Summary", "Sales"]);
    assert_eq!(world.sheets.values(&budget, "Sales").len(), 21);
    let summary = world.sheets.values(&budget, "Summary");
    assert_eq!(summary[5], vec!["Orders", "20"]);
}

#[tokio::test]
async fn documents_through_drive() {
    let env = Env::new().await;
    let ada = env.token(ADA);
    let doc = env.google.world().create_document("Minutes", "Agenda\nBudget review", &Identity::user(ADA));
    let text = env.get_as(&ada, &format!("/drive/v3/files/{doc}/export"), &[("mimeType", "text/plain")]).await;
    assert_eq!(text.status, StatusCode::OK);
    assert!(String::from_utf8_lossy(&text.bytes).contains("Budget review"));
    let pdf = env.get_as(&ada, &format!("/drive/v3/files/{doc}/export"), &[("mimeType", "application/pdf")]).await;
    assert_eq!(pdf.status, StatusCode::NOT_IMPLEMENTED, "no fake PDF bytes");
    assert_eq!(env.names(&ada, "fullText contains 'review'").await, vec!["Minutes"]);

    let copy = env
        .post_as(&ada, &format!("/drive/v3/files/{doc}/copy"), &[("fields", "id,name,mimeType")], json!({}))
        .await
        .json();
    assert_eq!(copy["name"], "Copy of Minutes");
    assert_eq!(copy["mimeType"], "application/vnd.google-apps.document");
    let copy_id = copy["id"].as_str().expect("id").to_owned();
    assert_eq!(env.google.world().docs.title(&copy_id).as_deref(), Some("Copy of Minutes"));

    let converted = env
        .multipart(
            &ada,
            &[("fields", "id,mimeType")],
            json!({ "name": "From HTML", "mimeType": "application/vnd.google-apps.document" }),
            "text/html",
            b"<h1>Title</h1><p>Hello &amp; welcome</p>",
        )
        .await
        .json();
    let converted_id = converted["id"].as_str().expect("id");
    assert_eq!(env.google.world().docs.plain_text(converted_id).as_deref(), Some("Title\nHello & welcome\n"));
}
