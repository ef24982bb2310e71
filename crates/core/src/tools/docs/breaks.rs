//! `insert_page_break` and `insert_softbreak_paragraph`: breaks inserted by index.
//!
//! A soft break (Shift+Enter in the editor) is the vertical tab U+000B in a Docs text run: it starts a
//! new line without starting a new paragraph, so the lines share one paragraph style and one bullet.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::doc_url;
use super::edit::item_fields;
use super::styles::one_of;
use crate::docs_format::utf16::utf16_len;
use crate::tools::{ToolContext, ToolError};

/// The character Docs stores for a soft line break.
const SOFT_BREAK: char = '\u{b}';

/// The named paragraph styles Docs defines (`ParagraphStyle.namedStyleType` without the unspecified one).
pub(super) const NAMED_STYLES: [&str; 9] =
    ["NORMAL_TEXT", "TITLE", "SUBTITLE", "HEADING_1", "HEADING_2", "HEADING_3", "HEADING_4", "HEADING_5", "HEADING_6"];

fn normal_text() -> String {
    "NORMAL_TEXT".to_owned()
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct InsertPageBreakArgs {
    /// The document's id (from its URL: docs.google.com/document/d/ID/edit).
    pub doc_id: String,
    /// Where to insert the page break (a Docs index; the body starts at 1). It is followed by a new
    /// paragraph, so everything from this index on moves 2 further.
    pub index: i64,
}

/// One line, as the schema shows it; items are read by hand so a bad one is named exactly.
#[derive(JsonSchema)]
#[allow(dead_code)]
struct Line {
    /// The line's text (no newlines).
    text: String,
    /// Make the line bold.
    bold: Option<bool>,
    /// Make the line italic.
    italic: Option<bool>,
    /// Underline the line.
    underline: Option<bool>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct InsertSoftbreakParagraphArgs {
    /// The document's id (from its URL: docs.google.com/document/d/ID/edit).
    pub doc_id: String,
    /// The start index of the paragraph to insert the new paragraph before (get_doc_structure lists them).
    pub index: i64,
    /// The new paragraph's lines, each `{text, bold?, italic?, underline?}`, separated by soft line breaks.
    #[schemars(with = "Vec<Line>")]
    pub lines: Vec<Value>,
    /// The new paragraph's named style: NORMAL_TEXT, TITLE, SUBTITLE or HEADING_1 to HEADING_6.
    #[serde(default = "normal_text")]
    pub named_style_type: String,
}

/// A caller's index as a body index (1 or more).
pub(super) fn body_index(name: &str, index: i64) -> Result<u64, ToolError> {
    match u64::try_from(index) {
        Ok(index) if index >= 1 => Ok(index),
        _ => Err(ToolError::invalid(format!(
            "{name} is {index}, but the document body starts at index 1. get_doc_structure and find_in_doc report the indexes."
        ))),
    }
}

pub(super) async fn insert_page_break(ctx: ToolContext, args: InsertPageBreakArgs) -> Result<Value, ToolError> {
    let index = body_index("index", args.index)?;
    let request = json!({"insertPageBreak": {"location": {"index": index}}});
    ctx.google.docs().batch_update(&args.doc_id, &[request]).await?;
    Ok(json!({
        "document_id": args.doc_id,
        "url": doc_url(&args.doc_id),
        "index": index,
        "inserted_length": 2,
    }))
}

/// One parsed line: its text and the text style fields it sets.
struct ParsedLine {
    text: String,
    style: Map<String, Value>,
}

fn parse_lines(lines: &[Value]) -> Result<Vec<ParsedLine>, ToolError> {
    const SHAPE: &str = "{\"text\": \"First line\", \"bold\": true}";
    const STYLES: [&str; 3] = ["bold", "italic", "underline"];
    if lines.is_empty() {
        return Err(ToolError::invalid("lines is empty: give at least one {\"text\"} line."));
    }
    let mut parsed = Vec::with_capacity(lines.len());
    for (i, item) in lines.iter().enumerate() {
        let object = item_fields("lines", i, item, &["text", "bold", "italic", "underline"], SHAPE)?;
        let text = match object.get("text") {
            Some(Value::String(text)) => text,
            Some(other) => {
                return Err(ToolError::invalid(format!("lines[{i}].text is {other}, not a string of text.")));
            }
            None => {
                return Err(ToolError::invalid(format!(
                    "lines[{i}] has no \"text\". Each line must look like {SHAPE}."
                )));
            }
        };
        if text.contains(['\n', '\r', SOFT_BREAK]) {
            return Err(ToolError::invalid(format!(
                "lines[{i}].text contains a line break: give each line as its own item of lines."
            )));
        }
        let mut style = Map::new();
        for name in STYLES {
            match object.get(name) {
                None | Some(Value::Null) => {}
                Some(Value::Bool(on)) => {
                    style.insert(name.to_owned(), Value::Bool(*on));
                }
                Some(other) => {
                    return Err(ToolError::invalid(format!("lines[{i}].{name} is {other}, not true or false.")));
                }
            }
        }
        parsed.push(ParsedLine { text: text.clone(), style });
    }
    if parsed.iter().all(|line| line.text.is_empty()) {
        return Err(ToolError::invalid("Every line's text is empty: give the text of at least one line."));
    }
    Ok(parsed)
}

/// The requests inserting `lines` as one paragraph at `index` styled `named_style`: the text with its
/// closing newline, the paragraph style, then each styled line's text style.
fn softbreak_requests(index: u64, lines: &[ParsedLine], named_style: &str) -> Vec<Value> {
    let text: String = lines.iter().map(|l| l.text.as_str()).collect::<Vec<_>>().join(&SOFT_BREAK.to_string());
    let paragraph_end = index + utf16_len(&text) as u64 + 1;
    let mut requests = vec![
        json!({"insertText": {"location": {"index": index}, "text": format!("{text}\n")}}),
        json!({"updateParagraphStyle": {
            "range": {"startIndex": index, "endIndex": paragraph_end},
            "paragraphStyle": {"namedStyleType": named_style},
            "fields": "namedStyleType",
        }}),
    ];
    let mut start = index;
    for line in lines {
        let end = start + utf16_len(&line.text) as u64;
        if !line.style.is_empty() && end > start {
            let fields: Vec<&str> = line.style.keys().map(String::as_str).collect();
            requests.push(json!({"updateTextStyle": {
                "range": {"startIndex": start, "endIndex": end},
                "textStyle": line.style,
                "fields": fields.join(","),
            }}));
        }
        start = end + 1;
    }
    requests
}

/// The `(startIndex, endIndex)` of the body's top-level paragraph holding `index`, if any.
fn paragraph_around(doc: &Value, index: u64) -> Option<(u64, u64)> {
    doc["body"]["content"].as_array()?.iter().filter(|e| e.get("paragraph").is_some()).find_map(|e| {
        let start = e.get("startIndex").and_then(Value::as_u64).unwrap_or(0);
        let end = e.get("endIndex").and_then(Value::as_u64)?;
        (start <= index && index < end).then_some((start, end))
    })
}

pub(super) async fn insert_softbreak_paragraph(
    ctx: ToolContext,
    args: InsertSoftbreakParagraphArgs,
) -> Result<Value, ToolError> {
    let index = body_index("index", args.index)?;
    let lines = parse_lines(&args.lines)?;
    let named = one_of("named_style_type", &args.named_style_type, &NAMED_STYLES)?;
    // Inserted mid-paragraph, the text before the index would join the first line: refuse instead.
    let doc = ctx.google.docs().get(&args.doc_id).await?;
    if let Some((start, end)) = paragraph_around(&doc, index).filter(|&(start, _)| start != index) {
        return Err(ToolError::invalid(format!(
            "index {index} is inside the paragraph that runs from {start} to {end}. Give that paragraph's start ({start}) to insert the new paragraph before it, or the start of the next paragraph ({end}) to insert it after."
        )));
    }
    let requests = softbreak_requests(index, &lines, named);
    ctx.google.docs().batch_update(&args.doc_id, &requests).await?;
    let end = requests[1]["updateParagraphStyle"]["range"]["endIndex"].as_u64().unwrap_or(index);
    Ok(json!({
        "document_id": args.doc_id,
        "url": doc_url(&args.doc_id),
        "start_index": index,
        "end_index": end,
        "lines": lines.len(),
        "named_style_type": named,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_joined_by_soft_breaks_and_styled_where_asked() {
        let lines = parse_lines(&[json!({"text": "Ada"}), json!({"text": "1 Main St", "bold": true})]).unwrap();
        let requests = softbreak_requests(5, &lines, "HEADING_2");
        assert_eq!(requests[0]["insertText"]["text"], "Ada\u{b}1 Main St\n");
        assert_eq!(requests[1]["updateParagraphStyle"]["range"], json!({"startIndex": 5, "endIndex": 19}));
        assert_eq!(requests[2]["updateTextStyle"]["range"], json!({"startIndex": 9, "endIndex": 18}));
        assert_eq!(requests[2]["updateTextStyle"]["fields"], "bold");
        assert_eq!(requests.len(), 3);
    }

    #[test]
    fn a_bad_line_is_named() {
        let cases = [
            (json!([]), "lines is empty"),
            (json!([{"text": "a"}, {"bold": true}]), "lines[1] has no \"text\""),
            (json!([{"text": "a\nb"}]), "lines[0].text contains a line break"),
            (json!([{"text": "a", "bold": "yes"}]), "lines[0].bold is \"yes\""),
            (json!([{"text": "a", "colour": "red"}]), "unknown field \"colour\""),
            (json!([{"text": ""}]), "Every line's text is empty"),
        ];
        for (items, needle) in cases {
            let message = parse_lines(items.as_array().unwrap()).err().unwrap().to_string();
            assert!(message.contains(needle), "{needle} not in: {message}");
        }
    }
}
