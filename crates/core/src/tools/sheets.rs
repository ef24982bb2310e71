//! Google Sheets tools.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::registry::{Access, Cap, Service, ToolDef, ToolMeta};
use super::{ToolContext, ToolError};

const fn sheets_read(name: &'static str, title: &'static str, description: &'static str, cap: Cap, local_path: bool) -> ToolMeta {
    ToolMeta { name, title, description, service: Service::Sheets, access: Access::Read, cap, local_path }
}

/// The Sheets tools, in catalogue order.
pub fn tools() -> Vec<ToolDef> {
    vec![ToolDef::new(
        sheets_read("list_sheets", "List sheets", "List the sheets (tabs) of a spreadsheet with their ids and sizes.", Cap::Fixed, false),
        list_sheets,
    )]
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
    Ok(json!({
        "spreadsheet_id": spreadsheet.spreadsheet_id,
        "title": spreadsheet.properties.title,
        "url": spreadsheet.spreadsheet_url,
        "sheets": sheets,
    }))
}
