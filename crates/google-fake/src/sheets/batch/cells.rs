//! Requests that change cells: values, formats, merges, borders, validation, charts and find/replace
//! (sorting is in [`super::sort`]).

use serde_json::{Map, Value, json};

use super::{Failure, Outcome, grid_limit_error, grid_range, mask, obj, sheet_index};
use crate::sheets::cell::Entered;
use crate::sheets::fields::{self, Mask};
use crate::sheets::model::{Rect, Sheet, Spreadsheet, as_i64, cell_from_json, cell_json, prune};

/// Applies masked `CellData` to one cell.
fn write_cell(sheet: &mut Sheet, row: u32, col: u32, source: &Map<String, Value>, mask: &Mask) -> Result<(), String> {
    let existing = sheet.cell(row, col).cloned().unwrap_or_default();
    let mut current = cell_json(&existing);
    fields::apply(&mut current, source, mask);
    crate::sheets::colors::forget_twins(&mut current, mask);
    let cell = cell_from_json(current)?;
    if cell != existing {
        *sheet.cell_mut(row, col) = cell;
    }
    Ok(())
}

fn rows_of(body: &Map<String, Value>) -> Vec<Vec<Map<String, Value>>> {
    body.get("rows")
        .and_then(Value::as_array)
        .map(|rows| {
            rows.iter()
                .map(|row| {
                    row.get("values")
                        .and_then(Value::as_array)
                        .map(|cells| cells.iter().map(|c| c.as_object().cloned().unwrap_or_default()).collect())
                        .unwrap_or_default()
                })
                .collect()
        })
        .unwrap_or_default()
}

pub(super) fn update_cells(book: &mut Spreadsheet, body: &Map<String, Value>) -> Outcome {
    let mask = mask(body)?;
    let rows = rows_of(body);
    let (index, origin, bounds) = if let Some(range) = body.get("range").and_then(Value::as_object) {
        let (index, rect) = grid_range(book, range)?;
        (index, (rect.r0, rect.c0), Some(rect))
    } else if let Some(start) = body.get("start").and_then(Value::as_object) {
        let index = sheet_index(book, as_i64(start.get("sheetId")).unwrap_or(0))?;
        let r = u32::try_from(as_i64(start.get("rowIndex")).unwrap_or(0))
            .map_err(|_| "Invalid start.rowIndex".to_owned())?;
        let c = u32::try_from(as_i64(start.get("columnIndex")).unwrap_or(0))
            .map_err(|_| "Invalid start.columnIndex".to_owned())?;
        (index, (r, c), None)
    } else {
        return Err("Either 'start' or 'range' must be specified.".to_owned().into());
    };
    let sheet = &mut book.sheets[index];
    let width = rows.iter().map(Vec::len).max().unwrap_or(0) as u32;
    let written = Rect { r0: origin.0, c0: origin.1, r1: origin.0 + rows.len() as u32, c1: origin.1 + width };
    if let Some(bounds) = bounds {
        if written.r1 > bounds.r1 && !rows.is_empty() {
            return Err(format!(
                "Attempting to write row: {}, beyond the last requested row of: {}",
                written.r1 - 1,
                bounds.r1.saturating_sub(1)
            )
            .into());
        }
        if written.c1 > bounds.c1 && width > 0 {
            return Err(format!(
                "Attempting to write column: {}, beyond the last requested column of: {}",
                written.c1 - 1,
                bounds.c1.saturating_sub(1)
            )
            .into());
        }
    } else if written.r1 > sheet.rows || written.c1 > sheet.cols {
        return Err(grid_limit_error(sheet, written).into());
    }
    for (i, row) in rows.iter().enumerate() {
        for (j, source) in row.iter().enumerate() {
            write_cell(sheet, origin.0 + i as u32, origin.1 + j as u32, source, &mask)?;
        }
    }
    if let Some(bounds) = bounds {
        // Cells of the range the rows don't cover are cleared for the masked fields.
        let empty = Map::new();
        for r in bounds.r0..bounds.r1.min(sheet.cells.len() as u32) {
            for c in bounds.c0..bounds.c1.min(sheet.cells[r as usize].len() as u32) {
                let i = (r - origin.0) as usize;
                let j = (c - origin.1) as usize;
                if rows.get(i).is_none_or(|row| j >= row.len()) {
                    write_cell(sheet, r, c, &empty, &mask)?;
                }
            }
        }
    }
    sheet.trim();
    Ok(json!({}))
}

