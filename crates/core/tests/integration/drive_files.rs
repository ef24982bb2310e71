//! One-file Drive tools against the emulator: metadata, quota, folders, copy, move, rename, trash,
//! permanent delete and restore, and the service-account storage rule.

use crate::drive_common;
use crate::support;

use drive_common::{SERVICE_ACCOUNT, my_drive_root, with_default_folder};
use google_fake::Identity;
use serde_json::json;
use support::{Harness, USER};

#[tokio::test]
async fn get_file_metadata_names_the_file_and_its_export_formats() {
    let h = Harness::new().await;
    let (blob, sheet, folder) = {
        let mut world = h.google.world();
        let folder = world.drive.create_folder("Docs", None, &h.owner());
        let blob = world.drive.create_blob("a.txt", "text/plain", b"hello".to_vec(), Some(&folder), &h.owner());
        let sheet = world.create_spreadsheet("Budget", &[], &h.owner());
        (blob, sheet, folder)
    };
    let meta = h.ok("get_file_metadata", json!({ "file_id": blob })).await;
    assert_eq!(meta["name"], json!("a.txt"));
    assert_eq!(meta["size"], json!(5));
    assert_eq!(meta["folder_id"], json!(folder));
    assert_eq!(meta["owner"], json!(USER));
    assert_eq!(meta["trashed"], json!(false));
    assert_eq!(meta["md5"], json!("5d41402abc4b2a76b9719d911017c592"));
    assert!(meta["url"].as_str().unwrap().contains(&blob));
    assert!(meta.get("export_formats").is_none());

    let meta = h.ok("get_file_metadata", json!({ "file_id": sheet })).await;
    let formats = meta["export_formats"].as_array().unwrap();
    assert!(formats.contains(&json!("text/csv")), "{meta}");
    assert!(meta.get("size").is_none());

    let message = h.err("get_file_metadata", json!({ "file_id": "nope" })).await;
    assert!(message.contains("could not find"), "{message}");
}

#[tokio::test]
async fn get_storage_quota_reports_limit_and_usage() {
    let h = Harness::new().await;
    h.google.world().drive.create_blob("a.bin", "application/octet-stream", vec![0; 2048], None, &h.owner());
    let quota = h.ok("get_storage_quota", json!({})).await;
    assert_eq!(quota["account"], json!(USER));
    assert_eq!(quota["limit_bytes"], json!(15_u64 * 1024 * 1024 * 1024));
    assert_eq!(quota["usage_bytes"], json!(2048));
    assert!(quota["summary"].as_str().unwrap().contains("2.0 KB of 15.0 GB used"), "{quota}");
    let message = h.err("get_storage_quota", json!({ "extra": 1 })).await;
    assert!(message.contains("extra"), "{message}");
}

#[tokio::test]
async fn create_folder_lands_in_the_parent_or_my_drive() {
    let h = Harness::new().await;
    let root = my_drive_root(&h);
    let top = h.ok("create_folder", json!({ "name": "Projects" })).await;
    let id = top["id"].as_str().unwrap().to_owned();
    {
        let world = h.google.world();
        let folder = world.drive.get(&id).unwrap();
        assert_eq!(folder.name, "Projects");
        assert!(folder.is_folder());
        assert_eq!(folder.parent.as_deref(), Some(root.as_str()));
    }
    let child = h.ok("create_folder", json!({ "name": "2025", "parent_folder_id": id })).await;
    let child_id = child["id"].as_str().unwrap();
    assert_eq!(h.google.world().drive.get(child_id).unwrap().parent.as_deref(), Some(id.as_str()));
    assert_eq!(child["folder_id"], json!(id));
    assert!(child["url"].as_str().unwrap().contains("folders"));
}

#[tokio::test]
async fn create_folder_defaults_to_drive_folder_id() {
    let (h, default) = with_default_folder().await;
    let made = h.ok("create_folder", json!({ "name": "Inside" })).await;
    let id = made["id"].as_str().unwrap();
    assert_eq!(h.google.world().drive.get(id).unwrap().parent.as_deref(), Some(default.as_str()));
}

