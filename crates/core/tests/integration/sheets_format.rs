//! Cell formatting against the emulator: format_cells, update_borders, merge_cells and unmerge_cells.
//! Each test reads the spreadsheet back with `spreadsheets.get` (Google's own JSON) to check the state.

use crate::sheets_common;
use crate::support;

use serde_json::{Value, json};
use sheets_common::{grid, seed, values};
use support::Harness;

/// `spreadsheets.get` of `range` with grid data, limited to `fields`.
async fn get(h: &Harness, id: &str, range: &str, fields: &str) -> Value {
    h.raw_get(&format!("/v4/spreadsheets/{id}"), &[("includeGridData", "true"), ("ranges", range), ("fields", fields)])
        .await
}

/// The `userEnteredFormat` of every cell of `range` (rows of cells; missing cells as null).
async fn formats(h: &Harness, id: &str, range: &str) -> Vec<Vec<Value>> {
    let got = get(h, id, range, "sheets.data.rowData.values.userEnteredFormat").await;
    got["sheets"][0]["data"][0]["rowData"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|row| {
            row["values"]
                .as_array()
                .cloned()
                .unwrap_or_default()
                .iter()
                .map(|c| c["userEnteredFormat"].clone())
                .collect()
        })
        .collect()
}

/// The sheet's merges as (startRow, endRow, startColumn, endColumn).
async fn merges(h: &Harness, id: &str) -> Vec<(i64, i64, i64, i64)> {
    let got = h.raw_get(&format!("/v4/spreadsheets/{id}"), &[("fields", "sheets.merges")]).await;
    let mut out: Vec<_> = got["sheets"][0]["merges"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|m| {
            let n = |k: &str| m[k].as_i64().unwrap_or(0);
            (n("startRowIndex"), n("endRowIndex"), n("startColumnIndex"), n("endColumnIndex"))
        })
        .collect();
    out.sort_unstable();
    out
}

#[tokio::test]
async fn format_cells_sets_only_the_properties_given() {
    let h = Harness::new().await;
    let id = seed(&h, "Budget", &[("Data", grid(3, 3))]);
    let got = h
        .ok(
            "format_cells",
            json!({
                "spreadsheet_id": id, "sheet": "Data", "range": "A1:B2",
                "bold": true, "font_size": 12, "font_color": { "red": 1, "green": 0, "blue": 0 },
                "background_color": { "red": 1, "green": 0.5, "blue": 0, "alpha": 1 },
                "horizontal_alignment": "center", "vertical_alignment": "TOP",
                "number_format_type": "percent", "number_format_pattern": "0.0%",
            }),
        )
        .await;
    assert_eq!(got["range"], "Data!A1:B2", "{got}");
    // A second call with one property keeps what the first set (the field mask names only italic).
    h.ok("format_cells", json!({ "spreadsheet_id": id, "sheet": "Data", "range": "A1", "italic": true })).await;

    let cells = formats(&h, &id, "Data!A1:C3").await;
    let a1 = &cells[0][0];
    assert_eq!(a1["textFormat"]["bold"], true, "{a1}");
    assert_eq!(a1["textFormat"]["italic"], true, "{a1}");
    assert_eq!(a1["textFormat"]["fontSize"], 12, "{a1}");
    assert_eq!(a1["textFormat"]["foregroundColorStyle"]["rgbColor"]["red"], 1.0, "{a1}");
    // Zero components are left out, as proto3 JSON does (blue is 0).
    let background = &a1["backgroundColorStyle"]["rgbColor"];
    assert_eq!((background["red"].as_f64(), background["green"].as_f64()), (Some(1.0), Some(0.5)), "{a1}");
    assert!(background.get("blue").is_none(), "{a1}");
    // Google answers the deprecated spelling too.
    assert_eq!(a1["backgroundColor"], *background, "{a1}");
    assert_eq!(a1["textFormat"]["foregroundColor"], json!({ "red": 1.0 }), "{a1}");
    assert_eq!(a1["horizontalAlignment"], "CENTER");
    assert_eq!(a1["verticalAlignment"], "TOP");
    assert_eq!(a1["numberFormat"], json!({ "type": "PERCENT", "pattern": "0.0%" }));
    let b2 = &cells[1][1];
    assert_eq!(b2["textFormat"]["bold"], true, "{b2}");
    assert!(b2["textFormat"].get("italic").is_none(), "italic reached B2: {b2}");
    // Outside the range nothing changed.
    assert!(cells[0][2].is_null() && cells[2][0].is_null(), "{cells:?}");
    // The values are untouched.
    assert_eq!(values(&h, &id, "Data")[0][0], "r1c1");

    // The effective format (what Sheets shows) carries the new style over the spreadsheet's default.
    let got = get(&h, &id, "Data!A1", "sheets.data.rowData.values.effectiveFormat").await;
    let effective = &got["sheets"][0]["data"][0]["rowData"][0]["values"][0]["effectiveFormat"];
    assert_eq!(effective["textFormat"]["bold"], true, "{effective}");
    assert_eq!(effective["textFormat"]["fontFamily"], "arial,sans,sans-serif", "{effective}");
}