pub(super) fn append_cells(book: &mut Spreadsheet, body: &Map<String, Value>) -> Outcome {
    let mask = mask(body)?;
    let index = sheet_index(book, as_i64(body.get("sheetId")).unwrap_or(0))?;
    let rows = rows_of(body);
    let sheet = &mut book.sheets[index];
    let start = sheet.cells.iter().rposition(|row| row.iter().any(|c| !c.is_blank())).map_or(0, |r| r as u32 + 1);
    let needed = start + rows.len() as u32;
    if needed > sheet.rows {
        sheet.rows = needed;
    }
    let width = rows.iter().map(Vec::len).max().unwrap_or(0) as u32;
    if width > sheet.cols {
        sheet.cols = width;
    }
    for (i, row) in rows.iter().enumerate() {
        for (j, source) in row.iter().enumerate() {
            write_cell(sheet, start + i as u32, j as u32, source, &mask)?;
        }
    }
    sheet.trim();
    book.check_limit()?;
    Ok(json!({}))
}

pub(super) fn repeat_cell(book: &mut Spreadsheet, body: &Map<String, Value>) -> Outcome {
    let mask = mask(body)?;
    let (index, rect) = grid_range(book, obj(body, "range"))?;
    let source = obj(body, "cell").clone();
    let sheet = &mut book.sheets[index];
    for r in rect.r0..rect.r1 {
        for c in rect.c0..rect.c1 {
            write_cell(sheet, r, c, &source, &mask)?;
        }
    }
    sheet.trim();
    Ok(json!({}))
}

/// Unmerges every merge inside the `range` of the request; returns the sheet and the range. A merge that
/// sticks out of the range is refused.
fn unmerge<'a>(book: &'a mut Spreadsheet, body: &Map<String, Value>) -> Result<(&'a mut Sheet, Rect), Failure> {
    let (index, rect) = grid_range(book, obj(body, "range"))?;
    let sheet = &mut book.sheets[index];
    if sheet.merges.iter().any(|m| m.intersects(&rect) && !rect.contains(m)) {
        return Err("You must select all cells in a merged range to merge or unmerge them.".to_owned().into());
    }
    sheet.merges.retain(|m| !rect.contains(m));
    Ok((sheet, rect))
}

pub(super) fn merge_cells(book: &mut Spreadsheet, body: &Map<String, Value>) -> Outcome {
    let (sheet, rect) = unmerge(book, body)?;
    let pieces: Vec<Rect> = match body.get("mergeType").and_then(Value::as_str).unwrap_or("MERGE_ALL") {
        "MERGE_COLUMNS" => (rect.c0..rect.c1).map(|c| Rect { c0: c, c1: c + 1, ..rect }).collect(),
        "MERGE_ROWS" => (rect.r0..rect.r1).map(|r| Rect { r0: r, r1: r + 1, ..rect }).collect(),
        _ => vec![rect],
    };
    for piece in pieces {
        if piece.rows() * piece.cols() <= 1 {
            continue;
        }
        // Merging keeps only the top-left value.
        for r in piece.r0..piece.r1 {
            for c in piece.c0..piece.c1 {
                if (r, c) != (piece.r0, piece.c0)
                    && let Some(cell) = sheet.cells.get_mut(r as usize).and_then(|row| row.get_mut(c as usize))
                {
                    cell.value = None;
                }
            }
        }
        sheet.merges.push(piece);
    }
    sheet.trim();
    Ok(json!({}))
}

pub(super) fn unmerge_cells(book: &mut Spreadsheet, body: &Map<String, Value>) -> Outcome {
    unmerge(book, body)?;
    Ok(json!({}))
}

fn set_border(sheet: &mut Sheet, row: u32, col: u32, side: &str, border: &Value) {
    let cell = sheet.cell_mut(row, col);
    let format = cell.extra.entry("userEnteredFormat").or_insert_with(|| json!({}));
    let Value::Object(format) = format else {
        return;
    };
    let borders = format.entry("borders").or_insert_with(|| json!({}));
    let Value::Object(borders) = borders else {
        return;
    };
    if border.get("style").and_then(Value::as_str) == Some("NONE") {
        borders.remove(side);
    } else {
        borders.insert(side.to_owned(), border.clone());
    }
    if borders.is_empty() {
        format.remove("borders");
    }
    if format.is_empty() {
        cell.extra.remove("userEnteredFormat");
    }
}

