//! Content in and out of Drive against the emulator: export_file (inline text, the response cap before and
//! after downloading), download_file (bytes on disk, confinement), upload_file and upload_local_file
//! (bytes in the emulator, conversion, skip_if_exists, resumable uploads).

use crate::drive_common;
use crate::support;

use drive_common::with_default_folder;
use serde_json::json;
use support::Harness;

const DOC: &str = "application/vnd.google-apps.document";
const SHEET: &str = "application/vnd.google-apps.spreadsheet";

/// Writes `name` into the export folder, where upload_local_file looks for relative paths.
fn write_export(h: &Harness, name: &str, contents: impl AsRef<[u8]>) {
    let exports = h.home.path().join("exports");
    std::fs::create_dir_all(&exports).unwrap();
    std::fs::write(exports.join(name), contents).unwrap();
}

fn budget(h: &Harness) -> String {
    h.google.world().create_spreadsheet(
        "Budget",
        &[("Q1", vec![vec![json!("item"), json!("cost")], vec![json!("paper"), json!(12)]])],
        &h.owner(),
    )
}

#[tokio::test]
async fn export_file_returns_a_spreadsheet_as_csv() {
    let h = Harness::new().await;
    let id = budget(&h);
    let exported = h.ok("export_file", json!({ "file_id": id, "export_format": "csv" })).await;
    assert_eq!(exported["name"], json!("Budget"));
    assert_eq!(exported["format"], json!("text/csv"));
    assert_eq!(exported["content"].as_str().unwrap().replace("\r\n", "\n").trim_end(), "item,cost\npaper,12");
}

#[tokio::test]
async fn export_file_refuses_binary_formats_and_points_to_download_file() {
    let h = Harness::new().await;
    let id = budget(&h);
    let message = h.err("export_file", json!({ "file_id": id, "export_format": "xlsx" })).await;
    assert!(message.contains("download_file"), "{message}");
    let message = h.err("export_file", json!({ "file_id": id, "export_format": "markdown" })).await;
    assert!(message.contains("csv"), "lists what Drive offers: {message}");
    let pdf = h.google.world().drive.create_blob("scan.pdf", "application/pdf", b"%PDF-1.7".to_vec(), None, &h.owner());
    let message = h.err("export_file", json!({ "file_id": pdf, "export_format": "txt" })).await;
    assert!(message.contains("download_file"), "{message}");
}

#[tokio::test]
async fn export_file_returns_a_text_file_as_stored() {
    let h = Harness::new().await;
    let id = h.google.world().drive.create_blob(
        "notes.md",
        "text/markdown",
        "# Hi\nnaïve".as_bytes().to_vec(),
        None,
        &h.owner(),
    );
    let exported = h.ok("export_file", json!({ "file_id": id, "export_format": "markdown" })).await;
    assert_eq!(exported["content"], json!("# Hi\nnaïve"));
    assert!(exported.get("note").is_none());
    let as_txt = h.ok("export_file", json!({ "file_id": id, "export_format": "txt" })).await;
    assert!(as_txt["note"].as_str().unwrap().contains("as it is stored"));
}

#[tokio::test]
async fn an_oversized_text_file_is_refused_before_it_is_downloaded() {
    let h = Harness::with_config(|c| c.max_response_chars = 1000).await;
    let id = h.google.world().drive.create_blob("big.txt", "text/plain", vec![b'a'; 10_000], None, &h.owner());
    h.google.world().requests.clear();
    let message = h.err("export_file", json!({ "file_id": id, "export_format": "txt" })).await;
    assert!(message.contains("at least 2,500"), "{message}");
    assert!(message.contains("download_file"), "{message}");
    assert_eq!(h.google.world().count_requests(&format!("/drive/v3/files/{id}")), 1, "metadata only, no download");
}

#[tokio::test]
async fn an_oversized_export_is_refused_after_the_export() {
    let h = Harness::with_config(|c| c.max_response_chars = 200).await;
    let rows: Vec<Vec<serde_json::Value>> = (0..100).map(|i| vec![json!(format!("row {i}")), json!(i)]).collect();
    let id = h.google.world().create_spreadsheet("Long", &[("Data", rows)], &h.owner());
    let message = h.err("export_file", json!({ "file_id": id, "export_format": "csv" })).await;
    assert!(message.contains("over the limit of 200"), "{message}");
    assert!(message.contains("download_file"), "{message}");
}

