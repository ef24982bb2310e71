//! `get_doc_content`, `get_doc_as_markdown` and `get_doc_structure`: one `documents.get`, read by
//! [`crate::docs_format`].

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::comments::{all_comments, comments_markdown};
use super::{doc_url, title_of};
use crate::docs_format::to_markdown::{structure, to_markdown, to_plain_text};
use crate::tools::google_mcp::object;
use crate::tools::registry::{Output, parse_args_ref};
use crate::tools::{ToolContext, ToolError};
use rmcp::model::JsonObject;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GetDocContentArgs {
    /// The document's id (from its URL: docs.google.com/document/d/ID/edit).
    pub file_id: String,
    /// Write the full result as JSON to this file in the export folder instead of returning it.
    #[serde(default)]
    #[allow(dead_code, reason = "the engine writes the result to local_path")]
    pub local_path: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GetDocAsMarkdownArgs {
    /// The document's id (from its URL: docs.google.com/document/d/ID/edit).
    pub doc_id: String,
    /// Append the document's comments (author, quoted text, replies) after the content.
    #[serde(default)]
    pub include_comments: bool,
    /// Write the full result as JSON to this file in the export folder instead of returning it.
    #[serde(default)]
    #[allow(dead_code, reason = "the engine writes the result to local_path")]
    pub local_path: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GetDocStructureArgs {
    /// The document's id (from its URL: docs.google.com/document/d/ID/edit).
    pub doc_id: String,
}

pub(super) async fn get_doc_content(ctx: ToolContext, args: GetDocContentArgs) -> Result<Value, ToolError> {
    let doc = ctx.google.docs().get(&args.file_id).await?;
    Ok(json!({
        "document_id": args.file_id,
        "title": title_of(&doc),
        "url": doc_url(&args.file_id),
        "content": to_plain_text(&doc),
    }))
}

/// `get_doc_content` on Docs' MCP server: Google's `read_doc` answers the `documents.get` JSON, which the same
/// reader turns into the same text.
pub(super) fn get_doc_content_on_mcp(args: &Value) -> Result<Option<JsonObject>, ToolError> {
    let args: GetDocContentArgs = parse_args_ref("get_doc_content", args)?;
    Ok(Some(object(json!({ "documentId": args.file_id }))))
}

pub(super) fn get_doc_content_from_mcp(args: &Value, doc: Value) -> Result<Output, ToolError> {
    let args: GetDocContentArgs = parse_args_ref("get_doc_content", args)?;
    Ok(Output::Json(json!({
        "document_id": args.file_id,
        "title": title_of(&doc),
        "url": doc_url(&args.file_id),
        "content": to_plain_text(&doc),
    })))
}

/// `get_doc_structure` on Docs' MCP server (`read_doc`, the same document JSON).
pub(super) fn get_doc_structure_on_mcp(args: &Value) -> Result<Option<JsonObject>, ToolError> {
    let args: GetDocStructureArgs = parse_args_ref("get_doc_structure", args)?;
    Ok(Some(object(json!({ "documentId": args.doc_id }))))
}

pub(super) fn get_doc_structure_from_mcp(args: &Value, doc: Value) -> Result<Output, ToolError> {
    let args: GetDocStructureArgs = parse_args_ref("get_doc_structure", args)?;
    let mut outline = structure(&doc);
    if let Some(object) = outline.as_object_mut() {
        object.insert("url".into(), json!(doc_url(&args.doc_id)));
    }
    Ok(Output::Json(outline))
}

pub(super) async fn get_doc_as_markdown(ctx: ToolContext, args: GetDocAsMarkdownArgs) -> Result<Value, ToolError> {
    let doc = ctx.google.docs().get(&args.doc_id).await?;
    let mut markdown = to_markdown(&doc);
    if args.include_comments {
        let comments = all_comments(&ctx.google, &args.doc_id).await?;
        if !markdown.is_empty() {
            markdown.push_str("\n---\n\n");
        }
        markdown.push_str(&comments_markdown(&comments));
    }
    Ok(json!({
        "document_id": args.doc_id,
        "title": title_of(&doc),
        "url": doc_url(&args.doc_id),
        "markdown": markdown,
    }))
}

pub(super) async fn get_doc_structure(ctx: ToolContext, args: GetDocStructureArgs) -> Result<Value, ToolError> {
    let doc = ctx.google.docs().get(&args.doc_id).await?;
    let mut outline = structure(&doc);
    if let Some(object) = outline.as_object_mut() {
        object.insert("url".into(), json!(doc_url(&args.doc_id)));
    }
    Ok(outline)
}
