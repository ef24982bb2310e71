//! Where a formatting or layout tool acts: a sheet named by title plus an A1 range (as a Sheets
//! `GridRange`), or a span of rows or columns given by 0-based indexes. Both are checked against the
//! sheet's size first, so a range past the grid is refused in plain words before Google is asked.

use serde_json::{Value, json};

use super::{range_arg, resolve_sheet};
use crate::a1::{A1Range, column_letters};
use crate::google::sheets::{Reply, SheetProperties};
use crate::tools::{ToolContext, ToolError};

/// A resolved A1 range on one sheet.
#[derive(Debug, Clone)]
pub(super) struct GridTarget {
    pub sheet: SheetProperties,
    pub range: A1Range,
}

impl GridTarget {
    /// Sheets' `GridRange` JSON.
    pub(super) fn grid_range(&self) -> Value {
        self.range.to_grid_range(self.sheet.sheet_id)
    }

    /// The range as A1 text, with its sheet (`'My Sheet'!A1:C3`).
    pub(super) fn a1(&self) -> String {
        self.range.to_a1()
    }

    /// The range's rows and columns, resolved against the sheet's size.
    pub(super) fn bounds(&self) -> (u32, u32, u32, u32) {
        let (rows, cols) = size(&self.sheet);
        (
            self.range.start_row.unwrap_or(0),
            self.range.end_row.unwrap_or(rows),
            self.range.start_col.unwrap_or(0),
            self.range.end_col.unwrap_or(cols),
        )
    }
}

/// The sheet's (rows, columns).
pub(super) fn size(sheet: &SheetProperties) -> (u32, u32) {
    let clamp = |n: i64| u32::try_from(n.max(0)).unwrap_or(u32::MAX);
    (clamp(sheet.grid_properties.row_count), clamp(sheet.grid_properties.column_count))
}

/// Resolves `sheet` and the A1 `range` (e.g. `A1:D5`, `B:B`, `2:5`) with one `spreadsheets.get`.
pub(super) async fn grid_target(
    ctx: &ToolContext,
    spreadsheet_id: &str,
    sheet: &str,
    range: &str,
) -> Result<GridTarget, ToolError> {
    if range.trim().is_empty() {
        return Err(ToolError::invalid("range is empty: give the cells in A1 notation, like A1:D5, B:B or 2:5."));
    }
    let text = range_arg(sheet, Some(range))?;
    let parsed = A1Range::parse(&text)?;
    let properties = resolve_sheet(ctx, spreadsheet_id, sheet).await?;
    let target = GridTarget { range: A1Range { sheet: Some(properties.title.clone()), ..parsed }, sheet: properties };
    let (rows, cols) = size(&target.sheet);
    let (_, end_row, _, end_col) = target.bounds();
    if end_row > rows || end_col > cols {
        return Err(ToolError::invalid(format!(
            "The range {range:?} reaches past sheet {:?}, which has {rows} rows and {cols} columns (A1:{}{rows}). Use a range inside it, or add rows or columns first (add_rows, add_columns).",
            target.sheet.title,
            column_letters(cols.saturating_sub(1)),
        )));
    }
    Ok(target)
}

/// Rows or columns, with the words and A1 labels for each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Dim {
    Rows,
    Columns,
}

impl Dim {
    pub(super) const fn api(self) -> &'static str {
        match self {
            Dim::Rows => "ROWS",
            Dim::Columns => "COLUMNS",
        }
    }

    pub(super) const fn noun(self) -> &'static str {
        match self {
            Dim::Rows => "row",
            Dim::Columns => "column",
        }
    }

    /// The name of the argument that starts a span (`start_row`, `start_column`).
    pub(super) const fn arg(self) -> &'static str {
        match self {
            Dim::Rows => "start_row",
            Dim::Columns => "start_column",
        }
    }

    /// How many rows (or columns) the sheet has.
    pub(super) fn size(self, sheet: &SheetProperties) -> u32 {
        let (rows, cols) = size(sheet);
        if self == Dim::Rows { rows } else { cols }
    }

    /// The A1 label of 0-based indexes `start..end` (exclusive): rows `3:5`, columns `C:E`.
    pub(super) fn a1(self, start: u32, end: u32) -> String {
        match self {
            Dim::Rows => format!("{}:{}", u64::from(start) + 1, end),
            Dim::Columns => format!("{}:{}", column_letters(start), column_letters(end.saturating_sub(1))),
        }
    }
}

/// A span of rows or columns on a resolved sheet; `end` is exclusive, as Sheets counts.
#[derive(Debug, Clone)]
pub(super) struct Span {
    pub sheet: SheetProperties,
    pub dim: Dim,
    pub start: u32,
    pub end: u32,
}

impl Span {
    /// Sheets' `DimensionRange` JSON.
    pub(super) fn dimension_range(&self) -> Value {
        json!({ "sheetId": self.sheet.sheet_id, "dimension": self.dim.api(), "startIndex": self.start, "endIndex": self.end })
    }

    pub(super) fn a1(&self) -> String {
        self.dim.a1(self.start, self.end)
    }
}

/// Resolves `sheet` and the 0-based `start`..=`last` span (the reference server's convention: the last
/// index is included, and omitted means only `start`).
pub(super) async fn span(
    ctx: &ToolContext,
    spreadsheet_id: &str,
    sheet: &str,
    dim: Dim,
    start: u32,
    last: Option<u32>,
) -> Result<Span, ToolError> {
    let noun = dim.noun();
    let last = last.unwrap_or(start);
    if last < start {
        return Err(ToolError::invalid(format!(
            "end_{noun} ({last}) is before start_{noun} ({start}). Both are 0-based and end_{noun} is included: start_{noun}={start}, end_{noun}={start} is one {noun}."
        )));
    }
    let sheet = resolve_sheet(ctx, spreadsheet_id, sheet).await?;
    let count = dim.size(&sheet);
    if last >= count {
        return Err(ToolError::invalid(format!(
            "Sheet {:?} has {count} {noun}s (0-based indexes 0 to {}), so {noun} {last} does not exist. Nothing was changed.",
            sheet.title,
            count.saturating_sub(1),
        )));
    }
    Ok(Span { sheet, dim, start, end: last + 1 })
}

/// Sends `requests` in one `spreadsheets.batchUpdate` (all or nothing, as Google applies them).
pub(super) async fn send(ctx: &ToolContext, spreadsheet_id: &str, requests: &[Value]) -> Result<(), ToolError> {
    ctx.google.sheets().batch_update::<Reply>(spreadsheet_id, requests).await?;
    Ok(())
}
