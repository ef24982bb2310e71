//! Whole folders between the disk and Drive against the emulator: upload_local_folder (the tree recreated,
//! system files left out, same-name files skipped or not, conversion) and download_folder (the tree saved,
//! Google files exported, filters, skip_if_exists), and download_folder's MCP progress notifications
//! through a real rmcp client.

use crate::support;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use gatehouse_core::mcp::McpServer;
use rmcp::model::{CallToolRequestParams, ProgressNotificationParam};
use rmcp::service::NotificationContext;
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::{Value, json};
use support::Harness;
use tokio::sync::mpsc;

const DOC: &str = "application/vnd.google-apps.document";
const SHEET: &str = "application/vnd.google-apps.spreadsheet";
const FOLDER: &str = "application/vnd.google-apps.folder";

fn exports(h: &Harness) -> PathBuf {
    let dir = h.home.path().join("exports");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Writes `files` (relative path → content) under `root`, making folders as needed.
fn write_tree(root: &Path, files: &[(&str, &[u8])]) {
    for (path, content) in files {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, content).unwrap();
    }
}

/// What the emulator holds directly in `folder` (not trashed): (name, MIME type, id), by name.
fn children(h: &Harness, folder: &str) -> Vec<(String, String, String)> {
    let world = h.google.world();
    let mut found: Vec<(String, String, String)> = world
        .drive
        .ids()
        .into_iter()
        .filter_map(|id| world.drive.get(&id).cloned())
        .filter(|f| f.parent.as_deref() == Some(folder) && !f.explicitly_trashed)
        .map(|f| (f.name, f.mime_type, f.id))
        .collect();
    found.sort();
    found
}

fn names(listing: &[(String, String, String)]) -> Vec<&str> {
    listing.iter().map(|(name, _, _)| name.as_str()).collect()
}

fn id_of<'a>(listing: &'a [(String, String, String)], name: &str) -> &'a str {
    &listing.iter().find(|(n, _, _)| n == name).unwrap_or_else(|| panic!("{name} not in {listing:?}")).2
}

fn content(h: &Harness, id: &str) -> Vec<u8> {
    h.google.world().drive.get(id).and_then(|f| f.content.clone()).unwrap_or_default()
}

/// The outcome the result reports for the file at `path`.
fn outcome<'a>(result: &'a Value, path: &str) -> &'a Value {
    result["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["path"] == json!(path))
        .unwrap_or_else(|| panic!("{path} not reported in {result:#}"))
}

