//! The smaller Drive tools against the emulator: shared drives, shortcuts, stars, the trash, sharing a
//! spreadsheet, and revisions (each write keeps the content it wrote, so an old revision exports old
//! content). Every test also checks, on drop, that the emulator stayed within Google's discovery documents.

use crate::drive_common;
use crate::support;

use drive_common::BOB;
use gatehouse_core::tools::all_tools;
use google_fake::Identity;
use serde_json::{Value, json};
use support::{Harness, USER};

fn blob(h: &Harness, name: &str, bytes: &[u8]) -> String {
    h.google.world().drive.create_blob(name, "text/plain", bytes.to_vec(), None, &h.owner())
}

/// Replaces a blob's content through Drive's media upload, as any client would (a new revision).
async fn upload_new_content(h: &Harness, id: &str, bytes: &[u8]) {
    let response = reqwest::Client::new()
        .patch(format!("{}/upload/drive/v3/files/{id}", h.google.url()))
        .query(&[("uploadType", "media"), ("supportsAllDrives", "true")])
        .bearer_auth(h.google.issue_token(h.owner()))
        .header("Content-Type", "text/plain")
        .body(bytes.to_vec())
        .send()
        .await
        .unwrap();
    assert!(response.status().is_success(), "{}", response.text().await.unwrap());
}

fn revision_ids(h: &Harness, id: &str) -> Vec<String> {
    let world = h.google.world();
    let file = world.drive.get(id).unwrap();
    file.revisions.iter().map(|r| r.id(id)).collect()
}

fn listed_ids(listing: &Value) -> Vec<String> {
    listing["revisions"].as_array().unwrap().iter().map(|r| r["id"].as_str().unwrap().to_owned()).collect()
}

// --- list_drives ------------------------------------------------------------------------------------------

