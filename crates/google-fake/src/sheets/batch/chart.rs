//! `addChart`: the `EmbeddedChart` is checked the way Google checks it before it is placed
//! ([`super::cells::add_chart`] gives it its `chartId` and keeps it in `sheets[].charts`): a spec with
//! exactly one kind of chart, data ranges on sheets that exist and inside their grids, and an overlay
//! anchored on a cell of the grid with sizes that are not negative.

use serde_json::{Map, Value};

use super::{Failure, Outcome, cells, grid_range, obj, sheet_index};
use crate::sheets::model::{Spreadsheet, as_i64};

/// The `ChartSpec` members that each hold one kind of chart (a union in Google's proto).
const KINDS: &[&str] = &[
    "basicChart",
    "pieChart",
    "bubbleChart",
    "candlestickChart",
    "orgChart",
    "histogramChart",
    "waterfallChart",
    "treemapChart",
    "scorecardChart",
];

pub(super) fn add_chart(book: &mut Spreadsheet, body: &Map<String, Value>) -> Outcome {
    let chart = obj(body, "chart");
    let spec = obj(chart, "spec");
    let kinds: Vec<&str> = KINDS.iter().copied().filter(|k| spec.get(*k).is_some_and(Value::is_object)).collect();
    match kinds.as_slice() {
        [] => return Err("The chart spec must set one kind of chart (e.g. basicChart or pieChart).".to_owned().into()),
        [_] => {}
        [first, second, ..] => {
            return Err(format!("A chart spec holds one kind of chart, but both {first} and {second} are set.").into());
        }
    }
    if spec.get("dataSourceChartProperties").is_some() {
        return Err(Failure::Unimplemented);
    }
    let mut ranges = Vec::new();
    spec.values().for_each(|item| collect_sources(item, &mut ranges));
    for range in ranges {
        grid_range(book, range)?;
    }
    check_position(book, obj(chart, "position"))?;
    // Google answers (and keeps) the chart in proto3 JSON: zeros, false and empty members left out.
    let mut stored = body.clone();
    if let Some(chart) = stored.get_mut("chart") {
        proto3(chart);
    }
    cells::add_chart(book, &stored)
}

