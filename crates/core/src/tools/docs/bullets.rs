//! `create_paragraph_bullets` and `delete_paragraph_bullets`: list bullets on the paragraphs ranges touch.
//!
//! Creating bullets turns each paragraph's leading tabs into its nesting level and removes them, which
//! moves later indexes, so the ranges are sent last first: every range then still refers to the document
//! as the caller saw it.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::doc_url;
use super::styles::{checked_range, one_of};
use crate::tools::{ToolContext, ToolError};

/// `CreateParagraphBulletsRequest.bulletPreset` without its unspecified member.
const PRESETS: [&str; 15] = [
    "BULLET_DISC_CIRCLE_SQUARE",
    "BULLET_DIAMONDX_ARROW3D_SQUARE",
    "BULLET_CHECKBOX",
    "BULLET_ARROW_DIAMOND_DISC",
    "BULLET_STAR_CIRCLE_SQUARE",
    "BULLET_ARROW3D_CIRCLE_SQUARE",
    "BULLET_LEFTTRIANGLE_DIAMOND_DISC",
    "BULLET_DIAMONDX_HOLLOWDIAMOND_SQUARE",
    "BULLET_DIAMOND_CIRCLE_SQUARE",
    "NUMBERED_DECIMAL_ALPHA_ROMAN",
    "NUMBERED_DECIMAL_ALPHA_ROMAN_PARENS",
    "NUMBERED_DECIMAL_NESTED",
    "NUMBERED_UPPERALPHA_ALPHA_ROMAN",
    "NUMBERED_UPPERROMAN_UPPERALPHA_DECIMAL",
    "NUMBERED_ZERODECIMAL_ALPHA_ROMAN",
];

/// One range to give bullets.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BulletRange {
    /// First index of the range.
    pub start_index: u32,
    /// Index just after the range (exclusive); every paragraph the range touches gets a bullet.
    pub end_index: u32,
    /// The bullet style, e.g. BULLET_DISC_CIRCLE_SQUARE (default), BULLET_CHECKBOX or
    /// NUMBERED_DECIMAL_ALPHA_ROMAN.
    #[serde(default)]
    pub bullet_preset: Option<String>,
}

/// One range to take bullets from.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PlainRange {
    /// First index of the range.
    pub start_index: u32,
    /// Index just after the range (exclusive); every paragraph the range touches loses its bullet.
    pub end_index: u32,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateParagraphBulletsArgs {
    /// The document's id (from its URL: docs.google.com/document/d/ID/edit).
    pub doc_id: String,
    /// The ranges, each `{start_index, end_index, bullet_preset?}`; leading tabs set the nesting level.
    pub ranges: Vec<BulletRange>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DeleteParagraphBulletsArgs {
    /// The document's id (from its URL: docs.google.com/document/d/ID/edit).
    pub doc_id: String,
    /// The ranges, each `{start_index, end_index}`.
    pub ranges: Vec<PlainRange>,
}

fn create_requests(ranges: &[BulletRange]) -> Result<Vec<Value>, ToolError> {
    if ranges.is_empty() {
        return Err(ToolError::invalid("ranges is empty: give at least one {start_index, end_index} range."));
    }
    let mut items = Vec::with_capacity(ranges.len());
    for (i, range) in ranges.iter().enumerate() {
        checked_range("ranges", i, range.start_index, range.end_index)?;
        let preset = match &range.bullet_preset {
            Some(preset) => one_of(&format!("ranges[{i}].bullet_preset"), preset, &PRESETS)?,
            None => PRESETS[0],
        };
        items.push((range.start_index, range.end_index, preset));
    }
    items.sort_by_key(|&(start, _, _)| std::cmp::Reverse(start));
    Ok(items
        .into_iter()
        .map(|(start, end, preset)| {
            json!({"createParagraphBullets": {"range": {"startIndex": start, "endIndex": end}, "bulletPreset": preset}})
        })
        .collect())
}

fn delete_requests(ranges: &[PlainRange]) -> Result<Vec<Value>, ToolError> {
    if ranges.is_empty() {
        return Err(ToolError::invalid("ranges is empty: give at least one {start_index, end_index} range."));
    }
    ranges
        .iter()
        .enumerate()
        .map(|(i, range)| {
            checked_range("ranges", i, range.start_index, range.end_index)?;
            Ok(json!({"deleteParagraphBullets": {"range": {"startIndex": range.start_index, "endIndex": range.end_index}}}))
        })
        .collect()
}

pub(super) async fn create_paragraph_bullets(
    ctx: ToolContext,
    args: CreateParagraphBulletsArgs,
) -> Result<Value, ToolError> {
    let requests = create_requests(&args.ranges)?;
    ctx.google.docs().batch_update(&args.doc_id, &requests).await?;
    Ok(json!({"document_id": args.doc_id, "url": doc_url(&args.doc_id), "ranges": requests.len()}))
}

pub(super) async fn delete_paragraph_bullets(
    ctx: ToolContext,
    args: DeleteParagraphBulletsArgs,
) -> Result<Value, ToolError> {
    let requests = delete_requests(&args.ranges)?;
    ctx.google.docs().batch_update(&args.doc_id, &requests).await?;
    Ok(json!({"document_id": args.doc_id, "url": doc_url(&args.doc_id), "ranges": requests.len()}))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_are_the_discovery_enum() {
        let document: Value =
            serde_json::from_str(include_str!("../../../../google-fake/discovery/docs.v1.json")).unwrap();
        let theirs: Vec<&str> =
            document["schemas"]["CreateParagraphBulletsRequest"]["properties"]["bulletPreset"]["enum"]
                .as_array()
                .unwrap()
                .iter()
                .filter_map(Value::as_str)
                .filter(|v| *v != "BULLET_GLYPH_PRESET_UNSPECIFIED")
                .collect();
        assert_eq!(theirs, PRESETS);
    }

    #[test]
    fn ranges_go_last_first_with_the_default_preset() {
        let ranges: Vec<BulletRange> = serde_json::from_value(json!([
            {"start_index": 1, "end_index": 4},
            {"start_index": 9, "end_index": 12, "bullet_preset": "numbered_decimal_nested"},
        ]))
        .unwrap();
        let requests = create_requests(&ranges).unwrap();
        assert_eq!(requests[0]["createParagraphBullets"]["bulletPreset"], "NUMBERED_DECIMAL_NESTED");
        assert_eq!(requests[1]["createParagraphBullets"]["bulletPreset"], "BULLET_DISC_CIRCLE_SQUARE");
        let bad: Vec<BulletRange> =
            serde_json::from_value(json!([{"start_index": 1, "end_index": 4, "bullet_preset": "DOTS"}])).unwrap();
        assert!(
            create_requests(&bad).unwrap_err().to_string().contains("ranges[0].bullet_preset \"DOTS\" is not one of")
        );
    }
}
