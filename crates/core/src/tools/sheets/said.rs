//! What each Sheets write's approval card says it will do (see [`crate::approval::sentence`]), one function
//! per tool, named after it and attached to its declaration in `sheets/mod.rs` with `.worded`.

use serde_json::Value;

use super::{chart, dimensions, format, import_csv, layout, structure, validation, write};
use crate::a1::{A1Range, column_letters};
use crate::approval::sentence::{Said, plural};

/// "… in “Budget 2026” › “Sheet1”".
fn on(said: Said, spreadsheet: &str, sheet: &str) -> Said {
    said.file("spreadsheet", spreadsheet).words("›").name(super::sheet_name(sheet))
}

/// "… (A1:B2)".
fn at(said: Said, range: &str) -> Said {
    said.words("(").value(range.trim()).words(")")
}

/// The rectangle `rows` fill when written from the start of `range` (a start cell or a range at least as
/// large): what Google writes, whatever the range's own end; `None` when the range can't be read.
pub(super) fn written(range: &str, rows: &[Vec<Value>]) -> Option<A1Range> {
    let parsed = A1Range::parse(range).ok()?;
    let (row, col) = (parsed.start_row.unwrap_or(0), parsed.start_col.unwrap_or(0));
    let height = u32::try_from(rows.len()).ok()?;
    let width = u32::try_from(rows.iter().map(Vec::len).max().unwrap_or(0)).ok()?;
    Some(A1Range {
        sheet: None,
        start_row: Some(row),
        start_col: Some(col),
        end_row: Some(row.checked_add(height.max(1))?),
        end_col: Some(col.checked_add(width.max(1))?),
    })
}

/// The cells a write sets (a `null` leaves its cell as it is).
fn set(rows: &[Vec<Value>]) -> usize {
    rows.iter().flatten().filter(|cell| !cell.is_null()).count()
}

pub(super) fn update_cells(a: &write::UpdateCellsArgs) -> Said {
    let range = written(&a.range, &a.data).map_or_else(|| a.range.clone(), |block| block.to_a1());
    at(
        on(Said::new(format!("write {} in", plural(set(&a.data), "cell", "cells"))), &a.spreadsheet_id, &a.sheet),
        &range,
    )
}

pub(super) fn batch_update_cells(a: &write::BatchUpdateCellsArgs) -> Said {
    let cells: usize = a
        .ranges
        .values()
        .filter_map(Value::as_array)
        .flatten()
        .filter_map(Value::as_array)
        .flatten()
        .filter(|cell| !cell.is_null())
        .count();
    let ranges: Vec<String> = a.ranges.keys().cloned().collect();
    let said = Said::new(format!("write {} in", plural(cells, "cell", "cells")));
    on(said, &a.spreadsheet_id, &a.sheet)
        .words(format!("({}:", plural(ranges.len(), "range", "ranges")))
        .list(&ranges, 4)
        .words(")")
}

pub(super) fn clear_values(a: &write::ClearValuesArgs) -> Said {
    match &a.range {
        Some(range) => at(on(Said::new("clear the values of"), &a.spreadsheet_id, &a.sheet), range),
        None => on(Said::new("clear every value of"), &a.spreadsheet_id, &a.sheet).words("(formatting stays)"),
    }
}

pub(super) fn batch_update(a: &write::BatchUpdateArgs) -> Said {
    let kinds: Vec<String> =
        a.requests.iter().filter_map(|request| request.as_object()?.keys().next().cloned()).collect();
    Said::new(format!("apply {} to", plural(a.requests.len(), "raw Sheets change", "raw Sheets changes")))
        .file("spreadsheet", &a.spreadsheet_id)
        .words("(")
        .list(&kinds, 4)
        .words(")")
}

pub(super) fn copy_sheet(a: &structure::CopySheetArgs) -> Said {
    Said::new("copy the sheet")
        .name(super::sheet_name(&a.src_sheet))
        .words("of")
        .file("spreadsheet", &a.src_spreadsheet)
        .words("into")
        .file("spreadsheet", &a.dst_spreadsheet)
        .words("as")
        .name(&a.dst_sheet)
}

pub(super) fn duplicate_sheet(a: &structure::DuplicateSheetArgs) -> Said {
    let said = Said::new("duplicate the sheet")
        .name(super::sheet_name(&a.sheet))
        .words("in")
        .file("spreadsheet", &a.spreadsheet_id);
    match &a.new_name {
        Some(name) => said.words("as").name(name),
        None => said,
    }
}

