//! `get_doc_named_styles`: the document's named paragraph styles (Normal text, Title, Subtitle,
//! Heading 1–6) as `documents.get` answers them, the styles `named_style_type` arguments apply.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::{doc_url, title_of};
use crate::tools::{ToolContext, ToolError};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GetDocNamedStylesArgs {
    /// The document's id (from its URL: docs.google.com/document/d/ID/edit).
    pub doc_id: String,
}

/// One named style: its type and Google's own `textStyle` and `paragraphStyle` JSON.
fn style_json(style: &Value) -> Value {
    json!({
        "named_style_type": style.get("namedStyleType").cloned().unwrap_or(Value::Null),
        "text_style": style.get("textStyle").cloned().unwrap_or_else(|| json!({})),
        "paragraph_style": style.get("paragraphStyle").cloned().unwrap_or_else(|| json!({})),
    })
}

pub(super) async fn get_doc_named_styles(ctx: ToolContext, args: GetDocNamedStylesArgs) -> Result<Value, ToolError> {
    let doc = ctx.google.docs().get(&args.doc_id).await?;
    let styles: Vec<Value> =
        doc["namedStyles"]["styles"].as_array().map(|list| list.iter().map(style_json).collect()).unwrap_or_default();
    Ok(json!({
        "document_id": args.doc_id,
        "title": title_of(&doc),
        "url": doc_url(&args.doc_id),
        "named_styles": styles,
    }))
}
