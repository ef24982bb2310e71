//! `get_sheet_data` and `get_sheet_formulas` against the emulator: ranges in every A1 shape, the grid-data
//! path, plain-words errors (bad ranges before any call, missing sheets, Google's 404), the cap and
//! `local_path`.

use crate::sheets_common;
use crate::support;

use serde_json::{Value, json};
use sheets_common::{grid, seed, sheets_calls};
use support::Harness;

fn rows(value: &Value) -> Vec<Vec<String>> {
    value
        .as_array()
        .unwrap()
        .iter()
        .map(|row| row.as_array().unwrap().iter().map(|c| c.as_str().unwrap().to_owned()).collect())
        .collect()
}

#[tokio::test]
async fn reads_a_whole_sheet_as_formatted_text() {
    let h = Harness::new().await;
    let id = seed(
        &h,
        "Budget",
        &[(
            "Sales",
            vec![vec![json!("Item"), json!("Qty")], vec![json!("Pens"), json!(12)], vec![json!("Ink"), json!(true)]],
        )],
    );
    let got = h.ok("get_sheet_data", json!({ "spreadsheet_id": id, "sheet": "Sales" })).await;
    assert_eq!(got["spreadsheet_id"], json!(id));
    assert_eq!(got["sheet"], "Sales");
    assert!(got["range"].as_str().unwrap().starts_with("Sales!A1"), "{got}");
    assert_eq!(rows(&got["values"]), [["Item", "Qty"], ["Pens", "12"], ["Ink", "TRUE"]]);
}

#[tokio::test]
async fn quoted_names_whole_columns_rows_and_open_ranges() {
    let h = Harness::new().await;
    let id = seed(&h, "Shapes", &[("My Sheet", grid(6, 4))]);
    let read = |sheet: &str, range: &str| json!({ "spreadsheet_id": id, "sheet": sheet, "range": range });

    let got = h.ok("get_sheet_data", read("My Sheet", "B2:C3")).await;
    assert_eq!(rows(&got["values"]), [["r2c2", "r2c3"], ["r3c2", "r3c3"]]);
    assert_eq!(got["range"], "'My Sheet'!B2:C3");

    let got = h.ok("get_sheet_data", read("'My Sheet'", "'My Sheet'!A5:B6")).await;
    assert_eq!(rows(&got["values"]), [["r5c1", "r5c2"], ["r6c1", "r6c2"]]);

    let got = h.ok("get_sheet_data", read("My Sheet", "C:D")).await;
    assert_eq!(got["values"].as_array().unwrap().len(), 6);
    assert_eq!(rows(&got["values"])[5], ["r6c3", "r6c4"]);

    let got = h.ok("get_sheet_data", read("My Sheet", "5:6")).await;
    assert_eq!(rows(&got["values"]), [["r5c1", "r5c2", "r5c3", "r5c4"], ["r6c1", "r6c2", "r6c3", "r6c4"]]);

    let got = h.ok("get_sheet_data", read("My Sheet", "C4:D")).await;
    assert_eq!(rows(&got["values"]), [["r4c3", "r4c4"], ["r5c3", "r5c4"], ["r6c3", "r6c4"]]);
}

#[tokio::test]
async fn an_empty_range_has_no_values() {
    let h = Harness::new().await;
    let id = seed(&h, "Empty", &[("Data", grid(2, 2))]);
    let got = h.ok("get_sheet_data", json!({ "spreadsheet_id": id, "sheet": "Data", "range": "H10:J20" })).await;
    assert_eq!(got["values"], json!([]));
}

#[tokio::test]
async fn grid_data_gives_formulas_and_values_per_cell() {
    let h = Harness::new().await;
    let id = seed(&h, "Grid", &[("Calc", vec![vec![json!(2), json!(3), json!("=A1*B1")]])]);
    let got = h
        .ok(
            "get_sheet_data",
            json!({ "spreadsheet_id": id, "sheet": "Calc", "range": "A1:C1", "include_grid_data": true }),
        )
        .await;
    assert_eq!(got["sheet"], "Calc");
    let cells = got["rows"][0].as_array().unwrap();
    assert_eq!(cells.len(), 3, "{got}");
    assert_eq!(cells[2]["formattedValue"], "6");
    assert_eq!(cells[2]["userEnteredValue"]["formulaValue"], "=A1*B1");
    assert_eq!(cells[0]["effectiveValue"]["numberValue"], 2.0);
}

