//! Spreadsheet and sheet structure against the emulator: create, rename, duplicate, copy and delete sheets;
//! insert and delete rows and columns. Each test checks the emulator's resulting sheets and values.

use crate::sheets_common;
use crate::support;

use serde_json::{Value, json};
use sheets_common::{grid, seed, strings, titles, values};
use support::Harness;

/// (row_count, column_count) of a sheet, as Sheets reports them.
async fn size(h: &Harness, id: &str, sheet: &str) -> (i64, i64) {
    let sheets = h.ok("list_sheets", json!({ "spreadsheet_id": id })).await;
    let s = sheets
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["title"] == sheet)
        .unwrap_or_else(|| panic!("no {sheet} in {sheets}"));
    (s["row_count"].as_i64().unwrap(), s["column_count"].as_i64().unwrap())
}

#[tokio::test]
async fn create_spreadsheet_puts_it_in_the_folder() {
    let h = Harness::new().await;
    let folder = h.google.world().drive.create_folder("Reports", None, &h.owner());
    let got = h.ok("create_spreadsheet", json!({ "title": "Q3 Report", "folder_id": folder })).await;
    let id = got["spreadsheet_id"].as_str().unwrap();
    assert_eq!(got["title"], "Q3 Report");
    assert!(got["url"].as_str().unwrap().contains(id), "{got}");
    assert_eq!(got["folder_id"], json!(folder));
    assert_eq!(h.google.world().sheets.title(id).as_deref(), Some("Q3 Report"));
    assert_eq!(h.google.world().drive.get(id).and_then(|f| f.parent.clone()).as_deref(), Some(folder.as_str()));
    assert_eq!(titles(&h, id), ["Sheet1"]);
}

#[tokio::test]
async fn create_spreadsheet_uses_the_configured_folder_by_default() {
    let folder = "1DefaultFolderForNewFiles";
    let h = Harness::with_config(|c| c.drive_folder_id = Some(folder.to_owned())).await;
    h.google.world().drive.insert_native_file(folder, "Default", "application/vnd.google-apps.folder", &h.owner());
    let got = h.ok("create_spreadsheet", json!({ "title": "Filed" })).await;
    assert_eq!(got["folder_id"], folder);
    let id = got["spreadsheet_id"].as_str().unwrap();
    assert_eq!(h.google.world().drive.get(id).and_then(|f| f.parent.clone()).as_deref(), Some(folder));

    // Without a folder at all, the spreadsheet stays in My Drive.
    let plain = Harness::new().await;
    let got = plain.ok("create_spreadsheet", json!({ "title": "Loose" })).await;
    assert_eq!(got["folder_id"], Value::Null);
    let id = got["spreadsheet_id"].as_str().unwrap();
    assert_eq!(plain.google.world().sheets.title(id).as_deref(), Some("Loose"));
}

#[tokio::test]
async fn create_spreadsheet_in_a_missing_folder_says_what_happened() {
    let h = Harness::new().await;
    let message = h.err("create_spreadsheet", json!({ "title": "Lost", "folder_id": "no-such-folder" })).await;
    assert!(message.contains("was created") && message.contains("no-such-folder"), "{message}");
}

#[tokio::test]
async fn create_sheet_adds_a_tab() {
    let h = Harness::new().await;
    let id = seed(&h, "Budget", &[("Data", grid(1, 1))]);
    let got = h.ok("create_sheet", json!({ "spreadsheet_id": id, "title": "Q4 Plan" })).await;
    assert_eq!(got["title"], "Q4 Plan");
    assert!(got["url"].as_str().unwrap().ends_with(&format!("#gid={}", got["sheet_id"])), "{got}");
    assert_eq!(titles(&h, &id), ["Data", "Q4 Plan"]);
    // A taken name: Google's refusal, in plain words.
    let message = h.err("create_sheet", json!({ "spreadsheet_id": id, "title": "Q4 Plan" })).await;
    assert!(message.contains("Google Sheets refused") && message.contains("Q4 Plan"), "{message}");
    assert_eq!(titles(&h, &id), ["Data", "Q4 Plan"]);
}

#[tokio::test]
async fn rename_sheet_keeps_the_values() {
    let h = Harness::new().await;
    let id = seed(&h, "Budget", &[("Data", grid(2, 2)), ("Other", grid(1, 1))]);
    let got = h.ok("rename_sheet", json!({ "spreadsheet": id, "sheet": "data", "new_name": "Sales 2024" })).await;
    assert_eq!((got["old_title"].as_str(), got["title"].as_str()), (Some("Data"), Some("Sales 2024")));
    assert_eq!(titles(&h, &id), ["Sales 2024", "Other"]);
    assert_eq!(values(&h, &id, "Sales 2024"), strings(&[&["r1c1", "r1c2"], &["r2c1", "r2c2"]]));
    let message = h.err("rename_sheet", json!({ "spreadsheet": id, "sheet": "Data", "new_name": "X" })).await;
    assert!(message.contains("\"Sales 2024\", \"Other\""), "{message}");
}

