//! `spreadsheets.values.*`: reads and writes of A1 ranges.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value, json};

use super::a1::{self, Span};
use super::cell::{self, Input};
use super::eval::Eval;
use super::model::{Rect, Render, Spreadsheet, Target, prune};
use crate::errors::ApiError;

/// Read options shared by `values.get` and `values.batchGet` (and the `response*` write options).
#[derive(Debug, Clone, Copy)]
pub(crate) struct ReadOptions {
    pub columns: bool,
    pub render: Render,
    pub date_strings: bool,
}

impl ReadOptions {
    pub(crate) fn new(major: Option<&str>, render: Option<&str>, date_time: Option<&str>) -> Self {
        Self {
            columns: major == Some("COLUMNS"),
            render: match render {
                Some("UNFORMATTED_VALUE") => Render::Unformatted,
                Some("FORMULA") => Render::Formula,
                _ => Render::Formatted,
            },
            date_strings: date_time == Some("FORMATTED_STRING"),
        }
    }
}

/// The rectangle a read reports: clamped to the grid, or as written when it starts outside it.
fn read_rect(book: &Spreadsheet, target: Target) -> Rect {
    let sheet = &book.sheets[target.sheet];
    let rect = sheet.clamp(target.span);
    if rect.is_empty() {
        let span = target.span;
        return Rect {
            r0: span.start_row,
            c0: span.start_col,
            r1: span.end_row.unwrap_or(span.start_row + 1),
            c1: span.end_col.unwrap_or(span.start_col + 1),
        };
    }
    rect
}

/// One `ValueRange`.
pub(crate) fn value_range(book: &Spreadsheet, eval: &mut Eval<'_>, target: Target, options: ReadOptions) -> Value {
    let rect = read_rect(book, target);
    let values = eval.values(target.sheet, rect, options.columns, options.render, options.date_strings);
    let mut out = json!({
        "range": book.a1(target.sheet, rect),
        "majorDimension": if options.columns { "COLUMNS" } else { "ROWS" },
    });
    if !values.is_empty() {
        out["values"] = json!(values);
    }
    out
}

/// A write request, parsed and checked, not yet applied.
pub(crate) struct Write {
    pub target: Target,
    /// Row-major input; `None` = leave the cell alone.
    pub grid: Vec<Vec<Option<Input>>>,
}

/// Parses a `ValueRange` body against the range it is written to.
pub(crate) fn parse_write(
    book: &Spreadsheet,
    range: &str,
    body: &Map<String, Value>,
    user_entered: bool,
    label: &str,
) -> Result<Write, ApiError> {
    let target = book.resolve(range)?;
    if let Some(own) = body.get("range").and_then(Value::as_str) {
        let mine = book.resolve(own).map(|t| (t.sheet, t.span)).ok();
        if mine != Some((target.sheet, target.span)) {
            return Err(ApiError::invalid(format!("Request range[{range}] does not match value's range[{own}]")));
        }
    }
    let columns = body.get("majorDimension").and_then(Value::as_str) == Some("COLUMNS");
    let raw = body.get("values").and_then(Value::as_array).cloned().unwrap_or_default();
    let mut major = Vec::with_capacity(raw.len());
    for (i, line) in raw.iter().enumerate() {
        let items = line.as_array().cloned().unwrap_or_default();
        let mut parsed = Vec::with_capacity(items.len());
        for (j, item) in items.iter().enumerate() {
            let input = cell::parse_input(item, user_entered)
                .map_err(|()| ApiError::invalid(format!("Invalid {label}values[{i}][{j}]: {item}")))?;
            parsed.push(input);
        }
        major.push(parsed);
    }
    let grid = if columns {
        let height = major.iter().map(Vec::len).max().unwrap_or(0);
        let mut rows: Vec<Vec<Option<Input>>> = (0..height).map(|_| Vec::new()).collect();
        for (c, column) in major.into_iter().enumerate() {
            for (r, item) in column.into_iter().enumerate() {
                let row = &mut rows[r];
                if row.len() < c {
                    row.resize(c, None);
                }
                row.push(item);
            }
        }
        rows
    } else {
        major
    };
    Ok(Write { target, grid })
}

/// Refuses data that doesn't fit the range it is written to (`values.update`, `values.batchUpdate`).
pub(crate) fn check_bounds(range: &str, write: &Write) -> Result<(), ApiError> {
    let span = write.target.span;
    let height = write.grid.len() as u32;
    let width = write.grid.iter().map(Vec::len).max().unwrap_or(0) as u32;
    // A single cell is a start cell: Google writes the data from there, however large
    // (`values.update` of `Sheet1!A1` with rows of values is the common idiom).
    let start_cell = span.end_row == Some(span.start_row + 1) && span.end_col == Some(span.start_col + 1);
    if let Some(end) = span.end_row.filter(|_| !start_cell)
        && span.start_row + height > end
    {
        return Err(ApiError::invalid(format!(
            "Requested writing within range [{range}], but tried writing to row [{}]",
            end + 1
        )));
    }
    if let Some(end) = span.end_col.filter(|_| !start_cell)
        && span.start_col + width > end
    {
        return Err(ApiError::invalid(format!(
            "Requested writing within range [{range}], but tried writing to column [{}]",
            a1::column_name(end)
        )));
    }
    if span.start_row + height > a1::MAX_ROWS || span.start_col + width > a1::MAX_COLUMNS {
        return Err(ApiError::invalid(format!("Range ({range}) exceeds grid limits.")));
    }
    Ok(())
}

