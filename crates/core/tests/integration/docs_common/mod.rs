//! Inspection helpers shared by the `docs_*` tests: the document as the emulator answers it on the wire.
#![allow(dead_code)]

use serde_json::Value;

use crate::support::Harness;

/// The document as the emulator's `documents.get` answers it on the wire.
pub async fn raw_doc(h: &Harness, id: &str) -> Value {
    h.raw_get(&format!("/v1/documents/{id}"), &[]).await
}

/// The body's paragraph elements.
pub fn paragraphs(doc: &Value) -> Vec<Value> {
    doc["body"]["content"].as_array().unwrap().iter().filter(|e| e.get("paragraph").is_some()).cloned().collect()
}

/// A paragraph element's text (its runs' contents, page breaks left out).
pub fn text_of(element: &Value) -> String {
    element["paragraph"]["elements"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| e["textRun"]["content"].as_str())
        .collect()
}
