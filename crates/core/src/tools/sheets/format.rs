//! Cell formatting: text and number formats, colours and alignment (`format_cells`), borders
//! (`update_borders`), merging and unmerging. Each call is one `spreadsheets.batchUpdate` on the range.
//!
//! `format_cells` sends a field mask of exactly the properties given (`userEnteredFormat.textFormat.bold`,
//! not the whole `textFormat`), so setting one property keeps the others the cells already have.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::style::{
    BORDER_STYLES, HORIZONTAL_ALIGNMENTS, MERGE_TYPES, NUMBER_FORMAT_TYPES, Rgb, VERTICAL_ALIGNMENTS, choice,
};
use super::target::{grid_target, send};
use crate::tools::{ToolContext, ToolError};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FormatCellsArgs {
    /// The spreadsheet's id.
    pub spreadsheet_id: String,
    /// The sheet (tab) name.
    pub sheet: String,
    /// The cells, in A1 notation (A1:D5, B:B, 2:5).
    pub range: String,
    /// Bold text on or off.
    #[serde(default)]
    pub bold: Option<bool>,
    /// Italic text on or off.
    #[serde(default)]
    pub italic: Option<bool>,
    /// Strikethrough on or off.
    #[serde(default)]
    pub strikethrough: Option<bool>,
    /// Font size in points.
    #[serde(default)]
    pub font_size: Option<u32>,
    /// Text colour, e.g. {"red": 1, "green": 0, "blue": 0}; components 0 to 1.
    #[serde(default)]
    pub font_color: Option<Rgb>,
    /// Cell background colour, same shape as font_color.
    #[serde(default)]
    pub background_color: Option<Rgb>,
    /// LEFT, CENTER or RIGHT.
    #[serde(default)]
    pub horizontal_alignment: Option<String>,
    /// TOP, MIDDLE or BOTTOM.
    #[serde(default)]
    pub vertical_alignment: Option<String>,
    /// TEXT, NUMBER, PERCENT, CURRENCY, DATE, TIME, DATE_TIME or SCIENTIFIC.
    #[serde(default)]
    pub number_format_type: Option<String>,
    /// A number format pattern such as #,##0.00 or yyyy-mm-dd (type NUMBER when no type is given).
    #[serde(default)]
    pub number_format_pattern: Option<String>,
}