#[tokio::test]
async fn duplicate_sheet_copies_values_with_a_name_and_position() {
    let h = Harness::new().await;
    let id = seed(&h, "Budget", &[("Data", grid(2, 2)), ("Other", grid(1, 1))]);
    let got = h
        .ok(
            "duplicate_sheet",
            json!({ "spreadsheet_id": id, "sheet": "Data", "new_name": "Data copy", "insert_index": 0 }),
        )
        .await;
    assert_eq!(got["title"], "Data copy");
    assert_eq!(got["index"], 0);
    assert_eq!(titles(&h, &id), ["Data copy", "Data", "Other"]);
    assert_eq!(values(&h, &id, "Data copy"), values(&h, &id, "Data"));
    // Without a name, Google picks one.
    let got = h.ok("duplicate_sheet", json!({ "spreadsheet_id": id, "sheet": "Other" })).await;
    let name = got["title"].as_str().unwrap();
    assert!(name.contains("Other") && name != "Other", "{got}");
    assert_eq!(values(&h, &id, name), strings(&[&["r1c1"]]));
    // Without insert_index the copy goes right after the original (as in the reference server), not last.
    let got = h.ok("duplicate_sheet", json!({ "spreadsheet_id": id, "sheet": "Data", "new_name": "Data again" })).await;
    assert_eq!(got["index"], 2);
    assert_eq!(titles(&h, &id), ["Data copy", "Data", "Data again", "Other", name]);
}

#[tokio::test]
async fn copy_sheet_copies_into_another_spreadsheet_under_the_new_name() {
    let h = Harness::new().await;
    let src = seed(&h, "Source", &[("Data", vec![vec![json!(2), json!("=A1*10")]])]);
    let dst = seed(&h, "Target", &[("Existing", grid(1, 1))]);
    let got = h
        .ok(
            "copy_sheet",
            json!({ "src_spreadsheet": src, "src_sheet": "Data", "dst_spreadsheet": dst, "dst_sheet": "Imported" }),
        )
        .await;
    assert_eq!(got["title"], "Imported");
    assert_eq!(got["spreadsheet_id"], json!(dst));
    assert_eq!(titles(&h, &dst), ["Existing", "Imported"]);
    assert_eq!(values(&h, &dst, "Imported"), strings(&[&["2", "20"]]));
    assert_eq!(h.google.world().sheets.formula(&dst, "Imported", 0, 1).as_deref(), Some("=A1*10"));
    assert_eq!(titles(&h, &src), ["Data"], "the source is unchanged");

    // A taken name is refused before anything is copied.
    let message = h
        .err(
            "copy_sheet",
            json!({ "src_spreadsheet": src, "src_sheet": "Data", "dst_spreadsheet": dst, "dst_sheet": "existing" }),
        )
        .await;
    assert!(message.contains("already has a sheet named \"Existing\""), "{message}");
    assert_eq!(titles(&h, &dst), ["Existing", "Imported"]);
}

#[tokio::test]
async fn delete_sheet_removes_the_tab() {
    let h = Harness::new().await;
    let id = seed(&h, "Budget", &[("Keep", grid(1, 1)), ("Old Data", grid(3, 3))]);
    let got = h.ok("delete_sheet", json!({ "spreadsheet_id": id, "sheet": "'Old Data'" })).await;
    assert_eq!(got["deleted_sheet"], "Old Data");
    assert_eq!(titles(&h, &id), ["Keep"]);
    let message = h.err("delete_sheet", json!({ "spreadsheet_id": id, "sheet": "Old Data" })).await;
    assert!(message.contains("no sheet named \"Old Data\"") && message.contains("\"Keep\""), "{message}");
}

/// As in the reference server: start_row is a 0-based index to insert before, and omitted means 0 (the
/// top), not the end; the row count itself appends at the end.
#[tokio::test]
async fn add_rows_inserts_at_a_0_based_index_or_at_the_top() {
    let h = Harness::new().await;
    let id = seed(&h, "Budget", &[("Data", grid(3, 2))]);
    let (rows, _) = size(&h, &id, "Data").await;
    let got = h.ok("add_rows", json!({ "spreadsheet_id": id, "sheet": "Data", "count": 2, "start_row": 1 })).await;
    assert_eq!(got["rows_added"], 2);
    assert_eq!(got["new_rows"], "2:3");
    assert_eq!(got["row_count"], rows + 2);
    assert_eq!(values(&h, &id, "Data"), strings(&[&["r1c1", "r1c2"], &[], &[], &["r2c1", "r2c2"], &["r3c1", "r3c2"]]));
    assert_eq!(size(&h, &id, "Data").await.0, rows + 2);

    let got = h.ok("add_rows", json!({ "spreadsheet_id": id, "sheet": "Data", "count": 1 })).await;
    assert_eq!(got["new_rows"], "1:1");
    assert_eq!(size(&h, &id, "Data").await.0, rows + 3);
    assert_eq!(
        values(&h, &id, "Data"),
        strings(&[&[], &["r1c1", "r1c2"], &[], &[], &["r2c1", "r2c2"], &["r3c1", "r3c2"]]),
        "without start_row the row goes above row 1"
    );

    let end = rows + 3;
    let got = h.ok("add_rows", json!({ "spreadsheet_id": id, "sheet": "Data", "count": 10, "start_row": end })).await;
    assert_eq!(got["row_count"], end + 10);
    assert_eq!(size(&h, &id, "Data").await.0, end + 10);
    assert_eq!(values(&h, &id, "Data").len(), 6, "inserting at the row count leaves the values where they are");

    let message =
        h.err("add_rows", json!({ "spreadsheet_id": id, "sheet": "Data", "count": 1, "start_row": rows + 100 })).await;
    assert!(message.contains("past the end") && message.contains("0-based"), "{message}");
    let message = h.err("add_rows", json!({ "spreadsheet_id": id, "sheet": "Data", "count": 0 })).await;
    assert!(message.contains("count is 0"), "{message}");
}

