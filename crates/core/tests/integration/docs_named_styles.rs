//! `get_doc_named_styles` against the emulator: the styles it reports are the document's own, as the
//! emulator's `documents.get` answers them.

use crate::support;

use serde_json::json;
use support::Harness;

#[tokio::test]
async fn the_named_styles_are_the_documents_own() {
    let h = Harness::new().await;
    let id = h.google.world().create_document("Styled", "Hello", &h.owner());
    let result = h.ok("get_doc_named_styles", json!({"doc_id": id})).await;
    assert_eq!(result["title"], "Styled");
    let doc = h.raw_get(&format!("/v1/documents/{id}"), &[]).await;
    let stored = doc["namedStyles"]["styles"].as_array().unwrap();
    let reported = result["named_styles"].as_array().unwrap();
    assert_eq!(reported.len(), stored.len());
    for (ours, theirs) in reported.iter().zip(stored) {
        assert_eq!(ours["named_style_type"], theirs["namedStyleType"]);
        assert_eq!(ours["text_style"], theirs["textStyle"]);
        assert_eq!(ours["paragraph_style"], theirs["paragraphStyle"]);
    }
    let heading = reported.iter().find(|s| s["named_style_type"] == "HEADING_1").unwrap();
    assert_eq!(heading["text_style"]["fontSize"]["magnitude"].as_f64(), Some(20.0));
}

#[tokio::test]
async fn an_unknown_document_is_named_as_not_found() {
    let h = Harness::new().await;
    let message = h.err("get_doc_named_styles", json!({"doc_id": "1nope"})).await;
    assert!(message.contains("could not find it"), "{message}");
    let message = h.err("get_doc_named_styles", json!({})).await;
    assert!(message.contains("doc_id"), "{message}");
}
