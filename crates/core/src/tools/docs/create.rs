//! `create_doc`: a new document, its content converted to real Docs structure in one `batchUpdate`.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::autolink::autolink;
use super::doc_url;
use crate::docs_format::html::html_to_requests_placed;
use crate::docs_format::markdown::{Placement, markdown_to_requests_placed, plain_text_to_requests};
use crate::tools::{ToolContext, ToolError};

/// A new document's body is one empty paragraph; its text starts at index 1.
const BODY_START: u32 = 1;

fn default_format() -> String {
    "html".to_owned()
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateDocArgs {
    /// The new document's title.
    pub title: String,
    /// The document's content, in the format `content_format` names. Omit for an empty document.
    #[serde(default)]
    pub content: Option<String>,
    /// The Drive folder to put the document in (default: the configured folder, else My Drive).
    #[serde(default)]
    pub folder_id: Option<String>,
    /// "html" (headings, paragraphs, bold, italic, underline, strikethrough, links, lists, tables, code;
    /// content without any HTML tag is plain text, one paragraph per line), "markdown", or "text".
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
}

/// How the content is converted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Format {
    Html,
    Markdown,
    Text,
}

pub(super) fn parse_format(name: &str) -> Result<Format, ToolError> {
    match name.trim().to_ascii_lowercase().as_str() {
        "markdown" | "md" => Ok(Format::Markdown),
        "text" | "plain" | "plain_text" | "txt" => Ok(Format::Text),
        "html" | "htm" => Ok(Format::Html),
        other => Err(ToolError::invalid(format!(
            "content_format {other:?} is not one Gatehouse knows. Use \"html\", \"markdown\" or \"text\"."
        ))),
    }
}

/// The requests that fill a new, empty document with `content` (also a body just emptied by
/// `write_doc_content`): the one place content becomes Docs requests.
pub(super) fn content_requests(content: &str, format: Format, autolink_urls: bool) -> Vec<Value> {
    let mut requests = match format {
        Format::Html => html_to_requests_placed(content, BODY_START, Placement::EmptyParagraph),
        Format::Markdown => markdown_to_requests_placed(content, BODY_START, Placement::EmptyParagraph),
        Format::Text => plain_text_to_requests(content, BODY_START),
    };
    if autolink_urls {
        autolink(&mut requests);
    }
    requests
}

pub(super) async fn create_doc(ctx: ToolContext, args: CreateDocArgs) -> Result<Value, ToolError> {
    if args.title.trim().is_empty() {
        return Err(ToolError::invalid("The title is empty: give the new document a title."));
    }
    let content = args.content.as_deref().filter(|c| !c.is_empty());
    // The format only matters for content, and is checked before anything is created.
    let requests = match content {
        Some(content) => content_requests(content, parse_format(&args.content_format)?, args.autolink_urls),
        None => Vec::new(),
    };
    let folder = args.folder_id.as_deref().filter(|f| !f.is_empty()).or(ctx.config.drive_folder_id.as_deref());

    let doc = ctx.google.docs().create(&args.title).await?;
    let id = doc.document_id;
    let url = doc_url(&id);
    // Once the document exists, a later failure must say so, or a retry makes a second document.
    let created = |step: &str, error: ToolError| {
        ToolError::invalid(format!(
            "The document \"{}\" was created (id {id}, {url}) but {step} failed: {error} \
             Fix that document rather than creating another.",
            args.title
        ))
    };
    if !requests.is_empty() {
        ctx.google.docs().batch_update(&id, &requests).await.map_err(|e| created("adding its content", e.into()))?;
    }
    if let Some(folder) = folder {
        ctx.google
            .drive()
            .move_to_folder(&id, folder)
            .await
            .map_err(|e| created(&format!("moving it into folder {folder}"), e.into()))?;
    }
    Ok(json!({
        "document_id": id,
        "title": doc.title,
        "url": url,
        "folder_id": folder,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_are_named_and_unknown_ones_refused() {
        assert_eq!(parse_format(" HTML").unwrap(), Format::Html);
        assert_eq!(parse_format("htm").unwrap(), Format::Html);
        assert_eq!(parse_format("Markdown").unwrap(), Format::Markdown);
        assert_eq!(parse_format("plain").unwrap(), Format::Text);
        let message = parse_format("rtf").unwrap_err().to_string();
        assert!(message.contains("\"html\", \"markdown\" or \"text\""), "{message}");
    }

    #[test]
    fn text_content_is_inserted_as_is_at_the_body_start() {
        let requests = content_requests("a *b*", Format::Text, false);
        assert_eq!(requests, vec![json!({"insertText": {"location": {"index": 1}, "text": "a *b*"}})]);
    }

    #[test]
    fn html_content_goes_through_the_shared_renderer() {
        let requests = content_requests("<h2>Hi</h2><p>see <b>x</b></p>", Format::Html, false);
        assert_eq!(requests[0], json!({"insertText": {"location": {"index": 1}, "text": "Hi\nsee x"}}));
        assert!(requests.iter().any(|r| r["updateParagraphStyle"]["paragraphStyle"]["namedStyleType"] == "HEADING_2"));
        assert!(requests.iter().any(|r| r["updateTextStyle"]["textStyle"] == json!({"bold": true})));
    }
}
