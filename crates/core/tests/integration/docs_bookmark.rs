//! `create_bookmark` against the emulator. The Docs API has no request that creates a bookmark, so the tool
//! marks the place with a named range of that name on the character at the index: checked here in the
//! emulator's own `documents.get`, and as it moves with later edits.

use crate::docs_common;
use crate::support;

use docs_common::raw_doc;
use serde_json::json;
use support::Harness;

#[tokio::test]
async fn a_bookmark_is_a_named_range_on_the_character_at_its_index() {
    let h = Harness::new().await;
    // "Intro" 1..6 + newline, "Budget" 7..13 + newline.
    let id = h.google.world().create_document("Plan", "Intro\nBudget", &h.owner());
    let result = h.ok("create_bookmark", json!({"doc_id": id, "name": "budget", "index": 7})).await;
    assert_eq!((result["start_index"].as_u64(), result["end_index"].as_u64()), (Some(7), Some(8)));
    assert!(result["note"].as_str().unwrap().contains("can't create a Docs bookmark"), "{result}");

    let doc = raw_doc(&h, &id).await;
    let range = &doc["namedRanges"]["budget"]["namedRanges"][0];
    assert_eq!(range["namedRangeId"], result["named_range_id"]);
    assert_eq!(range["ranges"], json!([{"startIndex": 7, "endIndex": 8}]));
    // No bookmark of any kind exists in Docs' JSON: the document has only the named range.
    assert_eq!(doc["namedRanges"].as_object().unwrap().len(), 1);

    // It stays on its character as text is inserted before it.
    h.ok("insert_doc_text", json!({"doc_id": id, "insertions": [{"index": 1, "text": "A "}]})).await;
    let doc = raw_doc(&h, &id).await;
    assert_eq!(doc["namedRanges"]["budget"]["namedRanges"][0]["ranges"], json!([{"startIndex": 9, "endIndex": 10}]));
}

#[tokio::test]
async fn bad_bookmarks_are_refused() {
    let h = Harness::new().await;
    let id = h.google.world().create_document("Plan", "Intro", &h.owner());
    for (args, needle) in [
        (json!({"doc_id": id, "name": "", "index": 1}), "name is 0 characters long"),
        (json!({"doc_id": id, "name": "x".repeat(257), "index": 1}), "name is 257 characters long"),
        (json!({"doc_id": id, "name": "here", "index": 0}), "index is 0"),
        (json!({"doc_id": id, "name": "here", "index": 40}), "must be less than the end index"),
    ] {
        let message = h.err("create_bookmark", args).await;
        assert!(message.contains(needle), "{needle} not in: {message}");
    }
    assert!(raw_doc(&h, &id).await.get("namedRanges").is_none());
}