#[tokio::test]
async fn upload_local_folder_recreates_the_tree_without_system_files_and_skips_existing_names() {
    let h = Harness::new().await;
    let project = exports(&h).join("Project");
    write_tree(
        &project,
        &[
            ("readme.md", b"# Read me"),
            ("data/sales.csv", b"region,total\nnorth,5\n"),
            ("data/deep/photo.png", &[0x89, b'P', b'N', b'G']),
            (".DS_Store", b"junk"),
            ("._readme.md", b"fork"),
            ("data/Thumbs.db", b"junk"),
            (".git/HEAD", b"ref: refs/heads/main"),
        ],
    );
    std::fs::create_dir_all(project.join("empty")).unwrap();
    // Drive already has the folder, holding a readme.md of its own.
    let (dest, existing_project, existing_readme) = {
        let mut world = h.google.world();
        let dest = world.drive.create_folder("Dest", None, &h.owner());
        let project = world.drive.create_folder("Project", Some(&dest), &h.owner());
        let readme = world.drive.create_blob("readme.md", "text/markdown", b"old".to_vec(), Some(&project), &h.owner());
        (dest, project, readme)
    };

    let result = h.ok("upload_local_folder", json!({ "local_path": "Project", "parent_folder_id": dest })).await;
    assert_eq!(result["folder_id"], json!(existing_project), "the folder of that name is reused");
    assert_eq!(result["folder_created"], json!(false));
    assert_eq!((result["uploaded"].as_u64(), result["failed"].as_u64()), (Some(2), Some(0)), "{result:#}");
    assert_eq!(result["skipped"], json!(5), "readme.md and four system entries: {result:#}");
    assert_eq!(outcome(&result, "readme.md")["outcome"], json!("skipped"));
    assert!(outcome(&result, "readme.md")["reason"].as_str().unwrap().contains("already has"));
    for system in [".DS_Store", "._readme.md", "data/Thumbs.db", ".git"] {
        assert_eq!(outcome(&result, system)["reason"], json!("a system file"), "{system}");
    }

    assert_eq!(names(&children(&h, &dest)), ["Project"]);
    let top = children(&h, &existing_project);
    assert_eq!(names(&top), ["data", "empty", "readme.md"]);
    assert_eq!(id_of(&top, "readme.md"), existing_readme);
    assert_eq!(content(&h, &existing_readme), b"old", "the existing file is left alone");
    assert_eq!(top.iter().filter(|(_, m, _)| m == FOLDER).count(), 2);
    assert!(children(&h, id_of(&top, "empty")).is_empty());
    let data = children(&h, id_of(&top, "data"));
    assert_eq!(names(&data), ["deep", "sales.csv"]);
    let sales = data.iter().find(|(n, _, _)| n == "sales.csv").unwrap();
    assert_eq!(sales.1, "text/csv");
    assert_eq!(content(&h, &sales.2), b"region,total\nnorth,5\n");
    let deep = children(&h, id_of(&data, "deep"));
    assert_eq!(deep.iter().map(|(n, m, _)| (n.as_str(), m.as_str())).collect::<Vec<_>>(), [("photo.png", "image/png")]);
    assert_eq!(content(&h, &deep[0].2), [0x89, b'P', b'N', b'G']);

    // With skip_system_files=false the system files go up too (the .git folder as a folder).
    let again = h
        .ok(
            "upload_local_folder",
            json!({ "local_path": "Project", "parent_folder_id": dest, "skip_system_files": false }),
        )
        .await;
    assert_eq!(again["uploaded"], json!(4), "{again:#}");
    assert_eq!(
        names(&children(&h, &existing_project)),
        [".DS_Store", "._readme.md", ".git", "data", "empty", "readme.md"]
    );
}

#[tokio::test]
async fn upload_local_folder_converts_and_uploads_copies_when_asked() {
    let h = Harness::new().await;
    write_tree(
        &exports(&h).join("Notes"),
        &[("plan.md", b"# Plan\n\nShip it."), ("sales.csv", b"region,total\nnorth,5\n"), ("logo.png", b"PNG")],
    );
    let dest = h.google.world().drive.create_folder("Dest", None, &h.owner());
    let args = json!({ "local_path": "Notes", "parent_folder_id": dest, "convert": true });
    let result = h.ok("upload_local_folder", args.clone()).await;
    assert_eq!(result["folder_created"], json!(true));
    assert_eq!(result["uploaded"], json!(3), "{result:#}");
    let folder = result["folder_id"].as_str().unwrap().to_owned();
    let listing = children(&h, &folder);
    let kinds: Vec<(&str, &str)> = listing.iter().map(|(n, m, _)| (n.as_str(), m.as_str())).collect();
    assert_eq!(kinds, [("logo.png", "image/png"), ("plan", DOC), ("sales", SHEET)]);
    assert_eq!(outcome(&result, "plan.md")["converted"], json!(true));
    assert_eq!(outcome(&result, "logo.png")["converted"], json!(false));
    let sheet = id_of(&listing, "sales");
    {
        let world = h.google.world();
        let first = world.sheets.sheet_titles(sheet).into_iter().next().unwrap();
        assert_eq!(world.sheets.values(sheet, &first).len(), 2, "the CSV became rows");
    }

    // Again with skip_if_exists: everything is there already.
    let skipped = h.ok("upload_local_folder", args.clone()).await;
    assert_eq!((skipped["uploaded"].as_u64(), skipped["skipped"].as_u64()), (Some(0), Some(3)), "{skipped:#}");
    assert_eq!(children(&h, &folder).len(), 3);
    // Without it: a second copy of each file, in the same folder (folders are never duplicated).
    let mut copies = args;
    copies["skip_if_exists"] = json!(false);
    let copied = h.ok("upload_local_folder", copies).await;
    assert_eq!(copied["uploaded"], json!(3));
    assert_eq!(copied["folder_id"], json!(folder));
    assert_eq!(names(&children(&h, &dest)), ["Notes"]);
    assert_eq!(names(&children(&h, &folder)), ["logo.png", "logo.png", "plan", "plan", "sales", "sales"]);
}