/// What one write did.
pub(crate) struct Written {
    pub sheet: usize,
    pub rect: Rect,
    pub rows: u32,
    pub cols: u32,
    pub cells: u32,
}

/// Grows the grids the writes need (Google expands a sheet for values writes), within the cell limit.
pub(crate) fn expand_for(book: &mut Spreadsheet, writes: &[Write]) -> Result<(), ApiError> {
    let mut needed: BTreeMap<usize, (u32, u32)> = BTreeMap::new();
    for write in writes {
        let height = write.grid.len() as u32;
        let width = write.grid.iter().map(Vec::len).max().unwrap_or(0) as u32;
        if height == 0 || width == 0 {
            continue;
        }
        let entry = needed.entry(write.target.sheet).or_insert((0, 0));
        entry.0 = entry.0.max(write.target.span.start_row + height);
        entry.1 = entry.1.max(write.target.span.start_col + width);
    }
    let mut total = book.total_cells();
    for (&index, &(rows, cols)) in &needed {
        let sheet = &book.sheets[index];
        let (new_rows, new_cols) = (sheet.rows.max(rows), sheet.cols.max(cols));
        total = total - u64::from(sheet.rows) * u64::from(sheet.cols) + u64::from(new_rows) * u64::from(new_cols);
    }
    if total > super::model::CELL_LIMIT {
        return Err(ApiError::invalid(format!(
            "This action would increase the number of cells in the workbook above the limit of {} cells.",
            super::model::CELL_LIMIT
        )));
    }
    for (index, (rows, cols)) in needed {
        let sheet = &mut book.sheets[index];
        sheet.rows = sheet.rows.max(rows);
        sheet.cols = sheet.cols.max(cols);
    }
    Ok(())
}

/// Applies a checked write (the grid must already be large enough).
pub(crate) fn apply_write(book: &mut Spreadsheet, write: Write) -> Written {
    let Target { sheet, span } = write.target;
    let height = write.grid.len() as u32;
    let width = write.grid.iter().map(Vec::len).max().unwrap_or(0) as u32;
    let mut rows = BTreeSet::new();
    let mut cols = BTreeSet::new();
    let mut cells = 0;
    for (i, row) in write.grid.into_iter().enumerate() {
        for (j, item) in row.into_iter().enumerate() {
            if let Some(input) = item {
                let (r, c) = (span.start_row + i as u32, span.start_col + j as u32);
                book.write(sheet, r, c, input);
                rows.insert(r);
                cols.insert(c);
                cells += 1;
            }
        }
    }
    if let Some(s) = book.sheets.get_mut(sheet) {
        s.trim();
    }
    let rect = Rect {
        r0: span.start_row,
        c0: span.start_col,
        r1: span.start_row + height.max(1),
        c1: span.start_col + width.max(1),
    };
    Written { sheet, rect, rows: rows.len() as u32, cols: cols.len() as u32, cells }
}

/// An `UpdateValuesResponse`.
pub(crate) fn update_response(book: &Spreadsheet, written: &Written, include: Option<ReadOptions>) -> Value {
    let mut out = json!({
        "spreadsheetId": book.id,
        "updatedRange": book.a1(written.sheet, written.rect),
        "updatedRows": written.rows,
        "updatedColumns": written.cols,
        "updatedCells": written.cells,
    });
    prune(&mut out);
    if let Some(options) = include {
        let mut eval = Eval::new(book);
        let span = Span {
            start_row: written.rect.r0,
            start_col: written.rect.c0,
            end_row: Some(written.rect.r1),
            end_col: Some(written.rect.c1),
        };
        out["updatedData"] = value_range(book, &mut eval, Target { sheet: written.sheet, span }, options);
    }
    out
}

/// Clears a range's values; returns the cleared A1 range.
pub(crate) fn clear(book: &mut Spreadsheet, target: Target) -> String {
    let rect = read_rect(book, target);
    if let Some(sheet) = book.sheets.get_mut(target.sheet) {
        let clamped = sheet.clamp(target.span);
        sheet.clear_values(clamped);
    }
    book.a1(target.sheet, rect)
}

/// Where `values.append` writes: after the table found at the range's top-left, and that table.
pub(crate) fn find_table(book: &Spreadsheet, target: Target) -> (u32, Option<Rect>) {
    let sheet = &book.sheets[target.sheet];
    let rect = sheet.clamp(target.span);
    let has_value = |r: u32| {
        sheet
            .cells
            .get(r as usize)
            .is_some_and(|row| (rect.c0..rect.c1.min(row.len() as u32)).any(|c| row[c as usize].value.is_some()))
    };
    // The table may run past the range's last row: only its columns bound the search.
    let stored = sheet.cells.len() as u32;
    let Some(first) = (rect.r0..stored).find(|r| has_value(*r)) else {
        return (rect.r0, None);
    };
    let mut last = first;
    while last + 1 < stored && has_value(last + 1) {
        last += 1;
    }
    let mut c1 = rect.c0 + 1;
    for r in first..=last {
        if let Some(row) = sheet.cells.get(r as usize)
            && let Some(c) = (rect.c0..rect.c1.min(row.len() as u32)).rev().find(|c| row[*c as usize].value.is_some())
        {
            c1 = c1.max(c + 1);
        }
    }
    (last + 1, Some(Rect { r0: first, c0: rect.c0, r1: last + 1, c1 }))
}
