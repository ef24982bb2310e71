//! import_csv_to_sheet against the emulator: a CSV file becomes a spreadsheet in the folder asked for;
//! large files go in chunks; a failure midway (injected) is reported by range, and the same call then
//! finishes the job in the same spreadsheet with nothing duplicated and nothing lost, checked against the
//! emulator's values.

use crate::sheets_common;
use crate::support;

use google_fake::{Fault, Identity};
use serde_json::{Value, json};
use sheets_common::{titles, values};
use support::Harness;

/// Writes `name` into the export folder, where relative local paths point.
fn write_export(h: &Harness, name: &str, contents: &str) {
    let exports = h.home.path().join("exports");
    std::fs::create_dir_all(&exports).unwrap();
    std::fs::write(exports.join(name), contents).unwrap();
}

/// `rows` rows of three columns: a text key, a number, a text with a comma (quoted in the CSV).
fn table(rows: usize) -> (String, Vec<Vec<String>>) {
    let mut text = String::from("key,amount,note\n");
    let mut expected = vec![vec!["key".to_owned(), "amount".to_owned(), "note".to_owned()]];
    for i in 1..rows {
        text.push_str(&format!("k{i},{i},\"n{i}, ok\"\n"));
        expected.push(vec![format!("k{i}"), i.to_string(), format!("n{i}, ok")]);
    }
    (text, expected)
}

/// The Drive ids of the spreadsheets named `title`.
fn spreadsheets_named(h: &Harness, title: &str) -> Vec<String> {
    let world = h.google.world();
    world
        .drive
        .ids()
        .into_iter()
        .filter(|id| world.drive.get(id).is_some_and(|f| f.name == title && f.mime_type.ends_with("spreadsheet")))
        .collect()
}

/// Fails every `values.update` (PUT) after the first `after` chunks, until cleared.
fn fail_chunks_after(h: &Harness, after: u32) {
    h.google.inject(Fault::status("/v4/spreadsheets/", 503, 1_000).for_method("PUT").after(after));
}

fn import(title: &str) -> Value {
    json!({ "local_path": "orders.csv", "title": title })
}

#[tokio::test]
async fn a_small_file_becomes_a_spreadsheet_in_the_folder() {
    let h = Harness::new().await;
    let folder = h.google.world().drive.create_folder("Imports", None, &h.owner());
    write_export(&h, "people.csv", "name,city\r\n\"Lovelace, Ada\",London\nAlan,\"Wilms\nlow\"\n");
    let got = h
        .ok(
            "import_csv_to_sheet",
            json!({ "local_path": "people.csv", "title": "People", "folder_id": folder, "sheet_name": "Contacts" }),
        )
        .await;
    let id = got["spreadsheet_id"].as_str().unwrap();
    assert_eq!((got["rows"].clone(), got["columns"].clone(), got["chunks"].clone()), (json!(3), json!(2), json!(1)));
    assert_eq!(got["resumed"], false);
    assert_eq!(got["folder_id"], json!(folder));
    assert_eq!(titles(&h, id), ["Contacts"]);
    assert_eq!(
        values(&h, id, "Contacts"),
        [vec!["name", "city"], vec!["Lovelace, Ada", "London"], vec!["Alan", "Wilms\nlow"]]
    );
    {
        let world = h.google.world();
        let file = world.drive.get(id).unwrap();
        assert_eq!(file.parent.as_deref(), Some(folder.as_str()));
        assert_eq!(file.app_properties.get("gatehouseImportState").map(String::as_str), Some("done"));
    }
    // The grid is cut to the file's size.
    let sheets = h.ok("list_sheets", json!({ "spreadsheet_id": id })).await;
    assert_eq!((sheets[0]["row_count"].clone(), sheets[0]["column_count"].clone()), (json!(3), json!(2)));

    // A finished import is not resumed: importing again makes a second spreadsheet.
    let again = h.ok("import_csv_to_sheet", json!({ "local_path": "people.csv", "title": "People" })).await;
    assert_ne!(again["spreadsheet_id"], got["spreadsheet_id"]);
    assert_eq!(spreadsheets_named(&h, "People").len(), 2);
}

#[tokio::test]
async fn a_failure_midway_is_reported_and_the_same_call_finishes_the_job() {
    let h = Harness::new().await;
    let (text, expected) = table(9_000);
    write_export(&h, "orders.csv", &text);
    // Chunks hold at most 10,000 cells: 3,333 rows of 3 columns; the second chunk fails.
    fail_chunks_after(&h, 1);
    let message = h.err("import_csv_to_sheet", import("Orders")).await;
    assert!(message.contains("rows 3334-6666 (Sheet1!A3334:C6666) could not be written"), "{message}");
    assert!(message.contains("Rows 6667-9000 (Sheet1!A6667:C9000) were not attempted"), "{message}");
    assert!(message.contains("Rows 1-3333 of 9000 are in the spreadsheet"), "{message}");
    assert!(message.contains("same local_path and title"), "{message}");
    let ids = spreadsheets_named(&h, "Orders");
    assert_eq!(ids.len(), 1);
    let id = ids[0].clone();
    assert_eq!(values(&h, &id, "Sheet1"), expected[..3_333]);

    h.google.world().faults.clear();
    let got = h.ok("import_csv_to_sheet", import("Orders")).await;
    assert_eq!(got["spreadsheet_id"], json!(id));
    assert_eq!(got["resumed"], true);
    assert_eq!(got["rows_written_now"], 9_000 - 3_333);
    assert_eq!(got["chunks"], 2);
    assert!(got["notes"][0].as_str().unwrap().contains("from row 3334"), "{got}");
    // Nothing duplicated, nothing lost, and still one spreadsheet.
    assert_eq!(values(&h, &id, "Sheet1"), expected);
    assert_eq!(spreadsheets_named(&h, "Orders"), [id]);
}

