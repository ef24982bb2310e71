//! add_chart against the emulator: the chart lands in `sheets[].charts` of spreadsheets.get with the id
//! the tool reported, its spec reading the range as series and categories, and its position and size.

use crate::sheets_common;
use crate::support;

use serde_json::{Value, json};
use sheets_common::seed;
use support::Harness;

fn sales() -> Vec<Vec<Value>> {
    vec![
        vec![json!("Month"), json!("North"), json!("South")],
        vec![json!("Jan"), json!(10), json!(7)],
        vec![json!("Feb"), json!(12), json!(9)],
        vec![json!("Mar"), json!(15), json!(11)],
    ]
}

/// The charts of the spreadsheet, as Google's JSON has them.
async fn charts(h: &Harness, id: &str) -> Vec<Value> {
    let book = h.raw_get(&format!("/v4/spreadsheets/{id}"), &[("fields", "sheets(properties(title),charts)")]).await;
    book["sheets"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| s["charts"].as_array().cloned().unwrap_or_default())
        .collect()
}

fn grid(sheet_id: i64, r0: u32, r1: u32, c0: u32, c1: u32) -> Value {
    let mut range = json!({ "sheetId": sheet_id, "endRowIndex": r1, "endColumnIndex": c1 });
    // Proto3 leaves zero out.
    if r0 > 0 {
        range["startRowIndex"] = json!(r0);
    }
    if c0 > 0 {
        range["startColumnIndex"] = json!(c0);
    }
    if sheet_id == 0 {
        range.as_object_mut().unwrap().remove("sheetId");
    }
    range
}

fn sources(data: &Value) -> Value {
    data["sourceRange"]["sources"].clone()
}

#[tokio::test]
async fn a_column_chart_reads_categories_and_series() {
    let h = Harness::new().await;
    let id = seed(&h, "Sales", &[("Data", sales())]);
    let got = h
        .ok(
            "add_chart",
            json!({
                "spreadsheet_id": id, "sheet": "Data", "chart_type": "column", "data_range": "A1:C4",
                "title": "Sales by month", "x_axis_label": "Month", "y_axis_label": "Units",
                "position_x": 40, "position_y": 300,
            }),
        )
        .await;
    assert_eq!(got["chart_type"], "COLUMN");
    assert_eq!(got["data_range"], "Data!A1:C4");
    let all = charts(&h, &id).await;
    assert_eq!(all.len(), 1);
    let chart = &all[0];
    assert_eq!(chart["chartId"], got["chart_id"]);
    let spec = &chart["spec"];
    assert_eq!(spec["title"], "Sales by month");
    let basic = &spec["basicChart"];
    assert_eq!(basic["chartType"], "COLUMN");
    assert_eq!(basic["headerCount"], 1);
    let sheet_id = chart["position"]["overlayPosition"]["anchorCell"]["sheetId"].as_i64().unwrap_or(0);
    assert_eq!(sources(&basic["domains"][0]["domain"]), json!([grid(sheet_id, 0, 4, 0, 1)]));
    let series: Vec<Value> = basic["series"].as_array().unwrap().iter().map(|s| sources(&s["series"])).collect();
    assert_eq!(series, [json!([grid(sheet_id, 0, 4, 1, 2)]), json!([grid(sheet_id, 0, 4, 2, 3)])]);
    assert_eq!(
        basic["axis"],
        json!([{ "position": "BOTTOM_AXIS", "title": "Month" }, { "position": "LEFT_AXIS", "title": "Units" }])
    );
    let overlay = &chart["position"]["overlayPosition"];
    assert_eq!((overlay["offsetXPixels"].clone(), overlay["offsetYPixels"].clone()), (json!(40), json!(300)));
    assert_eq!((overlay["widthPixels"].clone(), overlay["heightPixels"].clone()), (json!(600), json!(400)));

    // A second chart gets its own id.
    let line = h
        .ok("add_chart", json!({ "spreadsheet_id": id, "sheet": "Data", "chart_type": "LINE", "data_range": "A1:B4" }))
        .await;
    assert_ne!(line["chart_id"], got["chart_id"]);
    let all = charts(&h, &id).await;
    assert_eq!(all.len(), 2);
    assert_eq!(all[1]["spec"]["basicChart"]["chartType"], "LINE");
    assert!(all[1]["spec"].get("title").is_none());
}

