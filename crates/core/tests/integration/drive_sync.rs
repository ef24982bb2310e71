//! sync_folder against the emulator: each direction, recursion on and off, checksums catching a change
//! that kept the modified time, conflicts reported and resolved, dry runs that change nothing, deletions
//! only with the approved plan (Drive's to the trash), a failure midway that a second run finishes with
//! nothing duplicated and nothing lost, and .md files synced with Google Docs. Both sides are checked byte
//! for byte.

use crate::support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, UNIX_EPOCH};

use chrono::DateTime;
use google_fake::Fault;
use serde_json::{Value, json};
use support::Harness;

/// A fixed past time, so tests set every modified time they compare.
const T0: i64 = 1_750_000_000_000;
const HOUR: i64 = 3_600_000;

struct Setup {
    h: Harness,
    folder: String,
    local: PathBuf,
}

/// A harness, an empty Drive folder "Synced" and an empty local folder `exports/sync`.
async fn setup() -> Setup {
    let h = Harness::new().await;
    let folder = h.google.world().drive.create_folder("Synced", None, &h.owner());
    let local = h.home.path().join("exports").join("sync");
    std::fs::create_dir_all(&local).unwrap();
    Setup { h, folder, local }
}

impl Setup {
    fn args(&self, extra: Value) -> Value {
        let mut args = json!({ "folder_id": self.folder, "local_path": "sync" });
        if let (Some(args), Some(extra)) = (args.as_object_mut(), extra.as_object()) {
            args.extend(extra.clone());
        }
        args
    }

    async fn sync(&self, extra: Value) -> Value {
        self.h.ok("sync_folder", self.args(extra)).await
    }

    async fn sync_err(&self, extra: Value) -> String {
        self.h.err("sync_folder", self.args(extra)).await
    }

    /// Writes a local file with a modified time.
    fn put_local(&self, rel: &str, bytes: &[u8], mtime: i64) {
        let path = self.local.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, bytes).unwrap();
        set_mtime(&path, mtime);
    }

    /// Every local file under the sync folder, by relative path, with its bytes.
    fn local_files(&self) -> BTreeMap<String, Vec<u8>> {
        let mut out = BTreeMap::new();
        walk(&self.local, &self.local, &mut out);
        out
    }

    /// A blob in the Drive folder `parent` with a modified time.
    fn put_drive(&self, parent: &str, name: &str, bytes: &[u8], mtime: i64) -> String {
        let mut world = self.h.google.world();
        let id = world.drive.create_blob(name, "text/plain", bytes.to_vec(), Some(parent), &self.h.owner());
        world.drive.get_mut(&id).unwrap().modified_time = DateTime::from_timestamp_millis(mtime).unwrap();
        id
    }

    /// Changes a Drive blob's content and modified time, as an edit in Drive would.
    fn edit_drive(&self, id: &str, bytes: &[u8], mtime: i64) {
        let mut world = self.h.google.world();
        let file = world.drive.get_mut(id).unwrap();
        file.content = Some(bytes.to_vec());
        file.modified_time = DateTime::from_timestamp_millis(mtime).unwrap();
    }

    /// The files (not folders) under a Drive folder, recursively, by path: (id, bytes, trashed).
    fn drive_files(&self) -> BTreeMap<String, (String, Vec<u8>, bool)> {
        let world = self.h.google.world();
        let mut out = BTreeMap::new();
        let mut pending = vec![(String::new(), self.folder.clone())];
        while let Some((prefix, folder)) = pending.pop() {
            for id in world.drive.ids() {
                let file = world.drive.get(&id).unwrap();
                if file.parent.as_deref() != Some(folder.as_str()) {
                    continue;
                }
                let path = format!("{prefix}{}", file.name);
                if file.mime_type == "application/vnd.google-apps.folder" {
                    pending.push((format!("{path}/"), id.clone()));
                } else {
                    let previous = out.insert(
                        path.clone(),
                        (id.clone(), file.content.clone().unwrap_or_default(), file.explicitly_trashed),
                    );
                    assert!(previous.is_none(), "Drive holds {path} twice");
                }
            }
        }
        out
    }

    /// The Drive files not in the trash, by path, with their bytes.
    fn live_drive(&self) -> BTreeMap<String, Vec<u8>> {
        self.drive_files().into_iter().filter(|(_, (_, _, trashed))| !trashed).map(|(p, (_, b, _))| (p, b)).collect()
    }

    fn drive_mtime(&self, id: &str) -> i64 {
        self.h.google.world().drive.get(id).unwrap().modified_time.timestamp_millis()
    }

    /// How many writes (anything but GET) reached the emulator.
    fn writes(&self) -> usize {
        self.h.google.world().requests.iter().filter(|r| r.method != "GET").count()
    }
}

