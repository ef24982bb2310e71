//! `get_doc_content`, `get_doc_as_markdown` and `get_doc_structure`: one `documents.get`, read by
//! [`crate::docs_format`].

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::comments::{all_comments, comments_markdown};
use super::{doc_url, title_of};
use crate::docs_format::hidden::hidden_passages;
use crate::docs_format::to_markdown::{structure, to_markdown, to_plain_text};
use crate::screening::HIDDEN_TEXT_KEY;
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
    Ok(content(&args, &doc))
}

/// `get_doc_content`'s result, from REST or Docs' MCP server alike.
fn content(args: &GetDocContentArgs, doc: &Value) -> Value {
    let result = json!({
        "document_id": args.file_id,
        "title": title_of(doc),
        "url": doc_url(&args.file_id),
        "content": to_plain_text(doc),
    });
    with_hidden(result, doc)
}

/// `result` with the document's hidden passages under `hidden_text` (see [`crate::screening`]), when it has
/// any: a normal document's result keeps its shape.
fn with_hidden(mut result: Value, doc: &Value) -> Value {
    let hidden = hidden_passages(doc);
    if let (false, Some(object)) = (hidden.is_empty(), result.as_object_mut()) {
        object.insert(HIDDEN_TEXT_KEY.into(), Value::Array(hidden));
    }
    result
}

/// The `documents.get` JSON in Google's `read_doc` answer: its `content` (an object in Google's current
/// reference; a string of that JSON in its first one). An answer that is itself a document is taken as it is.
fn document_of(answer: Value) -> Result<Value, ToolError> {
    let unreadable = || {
        ToolError::invalid(
            "Docs' MCP server answered read_doc without the document's JSON; set GATEHOUSE_GOOGLE_BACKEND=rest to read it through Google's REST API.",
        )
    };
    match answer {
        Value::Object(mut object) if object.contains_key("content") => match object.remove("content") {
            Some(document @ Value::Object(_)) => Ok(document),
            Some(Value::String(text)) => {
                serde_json::from_str::<Value>(&text).ok().filter(Value::is_object).ok_or_else(unreadable)
            }
            _ => Err(unreadable()),
        },
        document @ Value::Object(_) if document.get("body").is_some() => Ok(document),
        _ => Err(unreadable()),
    }
}

/// `get_doc_content` on Docs' MCP server: Google's `read_doc` answers the `documents.get` JSON, which the same
/// reader turns into the same text.
pub(super) fn get_doc_content_on_mcp(args: &Value) -> Result<Option<JsonObject>, ToolError> {
    let args: GetDocContentArgs = parse_args_ref("get_doc_content", args)?;
    Ok(Some(object(json!({ "documentId": args.file_id }))))
}

pub(super) fn get_doc_content_from_mcp(args: &Value, answer: Value) -> Result<Output, ToolError> {
    let args: GetDocContentArgs = parse_args_ref("get_doc_content", args)?;
    Ok(Output::Json(content(&args, &document_of(answer)?)))
}

/// `get_doc_structure` on Docs' MCP server (`read_doc`, the same document JSON).
pub(super) fn get_doc_structure_on_mcp(args: &Value) -> Result<Option<JsonObject>, ToolError> {
    let args: GetDocStructureArgs = parse_args_ref("get_doc_structure", args)?;
    Ok(Some(object(json!({ "documentId": args.doc_id }))))
}

pub(super) fn get_doc_structure_from_mcp(args: &Value, answer: Value) -> Result<Output, ToolError> {
    let args: GetDocStructureArgs = parse_args_ref("get_doc_structure", args)?;
    Ok(Output::Json(outline(&args, &document_of(answer)?)))
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
    let result = json!({
        "document_id": args.doc_id,
        "title": title_of(&doc),
        "url": doc_url(&args.doc_id),
        "markdown": markdown,
    });
    Ok(with_hidden(result, &doc))
}

pub(super) async fn get_doc_structure(ctx: ToolContext, args: GetDocStructureArgs) -> Result<Value, ToolError> {
    let doc = ctx.google.docs().get(&args.doc_id).await?;
    Ok(outline(&args, &doc))
}

/// `get_doc_structure`'s result, from REST or Docs' MCP server alike.
fn outline(args: &GetDocStructureArgs, doc: &Value) -> Value {
    let mut outline = structure(doc);
    if let Some(object) = outline.as_object_mut() {
        object.insert("url".into(), json!(doc_url(&args.doc_id)));
    }
    with_hidden(outline, doc)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    #[test]
    fn read_docs_answer_gives_its_document_in_either_of_googles_shapes() {
        let doc = json!({ "documentId": "d", "body": { "content": [] } });
        assert_eq!(super::document_of(json!({ "content": doc.clone() })).ok(), Some(doc.clone()));
        assert_eq!(super::document_of(json!({ "content": doc.to_string() })).ok(), Some(doc.clone()));
        assert_eq!(super::document_of(doc.clone()).ok(), Some(doc));
        let text = super::document_of(json!({ "content": "Goals. Ship the card." }));
        assert!(text.is_err_and(|error| error.to_string().contains("GATEHOUSE_GOOGLE_BACKEND=rest")));
    }
}
