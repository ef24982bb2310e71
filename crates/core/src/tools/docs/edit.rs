//! `insert_doc_text` and `delete_doc_range`: edits by index, several in one atomic `batchUpdate`.
//!
//! The indexes a caller gives all refer to the document as it is now, so the edits are applied from
//! the end of the document backwards: each one then leaves the indexes before it unchanged.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::doc_url;
use crate::tools::{ToolContext, ToolError};

/// One insertion, as the schema shows it; items are read by hand so a bad one is named exactly.
#[derive(JsonSchema)]
#[allow(dead_code)]
struct Insertion {
    /// Where to insert (a Docs index; the body starts at 1).
    index: u32,
    /// The text to insert; `\n` starts a new paragraph.
    text: String,
}

/// One deletion, as the schema shows it.
#[derive(JsonSchema)]
#[allow(dead_code)]
struct Deletion {
    /// First index to delete.
    start_index: u32,
    /// Index just after the last one to delete (exclusive).
    end_index: u32,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct InsertDocTextArgs {
    /// The document's id (from its URL: docs.google.com/document/d/ID/edit).
    pub doc_id: String,
    /// The insertions, each `{index, text}`; indexes refer to the document before this call.
    #[schemars(with = "Vec<Insertion>")]
    pub insertions: Vec<Value>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DeleteDocRangeArgs {
    /// The document's id (from its URL: docs.google.com/document/d/ID/edit).
    pub doc_id: String,
    /// The ranges to delete, each `{start_index, end_index}` (end exclusive); indexes refer to the
    /// document before this call.
    #[schemars(with = "Vec<Deletion>")]
    pub deletions: Vec<Value>,
}

/// Reads item `i` of `list` as an object with exactly the fields `fields`.
pub(super) fn item_fields<'a>(
    list: &str,
    i: usize,
    item: &'a Value,
    fields: &[&str],
    shape: &str,
) -> Result<&'a Map<String, Value>, ToolError> {
    let object = item.as_object().ok_or_else(|| {
        ToolError::invalid(format!("{list}[{i}] is {item}, not an object. Each item must look like {shape}."))
    })?;
    if let Some(unknown) = object.keys().find(|k| !fields.contains(&k.as_str())) {
        return Err(ToolError::invalid(format!(
            "{list}[{i}] has an unknown field \"{unknown}\". Each item must look like {shape}."
        )));
    }
    Ok(object)
}

/// A non-negative whole number field of item `i`.
fn index_field(list: &str, i: usize, object: &Map<String, Value>, name: &str, shape: &str) -> Result<u64, ToolError> {
    match object.get(name) {
        None => Err(ToolError::invalid(format!("{list}[{i}] has no \"{name}\". Each item must look like {shape}."))),
        Some(value) => value.as_u64().ok_or_else(|| {
            ToolError::invalid(format!(
                "{list}[{i}].{name} is {value}, not a whole number of 0 or more. Docs indexes count from 1 at the start of the body; get_doc_structure and find_in_doc report them."
            ))
        }),
    }
}

/// The `insertText` requests for `insertions`, last index first.
fn insertion_requests(insertions: &[Value]) -> Result<Vec<Value>, ToolError> {
    const SHAPE: &str = "{\"index\": 1, \"text\": \"Hello\"}";
    if insertions.is_empty() {
        return Err(ToolError::invalid("insertions is empty: give at least one {\"index\", \"text\"} to insert."));
    }
    let mut items = Vec::with_capacity(insertions.len());
    for (i, item) in insertions.iter().enumerate() {
        let object = item_fields("insertions", i, item, &["index", "text"], SHAPE)?;
        let index = index_field("insertions", i, object, "index", SHAPE)?;
        if index < 1 {
            return Err(ToolError::invalid(format!(
                "insertions[{i}].index is 0, but the document body starts at index 1. Use 1 to insert at the very beginning."
            )));
        }
        let text = match object.get("text") {
            Some(Value::String(text)) if !text.is_empty() => text,
            Some(Value::String(_)) => {
                return Err(ToolError::invalid(format!("insertions[{i}].text is empty: give the text to insert.")));
            }
            Some(other) => {
                return Err(ToolError::invalid(format!("insertions[{i}].text is {other}, not a string of text.")));
            }
            None => {
                return Err(ToolError::invalid(format!(
                    "insertions[{i}] has no \"text\". Each item must look like {SHAPE}."
                )));
            }
        };
        items.push((index, i, text));
    }
    // Last index first; at the same index, the later item first, so the texts end up in the given order.
    items.sort_by_key(|&(index, position, _)| std::cmp::Reverse((index, position)));
    Ok(items
        .into_iter()
        .map(|(index, _, text)| json!({"insertText": {"location": {"index": index}, "text": text}}))
        .collect())
}

