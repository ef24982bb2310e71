//! `create_doc`: a new document, its content converted to real Docs structure in one `batchUpdate`.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::autolink::autolink;
use super::doc_url;
use crate::docs_format::markdown::{Placement, markdown_to_requests_placed, plain_text_to_requests};
use crate::tools::{ToolContext, ToolError};

/// A new document's body is one empty paragraph; its text starts at index 1.
const BODY_START: u32 = 1;

fn default_format() -> String {
    "html".to_owned()
}

fn yes() -> bool {
    true
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
    /// "markdown" or "text" (plain text). "html" is not supported yet: send Markdown instead.
    #[serde(default = "default_format")]
    pub content_format: String,
    /// Turn bare http(s) addresses in the content into links.
    #[serde(default = "yes")]
    pub autolink_urls: bool,
    /// Concerns embedded images, which this version does not insert: accepted, no effect.
    #[serde(default = "yes")]
    #[allow(dead_code, reason = "accepted for compatibility; no images are uploaded")]
    pub revoke_sharing: bool,
    /// Concerns embedded images, which this version does not insert: accepted, no effect.
    #[serde(default)]
    #[allow(dead_code, reason = "accepted for compatibility; no images are uploaded")]
    pub auto_downscale: bool,
}

/// How the content is converted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    Markdown,
    Text,
}

fn parse_format(name: &str) -> Result<Format, ToolError> {
    match name.trim().to_ascii_lowercase().as_str() {
        "markdown" | "md" => Ok(Format::Markdown),
        "text" | "plain" | "plain_text" | "txt" => Ok(Format::Text),
        "html" | "htm" => Err(ToolError::invalid(
            "HTML content is not supported yet. Send the content as Markdown with content_format \"markdown\" \
             (headings, bold, italic, links and lists become real Docs formatting), or as plain text with \
             content_format \"text\".",
        )),
        other => Err(ToolError::invalid(format!(
            "content_format {other:?} is not one Gatehouse knows. Use \"markdown\" or \"text\"."
        ))),
    }
}

/// The requests that fill a new, empty document with `content`.
fn content_requests(content: &str, format: Format, autolink_urls: bool) -> Vec<Value> {
    let mut requests = match format {
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
    fn html_is_refused_with_the_way_out() {
        let message = parse_format("html").unwrap_err().to_string();
        assert!(message.contains("not supported yet") && message.contains("\"markdown\""), "{message}");
        assert_eq!(parse_format("Markdown").unwrap(), Format::Markdown);
        assert_eq!(parse_format("plain").unwrap(), Format::Text);
        assert!(parse_format("rtf").unwrap_err().to_string().contains("\"text\""));
    }

    #[test]
    fn text_content_is_inserted_as_is_at_the_body_start() {
        let requests = content_requests("a *b*", Format::Text, false);
        assert_eq!(requests, vec![json!({"insertText": {"location": {"index": 1}, "text": "a *b*"}})]);
    }
}
