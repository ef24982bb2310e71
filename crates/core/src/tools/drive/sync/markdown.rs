//! `convert_markdown`: `.md` files synced as Google Docs through Gatehouse's Markdown converter
//! ([`crate::docs_format`]): a Doc is saved locally as its Markdown, a `.md` file goes up as a Doc (new) or
//! replaces the Doc's body in one atomic `batchUpdate` (Docs keeps the version it replaces in its history).

use serde_json::json;

use crate::docs_format::markdown::{Placement, markdown_to_requests_placed};
use crate::docs_format::to_markdown::to_markdown;
use crate::google::drive::mime;
use crate::tools::docs::{body_end, clearing_requests};
use crate::tools::{ToolContext, ToolError};

use super::compare::{SYNC_MARK, rfc3339};

/// A body's first index: a new document's one empty paragraph.
const BODY_START: u32 = 1;

/// The Doc's content as Markdown.
pub(super) async fn doc_as_markdown(ctx: &ToolContext, doc_id: &str) -> Result<Vec<u8>, ToolError> {
    let doc = ctx.google.docs().get(doc_id).await?;
    Ok(to_markdown(&doc).into_bytes())
}

fn text(path: &str, content: &[u8]) -> Result<String, ToolError> {
    String::from_utf8(content.to_vec()).map_err(|_| {
        ToolError::invalid(format!(
            "{path} is not UTF-8 text, so it cannot become a Google Doc. Sync it with convert_markdown=false."
        ))
    })
}

/// Marks a Doc as synced at `mtime` (the local file's time), which also sets its modified time there.
async fn mark(ctx: &ToolContext, doc_id: &str, mtime: i64) -> Result<(), ToolError> {
    let body = json!({ "modifiedTime": rfc3339(mtime), "appProperties": { SYNC_MARK: mtime.to_string() } });
    ctx.google.drive().update(doc_id, &body, "id").await?;
    Ok(())
}

/// A new Doc named `name` in `folder_id` from a `.md` file modified at `mtime`. The Doc is created dated
/// before the file and unmarked, so if filling it fails the next sync sees the file as the newer side and
/// fills it then (never the reverse, which would overwrite the file with an empty Doc).
pub(super) async fn create_doc(
    ctx: &ToolContext,
    path: &str,
    name: &str,
    folder_id: &str,
    content: &[u8],
    mtime: i64,
) -> Result<(), ToolError> {
    let markdown = text(path, content)?;
    let body = json!({
        "name": name,
        "mimeType": mime::DOCUMENT,
        "parents": [folder_id],
        "modifiedTime": rfc3339(mtime - 60_000),
    });
    let doc = ctx.google.drive().create(&body, "id").await?;
    let requests = markdown_to_requests_placed(&markdown, BODY_START, Placement::EmptyParagraph);
    if !requests.is_empty() {
        ctx.google.docs().batch_update(&doc.id, &requests).await?;
    }
    mark(ctx, &doc.id, mtime).await
}

/// Replaces a Doc's body with a `.md` file's content, in one `batchUpdate`.
pub(super) async fn replace_doc(
    ctx: &ToolContext,
    path: &str,
    doc_id: &str,
    content: &[u8],
    mtime: i64,
) -> Result<(), ToolError> {
    let markdown = text(path, content)?;
    let doc = ctx.google.docs().get(doc_id).await?;
    let end = body_end(&doc)
        .ok_or_else(|| ToolError::invalid(format!("Google answered the Doc for {path} without a body.")))?;
    let mut requests = clearing_requests(end);
    requests.extend(markdown_to_requests_placed(&markdown, BODY_START, Placement::EmptyParagraph));
    ctx.google.docs().batch_update(doc_id, &requests).await?;
    mark(ctx, doc_id, mtime).await
}