pub(super) fn rename_sheet(a: &structure::RenameSheetArgs) -> Said {
    Said::new("rename the sheet")
        .name(super::sheet_name(&a.sheet))
        .words("of")
        .file("spreadsheet", &a.spreadsheet)
        .words("to")
        .name(&a.new_name)
}

pub(super) fn create_sheet(a: &structure::CreateSheetArgs) -> Said {
    Said::new("add a sheet").name(&a.title).words("to").file("spreadsheet", &a.spreadsheet_id)
}

pub(super) fn delete_sheet(a: &structure::DeleteSheetArgs) -> Said {
    Said::new("delete the sheet")
        .name(super::sheet_name(&a.sheet))
        .words("and everything on it from")
        .file("spreadsheet", &a.spreadsheet_id)
}

/// "rows 3 to 5" from 0-based, inclusive bounds, as the person counts them (from 1).
fn rows(start: u32, end: Option<u32>) -> String {
    match end {
        Some(end) if end > start => format!("rows {} to {}", u64::from(start) + 1, u64::from(end) + 1),
        _ => format!("row {}", u64::from(start) + 1),
    }
}

/// "columns C to E" from 0-based, inclusive bounds.
fn columns(start: u32, end: Option<u32>) -> String {
    match end {
        Some(end) if end > start => format!("columns {} to {}", column_letters(start), column_letters(end)),
        _ => format!("column {}", column_letters(start)),
    }
}

pub(super) fn add_rows(a: &structure::AddRowsArgs) -> Said {
    let place = format!("above row {}", u64::from(a.start_row.unwrap_or(0)) + 1);
    on(
        Said::new(format!("insert {} {place} in", plural(a.count as usize, "empty row", "empty rows"))),
        &a.spreadsheet_id,
        &a.sheet,
    )
}

pub(super) fn add_columns(a: &structure::AddColumnsArgs) -> Said {
    let place = format!("before column {}", column_letters(a.start_column.unwrap_or(0)));
    on(
        Said::new(format!("insert {} {place} in", plural(a.count as usize, "empty column", "empty columns"))),
        &a.spreadsheet_id,
        &a.sheet,
    )
}

pub(super) fn delete_rows(a: &structure::DeleteRowsArgs) -> Said {
    on(Said::new(format!("delete {} and their values from", rows(a.start_row, a.end_row))), &a.spreadsheet_id, &a.sheet)
}

pub(super) fn delete_columns(a: &structure::DeleteColumnsArgs) -> Said {
    let what = columns(a.start_column, a.end_column);
    on(Said::new(format!("delete {what} and their values from")), &a.spreadsheet_id, &a.sheet)
}

pub(super) fn hide_rows(a: &dimensions::RowsArgs) -> Said {
    on(Said::new(format!("hide {} of", rows(a.start_row, a.end_row))), &a.spreadsheet_id, &a.sheet)
}

pub(super) fn unhide_rows(a: &dimensions::RowsArgs) -> Said {
    on(Said::new(format!("show {} of", rows(a.start_row, a.end_row))), &a.spreadsheet_id, &a.sheet).words("again")
}

pub(super) fn hide_columns(a: &dimensions::ColumnsArgs) -> Said {
    on(Said::new(format!("hide {} of", columns(a.start_column, a.end_column))), &a.spreadsheet_id, &a.sheet)
}

pub(super) fn unhide_columns(a: &dimensions::ColumnsArgs) -> Said {
    let what = columns(a.start_column, a.end_column);
    on(Said::new(format!("show {what} of")), &a.spreadsheet_id, &a.sheet).words("again")
}

pub(super) fn resize_rows(a: &dimensions::ResizeRowsArgs) -> Said {
    let how = match (a.auto_resize, a.pixel_size) {
        (false, Some(pixels)) => format!("to {pixels} pixels high"),
        _ => "to fit their content".to_owned(),
    };
    on(Said::new(format!("resize {}", rows(a.start_row, a.end_row))).words("of"), &a.spreadsheet_id, &a.sheet)
        .words(how)
}

pub(super) fn resize_columns(a: &dimensions::ResizeColumnsArgs) -> Said {
    let how = match (a.auto_resize, a.pixel_size) {
        (false, Some(pixels)) => format!("to {pixels} pixels wide"),
        _ => "to fit their content".to_owned(),
    };
    let what = columns(a.start_column, a.end_column);
    on(Said::new(format!("resize {what} of")), &a.spreadsheet_id, &a.sheet).words(how)
}

pub(super) fn format_cells(a: &format::FormatCellsArgs) -> Said {
    at(on(Said::new("change the look of cells in"), &a.spreadsheet_id, &a.sheet), &a.range)
}

