//! `create_named_range`: a name on an index range, which Google keeps on that text as the document is
//! edited (it moves and shrinks with it), so later edits can find the text by name.
//!
//! `create_bookmark`: the Docs API has no request that creates a bookmark (`Link.bookmark` and
//! `BookmarkLink` only point at existing ones), so the place is marked with a named range of that name
//! on the one character at the index instead, and the tool says so.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::breaks::body_index;
use super::doc_url;
use crate::docs_format::utf16::utf16_len;
use crate::tools::{ToolContext, ToolError};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateNamedRangeArgs {
    /// The document's id (from its URL: docs.google.com/document/d/ID/edit).
    pub doc_id: String,
    /// The range's name (1 to 256 characters; names need not be unique).
    pub name: String,
    /// First index of the range.
    pub start_index: u32,
    /// Index just after the range (exclusive).
    pub end_index: u32,
}

/// A named range's name: 1 to 256 UTF-16 code units.
fn check_name(name: &str) -> Result<(), ToolError> {
    let length = utf16_len(name);
    if !(1..=256).contains(&length) {
        return Err(ToolError::invalid(format!(
            "name is {length} characters long: a named range's name has 1 to 256 characters."
        )));
    }
    Ok(())
}

pub(super) async fn create_named_range(ctx: ToolContext, args: CreateNamedRangeArgs) -> Result<Value, ToolError> {
    check_name(&args.name)?;
    if args.start_index < 1 {
        return Err(ToolError::invalid("start_index is 0, but the document body starts at index 1."));
    }
    if args.start_index >= args.end_index {
        return Err(ToolError::invalid(format!(
            "The range runs from {} to {}: start_index must be less than end_index (the end is exclusive).",
            args.start_index, args.end_index
        )));
    }
    create(&ctx, &args.doc_id, &args.name, u64::from(args.start_index), u64::from(args.end_index)).await
}

/// Sends `createNamedRange` for `start`..`end` and says what was made.
async fn create(ctx: &ToolContext, doc_id: &str, name: &str, start: u64, end: u64) -> Result<Value, ToolError> {
    let request = json!({"createNamedRange": {
        "name": name,
        "range": {"startIndex": start, "endIndex": end},
    }});
    let reply = ctx.google.docs().batch_update(doc_id, &[request]).await?;
    let id = reply.replies.first().and_then(|r| r["createNamedRange"]["namedRangeId"].as_str()).map(str::to_owned);
    Ok(json!({
        "document_id": doc_id,
        "url": doc_url(doc_id),
        "name": name,
        "named_range_id": id,
        "start_index": start,
        "end_index": end,
    }))
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateBookmarkArgs {
    /// The document's id (from its URL: docs.google.com/document/d/ID/edit).
    pub doc_id: String,
    /// The name to mark the place with (1 to 256 characters).
    pub name: String,
    /// The place: the named range covers the one character at this index (the body starts at 1).
    pub index: i64,
}

pub(super) async fn create_bookmark(ctx: ToolContext, args: CreateBookmarkArgs) -> Result<Value, ToolError> {
    check_name(&args.name)?;
    let index = body_index("index", args.index)?;
    let mut made = create(&ctx, &args.doc_id, &args.name, index, index + 1).await?;
    made["note"] = json!(
        "Google's API can't create a Docs bookmark: this is a named range of that name on the character at index, not a bookmark a link can point to."
    );
    Ok(made)
}
