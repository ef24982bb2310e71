//! `create_doc`, `insert_doc_text` and `delete_doc_range` against the emulator: the resulting document's
//! text, paragraph styles, bullets and links, read back from the emulator itself.

use crate::docs_common;
use crate::support;

use docs_common::raw_doc;
use serde_json::{Value, json};
use support::Harness;

/// Each body paragraph: (text without its newline, namedStyleType, bullet).
fn paragraphs(doc: &Value) -> Vec<(String, String, Option<Value>)> {
    doc["body"]["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| e.get("paragraph"))
        .map(|p| {
            let text: String =
                p["elements"].as_array().unwrap().iter().filter_map(|e| e["textRun"]["content"].as_str()).collect();
            let style = p["paragraphStyle"]["namedStyleType"].as_str().unwrap_or("NORMAL_TEXT").to_owned();
            (text.trim_end_matches('\n').to_owned(), style, p.get("bullet").cloned())
        })
        .collect()
}

/// The text style of the run whose content is exactly `text`.
fn run_style(doc: &Value, text: &str) -> Value {
    doc["body"]["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| e.get("paragraph"))
        .flat_map(|p| p["elements"].as_array().unwrap().iter())
        .find(|e| e["textRun"]["content"].as_str() == Some(text))
        .map(|e| e["textRun"]["textStyle"].clone())
        .unwrap_or_else(|| panic!("no run {text:?} in {doc}"))
}

#[tokio::test]
async fn markdown_becomes_real_docs_structure() {
    let h = Harness::new().await;
    let md = "# Plan\n\nSome **bold** and *italic* and [a link](https://example.com/a).\n\n## Steps\n\n- first\n- second\n  - nested\n\n1. one\n2. two\n\nSee https://example.org/page.";
    let created = h.ok("create_doc", json!({"title": "Q3 plan", "content": md, "content_format": "markdown"})).await;
    let id = created["document_id"].as_str().unwrap();
    assert_eq!(created["title"], "Q3 plan");
    assert_eq!(created["url"], format!("https://docs.google.com/document/d/{id}/edit"));
    assert_eq!(h.google.world().docs.title(id).as_deref(), Some("Q3 plan"));
    assert_eq!(
        h.google.world().docs.plain_text(id).unwrap(),
        "Plan\nSome bold and italic and a link.\nSteps\nfirst\nsecond\nnested\none\ntwo\nSee https://example.org/page.\n"
    );

    let doc = raw_doc(&h, id).await;
    let paras = paragraphs(&doc);
    let styles: Vec<(&str, &str)> = paras.iter().map(|(t, s, _)| (t.as_str(), s.as_str())).collect();
    assert_eq!(styles[0], ("Plan", "HEADING_1"));
    assert_eq!(styles[1].1, "NORMAL_TEXT");
    assert_eq!(styles[2], ("Steps", "HEADING_2"));
    // Bullets: the three bulleted items share a list, the nested one is level 1; the numbered items
    // are another list whose glyph is a number.
    let bullet = |i: usize| paras[i].2.clone().unwrap_or_else(|| panic!("paragraph {i} has no bullet: {paras:?}"));
    assert_eq!(bullet(3)["listId"], bullet(4)["listId"]);
    assert_eq!(bullet(5)["nestingLevel"], 1);
    assert_eq!(bullet(6)["listId"], bullet(7)["listId"]);
    assert_ne!(bullet(3)["listId"], bullet(6)["listId"]);
    let numbered_list = bullet(6)["listId"].as_str().unwrap().to_owned();
    assert!(
        doc["lists"][&numbered_list]["listProperties"]["nestingLevels"][0]["glyphType"]
            .as_str()
            .unwrap()
            .contains("DECIMAL")
    );
    assert!(paras[8].2.is_none(), "the last paragraph is not a list item");

    assert_eq!(run_style(&doc, "bold")["bold"], true);
    assert_eq!(run_style(&doc, "italic")["italic"], true);
    assert_eq!(run_style(&doc, "a link")["link"]["url"], "https://example.com/a");
    // autolink_urls (default true) made the bare address a link, without the sentence's full stop.
    assert_eq!(run_style(&doc, "https://example.org/page")["link"]["url"], "https://example.org/page");
}

#[tokio::test]
async fn autolink_can_be_turned_off_and_text_stays_literal() {
    let h = Harness::new().await;
    let text = "# not a heading\n*not italic* https://example.org";
    let created = h
        .ok("create_doc", json!({"title": "Notes", "content": text, "content_format": "text", "autolink_urls": false}))
        .await;
    let id = created["document_id"].as_str().unwrap();
    assert_eq!(h.google.world().docs.plain_text(id).unwrap(), format!("{text}\n"));
    let doc = raw_doc(&h, id).await;
    assert!(paragraphs(&doc).iter().all(|(_, style, bullet)| style == "NORMAL_TEXT" && bullet.is_none()));
    assert!(!doc.to_string().contains("\"link\""), "no link expected: {doc}");
}

#[tokio::test]
async fn the_format_matters_only_with_content() {
    let h = Harness::new().await;
    // HTML content is converted (tests/docs_html.rs); an unknown format is refused there before
    // anything is created. Without content the format doesn't matter: an empty document is made.
    let created = h.ok("create_doc", json!({"title": "Empty", "content_format": "rtf"})).await;
    assert_eq!(h.google.world().docs.plain_text(created["document_id"].as_str().unwrap()).unwrap(), "\n");
}

#[tokio::test]
async fn the_document_goes_into_the_folder_given_or_configured() {
    let h = Harness::new().await;
    let mine = h.google.world().drive.create_folder("Reports", None, &h.owner());
    let created = h.ok("create_doc", json!({"title": "In folder", "folder_id": mine})).await;
    let id = created["document_id"].as_str().unwrap();
    assert_eq!(created["folder_id"], mine.as_str());
    assert_eq!(h.google.world().drive.get(id).unwrap().parent.as_deref(), Some(mine.as_str()));

    // With no folder_id, DRIVE_FOLDER_ID's folder: a second engine on the same emulator, configured so.
    let configured = h.google.world().drive.create_folder("Gatehouse", None, &h.owner());
    let engine = h.engine_with(|config| config.drive_folder_id = Some(configured.clone()));
    let reply = engine.call("create_doc", json!({"title": "Default folder"}).as_object().cloned()).await.unwrap();
    assert!(!reply.is_error, "{}", reply.text);
    let created: Value = serde_json::from_str(&reply.text).unwrap();
    let id = created["document_id"].as_str().unwrap();
    assert_eq!(h.google.world().drive.get(id).unwrap().parent.as_deref(), Some(configured.as_str()));
}

#[tokio::test]
async fn insertions_apply_from_the_end_so_every_index_is_as_given() {
    let h = Harness::new().await;
    let id = h.google.world().create_document("Letter", "Dear Bob,\nThanks.", &h.owner());
    // "Dear Bob," starts at 1; "Thanks." starts at 11.
    let result = h
        .ok(
            "insert_doc_text",
            json!({"doc_id": id, "insertions": [
                {"index": 1, "text": "Hi! "},
                {"index": 11, "text": "Many "},
                {"index": 10, "text": "\nP.S. 😀"},
            ]}),
        )
        .await;
    assert_eq!(result["insertions"], 3);
    assert_eq!(h.google.world().docs.plain_text(&id).unwrap(), "Hi! Dear Bob,\nP.S. 😀\nMany Thanks.\n");
}

#[tokio::test]
async fn a_bad_insertion_is_named_and_nothing_is_sent() {
    let h = Harness::new().await;
    let id = h.google.world().create_document("Letter", "Hello", &h.owner());
    let message =
        h.err("insert_doc_text", json!({"doc_id": id, "insertions": [{"index": 1, "text": "a"}, {"index": 2}]})).await;
    assert!(message.contains("insertions[1] has no \"text\""), "{message}");
    assert_eq!(h.google.world().count_requests("/v1/documents"), 0);
    assert_eq!(h.google.world().docs.plain_text(&id).unwrap(), "Hello\n");
}

#[tokio::test]
async fn deletions_apply_from_the_end() {
    let h = Harness::new().await;
    let id = h.google.world().create_document("Draft", "one two three four", &h.owner());
    // "two " is 5..9 and "four" 15..19 (the body starts at 1).
    let result = h
        .ok(
            "delete_doc_range",
            json!({"doc_id": id, "deletions": [
                {"start_index": 5, "end_index": 9},
                {"start_index": 14, "end_index": 19},
            ]}),
        )
        .await;
    assert_eq!(result["deleted_length"], 9);
    assert_eq!(h.google.world().docs.plain_text(&id).unwrap(), "one three\n");
}

#[tokio::test]
async fn an_empty_or_reversed_range_is_refused_before_google() {
    let h = Harness::new().await;
    let id = h.google.world().create_document("Draft", "abc", &h.owner());
    for (start, end) in [(3, 3), (3, 2)] {
        let message = h
            .err("delete_doc_range", json!({"doc_id": id, "deletions": [{"start_index": start, "end_index": end}]}))
            .await;
        assert!(message.contains("start_index must be less than end_index"), "{message}");
    }
    assert_eq!(h.google.world().count_requests("/v1/documents"), 0);
}

#[tokio::test]
async fn googles_index_error_comes_back_in_plain_words() {
    let h = Harness::new().await;
    let id = h.google.world().create_document("Short", "abc", &h.owner());
    let message =
        h.err("delete_doc_range", json!({"doc_id": id, "deletions": [{"start_index": 2, "end_index": 400}]})).await;
    assert!(message.contains("Google Docs refused the request as invalid"), "{message}");
    assert!(message.contains("Google said:"), "{message}");
    assert_eq!(h.google.world().docs.plain_text(&id).unwrap(), "abc\n");
    let message = h.err("insert_doc_text", json!({"doc_id": id, "insertions": [{"index": 99, "text": "x"}]})).await;
    assert!(message.contains("refused the request as invalid"), "{message}");
}

#[tokio::test]
async fn the_insertions_schema_shows_the_item_shape() {
    let h = Harness::new().await;
    let tool = h.engine.tool("insert_doc_text").unwrap();
    let schema = serde_json::to_value(tool.input_schema().as_ref()).unwrap();
    let text = schema.to_string();
    assert!(text.contains("\"index\"") && text.contains("\"text\""), "{text}");
    let tool = h.engine.tool("delete_doc_range").unwrap();
    let text = serde_json::to_value(tool.input_schema().as_ref()).unwrap().to_string();
    assert!(text.contains("\"start_index\"") && text.contains("\"end_index\""), "{text}");
}
