//! Spreadsheet and sheet structure: create, rename, duplicate, copy and delete sheets; insert and delete
//! rows and columns. Sheets are named by title; each tool resolves the title to its id with one
//! `spreadsheets.get` (which also gives the sheet's size, so bad indexes are refused in plain words).
//!
//! Row and column indexes are 0-based with exclusive ends, as the Sheets API counts them: row 1 is 0.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::target::{Dim, span};
use super::{find_sheet, resolve_sheet, sheet_url, sheets_of};
use crate::google::sheets::{Reply, SheetProperties};
use crate::tools::{ToolContext, ToolError};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateSpreadsheetArgs {
    /// The new spreadsheet's title.
    pub title: String,
    /// The Drive folder to put it in; omit for the configured default folder (DRIVE_FOLDER_ID) or My Drive.
    #[serde(default)]
    pub folder_id: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateSheetArgs {
    /// The spreadsheet's id.
    pub spreadsheet_id: String,
    /// The new sheet's (tab's) name.
    pub title: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RenameSheetArgs {
    /// The spreadsheet's id.
    pub spreadsheet: String,
    /// The sheet's current name.
    pub sheet: String,
    /// The new name.
    pub new_name: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DuplicateSheetArgs {
    /// The spreadsheet's id.
    pub spreadsheet_id: String,
    /// The sheet to duplicate.
    pub sheet: String,
    /// The copy's name; omit for Google's "Copy of …".
    #[serde(default)]
    pub new_name: Option<String>,
    /// The copy's 0-based tab position; omit to place it right after the original.
    #[serde(default)]
    pub insert_index: Option<u32>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CopySheetArgs {
    /// The id of the spreadsheet to copy from.
    pub src_spreadsheet: String,
    /// The sheet to copy.
    pub src_sheet: String,
    /// The id of the spreadsheet to copy into (may be the same one).
    pub dst_spreadsheet: String,
    /// The copy's name in the destination; it must not be taken there.
    pub dst_sheet: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DeleteSheetArgs {
    /// The spreadsheet's id.
    pub spreadsheet_id: String,
    /// The sheet to delete.
    pub sheet: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AddRowsArgs {
    /// The spreadsheet's id.
    pub spreadsheet_id: String,
    /// The sheet (tab) name.
    pub sheet: String,
    /// How many rows to insert.
    pub count: u32,
    /// 0-based index to insert before (0 = above row 1); omit to insert at the top, as 0 does.
    #[serde(default)]
    pub start_row: Option<u32>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AddColumnsArgs {
    /// The spreadsheet's id.
    pub spreadsheet_id: String,
    /// The sheet (tab) name.
    pub sheet: String,
    /// How many columns to insert.
    pub count: u32,
    /// 0-based index to insert before (0 = before column A); omit to insert at the left, as 0 does.
    #[serde(default)]
    pub start_column: Option<u32>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DeleteRowsArgs {
    /// The spreadsheet's id.
    pub spreadsheet_id: String,
    /// The sheet (tab) name.
    pub sheet: String,
    /// 0-based index of the first row to delete (0 = row 1).
    pub start_row: u32,
    /// 0-based index of the last row to delete, included; omit to delete only start_row.
    #[serde(default)]
    pub end_row: Option<u32>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DeleteColumnsArgs {
    /// The spreadsheet's id.
    pub spreadsheet_id: String,
    /// The sheet (tab) name.
    pub sheet: String,
    /// 0-based index of the first column to delete (0 = column A).
    pub start_column: u32,
    /// 0-based index of the last column to delete, included; omit to delete only start_column.
    #[serde(default)]
    pub end_column: Option<u32>,
}

pub(super) async fn create_spreadsheet(ctx: ToolContext, args: CreateSpreadsheetArgs) -> Result<Value, ToolError> {
    let title = non_empty(&args.title, "title")?;
    let folder = args.folder_id.filter(|f| !f.trim().is_empty()).or_else(|| ctx.config.drive_folder_id.clone());
    let created = ctx.google.sheets().create(title).await?;
    let id = created.spreadsheet_id;
    if let Some(folder) = &folder
        && let Err(error) = ctx.google.drive().move_to_folder(&id, folder).await
    {
        return Err(ToolError::invalid(format!(
            "The spreadsheet {title:?} was created (id {id}) but could not be put in the folder {folder}: {error} It is in My Drive for now; move it with move_file once the folder is reachable.",
        )));
    }
    let sheets: Vec<&str> = created.sheets.iter().map(|s| s.properties.title.as_str()).collect();
    Ok(json!({
        "spreadsheet_id": id,
        "title": created.properties.title,
        "url": created.spreadsheet_url,
        "sheets": sheets,
        "folder_id": folder,
    }))
}

pub(super) async fn create_sheet(ctx: ToolContext, args: CreateSheetArgs) -> Result<Value, ToolError> {
    let title = non_empty(&args.title, "title")?;
    let request = json!({ "addSheet": { "properties": { "title": title } } });
    let reply = one_reply(&ctx, &args.spreadsheet_id, request).await?;
    let added = reply.add_sheet.map(|r| r.properties).unwrap_or_default();
    Ok(sheet_result(&args.spreadsheet_id, &added))
}

pub(super) async fn rename_sheet(ctx: ToolContext, args: RenameSheetArgs) -> Result<Value, ToolError> {
    let new_name = non_empty(&args.new_name, "new_name")?;
    let sheet = resolve_sheet(&ctx, &args.spreadsheet, &args.sheet).await?;
    rename(&ctx, &args.spreadsheet, sheet.sheet_id, new_name).await?;
    Ok(json!({
        "spreadsheet_id": args.spreadsheet,
        "sheet_id": sheet.sheet_id,
        "old_title": sheet.title,
        "title": new_name,
        "url": sheet_url(&args.spreadsheet, sheet.sheet_id),
    }))
}

pub(super) async fn duplicate_sheet(ctx: ToolContext, args: DuplicateSheetArgs) -> Result<Value, ToolError> {
    let source = resolve_sheet(&ctx, &args.spreadsheet_id, &args.sheet).await?;
    let mut request = json!({ "sourceSheetId": source.sheet_id });
    if let Some(name) = args.new_name.as_deref().filter(|n| !n.trim().is_empty()) {
        request["newSheetName"] = json!(name.trim());
    }
    // Omitted means right after the original, sent explicitly (as the reference server does) rather than
    // left to Google, which documents no default.
    let index = args.insert_index.map_or(source.index + 1, i64::from);
    request["insertSheetIndex"] = json!(index);
    let reply = one_reply(&ctx, &args.spreadsheet_id, json!({ "duplicateSheet": request })).await?;
    let copy = reply.duplicate_sheet.map(|r| r.properties).unwrap_or_default();
    let mut result = sheet_result(&args.spreadsheet_id, &copy);
    result["source_sheet"] = json!(source.title);
    Ok(result)
}

pub(super) async fn copy_sheet(ctx: ToolContext, args: CopySheetArgs) -> Result<Value, ToolError> {
    let dst_name = non_empty(&args.dst_sheet, "dst_sheet")?.to_owned();
    let source = resolve_sheet(&ctx, &args.src_spreadsheet, &args.src_sheet).await?;
    // Check the name first: a copy that can't take its name would be left behind as "Copy of …".
    let existing = sheets_of(&ctx, &args.dst_spreadsheet).await?;
    if let Some(taken) = find_sheet(&existing, &dst_name) {
        return Err(ToolError::invalid(format!(
            "The destination spreadsheet already has a sheet named {:?}. Choose another dst_sheet, or rename or delete that sheet first.",
            taken.title
        )));
    }
    let mut copy = ctx.google.sheets().copy_to(&args.src_spreadsheet, source.sheet_id, &args.dst_spreadsheet).await?;
    if copy.title != dst_name {
        if let Err(error) = rename(&ctx, &args.dst_spreadsheet, copy.sheet_id, &dst_name).await {
            return Err(ToolError::invalid(format!(
                "The sheet was copied as {:?} but could not be renamed to {dst_name:?}: {error} Rename it with rename_sheet.",
                copy.title
            )));
        }
        copy.title = dst_name;
    }
    let mut result = sheet_result(&args.dst_spreadsheet, &copy);
    result["source_spreadsheet_id"] = json!(args.src_spreadsheet);
    result["source_sheet"] = json!(source.title);
    Ok(result)
}

pub(super) async fn delete_sheet(ctx: ToolContext, args: DeleteSheetArgs) -> Result<Value, ToolError> {
    let sheet = resolve_sheet(&ctx, &args.spreadsheet_id, &args.sheet).await?;
    one_reply(&ctx, &args.spreadsheet_id, json!({ "deleteSheet": { "sheetId": sheet.sheet_id } })).await?;
    Ok(json!({ "spreadsheet_id": args.spreadsheet_id, "deleted_sheet": sheet.title, "sheet_id": sheet.sheet_id }))
}

pub(super) async fn add_rows(ctx: ToolContext, args: AddRowsArgs) -> Result<Value, ToolError> {
    insert(&ctx, &args.spreadsheet_id, &args.sheet, Dim::Rows, args.count, args.start_row).await
}

pub(super) async fn add_columns(ctx: ToolContext, args: AddColumnsArgs) -> Result<Value, ToolError> {
    insert(&ctx, &args.spreadsheet_id, &args.sheet, Dim::Columns, args.count, args.start_column).await
}

pub(super) async fn delete_rows(ctx: ToolContext, args: DeleteRowsArgs) -> Result<Value, ToolError> {
    delete(&ctx, &args.spreadsheet_id, &args.sheet, Dim::Rows, args.start_row, args.end_row).await
}

pub(super) async fn delete_columns(ctx: ToolContext, args: DeleteColumnsArgs) -> Result<Value, ToolError> {
    delete(&ctx, &args.spreadsheet_id, &args.sheet, Dim::Columns, args.start_column, args.end_column).await
}

async fn insert(
    ctx: &ToolContext,
    spreadsheet_id: &str,
    title: &str,
    dim: Dim,
    count: u32,
    start: Option<u32>,
) -> Result<Value, ToolError> {
    if count == 0 {
        return Err(ToolError::invalid(format!("count is 0: give how many {}s to add (1 or more).", dim.noun())));
    }
    let sheet = resolve_sheet(ctx, spreadsheet_id, title).await?;
    let size = dim.size(&sheet);
    // Omitted means the top (or the left), as in the reference server: its default is index 0.
    let at = start.unwrap_or(0);
    if at > size {
        return Err(ToolError::invalid(format!(
            "{} {at} is past the end of sheet {:?}, which has {size} {}s (indexes are 0-based). Use 0 to {size} ({size} adds them at the end).",
            dim.arg(),
            sheet.title,
            dim.noun(),
        )));
    }
    let end = at.checked_add(count).ok_or_else(|| ToolError::invalid("count is too large."))?;
    let request = json!({ "insertDimension": {
        "range": { "sheetId": sheet.sheet_id, "dimension": dim.api(), "startIndex": at, "endIndex": end },
        // New rows take the formatting of the row above, as inserting in the UI does (none above row 1).
        "inheritFromBefore": at > 0,
    } });
    one_reply(ctx, spreadsheet_id, request).await?;
    let noun = dim.noun();
    Ok(json!({
        "spreadsheet_id": spreadsheet_id,
        "sheet": sheet.title,
        "sheet_id": sheet.sheet_id,
        format!("{noun}s_added"): count,
        format!("new_{noun}s"): dim.a1(at, end),
        format!("{noun}_count"): u64::from(size) + u64::from(count),
    }))
}

/// Deletes `start` through `last` (0-based, `last` included, omitted = only `start`: the reference server's
/// convention, the same as hiding and resizing).
async fn delete(
    ctx: &ToolContext,
    spreadsheet_id: &str,
    title: &str,
    dim: Dim,
    start: u32,
    last: Option<u32>,
) -> Result<Value, ToolError> {
    let span = span(ctx, spreadsheet_id, title, dim, start, last).await?;
    let size = dim.size(&span.sheet);
    let deleted = span.end - span.start;
    if deleted >= size {
        let noun = dim.noun();
        return Err(ToolError::invalid(format!(
            "That is every {noun} of sheet {:?} ({size}), and a sheet keeps at least one {noun}. Nothing was deleted: \
             leave one {noun}, or delete the sheet with delete_sheet.",
            span.sheet.title,
        )));
    }
    one_reply(ctx, spreadsheet_id, json!({ "deleteDimension": { "range": span.dimension_range() } })).await?;
    let noun = dim.noun();
    Ok(json!({
        "spreadsheet_id": spreadsheet_id,
        "sheet": span.sheet.title,
        "sheet_id": span.sheet.sheet_id,
        format!("{noun}s_deleted"): deleted,
        format!("deleted_{noun}s"): span.a1(),
        format!("{noun}_count"): size - deleted,
    }))
}

/// Sends one `spreadsheets.batchUpdate` request and returns its reply.
async fn one_reply(ctx: &ToolContext, spreadsheet_id: &str, request: Value) -> Result<Reply, ToolError> {
    let answer = ctx.google.sheets().batch_update::<Reply>(spreadsheet_id, &[request]).await?;
    Ok(answer.replies.into_iter().next().unwrap_or_default())
}

async fn rename(ctx: &ToolContext, spreadsheet_id: &str, sheet_id: i64, title: &str) -> Result<(), ToolError> {
    let request = json!({ "updateSheetProperties": { "properties": { "sheetId": sheet_id, "title": title }, "fields": "title" } });
    one_reply(ctx, spreadsheet_id, request).await.map(drop)
}

fn sheet_result(spreadsheet_id: &str, sheet: &SheetProperties) -> Value {
    json!({
        "spreadsheet_id": spreadsheet_id,
        "sheet_id": sheet.sheet_id,
        "title": sheet.title,
        "index": sheet.index,
        "url": sheet_url(spreadsheet_id, sheet.sheet_id),
    })
}

fn non_empty<'a>(value: &'a str, name: &str) -> Result<&'a str, ToolError> {
    let trimmed = value.trim();
    if trimmed.is_empty() {
        return Err(ToolError::invalid(format!("{name} is empty: give a name.")));
    }
    Ok(trimmed)
}