#[tokio::test]
async fn copy_file_copies_content_name_and_folder() {
    let h = Harness::new().await;
    let (blob, target) = {
        let mut world = h.google.world();
        let target = world.drive.create_folder("Archive", None, &h.owner());
        let blob = world.drive.create_blob("report.txt", "text/plain", b"figures".to_vec(), None, &h.owner());
        (blob, target)
    };
    let copy =
        h.ok("copy_file", json!({ "file_id": blob, "new_name": "report (copy).txt", "folder_id": target })).await;
    let copy_id = copy["id"].as_str().unwrap();
    assert_ne!(copy_id, blob);
    assert_eq!(copy["copied_from"], json!(blob));
    let world = h.google.world();
    let copied = world.drive.get(copy_id).unwrap();
    assert_eq!(copied.name, "report (copy).txt");
    assert_eq!(copied.parent.as_deref(), Some(target.as_str()));
    assert_eq!(copied.content.as_deref(), Some(&b"figures"[..]));
    assert_eq!(world.drive.get(&blob).unwrap().name, "report.txt");
}

#[tokio::test]
async fn copy_file_without_a_name_or_folder_stays_next_to_the_original() {
    let h = Harness::new().await;
    let (blob, folder) = {
        let mut world = h.google.world();
        let folder = world.drive.create_folder("Here", None, &h.owner());
        (world.drive.create_blob("x.txt", "text/plain", b"x".to_vec(), Some(&folder), &h.owner()), folder)
    };
    let copy = h.ok("copy_file", json!({ "file_id": blob })).await;
    let world = h.google.world();
    let copied = world.drive.get(copy["id"].as_str().unwrap()).unwrap();
    assert_eq!(copied.parent.as_deref(), Some(folder.as_str()));
    assert_eq!(copy["name"], json!(copied.name));
}

/// As in the reference server: without folder_id the copy stays next to the original, even with
/// DRIVE_FOLDER_ID set.
#[tokio::test]
async fn copy_file_without_a_folder_ignores_the_default_folder() {
    let (h, default) = with_default_folder().await;
    let (blob, folder) = {
        let mut world = h.google.world();
        let folder = world.drive.create_folder("Here", None, &h.owner());
        (world.drive.create_blob("x.txt", "text/plain", b"x".to_vec(), Some(&folder), &h.owner()), folder)
    };
    let copy = h.ok("copy_file", json!({ "file_id": blob })).await;
    let copied = h.google.world().drive.get(copy["id"].as_str().unwrap()).unwrap().parent.clone();
    assert_eq!(copied.as_deref(), Some(folder.as_str()));
    assert_ne!(copied.as_deref(), Some(default.as_str()));
}

#[tokio::test]
async fn move_file_changes_the_folder() {
    let h = Harness::new().await;
    let (blob, from, to) = {
        let mut world = h.google.world();
        let from = world.drive.create_folder("From", None, &h.owner());
        let to = world.drive.create_folder("To", None, &h.owner());
        (world.drive.create_blob("m.txt", "text/plain", Vec::new(), Some(&from), &h.owner()), from, to)
    };
    let moved = h.ok("move_file", json!({ "file_id": blob, "destination_folder_id": to })).await;
    assert_eq!(moved["folder_id"], json!(to));
    assert_eq!(h.google.world().drive.get(&blob).unwrap().parent.as_deref(), Some(to.as_str()));
    // Moving again changes nothing.
    h.ok("move_file", json!({ "file_id": blob, "destination_folder_id": to })).await;
    assert_eq!(h.google.world().drive.get(&blob).unwrap().parent.as_deref(), Some(to.as_str()));
    // The typed client call other tools use.
    h.engine.context().google.drive().move_to_folder(&blob, &from).await.unwrap();
    assert_eq!(h.google.world().drive.get(&blob).unwrap().parent.as_deref(), Some(from.as_str()));
}

#[tokio::test]
async fn rename_file_renames() {
    let h = Harness::new().await;
    let blob = h.google.world().drive.create_blob("draft.txt", "text/plain", Vec::new(), None, &h.owner());
    let renamed = h.ok("rename_file", json!({ "file_id": blob, "new_name": "final.txt" })).await;
    assert_eq!(renamed["name"], json!("final.txt"));
    assert_eq!(h.google.world().drive.get(&blob).unwrap().name, "final.txt");
    let message = h.err("rename_file", json!({ "file_id": blob, "new_name": "  " })).await;
    assert!(message.contains("new_name"), "{message}");
}