pub(super) fn update_borders(book: &mut Spreadsheet, body: &Map<String, Value>) -> Outcome {
    let (index, rect) = grid_range(book, obj(body, "range"))?;
    let sheet = &mut book.sheets[index];
    if rect.is_empty() {
        return Ok(json!({}));
    }
    let get = |key: &str| body.get(key).filter(|v| v.is_object());
    for r in rect.r0..rect.r1 {
        for c in rect.c0..rect.c1 {
            let sides = [
                ("top", if r == rect.r0 { get("top") } else { get("innerHorizontal") }),
                ("bottom", if r + 1 == rect.r1 { get("bottom") } else { get("innerHorizontal") }),
                ("left", if c == rect.c0 { get("left") } else { get("innerVertical") }),
                ("right", if c + 1 == rect.c1 { get("right") } else { get("innerVertical") }),
            ];
            for (side, border) in sides {
                if let Some(border) = border {
                    set_border(sheet, r, c, side, border);
                }
            }
        }
    }
    sheet.trim();
    Ok(json!({}))
}

pub(super) fn set_data_validation(book: &mut Spreadsheet, body: &Map<String, Value>) -> Outcome {
    let (index, rect) = grid_range(book, obj(body, "range"))?;
    let rule = body.get("rule").filter(|r| r.is_object()).cloned();
    let sheet = &mut book.sheets[index];
    for r in rect.r0..rect.r1 {
        for c in rect.c0..rect.c1 {
            match &rule {
                Some(rule) => {
                    sheet.cell_mut(r, c).extra.insert("dataValidation".into(), rule.clone());
                }
                None => {
                    if let Some(cell) = sheet.cells.get_mut(r as usize).and_then(|row| row.get_mut(c as usize)) {
                        cell.extra.remove("dataValidation");
                    }
                }
            }
        }
    }
    sheet.trim();
    Ok(json!({}))
}

pub(super) fn add_chart(book: &mut Spreadsheet, body: &Map<String, Value>) -> Outcome {
    let mut chart = obj(body, "chart").clone();
    let anchor = chart
        .get("position")
        .and_then(|p| p.get("overlayPosition"))
        .and_then(|p| p.get("anchorCell"))
        .and_then(|a| as_i64(a.get("sheetId")));
    let sheet_id = anchor.or_else(|| as_i64(chart.get("position").and_then(|p| p.get("sheetId")))).unwrap_or(0);
    let index = sheet_index(book, sheet_id)?;
    let taken: Vec<i64> =
        book.sheets.iter().flat_map(|s| s.charts.iter().filter_map(|c| as_i64(c.get("chartId")))).collect();
    let id = match as_i64(chart.get("chartId")) {
        Some(id) if taken.contains(&id) => {
            return Err(format!("Invalid chartId: {id} is already in use.").into());
        }
        Some(id) => id,
        None => book.new_sheet_id(),
    };
    chart.insert("chartId".into(), json!(id));
    let chart = Value::Object(chart);
    book.sheets[index].charts.push(chart.clone());
    Ok(json!({ "addChart": { "chart": chart } }))
}

pub(super) fn find_replace(book: &mut Spreadsheet, body: &Map<String, Value>) -> Outcome {
    let find = body.get("find").and_then(Value::as_str).unwrap_or("");
    if find.is_empty() {
        return Err("find must not be empty.".to_owned().into());
    }
    if body.get("searchByRegex").and_then(Value::as_bool) == Some(true) {
        return Err(Failure::Unimplemented);
    }
    let replacement = body.get("replacement").and_then(Value::as_str).unwrap_or("");
    let match_case = body.get("matchCase").and_then(Value::as_bool).unwrap_or(false);
    let entire = body.get("matchEntireCell").and_then(Value::as_bool).unwrap_or(false);
    let formulas = body.get("includeFormulas").and_then(Value::as_bool).unwrap_or(false);
    let scopes: Vec<(usize, Rect)> = if let Some(range) = body.get("range").and_then(Value::as_object) {
        vec![grid_range(book, range)?]
    } else if let Some(id) = as_i64(body.get("sheetId")) {
        let index = sheet_index(book, id)?;
        vec![(index, book.sheets[index].grid())]
    } else if body.get("allSheets").and_then(Value::as_bool) == Some(true) {
        book.sheets.iter().enumerate().map(|(i, s)| (i, s.grid())).collect()
    } else {
        return Err("One of range, sheetId or allSheets must be specified.".to_owned().into());
    };
    let (mut occurrences, mut values, mut formulas_changed) = (0u64, 0u64, 0u64);
    let mut rows_changed = std::collections::HashSet::new();
    let mut sheets_changed = std::collections::HashSet::new();
    for (index, rect) in scopes {
        let sheet = &mut book.sheets[index];
        for r in rect.r0..rect.r1.min(sheet.cells.len() as u32) {
            for c in rect.c0..rect.c1.min(sheet.cells[r as usize].len() as u32) {
                let cell = &mut sheet.cells[r as usize][c as usize];
                let (text, is_formula) = match &cell.value {
                    Some(Entered::Text(t)) => (t.clone(), false),
                    Some(Entered::Formula(f)) if formulas => (f.clone(), true),
                    _ => continue,
                };
                let (new, count) = replace_text(&text, find, replacement, match_case, entire);
                if count == 0 {
                    continue;
                }
                occurrences += count;
                if is_formula {
                    formulas_changed += 1;
                    cell.value = Some(Entered::Formula(new));
                } else {
                    values += 1;
                    cell.value = if new.is_empty() { None } else { Some(Entered::Text(new)) };
                }
                rows_changed.insert((index, r));
                sheets_changed.insert(index);
            }
        }
        sheet.trim();
    }
    let mut reply = json!({
        "valuesChanged": values,
        "formulasChanged": formulas_changed,
        "rowsChanged": rows_changed.len(),
        "sheetsChanged": sheets_changed.len(),
        "occurrencesChanged": occurrences,
    });
    prune(&mut reply);
    Ok(json!({ "findReplace": reply }))
}