#[tokio::test]
async fn upload_local_folder_refuses_bad_paths_and_targets_before_uploading() {
    let h = Harness::new().await;
    let dest = h.google.world().drive.create_folder("Dest", None, &h.owner());
    write_tree(&exports(&h), &[("single.txt", b"one file")]);
    let before = h.google.world().drive.ids().len();

    let message = h.err("upload_local_folder", json!({ "local_path": "missing", "parent_folder_id": dest })).await;
    assert!(message.contains("does not exist"), "{message}");
    let message = h.err("upload_local_folder", json!({ "local_path": "single.txt", "parent_folder_id": dest })).await;
    assert!(message.contains("is a file, not a folder") && message.contains("upload_local_file"), "{message}");
    let outside = h.home.path().join("private");
    std::fs::create_dir_all(&outside).unwrap();
    let message = h
        .err("upload_local_folder", json!({ "local_path": outside.to_str().unwrap(), "parent_folder_id": dest }))
        .await;
    assert!(message.contains("outside the folders"), "{message}");
    std::fs::create_dir_all(exports(&h).join("Real")).unwrap();
    let file = h.google.world().drive.create_blob("a.txt", "text/plain", b"a".to_vec(), None, &h.owner());
    let message = h.err("upload_local_folder", json!({ "local_path": "Real", "parent_folder_id": file })).await;
    assert!(message.contains("not a folder"), "{message}");
    assert_eq!(h.google.world().drive.ids().len(), before + 1, "only the test's own file was added");
}

/// A Drive folder "Reports": scan.pdf, the doc "Plan", the subfolder "Numbers" holding the sheet "Budget" and
/// an empty folder "Later", and a trashed file. Returns the folder's id.
fn reports(h: &Harness) -> String {
    let owner = h.owner();
    let mut world = h.google.world();
    let reports = world.drive.create_folder("Reports", None, &owner);
    world.drive.create_blob("scan.pdf", "application/pdf", b"%PDF-1.7 scan".to_vec(), Some(&reports), &owner);
    let plan = world.create_document("Plan", "Ship it", &owner);
    world.drive.set_parent(&plan, &reports);
    let numbers = world.drive.create_folder("Numbers", Some(&reports), &owner);
    world.drive.create_folder("Later", Some(&numbers), &owner);
    let budget = world.create_spreadsheet(
        "Budget",
        &[("Q1", vec![vec![json!("item"), json!("cost")], vec![json!("paper"), json!(12)]])],
        &owner,
    );
    world.drive.set_parent(&budget, &numbers);
    let gone = world.drive.create_blob("old.txt", "text/plain", b"old".to_vec(), Some(&reports), &owner);
    world.drive.get_mut(&gone).unwrap().explicitly_trashed = true;
    reports
}

fn read(path: impl AsRef<Path>) -> String {
    std::fs::read_to_string(path).unwrap().replace("\r\n", "\n")
}

