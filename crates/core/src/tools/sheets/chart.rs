//! `add_chart`: a chart of a block of a sheet, floating over that sheet.
//!
//! The block is read the way the Sheets UI reads a selection: the first row holds the series names, the
//! first column the categories (x values), each further column one series. Bar, line, area, column,
//! scatter, combo and stepped-area charts are Sheets' `BasicChartSpec`; pie charts are `PieChartSpec`
//! (first column the slice labels, second their values); histograms are `HistogramChartSpec` (every column
//! one series of values, as in the reference server).

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::sheet_url;
use super::style::choice;
use super::target::grid_target;
use crate::a1::A1Range;
use crate::tools::{ToolContext, ToolError};

/// `BasicChartSpec.chartType` (without its `*_UNSPECIFIED` member), then `PIE` and `HISTOGRAM`.
const CHART_TYPES: &[&str] = &["BAR", "LINE", "AREA", "COLUMN", "SCATTER", "COMBO", "STEPPED_AREA", "PIE", "HISTOGRAM"];

fn default_width() -> u32 {
    600
}

fn default_height() -> u32 {
    400
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AddChartArgs {
    /// The spreadsheet's id.
    pub spreadsheet_id: String,
    /// The sheet (tab) holding the data; the chart is placed on it.
    pub sheet: String,
    /// BAR, LINE, AREA, COLUMN, SCATTER, COMBO, STEPPED_AREA, PIE or HISTOGRAM.
    pub chart_type: String,
    /// A1 range of the data, e.g. A1:C13: first row the series names, first column the categories (x values).
    pub data_range: String,
    /// The chart's title.
    #[serde(default)]
    pub title: Option<String>,
    /// Title of the horizontal axis (not for PIE).
    #[serde(default)]
    pub x_axis_label: Option<String>,
    /// Title of the vertical axis (not for PIE).
    #[serde(default)]
    pub y_axis_label: Option<String>,
    /// Pixels from the sheet's left edge to the chart's left edge.
    #[serde(default)]
    pub position_x: u32,
    /// Pixels from the sheet's top edge to the chart's top edge.
    #[serde(default)]
    pub position_y: u32,
    /// The chart's width in pixels.
    #[serde(default = "default_width")]
    pub width: u32,
    /// The chart's height in pixels.
    #[serde(default = "default_height")]
    pub height: u32,
}

pub(super) async fn add_chart(ctx: ToolContext, args: AddChartArgs) -> Result<Value, ToolError> {
    let chart_type = choice("chart_type", &args.chart_type, CHART_TYPES)?;
    let label = |v: &Option<String>| v.as_deref().map(str::trim).filter(|t| !t.is_empty()).map(str::to_owned);
    let (title, x_label, y_label) = (label(&args.title), label(&args.x_axis_label), label(&args.y_axis_label));
    if matches!(chart_type, "PIE" | "HISTOGRAM") && (x_label.is_some() || y_label.is_some()) {
        return Err(ToolError::invalid(format!(
            "A {chart_type} chart has no axis titles: omit x_axis_label and y_axis_label, or choose another chart_type."
        )));
    }
    if args.width == 0 || args.height == 0 {
        return Err(ToolError::invalid("width and height must be at least 1 pixel (defaults: 600 x 400)."));
    }
    let target = grid_target(&ctx, &args.spreadsheet_id, &args.sheet, &args.data_range).await?;
    let (r0, r1, c0, c1) = target.bounds();
    let sheet_id = target.sheet.sheet_id;
    let (needed_columns, fits) = match chart_type {
        "PIE" => ("two columns: the slice labels, then their values", c1 - c0 == 2),
        "HISTOGRAM" => ("at least one column of values", c1 > c0),
        _ => ("at least two columns: the categories (x values), then one column per series", c1 - c0 >= 2),
    };
    if !fits {
        return Err(ToolError::invalid(format!(
            "data_range {:?} has {} column{}, but a {chart_type} chart takes {needed_columns}.",
            args.data_range,
            c1 - c0,
            if c1 - c0 == 1 { "" } else { "s" },
        )));
    }
    if r1 - r0 < 2 {
        return Err(ToolError::invalid(format!(
            "data_range {:?} has {} row{}: give the header row (the series names) and at least one row of data.",
            args.data_range,
            r1 - r0,
            if r1 - r0 == 1 { "" } else { "s" },
        )));
    }
    // One column of the block, from `first_row` down, as `ChartData`.
    let column = |col: u32, first_row: u32| {
        let range = A1Range {
            sheet: None,
            start_row: Some(first_row),
            end_row: Some(r1),
            start_col: Some(col),
            end_col: Some(col + 1),
        };
        json!({ "sourceRange": { "sources": [range.to_grid_range(sheet_id)] } })
    };
    let mut spec = if chart_type == "HISTOGRAM" {
        // Every column is one series of values; like a pie, its data starts below the header row.
        let series: Vec<Value> = (c0..c1).map(|col| json!({ "data": column(col, r0 + 1) })).collect();
        json!({ "histogramChart": { "legendPosition": "RIGHT_LEGEND", "series": series } })
    } else if chart_type == "PIE" {
        // A pie has no header row setting: its data starts below the header.
        json!({ "pieChart": {
            "legendPosition": "RIGHT_LEGEND",
            "domain": column(c0, r0 + 1),
            "series": column(c0 + 1, r0 + 1),
        } })
    } else {
        // Series values run along the minor axis: horizontal for BAR, vertical for every other type.
        let value_axis = if chart_type == "BAR" { "BOTTOM_AXIS" } else { "LEFT_AXIS" };
        let series: Vec<Value> = (c0 + 1..c1)
            .enumerate()
            .map(|(i, col)| {
                let mut item = json!({ "series": column(col, r0), "targetAxis": value_axis });
                if chart_type == "COMBO" {
                    // A combo chart draws the first series as columns and the others as lines.
                    item["type"] = json!(if i == 0 { "COLUMN" } else { "LINE" });
                }
                item
            })
            .collect();
        let mut axis = Vec::new();
        if let Some(x) = &x_label {
            axis.push(json!({ "position": "BOTTOM_AXIS", "title": x }));
        }
        if let Some(y) = &y_label {
            axis.push(json!({ "position": "LEFT_AXIS", "title": y }));
        }
        let mut basic = json!({
            "chartType": chart_type,
            "legendPosition": "BOTTOM_LEGEND",
            "headerCount": 1,
            "domains": [{ "domain": column(c0, r0) }],
            "series": series,
        });
        if !axis.is_empty() {
            basic["axis"] = Value::Array(axis);
        }
        json!({ "basicChart": basic })
    };
    if let Some(title) = &title {
        spec["title"] = json!(title);
    }
    let chart = json!({
        "spec": spec,
        "position": { "overlayPosition": {
            "anchorCell": { "sheetId": sheet_id, "rowIndex": 0, "columnIndex": 0 },
            "offsetXPixels": args.position_x,
            "offsetYPixels": args.position_y,
            "widthPixels": args.width,
            "heightPixels": args.height,
        } },
    });
    let request = json!({ "addChart": { "chart": chart } });
    let answer = ctx.google.sheets().batch_update::<Value>(&args.spreadsheet_id, &[request]).await?;
    let chart_id = answer.replies.first().and_then(|r| r["addChart"]["chart"]["chartId"].as_i64());
    Ok(json!({
        "spreadsheet_id": args.spreadsheet_id,
        "sheet": target.sheet.title,
        "chart_id": chart_id,
        "chart_type": chart_type,
        "data_range": target.a1(),
        "title": title,
        "url": sheet_url(&args.spreadsheet_id, sheet_id),
    }))
}
