//! OAuth scopes, enforced per discovery method as Google's front end does: a token carrying none of the
//! scopes a method accepts gets Google's 403 `insufficientPermissions`, whatever the API.

use crate::common;

use common::{ADA, Env, Reply, sandbox};
use google_fake::Identity;
use serde_json::{Value, json};

const DRIVE: &str = "https://www.googleapis.com/auth/drive";
const DRIVE_READONLY: &str = "https://www.googleapis.com/auth/drive.readonly";
const DRIVE_FILE: &str = "https://www.googleapis.com/auth/drive.file";
const SPREADSHEETS: &str = "https://www.googleapis.com/auth/spreadsheets";
const SPREADSHEETS_READONLY: &str = "https://www.googleapis.com/auth/spreadsheets.readonly";
const DOCUMENTS: &str = "https://www.googleapis.com/auth/documents";
const ACTIVITY_READONLY: &str = "https://www.googleapis.com/auth/drive.activity.readonly";
const CLOUD_PLATFORM: &str = "https://www.googleapis.com/auth/cloud-platform";

impl Env {
    /// A token of [`ADA`] granted only `scopes`.
    fn ada_with(&self, scopes: &[&str]) -> String {
        self.google.issue_token_with_scopes(Identity::user(ADA), scopes)
    }

    /// A spreadsheet of [`ADA`]'s with `A1:B1` = `a`, `b`.
    fn sheet(&self) -> String {
        let values = vec![vec![json!("a"), json!("b")]];
        self.google.world().create_spreadsheet("Budget", &[("Sheet1", values)], &Identity::user(ADA))
    }

    fn file_count(&self) -> usize {
        self.google.world().drive.ids().len()
    }
}

/// Google's insufficient-scopes body for `method` of `service`, word for word.
fn insufficient(service: &str, method: &str) -> Value {
    json!({ "error": {
        "code": 403,
        "message": "Request had insufficient authentication scopes.",
        "errors": [{ "message": "Insufficient Permission", "domain": "global", "reason": "insufficientPermissions" }],
        "status": "PERMISSION_DENIED",
        "details": [{
            "@type": "type.googleapis.com/google.rpc.ErrorInfo",
            "reason": "ACCESS_TOKEN_SCOPE_INSUFFICIENT",
            "domain": "googleapis.com",
            "metadata": { "service": service, "method": method },
        }],
    } })
}

/// The scopes the `WWW-Authenticate` challenge of `reply` lists.
fn challenged_scopes(reply: &Reply) -> Vec<String> {
    let challenge = reply.headers.get("www-authenticate").expect("a WWW-Authenticate header").to_str().unwrap();
    let prefix = "Bearer realm=\"https://accounts.google.com/\", error=\"insufficient_scope\", scope=\"";
    let scopes = challenge.strip_prefix(prefix).and_then(|rest| rest.strip_suffix('"'));
    scopes.unwrap_or_else(|| panic!("not Google's challenge: {challenge}")).split(' ').map(str::to_owned).collect()
}

fn assert_insufficient(reply: &Reply, service: &str, method: &str) {
    assert_eq!(reply.status.as_u16(), 403, "{}", reply.json());
    assert_eq!(reply.json(), insufficient(service, method));
}

#[tokio::test]
async fn spreadsheets_readonly_reads_values_but_cannot_update_them() {
    let env = Env::new().await;
    let id = env.sheet();
    let token = env.ada_with(&[SPREADSHEETS_READONLY]);

    let read = env.fetch(&token, env.http.get(env.url(&format!("v4/spreadsheets/{id}/values/Sheet1!A1:B1")))).await;
    assert_eq!(read.status.as_u16(), 200, "{}", read.json());
    assert_eq!(read.json()["values"], json!([["a", "b"]]));

    let url = env.url(&format!("v4/spreadsheets/{id}/values/Sheet1!A1?valueInputOption=RAW"));
    let update = env.fetch(&token, env.http.put(url).json(&json!({ "values": [["changed"]] }))).await;
    assert_insufficient(&update, "sheets.googleapis.com", "sheets.spreadsheets.values.update");
    assert_eq!(challenged_scopes(&update), [DRIVE, DRIVE_FILE, SPREADSHEETS]);
    let content_type = update.headers.get("content-type").unwrap().to_str().unwrap();
    assert!(content_type.starts_with("application/json"), "{content_type}");

    let after = env.fetch(&token, env.http.get(env.url(&format!("v4/spreadsheets/{id}/values/Sheet1!A1")))).await;
    assert_eq!(after.json()["values"], json!([["a"]]), "the refused write changed nothing");
}