#[tokio::test]
async fn download_file_writes_the_bytes_to_disk() {
    let h = Harness::new().await;
    let bytes: Vec<u8> = (0..=255).collect();
    let id =
        h.google.world().drive.create_blob("photo.bin", "application/octet-stream", bytes.clone(), None, &h.owner());
    let saved = h.ok("download_file", json!({ "file_id": id, "local_path": "downloads/photo.bin" })).await;
    let path = saved["local_path"].as_str().unwrap();
    assert!(path.ends_with("exports/downloads/photo.bin"), "{path}");
    assert_eq!(std::fs::read(path).unwrap(), bytes);
    assert_eq!(saved["bytes"], json!(256));
    assert_eq!(saved["replaced_existing_file"], json!(false));
    let again = h.ok("download_file", json!({ "file_id": id, "local_path": "downloads/photo.bin" })).await;
    assert_eq!(again["replaced_existing_file"], json!(true));
}

#[tokio::test]
async fn download_file_into_a_folder_uses_the_drive_name_and_exports_google_files() {
    let h = Harness::new().await;
    let id = budget(&h);
    let saved = h.ok("download_file", json!({ "file_id": id, "local_path": "sheets/", "export_format": "csv" })).await;
    let path = saved["local_path"].as_str().unwrap();
    assert!(path.ends_with("sheets/Budget.csv"), "{path}");
    assert_eq!(std::fs::read_to_string(path).unwrap().replace("\r\n", "\n").trim_end(), "item,cost\npaper,12");
    assert_eq!(saved["format"], json!("text/csv"));
}

#[tokio::test]
async fn download_file_refuses_paths_outside_the_allowed_folders_before_any_call() {
    let h = Harness::new().await;
    let id = h.google.world().drive.create_blob("a.txt", "text/plain", b"a".to_vec(), None, &h.owner());
    h.google.world().requests.clear();
    let outside = h.home.path().join("elsewhere.txt");
    let message = h.err("download_file", json!({ "file_id": id, "local_path": outside.to_str().unwrap() })).await;
    assert!(message.contains("outside the folders"), "{message}");
    let message = h.err("download_file", json!({ "file_id": id, "local_path": "../../escape.txt" })).await;
    assert!(message.contains("outside the folders"), "{message}");
    assert_eq!(h.google.world().requests.len(), 0);
    assert!(!outside.exists());
}

#[tokio::test]
async fn download_file_may_write_into_gatehouse_local_roots() {
    let roots = tempfile::tempdir().unwrap();
    let root = roots.path().to_path_buf();
    let h = Harness::with_config(|config| config.local_roots = vec![root.clone()]).await;
    let id = h.google.world().drive.create_blob("a.txt", "text/plain", b"allowed".to_vec(), None, &h.owner());
    let target = roots.path().join("a.txt");
    h.ok("download_file", json!({ "file_id": id, "local_path": target.to_str().unwrap() })).await;
    assert_eq!(std::fs::read(&target).unwrap(), b"allowed");
}

#[tokio::test]
async fn upload_file_stores_the_content() {
    let h = Harness::new().await;
    let folder = h.google.world().drive.create_folder("Notes", None, &h.owner());
    let made = h
        .ok(
            "upload_file",
            json!({ "name": "todo.csv", "content": "a,b\n1,2\n", "source_format": "csv", "folder_id": folder }),
        )
        .await;
    let id = made["id"].as_str().unwrap();
    assert_eq!(made["bytes_uploaded"], json!(8));
    assert_eq!(made["converted"], json!(false));
    let world = h.google.world();
    let file = world.drive.get(id).unwrap();
    assert_eq!(file.name, "todo.csv");
    assert_eq!(file.mime_type, "text/csv");
    assert_eq!(file.parent.as_deref(), Some(folder.as_str()));
    assert_eq!(file.content.as_deref(), Some(&b"a,b\n1,2\n"[..]));
}

#[tokio::test]
async fn upload_file_converts_to_a_google_doc() {
    let (h, default) = with_default_folder().await;
    let made = h
        .ok("upload_file", json!({ "name": "Plan", "content": "# Plan\n\nShip it.", "source_format": "markdown", "convert_to_doc": true }))
        .await;
    let id = made["id"].as_str().unwrap();
    assert_eq!(made["converted"], json!(true));
    assert_eq!(made["mime_type"], json!(DOC));
    let world = h.google.world();
    let file = world.drive.get(id).unwrap();
    assert_eq!(file.mime_type, DOC);
    assert_eq!(file.parent.as_deref(), Some(default.as_str()));
}

