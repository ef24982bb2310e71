//! Value writes: `update_cells`, `batch_update_cells`, `clear_values`, and the raw `batch_update`.
//!
//! Shapes are checked before anything is sent, so a typo never half-writes: every cell must be a scalar,
//! and a range with both ends given must be large enough for its data (a start cell is always fine).

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::{on_sheet, range_arg, sheet_name};
use crate::a1::A1Range;
use crate::google::sheets::ValueRangeIn;
use rmcp::model::JsonObject;

use crate::tools::google_mcp::object;
use crate::tools::registry::{Output, parse_args_ref};
use crate::tools::schema::CellValue;
use crate::tools::{ToolContext, ToolError};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ClearValuesArgs {
    /// The spreadsheet's id.
    pub spreadsheet_id: String,
    /// The sheet (tab) name.
    pub sheet: String,
    /// A1 range to clear, e.g. A2:D50; omit to clear the whole sheet.
    #[serde(default)]
    pub range: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateCellsArgs {
    /// The spreadsheet's id.
    pub spreadsheet_id: String,
    /// The sheet (tab) name.
    pub sheet: String,
    /// Where to write: a start cell like B2, or a range at least as large as data like B2:D5.
    pub range: String,
    /// Rows of cell values: text, numbers, true/false, or null to leave a cell as it is. Text starting with = is a formula.
    #[schemars(with = "Vec<Vec<CellValue>>")]
    pub data: Vec<Vec<Value>>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BatchUpdateCellsArgs {
    /// The spreadsheet's id.
    pub spreadsheet_id: String,
    /// The sheet (tab) name.
    pub sheet: String,
    /// Each range (start cell or A1 range on the sheet) mapped to its rows of values, e.g. {"A1": [["Name", "Total"]], "D2:D3": [[1], [2]]}.
    #[schemars(with = "BTreeMap<String, Vec<Vec<CellValue>>>")]
    pub ranges: Map<String, Value>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BatchUpdateArgs {
    /// The spreadsheet's id.
    pub spreadsheet_id: String,
    /// Google Sheets API Request objects, each with exactly one kind, e.g. {"repeatCell": {...}} or {"mergeCells": {...}}.
    #[schemars(with = "Vec<Map<String, Value>>")]
    pub requests: Vec<Value>,
}

pub(super) async fn clear_values(ctx: ToolContext, args: ClearValuesArgs) -> Result<Value, ToolError> {
    let range = range_arg(&args.sheet, args.range.as_deref())?;
    let answer = ctx.google.sheets().values_clear(&args.spreadsheet_id, &range).await;
    let cleared = on_sheet(&ctx, &args.spreadsheet_id, &args.sheet, answer).await?;
    Ok(json!({
        "spreadsheet_id": args.spreadsheet_id,
        "sheet": sheet_name(&args.sheet),
        "cleared_range": cleared.cleared_range,
    }))
}

pub(super) async fn update_cells(ctx: ToolContext, args: UpdateCellsArgs) -> Result<Value, ToolError> {
    let range = range_arg(&args.sheet, Some(&args.range))?;
    check_fits(&range, &args.data, "data")?;
    let answer = ctx.google.sheets().values_update(&args.spreadsheet_id, &range, &args.data).await;
    let updated = on_sheet(&ctx, &args.spreadsheet_id, &args.sheet, answer).await?;
    Ok(json!({
        "spreadsheet_id": args.spreadsheet_id,
        "updated_range": updated.updated_range,
        "updated_rows": updated.updated_rows,
        "updated_columns": updated.updated_columns,
        "updated_cells": updated.updated_cells,
    }))
}

/// `update_cells` on Sheets' MCP server: Google's `update_values` stores cells as given (RAW), while
/// `update_cells` types them as the Sheets UI does. So only data that both read alike goes there: numbers,
/// true/false, empty cells, and text that the UI would keep as text too (no digit, no leading `=`, `+`, `-` or
/// `'`, not TRUE/FALSE). Anything else (a formula, a date, "12") runs through REST.
pub(super) fn update_cells_on_mcp(args: &Value) -> Result<Option<JsonObject>, ToolError> {
    let args: UpdateCellsArgs = parse_args_ref("update_cells", args)?;
    let range = range_arg(&args.sheet, Some(&args.range))?;
    check_fits(&range, &args.data, "data")?;
    if !args.data.iter().flatten().all(stored_alike) {
        return Ok(None);
    }
    Ok(Some(object(json!({ "spreadsheetId": args.spreadsheet_id, "range": range, "values": args.data }))))
}

/// Whether a cell reads the same stored as given (RAW) and typed as the Sheets UI types it (USER_ENTERED).
fn stored_alike(cell: &Value) -> bool {
    match cell {
        Value::Null | Value::Bool(_) | Value::Number(_) => true,
        Value::String(text) => {
            !text.chars().any(|c| c.is_ascii_digit())
                && !text.starts_with(['=', '+', '-', '\''])
                && !text.trim().eq_ignore_ascii_case("true")
                && !text.trim().eq_ignore_ascii_case("false")
        }
        _ => false,
    }
}

/// Google's `UpdateValuesResponse` as `update_cells` has always answered.
pub(super) fn update_cells_from_mcp(args: &Value, answer: Value) -> Result<Output, ToolError> {
    let args: UpdateCellsArgs = parse_args_ref("update_cells", args)?;
    Ok(Output::Json(json!({
        "spreadsheet_id": args.spreadsheet_id,
        "updated_range": answer.get("updatedRange").cloned().unwrap_or(Value::Null),
        "updated_rows": answer.get("updatedRows").cloned().unwrap_or(json!(0)),
        "updated_columns": answer.get("updatedColumns").cloned().unwrap_or(json!(0)),
        "updated_cells": answer.get("updatedCells").cloned().unwrap_or(json!(0)),
    })))
}

pub(super) async fn batch_update_cells(ctx: ToolContext, args: BatchUpdateCellsArgs) -> Result<Value, ToolError> {
    if args.ranges.is_empty() {
        return Err(ToolError::invalid(
            "ranges is empty: map at least one range to its values, like {\"A1\": [[\"Name\", \"Total\"]]}.",
        ));
    }
    let mut targets: Vec<(String, Vec<Vec<Value>>)> = Vec::with_capacity(args.ranges.len());
    for (key, value) in args.ranges {
        let label = format!("ranges[{key:?}]");
        let rows = as_rows(value, &label)?;
        let range = range_arg(&args.sheet, Some(&key))?;
        check_fits(&range, &rows, &label)?;
        targets.push((range, rows));
    }
    let data: Vec<ValueRangeIn<'_>> = targets.iter().map(|(range, rows)| ValueRangeIn::rows(range, rows)).collect();
    let answer = ctx.google.sheets().values_batch_update(&args.spreadsheet_id, &data).await;
    let updated = on_sheet(&ctx, &args.spreadsheet_id, &args.sheet, answer).await?;
    let ranges: Vec<&str> = updated.responses.iter().map(|r| r.updated_range.as_str()).collect();
    Ok(json!({
        "spreadsheet_id": args.spreadsheet_id,
        "updated_ranges": ranges,
        "total_updated_rows": updated.total_updated_rows,
        "total_updated_columns": updated.total_updated_columns,
        "total_updated_cells": updated.total_updated_cells,
    }))
}

pub(super) async fn batch_update(ctx: ToolContext, args: BatchUpdateArgs) -> Result<Value, ToolError> {
    check_requests(&args)?;
    let answer = ctx.google.sheets().batch_update::<Value>(&args.spreadsheet_id, &args.requests).await?;
    Ok(json!({ "spreadsheet_id": args.spreadsheet_id, "replies": answer.replies }))
}

/// `batch_update` on Sheets' MCP server: Google's `update_spreadsheet` takes `spreadsheets.batchUpdate`
/// requests as they are (Google applies its own subset and refuses the rest in words).
pub(super) fn batch_update_on_mcp(args: &Value) -> Result<Option<JsonObject>, ToolError> {
    let args: BatchUpdateArgs = parse_args_ref("batch_update", args)?;
    check_requests(&args)?;
    Ok(Some(object(json!({ "spreadsheetId": args.spreadsheet_id, "requests": args.requests }))))
}

/// Google's `BatchUpdateSpreadsheetResponse` as `batch_update` has always answered.
pub(super) fn batch_update_from_mcp(args: &Value, answer: Value) -> Result<Output, ToolError> {
    let args: BatchUpdateArgs = parse_args_ref("batch_update", args)?;
    let replies = answer.get("replies").cloned().unwrap_or_else(|| json!([]));
    Ok(Output::Json(json!({ "spreadsheet_id": args.spreadsheet_id, "replies": replies })))
}

/// Each request an object of exactly one kind, before anything is sent.
fn check_requests(args: &BatchUpdateArgs) -> Result<(), ToolError> {
    if args.requests.is_empty() {
        return Err(ToolError::invalid(
            "requests is empty: give at least one Sheets API request object, like {\"addSheet\": {\"properties\": {\"title\": \"New\"}}}.",
        ));
    }
    for (i, request) in args.requests.iter().enumerate() {
        let Value::Object(request) = request else {
            return Err(ToolError::invalid(format!(
                "requests[{i}] is not an object: each request is an object holding one kind, like {{\"addSheet\": {{\"properties\": {{\"title\": \"New\"}}}}}}."
            )));
        };
        if request.len() != 1 {
            let kinds: Vec<&str> = request.keys().map(String::as_str).collect();
            return Err(ToolError::invalid(format!(
                "requests[{i}] has {} kinds ({}): each request object holds exactly one kind, like {{\"addSheet\": {{...}}}}; put each in its own object.",
                request.len(),
                if kinds.is_empty() { "none".to_owned() } else { kinds.join(", ") },
            )));
        }
    }
    Ok(())
}

/// A JSON value as rows of cells, checking the shape with messages that name the place.
fn as_rows(value: Value, label: &str) -> Result<Vec<Vec<Value>>, ToolError> {
    let not_rows = || {
        ToolError::invalid(format!(
            "{label} must be a list of rows, each a list of cell values, like [[\"a\", 1], [\"b\", 2]]."
        ))
    };
    let Value::Array(rows) = value else {
        return Err(not_rows());
    };
    rows.into_iter().map(|row| if let Value::Array(cells) = row { Ok(cells) } else { Err(not_rows()) }).collect()
}

/// Checks that every cell is a scalar and that `range` (already qualified) can hold `rows`.
fn check_fits(range: &str, rows: &[Vec<Value>], label: &str) -> Result<(), ToolError> {
    if rows.is_empty() || rows.iter().all(Vec::is_empty) {
        return Err(ToolError::invalid(format!(
            "{label} is empty: give at least one row with one value, like [[\"a\"]]."
        )));
    }
    for (r, row) in rows.iter().enumerate() {
        for (c, cell) in row.iter().enumerate() {
            if cell.is_array() || cell.is_object() {
                return Err(ToolError::invalid(format!(
                    "{label} row {r}, column {c} (0-based) is a {}: each cell must be text, a number, true/false, or null to leave the cell unchanged.",
                    if cell.is_array() { "list" } else { "object" },
                )));
            }
        }
    }
    let parsed = A1Range::parse(range)
        .map_err(|e| ToolError::invalid(format!("The range {range:?} could not be read: {e}.")))?;
    let height = rows.len();
    let width = rows.iter().map(Vec::len).max().unwrap_or(0);
    let span = |start: Option<u32>, end: Option<u32>| end.map(|end| end.saturating_sub(start.unwrap_or(0)) as usize);
    let (range_rows, range_cols) = (span(parsed.start_row, parsed.end_row), span(parsed.start_col, parsed.end_col));
    if range_rows == Some(1) && range_cols == Some(1) {
        return Ok(()); // A start cell: the data is written from there.
    }
    let too_small = range_rows.is_some_and(|n| n < height) || range_cols.is_some_and(|n| n < width);
    if too_small {
        let size = |n: Option<usize>, unit: &str| {
            n.map_or(format!("any number of {unit}s"), |n| format!("{n} {unit}{}", if n == 1 { "" } else { "s" }))
        };
        return Err(ToolError::invalid(format!(
            "The range {range} holds {} x {} but {label} has {height} row{} x {width} column{}. Give just the top-left cell (like {}) to write the data from there, or a range large enough for it.",
            size(range_rows, "row"),
            size(range_cols, "column"),
            if height == 1 { "" } else { "s" },
            if width == 1 { "" } else { "s" },
            top_left(&parsed),
        )));
    }
    Ok(())
}

fn top_left(range: &A1Range) -> String {
    let cell = A1Range {
        sheet: None,
        start_row: Some(range.start_row.unwrap_or(0)),
        start_col: Some(range.start_col.unwrap_or(0)),
        end_row: Some(range.start_row.unwrap_or(0) + 1),
        end_col: Some(range.start_col.unwrap_or(0) + 1),
    };
    cell.to_a1()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_start_cell_takes_any_data() {
        assert!(check_fits("Sheet1!B2", &[vec![json!(1), json!(2)], vec![json!(3)]], "data").is_ok());
    }

    #[test]
    fn a_small_range_is_refused_with_the_fix() {
        let text =
            check_fits("Sheet1!A1:B1", &[vec![json!(1), json!(2)], vec![json!(3)]], "data").unwrap_err().to_string();
        assert!(text.contains("1 row x 2 columns"), "{text}");
        assert!(text.contains("2 rows x 2 columns"), "{text}");
        assert!(text.contains("like A1"), "{text}");
    }

    #[test]
    fn open_ranges_check_their_bounded_side() {
        let rows = vec![vec![json!(1), json!(2), json!(3)]];
        assert!(check_fits("Sheet1!A:C", &rows, "data").is_ok());
        assert!(check_fits("Sheet1!A:B", &rows, "data").is_err());
    }

    #[test]
    fn nested_cells_are_named() {
        let text = check_fits("S!A1", &[vec![json!("a"), json!({"x": 1})]], "data").unwrap_err().to_string();
        assert!(text.contains("row 0, column 1"), "{text}");
    }
}

#[cfg(test)]
mod mcp_route_tests {
    use super::*;

    #[test]
    fn only_data_that_reads_alike_raw_and_typed_goes_to_update_values() {
        for alike in [json!(null), json!(true), json!(3.5), json!("Tea"), json!("")] {
            assert!(stored_alike(&alike), "{alike}");
        }
        for typed in [json!("=SUM(A1:A2)"), json!("12"), json!("1/2/2026"), json!("+4"), json!("TRUE"), json!("'x")] {
            assert!(!stored_alike(&typed), "{typed} is typed by the Sheets UI: REST");
        }
        let formula = json!({ "spreadsheet_id": "s", "sheet": "Sheet1", "range": "A1", "data": [["=1+1"]] });
        assert!(update_cells_on_mcp(&formula).expect("valid").is_none());
        let plain = json!({ "spreadsheet_id": "s", "sheet": "Sheet1", "range": "A1", "data": [["Tea", 3]] });
        let routed = update_cells_on_mcp(&plain).expect("valid").expect("routed");
        assert!(routed["range"].as_str().is_some_and(|range| range.ends_with("Sheet1'!A1") || range == "Sheet1!A1"));
        assert_eq!(routed["values"], json!([["Tea", 3]]));
    }
}