#[tokio::test]
async fn add_columns_inserts_at_a_0_based_index_or_at_the_left() {
    let h = Harness::new().await;
    let id = seed(&h, "Budget", &[("Data", grid(2, 3))]);
    let (_, cols) = size(&h, &id, "Data").await;
    let got =
        h.ok("add_columns", json!({ "spreadsheet_id": id, "sheet": "Data", "count": 1, "start_column": 1 })).await;
    assert_eq!(got["new_columns"], "B:B");
    assert_eq!(values(&h, &id, "Data"), strings(&[&["r1c1", "", "r1c2", "r1c3"], &["r2c1", "", "r2c2", "r2c3"]]));
    let got = h.ok("add_columns", json!({ "spreadsheet_id": id, "sheet": "Data", "count": 1 })).await;
    assert_eq!(got["new_columns"], "A:A");
    assert_eq!(
        values(&h, &id, "Data"),
        strings(&[&["", "r1c1", "", "r1c2", "r1c3"], &["", "r2c1", "", "r2c2", "r2c3"]]),
        "without start_column the column goes before column A"
    );
    h.ok("add_columns", json!({ "spreadsheet_id": id, "sheet": "Data", "count": 4, "start_column": cols + 2 })).await;
    assert_eq!(size(&h, &id, "Data").await.1, cols + 6);
}

/// As in the reference server (and as hide_rows and resize_rows here): `end_row` is the last row deleted.
#[tokio::test]
async fn delete_rows_deletes_start_row_through_end_row_or_one_row() {
    let h = Harness::new().await;
    let id = seed(&h, "Budget", &[("Data", grid(6, 1))]);
    let (rows, _) = size(&h, &id, "Data").await;
    let got = h.ok("delete_rows", json!({ "spreadsheet_id": id, "sheet": "Data", "start_row": 1, "end_row": 2 })).await;
    assert_eq!(got["deleted_rows"], "2:3");
    assert_eq!(got["rows_deleted"], 2);
    assert_eq!(values(&h, &id, "Data"), strings(&[&["r1c1"], &["r4c1"], &["r5c1"], &["r6c1"]]));
    h.ok("delete_rows", json!({ "spreadsheet_id": id, "sheet": "Data", "start_row": 0 })).await;
    assert_eq!(values(&h, &id, "Data"), strings(&[&["r4c1"], &["r5c1"], &["r6c1"]]));
    h.ok("delete_rows", json!({ "spreadsheet_id": id, "sheet": "Data", "start_row": 1, "end_row": 1 })).await;
    assert_eq!(values(&h, &id, "Data"), strings(&[&["r4c1"], &["r6c1"]]));
    let rows = rows - 4;
    assert_eq!(size(&h, &id, "Data").await.0, rows);

    let message =
        h.err("delete_rows", json!({ "spreadsheet_id": id, "sheet": "Data", "start_row": 3, "end_row": 2 })).await;
    assert!(message.contains("before start_row") && message.contains("included"), "{message}");
    let message =
        h.err("delete_rows", json!({ "spreadsheet_id": id, "sheet": "Data", "start_row": 0, "end_row": rows })).await;
    assert!(message.contains("does not exist") && message.contains("Nothing was changed"), "{message}");
    let message = h
        .err("delete_rows", json!({ "spreadsheet_id": id, "sheet": "Data", "start_row": 0, "end_row": rows - 1 }))
        .await;
    assert!(message.contains("keeps at least one row") && message.contains("Nothing was deleted"), "{message}");
    assert_eq!(size(&h, &id, "Data").await.0, rows);
}

#[tokio::test]
async fn delete_columns_deletes_start_column_through_end_column_or_one_column() {
    let h = Harness::new().await;
    let id = seed(&h, "Budget", &[("Data", grid(1, 5))]);
    let got = h
        .ok("delete_columns", json!({ "spreadsheet_id": id, "sheet": "Data", "start_column": 1, "end_column": 2 }))
        .await;
    assert_eq!(got["deleted_columns"], "B:C");
    assert_eq!(values(&h, &id, "Data"), strings(&[&["r1c1", "r1c4", "r1c5"]]));
    h.ok("delete_columns", json!({ "spreadsheet_id": id, "sheet": "Data", "start_column": 0 })).await;
    assert_eq!(values(&h, &id, "Data"), strings(&[&["r1c4", "r1c5"]]));
}