#[tokio::test]
async fn drive_readonly_reads_and_downloads_but_creates_nothing() {
    let env = Env::new().await;
    let blob =
        env.google.world().drive.create_blob("notes.txt", "text/plain", b"hello".to_vec(), None, &Identity::user(ADA));
    let doc = env.google.world().create_document("Plan", "Step one", &Identity::user(ADA));
    let token = env.ada_with(&[DRIVE_READONLY]);

    let list = env.fetch(&token, env.http.get(env.url("drive/v3/files"))).await;
    assert_eq!(list.status.as_u16(), 200, "{}", list.json());
    let media = env.fetch(&token, env.http.get(env.url(&format!("drive/v3/files/{blob}?alt=media")))).await;
    assert_eq!((media.status.as_u16(), media.bytes.as_slice()), (200, b"hello".as_slice()));
    let export = env.http.get(env.url(&format!("drive/v3/files/{doc}/export"))).query(&[("mimeType", "text/plain")]);
    let export = env.fetch(&token, export).await;
    assert_eq!(export.status.as_u16(), 200, "{}", export.json());

    let before = env.file_count();
    let create = env.fetch(&token, env.http.post(env.url("drive/v3/files")).json(&json!({ "name": "new.txt" }))).await;
    assert_insufficient(&create, "drive.googleapis.com", "drive.files.create");
    assert_eq!(challenged_scopes(&create), [DRIVE, "https://www.googleapis.com/auth/drive.appdata", DRIVE_FILE]);

    let multipart = env
        .http
        .post(env.url("upload/drive/v3/files?uploadType=media"))
        .header("content-type", "text/plain")
        .body("bytes");
    assert_insufficient(&env.fetch(&token, multipart).await, "drive.googleapis.com", "drive.files.create");
    let resumable =
        env.http.post(env.url("upload/drive/v3/files?uploadType=resumable")).json(&json!({ "name": "big" }));
    assert_insufficient(&env.fetch(&token, resumable).await, "drive.googleapis.com", "drive.files.create");
    let update = env
        .http
        .patch(env.url(&format!("upload/drive/v3/files/{blob}?uploadType=media")))
        .header("content-type", "text/plain")
        .body("overwritten");
    assert_insufficient(&env.fetch(&token, update).await, "drive.googleapis.com", "drive.files.update");
    assert_eq!(env.file_count(), before, "no file was created");
    assert_eq!(env.google.world().drive.get(&blob).unwrap().content.as_deref(), Some(b"hello".as_slice()));
}

#[tokio::test]
async fn documents_alone_opens_docs_but_not_drive_or_sheets() {
    let env = Env::new().await;
    let doc = env.google.world().create_document("Plan", "Step one", &Identity::user(ADA));
    let sheet = env.sheet();
    let token = env.ada_with(&[DOCUMENTS]);

    let get = env.fetch(&token, env.http.get(env.url(&format!("v1/documents/{doc}")))).await;
    assert_eq!(get.status.as_u16(), 200, "{}", get.json());

    let list = env.fetch(&token, env.http.get(env.url("drive/v3/files"))).await;
    assert_insufficient(&list, "drive.googleapis.com", "drive.files.list");
    assert!(!challenged_scopes(&list).iter().any(|scope| scope == DOCUMENTS));

    let read = env.fetch(&token, env.http.get(env.url(&format!("v4/spreadsheets/{sheet}")))).await;
    assert_insufficient(&read, "sheets.googleapis.com", "sheets.spreadsheets.get");
}

#[tokio::test]
async fn drive_opens_sheets_and_docs_but_not_drive_activity() {
    let env = Env::new().await;
    let sheet = env.sheet();
    let doc = env.google.world().create_document("Plan", "Step one", &Identity::user(ADA));
    let token = env.ada_with(&[DRIVE]);

    let url = env.url(&format!("v4/spreadsheets/{sheet}/values/Sheet1!A1?valueInputOption=RAW"));
    let write = env.fetch(&token, env.http.put(url).json(&json!({ "values": [["x"]] }))).await;
    assert_eq!(write.status.as_u16(), 200, "{}", write.json());
    let insert = json!({ "requests": [{ "insertText": { "location": { "index": 1 }, "text": "Hi " } }] });
    let edit =
        env.fetch(&token, env.http.post(env.url(&format!("v1/documents/{doc}:batchUpdate"))).json(&insert)).await;
    assert_eq!(edit.status.as_u16(), 200, "{}", edit.json());

    let activity = env.fetch(&token, env.http.post(env.url("v2/activity:query")).json(&json!({}))).await;
    assert_insufficient(&activity, "driveactivity.googleapis.com", "driveactivity.activity.query");
    let reader = env.ada_with(&[ACTIVITY_READONLY]);
    let activity = env.fetch(&reader, env.http.post(env.url("v2/activity:query")).json(&json!({}))).await;
    assert_eq!(activity.status.as_u16(), 200, "{}", activity.json());
}

