//! `resolve_doc_comment` against the emulator's Drive comments: the comment's state and the reply that
//! resolved it, read back from the emulator itself.

use crate::support;

use serde_json::{Value, json};
use support::Harness;

/// The file's comments as the emulator's Drive answers them on the wire.
async fn raw_comments(h: &Harness, id: &str) -> Vec<Value> {
    let fields = "comments(id,resolved,replies(content,action))";
    let answer = h.raw_get(&format!("/drive/v3/files/{id}/comments"), &[("fields", fields)]).await;
    answer["comments"].as_array().unwrap().clone()
}

#[tokio::test]
async fn a_comment_is_resolved_with_or_without_a_reply() {
    let h = Harness::new().await;
    let id = h.google.world().create_document("Draft", "Budget: 5k", &h.owner());
    let first = h.ok("add_doc_comment", json!({"doc_id": id, "content": "Check the budget"})).await;
    let second = h.ok("add_doc_comment", json!({"doc_id": id, "content": "Typo?"})).await;
    let (first, second) = (first["comment"]["id"].as_str().unwrap(), second["comment"]["id"].as_str().unwrap());

    let result =
        h.ok("resolve_doc_comment", json!({"doc_id": id, "comment_id": first, "reply_content": "Fixed in v2"})).await;
    assert_eq!(result["resolved"], true);
    assert_eq!(result["reply"]["action"], "resolve");
    let comments = raw_comments(&h, &id).await;
    let stored = comments.iter().find(|c| c["id"] == first).unwrap();
    assert_eq!(stored["resolved"], true);
    assert_eq!(stored["replies"], json!([{"content": "Fixed in v2", "action": "resolve"}]));
    let other = comments.iter().find(|c| c["id"] == second).unwrap();
    assert_eq!(other["resolved"], false, "only the named comment is resolved");

    h.ok("resolve_doc_comment", json!({"doc_id": id, "comment_id": second})).await;
    let comments = raw_comments(&h, &id).await;
    let stored = comments.iter().find(|c| c["id"] == second).unwrap();
    assert_eq!(stored["resolved"], true);
    assert_eq!(stored["replies"][0]["action"], "resolve");
    assert!(stored["replies"][0]["content"].as_str().unwrap_or("").is_empty(), "{stored}");
}

#[tokio::test]
async fn an_unknown_or_empty_comment_id_is_refused() {
    let h = Harness::new().await;
    let id = h.google.world().create_document("Draft", "Budget", &h.owner());
    let message = h.err("resolve_doc_comment", json!({"doc_id": id, "comment_id": " "})).await;
    assert!(message.contains("comment_id is empty"), "{message}");
    assert_eq!(h.google.world().count_requests("/drive/v3/files"), 0);
    let message = h.err("resolve_doc_comment", json!({"doc_id": id, "comment_id": "AAAAnope"})).await;
    assert!(message.contains("could not find it") && message.contains("Check the id"), "{message}");
    assert!(raw_comments(&h, &id).await.is_empty());
}