#[tokio::test]
async fn grid_data_starts_where_the_range_does() {
    let h = Harness::new().await;
    let id = seed(&h, "Grid", &[("Data", grid(5, 5))]);
    let got = h
        .ok(
            "get_sheet_data",
            json!({ "spreadsheet_id": id, "sheet": "Data", "range": "C4:D5", "include_grid_data": true }),
        )
        .await;
    assert_eq!((got["start_row"].as_u64(), got["start_column"].as_u64()), (Some(3), Some(2)));
    assert_eq!(got["rows"][1][1]["formattedValue"], "r5c4");
}

#[tokio::test]
async fn formulas_are_returned_as_written() {
    let h = Harness::new().await;
    let id = seed(&h, "Sums", &[("Data", vec![vec![json!(1), json!(2), json!("=SUM(A1:B1)"), json!("label")]])]);
    let got = h.ok("get_sheet_formulas", json!({ "spreadsheet_id": id, "sheet": "Data" })).await;
    assert_eq!(got["values"], json!([[1, 2, "=SUM(A1:B1)", "label"]]));
    let shown = h.ok("get_sheet_data", json!({ "spreadsheet_id": id, "sheet": "Data" })).await;
    assert_eq!(shown["values"][0][2], "3");
}

#[tokio::test]
async fn a_bad_range_is_refused_before_any_google_call() {
    let h = Harness::new().await;
    let id = seed(&h, "Budget", &[("Sales", grid(2, 2))]);
    let before = sheets_calls(&h);
    for range in ["A1:B2:C3", "1A", "A0:B2", "Sales!", "'Sales"] {
        let message = h.err("get_sheet_data", json!({ "spreadsheet_id": id, "sheet": "Sales", "range": range })).await;
        assert!(message.contains(range), "{range}: {message}");
        assert!(message.contains("like") || message.contains("A1"), "the fix is missing for {range}: {message}");
        assert!(!message.contains("Google"), "{range} reached Google: {message}");
    }
    let message =
        h.err("get_sheet_formulas", json!({ "spreadsheet_id": id, "sheet": "Sales", "range": "Other!A1" })).await;
    assert!(message.contains("Other") && message.contains("Sales"), "{message}");
    assert_eq!(sheets_calls(&h), before, "a bad range must not reach Google");
}

#[tokio::test]
async fn a_missing_sheet_lists_the_sheets_that_exist() {
    let h = Harness::new().await;
    let id = seed(&h, "Budget", &[("Summary", grid(1, 1)), ("Sales", grid(1, 1))]);
    for include_grid_data in [false, true] {
        let message = h
            .err(
                "get_sheet_data",
                json!({ "spreadsheet_id": id, "sheet": "Salse", "include_grid_data": include_grid_data }),
            )
            .await;
        assert!(message.contains("\"Salse\""), "{message}");
        assert!(message.contains("\"Summary\", \"Sales\""), "{message}");
    }
}

#[tokio::test]
async fn google_errors_come_back_in_plain_words() {
    let h = Harness::new().await;
    let message = h.err("get_sheet_data", json!({ "spreadsheet_id": "no-such-spreadsheet", "sheet": "Sheet1" })).await;
    assert!(message.contains("Google Sheets could not find it"), "{message}");
    assert!(message.contains("Check the id"), "{message}");
}

#[tokio::test]
async fn an_oversized_read_names_the_remedies() {
    let h = Harness::with_config(|c| c.max_response_chars = 2_000).await;
    let id = seed(&h, "Big", &[("Data", grid(200, 5))]);
    let message = h.err("get_sheet_data", json!({ "spreadsheet_id": id, "sheet": "Data" })).await;
    for needle in ["get_sheet_data", "2000", "narrower range", "local_path"] {
        assert!(message.contains(needle), "{needle} missing: {message}");
    }
    // A narrower range fits.
    let got = h.ok("get_sheet_data", json!({ "spreadsheet_id": id, "sheet": "Data", "range": "A1:B3" })).await;
    assert_eq!(got["values"].as_array().unwrap().len(), 3);
}

#[tokio::test]
async fn local_path_writes_the_full_result_to_the_export_folder() {
    let h = Harness::with_config(|c| c.max_response_chars = 2_000).await;
    let id = seed(&h, "Big", &[("Data", grid(200, 5))]);
    let reply =
        h.ok("get_sheet_data", json!({ "spreadsheet_id": id, "sheet": "Data", "local_path": "big.json" })).await;
    let path = reply["local_path"].as_str().unwrap();
    let written: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    assert_eq!(written["values"].as_array().unwrap().len(), 200);
    assert_eq!(written["values"][199][4], "r200c5");
}
