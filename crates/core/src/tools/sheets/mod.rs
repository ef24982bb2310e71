//! Google Sheets tools: reads ([`read`], [`multi`], [`find`]), value writes ([`write`]) and sheet structure
//! ([`structure`]). This file holds the declarations (one table, in catalogue order) and the helpers they
//! share: building ranges, finding a sheet by title, and turning Google's "bad range" into "no such sheet".

mod chart;
mod dimensions;
mod find;
mod format;
mod import_csv;
mod layout;
mod multi;
mod preview;
mod read;
mod said;
mod structure;
pub(crate) mod style;
mod target;
mod validation;
mod write;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::google_mcp::McpRoute;
use super::registry::{Cap, Limitation, Service, ToolDef, ToolMeta};
use super::{ToolContext, ToolError};
use crate::a1::{self, A1Range};
use crate::approval::evaluator::Evaluator;
use crate::catalog::Effect;
use crate::google::mcp::Product;
use crate::google::sheets::{SheetProperties, Spreadsheet};
use crate::google::{ErrorKind, GoogleError};

/// The Sheets tools, in catalogue order.
pub fn tools() -> Vec<ToolDef> {
    vec![
        ToolDef::new(
            ToolMeta::read(
                Service::Sheets,
                "get_sheet_data",
                "Read cells",
                "Read a sheet's values as shown (formatted), optionally only a range; include_grid_data adds formulas, formats, notes and links per cell.",
                Cap::Narrower,
            )
            .with_local_path()
            .cached("spreadsheet_id"),
            read::get_sheet_data,
        )
        .on_google_mcp(McpRoute {
            product: Product::Sheets,
            tool: "get_values",
            arguments: read::get_sheet_data_on_mcp,
            result: read::get_sheet_data_from_mcp,
        }),
        ToolDef::new(
            ToolMeta::read(
                Service::Sheets,
                "get_sheet_formulas",
                "Read formulas",
                "Read a sheet's cells with formulas as written (e.g. =SUM(A1:A3)) instead of their results.",
                Cap::Narrower,
            )
            .cached("spreadsheet_id"),
            read::get_sheet_formulas,
        ),
        ToolDef::new(
            ToolMeta::read(
                Service::Sheets,
                "get_multiple_sheet_data",
                "Read several ranges",
                "Read many ranges, across one or more spreadsheets, in one call; each result carries its values or its own error.",
                Cap::Narrower,
            )
            .with_local_path(),
            multi::get_multiple_sheet_data,
        ),
        ToolDef::new(
            ToolMeta::read(
                Service::Sheets,
                "get_multiple_spreadsheet_summary",
                "Summarize spreadsheets",
                "For each spreadsheet: its title, its sheets and the first rows of each sheet.",
                Cap::Narrower,
            )
            .with_local_path(),
            multi::get_multiple_spreadsheet_summary,
        ),
        ToolDef::new(
            ToolMeta::read(
                Service::Sheets,
                "find_in_spreadsheet",
                "Find in spreadsheet",
                "Find cells whose shown value contains the query text, in one sheet or all; returns cell references like Sales!B7.",
                Cap::Narrower,
            )
            .with_local_path()
            .cached("spreadsheet_id"),
            find::find_in_spreadsheet,
        ),
        ToolDef::evaluated(
            ToolMeta::write(
                Service::Sheets,
                "clear_values",
                "Clear cells",
                "Clear the values of a range, or of the whole sheet when no range is given; formatting stays.",
                Effect { destructive: true, idempotent: true },
            ),
            write::clear_values,
            [Evaluator::spreadsheet(|a: &write::ClearValuesArgs| &a.spreadsheet_id)],
        )
        .worded(said::clear_values)
        .previewed(preview::clear_values),
        ToolDef::evaluated(
            ToolMeta::write(
                Service::Sheets,
                "update_cells",
                "Update cells",
                "Write a 2-D array of values into a range, or from a start cell; values are typed as in the Sheets UI (=formulas, numbers, dates).",
                Effect { destructive: true, idempotent: true },
            ),
            write::update_cells,
            [Evaluator::spreadsheet(|a: &write::UpdateCellsArgs| &a.spreadsheet_id)],
        )
        .worded(said::update_cells)
        .previewed(preview::update_cells)
        .on_google_mcp(McpRoute {
            product: Product::Sheets,
            tool: "update_values",
            arguments: write::update_cells_on_mcp,
            result: write::update_cells_from_mcp,
        }),
        ToolDef::evaluated(
            ToolMeta::write(
                Service::Sheets,
                "batch_update_cells",
                "Update several ranges",
                "Write several ranges of one sheet at once: ranges maps each range (A1:B2) to its 2-D array of values.",
                Effect { destructive: true, idempotent: true },
            ),
            write::batch_update_cells,
            [Evaluator::spreadsheet(|a: &write::BatchUpdateCellsArgs| &a.spreadsheet_id)],
        )
        .worded(said::batch_update_cells)
        .previewed(preview::batch_update_cells),
        ToolDef::evaluated(
            ToolMeta::write(
                Service::Sheets,
                "batch_update",
                "Apply Sheets requests",
                "Send raw Google Sheets batchUpdate requests (formatting, merges, charts…) and return Google's replies.",
                Effect { destructive: true, idempotent: false },
            ),
            write::batch_update,
            [Evaluator::spreadsheet(|a: &write::BatchUpdateArgs| &a.spreadsheet_id)],
        )
        .worded(said::batch_update)
        .on_google_mcp(McpRoute {
            product: Product::Sheets,
            tool: "update_spreadsheet",
            arguments: write::batch_update_on_mcp,
            result: write::batch_update_from_mcp,
        }),
        ToolDef::new(
            ToolMeta::read(
                Service::Sheets,
                "list_sheets",
                "List sheets",
                "List the sheets (tabs) of a spreadsheet with their ids and sizes.",
                Cap::Fixed,
            )
            .cached("spreadsheet_id"),
            list_sheets,
        ),
        ToolDef::evaluated(
            ToolMeta::write(
                Service::Sheets,
                "copy_sheet",
                "Copy sheet to spreadsheet",
                "Copy a sheet into another spreadsheet under the name dst_sheet.",
                Effect { destructive: false, idempotent: false },
            ),
            structure::copy_sheet,
            // Reads one spreadsheet and writes another: a grant limited to a spreadsheet covers only copies
            // within it.
            [
                Evaluator::spreadsheet(|a: &structure::CopySheetArgs| &a.src_spreadsheet),
                Evaluator::spreadsheet(|a: &structure::CopySheetArgs| &a.dst_spreadsheet),
            ],
        )
        .worded(said::copy_sheet),
        ToolDef::evaluated(
            ToolMeta::write(
                Service::Sheets,
                "duplicate_sheet",
                "Duplicate sheet",
                "Duplicate a sheet within its spreadsheet, optionally naming the copy and placing it at a 0-based tab position.",
                Effect { destructive: false, idempotent: false },
            ),
            structure::duplicate_sheet,
            [Evaluator::spreadsheet(|a: &structure::DuplicateSheetArgs| &a.spreadsheet_id)],
        )
        .worded(said::duplicate_sheet),
        ToolDef::evaluated(
            ToolMeta::write(
                Service::Sheets,
                "rename_sheet",
                "Rename sheet",
                "Rename a sheet (tab); formulas that refer to it follow the new name.",
                Effect { destructive: true, idempotent: true },
            ),
            structure::rename_sheet,
            [Evaluator::spreadsheet(|a: &structure::RenameSheetArgs| &a.spreadsheet)],
        )
        .worded(said::rename_sheet),
        ToolDef::evaluated(
            ToolMeta::write(
                Service::Sheets,
                "create_sheet",
                "Add sheet",
                "Add a new empty sheet (tab) to a spreadsheet.",
                Effect { destructive: false, idempotent: false },
            ),
            structure::create_sheet,
            [Evaluator::spreadsheet(|a: &structure::CreateSheetArgs| &a.spreadsheet_id)],
        )
        .worded(said::create_sheet),
        ToolDef::evaluated(
            ToolMeta::write(
                Service::Sheets,
                "add_rows",
                "Insert rows",
                "Insert empty rows before the 0-based row index start_row (0 = above row 1; omitted = 0, the top; the row count appends at the end).",
                Effect { destructive: false, idempotent: false },
            ),
            structure::add_rows,
            [Evaluator::spreadsheet(|a: &structure::AddRowsArgs| &a.spreadsheet_id)],
        )
        .worded(said::add_rows),
        ToolDef::evaluated(
            ToolMeta::write(
                Service::Sheets,
                "add_columns",
                "Insert columns",
                "Insert empty columns before the 0-based column index start_column (0 = before column A; omitted = 0; the column count appends at the end).",
                Effect { destructive: false, idempotent: false },
            ),
            structure::add_columns,
            [Evaluator::spreadsheet(|a: &structure::AddColumnsArgs| &a.spreadsheet_id)],
        )
        .worded(said::add_columns),
        ToolDef::evaluated(
            ToolMeta::write(
                Service::Sheets,
                "delete_sheet",
                "Delete sheet",
                "Delete a sheet (tab) and everything on it.",
                Effect { destructive: true, idempotent: true },
            ),
            structure::delete_sheet,
            [Evaluator::spreadsheet(|a: &structure::DeleteSheetArgs| &a.spreadsheet_id)],
        )
        .worded(said::delete_sheet),
        ToolDef::evaluated(
            ToolMeta::write(
                Service::Sheets,
                "delete_rows",
                "Delete rows",
                "Delete rows from the 0-based start_row (0 = row 1) through end_row (included; default: only start_row).",
                Effect { destructive: true, idempotent: false },
            ),
            structure::delete_rows,
            [Evaluator::spreadsheet(|a: &structure::DeleteRowsArgs| &a.spreadsheet_id)],
        )
        .worded(said::delete_rows),
        ToolDef::evaluated(
            ToolMeta::write(
                Service::Sheets,
                "delete_columns",
                "Delete columns",
                "Delete columns from the 0-based start_column (0 = column A) through end_column (included; default: only start_column).",
                Effect { destructive: true, idempotent: false },
            ),
            structure::delete_columns,
            [Evaluator::spreadsheet(|a: &structure::DeleteColumnsArgs| &a.spreadsheet_id)],
        )
        .worded(said::delete_columns),
        ToolDef::evaluated(
            ToolMeta::write(
                Service::Sheets,
                "hide_rows",
                "Hide rows",
                "Hide rows from the 0-based start_row through end_row (included; default: only start_row). Values stay.",
                Effect { destructive: true, idempotent: true },
            ),
            dimensions::hide_rows,
            [Evaluator::spreadsheet(|a: &dimensions::RowsArgs| &a.spreadsheet_id)],
        )
        .worded(said::hide_rows),
        ToolDef::evaluated(
            ToolMeta::write(
                Service::Sheets,
                "unhide_rows",
                "Unhide rows",
                "Show hidden rows again, from the 0-based start_row through end_row (included; default: only start_row).",
                Effect { destructive: true, idempotent: true },
            ),
            dimensions::unhide_rows,
            [Evaluator::spreadsheet(|a: &dimensions::RowsArgs| &a.spreadsheet_id)],
        )
        .worded(said::unhide_rows),
        ToolDef::evaluated(
            ToolMeta::write(
                Service::Sheets,
                "hide_columns",
                "Hide columns",
                "Hide columns from the 0-based start_column (0 = A) through end_column (included; default: only start_column). Values stay.",
                Effect { destructive: true, idempotent: true },
            ),
            dimensions::hide_columns,
            [Evaluator::spreadsheet(|a: &dimensions::ColumnsArgs| &a.spreadsheet_id)],
        )
        .worded(said::hide_columns),
        ToolDef::evaluated(
            ToolMeta::write(
                Service::Sheets,
                "unhide_columns",
                "Unhide columns",
                "Show hidden columns again, from the 0-based start_column through end_column (included; default: only start_column).",
                Effect { destructive: true, idempotent: true },
            ),
            dimensions::unhide_columns,
            [Evaluator::spreadsheet(|a: &dimensions::ColumnsArgs| &a.spreadsheet_id)],
        )
        .worded(said::unhide_columns),
        ToolDef::evaluated(
            ToolMeta::write(
                Service::Sheets,
                "resize_rows",
                "Resize rows",
                "Set the height of rows start_row through end_row (0-based, included) to pixel_size, or fit them to their content with auto_resize.",
                Effect { destructive: true, idempotent: true },
            ),
            dimensions::resize_rows,
            [Evaluator::spreadsheet(|a: &dimensions::ResizeRowsArgs| &a.spreadsheet_id)],
        )
        .worded(said::resize_rows),
        ToolDef::evaluated(
            ToolMeta::write(
                Service::Sheets,
                "resize_columns",
                "Resize columns",
                "Set the width of columns start_column through end_column (0-based, included) to pixel_size, or fit them to their content with auto_resize.",
                Effect { destructive: true, idempotent: true },
            ),
            dimensions::resize_columns,
            [Evaluator::spreadsheet(|a: &dimensions::ResizeColumnsArgs| &a.spreadsheet_id)],
        )
        .worded(said::resize_columns),
        ToolDef::evaluated(
            ToolMeta::write(
                Service::Sheets,
                "format_cells",
                "Format cells",
                "Set text style, colours, alignment or number format of a range; only the properties given change.",
                Effect { destructive: true, idempotent: true },
            ),
            format::format_cells,
            [Evaluator::spreadsheet(|a: &format::FormatCellsArgs| &a.spreadsheet_id)],
        )
        .worded(said::format_cells),
        ToolDef::evaluated(
            ToolMeta::write(
                Service::Sheets,
                "update_borders",
                "Set borders",
                "Set or clear (style NONE) the borders of a range: its four edges and the lines inside it.",
                Effect { destructive: true, idempotent: true },
            ),
            format::update_borders,
            [Evaluator::spreadsheet(|a: &format::UpdateBordersArgs| &a.spreadsheet_id)],
        )
        .worded(said::update_borders),
        ToolDef::evaluated(
            ToolMeta::write(
                Service::Sheets,
                "add_data_validation",
                "Add data validation",
                "Set a data validation rule (dropdown list, number or date bounds, checkbox, email, custom formula…) on every cell of a range, replacing any rule there.",
                Effect { destructive: true, idempotent: true },
            ),
            validation::add_data_validation,
            [Evaluator::spreadsheet(|a: &validation::AddDataValidationArgs| &a.spreadsheet_id)],
        )
        .worded(said::add_data_validation),
        ToolDef::new(
            ToolMeta::read(
                Service::Sheets,
                "get_data_validation",
                "Read data validation",
                "List the data validation rules in a range, each with the cells it applies to.",
                Cap::Narrower,
            ),
            validation::get_data_validation,
        ),
        ToolDef::evaluated(
            ToolMeta::write(
                Service::Sheets,
                "clear_data_validation",
                "Clear data validation",
                "Remove every data validation rule from a range; values stay.",
                Effect { destructive: true, idempotent: true },
            ),
            validation::clear_data_validation,
            [Evaluator::spreadsheet(|a: &validation::DataValidationRangeArgs| &a.spreadsheet_id)],
        )
        .worded(said::clear_data_validation),
        ToolDef::evaluated(
            ToolMeta::write(
                Service::Sheets,
                "merge_cells",
                "Merge cells",
                "Merge a range into one cell (or one per row or column with merge_type); only the top-left value of each merge is kept.",
                Effect { destructive: true, idempotent: true },
            ),
            format::merge_cells,
            [Evaluator::spreadsheet(|a: &format::MergeCellsArgs| &a.spreadsheet_id)],
        )
        .worded(said::merge_cells),
        ToolDef::evaluated(
            ToolMeta::write(
                Service::Sheets,
                "unmerge_cells",
                "Unmerge cells",
                "Split every merged cell inside a range back into single cells.",
                Effect { destructive: true, idempotent: true },
            ),
            format::unmerge_cells,
            [Evaluator::spreadsheet(|a: &format::UnmergeCellsArgs| &a.spreadsheet_id)],
        )
        .worded(said::unmerge_cells),
        ToolDef::evaluated(
            ToolMeta::write(
                Service::Sheets,
                "freeze",
                "Freeze rows and columns",
                "Freeze the top rows and left columns of a sheet so they stay in view; 0 unfreezes.",
                Effect { destructive: true, idempotent: true },
            ),
            layout::freeze,
            [Evaluator::spreadsheet(|a: &layout::FreezeArgs| &a.spreadsheet_id)],
        )
        .worded(said::freeze),
        ToolDef::evaluated(
            ToolMeta::write(
                Service::Sheets,
                "update_sheet_properties",
                "Set sheet display",
                "Set a sheet's tab colour ({} clears it), gridline visibility or right-to-left layout.",
                Effect { destructive: true, idempotent: true },
            ),
            layout::update_sheet_properties,
            [Evaluator::spreadsheet(|a: &layout::UpdateSheetPropertiesArgs| &a.spreadsheet_id)],
        )
        .worded(said::update_sheet_properties),
        ToolDef::evaluated(
            ToolMeta::write(
                Service::Sheets,
                "sort_range",
                "Sort range",
                "Sort the rows of a range by one or more of its columns; leave header rows out of the range.",
                Effect { destructive: true, idempotent: true },
            ),
            layout::sort_range,
            [Evaluator::spreadsheet(|a: &layout::SortRangeArgs| &a.spreadsheet_id)],
        )
        .worded(said::sort_range),
        ToolDef::evaluated(
            ToolMeta::write(
                Service::Sheets,
                "add_chart",
                "Add chart",
                "Add a chart of a range (first row: series names, first column: categories) floating over its sheet.",
                Effect { destructive: true, idempotent: false },
            ),
            chart::add_chart,
            [Evaluator::spreadsheet(|a: &chart::AddChartArgs| &a.spreadsheet_id)],
        )
        .worded(said::add_chart),
        ToolDef::evaluated(
            ToolMeta::write(
                Service::Sheets,
                "create_spreadsheet",
                "Create spreadsheet",
                "Create a new spreadsheet, in folder_id when given (else the configured default folder).",
                Effect { destructive: false, idempotent: false },
            )
            .failing_for(&[Limitation::NoDriveStorageQuota]),
            structure::create_spreadsheet,
            // Without folder_id it goes to the configured folder or My Drive: no folder constraint then.
            [Evaluator::folder_or_default(|a: &structure::CreateSpreadsheetArgs| a.folder_id.as_deref())],
        )
        .worded(said::create_spreadsheet),
        ToolDef::evaluated(
            ToolMeta::write(
                Service::Sheets,
                "import_csv_to_sheet",
                "Import CSV",
                "Create a spreadsheet from a CSV file on this computer, written in chunks; after a failure, the same call finishes the import without duplicating rows.",
                Effect { destructive: true, idempotent: false },
            )
            .failing_for(&[Limitation::NoDriveStorageQuota]),
            import_csv::import_csv_to_sheet,
            // A new spreadsheet, like create_spreadsheet: without folder_id, no folder constraint.
            [Evaluator::folder_or_default(|a: &import_csv::ImportCsvArgs| a.folder_id.as_deref())],
        )
        .worded(said::import_csv_to_sheet),
    ]
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListSheetsArgs {
    /// The spreadsheet's id (from its URL: docs.google.com/spreadsheets/d/ID/edit).
    pub spreadsheet_id: String,
}

async fn list_sheets(ctx: ToolContext, args: ListSheetsArgs) -> Result<Value, ToolError> {
    let info = spreadsheet_info(&ctx, &args.spreadsheet_id).await?;
    Ok(info["sheets"].clone())
}

/// The spreadsheet's title, URL and sheets: the `spreadsheet://{id}/info` resource and `list_sheets`.
pub async fn spreadsheet_info(ctx: &ToolContext, spreadsheet_id: &str) -> Result<Value, ToolError> {
    let spreadsheet = ctx
        .google
        .sheets()
        .get(spreadsheet_id, "spreadsheetId,spreadsheetUrl,properties(title,locale,timeZone),sheets(properties(sheetId,title,index,hidden,gridProperties))")
        .await?;
    let sheets: Vec<Value> = spreadsheet
        .sheets
        .iter()
        .map(|sheet| {
            let p = &sheet.properties;
            json!({
                "title": p.title,
                "sheet_id": p.sheet_id,
                "index": p.index,
                "row_count": p.grid_properties.row_count,
                "column_count": p.grid_properties.column_count,
                "hidden": p.hidden,
            })
        })
        .collect();
    Ok(spreadsheet_json(&spreadsheet, sheets))
}

/// A spreadsheet as the tools answer it: its id, title and link, and an entry per sheet.
fn spreadsheet_json(spreadsheet: &Spreadsheet, sheets: Vec<Value>) -> Value {
    json!({
        "spreadsheet_id": spreadsheet.spreadsheet_id,
        "title": spreadsheet.properties.title,
        "url": spreadsheet.spreadsheet_url,
        "sheets": sheets,
    })
}

/// The field mask for reading sheet titles, ids and sizes.
const SHEET_PROPERTIES: &str = "sheets.properties(sheetId,title,index,sheetType,gridProperties(rowCount,columnCount))";

/// A link to one sheet (tab) of a spreadsheet.
fn sheet_url(spreadsheet_id: &str, sheet_id: i64) -> String {
    format!("https://docs.google.com/spreadsheets/d/{spreadsheet_id}/edit#gid={sheet_id}")
}

/// A `sheet` argument as a bare title: `'My Sheet'` (quoted as in A1) means `My Sheet`.
fn sheet_name(sheet: &str) -> String {
    let trimmed = sheet.trim();
    if trimmed.starts_with('\'')
        && let Ok(A1Range { sheet: Some(name), start_row: None, start_col: None, end_row: None, end_col: None }) =
            A1Range::parse(trimmed)
    {
        return name;
    }
    trimmed.to_owned()
}

/// The A1 range a tool sends for its `sheet` and optional `range` arguments; a range that can't be read is
/// refused here, before any Google call, with the reason and the way to write it.
fn range_arg(sheet: &str, range: Option<&str>) -> Result<String, ToolError> {
    a1::qualified(sheet, range).map_err(|error| match range {
        Some(range) if !range.trim().is_empty() => {
            ToolError::invalid(format!("The range {range:?} on sheet {sheet:?} could not be read: {error}."))
        }
        _ => ToolError::invalid(format!("The sheet {sheet:?} could not be used: {error}.")),
    })
}

/// The properties of every sheet, for resolving titles to ids.
async fn sheets_of(ctx: &ToolContext, spreadsheet_id: &str) -> Result<Vec<SheetProperties>, ToolError> {
    let spreadsheet = ctx.google.sheets().get(spreadsheet_id, SHEET_PROPERTIES).await?;
    Ok(spreadsheet.sheets.into_iter().map(|sheet| sheet.properties).collect())
}

/// The sheet titled `title`: the exact title first, then ignoring case (Sheets treats titles that way).
fn find_sheet<'a>(sheets: &'a [SheetProperties], title: &str) -> Option<&'a SheetProperties> {
    let title = sheet_name(title);
    sheets
        .iter()
        .find(|p| p.title == title)
        .or_else(|| sheets.iter().find(|p| p.title.to_lowercase() == title.to_lowercase()))
}

