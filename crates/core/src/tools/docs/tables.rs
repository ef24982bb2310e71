//! The table tools: insert a table, insert or delete rows and columns, merge cells and style cells, each
//! one `documents.batchUpdate`.
//!
//! A table is named by its start index (`get_doc_structure` lists it); rows and columns count from 0.
//! Google checks that a table starts there and that the row or column exists, and its refusal comes back
//! in plain words.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::doc_url;
use super::styles::{docs_color, one_of};
use crate::tools::sheets::style::Rgb;
use crate::tools::{ToolContext, ToolError};

/// The most columns a Docs table may have.
const MAX_COLUMNS: i64 = 20;

/// `TableCellStyle.contentAlignment` without its unspecified members.
const CONTENT_ALIGNMENTS: [&str; 3] = ["TOP", "MIDDLE", "BOTTOM"];

fn one() -> i64 {
    1
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct InsertDocTableArgs {
    /// The document's id (from its URL: docs.google.com/document/d/ID/edit).
    pub doc_id: String,
    /// Where to insert the table (a Docs index inside a paragraph). A newline goes there first, so the
    /// table starts at index + 1.
    pub index: i64,
    /// Number of rows (1 or more).
    pub rows: i64,
    /// Number of columns (1 to 20).
    pub columns: i64,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct InsertTableRowArgs {
    /// The document's id.
    pub doc_id: String,
    /// The table's start index (get_doc_structure lists it).
    pub table_start_index: i64,
    /// The row to insert next to, from 0.
    pub row_index: i64,
    /// Insert below that row (true) or above it (false).
    #[serde(default = "crate::tools::schema::default_true")]
    pub insert_below: bool,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DeleteTableRowArgs {
    /// The document's id.
    pub doc_id: String,
    /// The table's start index (get_doc_structure lists it).
    pub table_start_index: i64,
    /// The row to delete, from 0. Deleting a table's only row deletes the table.
    pub row_index: i64,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct InsertTableColumnArgs {
    /// The document's id.
    pub doc_id: String,
    /// The table's start index (get_doc_structure lists it).
    pub table_start_index: i64,
    /// The column to insert next to, from 0.
    pub column_index: i64,
    /// Insert right of that column (true) or left of it (false).
    #[serde(default = "crate::tools::schema::default_true")]
    pub insert_right: bool,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DeleteTableColumnArgs {
    /// The document's id.
    pub doc_id: String,
    /// The table's start index (get_doc_structure lists it).
    pub table_start_index: i64,
    /// The column to delete, from 0. Deleting a table's only column deletes the table.
    pub column_index: i64,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MergeTableCellsArgs {
    /// The document's id.
    pub doc_id: String,
    /// The table's start index (get_doc_structure lists it).
    pub table_start_index: i64,
    /// The top row of the cells to merge, from 0.
    pub row_index: i64,
    /// The left column of the cells to merge, from 0.
    pub column_index: i64,
    /// How many rows to merge.
    #[serde(default = "one")]
    pub row_span: i64,
    /// How many columns to merge.
    #[serde(default = "one")]
    pub column_span: i64,
}

/// One cell range to style.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CellStyle {
    /// The top row, from 0.
    pub row_index: u32,
    /// The left column, from 0.
    pub column_index: u32,
    /// How many rows to style (default 1).
    #[serde(default)]
    pub row_span: Option<u32>,
    /// How many columns to style (default 1).
    #[serde(default)]
    pub column_span: Option<u32>,
    /// Background colour, `{red, green, blue}` each 0 to 1.
    #[serde(default)]
    pub background_color: Option<Rgb>,
    /// Vertical alignment of the content: TOP, MIDDLE or BOTTOM.
    #[serde(default)]
    pub content_alignment: Option<String>,
    /// Padding on all four sides, in points.
    #[serde(default)]
    pub padding: Option<f64>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StyleDocTableCellsArgs {
    /// The document's id.
    pub doc_id: String,
    /// The table's start index (get_doc_structure lists it).
    pub table_start_index: i64,
    /// The cells to style, each `{row_index, column_index, row_span?, column_span?, background_color?,
    /// content_alignment?, padding?}`.
    pub cells: Vec<CellStyle>,
}

/// A non-negative whole-number argument.
fn count_from_zero(name: &str, value: i64) -> Result<u64, ToolError> {
    u64::try_from(value)
        .map_err(|_| ToolError::invalid(format!("{name} is {value}, but it counts from 0 (the first is 0).")))
}

/// The table start index, which is never before the body's first table position (2).
fn table_start(value: i64) -> Result<u64, ToolError> {
    match u64::try_from(value) {
        Ok(index) if index >= 2 => Ok(index),
        _ => Err(ToolError::invalid(format!(
            "table_start_index is {value}, but no table can start there (the body starts at 1 and a table follows a paragraph). get_doc_structure lists each table's start index."
        ))),
    }
}

fn cell_location(table: u64, row: u64, column: u64) -> Value {
    json!({"tableStartLocation": {"index": table}, "rowIndex": row, "columnIndex": column})
}

/// Sends `request` and answers with the document and `details`.
async fn send(ctx: &ToolContext, doc_id: &str, request: Value, details: Value) -> Result<Value, ToolError> {
    ctx.google.docs().batch_update(doc_id, &[request]).await?;
    let mut reply = json!({"document_id": doc_id, "url": doc_url(doc_id)});
    if let (Value::Object(reply), Value::Object(details)) = (&mut reply, details) {
        reply.extend(details);
    }
    Ok(reply)
}

pub(super) async fn insert_doc_table(ctx: ToolContext, args: InsertDocTableArgs) -> Result<Value, ToolError> {
    if args.index < 1 {
        return Err(ToolError::invalid(format!("index is {}, but the document body starts at index 1.", args.index)));
    }
    if args.rows < 1 {
        return Err(ToolError::invalid(format!("rows is {}: a table needs at least 1 row.", args.rows)));
    }
    if !(1..=MAX_COLUMNS).contains(&args.columns) {
        return Err(ToolError::invalid(format!(
            "columns is {}: a Docs table has 1 to {MAX_COLUMNS} columns.",
            args.columns
        )));
    }
    let request = json!({"insertTable": {
        "location": {"index": args.index},
        "rows": args.rows,
        "columns": args.columns,
    }});
    let details = json!({"table_start_index": args.index + 1, "rows": args.rows, "columns": args.columns});
    send(&ctx, &args.doc_id, request, details).await
}

pub(super) async fn insert_table_row(ctx: ToolContext, args: InsertTableRowArgs) -> Result<Value, ToolError> {
    let table = table_start(args.table_start_index)?;
    let row = count_from_zero("row_index", args.row_index)?;
    let request = json!({"insertTableRow": {
        "tableCellLocation": cell_location(table, row, 0),
        "insertBelow": args.insert_below,
    }});
    let inserted = if args.insert_below { row + 1 } else { row };
    send(&ctx, &args.doc_id, request, json!({"table_start_index": table, "inserted_row_index": inserted})).await
}

pub(super) async fn delete_table_row(ctx: ToolContext, args: DeleteTableRowArgs) -> Result<Value, ToolError> {
    let table = table_start(args.table_start_index)?;
    let row = count_from_zero("row_index", args.row_index)?;
    let request = json!({"deleteTableRow": {"tableCellLocation": cell_location(table, row, 0)}});
    send(&ctx, &args.doc_id, request, json!({"table_start_index": table, "deleted_row_index": row})).await
}

pub(super) async fn insert_table_column(ctx: ToolContext, args: InsertTableColumnArgs) -> Result<Value, ToolError> {
    let table = table_start(args.table_start_index)?;
    let column = count_from_zero("column_index", args.column_index)?;
    let request = json!({"insertTableColumn": {
        "tableCellLocation": cell_location(table, 0, column),
        "insertRight": args.insert_right,
    }});
    let inserted = if args.insert_right { column + 1 } else { column };
    send(&ctx, &args.doc_id, request, json!({"table_start_index": table, "inserted_column_index": inserted})).await
}

pub(super) async fn delete_table_column(ctx: ToolContext, args: DeleteTableColumnArgs) -> Result<Value, ToolError> {
    let table = table_start(args.table_start_index)?;
    let column = count_from_zero("column_index", args.column_index)?;
    let request = json!({"deleteTableColumn": {"tableCellLocation": cell_location(table, 0, column)}});
    send(&ctx, &args.doc_id, request, json!({"table_start_index": table, "deleted_column_index": column})).await
}

pub(super) async fn merge_table_cells(ctx: ToolContext, args: MergeTableCellsArgs) -> Result<Value, ToolError> {
    let table = table_start(args.table_start_index)?;
    let row = count_from_zero("row_index", args.row_index)?;
    let column = count_from_zero("column_index", args.column_index)?;
    if args.row_span < 1 || args.column_span < 1 {
        return Err(ToolError::invalid(format!(
            "row_span is {} and column_span is {}: both must be 1 or more.",
            args.row_span, args.column_span
        )));
    }
    if args.row_span * args.column_span < 2 {
        return Err(ToolError::invalid(
            "row_span and column_span are both 1, which is a single cell: give row_span or column_span 2 or more to merge cells.",
        ));
    }
    let request = json!({"mergeTableCells": {"tableRange": {
        "tableCellLocation": cell_location(table, row, column),
        "rowSpan": args.row_span,
        "columnSpan": args.column_span,
    }}});
    let details = json!({"table_start_index": table, "row_span": args.row_span, "column_span": args.column_span});
    send(&ctx, &args.doc_id, request, details).await
}

/// The `updateTableCellStyle` request for item `i` of `cells`.
fn cell_style_request(table: u64, i: usize, cell: &CellStyle) -> Result<Value, ToolError> {
    let mut style = Map::new();
    if let Some(rgb) = &cell.background_color {
        style.insert("backgroundColor".into(), docs_color(&format!("cells[{i}].background_color"), rgb)?);
    }
    if let Some(alignment) = &cell.content_alignment {
        let valid = one_of(&format!("cells[{i}].content_alignment"), alignment, &CONTENT_ALIGNMENTS)?;
        style.insert("contentAlignment".into(), json!(valid));
    }
    if let Some(padding) = cell.padding {
        if !(0.0..=1000.0).contains(&padding) {
            return Err(ToolError::invalid(format!("cells[{i}].padding is {padding}: give points from 0 up.")));
        }
        for side in ["paddingTop", "paddingBottom", "paddingLeft", "paddingRight"] {
            style.insert(side.into(), json!({"magnitude": padding, "unit": "PT"}));
        }
    }
    if style.is_empty() {
        return Err(ToolError::invalid(format!(
            "cells[{i}] sets no style: give background_color, content_alignment or padding."
        )));
    }
    let (rows, columns) = (cell.row_span.unwrap_or(1), cell.column_span.unwrap_or(1));
    if rows < 1 || columns < 1 {
        return Err(ToolError::invalid(format!("cells[{i}]: row_span and column_span must be 1 or more.")));
    }
    let fields: Vec<&str> = style.keys().map(String::as_str).collect();
    let fields = fields.join(",");
    Ok(json!({"updateTableCellStyle": {
        "tableRange": {
            "tableCellLocation": cell_location(table, u64::from(cell.row_index), u64::from(cell.column_index)),
            "rowSpan": rows,
            "columnSpan": columns,
        },
        "tableCellStyle": style,
        "fields": fields,
    }}))
}

pub(super) async fn style_doc_table_cells(ctx: ToolContext, args: StyleDocTableCellsArgs) -> Result<Value, ToolError> {
    let table = table_start(args.table_start_index)?;
    if args.cells.is_empty() {
        return Err(ToolError::invalid("cells is empty: give at least one {row_index, column_index, ...} to style."));
    }
    let requests = args
        .cells
        .iter()
        .enumerate()
        .map(|(i, cell)| cell_style_request(table, i, cell))
        .collect::<Result<Vec<_>, _>>()?;
    ctx.google.docs().batch_update(&args.doc_id, &requests).await?;
    Ok(json!({
        "document_id": args.doc_id,
        "url": doc_url(&args.doc_id),
        "table_start_index": table,
        "styled": requests.len(),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(value: Value) -> CellStyle {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn a_cell_style_sets_only_what_is_given() {
        let request = cell_style_request(
            5,
            0,
            &cell(json!({"row_index": 1, "column_index": 0, "column_span": 2, "content_alignment": "middle"})),
        )
        .unwrap();
        let update = &request["updateTableCellStyle"];
        assert_eq!(update["fields"], "contentAlignment");
        assert_eq!(update["tableCellStyle"], json!({"contentAlignment": "MIDDLE"}));
        assert_eq!(update["tableRange"]["columnSpan"], 2);
        assert_eq!(update["tableRange"]["tableCellLocation"]["rowIndex"], 1);
    }

    #[test]
    fn a_bad_cell_style_is_named() {
        let cases = [
            (json!({"row_index": 0, "column_index": 0}), "cells[0] sets no style"),
            (json!({"row_index": 0, "column_index": 0, "content_alignment": "CENTER"}), "is not one of TOP"),
            (json!({"row_index": 0, "column_index": 0, "background_color": {"red": 200}}), "run from 0 to 1"),
            (json!({"row_index": 0, "column_index": 0, "background_color": {"alpha": 0.5}}), "opaque"),
            (json!({"row_index": 0, "column_index": 0, "padding": 2, "row_span": 0}), "row_span and column_span"),
        ];
        for (value, needle) in cases {
            let message = cell_style_request(2, 0, &cell(value)).unwrap_err().to_string();
            assert!(message.contains(needle), "{needle} not in: {message}");
        }
    }
}
