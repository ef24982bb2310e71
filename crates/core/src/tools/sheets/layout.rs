//! A sheet's layout: frozen rows and columns (`freeze`), its display properties
//! (`update_sheet_properties`: tab colour, gridlines, right-to-left) and sorting a range (`sort_range`).

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::resolve_sheet;
use super::style::{Rgb, SORT_ORDERS, choice};
use super::target::{grid_target, send, size};
use crate::a1::column_letters;
use crate::tools::{ToolContext, ToolError};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FreezeArgs {
    /// The spreadsheet's id.
    pub spreadsheet_id: String,
    /// The sheet (tab) name.
    pub sheet: String,
    /// How many rows to freeze at the top (0 unfreezes rows).
    #[serde(default)]
    pub rows: u32,
    /// How many columns to freeze at the left (0 unfreezes columns).
    #[serde(default)]
    pub columns: u32,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateSheetPropertiesArgs {
    /// The spreadsheet's id.
    pub spreadsheet_id: String,
    /// The sheet (tab) name.
    pub sheet: String,
    /// The tab's colour, {"red", "green", "blue"} 0 to 1; {} resets it to none.
    #[serde(default)]
    pub tab_color: Option<Rgb>,
    /// Show (true) or hide (false) the gridlines.
    #[serde(default)]
    pub show_gridlines: Option<bool>,
    /// Lay the sheet out right to left.
    #[serde(default)]
    pub right_to_left: Option<bool>,
}

/// One sort key.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SortKey {
    /// The column to sort by, 0-based within the range (0 = the range's first column).
    pub column_index: u32,
    /// ASCENDING (default) or DESCENDING.
    #[serde(default)]
    pub order: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SortRangeArgs {
    /// The spreadsheet's id.
    pub spreadsheet_id: String,
    /// The sheet (tab) name.
    pub sheet: String,
    /// The rows to sort, in A1 notation (A2:D100); leave a header row out of it.
    pub range: String,
    /// Sort keys in priority order, e.g. [{"column_index": 1, "order": "DESCENDING"}]; omit to sort by the first column ascending.
    #[serde(default)]
    pub sort_order: Option<Vec<SortKey>>,
}

pub(super) async fn freeze(ctx: ToolContext, args: FreezeArgs) -> Result<Value, ToolError> {
    let sheet = resolve_sheet(&ctx, &args.spreadsheet_id, &args.sheet).await?;
    let (rows, cols) = size(&sheet);
    // Sheets refuses to freeze every row or column (nothing would scroll).
    if args.rows >= rows {
        return Err(ToolError::invalid(format!(
            "rows is {}, but sheet {:?} has {rows} rows: freeze fewer than that (0 to {}).",
            args.rows,
            sheet.title,
            rows.saturating_sub(1)
        )));
    }
    if args.columns >= cols {
        return Err(ToolError::invalid(format!(
            "columns is {}, but sheet {:?} has {cols} columns: freeze fewer than that (0 to {}).",
            args.columns,
            sheet.title,
            cols.saturating_sub(1)
        )));
    }
    let request = json!({ "updateSheetProperties": {
        "properties": {
            "sheetId": sheet.sheet_id,
            "gridProperties": { "frozenRowCount": args.rows, "frozenColumnCount": args.columns },
        },
        "fields": "gridProperties.frozenRowCount,gridProperties.frozenColumnCount",
    } });
    send(&ctx, &args.spreadsheet_id, &[request]).await?;
    Ok(json!({
        "spreadsheet_id": args.spreadsheet_id,
        "sheet": sheet.title,
        "frozen_rows": args.rows,
        "frozen_columns": args.columns,
    }))
}

pub(super) async fn update_sheet_properties(
    ctx: ToolContext,
    args: UpdateSheetPropertiesArgs,
) -> Result<Value, ToolError> {
    let mut properties = Map::new();
    let mut fields = Vec::new();
    let mut changed = Map::new();
    if let Some(color) = &args.tab_color {
        if color.is_empty() {
            // `{}` clears: an empty `tabColorStyle` under its mask is Google's way to remove the colour.
            properties.insert("tabColorStyle".into(), json!({}));
            changed.insert("tab_color".into(), Value::Null);
        } else {
            let style = color.style("tab_color")?;
            changed.insert("tab_color".into(), style["rgbColor"].clone());
            properties.insert("tabColorStyle".into(), style);
        }
        fields.push("tabColorStyle");
    }
    if let Some(show) = args.show_gridlines {
        properties.insert("gridProperties".into(), json!({ "hideGridlines": !show }));
        fields.push("gridProperties.hideGridlines");
        changed.insert("show_gridlines".into(), json!(show));
    }
    if let Some(rtl) = args.right_to_left {
        properties.insert("rightToLeft".into(), json!(rtl));
        fields.push("rightToLeft");
        changed.insert("right_to_left".into(), json!(rtl));
    }
    if fields.is_empty() {
        return Err(ToolError::invalid(
            "Nothing to change: give at least one of tab_color, show_gridlines or right_to_left.",
        ));
    }
    let sheet = resolve_sheet(&ctx, &args.spreadsheet_id, &args.sheet).await?;
    properties.insert("sheetId".into(), json!(sheet.sheet_id));
    let request = json!({ "updateSheetProperties": { "properties": properties, "fields": fields.join(",") } });
    send(&ctx, &args.spreadsheet_id, &[request]).await?;
    Ok(json!({ "spreadsheet_id": args.spreadsheet_id, "sheet": sheet.title, "changed": changed }))
}

pub(super) async fn sort_range(ctx: ToolContext, args: SortRangeArgs) -> Result<Value, ToolError> {
    let keys = args.sort_order.clone().unwrap_or_default();
    let keys = if keys.is_empty() { vec![SortKey { column_index: 0, order: None }] } else { keys };
    let orders: Vec<&'static str> = keys
        .iter()
        .enumerate()
        .map(|(i, key)| {
            choice(&format!("sort_order[{i}].order"), key.order.as_deref().unwrap_or("ASCENDING"), SORT_ORDERS)
        })
        .collect::<Result<_, _>>()?;
    let target = grid_target(&ctx, &args.spreadsheet_id, &args.sheet, &args.range).await?;
    let (_, _, c0, c1) = target.bounds();
    let width = c1 - c0;
    let mut specs = Vec::new();
    let mut by = Vec::new();
    for (i, (key, order)) in keys.iter().zip(&orders).enumerate() {
        if key.column_index >= width {
            return Err(ToolError::invalid(format!(
                "sort_order[{i}].column_index is {}, but {} has {width} column{} (0-based indexes 0 to {}, counted from the range's first column).",
                key.column_index,
                target.a1(),
                if width == 1 { "" } else { "s" },
                width.saturating_sub(1),
            )));
        }
        let column = c0 + key.column_index;
        specs.push(json!({ "dimensionIndex": column, "sortOrder": order }));
        by.push(json!({ "column": column_letters(column), "order": order }));
    }
    let request = json!({ "sortRange": { "range": target.grid_range(), "sortSpecs": specs } });
    send(&ctx, &args.spreadsheet_id, &[request]).await?;
    Ok(json!({ "spreadsheet_id": args.spreadsheet_id, "range": target.a1(), "sorted_by": by }))
}