/// The `deleteContentRange` requests for `deletions`, last range first.
fn deletion_requests(deletions: &[Value]) -> Result<Vec<Value>, ToolError> {
    const SHAPE: &str = "{\"start_index\": 5, \"end_index\": 10}";
    if deletions.is_empty() {
        return Err(ToolError::invalid(
            "deletions is empty: give at least one {\"start_index\", \"end_index\"} range to delete.",
        ));
    }
    let mut ranges = Vec::with_capacity(deletions.len());
    for (i, item) in deletions.iter().enumerate() {
        let object = item_fields("deletions", i, item, &["start_index", "end_index"], SHAPE)?;
        let start = index_field("deletions", i, object, "start_index", SHAPE)?;
        let end = index_field("deletions", i, object, "end_index", SHAPE)?;
        if start >= end {
            return Err(ToolError::invalid(format!(
                "deletions[{i}] runs from {start} to {end}: start_index must be less than end_index (the end is exclusive, so deleting one character at 5 is 5 to 6)."
            )));
        }
        if start < 1 {
            return Err(ToolError::invalid(format!(
                "deletions[{i}].start_index is 0, but the document body starts at index 1."
            )));
        }
        ranges.push((start, end, i));
    }
    ranges.sort_unstable();
    ranges.reverse();
    // Sorted last first, so each range must end where or before the previous (later) one starts.
    for pair in ranges.windows(2) {
        let (later, earlier) = (pair[0], pair[1]);
        if earlier.1 > later.0 {
            return Err(ToolError::invalid(format!(
                "deletions[{}] ({} to {}) and deletions[{}] ({} to {}) overlap. Merge them into one range, or give ranges that don't overlap.",
                earlier.2, earlier.0, earlier.1, later.2, later.0, later.1
            )));
        }
    }
    Ok(ranges
        .into_iter()
        .map(|(start, end, _)| json!({"deleteContentRange": {"range": {"startIndex": start, "endIndex": end}}}))
        .collect())
}

pub(super) async fn insert_doc_text(ctx: ToolContext, args: InsertDocTextArgs) -> Result<Value, ToolError> {
    let requests = insertion_requests(&args.insertions)?;
    ctx.google.docs().batch_update(&args.doc_id, &requests).await?;
    let characters: usize =
        args.insertions.iter().filter_map(|i| i["text"].as_str()).map(crate::docs_format::utf16::utf16_len).sum();
    Ok(json!({
        "document_id": args.doc_id,
        "url": doc_url(&args.doc_id),
        "insertions": requests.len(),
        "inserted_length": characters,
    }))
}

pub(super) async fn delete_doc_range(ctx: ToolContext, args: DeleteDocRangeArgs) -> Result<Value, ToolError> {
    let requests = deletion_requests(&args.deletions)?;
    ctx.google.docs().batch_update(&args.doc_id, &requests).await?;
    let deleted: u64 = requests
        .iter()
        .filter_map(|r| {
            let range = &r["deleteContentRange"]["range"];
            Some(range["endIndex"].as_u64()? - range["startIndex"].as_u64()?)
        })
        .sum();
    Ok(json!({
        "document_id": args.doc_id,
        "url": doc_url(&args.doc_id),
        "deletions": requests.len(),
        "deleted_length": deleted,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insertions_go_last_index_first_keeping_order_at_one_index() {
        let requests = insertion_requests(&[
            json!({"index": 1, "text": "A"}),
            json!({"index": 9, "text": "B"}),
            json!({"index": 1, "text": "C"}),
        ])
        .unwrap();
        let order: Vec<(u64, &str)> = requests
            .iter()
            .map(|r| {
                (r["insertText"]["location"]["index"].as_u64().unwrap(), r["insertText"]["text"].as_str().unwrap())
            })
            .collect();
        assert_eq!(order, [(9, "B"), (1, "C"), (1, "A")]);
    }

    #[test]
    fn a_bad_insertion_is_named() {
        let cases = [
            (json!([{"index": 1, "text": "a"}, {"text": "b"}]), "insertions[1] has no \"index\""),
            (json!([{"index": -3, "text": "a"}]), "insertions[0].index is -3"),
            (json!([{"index": 2, "txt": "a"}]), "unknown field \"txt\""),
            (json!([{"index": 2, "text": 5}]), "insertions[0].text is 5"),
            (json!([{"index": 0, "text": "a"}]), "starts at index 1"),
            (json!(["x"]), "insertions[0] is \"x\", not an object"),
            (json!([]), "insertions is empty"),
        ];
        for (items, needle) in cases {
            let message = insertion_requests(items.as_array().unwrap()).unwrap_err().to_string();
            assert!(message.contains(needle), "{needle} not in: {message}");
        }
    }

    #[test]
    fn deletions_go_last_first_and_bad_ranges_are_refused() {
        let requests = deletion_requests(&[
            json!({"start_index": 2, "end_index": 4}),
            json!({"start_index": 10, "end_index": 12}),
        ])
        .unwrap();
        assert_eq!(requests[0]["deleteContentRange"]["range"]["startIndex"], 10);
        let message = deletion_requests(&[json!({"start_index": 5, "end_index": 5})]).unwrap_err().to_string();
        assert!(message.contains("deletions[0] runs from 5 to 5"), "{message}");
        let message =
            deletion_requests(&[json!({"start_index": 2, "end_index": 6}), json!({"start_index": 5, "end_index": 8})])
                .unwrap_err()
                .to_string();
        assert!(message.contains("overlap"), "{message}");
    }
}
