//! Sheet layout against the emulator: freeze, update_sheet_properties, sort_range, hiding and resizing
//! rows and columns. Each test reads the spreadsheet back with `spreadsheets.get` to check the state.

use crate::sheets_common;
use crate::support;

use serde_json::{Value, json};
use sheets_common::{grid, seed, strings, values};
use support::Harness;

/// The first sheet's `SheetProperties`, as Google answers them.
async fn properties(h: &Harness, id: &str) -> Value {
    let got = h.raw_get(&format!("/v4/spreadsheets/{id}"), &[("fields", "sheets.properties")]).await;
    got["sheets"][0]["properties"].clone()
}

/// `rowMetadata` or `columnMetadata` of the first `n` rows or columns of `sheet`.
async fn metadata(h: &Harness, id: &str, sheet: &str, rows: bool, n: usize) -> Vec<Value> {
    let (range, field) = if rows {
        (format!("{sheet}!A1:A{n}"), "rowMetadata")
    } else {
        (format!("{sheet}!A1:{}1", (b'A' + n as u8 - 1) as char), "columnMetadata")
    };
    let got = h
        .raw_get(
            &format!("/v4/spreadsheets/{id}"),
            &[("includeGridData", "true"), ("ranges", &range), ("fields", &format!("sheets.data.{field}"))],
        )
        .await;
    got["sheets"][0]["data"][0][field].as_array().cloned().unwrap_or_default()
}

fn hidden(meta: &[Value]) -> Vec<bool> {
    meta.iter().map(|m| m["hiddenByUser"] == true).collect()
}

fn pixels(meta: &[Value]) -> Vec<i64> {
    meta.iter().map(|m| m["pixelSize"].as_i64().unwrap_or(0)).collect()
}

#[tokio::test]
async fn freeze_sets_and_clears_frozen_rows_and_columns() {
    let h = Harness::new().await;
    let id = seed(&h, "Budget", &[("Data", grid(3, 3))]);
    let got = h.ok("freeze", json!({ "spreadsheet_id": id, "sheet": "Data", "rows": 1, "columns": 2 })).await;
    assert_eq!(got["frozen_rows"], 1, "{got}");
    let grid_props = properties(&h, &id).await["gridProperties"].clone();
    assert_eq!(grid_props["frozenRowCount"], 1, "{grid_props}");
    assert_eq!(grid_props["frozenColumnCount"], 2, "{grid_props}");

    // Defaults are 0: unfreeze everything.
    h.ok("freeze", json!({ "spreadsheet_id": id, "sheet": "Data" })).await;
    let grid_props = properties(&h, &id).await["gridProperties"].clone();
    assert!(
        grid_props.get("frozenRowCount").is_none() && grid_props.get("frozenColumnCount").is_none(),
        "{grid_props}"
    );

    let message = h.err("freeze", json!({ "spreadsheet_id": id, "sheet": "Data", "rows": 1000 })).await;
    assert!(message.contains("1000 rows") && message.contains("0 to 999"), "{message}");
    let message = h.err("freeze", json!({ "spreadsheet_id": id, "sheet": "Data", "columns": -1 })).await;
    assert!(message.contains("columns"), "{message}");
    assert!(properties(&h, &id).await["gridProperties"].get("frozenRowCount").is_none());
}

#[tokio::test]
async fn update_sheet_properties_sets_tab_colour_gridlines_and_direction() {
    let h = Harness::new().await;
    let id = seed(&h, "Budget", &[("Data", grid(1, 1))]);
    let got = h
        .ok(
            "update_sheet_properties",
            json!({
                "spreadsheet_id": id, "sheet": "data",
                "tab_color": { "red": 0, "green": 0.5, "blue": 1 }, "show_gridlines": false, "right_to_left": true,
            }),
        )
        .await;
    assert_eq!(got["sheet"], "Data", "{got}");
    let props = properties(&h, &id).await;
    assert_eq!(props["tabColorStyle"]["rgbColor"], json!({ "green": 0.5, "blue": 1.0 }), "{props}");
    assert_eq!(props["tabColor"], json!({ "green": 0.5, "blue": 1.0 }), "{props}");
    assert_eq!(props["gridProperties"]["hideGridlines"], true, "{props}");
    assert_eq!(props["rightToLeft"], true, "{props}");
    assert_eq!(props["title"], "Data");

    // {} clears the tab colour; the other properties stay.
    h.ok(
        "update_sheet_properties",
        json!({ "spreadsheet_id": id, "sheet": "Data", "tab_color": {}, "show_gridlines": true }),
    )
    .await;
    let props = properties(&h, &id).await;
    assert!(props.get("tabColorStyle").is_none() && props.get("tabColor").is_none(), "{props}");
    assert!(props["gridProperties"].get("hideGridlines").is_none(), "{props}");
    assert_eq!(props["rightToLeft"], true);

    let message = h.err("update_sheet_properties", json!({ "spreadsheet_id": id, "sheet": "Data" })).await;
    assert!(message.contains("Nothing to change"), "{message}");
    let message = h
        .err("update_sheet_properties", json!({ "spreadsheet_id": id, "sheet": "Data", "tab_color": { "red": 2 } }))
        .await;
    assert!(message.contains("tab_color.red is 2"), "{message}");
}