#[tokio::test]
async fn a_number_pattern_alone_is_a_number_format() {
    let h = Harness::new().await;
    let id = seed(&h, "Budget", &[("Data", vec![vec![json!(1234.5)]])]);
    h.ok(
        "format_cells",
        json!({ "spreadsheet_id": id, "sheet": "Data", "range": "A1", "number_format_pattern": "#,##0.00" }),
    )
    .await;
    assert_eq!(
        formats(&h, &id, "Data!A1").await[0][0]["numberFormat"],
        json!({ "type": "NUMBER", "pattern": "#,##0.00" })
    );
    assert_eq!(values(&h, &id, "Data")[0][0], "1,234.50");
}

#[tokio::test]
async fn format_cells_refuses_bad_input_in_plain_words() {
    let h = Harness::new().await;
    let id = seed(&h, "Budget", &[("Data", grid(2, 2))]);
    let call = |extra: Value| {
        let mut args = json!({ "spreadsheet_id": id, "sheet": "Data", "range": "A1:B2" });
        for (k, v) in extra.as_object().unwrap() {
            args[k] = v.clone();
        }
        args
    };
    let message = h.err("format_cells", call(json!({ "horizontal_alignment": "middle" }))).await;
    assert!(message.contains("\"middle\"") && message.contains("LEFT, CENTER, RIGHT"), "{message}");
    let message = h.err("format_cells", call(json!({ "number_format_type": "money" }))).await;
    assert!(message.contains("CURRENCY") && message.contains("DATE_TIME"), "{message}");
    let message = h.err("format_cells", call(json!({ "font_color": { "red": 255, "green": 0, "blue": 0 } }))).await;
    assert!(message.contains("font_color.red is 255") && message.contains("0 to 1"), "{message}");
    let message = h.err("format_cells", call(json!({ "background_color": { "reed": 1 } }))).await;
    assert!(message.contains("background_color") && message.contains("reed"), "{message}");
    let message = h.err("format_cells", call(json!({ "background_color": "#ff0000" }))).await;
    assert!(message.contains("background_color"), "{message}");
    let message = h.err("format_cells", call(json!({}))).await;
    assert!(message.contains("No formatting given"), "{message}");
    let message =
        h.err("format_cells", json!({ "spreadsheet_id": id, "sheet": "Data", "range": "A1:AB2", "bold": true })).await;
    assert!(message.contains("reaches past") && message.contains("26 columns"), "{message}");
    let message =
        h.err("format_cells", json!({ "spreadsheet_id": id, "sheet": "Dtaa", "range": "A1", "bold": true })).await;
    assert!(message.contains("\"Dtaa\"") && message.contains("\"Data\""), "{message}");
    // Nothing reached the sheet.
    assert!(formats(&h, &id, "Data!A1:B2").await.iter().flatten().all(Value::is_null));
}

#[tokio::test]
async fn update_borders_sets_edges_and_inner_lines_and_none_clears() {
    let h = Harness::new().await;
    let id = seed(&h, "Budget", &[("Data", grid(3, 2))]);
    let red = json!({ "red": 1, "green": 0, "blue": 0 });
    let got = h
        .ok(
            "update_borders",
            json!({
                "spreadsheet_id": id, "sheet": "Data", "range": "A1:B3",
                "top": { "style": "solid_thick", "color": red },
                "bottom": { "style": "DOUBLE" },
                "inner_horizontal": { "style": "DASHED", "width": 1 },
            }),
        )
        .await;
    assert_eq!(got["borders"]["top"]["style"], "SOLID_THICK", "{got}");
    let cells = formats(&h, &id, "Data!A1:B3").await;
    let borders = |r: usize, c: usize| cells[r][c]["borders"].clone();
    assert_eq!(borders(0, 0)["top"]["style"], "SOLID_THICK");
    assert_eq!(borders(0, 1)["top"]["colorStyle"]["rgbColor"]["red"], 1.0);
    assert_eq!(borders(0, 0)["bottom"]["style"], "DASHED", "the line between rows 1 and 2");
    assert_eq!(borders(1, 0)["top"]["style"], "DASHED");
    assert_eq!(borders(2, 1)["bottom"]["style"], "DOUBLE");
    assert!(borders(1, 0).get("left").is_none(), "no left edge was asked for: {}", borders(1, 0));

    // NONE removes the top edge again.
    h.ok(
        "update_borders",
        json!({ "spreadsheet_id": id, "sheet": "Data", "range": "A1:B3", "top": { "style": "NONE" } }),
    )
    .await;
    let cells = formats(&h, &id, "Data!A1:B3").await;
    assert!(cells[0][0]["borders"].get("top").is_none(), "{}", cells[0][0]);
    assert_eq!(cells[0][0]["borders"]["bottom"]["style"], "DASHED");
}

