//! `create_header` and `create_footer` against the emulator: the document's headers, footers and default
//! ids, their text and indexes (from 0), read back from the emulator's own `documents.get`.

use crate::docs_common;
use crate::support;

use docs_common::raw_doc;
use serde_json::{Value, json};
use support::Harness;

/// Each paragraph of a header's or footer's content: (text, startIndex, endIndex).
fn segment_paragraphs(segment: &Value) -> Vec<(String, u64, u64)> {
    segment["content"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let text: String = p["paragraph"]["elements"]
                .as_array()
                .unwrap()
                .iter()
                .filter_map(|e| e["textRun"]["content"].as_str())
                .collect();
            (text, p["startIndex"].as_u64().unwrap_or(0), p["endIndex"].as_u64().unwrap())
        })
        .collect()
}

fn batch_updates(h: &Harness) -> usize {
    h.google.world().requests.iter().filter(|r| r.path.ends_with(":batchUpdate")).count()
}

#[tokio::test]
async fn a_header_with_text_is_the_documents_default_header() {
    let h = Harness::new().await;
    let id = h.google.world().create_document("Memo", "Hello", &h.owner());
    let result = h.ok("create_header", json!({"doc_id": id, "content": "Acme Corp\nConfidential"})).await;
    let header_id = result["header_id"].as_str().unwrap().to_owned();
    assert_eq!(result["inserted_length"], 22);

    let doc = raw_doc(&h, &id).await;
    assert_eq!(doc["documentStyle"]["defaultHeaderId"], header_id.as_str());
    let header = &doc["headers"][&header_id];
    assert_eq!(header["headerId"], header_id.as_str());
    assert_eq!(segment_paragraphs(header), [("Acme Corp\n".to_owned(), 0, 10), ("Confidential\n".to_owned(), 10, 23)]);
    // Indexes start at 0, which Google leaves out.
    assert!(header["content"][0].get("startIndex").is_none(), "{header}");
    assert!(header["content"][0]["paragraph"]["elements"][0].get("startIndex").is_none(), "{header}");
    assert!(doc.get("footers").is_none());
    // The body is untouched.
    assert_eq!(h.google.world().docs.plain_text(&id).unwrap(), "Hello\n");
}

#[tokio::test]
async fn an_empty_footer_is_one_empty_paragraph() {
    let h = Harness::new().await;
    let id = h.google.world().create_document("Memo", "Hello", &h.owner());
    let result = h.ok("create_footer", json!({"doc_id": id})).await;
    let footer_id = result["footer_id"].as_str().unwrap().to_owned();
    assert_eq!(result["inserted_length"], 0);
    let doc = raw_doc(&h, &id).await;
    assert_eq!(doc["documentStyle"]["defaultFooterId"], footer_id.as_str());
    assert_eq!(segment_paragraphs(&doc["footers"][&footer_id]), [("\n".to_owned(), 0, 1)]);
    assert!(doc.get("headers").is_none());
    assert_eq!(batch_updates(&h), 1, "no text, no second update");
}

#[tokio::test]
async fn a_second_default_header_or_another_type_is_refused() {
    let h = Harness::new().await;
    let id = h.google.world().create_document("Memo", "Hello", &h.owner());
    let message = h.err("create_header", json!({"doc_id": id, "header_type": "FIRST_PAGE"})).await;
    assert!(message.contains("header_type \"FIRST_PAGE\" is not one the Docs API can create"), "{message}");
    let message = h.err("create_footer", json!({"doc_id": id, "footer_type": "EVEN_PAGE"})).await;
    assert!(message.contains("footer_type \"EVEN_PAGE\""), "{message}");
    assert_eq!(batch_updates(&h), 0);

    h.ok("create_header", json!({"doc_id": id, "content": "One"})).await;
    let message = h.err("create_header", json!({"doc_id": id, "content": "Two"})).await;
    assert!(message.contains("A default header already exists"), "{message}");
    let doc = raw_doc(&h, &id).await;
    let headers = doc["headers"].as_object().unwrap();
    assert_eq!(headers.len(), 1);
    let only = headers.values().next().unwrap();
    assert_eq!(segment_paragraphs(only), [("One\n".to_owned(), 0, 4)]);
}
