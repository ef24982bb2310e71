//! `find_in_spreadsheet`: cells whose shown value contains some text, as A1 references.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::multi::fetch;
use super::{is_grid, on_sheet, range_arg, sheet_name, sheets_of};
use crate::a1::{A1Range, column_letters, quote_sheet};
use crate::google::sheets::{ValueRange, ValueRender};
use crate::tools::{ToolContext, ToolError};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FindInSpreadsheetArgs {
    /// The spreadsheet's id.
    pub spreadsheet_id: String,
    /// The text to look for, matched within each cell's shown value.
    pub query: String,
    /// Only this sheet (tab); omit to search every sheet.
    #[serde(default)]
    pub sheet: Option<String>,
    /// Match upper and lower case exactly.
    #[serde(default)]
    pub case_sensitive: bool,
    /// The most matches to return.
    #[serde(default = "default_max_results")]
    pub max_results: u32,
    /// Write the full result as JSON to this file in the export folder instead of returning it.
    #[serde(default)]
    #[allow(dead_code, reason = "the engine writes the result to local_path")]
    pub local_path: Option<String>,
}

fn default_max_results() -> u32 {
    50
}

pub(super) async fn find_in_spreadsheet(ctx: ToolContext, args: FindInSpreadsheetArgs) -> Result<Value, ToolError> {
    if args.query.is_empty() {
        return Err(ToolError::invalid("query is empty: give the text to look for."));
    }
    if args.max_results == 0 {
        return Err(ToolError::invalid("max_results is 0: ask for at least 1 match."));
    }
    let id = &args.spreadsheet_id;
    // The sheets to search, by title, with the ranges to read them whole.
    let (titles, found) = match &args.sheet {
        Some(sheet) => {
            let range = range_arg(sheet, None)?;
            let answer = ctx.google.sheets().values_get::<Value>(id, &range, ValueRender::Formatted).await;
            (vec![sheet_name(sheet)], vec![on_sheet(&ctx, id, sheet, answer).await?])
        }
        None => {
            let sheets = sheets_of(&ctx, id).await?;
            let titles: Vec<String> = sheets.iter().filter(|p| is_grid(p)).map(|p| p.title.clone()).collect();
            let ranges: Vec<String> = titles.iter().map(|t| A1Range::whole_sheet(t.clone()).to_a1()).collect();
            let found = fetch(&ctx, id, &ranges)
                .await
                .into_iter()
                .collect::<Result<Vec<_>, String>>()
                .map_err(ToolError::Invalid)?;
            (titles, found)
        }
    };
    let needle = if args.case_sensitive { args.query.clone() } else { args.query.to_lowercase() };
    let limit = args.max_results as usize;
    let mut matches = Vec::new();
    let mut truncated = false;
    'sheets: for (title, found) in titles.iter().zip(&found) {
        let (sheet, row0, col0) = origin(found, title);
        for (r, row) in found.values.iter().enumerate() {
            for (c, cell) in row.iter().enumerate() {
                let text = match cell {
                    Value::String(text) => std::borrow::Cow::Borrowed(text.as_str()),
                    Value::Null => continue,
                    other => std::borrow::Cow::Owned(other.to_string()),
                };
                let hit =
                    if args.case_sensitive { text.contains(&needle) } else { text.to_lowercase().contains(&needle) };
                if !hit {
                    continue;
                }
                if matches.len() == limit {
                    truncated = true;
                    break 'sheets;
                }
                let column = u32::try_from(c).unwrap_or(u32::MAX).saturating_add(col0);
                let row_number = u64::from(row0) + r as u64 + 1;
                matches.push(json!({
                    "cell": format!("{}!{}{row_number}", quote_sheet(&sheet), column_letters(column)),
                    "value": text,
                }));
            }
        }
    }
    Ok(json!({
        "spreadsheet_id": id,
        "query": args.query,
        "count": matches.len(),
        "truncated": truncated,
        "matches": matches,
    }))
}

/// The sheet's title as Google spells it and the 0-based row and column of the returned range's top-left
/// cell (its values start there).
fn origin(found: &ValueRange<Value>, asked: &str) -> (String, u32, u32) {
    match A1Range::parse(&found.range) {
        Ok(range) => (
            range.sheet.unwrap_or_else(|| asked.to_owned()),
            range.start_row.unwrap_or(0),
            range.start_col.unwrap_or(0),
        ),
        Err(_) => (asked.to_owned(), 0, 0),
    }
}