fn set_mtime(path: &Path, ms: i64) {
    let file = std::fs::File::options().write(true).open(path).unwrap();
    file.set_modified(UNIX_EPOCH + Duration::from_millis(u64::try_from(ms).unwrap())).unwrap();
}

fn mtime(path: &Path) -> i64 {
    let modified = std::fs::metadata(path).unwrap().modified().unwrap();
    i64::try_from(modified.duration_since(UNIX_EPOCH).unwrap().as_millis()).unwrap()
}

fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            walk(root, &path, out);
        } else {
            let rel = path.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/");
            out.insert(rel, std::fs::read(&path).unwrap());
        }
    }
}

fn map(entries: &[(&str, &[u8])]) -> BTreeMap<String, Vec<u8>> {
    entries.iter().map(|(k, v)| ((*k).to_owned(), v.to_vec())).collect()
}

/// The item for `path` in a result's items.
fn item<'a>(result: &'a Value, path: &str) -> &'a Value {
    let items = result["items"].as_array().unwrap_or_else(|| panic!("no items in {result}"));
    items.iter().find(|i| i["path"] == json!(path)).unwrap_or_else(|| panic!("no item {path} in {result}"))
}

fn actions(result: &Value) -> BTreeMap<String, String> {
    result["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| (i["path"].as_str().unwrap().to_owned(), i["action"].as_str().unwrap().to_owned()))
        .collect()
}

#[tokio::test]
async fn upload_copies_local_files_once_top_level_unless_recursive() {
    let s = setup().await;
    s.put_local("a.txt", b"alpha", T0);
    s.put_local("sub/deep/b.txt", b"beta", T0 + 1000);
    s.put_local(".DS_Store", b"junk", T0);

    let first = s.sync(json!({ "direction": "upload" })).await;
    assert_eq!(first["summary"]["done"], json!(1), "{first}");
    assert_eq!(s.live_drive(), map(&[("a.txt", b"alpha")]), "top level only, no system file");
    let (id, _, _) = s.drive_files()["a.txt"].clone();
    assert_eq!(s.drive_mtime(&id), T0, "Drive keeps the local modified time");

    let again = s.sync(json!({ "direction": "upload" })).await;
    assert_eq!(again["summary"]["done"], json!(0), "{again}");
    assert_eq!(again["summary"]["in_sync"], json!(1));
    assert!(again["message"].as_str().unwrap().contains("Already in sync"), "{again}");

    let deep = s.sync(json!({ "direction": "upload", "recursive": true })).await;
    assert_eq!(deep["summary"]["done"], json!(1), "{deep}");
    assert_eq!(s.live_drive(), map(&[("a.txt", b"alpha"), ("sub/deep/b.txt", b"beta")]));
    // The local side is untouched by an upload.
    assert_eq!(s.local_files(), map(&[(".DS_Store", b"junk"), ("a.txt", b"alpha"), ("sub/deep/b.txt", b"beta")]));
}

#[tokio::test]
async fn download_fills_a_new_folder_exporting_google_files() {
    let s = setup().await;
    let blob = s.put_drive(&s.folder, "data.bin", &[0, 159, 146, 150, 255], T0);
    let sub = s.h.google.world().drive.create_folder("notes", Some(&s.folder), &s.h.owner());
    s.put_drive(&sub, "n.txt", b"in a subfolder", T0);
    let sheet = s.h.google.world().create_spreadsheet(
        "Budget",
        &[("Q1", vec![vec![json!("item"), json!("cost")], vec![json!("paper"), json!(12)]])],
        &s.h.owner(),
    );
    s.h.google.world().drive.set_parent(&sheet, &s.folder);

    let args = json!({ "folder_id": s.folder, "local_path": "fresh", "direction": "download", "export_format": "csv" });
    let result = s.h.ok("sync_folder", args.clone()).await;
    assert_eq!(result["summary"]["done"], json!(2), "{result}");
    let fresh = s.h.home.path().join("exports").join("fresh");
    assert_eq!(std::fs::read(fresh.join("data.bin")).unwrap(), [0, 159, 146, 150, 255]);
    let csv = std::fs::read_to_string(fresh.join("Budget.csv")).unwrap();
    assert_eq!(csv.replace("\r\n", "\n").trim_end(), "item,cost\npaper,12");
    assert!(!fresh.join("notes").exists(), "not recursive");
    assert_eq!(mtime(&fresh.join("data.bin")), T0, "the local copy keeps Drive's modified time");

    let mut recursive = args.clone();
    recursive["recursive"] = json!(true);
    let result = s.h.ok("sync_folder", recursive.clone()).await;
    assert_eq!(actions(&result), BTreeMap::from([("notes/n.txt".to_owned(), "download".to_owned())]));
    assert_eq!(std::fs::read(fresh.join("notes/n.txt")).unwrap(), b"in a subfolder");
    let again = s.h.ok("sync_folder", recursive).await;
    assert_eq!(again["summary"]["in_sync"], json!(3), "{again}");
    assert_eq!(again["summary"]["done"], json!(0));
    // Downloading records the sync on the Drive file without changing its modified time.
    assert_eq!(s.drive_mtime(&blob), T0);
}

#[tokio::test]
async fn bidirectional_copies_what_changed_on_each_side() {
    let s = setup().await;
    s.put_local("local-only.txt", b"from disk", T0);
    s.put_drive(&s.folder, "drive-only.txt", b"from drive", T0);
    s.put_local("both.txt", b"v1", T0);
    s.put_local("edited-here.txt", b"old", T0);
    s.put_local("edited-there.txt", b"old", T0);
    let first = s.sync(json!({})).await;
    assert_eq!(first["summary"]["done"], json!(5), "{first}");
    assert_eq!(s.local_files(), s.live_drive());

    let drive = s.drive_files();
    s.put_local("edited-here.txt", b"new local text", T0 + HOUR);
    s.edit_drive(&drive["edited-there.txt"].0, b"new drive text", T0 + HOUR);
    let second = s.sync(json!({})).await;
    assert_eq!(
        actions(&second),
        BTreeMap::from([
            ("edited-here.txt".to_owned(), "update_drive".to_owned()),
            ("edited-there.txt".to_owned(), "update_local".to_owned()),
        ])
    );
    let expected = map(&[
        ("both.txt", b"v1"),
        ("drive-only.txt", b"from drive"),
        ("edited-here.txt", b"new local text"),
        ("edited-there.txt", b"new drive text"),
        ("local-only.txt", b"from disk"),
    ]);
    assert_eq!(s.local_files(), expected);
    assert_eq!(s.live_drive(), expected);
    assert_eq!(s.drive_files()["edited-here.txt"].0, drive["edited-here.txt"].0, "updated in place, same file");
    let third = s.sync(json!({})).await;
    assert_eq!(third["summary"]["in_sync"], json!(5), "{third}");
    assert_eq!(third["summary"]["done"], json!(0));
}

#[tokio::test]
async fn checksums_catch_a_change_that_kept_the_modified_time() {
    let s = setup().await;
    s.put_local("same-size.txt", b"aaaa", T0);
    s.sync(json!({})).await;
    // Same size, same modified time, different bytes.
    s.put_local("same-size.txt", b"bbbb", T0);
    let by_time = s.sync(json!({})).await;
    assert_eq!(by_time["summary"]["in_sync"], json!(1), "times alone cannot see it: {by_time}");
    assert_eq!(s.live_drive(), map(&[("same-size.txt", b"aaaa")]));

    let both_ways = s.sync(json!({ "use_checksum": true })).await;
    assert_eq!(item(&both_ways, "same-size.txt")["action"], json!("conflict"), "{both_ways}");
    assert_eq!(s.live_drive(), map(&[("same-size.txt", b"aaaa")]), "a conflict is left alone");

    let up = s.sync(json!({ "use_checksum": true, "direction": "upload" })).await;
    assert_eq!(item(&up, "same-size.txt")["action"], json!("update_drive"), "{up}");
    assert_eq!(s.live_drive(), map(&[("same-size.txt", b"bbbb")]));
    let again = s.sync(json!({ "use_checksum": true })).await;
    assert_eq!(again["summary"]["in_sync"], json!(1), "{again}");
}

#[tokio::test]
async fn conflicts_are_reported_then_resolved_as_asked() {
    let s = setup().await;
    for name in ["keep-mine.txt", "keep-theirs.txt", "skip-me.txt"] {
        s.put_local(name, b"base", T0);
    }
    s.sync(json!({})).await;
    let drive = s.drive_files();
    for name in ["keep-mine.txt", "keep-theirs.txt", "skip-me.txt"] {
        s.put_local(name, format!("local {name}").as_bytes(), T0 + HOUR);
        s.edit_drive(&drive[name].0, format!("drive {name}").as_bytes(), T0 + 2 * HOUR);
    }
    let reported = s.sync(json!({})).await;
    for name in ["keep-mine.txt", "keep-theirs.txt", "skip-me.txt"] {
        let entry = item(&reported, name);
        assert_eq!(entry["action"], json!("conflict"), "{reported}");
        assert!(entry["reason"].as_str().unwrap().contains("both sides"), "{entry}");
    }
    assert!(reported["message"].as_str().unwrap().contains("resolve.conflicts"), "{reported}");
    assert_eq!(s.local_files()["keep-mine.txt"], b"local keep-mine.txt");
    assert_eq!(s.live_drive()["keep-mine.txt"], b"drive keep-mine.txt");

    let resolve = json!({ "conflicts": {
        "keep-mine.txt": "keep_local", "keep-theirs.txt": "keep_drive", "skip-me.txt": "skip"
    } });
    let resolved = s.sync(json!({ "resolve": resolve })).await;
    assert_eq!(item(&resolved, "keep-mine.txt")["action"], json!("update_drive"), "{resolved}");
    assert_eq!(item(&resolved, "keep-theirs.txt")["action"], json!("update_local"));
    assert_eq!(item(&resolved, "skip-me.txt")["action"], json!("skip"));
    let local = s.local_files();
    let drive = s.live_drive();
    assert_eq!(local["keep-mine.txt"], b"local keep-mine.txt");
    assert_eq!(drive["keep-mine.txt"], b"local keep-mine.txt");
    assert_eq!(local["keep-theirs.txt"], b"drive keep-theirs.txt");
    assert_eq!(drive["keep-theirs.txt"], b"drive keep-theirs.txt");
    assert_eq!(local["skip-me.txt"], b"local skip-me.txt");
    assert_eq!(drive["skip-me.txt"], b"drive skip-me.txt");
}

#[tokio::test]
async fn a_dry_run_changes_nothing_on_either_side() {
    let s = setup().await;
    s.put_local("up.txt", b"up", T0);
    s.put_drive(&s.folder, "down.txt", b"down", T0);
    let (local, drive) = (s.local_files(), s.drive_files());
    let writes = s.writes();
    let plan = s.sync(json!({ "dry_run": true, "recursive": true })).await;
    assert_eq!(
        actions(&plan),
        BTreeMap::from([("down.txt".to_owned(), "download".to_owned()), ("up.txt".to_owned(), "upload".to_owned())])
    );
    assert!(plan["items"].as_array().unwrap().iter().all(|i| i["status"] == json!("planned")), "{plan}");
    assert!(plan["message"].as_str().unwrap().contains("nothing was changed"), "{plan}");
    assert_eq!(s.local_files(), local);
    assert_eq!(s.drive_files(), drive);
    assert_eq!(s.writes(), writes, "no write reached Google");
}

#[tokio::test]
async fn deletions_happen_only_with_the_approved_plan() {
    let s = setup().await;
    s.put_local("gone-here.txt", b"deleted locally later", T0);
    s.put_local("gone-there.txt", b"trashed on Drive later", T0);
    s.put_local("kept.txt", b"kept", T0);
    s.sync(json!({})).await;
    let drive = s.drive_files();
    std::fs::remove_file(s.local.join("gone-here.txt")).unwrap();
    s.h.google.world().drive.get_mut(&drive["gone-there.txt"].0).unwrap().explicitly_trashed = true;

    // Without the approved plan: reported, never done.
    let plain = s.sync(json!({})).await;
    assert_eq!(item(&plain, "gone-here.txt")["action"], json!("trash_on_drive"), "{plain}");
    assert_eq!(item(&plain, "gone-here.txt")["status"], json!("held_back"));
    assert_eq!(item(&plain, "gone-there.txt")["action"], json!("delete_local"));
    assert_eq!(plain["summary"]["deletions_held_back"], json!(2));
    assert!(plain["message"].as_str().unwrap().contains("apply_plan"), "{plain}");
    assert!(!s.drive_files()["gone-here.txt"].2, "still on Drive, not trashed");
    assert!(s.local.join("gone-there.txt").exists());

    let review = s.sync(json!({ "dry_run": true })).await;
    let plan_id = review["plan_id"].as_str().unwrap().to_owned();
    assert!(review["message"].as_str().unwrap().contains(&plan_id), "{review}");

    let stale = s.sync_err(json!({ "resolve": { "apply_plan": "0123456789abcdef" } })).await;
    assert!(stale.contains("dry_run=true") && stale.contains("nothing was done"), "{stale}");
    assert!(!s.drive_files()["gone-here.txt"].2);
    assert!(s.local.join("gone-there.txt").exists());

    let applied = s.sync(json!({ "resolve": { "apply_plan": plan_id } })).await;
    assert_eq!(applied["summary"]["done"], json!(2), "{applied}");
    let after = s.drive_files();
    assert!(after["gone-here.txt"].2, "in Drive's trash");
    assert_eq!(after["gone-here.txt"].1, b"deleted locally later", "trashed, not deleted for good");
    assert!(!s.local.join("gone-there.txt").exists());
    assert_eq!(s.local_files(), map(&[("kept.txt", b"kept")]));
    assert_eq!(s.live_drive(), map(&[("kept.txt", b"kept")]));
}

#[tokio::test]
async fn a_failure_midway_is_finished_by_a_second_run_without_duplicates() {
    let s = setup().await;
    let mut expected = BTreeMap::new();
    for i in 0..6 {
        let name = format!("file{i}.txt");
        let bytes = format!("content {i}").repeat(i + 1).into_bytes();
        s.put_local(&name, &bytes, T0 + i64::try_from(i).unwrap() * 1000);
        expected.insert(name, bytes);
    }
    s.put_drive(&s.folder, "from-drive.txt", b"remote", T0);
    // The third upload fails (500: a write Google may have done, so it is not retried).
    s.h.google.inject(Fault::status("/upload/drive/v3/files", 500, 1).for_method("POST").after(2));
    let message = s.sync_err(json!({ "result_local_path": "sync-report.json" })).await;
    assert!(message.contains("sync_folder stopped") && message.contains("upload of file2.txt failed"), "{message}");
    assert!(message.contains("Not attempted:") && message.contains("file5.txt (upload)"), "{message}");
    assert!(message.contains("again with the same arguments"), "{message}");
    let report: Value =
        serde_json::from_slice(&std::fs::read(s.h.home.path().join("exports/sync-report.json")).unwrap()).unwrap();
    assert_eq!(item(&report, "file2.txt")["status"], json!("failed"), "{report}");
    assert_eq!(item(&report, "file1.txt")["status"], json!("done"));
    assert_eq!(item(&report, "file5.txt")["status"], json!("not_attempted"));
    let partial = s.live_drive();
    assert_eq!(partial.len(), 3, "from-drive.txt and the two uploads before the failure: {:?}", partial.keys());

    let second = s.sync(json!({})).await;
    let redone = actions(&second);
    assert!(
        !redone.contains_key("file0.txt") && !redone.contains_key("file1.txt"),
        "done items are not redone: {second}"
    );
    expected.insert("from-drive.txt".to_owned(), b"remote".to_vec());
    // drive_files() asserts no path is held twice: nothing duplicated; equal maps: nothing lost.
    assert_eq!(s.live_drive(), expected);
    assert_eq!(
        s.local_files().into_iter().filter(|(p, _)| p != "sync-report.json").collect::<BTreeMap<_, _>>(),
        expected
    );
    let uploads =
        s.h.google.world().requests.iter().filter(|r| r.method == "POST" && r.path.starts_with("/upload/")).count();
    assert_eq!(uploads, 7, "six files, one failed attempt");
}

#[tokio::test]
async fn the_report_goes_to_result_local_path_with_a_summary_answered() {
    let s = setup().await;
    s.put_local("a.txt", b"a", T0);
    let result = s.sync(json!({ "result_local_path": "reports/sync.json" })).await;
    assert!(result.get("items").is_none(), "{result}");
    let path = result["report_local_path"].as_str().unwrap();
    let report: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    assert_eq!(item(&report, "a.txt")["status"], json!("done"));
    assert_eq!(report["summary"], result["summary"]);
}

#[tokio::test]
async fn bad_inputs_are_refused_with_what_to_do() {
    let s = setup().await;
    let message = s.sync_err(json!({ "direction": "sideways" })).await;
    assert!(
        message.contains("bidirectional") && message.contains("upload") && message.contains("download"),
        "{message}"
    );
    let message = s.sync_err(json!({ "resolve": { "a.txt": "keep_local" } })).await;
    assert!(message.contains("unknown key") && message.contains("conflicts"), "{message}");
    let message = s.sync_err(json!({ "resolve": { "conflicts": { "a.txt": "keep_both" } } })).await;
    assert!(message.contains("keep_local, keep_drive or skip"), "{message}");
    let missing = json!({ "folder_id": s.folder, "local_path": "no-such-folder" });
    let message = s.h.err("sync_folder", missing).await;
    assert!(message.contains("does not exist") && message.contains("direction=download"), "{message}");
    let outside = json!({ "folder_id": s.folder, "local_path": "/etc" });
    let message = s.h.err("sync_folder", outside).await;
    assert!(message.contains("outside the folders"), "{message}");
    let blob = s.put_drive(&s.folder, "plain.txt", b"x", T0);
    let message = s.h.err("sync_folder", json!({ "folder_id": blob, "local_path": "sync" })).await;
    assert!(message.contains("not a folder"), "{message}");
    assert!(!s.h.home.path().join("exports/no-such-folder").exists());
    assert_eq!(s.live_drive(), map(&[("plain.txt", b"x")]));
}

/// The ids of the Google Docs named `name` directly in `folder`.
fn docs_named(s: &Setup, name: &str) -> Vec<String> {
    let world = s.h.google.world();
    world
        .drive
        .ids()
        .into_iter()
        .filter(|id| {
            world.drive.get(id).is_some_and(|f| {
                f.name == name
                    && f.mime_type == "application/vnd.google-apps.document"
                    && f.parent.as_deref() == Some(s.folder.as_str())
                    && !f.explicitly_trashed
            })
        })
        .collect()
}

/// The text of a document's body as the Docs API answers it, with each paragraph's named style.
async fn paragraphs(s: &Setup, doc_id: &str) -> Vec<(String, String)> {
    let doc = s.h.raw_get(&format!("/v1/documents/{doc_id}"), &[]).await;
    let content = doc["body"]["content"].as_array().unwrap_or_else(|| panic!("no body in {doc}"));
    content
        .iter()
        .filter_map(|element| element.get("paragraph"))
        .map(|paragraph| {
            let style = paragraph["paragraphStyle"]["namedStyleType"].as_str().unwrap_or_default().to_owned();
            let text: String = paragraph["elements"]
                .as_array()
                .unwrap()
                .iter()
                .filter_map(|e| e["textRun"]["content"].as_str())
                .collect();
            (style, text)
        })
        .collect()
}

#[tokio::test]
async fn convert_markdown_syncs_md_files_with_google_docs() {
    let s = setup().await;
    s.put_local("plan.md", b"# Plan\n\nShip the sync tool.\n", T0);
    let minutes = s.h.google.world().create_document("Minutes", "Met today", &s.h.owner());
    s.h.google.world().drive.set_parent(&minutes, &s.folder);

    let first = s.sync(json!({ "convert_markdown": true })).await;
    assert_eq!(
        actions(&first),
        BTreeMap::from([("Minutes.md".to_owned(), "download".to_owned()), ("plan.md".to_owned(), "upload".to_owned())])
    );
    let plan = docs_named(&s, "plan");
    assert_eq!(plan.len(), 1, "one Google Doc made from plan.md");
    let body = paragraphs(&s, &plan[0]).await;
    assert_eq!(body[0], ("HEADING_1".to_owned(), "Plan\n".to_owned()), "{body:?}");
    assert!(body.iter().any(|(_, text)| text == "Ship the sync tool.\n"), "{body:?}");
    assert_eq!(s.local_files()["Minutes.md"], b"Met today\n");
    assert!(s.drive_files().keys().all(|p| !p.ends_with(".md")), "no .md blob uploaded");

    let again = s.sync(json!({ "convert_markdown": true })).await;
    assert_eq!(again["summary"]["in_sync"], json!(2), "{again}");
    assert_eq!(again["summary"]["done"], json!(0));

    // A local edit replaces the Doc's body; an edit in Docs comes back as Markdown.
    s.put_local("plan.md", b"# Plan\n\n- ship\n- test\n", T0 + HOUR);
    s.h.ok("insert_doc_text", json!({ "doc_id": minutes, "insertions": [{ "index": 1, "text": "We " }] })).await;
    s.h.google.world().drive.get_mut(&minutes).unwrap().modified_time =
        DateTime::from_timestamp_millis(T0 + 2 * HOUR).unwrap();
    let edited = s.sync(json!({ "convert_markdown": true })).await;
    assert_eq!(
        actions(&edited),
        BTreeMap::from([
            ("Minutes.md".to_owned(), "update_local".to_owned()),
            ("plan.md".to_owned(), "update_drive".to_owned())
        ])
    );
    assert_eq!(docs_named(&s, "plan"), plan, "the same Doc, updated in place");
    let body = paragraphs(&s, &plan[0]).await;
    let texts: Vec<&str> = body.iter().map(|(_, t)| t.as_str()).collect();
    assert_eq!(texts, ["Plan\n", "ship\n", "test\n"], "{body:?}");
    assert_eq!(s.local_files()["Minutes.md"], b"We Met today\n");
    let last = s.sync(json!({ "convert_markdown": true })).await;
    assert_eq!(last["summary"]["in_sync"], json!(2), "{last}");
}

#[tokio::test]
async fn one_way_syncs_report_a_change_on_the_side_they_would_overwrite() {
    let s = setup().await;
    s.put_local("shared.txt", b"base", T0);
    s.sync(json!({})).await;
    let id = s.drive_files()["shared.txt"].0.clone();
    s.edit_drive(&id, b"edited in Drive", T0 + HOUR);
    let up = s.sync(json!({ "direction": "upload" })).await;
    let entry = item(&up, "shared.txt");
    assert_eq!(entry["action"], json!("conflict"), "{up}");
    assert!(entry["reason"].as_str().unwrap().contains("direction upload would overwrite"), "{entry}");
    assert_eq!(s.live_drive()["shared.txt"], b"edited in Drive");

    s.put_local("shared.txt", b"edited here", T0 + 2 * HOUR);
    s.edit_drive(&id, b"edited in Drive", T0);
    let down = s.sync(json!({ "direction": "download" })).await;
    assert_eq!(item(&down, "shared.txt")["action"], json!("conflict"), "{down}");
    assert_eq!(s.local_files()["shared.txt"], b"edited here");
    let resolved =
        s.sync(json!({ "direction": "download", "resolve": { "conflicts": { "shared.txt": "keep_drive" } } })).await;
    assert_eq!(item(&resolved, "shared.txt")["action"], json!("update_local"), "{resolved}");
    assert_eq!(s.local_files()["shared.txt"], b"edited in Drive");
}

#[tokio::test]
async fn large_files_go_up_and_are_replaced_through_resumable_uploads() {
    let s = setup().await;
    let big: Vec<u8> = (0..6 * 1024 * 1024).map(|i| (i % 251) as u8).collect();
    s.put_local("big.bin", &big, T0);
    s.sync(json!({ "direction": "upload" })).await;
    assert_eq!(s.live_drive()["big.bin"], big);
    let changed: Vec<u8> = big.iter().map(|b| b.wrapping_add(1)).collect();
    s.put_local("big.bin", &changed, T0 + HOUR);
    let result = s.sync(json!({ "direction": "upload" })).await;
    assert_eq!(item(&result, "big.bin")["action"], json!("update_drive"), "{result}");
    assert_eq!(s.live_drive(), BTreeMap::from([("big.bin".to_owned(), changed)]));
    let resumable = s.h.google.world().requests.iter().filter(|r| r.method == "PUT").count();
    assert_eq!(resumable, 2, "both went through a resumable session");
}
