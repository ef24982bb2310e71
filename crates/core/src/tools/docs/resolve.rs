//! `resolve_doc_comment`: resolves a comment the way the Docs editor does, with a reply whose action is
//! `resolve` (Drive's `replies.create`), optionally saying something as it does.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::doc_url;
use crate::tools::{ToolContext, ToolError};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ResolveDocCommentArgs {
    /// The document's id (from its URL: docs.google.com/document/d/ID/edit).
    pub doc_id: String,
    /// The comment's id (list_doc_comments shows it).
    pub comment_id: String,
    /// A reply to post as the comment is resolved.
    #[serde(default)]
    pub reply_content: Option<String>,
}

pub(super) async fn resolve_doc_comment(ctx: ToolContext, args: ResolveDocCommentArgs) -> Result<Value, ToolError> {
    if args.comment_id.trim().is_empty() {
        return Err(ToolError::invalid("comment_id is empty: give the id list_doc_comments shows for the comment."));
    }
    let content = args.reply_content.as_deref().map(str::trim).unwrap_or("");
    let reply = ctx.google.comments().reply(&args.doc_id, &args.comment_id, content, Some("resolve")).await?;
    Ok(json!({
        "document_id": args.doc_id,
        "url": doc_url(&args.doc_id),
        "comment_id": args.comment_id,
        "resolved": true,
        "reply": {"id": reply.id, "content": reply.content, "action": reply.action},
    }))
}