#[tokio::test]
async fn list_drives_lists_the_callers_shared_drives_and_searches_names() {
    let h = Harness::new().await;
    let ids: Vec<String> = {
        let mut world = h.google.world();
        world.drive.create_shared_drive("Team Secret", &Identity::user(BOB));
        ["Team Alpha", "Team Beta", "Finance"]
            .iter()
            .map(|name| world.drive.create_shared_drive(name, &h.owner()))
            .collect()
    };
    let all = h.ok("list_drives", json!({})).await;
    let names: Vec<&str> = all["drives"].as_array().unwrap().iter().map(|d| d["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["Team Alpha", "Team Beta", "Finance"], "{all}");
    assert_eq!(all["count"], json!(3));
    let listed: Vec<String> =
        all["drives"].as_array().unwrap().iter().map(|d| d["id"].as_str().unwrap().to_owned()).collect();
    assert_eq!(listed, ids);

    let team = h.ok("list_drives", json!({ "query": "Team" })).await;
    let names: Vec<&str> = team["drives"].as_array().unwrap().iter().map(|d| d["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["Team Alpha", "Team Beta"], "{team}");
    assert_eq!(team["query"], json!("name contains 'Team'"));

    let raw = h.ok("list_drives", json!({ "query": "name = 'Finance'" })).await;
    assert_eq!(raw["count"], json!(1), "{raw}");

    let one = h.ok("list_drives", json!({ "max_results": 1 })).await;
    assert_eq!(one["count"], json!(1));
    assert!(one["note"].as_str().unwrap().contains("max_results"), "{one}");
}

#[tokio::test]
async fn list_drives_refuses_bad_input() {
    let h = Harness::new().await;
    let message = h.err("list_drives", json!({ "max_results": 0 })).await;
    assert!(message.contains("max_results"), "{message}");
    let message = h.err("list_drives", json!({ "query": "name = 'unclosed" })).await;
    assert!(!message.is_empty());
}

// --- create_shortcut --------------------------------------------------------------------------------------

#[tokio::test]
async fn create_shortcut_points_at_the_target_from_the_folder() {
    let h = Harness::new().await;
    let target = blob(&h, "plan.txt", b"plan");
    let folder = h.google.world().drive.create_folder("Links", None, &h.owner());
    let made = h.ok("create_shortcut", json!({ "target_file_id": target, "folder_id": folder })).await;
    let id = made["id"].as_str().unwrap();
    assert_eq!(made["target_id"], json!(target));
    assert_eq!(made["name"], json!("plan.txt"));
    let world = h.google.world();
    let shortcut = world.drive.get(id).unwrap();
    assert_eq!(shortcut.mime_type, "application/vnd.google-apps.shortcut");
    assert_eq!(shortcut.shortcut_target.as_deref(), Some(target.as_str()));
    assert_eq!(shortcut.parent.as_deref(), Some(folder.as_str()));
    assert_eq!(shortcut.name, "plan.txt");
    // The target stays where it was.
    assert_ne!(world.drive.get(&target).unwrap().parent.as_deref(), Some(folder.as_str()));
}

#[tokio::test]
async fn create_shortcut_takes_a_name_and_refuses_bad_targets() {
    let h = Harness::new().await;
    let target = blob(&h, "plan.txt", b"plan");
    let made = h.ok("create_shortcut", json!({ "target_file_id": target, "name": "The plan" })).await;
    assert_eq!(h.google.world().drive.get(made["id"].as_str().unwrap()).unwrap().name, "The plan");

    let before = h.google.world().drive.ids().len();
    let message = h.err("create_shortcut", json!({ "target_file_id": "no-such-file" })).await;
    assert!(message.to_lowercase().contains("not found"), "{message}");
    let message = h.err("create_shortcut", json!({ "target_file_id": "  " })).await;
    assert!(message.contains("target_file_id"), "{message}");
    let message = h.err("create_shortcut", json!({ "target_file_id": made["id"] })).await;
    assert!(message.contains("shortcut to a shortcut"), "{message}");
    assert_eq!(h.google.world().drive.ids().len(), before, "nothing was created");
}

// --- star_file / unstar_file ------------------------------------------------------------------------------

#[tokio::test]
async fn star_and_unstar_set_the_callers_star() {
    let h = Harness::new().await;
    let id = blob(&h, "plan.txt", b"plan");
    let starred = h.ok("star_file", json!({ "file_id": id })).await;
    assert_eq!(starred["starred"], json!(true));
    assert!(h.google.world().drive.get(&id).unwrap().starred_by.contains(USER));
    // Starring twice changes nothing more.
    h.ok("star_file", json!({ "file_id": id })).await;
    assert_eq!(h.google.world().drive.get(&id).unwrap().starred_by.len(), 1);

    let unstarred = h.ok("unstar_file", json!({ "file_id": id })).await;
    assert_eq!(unstarred["starred"], json!(false));
    assert!(h.google.world().drive.get(&id).unwrap().starred_by.is_empty());
}

#[tokio::test]
async fn star_refuses_unknown_and_empty_ids() {
    let h = Harness::new().await;
    let message = h.err("star_file", json!({ "file_id": "no-such-file" })).await;
    assert!(message.to_lowercase().contains("not found"), "{message}");
    let message = h.err("unstar_file", json!({ "file_id": "" })).await;
    assert!(message.contains("file_id"), "{message}");
    let message = h.err("star_file", json!({})).await;
    assert!(message.starts_with("Invalid arguments for star_file"), "{message}");
}

// --- empty_trash ------------------------------------------------------------------------------------------

#[tokio::test]
async fn empty_trash_deletes_only_trashed_files_for_good() {
    let h = Harness::new().await;
    let kept = blob(&h, "kept.txt", b"keep");
    let trashed = blob(&h, "old.txt", b"old");
    h.ok("delete_file", json!({ "file_id": trashed })).await;
    assert!(h.google.world().drive.contains(&trashed), "in the trash, not gone");
    let done = h.ok("empty_trash", json!({})).await;
    assert_eq!(done["emptied"], json!(true));
    let world = h.google.world();
    assert!(!world.drive.contains(&trashed), "the trashed file is deleted for good");
    assert!(world.drive.contains(&kept));
}

#[tokio::test]
async fn empty_trash_of_a_shared_drive_leaves_my_trash() {
    let h = Harness::new().await;
    let (drive, in_drive, mine) = {
        let mut world = h.google.world();
        let drive = world.drive.create_shared_drive("Team", &h.owner());
        let in_drive = world.drive.create_blob("team.txt", "text/plain", b"t".to_vec(), Some(&drive), &h.owner());
        let mine = world.drive.create_blob("mine.txt", "text/plain", b"m".to_vec(), None, &h.owner());
        for id in [&in_drive, &mine] {
            world.drive.get_mut(id).unwrap().explicitly_trashed = true;
        }
        (drive, in_drive, mine)
    };
    h.ok("empty_trash", json!({ "drive_id": drive })).await;
    let world = h.google.world();
    assert!(!world.drive.contains(&in_drive));
    assert!(world.drive.contains(&mine), "the caller's own trash is another trash");
}

#[tokio::test]
async fn empty_trash_always_asks_and_refuses_bad_drive_ids() {
    let tool = all_tools().into_iter().find(|t| t.meta.name == "empty_trash").unwrap();
    let kinds: Vec<&str> = tool.evaluators().iter().map(|e| e.kind()).collect();
    assert_eq!(kinds, ["empty_trash"]);
    for args in [json!({}), json!({ "drive_id": "0AbC" })] {
        let veto = gatehouse_core::approval::evaluator::standing_approval(tool.evaluators(), &args, None).unwrap_err();
        assert_eq!(veto.evaluator, "empty_trash");
        assert!(veto.reason.contains("always asks"), "{veto}");
    }

    let h = Harness::new().await;
    let message = h.err("empty_trash", json!({ "drive_id": " " })).await;
    assert!(message.contains("drive_id"), "{message}");
    let message = h.err("empty_trash", json!({ "drive_id": "0ANoSuchDrive" })).await;
    assert!(message.to_lowercase().contains("not found"), "{message}");
}

// --- share_spreadsheet ------------------------------------------------------------------------------------

fn spreadsheet(h: &Harness, title: &str, sheets: &[(&str, Vec<Vec<Value>>)]) -> String {
    h.google.world().create_spreadsheet(title, sheets, &h.owner())
}

fn user_grants(h: &Harness, id: &str) -> Vec<(String, String)> {
    let world = h.google.world();
    let mut out: Vec<(String, String)> = world
        .drive
        .get(id)
        .unwrap()
        .permissions
        .iter()
        .filter_map(|p| p.email.clone().map(|e| (e, p.role.as_str().to_owned())))
        .collect();
    out.sort();
    out
}

#[tokio::test]
async fn share_spreadsheet_grants_access_and_notifies_by_default() {
    let h = Harness::new().await;
    let id = spreadsheet(&h, "Budget", &[("Sheet1", vec![vec![json!("a")]])]);
    let shared = h
        .ok(
            "share_spreadsheet",
            json!({ "spreadsheet_id": id, "recipients": [{ "email_address": BOB, "role": "writer" }] }),
        )
        .await;
    assert_eq!(shared["name"], json!("Budget"));
    assert_eq!(shared["shared"][0]["email_address"], json!(BOB));
    assert_eq!(user_grants(&h, &id), [(USER.to_owned(), "owner".to_owned()), (BOB.to_owned(), "writer".to_owned())]);
    let notified: Vec<(String, String)> =
        h.google.world().drive.notifications.iter().map(|n| (n.file_id.clone(), n.to.clone())).collect();
    assert_eq!(notified, [(id.clone(), BOB.to_owned())]);
}

/// As in the reference server, a recipient without a role gets writer.
#[tokio::test]
async fn share_spreadsheet_grants_writer_when_no_role_is_given() {
    let h = Harness::new().await;
    let id = spreadsheet(&h, "Budget", &[("Sheet1", vec![vec![json!("a")]])]);
    let shared =
        h.ok("share_spreadsheet", json!({ "spreadsheet_id": id, "recipients": [{ "email_address": BOB }] })).await;
    assert_eq!(shared["shared"][0]["role"], json!("writer"), "{shared}");
    assert_eq!(user_grants(&h, &id), [(USER.to_owned(), "owner".to_owned()), (BOB.to_owned(), "writer".to_owned())]);
}

#[tokio::test]
async fn share_spreadsheet_without_notification_sends_no_email() {
    let h = Harness::new().await;
    let id = spreadsheet(&h, "Budget", &[("Sheet1", vec![vec![json!("a")]])]);
    h.ok(
        "share_spreadsheet",
        json!({ "spreadsheet_id": id, "send_notification": false,
                "recipients": [{ "emailAddress": "carol@example.com", "role": "reader" }] }),
    )
    .await;
    assert!(user_grants(&h, &id).contains(&("carol@example.com".to_owned(), "reader".to_owned())));
    assert!(h.google.world().drive.notifications.is_empty());
}

#[tokio::test]
async fn share_spreadsheet_refuses_bad_input_before_sharing() {
    let h = Harness::new().await;
    let id = spreadsheet(&h, "Budget", &[("Sheet1", vec![vec![json!("a")]])]);
    let text = blob(&h, "notes.txt", b"n");
    let message = h
        .err(
            "share_spreadsheet",
            json!({ "spreadsheet_id": text, "recipients": [{ "email_address": BOB, "role": "reader" }] }),
        )
        .await;
    assert!(message.contains("not a spreadsheet") && message.contains("share_file"), "{message}");
    assert_eq!(user_grants(&h, &text), [(USER.to_owned(), "owner".to_owned())]);

    let message = h.err("share_spreadsheet", json!({ "spreadsheet_id": id, "recipients": [] })).await;
    assert!(message.contains("recipients is empty"), "{message}");
    let message = h
        .err(
            "share_spreadsheet",
            json!({ "spreadsheet_id": id, "recipients": [{ "email_address": BOB, "role": "owner" }] }),
        )
        .await;
    assert!(message.contains("transfer_ownership"), "{message}");
    let message =
        h.err("share_spreadsheet", json!({ "spreadsheet_id": id, "recipients": [{ "role": "writer" }] })).await;
    assert!(message.contains("email_address"), "{message}");
    assert_eq!(user_grants(&h, &id), [(USER.to_owned(), "owner".to_owned())]);
    assert!(h.google.world().drive.notifications.is_empty());
}

// --- list_revisions / export_revision: blobs --------------------------------------------------------------

#[tokio::test]
async fn a_blobs_revisions_keep_each_uploaded_content() {
    let h = Harness::new().await;
    let id = blob(&h, "plan.txt", b"version one");
    upload_new_content(&h, &id, b"version two").await;
    let stored = revision_ids(&h, &id);
    assert_eq!(stored.len(), 2);

    let listing = h.ok("list_revisions", json!({ "file_id": id })).await;
    assert_eq!(listed_ids(&listing), stored, "{listing}");
    assert_eq!(listing["revisions"][0]["size"], json!(11));
    assert_eq!(listing["revisions"][0]["modified_by"], json!(USER));

    let old = h.ok("export_revision", json!({ "file_id": id, "revision_id": stored[0] })).await;
    assert_eq!(old["content"], json!("version one"), "{old}");
    let new = h.ok("export_revision", json!({ "file_id": id, "revision_id": stored[1] })).await;
    assert_eq!(new["content"], json!("version two"));
    // The file itself holds the new content.
    assert_eq!(h.google.world().drive.get(&id).unwrap().content.as_deref(), Some(&b"version two"[..]));
}

#[tokio::test]
async fn export_revision_saves_to_local_path() {
    let h = Harness::new().await;
    let id = blob(&h, "plan.txt", b"version one");
    upload_new_content(&h, &id, b"version two").await;
    let first = revision_ids(&h, &id)[0].clone();
    let saved =
        h.ok("export_revision", json!({ "file_id": id, "revision_id": first, "local_path": "revs/plan-v1.txt" })).await;
    let path = saved["local_path"].as_str().unwrap();
    assert_eq!(std::fs::read(path).unwrap(), b"version one");
    assert_eq!(saved["bytes"], json!(11));
    assert_eq!(saved["replaced_existing_file"], json!(false));

    let into = h.ok("export_revision", json!({ "file_id": id, "revision_id": first, "local_path": "revs/" })).await;
    let path = into["local_path"].as_str().unwrap();
    assert!(path.contains("plan.txt (revision"), "{path}");
    assert_eq!(std::fs::read(path).unwrap(), b"version one");
}

#[tokio::test]
async fn export_revision_refuses_bad_input() {
    let h = Harness::new().await;
    let id = blob(&h, "plan.txt", b"text");
    let binary = h.google.world().drive.create_blob("photo.png", "image/png", vec![0x89, 0x50, 0xff], None, &h.owner());
    let rev = revision_ids(&h, &id)[0].clone();

    let message = h.err("export_revision", json!({ "file_id": id, "revision_id": "nope" })).await;
    assert!(message.to_lowercase().contains("not found"), "{message}");
    let message = h.err("export_revision", json!({ "file_id": id, "revision_id": " " })).await;
    assert!(message.contains("revision_id"), "{message}");
    let message = h.err("export_revision", json!({ "file_id": id, "revision_id": rev, "range": "A1:B2" })).await;
    assert!(message.contains("spreadsheets only"), "{message}");
    let binary_rev = revision_ids(&h, &binary)[0].clone();
    let message = h.err("export_revision", json!({ "file_id": binary, "revision_id": binary_rev })).await;
    assert!(message.contains("local_path"), "{message}");
    let outside = h.home.path().join("..").join("escape.txt");
    let message = h
        .err("export_revision", json!({ "file_id": id, "revision_id": rev, "local_path": outside.to_str().unwrap() }))
        .await;
    assert!(message.contains("outside"), "{message}");
    let folder = h.google.world().drive.create_folder("F", None, &h.owner());
    let message = h.err("list_revisions", json!({ "file_id": folder })).await;
    assert!(message.contains("folder"), "{message}");
}

#[tokio::test]
async fn export_revision_over_the_cap_points_to_local_path() {
    let h = Harness::with_config(|config| config.max_response_chars = 50).await;
    let id = blob(&h, "long.txt", &[b'x'; 200]);
    let rev = revision_ids(&h, &id)[0].clone();
    let message = h.err("export_revision", json!({ "file_id": id, "revision_id": rev })).await;
    assert!(message.contains("MAX_TOOL_RESPONSE_CHARS") && message.contains("local_path"), "{message}");
}

// --- list_revisions / export_revision: Google files -------------------------------------------------------

#[tokio::test]
async fn a_spreadsheets_old_revision_exports_its_old_values() {
    let h = Harness::new().await;
    let id = spreadsheet(
        &h,
        "Budget",
        &[
            ("Sheet1", vec![vec![json!("item"), json!("cost")], vec![json!("tea"), json!("3")]]),
            ("Notes", vec![vec![json!("first note")]]),
        ],
    );
    h.ok("update_cells", json!({ "spreadsheet_id": id, "sheet": "Sheet1", "range": "B2", "data": [["9"]] })).await;
    h.ok("update_cells", json!({ "spreadsheet_id": id, "sheet": "Notes", "range": "A1", "data": [["second note"]] }))
        .await;
    let stored = revision_ids(&h, &id);
    assert_eq!(stored.len(), 3, "one revision per write");

    let listing = h.ok("list_revisions", json!({ "file_id": id })).await;
    assert_eq!(listed_ids(&listing), stored);
    assert!(listing["revisions"][0]["export_formats"].as_array().unwrap().contains(&json!("csv")), "{listing}");

    let first = h.ok("export_revision", json!({ "file_id": id, "revision_id": stored[0] })).await;
    assert_eq!(first["content"], json!("item,cost\r\ntea,3"), "{first}");
    assert_eq!(first["format"], json!("text/csv"));
    let second = h.ok("export_revision", json!({ "file_id": id, "revision_id": stored[1] })).await;
    assert_eq!(second["content"], json!("item,cost\r\ntea,9"));

    let notes = h.ok("export_revision", json!({ "file_id": id, "revision_id": stored[1], "sheet": "Notes" })).await;
    assert_eq!(notes["content"], json!("first note"));
    let notes = h.ok("export_revision", json!({ "file_id": id, "revision_id": stored[2], "range": "Notes!A1" })).await;
    assert_eq!(notes["content"], json!("second note"));

    let cut = h.ok("export_revision", json!({ "file_id": id, "revision_id": stored[0], "range": "B1:B2" })).await;
    assert_eq!(cut["content"], json!("cost\r\n3"));
    let cut = h
        .ok("export_revision", json!({ "file_id": id, "revision_id": stored[0], "sheet": "Sheet1", "range": "A2:B" }))
        .await;
    assert_eq!(cut["content"], json!("tea,3"));
}

#[tokio::test]
async fn a_spreadsheets_sheet_and_range_are_checked() {
    let h = Harness::new().await;
    let id = spreadsheet(&h, "Budget", &[("Sheet1", vec![vec![json!("a")]])]);
    let rev = revision_ids(&h, &id)[0].clone();
    let message = h.err("export_revision", json!({ "file_id": id, "revision_id": rev, "sheet": "Nope" })).await;
    assert!(message.contains("Nope") && message.contains("Sheet1"), "{message}");
    let message = h
        .err("export_revision", json!({ "file_id": id, "revision_id": rev, "sheet": "Sheet1", "range": "Other!A1" }))
        .await;
    assert!(message.contains("Other") && message.contains("Sheet1"), "{message}");
    let message = h.err("export_revision", json!({ "file_id": id, "revision_id": rev, "range": "A1:1B" })).await;
    assert!(!message.is_empty());
}

#[tokio::test]
async fn a_documents_old_revision_exports_its_old_text() {
    let h = Harness::new().await;
    let id = h.google.world().create_document("Notes", "first draft", &h.owner());
    h.ok("insert_doc_text", json!({ "doc_id": id, "insertions": [{ "index": 1, "text": "Title\n" }] })).await;
    let stored = revision_ids(&h, &id);
    assert_eq!(stored.len(), 2);
    let listing = h.ok("list_revisions", json!({ "file_id": id })).await;
    assert_eq!(listed_ids(&listing), stored);

    let old = h.ok("export_revision", json!({ "file_id": id, "revision_id": stored[0] })).await;
    let text = old["content"].as_str().unwrap();
    assert!(text.contains("first draft") && !text.contains("Title"), "{old}");
    let new = h.ok("export_revision", json!({ "file_id": id, "revision_id": stored[1] })).await;
    assert!(new["content"].as_str().unwrap().contains("Title"), "{new}");

    let saved =
        h.ok("export_revision", json!({ "file_id": id, "revision_id": stored[0], "local_path": "notes-v1.md" })).await;
    let written = std::fs::read_to_string(saved["local_path"].as_str().unwrap()).unwrap();
    assert!(written.contains("first draft") && !written.contains("Title"), "{written}");
}
