//! Value writes against the emulator: `update_cells`, `batch_update_cells`, `clear_values` and the raw
//! `batch_update`, checked by reading the emulator's cells back.

use crate::sheets_common;
use crate::support;

use serde_json::json;
use sheets_common::{grid, seed, sheets_calls, strings, values};
use support::Harness;

#[tokio::test]
async fn update_cells_writes_from_a_start_cell_as_typed_in_the_ui() {
    let h = Harness::new().await;
    let id = seed(&h, "Budget", &[("My Sheet", vec![])]);
    let data = json!([["Item", "Qty", "Price"], ["Pens", 3, 1.5], ["Ink", 2, "=C4*2"]]);
    let got =
        h.ok("update_cells", json!({ "spreadsheet_id": id, "sheet": "My Sheet", "range": "B2", "data": data })).await;
    assert_eq!(got["updated_range"], "'My Sheet'!B2:D4");
    assert_eq!(got["updated_cells"], 9);
    assert_eq!(got["updated_rows"], 3);
    assert_eq!(
        values(&h, &id, "My Sheet"),
        strings(&[&[], &["", "Item", "Qty", "Price"], &["", "Pens", "3", "1.5"], &["", "Ink", "2", "4"]])
    );
    assert_eq!(h.google.world().sheets.formula(&id, "My Sheet", 3, 3).as_deref(), Some("=C4*2"));
}

#[tokio::test]
async fn update_cells_overwrites_and_null_leaves_a_cell_alone() {
    let h = Harness::new().await;
    let id = seed(&h, "Budget", &[("Data", grid(2, 3))]);
    h.ok("update_cells", json!({ "spreadsheet_id": id, "sheet": "Data", "range": "A1:C1", "data": [["x", null, ""]] }))
        .await;
    assert_eq!(values(&h, &id, "Data"), strings(&[&["x", "r1c2"], &["r2c1", "r2c2", "r2c3"]]));
    // Same call again: same state (idempotent).
    h.ok("update_cells", json!({ "spreadsheet_id": id, "sheet": "Data", "range": "A1:C1", "data": [["x", null, ""]] }))
        .await;
    assert_eq!(values(&h, &id, "Data")[0], ["x", "r1c2"]);
}

#[tokio::test]
async fn update_cells_refuses_a_range_too_small_and_bad_cells_before_writing() {
    let h = Harness::new().await;
    let id = seed(&h, "Budget", &[("Data", grid(1, 1))]);
    let before = sheets_calls(&h);
    let message = h
        .err(
            "update_cells",
            json!({ "spreadsheet_id": id, "sheet": "Data", "range": "A1:B1", "data": [[1, 2], [3, 4]] }),
        )
        .await;
    assert!(message.contains("1 row x 2 columns") && message.contains("2 rows x 2 columns"), "{message}");
    assert!(message.contains("top-left cell"), "{message}");
    let message = h
        .err("update_cells", json!({ "spreadsheet_id": id, "sheet": "Data", "range": "A1", "data": [[{"a": 1}]] }))
        .await;
    assert!(message.contains("row 0, column 0"), "{message}");
    let message =
        h.err("update_cells", json!({ "spreadsheet_id": id, "sheet": "Data", "range": "A1", "data": [] })).await;
    assert!(message.contains("data is empty"), "{message}");
    let message =
        h.err("update_cells", json!({ "spreadsheet_id": id, "sheet": "Data", "range": "A:1", "data": [[1]] })).await;
    assert!(message.contains("A:1"), "{message}");
    assert_eq!(sheets_calls(&h), before);
    assert_eq!(values(&h, &id, "Data"), strings(&[&["r1c1"]]));
}

#[tokio::test]
async fn update_cells_on_a_missing_sheet_lists_the_sheets() {
    let h = Harness::new().await;
    let id = seed(&h, "Budget", &[("Data", grid(1, 1))]);
    let message =
        h.err("update_cells", json!({ "spreadsheet_id": id, "sheet": "Dta", "range": "A1", "data": [[1]] })).await;
    assert!(message.contains("no sheet named \"Dta\"") && message.contains("\"Data\""), "{message}");
}

