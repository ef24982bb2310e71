//! `style_doc_range`: text and paragraph styles on index ranges, in one atomic `batchUpdate`.
//!
//! Styling moves no index, so the ranges may be given in any order and all refer to the document as it is.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::breaks::NAMED_STYLES;
use super::doc_url;
use crate::tools::sheets::style::Rgb;
use crate::tools::{ToolContext, ToolError};

/// `ParagraphStyle.alignment` without its unspecified member.
const ALIGNMENTS: [&str; 4] = ["START", "CENTER", "END", "JUSTIFIED"];

/// One range to style.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StyleRange {
    /// First index to style.
    pub start_index: u32,
    /// Index just after the last one to style (exclusive).
    pub end_index: u32,
    /// Bold on (true) or off (false).
    #[serde(default)]
    pub bold: Option<bool>,
    /// Italic on or off.
    #[serde(default)]
    pub italic: Option<bool>,
    /// Underline on or off.
    #[serde(default)]
    pub underline: Option<bool>,
    /// Strikethrough on or off.
    #[serde(default)]
    pub strikethrough: Option<bool>,
    /// Font size in points.
    #[serde(default)]
    pub font_size: Option<f64>,
    /// Font family, e.g. "Roboto".
    #[serde(default)]
    pub font_family: Option<String>,
    /// Text colour, `{red, green, blue}` each 0 to 1.
    #[serde(default)]
    pub foreground_color: Option<Rgb>,
    /// Highlight colour, `{red, green, blue}` each 0 to 1.
    #[serde(default)]
    pub background_color: Option<Rgb>,
    /// Link the text to this URL; "" removes a link.
    #[serde(default)]
    pub link: Option<String>,
    /// Paragraph style of the paragraphs the range touches: NORMAL_TEXT, TITLE, SUBTITLE, HEADING_1 to HEADING_6.
    #[serde(default)]
    pub named_style_type: Option<String>,
    /// Paragraph alignment: START, CENTER, END or JUSTIFIED.
    #[serde(default)]
    pub alignment: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StyleDocRangeArgs {
    /// The document's id (from its URL: docs.google.com/document/d/ID/edit).
    pub doc_id: String,
    /// The ranges to style, each `{start_index, end_index}` (end exclusive) with the styles to set.
    pub ranges: Vec<StyleRange>,
}

/// Checks item `i` of `list` is a non-empty range inside the body.
pub(super) fn checked_range(list: &str, i: usize, start: u32, end: u32) -> Result<(), ToolError> {
    if start < 1 {
        return Err(ToolError::invalid(format!(
            "{list}[{i}].start_index is 0, but the document body starts at index 1."
        )));
    }
    if start >= end {
        return Err(ToolError::invalid(format!(
            "{list}[{i}] runs from {start} to {end}: start_index must be less than end_index (the end is exclusive)."
        )));
    }
    Ok(())
}

