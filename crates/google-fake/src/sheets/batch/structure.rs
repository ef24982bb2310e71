//! Requests that change a spreadsheet's structure: sheets, dimensions and properties.

use serde_json::{Map, Value, json};

use super::{
    Effects, Failure, Outcome, check_title, dimension_range, grid_limit_error, insert_at, mask, obj,
    sheet_from_properties, sheet_index,
};
use crate::sheets::fields;
use crate::sheets::model::{Rect, Sheet, Spreadsheet, as_i64, prune};

pub(super) fn add_sheet(book: &mut Spreadsheet, body: &Map<String, Value>) -> Outcome {
    let props = obj(body, "properties");
    let sheet = sheet_from_properties(book, props)?;
    let at = insert_at(book, sheet, as_i64(props.get("index")));
    book.check_limit()?;
    Ok(json!({ "addSheet": { "properties": book.sheets[at].properties(at) } }))
}

pub(super) fn delete_sheet(book: &mut Spreadsheet, body: &Map<String, Value>) -> Outcome {
    let id = as_i64(body.get("sheetId")).unwrap_or(0);
    let index = book.sheet_by_id(id).ok_or_else(|| format!("No sheet with id: {id}"))?;
    if book.sheets.len() == 1 {
        return Err("You can't remove all the sheets in a document.".to_owned().into());
    }
    book.sheets.remove(index);
    if book.sheets.iter().all(Sheet::hidden) {
        return Err("You can't remove all the visible sheets in a document.".to_owned().into());
    }
    Ok(json!({}))
}

pub(super) fn update_sheet_properties(book: &mut Spreadsheet, body: &Map<String, Value>) -> Outcome {
    let props = obj(body, "properties");
    let mask = mask(body)?;
    let id = as_i64(props.get("sheetId")).unwrap_or(0);
    let index = sheet_index(book, id)?;
    let current = book.sheets[index].properties(index);
    let mut merged = current.as_object().cloned().unwrap_or_default();
    fields::apply(&mut merged, props, &mask);
    crate::sheets::colors::forget_twins(&mut merged, &mask);
    if mask.selects("sheetId") && as_i64(merged.get("sheetId")) != Some(id) {
        return Err("You can't change the sheetId of a sheet.".to_owned().into());
    }
    merged.insert("sheetId".into(), json!(id));
    let title = merged.get("title").and_then(Value::as_str).unwrap_or_default().to_owned();
    check_title(book, &title, Some(index))?;
    let new_index = as_i64(merged.get("index"));
    book.sheets[index].set_properties(&merged)?;
    if mask.selects("index") {
        let target = usize::try_from(new_index.unwrap_or(0).max(0)).unwrap_or(0);
        let sheet = book.sheets.remove(index);
        // Google counts the destination in indexes from before the move.
        let at = if target > index { target - 1 } else { target };
        let at = at.min(book.sheets.len());
        book.sheets.insert(at, sheet);
    }
    if book.sheets.iter().all(Sheet::hidden) {
        return Err("You can't hide all the sheets in a document.".to_owned().into());
    }
    book.check_limit()?;
    Ok(json!({}))
}

pub(super) fn duplicate_sheet(book: &mut Spreadsheet, body: &Map<String, Value>) -> Outcome {
    let source_id = as_i64(body.get("sourceSheetId")).unwrap_or(0);
    let source = sheet_index(book, source_id)?;
    let mut sheet = book.sheets[source].clone();
    sheet.id = match as_i64(body.get("newSheetId")) {
        Some(id) if book.sheet_by_id(id).is_some() => {
            return Err(format!("Invalid newSheetId: a sheet with id {id} already exists.").into());
        }
        Some(id) if id < 0 => return Err(format!("Invalid newSheetId: {id}").into()),
        Some(id) => id,
        None => book.new_sheet_id(),
    };
    sheet.title = match body.get("newSheetName").and_then(Value::as_str) {
        Some(name) => {
            check_title(book, name, None)?;
            name.to_owned()
        }
        None => book.unique_title(&format!("Copy of {}", book.sheets[source].title)),
    };
    sheet.charts.clear();
    let index = as_i64(body.get("insertSheetIndex")).or(Some(source as i64 + 1));
    let at = insert_at(book, sheet, index);
    book.check_limit()?;
    Ok(json!({ "duplicateSheet": { "properties": book.sheets[at].properties(at) } }))
}

pub(super) fn insert_dimension(book: &mut Spreadsheet, body: &Map<String, Value>) -> Outcome {
    let (index, rows, start, end) = dimension_range(book, obj(body, "range"))?;
    let sheet = &mut book.sheets[index];
    let size = sheet.size(rows);
    if start > size {
        return Err(
            format!("range.startIndex ({start}) must be less than or equal to the sheet's size ({size}).").into()
        );
    }
    if start == end {
        return Err("range must span at least one row or column.".to_owned().into());
    }
    if start == 0 && body.get("inheritFromBefore").and_then(Value::as_bool) == Some(true) {
        return Err("Cannot inherit properties from before if inserting at the start.".to_owned().into());
    }
    if rows {
        sheet.insert_rows(start, end - start);
    } else {
        sheet.insert_cols(start, end - start);
    }
    check_grown(book, index)
}