#[tokio::test]
async fn delete_file_trashes_and_restore_file_restores() {
    let h = Harness::new().await;
    let blob = h.google.world().drive.create_blob("bin.txt", "text/plain", Vec::new(), None, &h.owner());
    let trashed = h.ok("delete_file", json!({ "file_id": blob })).await;
    assert_eq!(trashed["trashed"], json!(true));
    assert!(trashed["message"].as_str().unwrap().contains("restore_file"));
    assert!(h.google.world().drive.get(&blob).unwrap().explicitly_trashed);

    let restored = h.ok("restore_file", json!({ "file_id": blob })).await;
    assert_eq!(restored["trashed"], json!(false));
    assert_eq!(restored["name"], json!("bin.txt"));
    assert!(!h.google.world().drive.get(&blob).unwrap().explicitly_trashed);
}

#[tokio::test]
async fn delete_file_permanent_removes_it_for_good() {
    let h = Harness::new().await;
    let blob = h.google.world().drive.create_blob("gone.txt", "text/plain", Vec::new(), None, &h.owner());
    let deleted = h.ok("delete_file", json!({ "file_id": blob, "permanent": true })).await;
    assert_eq!(deleted["deleted"], json!(true));
    assert_eq!(deleted["name"], json!("gone.txt"));
    assert!(!h.google.world().drive.contains(&blob));
    let message = h.err("restore_file", json!({ "file_id": blob })).await;
    assert!(message.contains("could not find"), "{message}");
}

#[tokio::test]
async fn annotations_are_honest() {
    let h = Harness::new().await;
    let meta = |name: &str| h.engine.tool(name).unwrap().meta.annotations();
    let delete = meta("delete_file");
    assert_eq!((delete.destructive_hint, delete.read_only_hint), (Some(true), Some(false)));
    assert_eq!(meta("create_folder").destructive_hint, Some(false));
    assert_eq!(meta("create_folder").idempotent_hint, Some(false));
    assert_eq!(meta("rename_file").idempotent_hint, Some(true));
    assert_eq!(meta("download_file").read_only_hint, Some(false));
    assert_eq!(meta("list_files").read_only_hint, Some(true));
    assert_eq!(meta("upload_file").destructive_hint, Some(false));
}

#[tokio::test]
async fn a_service_account_is_told_why_it_cannot_store_files_in_my_drive() {
    let sa = Identity::service_account(SERVICE_ACCOUNT);
    let mut shared = String::new();
    let h = Harness::acting_as(sa.clone(), |google, _| {
        shared = google.world().drive.create_shared_drive("Robots", &sa);
    })
    .await;
    let message = h.err("upload_file", json!({ "name": "note.txt", "content": "hi" })).await;
    assert!(message.contains("no Drive storage of its own"), "{message}");
    assert!(message.contains("shared drive"), "{message}");
    assert!(h.google.world().drive.ids().is_empty());

    // Into a shared drive it works.
    let made = h.ok("upload_file", json!({ "name": "note.txt", "content": "hi", "folder_id": shared })).await;
    let id = made["id"].as_str().unwrap();
    assert_eq!(h.google.world().drive.get(id).unwrap().content.as_deref(), Some(&b"hi"[..]));
    let quota = h.ok("get_storage_quota", json!({})).await;
    assert_eq!(quota["account"], json!(SERVICE_ACCOUNT));
}

#[tokio::test]
async fn restoring_a_file_in_a_trashed_folder_says_the_folder_is_trashed() {
    let h = Harness::new().await;
    let (folder, blob) = {
        let mut world = h.google.world();
        let folder = world.drive.create_folder("Old", None, &h.owner());
        let blob = world.drive.create_blob("x.txt", "text/plain", Vec::new(), Some(&folder), &h.owner());
        (folder, blob)
    };
    h.ok("delete_file", json!({ "file_id": blob })).await;
    h.ok("delete_file", json!({ "file_id": folder })).await;
    let restored = h.ok("restore_file", json!({ "file_id": blob })).await;
    assert_eq!(restored["trashed"], json!(true), "{restored}");
    assert!(restored["message"].as_str().unwrap().contains("folder"));
    assert!(!h.google.world().drive.get(&blob).unwrap().explicitly_trashed);
    let restored = h.ok("restore_file", json!({ "file_id": folder })).await;
    assert_eq!(restored["trashed"], json!(false));
}