/// `value` as one of `valid` (case and surrounding space ignored), or an error naming `argument`.
pub(super) fn one_of(argument: &str, value: &str, valid: &[&'static str]) -> Result<&'static str, ToolError> {
    let wanted = value.trim().to_ascii_uppercase();
    valid
        .iter()
        .copied()
        .find(|v| *v == wanted)
        .ok_or_else(|| ToolError::invalid(format!("{argument} {value:?} is not one of {}.", valid.join(", "))))
}

/// An opaque Docs colour (`OptionalColor`).
pub(super) fn docs_color(argument: &str, rgb: &Rgb) -> Result<Value, ToolError> {
    if rgb.alpha.is_some() {
        return Err(ToolError::invalid(format!(
            "{argument} has an alpha, but Docs colours are opaque: leave alpha out."
        )));
    }
    Ok(json!({"color": {"rgbColor": rgb.color(argument)?}}))
}

/// The `updateTextStyle` and `updateParagraphStyle` requests for item `i`.
fn range_requests(i: usize, item: &StyleRange) -> Result<Vec<Value>, ToolError> {
    checked_range("ranges", i, item.start_index, item.end_index)?;
    let mut text = Map::new();
    let mut fields: Vec<&str> = Vec::new();
    for (name, field, value) in [
        ("bold", "bold", item.bold),
        ("italic", "italic", item.italic),
        ("underline", "underline", item.underline),
        ("strikethrough", "strikethrough", item.strikethrough),
    ] {
        if let Some(on) = value {
            text.insert(field.into(), json!(on));
            fields.push(name);
        }
    }
    if let Some(size) = item.font_size {
        if !(1.0..=400.0).contains(&size) {
            return Err(ToolError::invalid(format!("ranges[{i}].font_size is {size}: give points from 1 to 400.")));
        }
        text.insert("fontSize".into(), json!({"magnitude": size, "unit": "PT"}));
        fields.push("fontSize");
    }
    if let Some(family) = &item.font_family {
        if family.trim().is_empty() {
            return Err(ToolError::invalid(format!("ranges[{i}].font_family is empty: name a font, e.g. \"Roboto\".")));
        }
        text.insert("weightedFontFamily".into(), json!({"fontFamily": family.trim()}));
        fields.push("weightedFontFamily");
    }
    if let Some(rgb) = &item.foreground_color {
        text.insert("foregroundColor".into(), docs_color(&format!("ranges[{i}].foreground_color"), rgb)?);
        fields.push("foregroundColor");
    }
    if let Some(rgb) = &item.background_color {
        text.insert("backgroundColor".into(), docs_color(&format!("ranges[{i}].background_color"), rgb)?);
        fields.push("backgroundColor");
    }
    if let Some(url) = &item.link {
        // Listed in the fields without a value, the link is removed.
        if !url.is_empty() {
            text.insert("link".into(), json!({"url": url}));
        }
        fields.push("link");
    }
    let range = json!({"startIndex": item.start_index, "endIndex": item.end_index});
    let mut requests = Vec::new();
    if !fields.is_empty() {
        requests.push(json!({"updateTextStyle": {"range": range, "textStyle": text, "fields": fields.join(",")}}));
    }
    let mut paragraph = Map::new();
    if let Some(named) = &item.named_style_type {
        paragraph.insert(
            "namedStyleType".into(),
            json!(one_of(&format!("ranges[{i}].named_style_type"), named, &NAMED_STYLES)?),
        );
    }
    if let Some(alignment) = &item.alignment {
        paragraph.insert("alignment".into(), json!(one_of(&format!("ranges[{i}].alignment"), alignment, &ALIGNMENTS)?));
    }
    if !paragraph.is_empty() {
        let fields: Vec<&str> = paragraph.keys().map(String::as_str).collect();
        let fields = fields.join(",");
        requests.push(json!({"updateParagraphStyle": {"range": range, "paragraphStyle": paragraph, "fields": fields}}));
    }
    if requests.is_empty() {
        return Err(ToolError::invalid(format!(
            "ranges[{i}] sets no style: give at least one of bold, italic, underline, strikethrough, font_size, font_family, foreground_color, background_color, link, named_style_type, alignment."
        )));
    }
    Ok(requests)
}

pub(super) async fn style_doc_range(ctx: ToolContext, args: StyleDocRangeArgs) -> Result<Value, ToolError> {
    if args.ranges.is_empty() {
        return Err(ToolError::invalid("ranges is empty: give at least one {start_index, end_index, ...} to style."));
    }
    let mut requests = Vec::new();
    for (i, item) in args.ranges.iter().enumerate() {
        requests.extend(range_requests(i, item)?);
    }
    ctx.google.docs().batch_update(&args.doc_id, &requests).await?;
    Ok(json!({
        "document_id": args.doc_id,
        "url": doc_url(&args.doc_id),
        "ranges": args.ranges.len(),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(value: Value) -> StyleRange {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn text_and_paragraph_styles_become_their_own_requests() {
        let requests = range_requests(
            0,
            &item(json!({"start_index": 2, "end_index": 5, "bold": true, "font_size": 14, "alignment": "center"})),
        )
        .unwrap();
        assert_eq!(requests[0]["updateTextStyle"]["fields"], "bold,fontSize");
        assert_eq!(requests[1]["updateParagraphStyle"]["paragraphStyle"], json!({"alignment": "CENTER"}));
        let link = range_requests(0, &item(json!({"start_index": 2, "end_index": 5, "link": ""}))).unwrap();
        assert_eq!(link[0]["updateTextStyle"]["textStyle"], json!({}));
        assert_eq!(link[0]["updateTextStyle"]["fields"], "link");
    }

    #[test]
    fn a_bad_range_is_named() {
        let cases = [
            (json!({"start_index": 0, "end_index": 5, "bold": true}), "ranges[0].start_index is 0"),
            (json!({"start_index": 5, "end_index": 5, "bold": true}), "runs from 5 to 5"),
            (json!({"start_index": 1, "end_index": 5}), "sets no style"),
            (json!({"start_index": 1, "end_index": 5, "alignment": "LEFT"}), "is not one of START"),
            (json!({"start_index": 1, "end_index": 5, "font_size": 0}), "font_size is 0"),
            (json!({"start_index": 1, "end_index": 5, "foreground_color": {"red": 255}}), "run from 0 to 1"),
        ];
        for (value, needle) in cases {
            let message = range_requests(0, &item(value)).unwrap_err().to_string();
            assert!(message.contains(needle), "{needle} not in: {message}");
        }
    }
}
