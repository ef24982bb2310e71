//! Drive revisions over HTTP: each content write keeps a revision of that content, `revisions.list` pages
//! through them, `alt=media` answers a blob's old bytes, and a Docs Editors revision exports through the
//! docs.google.com link in its `exportLinks`.

use crate::common;

use common::{ADA, BOB, Env};
use google_fake::Identity;
use serde_json::{Value, json};

fn ada() -> Identity {
    Identity::user(ADA)
}

impl Env {
    async fn upload(&self, id: &str, bytes: &[u8]) {
        let request = self
            .http
            .patch(self.url(&format!("/upload/drive/v3/files/{id}")))
            .query(&[("uploadType", "media")])
            .header("Content-Type", "text/plain")
            .body(bytes.to_vec());
        let reply = self.fetch(&self.ada, request).await;
        assert!(reply.status.is_success(), "{}", String::from_utf8_lossy(&reply.bytes));
    }

    /// Follows an export link of ours (a docs.google.com URL) on the emulator.
    async fn follow(&self, link: &str, extra: &[(&str, &str)]) -> common::Reply {
        let path_and_query = link.strip_prefix("https://docs.google.com").expect("a docs.google.com link");
        let url = format!("{}{path_and_query}", self.google.url());
        self.fetch(&self.ada, self.http.get(url).query(extra)).await
    }
}

fn ids(list: &Value) -> Vec<String> {
    list["revisions"].as_array().unwrap().iter().map(|r| r["id"].as_str().unwrap().to_owned()).collect()
}

#[tokio::test]
async fn every_upload_keeps_a_revision_of_its_bytes() {
    let env = Env::new().await;
    let id = env.google.world().drive.create_blob("plan.txt", "text/plain", b"one".to_vec(), None, &ada());
    env.upload(&id, b"two").await;
    env.upload(&id, b"three").await;
    let path = format!("/drive/v3/files/{id}/revisions");

    let all = env.get_as(&env.ada, &path, &[]).await.json();
    assert_eq!(all["kind"], json!("drive#revisionList"));
    let revisions = all["revisions"].as_array().unwrap();
    assert_eq!(revisions.len(), 3);
    // Without `fields`, each revision is kind, id, mimeType and modifiedTime.
    let mut keys: Vec<&String> = revisions[0].as_object().unwrap().keys().collect();
    keys.sort();
    assert_eq!(keys, ["id", "kind", "mimeType", "modifiedTime"]);

    let first = env.get_as(&env.ada, &path, &[("pageSize", "2")]).await.json();
    assert_eq!(first["revisions"].as_array().unwrap().len(), 2);
    let token = first["nextPageToken"].as_str().unwrap();
    let second = env.get_as(&env.ada, &path, &[("pageSize", "2"), ("pageToken", token)]).await.json();
    assert_eq!([ids(&first), ids(&second)].concat(), ids(&all));
    assert!(second.get("nextPageToken").is_none());

    for (revision, bytes) in ids(&all).iter().zip([&b"one"[..], b"two", b"three"]) {
        let reply = env.get_as(&env.ada, &format!("{path}/{revision}"), &[("alt", "media")]).await;
        assert_eq!(reply.bytes, bytes);
        let meta = env.get_as(&env.ada, &format!("{path}/{revision}"), &[("fields", "*")]).await.json();
        assert_eq!(meta["size"], json!(bytes.len().to_string()));
        assert_eq!(meta["lastModifyingUser"]["emailAddress"], json!(ADA));
    }
    let file = env.get_as(&env.ada, &format!("/drive/v3/files/{id}"), &[("fields", "headRevisionId")]).await.json();
    assert_eq!(file["headRevisionId"], json!(ids(&all)[2]));
}