#[tokio::test]
async fn rows_lost_after_the_failure_are_written_again() {
    let h = Harness::new().await;
    let (text, expected) = table(9_000);
    write_export(&h, "orders.csv", &text);
    fail_chunks_after(&h, 2);
    let message = h.err("import_csv_to_sheet", import("Orders")).await;
    assert!(message.contains("rows 6667-9000 (Sheet1!A6667:C9000) could not be written"), "{message}");
    assert!(!message.contains("not attempted"), "{message}");
    let id = spreadsheets_named(&h, "Orders").remove(0);
    h.google.world().faults.clear();
    // Someone clears part of what was written: the recorded progress no longer matches the sheet.
    h.ok("clear_values", json!({ "spreadsheet_id": id, "sheet": "Sheet1", "range": "A5000:C6666" })).await;
    let got = h.ok("import_csv_to_sheet", import("Orders")).await;
    assert_eq!(got["rows_written_now"], 9_000);
    assert!(got["notes"].to_string().contains("did not match the sheet"), "{got}");
    assert_eq!(values(&h, &id, "Sheet1"), expected);
}

#[tokio::test]
async fn a_file_changed_before_the_rerun_replaces_what_was_written() {
    let h = Harness::new().await;
    let (text, _) = table(9_000);
    write_export(&h, "orders.csv", &text);
    fail_chunks_after(&h, 1);
    h.err("import_csv_to_sheet", import("Orders")).await;
    h.google.world().faults.clear();
    let (shorter, expected) = table(50);
    write_export(&h, "orders.csv", &shorter);
    let got = h.ok("import_csv_to_sheet", import("Orders")).await;
    let id = got["spreadsheet_id"].as_str().unwrap();
    assert!(got["notes"].to_string().contains("The file changed"), "{got}");
    assert_eq!(values(&h, id, "Sheet1"), expected);
    assert_eq!(spreadsheets_named(&h, "Orders").len(), 1);
}

#[tokio::test]
async fn a_failure_on_the_first_chunk_leaves_a_marked_spreadsheet_to_fill() {
    let h = Harness::new().await;
    let (text, expected) = table(20);
    write_export(&h, "orders.csv", &text);
    fail_chunks_after(&h, 0);
    let message = h.err("import_csv_to_sheet", import("Orders")).await;
    assert!(message.contains("rows 1-20 (Sheet1!A1:C20) could not be written"), "{message}");
    h.google.world().faults.clear();
    let got = h.ok("import_csv_to_sheet", import("Orders")).await;
    assert_eq!(got["resumed"], true);
    assert_eq!(values(&h, got["spreadsheet_id"].as_str().unwrap(), "Sheet1"), expected);
    assert_eq!(spreadsheets_named(&h, "Orders").len(), 1);
}

#[tokio::test]
async fn bad_files_are_refused_before_anything_is_created() {
    let h = Harness::new().await;
    let message = h.err("import_csv_to_sheet", json!({ "local_path": "missing.csv", "title": "X" })).await;
    assert!(message.contains("missing.csv"), "{message}");
    write_export(&h, "broken.csv", "a,b\n\"open,c\n");
    let message = h.err("import_csv_to_sheet", json!({ "local_path": "broken.csv", "title": "X" })).await;
    assert!(message.contains("could not be read as CSV") && message.contains("line 2"), "{message}");
    write_export(&h, "empty.csv", "");
    let message = h.err("import_csv_to_sheet", json!({ "local_path": "empty.csv", "title": "X" })).await;
    assert!(message.contains("has no rows"), "{message}");
    let message = h.err("import_csv_to_sheet", json!({ "local_path": "/etc/hostname", "title": "X" })).await;
    assert!(message.contains("outside the folders"), "{message}");
    write_export(&h, "ok.csv", "a\n");
    let message = h.err("import_csv_to_sheet", json!({ "local_path": "ok.csv", "title": "  " })).await;
    assert!(message.contains("title is empty"), "{message}");
    assert!(spreadsheets_named(&h, "X").is_empty());
}

#[tokio::test]
async fn a_service_account_imports_into_a_shared_drive_only() {
    let sa = Identity::service_account("robot@gatehouse-test.iam.gserviceaccount.com");
    let mut shared = String::new();
    let h = Harness::acting_as(sa.clone(), |google, _| {
        shared = google.world().drive.create_shared_drive("Robots", &sa);
    })
    .await;
    write_export(&h, "orders.csv", "a,b\n1,2\n");
    let message = h.err("import_csv_to_sheet", import("Orders")).await;
    assert!(message.contains("no Drive storage of its own") && message.contains("shared drive"), "{message}");
    assert!(spreadsheets_named(&h, "Orders").is_empty());

    let got = h
        .ok("import_csv_to_sheet", json!({ "local_path": "orders.csv", "title": "Orders", "folder_id": shared }))
        .await;
    let id = got["spreadsheet_id"].as_str().unwrap();
    assert_eq!(values(&h, id, "Sheet1"), [vec!["a", "b"], vec!["1", "2"]]);
}