/// Checks a sheet that grew: the spreadsheet's cell limit, then the sheet's own maximum size.
fn check_grown(book: &Spreadsheet, index: usize) -> Outcome {
    let sheet = &book.sheets[index];
    let too_big = sheet.rows > crate::sheets::a1::MAX_ROWS || sheet.cols > crate::sheets::a1::MAX_COLUMNS;
    book.check_limit()?;
    if too_big {
        return Err("The grid would exceed the maximum size.".to_owned().into());
    }
    Ok(json!({}))
}

/// Refuses a dimension range that ends past the sheet's rows (or columns); returns that size.
fn check_within(sheet: &Sheet, rows: bool, start: u32, end: u32) -> Result<u32, Failure> {
    let size = sheet.size(rows);
    if end > size {
        let rect =
            if rows { Rect { r0: start, r1: end, c0: 0, c1: 1 } } else { Rect { r0: 0, r1: 1, c0: start, c1: end } };
        return Err(grid_limit_error(sheet, rect).into());
    }
    Ok(size)
}

pub(super) fn append_dimension(book: &mut Spreadsheet, body: &Map<String, Value>) -> Outcome {
    let id = as_i64(body.get("sheetId")).unwrap_or(0);
    let index = sheet_index(book, id)?;
    let length = as_i64(body.get("length")).unwrap_or(0);
    if length <= 0 {
        return Err("length must be greater than zero.".to_owned().into());
    }
    let length = u32::try_from(length).map_err(|_| "length is too large.".to_owned())?;
    let sheet = &mut book.sheets[index];
    match body.get("dimension").and_then(Value::as_str) {
        Some("ROWS") => sheet.rows = sheet.rows.saturating_add(length),
        Some("COLUMNS") => sheet.cols = sheet.cols.saturating_add(length),
        _ => return Err("dimension must be ROWS or COLUMNS.".to_owned().into()),
    }
    check_grown(book, index)
}

pub(super) fn delete_dimension(book: &mut Spreadsheet, body: &Map<String, Value>) -> Outcome {
    let (index, rows, start, end) = dimension_range(book, obj(body, "range"))?;
    let sheet = &mut book.sheets[index];
    let size = check_within(sheet, rows, start, end)?;
    if start == 0 && end == size {
        let what = if rows { "rows" } else { "columns" };
        return Err(format!("You can't delete all the {what} on the sheet.").into());
    }
    if start < end {
        if rows {
            sheet.delete_rows(start, end);
        } else {
            sheet.delete_cols(start, end);
        }
    }
    Ok(json!({}))
}

pub(super) fn update_spreadsheet_properties(
    book: &mut Spreadsheet,
    body: &Map<String, Value>,
    effects: &mut Effects,
) -> Outcome {
    let mask = mask(body)?;
    let before = book.title().to_owned();
    let mut props = book.properties.clone();
    fields::apply(&mut props, obj(body, "properties"), &mask);
    if props.get("title").and_then(Value::as_str).is_none_or(|t| t.trim().is_empty()) {
        props.insert("title".into(), json!("Untitled spreadsheet"));
    }
    book.properties = props;
    if book.title() != before {
        effects.renamed = Some(book.title().to_owned());
    }
    Ok(json!({}))
}

pub(super) fn update_dimension_properties(book: &mut Spreadsheet, body: &Map<String, Value>) -> Outcome {
    let mask = mask(body)?;
    let (index, rows, start, end) = dimension_range(book, obj(body, "range"))?;
    let props = obj(body, "properties").clone();
    let sheet = &mut book.sheets[index];
    check_within(sheet, rows, start, end)?;
    for i in start..end {
        let meta = sheet.meta_mut(rows, i);
        fields::apply(meta, &props, &mask);
        meta.remove("hiddenByFilter");
        let mut value = Value::Object(std::mem::take(meta));
        prune(&mut value);
        if let Value::Object(map) = value {
            *meta = map;
        }
    }
    sheet.trim();
    Ok(json!({}))
}

pub(super) fn auto_resize(book: &mut Spreadsheet, body: &Map<String, Value>) -> Outcome {
    let (index, rows, start, end) = dimension_range(book, obj(body, "dimensions"))?;
    let size = book.sheets[index].size(rows);
    if end > size {
        return Err(format!("dimensions.endIndex ({end}) exceeds the sheet's size ({size}).").into());
    }
    super::autofit::fit(book, index, rows, start, end);
    Ok(json!({}))
}