#[tokio::test]
async fn batch_update_cells_writes_every_range_in_one_request() {
    let h = Harness::new().await;
    let id = seed(&h, "Budget", &[("Q1 Sales", vec![])]);
    let before = sheets_calls(&h);
    let got = h
        .ok(
            "batch_update_cells",
            json!({ "spreadsheet_id": id, "sheet": "Q1 Sales", "ranges": {
                "A1": [["Name", "Total"]],
                "A2:B3": [["Ada", 10], ["Bob", "=B2+1"]],
                "D1:D2": [["x"], ["y"]],
            } }),
        )
        .await;
    assert_eq!(sheets_calls(&h) - before, 1);
    assert_eq!(got["total_updated_cells"], 8);
    assert_eq!(got["updated_ranges"].as_array().unwrap().len(), 3);
    assert_eq!(
        values(&h, &id, "Q1 Sales"),
        strings(&[&["Name", "Total", "", "x"], &["Ada", "10", "", "y"], &["Bob", "11"]])
    );
}

#[tokio::test]
async fn batch_update_cells_names_the_bad_entry() {
    let h = Harness::new().await;
    let id = seed(&h, "Budget", &[("Data", vec![])]);
    let message =
        h.err("batch_update_cells", json!({ "spreadsheet_id": id, "sheet": "Data", "ranges": { "A1": "oops" } })).await;
    assert!(message.contains("ranges[\"A1\"]") && message.contains("list of rows"), "{message}");
    let message = h.err("batch_update_cells", json!({ "spreadsheet_id": id, "sheet": "Data", "ranges": {} })).await;
    assert!(message.contains("ranges is empty"), "{message}");
    let message = h
        .err(
            "batch_update_cells",
            json!({ "spreadsheet_id": id, "sheet": "Data", "ranges": { "A1:A2": [[1], [2], [3]] } }),
        )
        .await;
    assert!(message.contains("3 rows"), "{message}");
}

#[tokio::test]
async fn clear_values_clears_a_range_or_the_whole_sheet() {
    let h = Harness::new().await;
    let id = seed(&h, "Budget", &[("Data", grid(3, 3)), ("Keep", grid(1, 1))]);
    let got = h.ok("clear_values", json!({ "spreadsheet_id": id, "sheet": "Data", "range": "B2:C3" })).await;
    assert_eq!(got["cleared_range"], "Data!B2:C3");
    assert_eq!(values(&h, &id, "Data"), strings(&[&["r1c1", "r1c2", "r1c3"], &["r2c1"], &["r3c1"]]));
    h.ok("clear_values", json!({ "spreadsheet_id": id, "sheet": "Data" })).await;
    assert!(values(&h, &id, "Data").is_empty());
    assert_eq!(values(&h, &id, "Keep"), strings(&[&["r1c1"]]));
}

#[tokio::test]
async fn batch_update_passes_requests_through_and_returns_replies() {
    let h = Harness::new().await;
    let id = seed(&h, "Budget", &[("Data", grid(1, 1))]);
    let got = h
        .ok(
            "batch_update",
            json!({ "spreadsheet_id": id, "requests": [
                { "addSheet": { "properties": { "title": "Added" } } },
                { "updateCells": {
                    "range": { "sheetId": 0, "startRowIndex": 0, "endRowIndex": 1, "startColumnIndex": 1, "endColumnIndex": 2 },
                    "rows": [{ "values": [{ "userEnteredValue": { "stringValue": "set" } }] }],
                    "fields": "userEnteredValue",
                } },
            ] }),
        )
        .await;
    assert_eq!(got["replies"][0]["addSheet"]["properties"]["title"], "Added");
    assert_eq!(sheets_common::titles(&h, &id), ["Data", "Added"]);
    assert_eq!(values(&h, &id, "Data"), strings(&[&["r1c1", "set"]]));
}

#[tokio::test]
async fn batch_update_validates_requests_and_relays_google_errors() {
    let h = Harness::new().await;
    let id = seed(&h, "Budget", &[("Data", grid(1, 1))]);
    let message = h.err("batch_update", json!({ "spreadsheet_id": id, "requests": [] })).await;
    assert!(message.contains("requests is empty"), "{message}");
    let message = h
        .err("batch_update", json!({ "spreadsheet_id": id, "requests": [{ "addSheet": {}, "deleteSheet": {} }] }))
        .await;
    assert!(message.contains("requests[0] has 2 kinds"), "{message}");
    let message = h.err("batch_update", json!({ "spreadsheet_id": id, "requests": ["addSheet"] })).await;
    assert!(message.contains("requests[0] is not an object"), "{message}");
    // Google's own 400, in plain words.
    let message = h
        .err("batch_update", json!({ "spreadsheet_id": id, "requests": [{ "deleteSheet": { "sheetId": 999 } }] }))
        .await;
    assert!(message.starts_with("Google Sheets refused the request as invalid."), "{message}");
    assert!(message.contains("Google said:"), "{message}");
}