#[tokio::test]
async fn upload_file_refuses_unknown_formats_and_impossible_conversions() {
    let h = Harness::new().await;
    let message = h.err("upload_file", json!({ "name": "x", "content": "x", "source_format": "docx" })).await;
    assert!(message.contains("markdown"), "{message}");
    let message = h
        .err("upload_file", json!({ "name": "x", "content": "a,b", "source_format": "csv", "convert_to_doc": true }))
        .await;
    assert!(message.contains("Google Doc"), "{message}");
    assert!(h.google.world().drive.ids().is_empty());
}

#[tokio::test]
async fn upload_local_file_uploads_once_and_skips_the_second_time() {
    let h = Harness::new().await;
    let folder = h.google.world().drive.create_folder("In", None, &h.owner());
    write_export(&h, "data.json", br#"{"a":1}"#);
    let made = h.ok("upload_local_file", json!({ "local_path": "data.json", "parent_folder_id": folder })).await;
    assert_eq!(made["skipped"], json!(false));
    let id = made["id"].as_str().unwrap().to_owned();
    {
        let world = h.google.world();
        let file = world.drive.get(&id).unwrap();
        assert_eq!(file.name, "data.json");
        assert_eq!(file.mime_type, "application/json");
        assert_eq!(file.content.as_deref(), Some(&br#"{"a":1}"#[..]));
        assert_eq!(file.parent.as_deref(), Some(folder.as_str()));
    }
    let again = h.ok("upload_local_file", json!({ "local_path": "data.json", "parent_folder_id": folder })).await;
    assert_eq!(again["skipped"], json!(true));
    assert_eq!(again["id"], json!(id));
    assert_eq!(h.google.world().drive.ids().len(), 2, "the folder and one file");
    let third = h
        .ok("upload_local_file", json!({ "local_path": "data.json", "parent_folder_id": folder, "skip_if_exists": false, "name": "copy.json" }))
        .await;
    assert_eq!(third["name"], json!("copy.json"));
    assert_eq!(h.google.world().drive.ids().len(), 3);
}

#[tokio::test]
async fn upload_local_file_converts_csv_into_a_spreadsheet() {
    let h = Harness::new().await;
    let folder = h.google.world().drive.create_folder("In", None, &h.owner());
    write_export(&h, "sales.csv", "region,total\nnorth,5\n");
    let made = h
        .ok("upload_local_file", json!({ "local_path": "sales.csv", "parent_folder_id": folder, "convert": true }))
        .await;
    assert_eq!(made["name"], json!("sales"));
    assert_eq!(made["mime_type"], json!(SHEET));
    {
        let world = h.google.world();
        let file = world.drive.get(made["id"].as_str().unwrap()).unwrap();
        assert_eq!(file.mime_type, SHEET);
        assert_eq!(file.parent.as_deref(), Some(folder.as_str()));
    }
    write_export(&h, "photo.png", [0x89, b'P', b'N', b'G']);
    let message = h
        .err("upload_local_file", json!({ "local_path": "photo.png", "parent_folder_id": folder, "convert": true }))
        .await;
    assert!(message.contains("cannot convert"), "{message}");
}

#[tokio::test]
async fn upload_local_file_refuses_files_outside_the_allowed_folders() {
    let h = Harness::new().await;
    let folder = h.google.world().drive.create_folder("In", None, &h.owner());
    let secret = h.home.path().join("secret.txt");
    std::fs::write(&secret, "no").unwrap();
    let message =
        h.err("upload_local_file", json!({ "local_path": secret.to_str().unwrap(), "parent_folder_id": folder })).await;
    assert!(message.contains("outside the folders"), "{message}");
    assert_eq!(h.google.world().drive.ids().len(), 1);
}

#[tokio::test]
async fn a_large_local_file_goes_through_a_resumable_upload() {
    let h = Harness::new().await;
    let folder = h.google.world().drive.create_folder("Big", None, &h.owner());
    let bytes: Vec<u8> = (0..6 * 1024 * 1024).map(|i| (i % 251) as u8).collect();
    write_export(&h, "big.bin", &bytes);
    h.google.world().requests.clear();
    let made = h
        .ok(
            "upload_local_file",
            json!({ "local_path": "big.bin", "parent_folder_id": folder, "skip_if_exists": false }),
        )
        .await;
    let id = made["id"].as_str().unwrap();
    let world = h.google.world();
    assert_eq!(world.drive.get(id).unwrap().content.as_deref(), Some(&bytes[..]));
    assert_eq!(world.count_requests("/upload/drive/v3/files"), 2, "open the session, then send the bytes");
}