/// Replaces `find` in `text`; returns the new text and how many occurrences changed.
fn replace_text(text: &str, find: &str, replacement: &str, match_case: bool, entire: bool) -> (String, u64) {
    let fold = |s: &str| {
        if match_case { s.to_owned() } else { s.to_lowercase() }
    };
    if entire {
        return if fold(text) == fold(find) { (replacement.to_owned(), 1) } else { (text.to_owned(), 0) };
    }
    let chars: Vec<char> = text.chars().collect();
    let needle: Vec<char> = find.chars().collect();
    let same = |a: char, b: char| {
        if match_case { a == b } else { a.to_lowercase().eq(b.to_lowercase()) }
    };
    let mut out = String::with_capacity(text.len());
    let mut count = 0;
    let mut i = 0;
    while i < chars.len() {
        if i + needle.len() <= chars.len() && needle.iter().enumerate().all(|(k, n)| same(chars[i + k], *n)) {
            out.push_str(replacement);
            i += needle.len();
            count += 1;
        } else {
            out.push(chars[i]);
            i += 1;
        }
    }
    (out, count)
}

/// Builds a sheet's cells from `GridData` given to `spreadsheets.create`.
pub(crate) fn load_grid_data(sheet: &mut Sheet, data: &[Value]) -> Result<(), String> {
    let all = Mask { all: true, ..Mask::default() };
    for block in data {
        let r0 =
            u32::try_from(as_i64(block.get("startRow")).unwrap_or(0)).map_err(|_| "Invalid startRow".to_owned())?;
        let c0 = u32::try_from(as_i64(block.get("startColumn")).unwrap_or(0))
            .map_err(|_| "Invalid startColumn".to_owned())?;
        let rows: Vec<Vec<Map<String, Value>>> = rows_of(
            &json!({ "rows": block.get("rowData").cloned().unwrap_or(Value::Null) })
                .as_object()
                .cloned()
                .unwrap_or_default(),
        );
        let needed_rows = r0 + rows.len() as u32;
        let needed_cols = c0 + rows.iter().map(Vec::len).max().unwrap_or(0) as u32;
        sheet.rows = sheet.rows.max(needed_rows);
        sheet.cols = sheet.cols.max(needed_cols);
        for (i, row) in rows.iter().enumerate() {
            for (j, source) in row.iter().enumerate() {
                write_cell(sheet, r0 + i as u32, c0 + j as u32, source, &all)?;
            }
        }
        for (key, rows_dim) in [("rowMetadata", true), ("columnMetadata", false)] {
            let start = if rows_dim { r0 } else { c0 };
            for (i, meta) in block.get(key).and_then(Value::as_array).into_iter().flatten().enumerate() {
                if let Some(meta) = meta.as_object() {
                    let mut meta = Value::Object(meta.clone());
                    prune(&mut meta);
                    if let Value::Object(meta) = meta {
                        *sheet.meta_mut(rows_dim, start + i as u32) = meta;
                    }
                }
            }
        }
    }
    sheet.trim();
    Ok(())
}