/// Every `ChartData.sourceRange.sources[]` `GridRange` in the spec, wherever the chart kind keeps it.
fn collect_sources<'a>(value: &'a Value, out: &mut Vec<&'a Map<String, Value>>) {
    match value {
        Value::Object(map) => {
            if let Some(sources) = map.get("sourceRange").and_then(|s| s.get("sources")).and_then(Value::as_array) {
                out.extend(sources.iter().filter_map(Value::as_object));
            }
            for (key, item) in map {
                if key != "sourceRange" {
                    collect_sources(item, out);
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|item| collect_sources(item, out)),
        _ => {}
    }
}

fn check_position(book: &Spreadsheet, position: &Map<String, Value>) -> Result<(), Failure> {
    if position.get("newSheet").and_then(Value::as_bool) == Some(true) {
        // A chart on a sheet of its own: the emulator keeps charts on grid sheets only.
        return Err(Failure::Unimplemented);
    }
    let Some(overlay) = position.get("overlayPosition").and_then(Value::as_object) else {
        return Ok(());
    };
    let anchor = obj(overlay, "anchorCell");
    let index = sheet_index(book, as_i64(anchor.get("sheetId")).unwrap_or(0))?;
    let sheet = &book.sheets[index];
    let row = as_i64(anchor.get("rowIndex")).unwrap_or(0);
    let col = as_i64(anchor.get("columnIndex")).unwrap_or(0);
    if row < 0 || col < 0 || row >= i64::from(sheet.rows) || col >= i64::from(sheet.cols) {
        return Err(format!(
            "The chart's anchor cell (row {row}, column {col}) is outside the grid of sheet {} ({} rows, {} columns).",
            sheet.id, sheet.rows, sheet.cols
        )
        .into());
    }
    for key in ["widthPixels", "heightPixels", "offsetXPixels", "offsetYPixels"] {
        if as_i64(overlay.get(key)).is_some_and(|n| n < 0) {
            return Err(format!("overlayPosition.{key} must not be negative.").into());
        }
    }
    Ok(())
}

/// Leaves out proto3's default values at every depth, lists' items included: zero numbers, false, empty
/// strings and empty lists. A message that was set stays, even empty (`"anchorCell": {}` on sheet 0, A1).
pub(super) fn proto3(value: &mut Value) {
    match value {
        Value::Array(items) => items.iter_mut().for_each(proto3),
        Value::Object(map) => {
            map.values_mut().for_each(proto3);
            map.retain(|_, item| match item {
                Value::Null => false,
                Value::Bool(b) => *b,
                Value::Number(n) => n.as_f64() != Some(0.0),
                Value::String(s) => !s.is_empty(),
                Value::Array(a) => !a.is_empty(),
                Value::Object(_) => true,
            });
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn request(chart: Value) -> Map<String, Value> {
        json!({ "chart": chart }).as_object().cloned().unwrap()
    }

    fn column(c: u32) -> Value {
        json!({ "sourceRange": { "sources": [{ "sheetId": 0, "startRowIndex": 0, "endRowIndex": 4, "startColumnIndex": c, "endColumnIndex": c + 1 }] } })
    }

    #[test]
    fn a_chart_gets_an_id_and_is_kept_in_proto3_json() {
        let mut book = Spreadsheet::new("s", "Book");
        let chart = json!({
            "spec": { "basicChart": { "chartType": "LINE", "headerCount": 1, "domains": [{ "domain": column(0) }], "series": [{ "series": column(1) }] } },
            "position": { "overlayPosition": { "anchorCell": { "sheetId": 0, "rowIndex": 0, "columnIndex": 0 }, "offsetXPixels": 0, "widthPixels": 600 } },
        });
        let Ok(reply) = add_chart(&mut book, &request(chart)) else { panic!("the chart was refused") };
        let stored = &book.sheets[0].charts[0];
        assert_eq!(reply["addChart"]["chart"], *stored);
        assert!(stored["chartId"].as_i64().unwrap() > 0);
        assert_eq!(
            stored["spec"]["basicChart"]["series"][0]["series"]["sourceRange"]["sources"][0],
            json!({ "endRowIndex": 4, "startColumnIndex": 1, "endColumnIndex": 2 })
        );
        assert_eq!(stored["position"]["overlayPosition"], json!({ "anchorCell": {}, "widthPixels": 600 }));
    }

    #[test]
    fn bad_charts_are_refused() {
        let mut book = Spreadsheet::new("s", "Book");
        let refused = |book: &mut Spreadsheet, chart: Value| match add_chart(book, &request(chart)) {
            Err(Failure::Invalid(message)) => message,
            Err(Failure::Unimplemented) => panic!("expected a refusal, got Unimplemented"),
            Ok(reply) => panic!("expected a refusal, got {reply}"),
        };
        assert!(refused(&mut book, json!({ "spec": { "title": "x" } })).contains("one kind of chart"));
        let two = json!({ "spec": { "basicChart": {}, "pieChart": {} } });
        assert!(refused(&mut book, two).contains("both basicChart and pieChart"));
        let outside = json!({ "spec": { "pieChart": { "domain": { "sourceRange": { "sources": [{ "sheetId": 0, "endRowIndex": 5000 }] } } } } });
        assert!(refused(&mut book, outside).contains("exceeds grid limits"));
        let no_sheet =
            json!({ "spec": { "pieChart": { "series": { "sourceRange": { "sources": [{ "sheetId": 7 }] } } } } });
        assert!(refused(&mut book, no_sheet).contains("No grid with id: 7"));
        let anchor = json!({ "spec": { "pieChart": {} }, "position": { "overlayPosition": { "anchorCell": { "rowIndex": 1000 } } } });
        assert!(refused(&mut book, anchor).contains("outside the grid"));
        assert!(book.sheets[0].charts.is_empty());
    }
}