/// The error for a title that names no sheet, listing the sheets there are.
fn no_such_sheet(sheets: &[SheetProperties], title: &str) -> ToolError {
    let names: Vec<String> = sheets.iter().map(|p| format!("{:?}", p.title)).collect();
    let listing = if names.is_empty() {
        "It has no sheets.".to_owned()
    } else {
        format!("Its sheets are: {}.", names.join(", "))
    };
    ToolError::NotFound(format!(
        "There is no sheet named {:?} in this spreadsheet. {listing} Use one of these names exactly as shown on the tab.",
        sheet_name(title)
    ))
}

/// Resolves a sheet title to its properties (id, size) with one `spreadsheets.get`.
async fn resolve_sheet(ctx: &ToolContext, spreadsheet_id: &str, title: &str) -> Result<SheetProperties, ToolError> {
    let sheets = sheets_of(ctx, spreadsheet_id).await?;
    find_sheet(&sheets, title).cloned().ok_or_else(|| no_such_sheet(&sheets, title))
}

/// Passes a Google answer through, except that a refused range (HTTP 400) on a sheet that doesn't exist
/// becomes [`ToolError::NotFound`] listing the sheets. The lookup runs only on that failure, so the happy
/// path costs no extra call.
async fn on_sheet<T>(
    ctx: &ToolContext,
    spreadsheet_id: &str,
    sheet: &str,
    result: Result<T, GoogleError>,
) -> Result<T, ToolError> {
    match result {
        Ok(value) => Ok(value),
        Err(error) => Err(explain(ctx, spreadsheet_id, sheet, error).await),
    }
}

