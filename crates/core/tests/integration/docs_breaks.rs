//! `insert_page_break` and `insert_softbreak_paragraph` against the emulator: the resulting document's
//! paragraphs, page breaks, soft breaks, styles and shifted indexes, read back from the emulator itself.

use crate::docs_common;
use crate::support;

use docs_common::{paragraphs, raw_doc, text_of};
use serde_json::json;
use support::Harness;

fn batch_updates(h: &Harness) -> usize {
    h.google.world().requests.iter().filter(|r| r.path.ends_with(":batchUpdate")).count()
}

#[tokio::test]
async fn a_page_break_splits_the_paragraph_and_shifts_what_follows_by_two() {
    let h = Harness::new().await;
    let id = h.google.world().create_document("Report", "Hello world\nEnd", &h.owner());
    let result = h.ok("insert_page_break", json!({"doc_id": id, "index": 6})).await;
    assert_eq!(result["document_id"], id.as_str());
    assert_eq!(result["index"], 6);

    let doc = raw_doc(&h, &id).await;
    let paras = paragraphs(&doc);
    assert_eq!(paras.len(), 3, "{doc}");
    // "Hello" then the page break at 6 and its paragraph's newline at 7.
    let elements = paras[0]["paragraph"]["elements"].as_array().unwrap();
    assert_eq!(elements[0]["textRun"]["content"], "Hello");
    assert_eq!((elements[1]["startIndex"].as_u64(), elements[1]["endIndex"].as_u64()), (Some(6), Some(7)));
    assert!(elements[1].get("pageBreak").is_some(), "{doc}");
    assert_eq!(paras[0]["endIndex"], 8);
    // " world" was at 6..13, "End" at 13..17: both two further on.
    assert_eq!(text_of(&paras[1]), " world\n");
    assert_eq!((paras[1]["startIndex"].as_u64(), paras[1]["endIndex"].as_u64()), (Some(8), Some(15)));
    assert_eq!((paras[2]["startIndex"].as_u64(), paras[2]["endIndex"].as_u64()), (Some(15), Some(19)));
    assert_eq!(h.google.world().docs.plain_text(&id).unwrap(), "Hello\n world\nEnd\n");
}

#[tokio::test]
async fn a_page_break_outside_the_body_is_refused() {
    let h = Harness::new().await;
    let id = h.google.world().create_document("Report", "abc", &h.owner());
    let message = h.err("insert_page_break", json!({"doc_id": id, "index": 0})).await;
    assert!(message.contains("index is 0, but the document body starts at index 1"), "{message}");
    assert_eq!(batch_updates(&h), 0);
    // Past the end: Google's own words come back.
    let message = h.err("insert_page_break", json!({"doc_id": id, "index": 40})).await;
    assert!(message.contains("Google Docs refused the request as invalid"), "{message}");
    assert!(message.contains("must be less than the end index"), "{message}");
    let message = h.err("insert_page_break", json!({"doc_id": id})).await;
    assert!(message.contains("index"), "{message}");
    assert_eq!(h.google.world().docs.plain_text(&id).unwrap(), "abc\n");
}

#[tokio::test]
async fn a_softbreak_paragraph_is_one_styled_paragraph_of_several_lines() {
    let h = Harness::new().await;
    let id = h.google.world().create_document("Letter", "Intro\nOutro", &h.owner());
    let result = h
        .ok(
            "insert_softbreak_paragraph",
            json!({"doc_id": id, "index": 7, "named_style_type": "HEADING_2", "lines": [
                {"text": "Ada"},
                {"text": "1 Main St", "bold": true},
            ]}),
        )
        .await;
    assert_eq!((result["start_index"].as_u64(), result["end_index"].as_u64()), (Some(7), Some(21)));
    assert_eq!(result["lines"], 2);

    let doc = raw_doc(&h, &id).await;
    let paras = paragraphs(&doc);
    assert_eq!(paras.len(), 3, "{doc}");
    assert_eq!(text_of(&paras[0]), "Intro\n");
    assert_eq!(paras[0]["paragraph"]["paragraphStyle"]["namedStyleType"], "NORMAL_TEXT");
    assert_eq!(text_of(&paras[1]), "Ada\u{b}1 Main St\n");
    assert_eq!((paras[1]["startIndex"].as_u64(), paras[1]["endIndex"].as_u64()), (Some(7), Some(21)));
    assert_eq!(paras[1]["paragraph"]["paragraphStyle"]["namedStyleType"], "HEADING_2");
    let runs = paras[1]["paragraph"]["elements"].as_array().unwrap();
    let bold = runs.iter().find(|r| r["textRun"]["content"] == "1 Main St").unwrap_or_else(|| panic!("{doc}"));
    assert_eq!(bold["textRun"]["textStyle"]["bold"], true);
    assert_eq!(bold["startIndex"], 11);
    let plain = runs.iter().find(|r| r["textRun"]["content"] == "Ada\u{b}").unwrap_or_else(|| panic!("{doc}"));
    assert!(plain["textRun"]["textStyle"].get("bold").is_none(), "{doc}");
    // "Outro" moved from 7 to 21 and kept its style.
    assert_eq!(text_of(&paras[2]), "Outro\n");
    assert_eq!(paras[2]["startIndex"], 21);
    assert_eq!(paras[2]["paragraph"]["paragraphStyle"]["namedStyleType"], "NORMAL_TEXT");
}

#[tokio::test]
async fn a_softbreak_paragraph_defaults_to_normal_text() {
    let h = Harness::new().await;
    let id = h.google.world().create_document("Letter", "Intro", &h.owner());
    h.ok("insert_softbreak_paragraph", json!({"doc_id": id, "index": 1, "lines": [{"text": "a"}, {"text": "b"}]}))
        .await;
    let paras = paragraphs(&raw_doc(&h, &id).await);
    assert_eq!(text_of(&paras[0]), "a\u{b}b\n");
    assert_eq!(paras[0]["paragraph"]["paragraphStyle"]["namedStyleType"], "NORMAL_TEXT");
    assert_eq!(text_of(&paras[1]), "Intro\n");
    assert_eq!(paras[1]["startIndex"], 5);
}

#[tokio::test]
async fn a_bad_softbreak_paragraph_is_named_and_nothing_is_changed() {
    let h = Harness::new().await;
    let id = h.google.world().create_document("Letter", "Intro\nOutro", &h.owner());
    let message =
        h.err("insert_softbreak_paragraph", json!({"doc_id": id, "index": 3, "lines": [{"text": "x"}]})).await;
    assert!(message.contains("index 3 is inside the paragraph that runs from 1 to 7"), "{message}");
    let message = h
        .err(
            "insert_softbreak_paragraph",
            json!({"doc_id": id, "index": 1, "named_style_type": "HEADING_9", "lines": [{"text": "x"}]}),
        )
        .await;
    assert!(message.contains("named_style_type \"HEADING_9\" is not one of NORMAL_TEXT"), "{message}");
    let message =
        h.err("insert_softbreak_paragraph", json!({"doc_id": id, "index": 1, "lines": [{"text": "a\nb"}]})).await;
    assert!(message.contains("lines[0].text contains a line break"), "{message}");
    let message = h.err("insert_softbreak_paragraph", json!({"doc_id": id, "index": 1, "lines": []})).await;
    assert!(message.contains("lines is empty"), "{message}");
    assert_eq!(batch_updates(&h), 0);
    assert_eq!(h.google.world().docs.plain_text(&id).unwrap(), "Intro\nOutro\n");
}
