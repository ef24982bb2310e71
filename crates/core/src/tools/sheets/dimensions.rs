//! Row and column display: hiding and unhiding (`hiddenByUser`), fixed sizes (`pixelSize`) and fitting
//! to the content (`autoResizeDimensions`).
//!
//! Indexes are 0-based and, as in the reference server these tools stay compatible with, `end_row` /
//! `end_column` is the last index included (omitted = only the start).

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::target::{Dim, Span, send, span};
use crate::tools::{ToolContext, ToolError};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RowsArgs {
    /// The spreadsheet's id.
    pub spreadsheet_id: String,
    /// The sheet (tab) name.
    pub sheet: String,
    /// 0-based index of the first row (0 = row 1).
    pub start_row: u32,
    /// 0-based index of the last row, included; omit for start_row only.
    #[serde(default)]
    pub end_row: Option<u32>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ColumnsArgs {
    /// The spreadsheet's id.
    pub spreadsheet_id: String,
    /// The sheet (tab) name.
    pub sheet: String,
    /// 0-based index of the first column (0 = column A).
    pub start_column: u32,
    /// 0-based index of the last column, included; omit for start_column only.
    #[serde(default)]
    pub end_column: Option<u32>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ResizeRowsArgs {
    /// The spreadsheet's id.
    pub spreadsheet_id: String,
    /// The sheet (tab) name.
    pub sheet: String,
    /// 0-based index of the first row (0 = row 1).
    pub start_row: u32,
    /// 0-based index of the last row, included; omit for start_row only.
    #[serde(default)]
    pub end_row: Option<u32>,
    /// Row height in pixels; give this or auto_resize.
    #[serde(default)]
    pub pixel_size: Option<u32>,
    /// Fit the height to the content instead of pixel_size.
    #[serde(default)]
    pub auto_resize: bool,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ResizeColumnsArgs {
    /// The spreadsheet's id.
    pub spreadsheet_id: String,
    /// The sheet (tab) name.
    pub sheet: String,
    /// 0-based index of the first column (0 = column A).
    pub start_column: u32,
    /// 0-based index of the last column, included; omit for start_column only.
    #[serde(default)]
    pub end_column: Option<u32>,
    /// Column width in pixels; give this or auto_resize.
    #[serde(default)]
    pub pixel_size: Option<u32>,
    /// Fit the width to the content instead of pixel_size.
    #[serde(default)]
    pub auto_resize: bool,
}

pub(super) async fn hide_rows(ctx: ToolContext, args: RowsArgs) -> Result<Value, ToolError> {
    let span = span(&ctx, &args.spreadsheet_id, &args.sheet, Dim::Rows, args.start_row, args.end_row).await?;
    set_hidden(&ctx, &args.spreadsheet_id, &span, true).await
}

pub(super) async fn unhide_rows(ctx: ToolContext, args: RowsArgs) -> Result<Value, ToolError> {
    let span = span(&ctx, &args.spreadsheet_id, &args.sheet, Dim::Rows, args.start_row, args.end_row).await?;
    set_hidden(&ctx, &args.spreadsheet_id, &span, false).await
}

pub(super) async fn hide_columns(ctx: ToolContext, args: ColumnsArgs) -> Result<Value, ToolError> {
    let span = span(&ctx, &args.spreadsheet_id, &args.sheet, Dim::Columns, args.start_column, args.end_column).await?;
    set_hidden(&ctx, &args.spreadsheet_id, &span, true).await
}

pub(super) async fn unhide_columns(ctx: ToolContext, args: ColumnsArgs) -> Result<Value, ToolError> {
    let span = span(&ctx, &args.spreadsheet_id, &args.sheet, Dim::Columns, args.start_column, args.end_column).await?;
    set_hidden(&ctx, &args.spreadsheet_id, &span, false).await
}

pub(super) async fn resize_rows(ctx: ToolContext, args: ResizeRowsArgs) -> Result<Value, ToolError> {
    let how = sizing(Dim::Rows, args.pixel_size, args.auto_resize)?;
    let span = span(&ctx, &args.spreadsheet_id, &args.sheet, Dim::Rows, args.start_row, args.end_row).await?;
    resize(&ctx, &args.spreadsheet_id, &span, how).await
}

pub(super) async fn resize_columns(ctx: ToolContext, args: ResizeColumnsArgs) -> Result<Value, ToolError> {
    let how = sizing(Dim::Columns, args.pixel_size, args.auto_resize)?;
    let span = span(&ctx, &args.spreadsheet_id, &args.sheet, Dim::Columns, args.start_column, args.end_column).await?;
    resize(&ctx, &args.spreadsheet_id, &span, how).await
}

async fn set_hidden(ctx: &ToolContext, spreadsheet_id: &str, span: &Span, hidden: bool) -> Result<Value, ToolError> {
    let request = json!({ "updateDimensionProperties": {
        "range": span.dimension_range(),
        "properties": { "hiddenByUser": hidden },
        "fields": "hiddenByUser",
    } });
    send(ctx, spreadsheet_id, &[request]).await?;
    let noun = span.dim.noun();
    Ok(json!({
        "spreadsheet_id": spreadsheet_id,
        "sheet": span.sheet.title,
        format!("{noun}s"): span.a1(),
        "count": span.end - span.start,
        "hidden": hidden,
    }))
}

/// How to size: a fixed pixel size, or fitted to the content (`None`).
fn sizing(dim: Dim, pixel_size: Option<u32>, auto_resize: bool) -> Result<Option<u32>, ToolError> {
    match (pixel_size, auto_resize) {
        (Some(_), true) => {
            Err(ToolError::invalid("Give either pixel_size or auto_resize=true, not both: they are two ways to size."))
        }
        (None, false) => Err(ToolError::invalid(format!(
            "Nothing to do: give pixel_size (the {} in pixels) or set auto_resize=true to fit the content.",
            if dim == Dim::Rows { "height" } else { "width" }
        ))),
        (Some(0), false) => Err(ToolError::invalid(
            "pixel_size is 0: give a size of 1 pixel or more (use hide_rows or hide_columns to hide).",
        )),
        (Some(pixels), false) => Ok(Some(pixels)),
        (None, true) => Ok(None),
    }
}

async fn resize(ctx: &ToolContext, spreadsheet_id: &str, span: &Span, pixels: Option<u32>) -> Result<Value, ToolError> {
    let request = match pixels {
        Some(pixels) => json!({ "updateDimensionProperties": {
            "range": span.dimension_range(),
            "properties": { "pixelSize": pixels },
            "fields": "pixelSize",
        } }),
        None => json!({ "autoResizeDimensions": { "dimensions": span.dimension_range() } }),
    };
    send(ctx, spreadsheet_id, &[request]).await?;
    let noun = span.dim.noun();
    Ok(json!({
        "spreadsheet_id": spreadsheet_id,
        "sheet": span.sheet.title,
        format!("{noun}s"): span.a1(),
        "pixel_size": pixels,
        "auto_resized": pixels.is_none(),
    }))
}