async fn explain(ctx: &ToolContext, spreadsheet_id: &str, sheet: &str, error: GoogleError) -> ToolError {
    if error.kind() != Some(ErrorKind::InvalidArgument) {
        return error.into();
    }
    match sheets_of(ctx, spreadsheet_id).await {
        Ok(sheets) if find_sheet(&sheets, sheet).is_none() => no_such_sheet(&sheets, sheet),
        _ => error.into(),
    }
}

/// Whether a sheet holds cells (charts-only and data-source sheets have no values to read).
fn is_grid(sheet: &SheetProperties) -> bool {
    sheet.sheet_type.as_deref().is_none_or(|kind| kind == "GRID")
}

/// `Vec<Vec<Value>>` as a JSON array, moving the cells rather than copying them (`json!` would serialize a
/// second copy of every value).
fn rows_value(rows: Vec<Vec<Value>>) -> Value {
    Value::Array(rows.into_iter().map(Value::Array).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sheet(title: &str) -> SheetProperties {
        SheetProperties { title: title.to_owned(), ..SheetProperties::default() }
    }

    #[test]
    fn titles_match_exactly_then_ignoring_case_and_quotes() {
        let sheets = [sheet("Sales"), sheet("sales"), sheet("My Sheet")];
        assert_eq!(find_sheet(&sheets, "sales").map(|p| p.title.as_str()), Some("sales"));
        assert_eq!(find_sheet(&sheets, "SALES").map(|p| p.title.as_str()), Some("Sales"));
        assert_eq!(find_sheet(&sheets, "'My Sheet'").map(|p| p.title.as_str()), Some("My Sheet"));
        assert!(find_sheet(&sheets, "Nope").is_none());
    }

    #[test]
    fn a_missing_sheet_lists_the_sheets_there_are() {
        let text = no_such_sheet(&[sheet("Summary"), sheet("Sales")], "Salse").to_string();
        assert!(text.contains("\"Salse\""), "{text}");
        assert!(text.contains("\"Summary\", \"Sales\""), "{text}");
    }

    #[test]
    fn bad_ranges_name_the_range() {
        let text = range_arg("Sheet1", Some("A1:B2:C3")).unwrap_err().to_string();
        assert!(text.contains("A1:B2:C3"), "{text}");
        assert_eq!(range_arg("My Sheet", Some("A2:C")).unwrap(), "'My Sheet'!A2:C");
    }
}