#[tokio::test]
async fn drive_file_is_accepted_wherever_discovery_lists_it() {
    let env = Env::new().await;
    let token = env.ada_with(&[DRIVE_FILE]);
    let create = env.fetch(&token, env.http.post(env.url("drive/v3/files")).json(&json!({ "name": "mine.txt" }))).await;
    assert_eq!(create.status.as_u16(), 200, "{}", create.json());
    let sheets = env.fetch(&token, env.http.post(env.url("v4/spreadsheets")).json(&json!({}))).await;
    assert_eq!(sheets.status.as_u16(), 200, "{}", sheets.json());
    // `files.emptyTrash` lists only `drive`.
    let empty = env.fetch(&token, env.http.delete(env.url("drive/v3/files/trash"))).await;
    assert_insufficient(&empty, "drive.googleapis.com", "drive.files.emptyTrash");
    assert_eq!(challenged_scopes(&empty), [DRIVE]);
}

#[tokio::test]
async fn cloud_platform_alone_opens_none_of_the_workspace_apis() {
    // A VM's default access scope: Workspace APIs refuse it, as at Google.
    let env = Env::new().await;
    let robot = env
        .google
        .issue_token_with_scopes(Identity::service_account("vm@p.iam.gserviceaccount.com"), &[CLOUD_PLATFORM]);
    let list = env.fetch(&robot, env.http.get(env.url("drive/v3/files"))).await;
    assert_insufficient(&list, "drive.googleapis.com", "drive.files.list");
    let create = env.fetch(&robot, env.http.post(env.url("v1/documents")).json(&json!({ "title": "x" }))).await;
    assert_insufficient(&create, "docs.googleapis.com", "docs.documents.create");
}

#[tokio::test]
async fn a_bad_token_is_a_401_before_any_scope_is_looked_at() {
    let env = Env::new().await;
    let token = env.ada_with(&[DOCUMENTS]);
    env.google.world().expire_access_tokens();
    let list = env.fetch(&token, env.http.get(env.url("drive/v3/files"))).await;
    assert_eq!(list.status.as_u16(), 401, "{}", list.json());
    assert_eq!(list.reason(), "authError");
}

#[tokio::test]
async fn fixture_tokens_keep_every_api_open() {
    let env = Env::new().await;
    let sheet = env.sheet();
    let ada = env.ada.clone();
    let ok = |reply: &Reply| assert!(reply.status.is_success(), "{} {}", reply.status, reply.json());

    let url = env.url(&format!("v4/spreadsheets/{sheet}/values/Sheet1!A1?valueInputOption=RAW"));
    ok(&env.fetch(&ada, env.http.put(url).json(&json!({ "values": [["x"]] }))).await);
    ok(&env.fetch(&ada, env.http.get(env.url("drive/v3/files"))).await);
    ok(&env.fetch(&ada, env.http.post(env.url("drive/v3/files")).json(&json!({ "name": "n" }))).await);
    let upload = env.http.post(env.url("upload/drive/v3/files?uploadType=media")).header("content-type", "text/plain");
    ok(&env.fetch(&ada, upload.body("bytes")).await);
    ok(&env.fetch(&ada, env.http.post(env.url("v1/documents")).json(&json!({ "title": "Doc" }))).await);
    ok(&env.fetch(&ada, env.http.post(env.url("v2/activity:query")).json(&json!({}))).await);
    ok(&env.fetch(&ada, env.http.delete(env.url("drive/v3/files/trash"))).await);
}

#[tokio::test]
async fn the_sandbox_skips_the_discovery_check_but_not_scopes() {
    let (google, token) = sandbox().await;
    let http = reqwest::Client::new();
    let list = http.get(format!("{}/drive/v3/files", google.url())).bearer_auth(&token).send().await.unwrap();
    assert_eq!(list.status(), 200);
    let narrow = google.issue_token_with_scopes(Identity::user(google_fake::SANDBOX_EMAIL), &[DOCUMENTS]);
    let list = http.get(format!("{}/drive/v3/files", google.url())).bearer_auth(&narrow).send().await.unwrap();
    assert_eq!(list.status(), 403);
    assert_eq!(list.json::<Value>().await.unwrap(), insufficient("drive.googleapis.com", "drive.files.list"));
}