/// One edge's border: `style` (required) and an optional colour.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BorderSpec {
    /// DOTTED, DASHED, SOLID, SOLID_MEDIUM, SOLID_THICK, DOUBLE, or NONE to remove the border.
    pub style: String,
    /// The line's colour, {"red", "green", "blue"} 0 to 1; omit for black.
    #[serde(default)]
    pub color: Option<Rgb>,
    /// Deprecated by Google (the style sets the width); accepted and ignored.
    #[serde(default)]
    #[allow(dead_code, reason = "accepted for compatibility; Google derives the width from the style")]
    pub width: Option<i64>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateBordersArgs {
    /// The spreadsheet's id.
    pub spreadsheet_id: String,
    /// The sheet (tab) name.
    pub sheet: String,
    /// The cells, in A1 notation.
    pub range: String,
    /// The range's top edge, e.g. {"style": "SOLID", "color": {"red": 0, "green": 0, "blue": 0}}.
    #[serde(default)]
    pub top: Option<BorderSpec>,
    /// The bottom edge.
    #[serde(default)]
    pub bottom: Option<BorderSpec>,
    /// The left edge.
    #[serde(default)]
    pub left: Option<BorderSpec>,
    /// The right edge.
    #[serde(default)]
    pub right: Option<BorderSpec>,
    /// The lines between rows inside the range.
    #[serde(default)]
    pub inner_horizontal: Option<BorderSpec>,
    /// The lines between columns inside the range.
    #[serde(default)]
    pub inner_vertical: Option<BorderSpec>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MergeCellsArgs {
    /// The spreadsheet's id.
    pub spreadsheet_id: String,
    /// The sheet (tab) name.
    pub sheet: String,
    /// The cells to merge, in A1 notation (A1:C3).
    pub range: String,
    /// MERGE_ALL (one cell), MERGE_COLUMNS (each column) or MERGE_ROWS (each row).
    #[serde(default = "default_merge_type")]
    #[schemars(default = "default_merge_type")]
    pub merge_type: String,
}

fn default_merge_type() -> String {
    "MERGE_ALL".to_owned()
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UnmergeCellsArgs {
    /// The spreadsheet's id.
    pub spreadsheet_id: String,
    /// The sheet (tab) name.
    pub sheet: String,
    /// The range whose merged cells to split, in A1 notation.
    pub range: String,
}

/// A `CellFormat` being built, with the field mask of what it sets.
#[derive(Default)]
struct CellFormat {
    format: Map<String, Value>,
    fields: Vec<String>,
}

impl CellFormat {
    /// Sets `path` (dotted, below `userEnteredFormat`) to `value`.
    fn set(&mut self, path: &str, value: Value) {
        let mut node = &mut self.format;
        let mut parts = path.split('.').peekable();
        while let Some(part) = parts.next() {
            if parts.peek().is_none() {
                node.insert(part.to_owned(), value);
                break;
            }
            let child = node.entry(part.to_owned()).or_insert_with(|| json!({}));
            let Value::Object(child) = child else { break };
            node = child;
        }
        self.fields.push(format!("userEnteredFormat.{path}"));
    }
}

fn cell_format(args: &FormatCellsArgs) -> Result<CellFormat, ToolError> {
    let mut f = CellFormat::default();
    if let Some(bold) = args.bold {
        f.set("textFormat.bold", json!(bold));
    }
    if let Some(italic) = args.italic {
        f.set("textFormat.italic", json!(italic));
    }
    if let Some(strikethrough) = args.strikethrough {
        f.set("textFormat.strikethrough", json!(strikethrough));
    }
    if let Some(size) = args.font_size {
        if size == 0 || size > 400 {
            return Err(ToolError::invalid(format!(
                "font_size {size} is out of range: give a size in points, 1 to 400."
            )));
        }
        f.set("textFormat.fontSize", json!(size));
    }
    if let Some(color) = &args.font_color {
        f.set("textFormat.foregroundColorStyle", color.style("font_color")?);
    }
    if let Some(color) = &args.background_color {
        f.set("backgroundColorStyle", color.style("background_color")?);
    }
    if let Some(align) = &args.horizontal_alignment {
        f.set("horizontalAlignment", json!(choice("horizontal_alignment", align, HORIZONTAL_ALIGNMENTS)?));
    }
    if let Some(align) = &args.vertical_alignment {
        f.set("verticalAlignment", json!(choice("vertical_alignment", align, VERTICAL_ALIGNMENTS)?));
    }
    let kind =
        args.number_format_type.as_deref().map(|t| choice("number_format_type", t, NUMBER_FORMAT_TYPES)).transpose()?;
    let pattern = args.number_format_pattern.as_deref().filter(|p| !p.trim().is_empty());
    if kind.is_some() || pattern.is_some() {
        let mut number = json!({ "type": kind.unwrap_or("NUMBER") });
        if let Some(pattern) = pattern {
            number["pattern"] = json!(pattern);
        }
        f.set("numberFormat", number);
    }
    Ok(f)
}

pub(super) async fn format_cells(ctx: ToolContext, args: FormatCellsArgs) -> Result<Value, ToolError> {
    let format = cell_format(&args)?;
    if format.fields.is_empty() {
        return Err(ToolError::invalid(
            "No formatting given: set at least one of bold, italic, strikethrough, font_size, font_color, background_color, horizontal_alignment, vertical_alignment, number_format_type or number_format_pattern.",
        ));
    }
    let target = grid_target(&ctx, &args.spreadsheet_id, &args.sheet, &args.range).await?;
    let request = json!({ "repeatCell": {
        "range": target.grid_range(),
        "cell": { "userEnteredFormat": Value::Object(format.format.clone()) },
        "fields": format.fields.join(","),
    } });
    send(&ctx, &args.spreadsheet_id, &[request]).await?;
    let applied: Vec<&str> = format.fields.iter().map(|f| f.trim_start_matches("userEnteredFormat.")).collect();
    Ok(json!({
        "spreadsheet_id": args.spreadsheet_id,
        "range": target.a1(),
        "applied": applied,
        "format": Value::Object(format.format),
    }))
}

/// Google's `Border` JSON for one edge.
fn border(edge: &str, spec: &BorderSpec) -> Result<Value, ToolError> {
    let style = choice(&format!("{edge}.style"), &spec.style, BORDER_STYLES)?;
    let mut border = json!({ "style": style });
    if let Some(color) = &spec.color {
        border["colorStyle"] = color.style(&format!("{edge}.color"))?;
    }
    Ok(border)
}

pub(super) async fn update_borders(ctx: ToolContext, args: UpdateBordersArgs) -> Result<Value, ToolError> {
    let edges = [
        ("top", "top", &args.top),
        ("bottom", "bottom", &args.bottom),
        ("left", "left", &args.left),
        ("right", "right", &args.right),
        ("inner_horizontal", "innerHorizontal", &args.inner_horizontal),
        ("inner_vertical", "innerVertical", &args.inner_vertical),
    ];
    let mut request = Map::new();
    let mut applied = Map::new();
    for (name, field, spec) in edges {
        if let Some(spec) = spec {
            let value = border(name, spec)?;
            applied.insert(name.to_owned(), value.clone());
            request.insert(field.to_owned(), value);
        }
    }
    if request.is_empty() {
        return Err(ToolError::invalid(
            "No border given: set at least one of top, bottom, left, right, inner_horizontal or inner_vertical, e.g. {\"style\": \"SOLID\"}.",
        ));
    }
    let target = grid_target(&ctx, &args.spreadsheet_id, &args.sheet, &args.range).await?;
    request.insert("range".to_owned(), target.grid_range());
    send(&ctx, &args.spreadsheet_id, &[json!({ "updateBorders": request })]).await?;
    Ok(json!({ "spreadsheet_id": args.spreadsheet_id, "range": target.a1(), "borders": applied }))
}

pub(super) async fn merge_cells(ctx: ToolContext, args: MergeCellsArgs) -> Result<Value, ToolError> {
    let merge_type = choice("merge_type", &args.merge_type, MERGE_TYPES)?;
    let target = grid_target(&ctx, &args.spreadsheet_id, &args.sheet, &args.range).await?;
    let (r0, r1, c0, c1) = target.bounds();
    let single = match merge_type {
        "MERGE_ROWS" => c1 - c0 < 2,
        "MERGE_COLUMNS" => r1 - r0 < 2,
        _ => (r1 - r0) * (c1 - c0) < 2,
    };
    if single {
        return Err(ToolError::invalid(format!(
            "{} has nothing to merge with {merge_type}: give a range of at least two cells in the merged direction (e.g. A1:C1).",
            target.a1()
        )));
    }
    let request = json!({ "mergeCells": { "range": target.grid_range(), "mergeType": merge_type } });
    send(&ctx, &args.spreadsheet_id, &[request]).await?;
    Ok(json!({
        "spreadsheet_id": args.spreadsheet_id,
        "range": target.a1(),
        "merge_type": merge_type,
        "note": "Merged cells keep only the top-left value of each merge.",
    }))
}

pub(super) async fn unmerge_cells(ctx: ToolContext, args: UnmergeCellsArgs) -> Result<Value, ToolError> {
    let target = grid_target(&ctx, &args.spreadsheet_id, &args.sheet, &args.range).await?;
    let request = json!({ "unmergeCells": { "range": target.grid_range() } });
    send(&ctx, &args.spreadsheet_id, &[request]).await?;
    Ok(json!({ "spreadsheet_id": args.spreadsheet_id, "range": target.a1(), "unmerged": true }))
}