#[tokio::test]
async fn download_folder_saves_the_tree_and_exports_google_files() {
    let h = Harness::new().await;
    let folder = reports(&h);
    let result =
        h.ok("download_folder", json!({ "folder_id": folder, "local_path": "as-md", "export_format": "md" })).await;
    let root = exports(&h).join("as-md");
    assert_eq!(std::fs::read(root.join("scan.pdf")).unwrap(), b"%PDF-1.7 scan");
    assert_eq!(read(root.join("Plan.md")).trim_end(), "Ship it");
    assert!(root.join("Numbers/Later").is_dir(), "empty folders are made too");
    assert!(!root.join("old.txt").exists(), "trashed files are left out");
    assert_eq!(outcome(&result, "Plan.md")["format"], json!("text/markdown"));
    // A sheet offers no Markdown: it falls back to xlsx, which the emulator cannot produce; that one file
    // fails and the rest are saved.
    let budget = outcome(&result, "Numbers/Budget.xlsx");
    assert_eq!(budget["outcome"], json!("failed"));
    assert!(!budget["reason"].as_str().unwrap().is_empty(), "{budget}");
    assert!(!root.join("Numbers/Budget.xlsx").exists());
    assert_eq!((result["downloaded"].as_u64(), result["failed"].as_u64()), (Some(2), Some(1)), "{result:#}");
    assert_eq!(result["bytes"], json!(13 + std::fs::metadata(root.join("Plan.md")).unwrap().len()));

    let result =
        h.ok("download_folder", json!({ "folder_id": folder, "local_path": "as-csv", "export_format": "csv" })).await;
    let root = exports(&h).join("as-csv");
    assert_eq!(read(root.join("Numbers/Budget.csv")).trim_end(), "item,cost\npaper,12");
    assert_eq!(outcome(&result, "Numbers/Budget.csv")["format"], json!("text/csv"));
    assert_eq!(outcome(&result, "Plan.docx")["outcome"], json!("failed"), "docx is the doc's default");
}

#[tokio::test]
async fn download_folder_filters_by_type_and_skips_or_replaces_existing_files() {
    let h = Harness::new().await;
    let folder = reports(&h);
    let root = exports(&h).join("pdfs");
    write_tree(&root, &[("scan.pdf", b"mine")]);

    let kept =
        h.ok("download_folder", json!({ "folder_id": folder, "local_path": "pdfs", "mime_type_filter": "pdf" })).await;
    assert_eq!(kept["files"].as_array().unwrap().len(), 1, "only the PDF: {kept:#}");
    assert_eq!(outcome(&kept, "scan.pdf")["outcome"], json!("skipped"));
    assert_eq!(std::fs::read(root.join("scan.pdf")).unwrap(), b"mine");

    let replaced = h
        .ok(
            "download_folder",
            json!({ "folder_id": folder, "local_path": "pdfs", "mime_type_filter": "application/pdf", "skip_if_exists": false }),
        )
        .await;
    assert_eq!(outcome(&replaced, "scan.pdf")["outcome"], json!("downloaded"));
    assert_eq!(std::fs::read(root.join("scan.pdf")).unwrap(), b"%PDF-1.7 scan");
    assert!(!root.join("Plan.docx").exists() && root.join("Numbers").is_dir());

    let sheets = h
        .ok(
            "download_folder",
            json!({ "folder_id": folder, "local_path": "sheets", "mime_type_filter": "spreadsheet", "export_format": "csv" }),
        )
        .await;
    assert_eq!(sheets["downloaded"], json!(1));
    assert!(exports(&h).join("sheets/Numbers/Budget.csv").is_file());
    assert!(!exports(&h).join("sheets/scan.pdf").exists());
}