#[tokio::test]
async fn readers_cannot_read_revisions_and_folders_have_none() {
    let env = Env::new().await;
    let (id, folder) = {
        let mut world = env.google.world();
        let id = world.drive.create_blob("plan.txt", "text/plain", b"one".to_vec(), None, &ada());
        world.drive.share_with(&id, BOB, "reader");
        (id, world.drive.create_folder("F", None, &ada()))
    };
    let bob = env.google.issue_token(Identity::user(BOB));
    let reply = env.get_as(&bob, &format!("/drive/v3/files/{id}/revisions"), &[]).await;
    assert_eq!(reply.status.as_u16(), 403, "{}", reply.json());
    let reply = env.get_as(&env.ada, &format!("/drive/v3/files/{folder}/revisions"), &[]).await;
    assert_eq!(reply.status.as_u16(), 403);
    assert_eq!(reply.reason(), "revisionsNotSupported");
    let reply = env.get_as(&env.ada, &format!("/drive/v3/files/{id}/revisions/nope"), &[]).await;
    assert_eq!(reply.status.as_u16(), 404);
}

#[tokio::test]
async fn a_spreadsheet_revision_exports_each_sheet_as_it_was() {
    let env = Env::new().await;
    let id = env.google.world().create_spreadsheet(
        "Budget",
        &[("Sheet1", vec![vec![json!("a"), json!("1")]]), ("Notes", vec![vec![json!("old note")]])],
        &ada(),
    );
    let request = env
        .http
        .put(env.url(&format!("/v4/spreadsheets/{id}/values/Notes!A1")))
        .query(&[("valueInputOption", "RAW")])
        .json(&json!({ "values": [["new note"]] }));
    assert!(env.fetch(&env.ada, request).await.status.is_success());

    let path = format!("/drive/v3/files/{id}/revisions");
    let list = env.get_as(&env.ada, &path, &[("fields", "revisions(id,exportLinks,published)")]).await.json();
    let revisions = list["revisions"].as_array().unwrap();
    assert_eq!(ids(&list), ["1", "2"]);
    assert_eq!(revisions[0]["published"], json!(false));
    let old_csv = revisions[0]["exportLinks"]["text/csv"].as_str().unwrap();
    let new_csv = revisions[1]["exportLinks"]["text/csv"].as_str().unwrap();

    let sheets = env.get_as(&env.ada, &format!("/v4/spreadsheets/{id}"), &[("fields", "sheets.properties")]).await;
    let notes_gid = sheets.json()["sheets"][1]["properties"]["sheetId"].as_i64().unwrap().to_string();
    assert_eq!(env.follow(old_csv, &[]).await.bytes, b"a,1");
    assert_eq!(env.follow(old_csv, &[("gid", &notes_gid)]).await.bytes, b"old note");
    assert_eq!(env.follow(new_csv, &[("gid", &notes_gid)]).await.bytes, b"new note");
    let reply = env.follow(old_csv, &[("gid", "424242")]).await;
    assert_eq!(reply.status.as_u16(), 400);

    // A Docs Editors revision has no bytes of its own.
    let reply = env.get_as(&env.ada, &format!("{path}/1"), &[("alt", "media")]).await;
    assert_eq!(reply.status.as_u16(), 403);
    assert_eq!(reply.reason(), "fileNotDownloadable");
}

#[tokio::test]
async fn a_document_revision_exports_its_text_and_a_copy_starts_its_own_history() {
    let env = Env::new().await;
    let id = env.google.world().create_document("Notes", "draft one", &ada());
    let request = env
        .http
        .post(env.url(&format!("/v1/documents/{id}:batchUpdate")))
        .json(&json!({ "requests": [{ "insertText": { "location": { "index": 1 }, "text": "Title\n" } }] }));
    assert!(env.fetch(&env.ada, request).await.status.is_success());
    let list = env
        .get_as(&env.ada, &format!("/drive/v3/files/{id}/revisions"), &[("fields", "revisions(id,exportLinks)")])
        .await
        .json();
    assert_eq!(ids(&list), ["1", "2"]);
    let old = env.follow(list["revisions"][0]["exportLinks"]["text/plain"].as_str().unwrap(), &[]).await;
    let text = String::from_utf8(old.bytes).unwrap();
    assert!(text.contains("draft one") && !text.contains("Title"), "{text}");

    let copy = env
        .fetch(&env.ada, env.http.post(env.url(&format!("/drive/v3/files/{id}/copy"))).json(&json!({})))
        .await
        .json();
    let copy_id = copy["id"].as_str().unwrap();
    let list = env.get_as(&env.ada, &format!("/drive/v3/files/{copy_id}/revisions"), &[]).await.json();
    assert_eq!(ids(&list), ["1"]);
}