#[tokio::test]
async fn sort_range_sorts_rows_by_the_keys_given() {
    let h = Harness::new().await;
    let rows = vec![
        vec![json!("Name"), json!("Team"), json!("Score")],
        vec![json!("Cleo"), json!("Blue"), json!(7)],
        vec![json!("Ann"), json!("Red"), json!(9)],
        vec![json!("Bob"), json!("Blue"), json!(12)],
        vec![json!("Dan"), json!("Red"), json!(9)],
    ];
    let id = seed(&h, "Scores", &[("Data", rows)]);
    let got = h
        .ok(
            "sort_range",
            json!({
                "spreadsheet_id": id, "sheet": "Data", "range": "A2:C5",
                "sort_order": [{ "column_index": 2, "order": "descending" }, { "column_index": 0 }],
            }),
        )
        .await;
    assert_eq!(
        got["sorted_by"],
        json!([{ "column": "C", "order": "DESCENDING" }, { "column": "A", "order": "ASCENDING" }])
    );
    assert_eq!(
        values(&h, &id, "Data"),
        strings(&[
            &["Name", "Team", "Score"],
            &["Bob", "Blue", "12"],
            &["Ann", "Red", "9"],
            &["Dan", "Red", "9"],
            &["Cleo", "Blue", "7"],
        ])
    );

    // Without sort_order: by the range's first column, ascending (the header stays out of the range).
    h.ok("sort_range", json!({ "spreadsheet_id": id, "sheet": "Data", "range": "B2:C5" })).await;
    let rows = values(&h, &id, "Data");
    let teams: Vec<&str> = rows[1..].iter().map(|r| r[1].as_str()).collect();
    assert_eq!(teams, ["Blue", "Blue", "Red", "Red"]);
    assert_eq!(rows[0], ["Name", "Team", "Score"]);
}

#[tokio::test]
async fn sort_range_refuses_bad_keys() {
    let h = Harness::new().await;
    let id = seed(&h, "Scores", &[("Data", grid(3, 2))]);
    let before = values(&h, &id, "Data");
    let message = h
        .err(
            "sort_range",
            json!({ "spreadsheet_id": id, "sheet": "Data", "range": "A1:B3", "sort_order": [{ "column_index": 2 }] }),
        )
        .await;
    assert!(message.contains("sort_order[0].column_index is 2") && message.contains("0 to 1"), "{message}");
    let message = h
        .err(
            "sort_range",
            json!({ "spreadsheet_id": id, "sheet": "Data", "range": "A1:B3", "sort_order": [{ "column_index": 0, "order": "up" }] }),
        )
        .await;
    assert!(message.contains("ASCENDING, DESCENDING"), "{message}");
    let message = h
        .err(
            "sort_range",
            json!({ "spreadsheet_id": id, "sheet": "Data", "range": "A1:B3", "sort_order": [{ "column": "A" }] }),
        )
        .await;
    assert!(message.contains("sort_order"), "{message}");
    assert_eq!(values(&h, &id, "Data"), before);
}

#[tokio::test]
async fn hide_and_unhide_rows_and_columns() {
    let h = Harness::new().await;
    let id = seed(&h, "Budget", &[("Data", grid(5, 5))]);
    let got = h.ok("hide_rows", json!({ "spreadsheet_id": id, "sheet": "Data", "start_row": 1, "end_row": 3 })).await;
    assert_eq!(got["rows"], "2:4", "end_row is included: {got}");
    assert_eq!(got["count"], 3);
    assert_eq!(hidden(&metadata(&h, &id, "Data", true, 5).await), [false, true, true, true, false]);
    h.ok("unhide_rows", json!({ "spreadsheet_id": id, "sheet": "Data", "start_row": 2 })).await;
    assert_eq!(hidden(&metadata(&h, &id, "Data", true, 5).await), [false, true, false, true, false]);

    let got = h
        .ok("hide_columns", json!({ "spreadsheet_id": id, "sheet": "Data", "start_column": 0, "end_column": 1 }))
        .await;
    assert_eq!(got["columns"], "A:B", "{got}");
    assert_eq!(hidden(&metadata(&h, &id, "Data", false, 4).await), [true, true, false, false]);
    h.ok("unhide_columns", json!({ "spreadsheet_id": id, "sheet": "Data", "start_column": 0, "end_column": 3 })).await;
    assert_eq!(hidden(&metadata(&h, &id, "Data", false, 4).await), [false, false, false, false]);
    // Hiding keeps the values.
    assert_eq!(values(&h, &id, "Data")[1][0], "r2c1");
}

