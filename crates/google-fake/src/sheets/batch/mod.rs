//! `spreadsheets.batchUpdate`: the `Request` kinds the emulator implements, applied in order, each
//! answering its `Response` (an empty object when the kind has none).

use serde_json::{Map, Value, json};

use super::fields::Mask;
use super::model::{Rect, Sheet, Spreadsheet, as_i64};
use crate::rpc::{Failure, body_object};

mod autofit;
mod cells;
mod chart;
mod sort;
mod structure;
mod validation;

pub(crate) use cells::load_grid_data;

type Outcome = Result<Value, Failure>;

/// Side effects the caller must carry out after the batch commits.
#[derive(Debug, Default)]
pub(crate) struct Effects {
    pub renamed: Option<String>,
}

/// Applies one request; returns its reply.
pub(crate) fn apply(book: &mut Spreadsheet, kind: &str, body: &Map<String, Value>, effects: &mut Effects) -> Outcome {
    match kind {
        "addSheet" => structure::add_sheet(book, body),
        "deleteSheet" => structure::delete_sheet(book, body),
        "updateSheetProperties" => structure::update_sheet_properties(book, body),
        "duplicateSheet" => structure::duplicate_sheet(book, body),
        "insertDimension" => structure::insert_dimension(book, body),
        "appendDimension" => structure::append_dimension(book, body),
        "deleteDimension" => structure::delete_dimension(book, body),
        "updateSpreadsheetProperties" => structure::update_spreadsheet_properties(book, body, effects),
        "updateCells" => cells::update_cells(book, body),
        "appendCells" => cells::append_cells(book, body),
        "repeatCell" => cells::repeat_cell(book, body),
        "mergeCells" => cells::merge_cells(book, body),
        "unmergeCells" => cells::unmerge_cells(book, body),
        "updateBorders" => cells::update_borders(book, body),
        "setDataValidation" => validation::set_data_validation(book, body),
        "updateDimensionProperties" => structure::update_dimension_properties(book, body),
        "autoResizeDimensions" => structure::auto_resize(book, body),
        "sortRange" => sort::sort_range(book, body),
        "addChart" => chart::add_chart(book, body),
        "findReplace" => cells::find_replace(book, body),
        // Every other kind Google defines (the schema check already refused unknown ones).
        _ => Err(Failure::Unimplemented),
    }
}

fn obj<'a>(body: &'a Map<String, Value>, key: &str) -> &'a Map<String, Value> {
    body_object(body.get(key).unwrap_or(&Value::Null))
}

fn mask(body: &Map<String, Value>) -> Result<Mask, String> {
    let spec = body.get("fields").and_then(Value::as_str).unwrap_or("");
    if spec.trim().is_empty() {
        return Err("At least one field must be specified in 'fields'.".into());
    }
    Mask::parse(spec).ok_or_else(|| format!("Invalid field mask: '{spec}'."))
}

fn sheet_index(book: &Spreadsheet, id: i64) -> Result<usize, String> {
    book.sheet_by_id(id).ok_or_else(|| format!("No grid with id: {id}"))
}

fn grid_limit_error(sheet: &Sheet, rect: Rect) -> String {
    let range = super::a1::format(&sheet.title, rect.r0, rect.c0, rect.r1, rect.c1);
    let quoted =
        if range.starts_with('\'') { range } else { format!("'{}'{}", sheet.title, &range[sheet.title.len()..]) };
    format!("Range ({quoted}) exceeds grid limits. Max rows: {}, max columns: {}", sheet.rows, sheet.cols)
}

