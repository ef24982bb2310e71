//! `get_sheet_data` and `get_sheet_formulas`: one range of one sheet.
//!
//! Values are deserialized straight into the cells of the result (`Vec<Vec<Value>>`, moved, never
//! re-serialized), so a large read holds Google's body, then one tree, then the rendered text.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value};

use super::{on_sheet, range_arg, rows_value, sheet_name};
use crate::google::sheets::{ValueRange, ValueRender};
use crate::tools::{ToolContext, ToolError};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GetSheetDataArgs {
    /// The spreadsheet's id (from its URL: docs.google.com/spreadsheets/d/ID/edit).
    pub spreadsheet_id: String,
    /// The sheet (tab) name, e.g. Sheet1.
    pub sheet: String,
    /// A1 range within the sheet, e.g. A1:C10, B:B, 2:5 or A2:C; omit for the whole sheet.
    #[serde(default)]
    pub range: Option<String>,
    /// Also return each cell's formula, format, note and link (larger result).
    #[serde(default)]
    pub include_grid_data: bool,
    /// Write the full result as JSON to this file in the export folder instead of returning it.
    #[serde(default)]
    #[allow(dead_code, reason = "the engine writes the result to local_path")]
    pub local_path: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GetSheetFormulasArgs {
    /// The spreadsheet's id.
    pub spreadsheet_id: String,
    /// The sheet (tab) name, e.g. Sheet1.
    pub sheet: String,
    /// A1 range within the sheet, e.g. A1:C10; omit for the whole sheet.
    #[serde(default)]
    pub range: Option<String>,
}

/// What the grid path asks for: only the parts of each cell it returns.
const GRID_FIELDS: &str = "sheets(properties(sheetId,title),data(startRow,startColumn,rowData(values(formattedValue,userEnteredValue,effectiveValue,userEnteredFormat,note,hyperlink))))";

pub(super) async fn get_sheet_data(
    ctx: ToolContext,
    args: GetSheetDataArgs,
) -> Result<Value, ToolError> {
    let range = range_arg(&args.sheet, args.range.as_deref())?;
    if args.include_grid_data {
        return grid_data(&ctx, &args.spreadsheet_id, &args.sheet, range).await;
    }
    values(
        &ctx,
        &args.spreadsheet_id,
        &args.sheet,
        &range,
        ValueRender::Formatted,
    )
    .await
}

pub(super) async fn get_sheet_formulas(
    ctx: ToolContext,
    args: GetSheetFormulasArgs,
) -> Result<Value, ToolError> {
    let range = range_arg(&args.sheet, args.range.as_deref())?;
    values(
        &ctx,
        &args.spreadsheet_id,
        &args.sheet,
        &range,
        ValueRender::Formula,
    )
    .await
}

/// One `values.get`, answered as `{spreadsheet_id, sheet, range, values}`.
async fn values(
    ctx: &ToolContext,
    spreadsheet_id: &str,
    sheet: &str,
    range: &str,
    render: ValueRender,
) -> Result<Value, ToolError> {
    let answer = ctx
        .google
        .sheets()
        .values_get::<Value>(spreadsheet_id, range, render)
        .await;
    let ValueRange { range, values } = on_sheet(ctx, spreadsheet_id, sheet, answer).await?;
    let mut out = Map::new();
    out.insert("spreadsheet_id".into(), spreadsheet_id.into());
    out.insert("sheet".into(), sheet_name(sheet).into());
    out.insert("range".into(), range.into());
    out.insert("values".into(), rows_value(values));
    Ok(Value::Object(out))
}

/// `spreadsheets.get` with grid data for the range, answered as rows of cells (Google's `CellData` fields).
async fn grid_data(
    ctx: &ToolContext,
    spreadsheet_id: &str,
    sheet: &str,
    range: String,
) -> Result<Value, ToolError> {
    let ranges = [range];
    let answer = ctx
        .google
        .sheets()
        .get_grid(spreadsheet_id, &ranges, GRID_FIELDS)
        .await;
    let spreadsheet = on_sheet(ctx, spreadsheet_id, sheet, answer).await?;
    let [range] = ranges;
    // The sheet that carries the range's data (Google may list the other sheets too, without data).
    let mut target = spreadsheet
        .sheets
        .into_iter()
        .find(|s| matches!(&s.data, Some(Value::Array(data)) if !data.is_empty()))
        .unwrap_or_default();
    // One range gives one `GridData`; proto3 leaves out zero offsets and empty rows.
    let mut grid = match target.data.take() {
        Some(Value::Array(mut data)) if !data.is_empty() => data.swap_remove(0),
        _ => Value::Null,
    };
    let offset = |key: &str| grid.get(key).and_then(Value::as_u64).unwrap_or(0);
    let (start_row, start_column) = (offset("startRow"), offset("startColumn"));
    let rows: Vec<Value> = match grid.get_mut("rowData").map(Value::take) {
        Some(Value::Array(rows)) => rows
            .into_iter()
            .map(|mut row| match row.get_mut("values").map(Value::take) {
                Some(cells @ Value::Array(_)) => cells,
                _ => Value::Array(Vec::new()),
            })
            .collect(),
        _ => Vec::new(),
    };
    let mut out = Map::new();
    out.insert("spreadsheet_id".into(), spreadsheet_id.into());
    out.insert("sheet".into(), target.properties.title.into());
    out.insert("sheet_id".into(), target.properties.sheet_id.into());
    out.insert("range".into(), range.into());
    out.insert("start_row".into(), start_row.into());
    out.insert("start_column".into(), start_column.into());
    out.insert("rows".into(), Value::Array(rows));
    Ok(Value::Object(out))
}