#[tokio::test]
async fn hiding_refuses_spans_that_are_backwards_or_past_the_sheet() {
    let h = Harness::new().await;
    let id = seed(&h, "Budget", &[("Data", grid(2, 2))]);
    let message =
        h.err("hide_rows", json!({ "spreadsheet_id": id, "sheet": "Data", "start_row": 4, "end_row": 2 })).await;
    assert!(message.contains("end_row (2) is before start_row (4)"), "{message}");
    let message = h.err("hide_columns", json!({ "spreadsheet_id": id, "sheet": "Data", "start_column": 26 })).await;
    assert!(message.contains("26 columns") && message.contains("column 26 does not exist"), "{message}");
    let message = h.err("unhide_rows", json!({ "spreadsheet_id": id, "sheet": "Nope", "start_row": 0 })).await;
    assert!(message.contains("\"Nope\"") && message.contains("\"Data\""), "{message}");
    assert_eq!(hidden(&metadata(&h, &id, "Data", true, 2).await), [false, false]);
}

#[tokio::test]
async fn resize_rows_and_columns_to_a_size_or_to_fit() {
    let h = Harness::new().await;
    let rows = vec![
        vec![json!("a"), json!("A much longer piece of text that needs a wide column")],
        vec![json!("b"), json!("two\nlines")],
    ];
    let id = seed(&h, "Budget", &[("Data", rows)]);
    let got = h
        .ok(
            "resize_rows",
            json!({ "spreadsheet_id": id, "sheet": "Data", "start_row": 0, "end_row": 1, "pixel_size": 40 }),
        )
        .await;
    assert_eq!(got["rows"], "1:2", "{got}");
    assert_eq!(pixels(&metadata(&h, &id, "Data", true, 3).await), [40, 40, 21]);
    h.ok("resize_columns", json!({ "spreadsheet_id": id, "sheet": "Data", "start_column": 0, "pixel_size": 60 })).await;
    assert_eq!(pixels(&metadata(&h, &id, "Data", false, 3).await), [60, 100, 100]);

    // Fitting to the content: the long text widens column B, the two-line cell heightens row 2.
    h.ok("resize_columns", json!({ "spreadsheet_id": id, "sheet": "Data", "start_column": 1, "auto_resize": true }))
        .await;
    let widths = pixels(&metadata(&h, &id, "Data", false, 3).await);
    assert!(widths[1] > 100, "{widths:?}");
    assert_eq!(widths[0], 60);
    h.ok(
        "resize_rows",
        json!({ "spreadsheet_id": id, "sheet": "Data", "start_row": 0, "end_row": 1, "auto_resize": true }),
    )
    .await;
    let heights = pixels(&metadata(&h, &id, "Data", true, 2).await);
    assert!(heights[1] > heights[0] && heights[0] >= 21, "{heights:?}");
}

#[tokio::test]
async fn resize_needs_exactly_one_way_to_size() {
    let h = Harness::new().await;
    let id = seed(&h, "Budget", &[("Data", grid(2, 2))]);
    let message = h.err("resize_rows", json!({ "spreadsheet_id": id, "sheet": "Data", "start_row": 0 })).await;
    assert!(message.contains("pixel_size") && message.contains("auto_resize"), "{message}");
    let message = h
        .err(
            "resize_columns",
            json!({ "spreadsheet_id": id, "sheet": "Data", "start_column": 0, "pixel_size": 50, "auto_resize": true }),
        )
        .await;
    assert!(message.contains("not both"), "{message}");
    let message = h
        .err("resize_columns", json!({ "spreadsheet_id": id, "sheet": "Data", "start_column": 0, "pixel_size": 0 }))
        .await;
    assert!(message.contains("pixel_size is 0"), "{message}");
    assert_eq!(pixels(&metadata(&h, &id, "Data", false, 2).await), [100, 100]);
}

#[tokio::test]
async fn sort_range_sorts_formulas_by_their_results() {
    let h = Harness::new().await;
    let rows = vec![
        vec![json!("x"), json!("=5*2")],
        vec![json!("y"), json!(3)],
        vec![json!("blank"), json!("")],
        vec![json!("z"), json!("=0.5+0.5")],
        vec![json!("w"), json!("text")],
    ];
    let id = seed(&h, "Scores", &[("Data", rows)]);
    h.ok(
        "sort_range",
        json!({ "spreadsheet_id": id, "sheet": "Data", "range": "A1:B5", "sort_order": [{ "column_index": 1 }] }),
    )
    .await;
    let names: Vec<String> = values(&h, &id, "Data").into_iter().map(|r| r[0].clone()).collect();
    // Numbers (computed), then text, then blanks.
    assert_eq!(names, ["z", "y", "x", "w", "blank"]);
    assert_eq!(h.google.world().sheets.formula(&id, "Data", 0, 1).as_deref(), Some("=0.5+0.5"));
}