#[tokio::test]
async fn bar_combo_and_pie_charts() {
    let h = Harness::new().await;
    let id = seed(&h, "Sales", &[("Data", sales())]);
    let base = |kind: &str, range: &str| json!({ "spreadsheet_id": id, "sheet": "Data", "chart_type": kind, "data_range": range, "width": 300, "height": 200 });
    h.ok("add_chart", base("BAR", "A1:C4")).await;
    h.ok("add_chart", base("COMBO", "A1:C4")).await;
    h.ok("add_chart", base("PIE", "A1:B4")).await;
    let all = charts(&h, &id).await;
    // A bar chart's values run along the horizontal axis.
    assert!(
        all[0]["spec"]["basicChart"]["series"].as_array().unwrap().iter().all(|s| s["targetAxis"] == "BOTTOM_AXIS")
    );
    let types: Vec<&Value> =
        all[1]["spec"]["basicChart"]["series"].as_array().unwrap().iter().map(|s| &s["type"]).collect();
    assert_eq!(types, [&json!("COLUMN"), &json!("LINE")]);
    let pie = &all[2]["spec"]["pieChart"];
    // The pie's data starts below the header row.
    assert_eq!(sources(&pie["domain"]), json!([grid(0, 1, 4, 0, 1)]));
    assert_eq!(sources(&pie["series"]), json!([grid(0, 1, 4, 1, 2)]));
    assert_eq!(all[2]["position"]["overlayPosition"]["widthPixels"], 300);
}

/// The reference server's chart types include HISTOGRAM: every column is one series of values.
#[tokio::test]
async fn histogram_charts_take_every_column_as_a_series() {
    let h = Harness::new().await;
    let id = seed(&h, "Sales", &[("Data", sales())]);
    let got = h
        .ok(
            "add_chart",
            json!({ "spreadsheet_id": id, "sheet": "Data", "chart_type": "histogram", "data_range": "B1:C4" }),
        )
        .await;
    assert_eq!(got["chart_type"], "HISTOGRAM");
    let all = charts(&h, &id).await;
    assert_eq!(all.len(), 1);
    assert_eq!(all[0]["chartId"], got["chart_id"]);
    let series = all[0]["spec"]["histogramChart"]["series"].as_array().unwrap();
    // Each column's values, below the header row.
    assert_eq!(series.len(), 2);
    assert_eq!(sources(&series[0]["data"]), json!([grid(0, 1, 4, 1, 2)]));
    assert_eq!(sources(&series[1]["data"]), json!([grid(0, 1, 4, 2, 3)]));
}

#[tokio::test]
async fn bad_charts_are_refused_before_anything_is_added() {
    let h = Harness::new().await;
    let id = seed(&h, "Sales", &[("Data", sales())]);
    let call = |kind: &str, range: &str, extra: Value| {
        let mut args = json!({ "spreadsheet_id": id, "sheet": "Data", "chart_type": kind, "data_range": range });
        for (k, v) in extra.as_object().unwrap() {
            args[k] = v.clone();
        }
        args
    };
    let message = h.err("add_chart", call("DONUT", "A1:C4", json!({}))).await;
    assert!(message.contains("\"DONUT\"") && message.contains("PIE"), "{message}");
    let message = h.err("add_chart", call("LINE", "A1:A4", json!({}))).await;
    assert!(message.contains("has 1 column") && message.contains("at least two columns"), "{message}");
    let message = h.err("add_chart", call("PIE", "A1:C4", json!({}))).await;
    assert!(message.contains("has 3 columns") && message.contains("slice labels"), "{message}");
    let message = h.err("add_chart", call("PIE", "A1:B4", json!({ "x_axis_label": "x" }))).await;
    assert!(message.contains("no axis titles"), "{message}");
    let message = h.err("add_chart", call("HISTOGRAM", "A1:C4", json!({ "y_axis_label": "y" }))).await;
    assert!(message.contains("HISTOGRAM") && message.contains("no axis titles"), "{message}");
    let message = h.err("add_chart", call("LINE", "A1:C1", json!({}))).await;
    assert!(message.contains("has 1 row"), "{message}");
    let message = h.err("add_chart", call("LINE", "A1:C4", json!({ "width": 0 }))).await;
    assert!(message.contains("at least 1 pixel"), "{message}");
    let message = h.err("add_chart", call("LINE", "Other!A1:C4", json!({}))).await;
    assert!(message.contains("Other") && message.contains("Data"), "{message}");
    assert!(charts(&h, &id).await.is_empty());
}