#[tokio::test]
async fn download_folder_refuses_bad_arguments_in_plain_words() {
    let h = Harness::new().await;
    let folder = reports(&h);
    write_tree(&exports(&h), &[("taken.txt", b"a file")]);
    h.google.world().requests.clear();
    let message =
        h.err("download_folder", json!({ "folder_id": folder, "local_path": "out", "progress_unit": "pages" })).await;
    assert!(message.contains("progress_unit \"pages\"") && message.contains("\"bytes\""), "{message}");
    let message =
        h.err("download_folder", json!({ "folder_id": folder, "local_path": "out", "export_format": "docz" })).await;
    assert!(message.contains("export_format \"docz\""), "{message}");
    let message = h.err("download_folder", json!({ "folder_id": folder, "local_path": "taken.txt" })).await;
    assert!(message.contains("is a file, not a folder"), "{message}");
    let outside = h.home.path().join("elsewhere");
    let message =
        h.err("download_folder", json!({ "folder_id": folder, "local_path": outside.to_str().unwrap() })).await;
    assert!(message.contains("outside the folders"), "{message}");
    assert_eq!(h.google.world().requests.len(), 0, "refused before any Google call");
    let pdf = children(&h, &folder).into_iter().find(|(n, _, _)| n == "scan.pdf").unwrap().2;
    let message = h.err("download_folder", json!({ "folder_id": pdf, "local_path": "out" })).await;
    assert!(message.contains("not a folder") && message.contains("scan.pdf"), "{message}");
    assert!(!outside.exists() && !exports(&h).join("out").join("scan.pdf").exists());
}

/// A client that passes on every progress notification to the test.
struct Listener(mpsc::UnboundedSender<ProgressNotificationParam>);

impl ClientHandler for Listener {
    async fn on_progress(&self, params: ProgressNotificationParam, _: NotificationContext<RoleClient>) {
        let _ = self.0.send(params);
    }
}

fn download(folder: &str, local_path: &str, unit: &str) -> CallToolRequestParams {
    let args = json!({ "folder_id": folder, "local_path": local_path, "progress_unit": unit });
    let Value::Object(args) = args else { unreachable!() };
    CallToolRequestParams::new("download_folder").with_arguments(args)
}

/// The next `count` notifications heard.
async fn next_steps(
    heard: &mut mpsc::UnboundedReceiver<ProgressNotificationParam>,
    count: usize,
) -> Vec<ProgressNotificationParam> {
    let mut steps = Vec::new();
    while steps.len() < count {
        steps.push(tokio::time::timeout(std::time::Duration::from_secs(5), heard.recv()).await.unwrap().unwrap());
    }
    steps
}

/// A Drive folder "Photos" holding a.jpg, b.jpg and c.jpg of 3, 5 and 7 bytes.
fn photos(h: &Harness) -> String {
    let folder = h.google.world().drive.create_folder("Photos", None, &h.owner());
    for (name, size) in [("a.jpg", 3usize), ("b.jpg", 5), ("c.jpg", 7)] {
        h.google.world().drive.create_blob(name, "image/jpeg", vec![1; size], Some(&folder), &h.owner());
    }
    folder
}

/// The engine's MCP server on one end of an in-process pipe; the other end is returned.
fn serve(h: &Harness) -> tokio::io::DuplexStream {
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    let server = McpServer::new(Arc::clone(&h.engine));
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    client_io
}

