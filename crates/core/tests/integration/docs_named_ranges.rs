//! `create_named_range` against the emulator: the document's named ranges, and how they move and shrink
//! with later edits, read back from the emulator's own `documents.get`.

use crate::docs_common;
use crate::support;

use docs_common::raw_doc;
use serde_json::json;
use support::Harness;

/// The (startIndex, endIndex) spans of the named ranges called `name`.
async fn spans(h: &Harness, id: &str, name: &str) -> Vec<(u64, u64)> {
    let doc = raw_doc(h, id).await;
    let Some(group) = doc.get("namedRanges").and_then(|n| n.get(name)) else {
        return Vec::new();
    };
    assert_eq!(group["name"], name);
    group["namedRanges"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| r["ranges"].as_array().unwrap().clone())
        .map(|r| (r["startIndex"].as_u64().unwrap(), r["endIndex"].as_u64().unwrap()))
        .collect()
}

#[tokio::test]
async fn a_named_range_is_kept_on_its_text_through_edits() {
    let h = Harness::new().await;
    // "Intro" 1..7, "Budget table here" 7..25, "End" 25..29.
    let id = h.google.world().create_document("Plan", "Intro\nBudget table here\nEnd", &h.owner());
    let result =
        h.ok("create_named_range", json!({"doc_id": id, "name": "budget", "start_index": 7, "end_index": 13})).await;
    let doc = raw_doc(&h, &id).await;
    let range = &doc["namedRanges"]["budget"]["namedRanges"][0];
    assert_eq!(range["namedRangeId"], result["named_range_id"]);
    assert_eq!(range["name"], "budget");
    assert_eq!(spans(&h, &id, "budget").await, [(7, 13)]);

    // Text before it moves it; text inside it joins it; text at its end does not.
    h.ok("insert_doc_text", json!({"doc_id": id, "insertions": [{"index": 1, "text": "Hi "}]})).await;
    assert_eq!(spans(&h, &id, "budget").await, [(10, 16)]);
    h.ok(
        "insert_doc_text",
        json!({"doc_id": id, "insertions": [{"index": 12, "text": "X"}, {"index": 16, "text": "!"}]}),
    )
    .await;
    assert_eq!(spans(&h, &id, "budget").await, [(10, 17)]);
    assert_eq!(h.google.world().docs.plain_text(&id).unwrap(), "Hi Intro\nBuXdget! table here\nEnd\n");
    // Deleting part shrinks it; deleting all of it removes it.
    h.ok("delete_doc_range", json!({"doc_id": id, "deletions": [{"start_index": 8, "end_index": 12}]})).await;
    assert_eq!(spans(&h, &id, "budget").await, [(8, 13)]);
    h.ok("delete_doc_range", json!({"doc_id": id, "deletions": [{"start_index": 8, "end_index": 13}]})).await;
    assert_eq!(spans(&h, &id, "budget").await, []);
    assert!(raw_doc(&h, &id).await.get("namedRanges").is_none());
}

#[tokio::test]
async fn bad_named_ranges_are_refused() {
    let h = Harness::new().await;
    let id = h.google.world().create_document("Plan", "Intro", &h.owner());
    let cases = [
        (json!({"doc_id": id, "name": "", "start_index": 1, "end_index": 3}), "name is 0 characters long"),
        (json!({"doc_id": id, "name": "x".repeat(257), "start_index": 1, "end_index": 3}), "1 to 256 characters"),
        (json!({"doc_id": id, "name": "a", "start_index": 3, "end_index": 3}), "runs from 3 to 3"),
        (json!({"doc_id": id, "name": "a", "start_index": 0, "end_index": 3}), "start_index is 0"),
    ];
    for (args, needle) in cases {
        let message = h.err("create_named_range", args).await;
        assert!(message.contains(needle), "{needle} not in: {message}");
    }
    assert_eq!(h.google.world().requests.iter().filter(|r| r.path.ends_with(":batchUpdate")).count(), 0);
    let message =
        h.err("create_named_range", json!({"doc_id": id, "name": "far", "start_index": 2, "end_index": 50})).await;
    assert!(message.contains("Google Docs refused the request as invalid"), "{message}");
    assert!(raw_doc(&h, &id).await.get("namedRanges").is_none());
}
