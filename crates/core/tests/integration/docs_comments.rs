//! `list_doc_comments` and `add_doc_comment` against the emulator's Drive comments.

use crate::support;

use serde_json::{Value, json};
use support::Harness;

/// The file's comments as the emulator's Drive answers them on the wire.
async fn raw_comments(h: &Harness, id: &str) -> Value {
    let fields = "comments(id,content,quotedFileContent,resolved)";
    h.raw_get(&format!("/drive/v3/files/{id}/comments"), &[("fields", fields)]).await
}

#[tokio::test]
async fn a_comment_quotes_its_text_as_plain_text() {
    let h = Harness::new().await;
    let id = h.google.world().create_document("Review", "The budget is 5k.", &h.owner());
    let added = h.ok("add_doc_comment", json!({"doc_id": id, "content": "Too low?", "quoted_text": "5k"})).await;
    assert_eq!(added["comment"]["content"], "Too low?");
    assert_eq!(added["comment"]["quoted_text"], "5k");
    let stored = raw_comments(&h, &id).await;
    let comments = stored["comments"].as_array().unwrap();
    assert_eq!(comments.len(), 1);
    assert_eq!(comments[0]["id"], added["comment"]["id"]);
    assert_eq!(comments[0]["quotedFileContent"], json!({"mimeType": "text/plain", "value": "5k"}));

    h.ok("add_doc_comment", json!({"doc_id": id, "content": "Looks good overall."})).await;
    let listed = h.ok("list_doc_comments", json!({"doc_id": id})).await;
    let comments = listed["comments"].as_array().unwrap();
    let contents: Vec<&str> = comments.iter().map(|c| c["content"].as_str().unwrap()).collect();
    assert_eq!(contents, ["Too low?", "Looks good overall."]);
    assert_eq!(comments[0]["quoted_text"], "5k");
    assert_eq!(comments[1]["quoted_text"], Value::Null);
    assert_eq!(comments[0]["resolved"], false);
    assert!(!comments[0]["author"].as_str().unwrap().is_empty());
    assert_eq!(listed["next_page_token"], Value::Null);
}

#[tokio::test]
async fn comments_page_with_the_token() {
    let h = Harness::new().await;
    let id = h.google.world().create_document("Review", "Text", &h.owner());
    for n in 1..=3 {
        h.ok("add_doc_comment", json!({"doc_id": id, "content": format!("note {n}")})).await;
    }
    let first = h.ok("list_doc_comments", json!({"doc_id": id, "page_size": 2})).await;
    assert_eq!(first["comments"].as_array().unwrap().len(), 2);
    let token = first["next_page_token"].as_str().expect("a next page");
    let second = h.ok("list_doc_comments", json!({"doc_id": id, "page_size": 2, "page_token": token})).await;
    let rest: Vec<&str> =
        second["comments"].as_array().unwrap().iter().map(|c| c["content"].as_str().unwrap()).collect();
    assert_eq!(rest, ["note 3"]);
    assert_eq!(second["next_page_token"], Value::Null);
}

#[tokio::test]
async fn bad_comment_arguments_are_refused_before_google() {
    let h = Harness::new().await;
    let id = h.google.world().create_document("Review", "Text", &h.owner());
    let message = h.err("add_doc_comment", json!({"doc_id": id, "content": "  "})).await;
    assert!(message.contains("comment is empty"), "{message}");
    let message = h.err("list_doc_comments", json!({"doc_id": id, "page_size": 500})).await;
    assert!(message.contains("1 to 100"), "{message}");
    assert_eq!(h.google.world().count_requests("/drive/v3/files"), 0);
}

#[tokio::test]
async fn commenting_on_a_missing_document_says_so() {
    let h = Harness::new().await;
    let message = h.err("add_doc_comment", json!({"doc_id": "nope", "content": "hi"})).await;
    assert!(message.contains("could not find"), "{message}");
}
