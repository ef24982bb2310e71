//! `get_doc_content`, `get_doc_as_markdown`, `get_doc_structure` and `find_in_doc` against the emulator:
//! what they report must match the document the emulator holds, index for index.

use crate::support;

use serde_json::{Value, json};
use support::Harness;

const MD: &str = "# Plan\n\nSome **bold** and _italic_ and [a link](https://example.com/a).\n\n## Steps\n\n- first\n- second\n  - nested\n\n1. one\n2. two\n";

async fn create_markdown(h: &Harness, md: &str) -> String {
    let created = h.ok("create_doc", json!({"title": "Plan", "content": md, "content_format": "markdown"})).await;
    created["document_id"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn content_is_the_documents_plain_text() {
    let h = Harness::new().await;
    let id = h.google.world().create_document("Memo", "Line one\nLine 😀 two", &h.owner());
    let result = h.ok("get_doc_content", json!({"file_id": id})).await;
    assert_eq!(result["title"], "Memo");
    assert_eq!(result["document_id"], id.as_str());
    assert_eq!(result["content"].as_str().unwrap(), h.google.world().docs.plain_text(&id).unwrap());
    assert!(result["url"].as_str().unwrap().contains(&id));
}

#[tokio::test]
async fn content_can_go_to_a_local_file() {
    let h = Harness::new().await;
    let id = h.google.world().create_document("Memo", "Saved to disk", &h.owner());
    let result = h.ok("get_doc_content", json!({"file_id": id, "local_path": "memo.json"})).await;
    let path = result["local_path"].as_str().unwrap();
    let saved: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert_eq!(saved["content"], "Saved to disk\n");
}

#[tokio::test]
async fn a_missing_document_says_so_in_plain_words() {
    let h = Harness::new().await;
    let message = h.err("get_doc_content", json!({"file_id": "no-such-doc"})).await;
    assert!(message.contains("could not find"), "{message}");
}

#[tokio::test]
async fn markdown_reads_back_what_create_doc_wrote() {
    let h = Harness::new().await;
    let id = create_markdown(&h, MD).await;
    let result = h.ok("get_doc_as_markdown", json!({"doc_id": id})).await;
    assert_eq!(result["title"], "Plan");
    let markdown = result["markdown"].as_str().unwrap();
    assert_eq!(markdown, MD, "round trip changed the Markdown");
}

#[tokio::test]
async fn markdown_can_include_the_comments() {
    let h = Harness::new().await;
    let id = create_markdown(&h, "# Title\n\nBody text.\n").await;
    h.ok("add_doc_comment", json!({"doc_id": id, "content": "Is this right?", "quoted_text": "Body text"})).await;
    let without = h.ok("get_doc_as_markdown", json!({"doc_id": id})).await;
    assert!(!without["markdown"].as_str().unwrap().contains("Is this right?"));
    let with = h.ok("get_doc_as_markdown", json!({"doc_id": id, "include_comments": true})).await;
    let markdown = with["markdown"].as_str().unwrap();
    assert!(markdown.starts_with("# Title\n\nBody text.\n"), "{markdown}");
    assert!(markdown.contains("## Comments"), "{markdown}");
    assert!(markdown.contains(": Is this right?\n  > Body text\n"), "{markdown}");
}

#[tokio::test]
async fn structure_lists_headings_items_and_their_indexes() {
    let h = Harness::new().await;
    let id = create_markdown(&h, MD).await;
    let outline = h.ok("get_doc_structure", json!({"doc_id": id})).await;
    let elements = outline["elements"].as_array().unwrap();
    let kinds: Vec<&str> = elements.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        ["heading", "paragraph", "heading", "list_item", "list_item", "list_item", "list_item", "list_item"]
    );
    assert_eq!(elements[0]["level"], 1);
    assert_eq!(elements[0]["text"], "Plan");
    assert_eq!((elements[0]["startIndex"].as_u64(), elements[0]["endIndex"].as_u64()), (Some(1), Some(6)));
    assert_eq!(elements[2]["level"], 2);
    assert_eq!(elements[5]["nestingLevel"], 1);
    assert_eq!(elements[6]["numbered"], true);
    assert_eq!(elements[3]["numbered"], false);
    // The reported indexes address the text: delete the second heading by them.
    let (start, end) = (elements[2]["startIndex"].as_u64().unwrap(), elements[2]["endIndex"].as_u64().unwrap());
    h.ok("delete_doc_range", json!({"doc_id": id, "deletions": [{"start_index": start, "end_index": end}]})).await;
    assert!(!h.google.world().docs.plain_text(&id).unwrap().contains("Steps"));
    assert_eq!(outline["url"], format!("https://docs.google.com/document/d/{id}/edit"));
}

#[tokio::test]
async fn find_counts_utf16_units_after_an_emoji() {
    let h = Harness::new().await;
    let id = h.google.world().create_document("Menu", "😀 Café au lait\nMore café, CAFÉ.", &h.owner());
    let found = h.ok("find_in_doc", json!({"doc_id": id, "query": "café"})).await;
    assert_eq!(found["total_matches"], 3);
    let matches = found["matches"].as_array().unwrap();
    // 😀 is two units (1..3), then a space: "Café" is 4..8.
    assert_eq!((matches[0]["start_index"].as_u64(), matches[0]["end_index"].as_u64()), (Some(4), Some(8)));
    assert_eq!(matches[0]["text"], "Café");
    assert_eq!(matches[2]["text"], "CAFÉ");
    // The indexes are the ones edits take: deleting the first match removes exactly that word.
    h.ok("delete_doc_range", json!({"doc_id": id, "deletions": [{"start_index": 4, "end_index": 8}]})).await;
    assert_eq!(h.google.world().docs.plain_text(&id).unwrap(), "😀  au lait\nMore café, CAFÉ.\n");
}

#[tokio::test]
async fn find_is_case_sensitive_regex_and_bounded_on_request() {
    let h = Harness::new().await;
    let id = h.google.world().create_document("Ids", "id-1 ID-22 id-333", &h.owner());
    let exact = h.ok("find_in_doc", json!({"doc_id": id, "query": "id-", "case_sensitive": true})).await;
    assert_eq!(exact["total_matches"], 2);
    let regex =
        h.ok("find_in_doc", json!({"doc_id": id, "query": r"id-\d{2,}", "regex": true, "max_results": 1})).await;
    assert_eq!(regex["total_matches"], 2);
    assert_eq!(regex["truncated"], true);
    let matches = regex["matches"].as_array().unwrap();
    assert_eq!(matches.len(), 1);
    assert_eq!((matches[0]["text"].as_str(), matches[0]["start_index"].as_u64()), (Some("ID-22"), Some(6)));
    let message = h.err("find_in_doc", json!({"doc_id": id, "query": "(open", "regex": true})).await;
    assert!(message.contains("not a regular expression"), "{message}");
}