/// Resolves a `GridRange` (missing bounds = the whole grid) on an existing sheet.
fn grid_range(book: &Spreadsheet, range: &Map<String, Value>) -> Result<(usize, Rect), String> {
    let index = sheet_index(book, as_i64(range.get("sheetId")).unwrap_or(0))?;
    let sheet = &book.sheets[index];
    let bound = |key: &str, default: u32| -> Result<u32, String> {
        match as_i64(range.get(key)) {
            None => Ok(default),
            Some(n) if n < 0 => Err(format!("{key} must be non-negative.")),
            Some(n) => u32::try_from(n).map_err(|_| format!("{key} is too large.")),
        }
    };
    let rect = Rect {
        r0: bound("startRowIndex", 0)?,
        c0: bound("startColumnIndex", 0)?,
        r1: bound("endRowIndex", sheet.rows)?,
        c1: bound("endColumnIndex", sheet.cols)?,
    };
    if rect.r0 > rect.r1 || rect.c0 > rect.c1 {
        return Err("The start index of the range must be less than or equal to the end index.".into());
    }
    if rect.r1 > sheet.rows || rect.c1 > sheet.cols {
        return Err(grid_limit_error(sheet, rect));
    }
    Ok((index, rect))
}

/// Resolves a `DimensionRange`: (sheet, rows?, start, end).
fn dimension_range(book: &Spreadsheet, range: &Map<String, Value>) -> Result<(usize, bool, u32, u32), String> {
    let index = sheet_index(book, as_i64(range.get("sheetId")).unwrap_or(0))?;
    let sheet = &book.sheets[index];
    let rows = match range.get("dimension").and_then(Value::as_str) {
        Some("ROWS") => true,
        Some("COLUMNS") => false,
        _ => return Err("range.dimension must be ROWS or COLUMNS.".into()),
    };
    let size = sheet.size(rows);
    let start = as_i64(range.get("startIndex")).unwrap_or(0);
    let end = as_i64(range.get("endIndex")).unwrap_or(i64::from(size));
    if start < 0 || end < start {
        return Err(format!("Invalid dimension range: startIndex {start}, endIndex {end}."));
    }
    let start = u32::try_from(start).map_err(|_| "startIndex is too large.".to_owned())?;
    let end = u32::try_from(end).map_err(|_| "endIndex is too large.".to_owned())?;
    Ok((index, rows, start, end))
}

fn check_title(book: &Spreadsheet, title: &str, except: Option<usize>) -> Result<(), String> {
    if title.trim().is_empty() {
        return Err("Sheet names cannot be empty.".into());
    }
    if title.chars().count() > 100 {
        return Err(format!("The sheet name \"{title}\" is longer than 100 characters."));
    }
    match book.sheet_by_name(title) {
        Some(existing) if Some(existing) != except => {
            Err(format!("A sheet with the name \"{title}\" already exists. Please enter another name."))
        }
        _ => Ok(()),
    }
}

fn insert_at(book: &mut Spreadsheet, sheet: Sheet, index: Option<i64>) -> usize {
    let at = index.map_or(book.sheets.len(), |i| usize::try_from(i.max(0)).unwrap_or(0).min(book.sheets.len()));
    book.sheets.insert(at, sheet);
    at
}

/// A new sheet from client-provided `SheetProperties`.
pub(crate) fn sheet_from_properties(book: &Spreadsheet, props: &Map<String, Value>) -> Result<Sheet, String> {
    if let Some(kind) = props.get("sheetType").and_then(Value::as_str)
        && kind != "GRID"
    {
        return Err(format!("Sheets of type {kind} cannot be created with the emulator."));
    }
    let id = match as_i64(props.get("sheetId")) {
        Some(id) if id < 0 => return Err(format!("Invalid sheetId: {id}")),
        Some(id) if book.sheet_by_id(id).is_some() => {
            return Err(format!("Invalid sheetId: a sheet with id {id} already exists."));
        }
        Some(id) => id,
        None => book.new_sheet_id(),
    };
    let title = match props.get("title").and_then(Value::as_str) {
        Some(t) => t.to_owned(),
        None => book.next_default_title(),
    };
    check_title(book, &title, None)?;
    let mut sheet = Sheet::new(id, &title);
    let mut props = props.clone();
    props.insert("sheetId".into(), json!(id));
    props.insert("title".into(), json!(title));
    sheet.set_properties(&props)?;
    Ok(sheet)
}
