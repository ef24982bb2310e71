//! `updateNamedStyle`: a document's own named styles, changed field by field under the request's mask
//! (relative to the `NamedStyle`, e.g. `textStyle.bold`; `namedStyleType` names the style).

use serde_json::{Map, Value, json};

use super::edit::mask;
use super::model::{Document, named_styles};
use crate::rpc::Failure;
use crate::sheets::fields;

/// The document's `namedStyles`: the defaults, with the styles it changed.
pub(crate) fn json(doc: &Document) -> Value {
    let mut styles = named_styles();
    if let Some(list) = styles["styles"].as_array_mut() {
        for style in list.iter_mut() {
            let kind = style["namedStyleType"].as_str().unwrap_or_default().to_owned();
            if let Some(changed) = doc.named_styles.get(&kind) {
                *style = changed.clone();
            }
        }
    }
    styles
}

pub(crate) fn update(doc: &mut Document, body: &Map<String, Value>) -> Result<Value, Failure> {
    let mask = mask(body)?;
    let source = body.get("namedStyle").and_then(Value::as_object).cloned().unwrap_or_default();
    let kind = source.get("namedStyleType").and_then(Value::as_str).unwrap_or("NAMED_STYLE_TYPE_UNSPECIFIED");
    let current = json(doc)["styles"]
        .as_array()
        .and_then(|list| list.iter().find(|s| s["namedStyleType"] == kind).cloned())
        .ok_or_else(|| Failure::from(format!("Invalid named style type: {kind}.")))?;
    let Value::Object(mut style) = current else {
        return Err(Failure::from("Invalid named style."));
    };
    let mut text = style.get("textStyle").and_then(Value::as_object).cloned().unwrap_or_default();
    let mut paragraph = style.get("paragraphStyle").and_then(Value::as_object).cloned().unwrap_or_default();
    // The mask is relative to the NamedStyle: apply its textStyle and paragraphStyle parts.
    let mut whole = Map::new();
    whole.insert("textStyle".into(), Value::Object(std::mem::take(&mut text)));
    whole.insert("paragraphStyle".into(), Value::Object(std::mem::take(&mut paragraph)));
    let mut given = source.clone();
    given.remove("namedStyleType");
    fields::apply(&mut whole, &given, &mask);
    for key in ["textStyle", "paragraphStyle"] {
        let mut part = whole.get(key).and_then(Value::as_object).cloned().unwrap_or_default();
        // A false flag is proto3's default, which Google leaves out (the defaults' empty colours stay).
        part.retain(|_, value| *value != Value::Bool(false) && !value.is_null());
        style.insert(key.into(), Value::Object(part));
    }
    if let Some(Value::Object(paragraph)) = style.get_mut("paragraphStyle") {
        paragraph.insert("namedStyleType".into(), json!(kind));
    }
    style.insert("namedStyleType".into(), json!(kind));
    doc.named_styles.insert(kind.to_owned(), Value::Object(style));
    Ok(json!({}))
}