pub(super) fn update_borders(a: &format::UpdateBordersArgs) -> Said {
    at(on(Said::new("set the borders of cells in"), &a.spreadsheet_id, &a.sheet), &a.range)
}

pub(super) fn merge_cells(a: &format::MergeCellsArgs) -> Said {
    at(on(Said::new("merge cells in"), &a.spreadsheet_id, &a.sheet), &a.range)
        .words("(only the top-left value of each merge stays)")
}

pub(super) fn unmerge_cells(a: &format::UnmergeCellsArgs) -> Said {
    at(on(Said::new("split merged cells in"), &a.spreadsheet_id, &a.sheet), &a.range)
}

pub(super) fn add_data_validation(a: &validation::AddDataValidationArgs) -> Said {
    at(
        on(Said::new("set a data rule").value(&a.condition_type).words("on cells in"), &a.spreadsheet_id, &a.sheet),
        &a.range,
    )
}

pub(super) fn clear_data_validation(a: &validation::DataValidationRangeArgs) -> Said {
    at(on(Said::new("remove the data rules of cells in"), &a.spreadsheet_id, &a.sheet), &a.range)
}

pub(super) fn freeze(a: &layout::FreezeArgs) -> Said {
    let said = on(Said::new("freeze"), &a.spreadsheet_id, &a.sheet);
    match (a.rows, a.columns) {
        (0, 0) => on(Said::new("unfreeze every row and column of"), &a.spreadsheet_id, &a.sheet),
        (rows, columns) => said.words(format!(
            "to keep {} and {} in view",
            plural(rows as usize, "top row", "top rows"),
            plural(columns as usize, "left column", "left columns")
        )),
    }
}

pub(super) fn update_sheet_properties(a: &layout::UpdateSheetPropertiesArgs) -> Said {
    let mut changes = Vec::new();
    if a.tab_color.is_some() {
        changes.push("its tab colour");
    }
    if a.show_gridlines.is_some() {
        changes.push("whether gridlines show");
    }
    if a.right_to_left.is_some() {
        changes.push("its text direction");
    }
    let what = if changes.is_empty() { "how it shows".to_owned() } else { changes.join(", ") };
    on(Said::new("change how a sheet shows:"), &a.spreadsheet_id, &a.sheet).words(format!("({what})"))
}

pub(super) fn sort_range(a: &layout::SortRangeArgs) -> Said {
    at(on(Said::new("sort the rows of"), &a.spreadsheet_id, &a.sheet), &a.range)
}

pub(super) fn add_chart(a: &chart::AddChartArgs) -> Said {
    let said = Said::new("add a").value(a.chart_type.to_lowercase()).words("chart of");
    let said = at(on(said, &a.spreadsheet_id, &a.sheet), &a.data_range);
    match &a.title {
        Some(title) => said.words("titled").name(title),
        None => said,
    }
}

pub(super) fn create_spreadsheet(a: &structure::CreateSpreadsheetArgs) -> Said {
    let said = Said::new("create a new spreadsheet").name(&a.title);
    match &a.folder_id {
        Some(folder) => said.words("in").file("folder", folder),
        None => said,
    }
}

pub(super) fn import_csv_to_sheet(a: &import_csv::ImportCsvArgs) -> Said {
    let said = Said::new("create the spreadsheet").name(&a.title).words("from the file").value(&a.local_path);
    match &a.folder_id {
        Some(folder) => said.words("in").file("folder", folder),
        None => said,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_cell_write_says_how_many_cells_where_and_the_range_it_fills() {
        let args: write::UpdateCellsArgs = serde_json::from_value(json!({
            "spreadsheet_id": "S1", "sheet": "Sheet1", "range": "A1", "data": [["Name", "Total"]]
        }))
        .unwrap();
        let named = update_cells(&args).named(|id| (id == "S1").then(|| "Budget 2026".to_owned()));
        assert_eq!(named.text(), "write 2 cells in “Budget 2026” › “Sheet1” (A1:B1)");
        let args: write::UpdateCellsArgs = serde_json::from_value(json!({
            "spreadsheet_id": "S1", "sheet": "Sales", "range": "C3:Z99", "data": [["x", null], [1, 2]]
        }))
        .unwrap();
        assert_eq!(update_cells(&args).named(|_| None).text(), "write 3 cells in the spreadsheet S1 › “Sales” (C3:D4)");
    }

    #[test]
    fn rows_and_columns_are_counted_as_the_person_sees_them() {
        assert_eq!(rows(2, Some(4)), "rows 3 to 5");
        assert_eq!(rows(0, None), "row 1");
        assert_eq!(columns(0, Some(2)), "columns A to C");
    }
}
