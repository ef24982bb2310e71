//! `find_in_doc`: matches with the document indexes Docs edits take (UTF-16 code units), so a match
//! can be passed straight to `delete_doc_range` or `insert_doc_text`.
//!
//! Each paragraph (in the body, table cells and the table of contents) is searched on its own, laid
//! out index for index: elements without text (images, page breaks, chips) keep their width as
//! U+FFFC placeholders, so an offset in the text plus the paragraph's start is the document index.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::{doc_url, title_of};
use crate::docs_format::utf16::{find_all, utf16_len};
use crate::tools::{ToolContext, ToolError};

/// Stands for one index unit of an element without text.
const OBJECT: char = '\u{fffc}';
/// Characters of context shown either side of a match.
const CONTEXT_CHARS: usize = 30;

fn default_max_results() -> u32 {
    50
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FindInDocArgs {
    /// The document's id (from its URL: docs.google.com/document/d/ID/edit).
    pub doc_id: String,
    /// The text to find (a regular expression when `regex` is true).
    pub query: String,
    /// Treat `query` as a regular expression (Rust regex syntax).
    #[serde(default)]
    pub regex: bool,
    /// Match upper and lower case exactly.
    #[serde(default)]
    pub case_sensitive: bool,
    /// Return at most this many matches (the total is still counted).
    #[serde(default = "default_max_results")]
    pub max_results: u32,
    /// Write the full result as JSON to this file in the export folder instead of returning it.
    #[serde(default)]
    #[allow(dead_code, reason = "the engine writes the result to local_path")]
    pub local_path: Option<String>,
}

/// A paragraph's text, index for index, and the document index it starts at.
#[derive(Debug, PartialEq, Eq)]
struct Segment {
    start: u64,
    text: String,
}

fn index(value: &Value, key: &str) -> u64 {
    value.get(key).and_then(Value::as_u64).unwrap_or(0)
}

/// Every paragraph of `content`, in document order, descending into tables and tables of contents.
fn segments(content: &[Value], out: &mut Vec<Segment>) {
    for element in content {
        if let Some(paragraph) = element.get("paragraph") {
            out.push(paragraph_segment(paragraph, index(element, "startIndex")));
        } else if let Some(rows) = element.pointer("/table/tableRows").and_then(Value::as_array) {
            for cell in rows.iter().filter_map(|r| r.get("tableCells").and_then(Value::as_array)).flatten() {
                segments(children(cell), out);
            }
        } else if let Some(toc) = element.get("tableOfContents") {
            segments(children(toc), out);
        }
    }
}

fn children(holder: &Value) -> &[Value] {
    holder.get("content").and_then(Value::as_array).map_or(&[], Vec::as_slice)
}

fn paragraph_segment(paragraph: &Value, paragraph_start: u64) -> Segment {
    let elements = paragraph.get("elements").and_then(Value::as_array).map_or(&[][..], Vec::as_slice);
    let start = elements.first().map_or(paragraph_start, |e| index(e, "startIndex"));
    let mut text = String::new();
    let mut at = start;
    for element in elements {
        let (from, to) = (index(element, "startIndex"), index(element, "endIndex"));
        pad(&mut text, from.saturating_sub(at));
        at = at.max(from);
        match element.pointer("/textRun/content").and_then(Value::as_str) {
            Some(content) => {
                text.push_str(content);
                at += utf16_len(content) as u64;
            }
            None => {
                pad(&mut text, to.saturating_sub(at));
                at = at.max(to);
            }
        }
    }
    Segment { start, text }
}

fn pad(text: &mut String, units: u64) {
    text.extend(std::iter::repeat_n(OBJECT, units as usize));
}

/// Up to `CONTEXT_CHARS` characters of `text` either side of the byte range, on one line.
fn context(text: &str, from: usize, to: usize) -> String {
    let before: String = text[..from].chars().rev().take(CONTEXT_CHARS).collect::<Vec<_>>().into_iter().rev().collect();
    let after: String = text[to..].chars().take(CONTEXT_CHARS).collect();
    format!("{before}{}{after}", &text[from..to]).replace(['\n', '\u{b}'], " ").replace(OBJECT, "").trim().to_owned()
}

/// Byte offset of UTF-16 offset `units` in `text` (a match boundary, so always a character boundary).
fn byte_at(text: &str, units: usize) -> usize {
    crate::docs_format::utf16::utf16_to_byte(text, units).unwrap_or(text.len())
}

pub(super) async fn find_in_doc(ctx: ToolContext, args: FindInDocArgs) -> Result<Value, ToolError> {
    if args.max_results == 0 {
        return Err(ToolError::invalid("max_results is 0: ask for at least 1 match."));
    }
    // Check the query before fetching anything.
    find_all("", &args.query, args.case_sensitive, args.regex)
        .map_err(|e| ToolError::invalid(capitalise(&e.to_string())))?;
    let doc = ctx.google.docs().get(&args.doc_id).await?;
    let body = doc.get("body").or_else(|| doc.pointer("/tabs/0/documentTab/body"));
    let mut paragraphs = Vec::new();
    segments(body.map_or(&[][..], children), &mut paragraphs);

    let mut matches = Vec::new();
    let mut total = 0usize;
    for segment in &paragraphs {
        let found = find_all(&segment.text, &args.query, args.case_sensitive, args.regex)
            .map_err(|e| ToolError::invalid(capitalise(&e.to_string())))?;
        total += found.len();
        for (from, to) in found {
            if matches.len() >= args.max_results as usize {
                continue;
            }
            let (bf, bt) = (byte_at(&segment.text, from), byte_at(&segment.text, to));
            matches.push(json!({
                "start_index": segment.start + from as u64,
                "end_index": segment.start + to as u64,
                "text": segment.text[bf..bt].replace(OBJECT, ""),
                "context": context(&segment.text, bf, bt),
            }));
        }
    }
    Ok(json!({
        "document_id": args.doc_id,
        "title": title_of(&doc),
        "url": doc_url(&args.doc_id),
        "query": args.query,
        "total_matches": total,
        "truncated": total > matches.len(),
        "matches": matches,
    }))
}

fn capitalise(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => format!("{}{}.", first.to_uppercase(), chars.as_str()),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paragraphs_keep_document_indexes_through_objects_and_tables() {
        let body = json!([
            {"endIndex": 1, "sectionBreak": {}},
            {"startIndex": 1, "endIndex": 9, "paragraph": {"elements": [
                {"startIndex": 1, "endIndex": 4, "textRun": {"content": "😀a"}},
                {"startIndex": 4, "endIndex": 5, "inlineObjectElement": {"inlineObjectId": "i"}},
                {"startIndex": 5, "endIndex": 9, "textRun": {"content": "bcd\n"}},
            ]}},
            {"startIndex": 9, "endIndex": 20, "table": {"tableRows": [{"tableCells": [{"content": [
                {"startIndex": 11, "endIndex": 14, "paragraph": {"elements": [
                    {"startIndex": 11, "endIndex": 14, "textRun": {"content": "xy\n"}}]}}
            ]}]}]}},
        ]);
        let mut out = Vec::new();
        segments(body.as_array().unwrap(), &mut out);
        assert_eq!(
            out,
            vec![Segment { start: 1, text: "😀a\u{fffc}bcd\n".into() }, Segment { start: 11, text: "xy\n".into() }]
        );
        let found = find_all(&out[0].text, "bc", true, false).unwrap();
        assert_eq!(found, vec![(4, 6)]);
        assert_eq!(out[0].start + 4, 5);
    }

    #[test]
    fn context_is_one_trimmed_line() {
        assert_eq!(context("ab\ncd\n", 3, 4), "ab cd");
    }
}
