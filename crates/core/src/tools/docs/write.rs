//! `write_doc_content`: replaces a document's whole body with new content in one atomic `batchUpdate`,
//! after keeping a backup copy of the document as it was.
//!
//! The backup is a Drive copy (`files.copy`) next to the document, not a revision kept forever: Drive's
//! `keepForever` applies only to files with binary content, never to a Google Doc's revisions.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::create::{content_requests, parse_format};
use super::{doc_url, title_of};
use crate::tools::{ToolContext, ToolError};

fn default_format() -> String {
    "html".to_owned()
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WriteDocContentArgs {
    /// The document's id (from its URL: docs.google.com/document/d/ID/edit).
    pub doc_id: String,
    /// The new content of the whole body, in the format `content_format` names; it replaces everything.
    pub content: String,
    /// "html" (headings, paragraphs, bold, italic, strikethrough, links, lists; content without any tag
    /// is plain text, one paragraph per line), "markdown", or "text" (inserted as written).
    #[serde(default = "default_format")]
    pub content_format: String,
    /// Turn bare http(s) addresses in the content into links.
    #[serde(default = "crate::tools::schema::default_true")]
    pub autolink_urls: bool,
    /// Concerns embedded images, which this version does not insert: accepted, no effect.
    #[serde(default = "crate::tools::schema::default_true")]
    #[allow(dead_code, reason = "accepted for compatibility; no images are uploaded")]
    pub revoke_sharing: bool,
    /// Concerns embedded images, which this version does not insert: accepted, no effect.
    #[serde(default)]
    #[allow(dead_code, reason = "accepted for compatibility; no images are uploaded")]
    pub auto_downscale: bool,
    /// Write without first keeping a backup copy of the document (default: keep one, or refuse to write).
    #[serde(default)]
    pub allow_no_backup: bool,
}

/// One replacement, as `write_doc_content` and `update_doc_from_file` ask for it.
pub(super) struct Replacement<'a> {
    pub doc_id: &'a str,
    pub content: &'a str,
    pub content_format: &'a str,
    pub autolink_urls: bool,
    pub allow_no_backup: bool,
}

pub(super) async fn write_doc_content(ctx: ToolContext, args: WriteDocContentArgs) -> Result<Value, ToolError> {
    replace_body(
        &ctx,
        Replacement {
            doc_id: &args.doc_id,
            content: &args.content,
            content_format: &args.content_format,
            autolink_urls: args.autolink_urls,
            allow_no_backup: args.allow_no_backup,
        },
    )
    .await
}

/// The index just past the body's last character (its final newline), from `documents.get`.
pub(crate) fn body_end(doc: &Value) -> Option<u64> {
    doc["body"]["content"].as_array()?.last()?.get("endIndex")?.as_u64()
}

/// The requests that empty a body ending at `end` down to one plain, empty paragraph, as a new document's.
pub(crate) fn clearing_requests(end: u64) -> Vec<Value> {
    let mut requests = Vec::new();
    // The body's last newline can't be deleted; everything from index 1 before it can.
    if end > 2 {
        requests.push(json!({"deleteContentRange": {"range": {"startIndex": 1, "endIndex": end - 1}}}));
    }
    // The paragraph left keeps the style of one that was deleted: make it plain, as a new document's.
    let last = json!({"startIndex": 1, "endIndex": 2});
    requests.push(json!({"deleteParagraphBullets": {"range": last}}));
    requests.push(json!({"updateParagraphStyle": {
        "range": last,
        "paragraphStyle": {"namedStyleType": "NORMAL_TEXT"},
        "fields": "namedStyleType,alignment,indentStart,indentEnd,indentFirstLine",
    }}));
    requests.push(json!({"updateTextStyle": {"range": last, "textStyle": {}, "fields": "*"}}));
    requests
}

/// Replaces the document's body: the content is converted first (a bad format changes nothing), then a
/// backup copy is made unless `allow_no_backup`, then one `batchUpdate` deletes the body and inserts the
/// content, so the document is never left half written.
pub(super) async fn replace_body(ctx: &ToolContext, r: Replacement<'_>) -> Result<Value, ToolError> {
    let doc_id = r.doc_id.trim();
    if doc_id.is_empty() {
        return Err(ToolError::invalid("doc_id is empty: give the document's id (from its URL)."));
    }
    let format = parse_format(r.content_format)?;
    let content = content_requests(r.content, format, r.autolink_urls);

    let doc = ctx.google.docs().get(doc_id).await?;
    let title = title_of(&doc).to_owned();
    let end = body_end(&doc).ok_or_else(|| {
        ToolError::invalid(format!("Google answered document {doc_id} without a body; nothing was written."))
    })?;

    let backup = if r.allow_no_backup { None } else { Some(backup_copy(ctx, doc_id, &title).await?) };

    let mut requests = clearing_requests(end);
    requests.extend(content);
    if let Err(error) = ctx.google.docs().batch_update(doc_id, &requests).await {
        let error = ToolError::from(error);
        return Err(match &backup {
            Some(copy) => ToolError::invalid(format!(
                "{error} The document was not changed; the backup copy {:?} (id {}) made before writing is no longer needed.",
                copy["name"].as_str().unwrap_or_default(),
                copy["document_id"].as_str().unwrap_or_default()
            )),
            None => error,
        });
    }
    Ok(json!({
        "document_id": doc_id,
        "title": title,
        "url": doc_url(doc_id),
        "backup": backup,
    }))
}

/// Copies the document as it is now, next to it; refuses to go on when Google won't.
async fn backup_copy(ctx: &ToolContext, doc_id: &str, title: &str) -> Result<Value, ToolError> {
    let stamp = chrono::Utc::now().format("%Y-%m-%d %H:%M:%S UTC");
    let name = format!("{title} (backup {stamp})");
    let copy = ctx.google.drive().copy(doc_id, &json!({"name": name}), "id,name").await.map_err(|error| {
        ToolError::invalid(format!(
            "Nothing was written: Gatehouse keeps a backup copy of the document before replacing its content, and \
             copying it failed: {error} To replace the content without a backup, call again with allow_no_backup=true."
        ))
    })?;
    Ok(json!({
        "document_id": copy.id,
        "name": copy.name,
        "url": doc_url(&copy.id),
        "note": "A copy of the document as it was before this write; open it to restore anything.",
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_body_has_nothing_to_delete() {
        let requests = clearing_requests(2);
        assert!(requests.iter().all(|r| r.get("deleteContentRange").is_none()), "{requests:?}");
        let requests = clearing_requests(40);
        assert_eq!(requests[0]["deleteContentRange"]["range"], json!({"startIndex": 1, "endIndex": 39}));
    }
}
