//! `create_header` and `create_footer`: the document's default header or footer, optionally with text.
//!
//! The Docs API creates a header (`createHeader`) and answers its id; text then goes into that segment,
//! whose indexes start at 0. That is two `batchUpdate`s, since the id is only known after the first.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::doc_url;
use crate::docs_format::utf16::utf16_len;
use crate::tools::{ToolContext, ToolError};

fn default_type() -> String {
    "DEFAULT".to_owned()
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateHeaderArgs {
    /// The document's id (from its URL: docs.google.com/document/d/ID/edit).
    pub doc_id: String,
    /// DEFAULT, the header on every page (the only type the Docs API creates).
    #[serde(default = "default_type")]
    pub header_type: String,
    /// Text to put in the new header; `\n` starts a new paragraph.
    #[serde(default)]
    pub content: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateFooterArgs {
    /// The document's id (from its URL: docs.google.com/document/d/ID/edit).
    pub doc_id: String,
    /// DEFAULT, the footer on every page (the only type the Docs API creates).
    #[serde(default = "default_type")]
    pub footer_type: String,
    /// Text to put in the new footer; `\n` starts a new paragraph.
    #[serde(default)]
    pub content: Option<String>,
}

/// Header or footer: the words and `batchUpdate` names that differ.
#[derive(Clone, Copy)]
struct Part {
    /// "header" or "footer".
    word: &'static str,
    /// `createHeader` or `createFooter`.
    request: &'static str,
    /// `headerId` or `footerId` in the reply.
    id_field: &'static str,
}

const HEADER: Part = Part { word: "header", request: "createHeader", id_field: "headerId" };
const FOOTER: Part = Part { word: "footer", request: "createFooter", id_field: "footerId" };

async fn create(
    ctx: &ToolContext,
    part: Part,
    doc_id: &str,
    kind: &str,
    content: Option<&str>,
) -> Result<Value, ToolError> {
    if !kind.trim().eq_ignore_ascii_case("DEFAULT") {
        return Err(ToolError::invalid(format!(
            "{}_type {kind:?} is not one the Docs API can create: use DEFAULT (the {} on every page).",
            part.word, part.word
        )));
    }
    let content = content.filter(|c| !c.is_empty());
    let created = ctx.google.docs().batch_update(doc_id, &[json!({part.request: {"type": "DEFAULT"}})]).await?;
    let id =
        created.replies.first().and_then(|r| r[part.request][part.id_field].as_str()).map(str::to_owned).ok_or_else(
            || {
                ToolError::invalid(format!(
                    "Google created the {} but did not say its id; get_doc_structure or the document itself shows it.",
                    part.word
                ))
            },
        )?;
    if let Some(text) = content {
        let insert = json!({"insertText": {"location": {"segmentId": id, "index": 0}, "text": text}});
        if let Err(error) = ctx.google.docs().batch_update(doc_id, &[insert]).await {
            return Err(ToolError::invalid(format!(
                "The {} was created (id {id}) but its text could not be added: {error}",
                part.word
            )));
        }
    }
    Ok(json!({
        "document_id": doc_id,
        "url": doc_url(doc_id),
        format!("{}_id", part.word): id,
        "inserted_length": content.map_or(0, utf16_len),
    }))
}

pub(super) async fn create_header(ctx: ToolContext, args: CreateHeaderArgs) -> Result<Value, ToolError> {
    create(&ctx, HEADER, &args.doc_id, &args.header_type, args.content.as_deref()).await
}

pub(super) async fn create_footer(ctx: ToolContext, args: CreateFooterArgs) -> Result<Value, ToolError> {
    create(&ctx, FOOTER, &args.doc_id, &args.footer_type, args.content.as_deref()).await
}