#[tokio::test]
async fn download_folder_reports_progress_to_a_client_that_asks() {
    let h = Harness::new().await;
    let folder = photos(&h);
    let (tx, mut heard) = mpsc::unbounded_channel();
    // rmcp's client sends a progressToken of its own with every request.
    let client = Listener(tx).serve(serve(&h)).await.unwrap();

    let result = client.peer().call_tool(download(&folder, "photos", "files")).await.unwrap();
    assert_ne!(result.is_error, Some(true), "{result:?}");
    let steps = next_steps(&mut heard, 3).await;
    assert!(steps.iter().all(|s| s.progress_token == steps[0].progress_token && s.total == Some(3.0)), "{steps:?}");
    assert_eq!(steps.iter().map(|s| s.progress).collect::<Vec<_>>(), [1.0, 2.0, 3.0]);
    assert_eq!(steps[0].message.as_deref(), Some("downloaded a.jpg"));
    assert_eq!(steps[2].message.as_deref(), Some("downloaded c.jpg"));

    // Counted in bytes: the last step is the total of the sizes.
    client.peer().call_tool(download(&folder, "photos-bytes", "bytes")).await.unwrap();
    let steps = next_steps(&mut heard, 3).await;
    assert_eq!(steps.iter().map(|s| s.progress).collect::<Vec<_>>(), [3.0, 8.0, 15.0]);
    assert!(steps.iter().all(|s| s.total == Some(15.0)), "{steps:?}");
    assert!(tokio::time::timeout(std::time::Duration::from_millis(200), heard.recv()).await.is_err(), "no more");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn download_folder_sends_no_progress_without_a_token() {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let h = Harness::new().await;
    let folder = photos(&h);
    let (read, mut write) = tokio::io::split(serve(&h));
    let mut lines = BufReader::new(read).lines();
    let mut heard = Vec::new();
    let mut send_and_wait = async |message: Value, id: Option<u64>| {
        write.write_all(format!("{message}\n").as_bytes()).await.unwrap();
        let Some(id) = id else { return };
        loop {
            let line = tokio::time::timeout(std::time::Duration::from_secs(5), lines.next_line()).await.unwrap();
            let message: Value = serde_json::from_str(&line.unwrap().unwrap()).unwrap();
            let done = message["id"] == json!(id);
            heard.push(message);
            if done {
                return;
            }
        }
    };
    let client = json!({ "name": "raw", "version": "1" });
    let init = json!({ "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": client });
    send_and_wait(json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init }), Some(1)).await;
    send_and_wait(json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }), None).await;
    let args = json!({ "name": "download_folder", "arguments": { "folder_id": folder, "local_path": "quiet" } });
    send_and_wait(json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": args }), Some(2)).await;
    let last = heard.last().unwrap();
    assert_eq!(last["result"]["isError"], json!(false), "{last}");
    assert!(heard.iter().all(|m| m["method"] != json!("notifications/progress")), "{heard:#?}");
    assert_eq!(std::fs::read(exports(&h).join("quiet/c.jpg")).unwrap(), vec![1; 7]);
}

/// A `gatehouse serve` relaying to the user's host passes the host's progress steps on to its assistant.
#[cfg(unix)]
#[tokio::test]
async fn progress_reaches_an_assistant_through_a_relay() {
    use gatehouse_core::mcp::relay::Relay;
    let h = Harness::new().await;
    let folder = photos(&h);
    let cancel = tokio_util::sync::CancellationToken::new();
    let control = gatehouse_core::control::serve(Arc::clone(&h.engine), h.home.path(), cancel.clone()).await.unwrap();
    control.accept_relays();
    let relay = Relay::connect(h.home.path().to_owned()).await.unwrap().expect("the host");
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    let server = McpServer::with_backend(Arc::new(relay));
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    let (tx, mut heard) = mpsc::unbounded_channel();
    let client = Listener(tx).serve(client_io).await.unwrap();
    let result = client.peer().call_tool(download(&folder, "relayed", "files")).await.unwrap();
    assert_ne!(result.is_error, Some(true), "{result:?}");
    let steps = next_steps(&mut heard, 3).await;
    assert_eq!(steps.iter().map(|s| s.progress).collect::<Vec<_>>(), [1.0, 2.0, 3.0]);
    assert!(steps.iter().all(|s| s.total == Some(3.0)), "{steps:?}");
    assert_eq!(steps[1].message.as_deref(), Some("downloaded b.jpg"));
    assert_eq!(std::fs::read(exports(&h).join("relayed/b.jpg")).unwrap(), vec![1; 5]);
    client.cancel().await.unwrap();
    control.shutdown().await;
    cancel.cancel();
}