#[tokio::test]
async fn update_borders_refuses_bad_input() {
    let h = Harness::new().await;
    let id = seed(&h, "Budget", &[("Data", grid(2, 2))]);
    let message = h
        .err(
            "update_borders",
            json!({ "spreadsheet_id": id, "sheet": "Data", "range": "A1", "left": { "style": "thin" } }),
        )
        .await;
    assert!(
        message.contains("left.style") && message.contains("SOLID_MEDIUM") && message.contains("NONE"),
        "{message}"
    );
    let message = h
        .err("update_borders", json!({ "spreadsheet_id": id, "sheet": "Data", "range": "A1", "left": { "color": {} } }))
        .await;
    assert!(message.contains("style"), "{message}");
    let message = h
        .err(
            "update_borders",
            json!({ "spreadsheet_id": id, "sheet": "Data", "range": "A1", "left": { "style": "SOLID", "color": { "blue": -1 } } }),
        )
        .await;
    assert!(message.contains("left.color.blue"), "{message}");
    let message = h.err("update_borders", json!({ "spreadsheet_id": id, "sheet": "Data", "range": "A1" })).await;
    assert!(message.contains("No border given"), "{message}");
    assert!(formats(&h, &id, "Data!A1:B2").await.iter().flatten().all(Value::is_null));
}

#[tokio::test]
async fn merge_and_unmerge_cells() {
    let h = Harness::new().await;
    let id = seed(&h, "Budget", &[("Data", grid(5, 3))]);
    let got = h.ok("merge_cells", json!({ "spreadsheet_id": id, "sheet": "Data", "range": "A1:B2" })).await;
    assert_eq!(got["merge_type"], "MERGE_ALL", "the default: {got}");
    assert_eq!(merges(&h, &id).await, [(0, 2, 0, 2)]);
    // Merging keeps the top-left value only.
    let rows = values(&h, &id, "Data");
    assert_eq!(rows[0][0], "r1c1");
    assert_eq!(rows[0][1], "");
    assert_eq!(rows[1][0], "");

    h.ok("merge_cells", json!({ "spreadsheet_id": id, "sheet": "Data", "range": "A4:C5", "merge_type": "merge_rows" }))
        .await;
    assert_eq!(merges(&h, &id).await, [(0, 2, 0, 2), (3, 4, 0, 3), (4, 5, 0, 3)]);

    let got = h.ok("unmerge_cells", json!({ "spreadsheet_id": id, "sheet": "Data", "range": "A3:C5" })).await;
    assert_eq!(got["range"], "Data!A3:C5");
    assert_eq!(merges(&h, &id).await, [(0, 2, 0, 2)]);
    h.ok("unmerge_cells", json!({ "spreadsheet_id": id, "sheet": "Data", "range": "A1:C5" })).await;
    assert!(merges(&h, &id).await.is_empty());
}

#[tokio::test]
async fn merge_cells_refuses_bad_input() {
    let h = Harness::new().await;
    let id = seed(&h, "Budget", &[("Data", grid(3, 3))]);
    let message = h
        .err("merge_cells", json!({ "spreadsheet_id": id, "sheet": "Data", "range": "A1:B2", "merge_type": "ALL" }))
        .await;
    assert!(message.contains("MERGE_ALL, MERGE_COLUMNS, MERGE_ROWS"), "{message}");
    let message = h.err("merge_cells", json!({ "spreadsheet_id": id, "sheet": "Data", "range": "B2" })).await;
    assert!(message.contains("nothing to merge"), "{message}");
    let message = h
        .err(
            "merge_cells",
            json!({ "spreadsheet_id": id, "sheet": "Data", "range": "A1:C1", "merge_type": "MERGE_COLUMNS" }),
        )
        .await;
    assert!(message.contains("nothing to merge"), "{message}");
    // A merge that sticks out of the range to unmerge: Google's refusal, passed on.
    h.ok("merge_cells", json!({ "spreadsheet_id": id, "sheet": "Data", "range": "A1:B2" })).await;
    let message = h.err("unmerge_cells", json!({ "spreadsheet_id": id, "sheet": "Data", "range": "A1:A2" })).await;
    assert!(message.contains("merged"), "{message}");
    assert_eq!(merges(&h, &id).await, [(0, 2, 0, 2)]);
}
