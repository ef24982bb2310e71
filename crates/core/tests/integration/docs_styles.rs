//! `style_doc_range`, `create_paragraph_bullets` and `delete_paragraph_bullets` against the emulator: the
//! styles, bullets and indexes of the resulting document, read back from the emulator itself.

use crate::docs_common;
use crate::support;

use docs_common::{paragraphs, raw_doc, text_of};
use serde_json::{Value, json};
use support::Harness;

/// The run whose content is exactly `text`.
fn run(doc: &Value, text: &str) -> Value {
    paragraphs(doc)
        .iter()
        .flat_map(|p| p["paragraph"]["elements"].as_array().unwrap().clone())
        .find(|e| e["textRun"]["content"].as_str() == Some(text))
        .unwrap_or_else(|| panic!("no run {text:?} in {doc}"))
}

fn batch_updates(h: &Harness) -> usize {
    h.google.world().requests.iter().filter(|r| r.path.ends_with(":batchUpdate")).count()
}

/// "Title line" 1..12, "alpha" 12..18, "\tbeta" 18..24, "gamma" 24..30.
const TEXT: &str = "Title line\nalpha\n\tbeta\ngamma";

#[tokio::test]
async fn text_and_paragraph_styles_land_on_their_ranges_only() {
    let h = Harness::new().await;
    let id = h.google.world().create_document("Styled", TEXT, &h.owner());
    h.ok(
        "style_doc_range",
        json!({"doc_id": id, "ranges": [
            {"start_index": 1, "end_index": 6, "bold": true, "font_size": 18, "font_family": "Roboto",
             "foreground_color": {"red": 1}, "named_style_type": "heading_1", "alignment": "CENTER"},
            {"start_index": 12, "end_index": 17, "link": "https://example.com/a", "italic": true},
        ]}),
    )
    .await;
    let doc = raw_doc(&h, &id).await;
    let title = &run(&doc, "Title")["textRun"]["textStyle"];
    assert_eq!(title["bold"], true);
    assert_eq!(title["fontSize"]["magnitude"].as_f64(), Some(18.0));
    assert_eq!(title["weightedFontFamily"]["fontFamily"], "Roboto");
    assert_eq!(title["foregroundColor"]["color"]["rgbColor"]["red"].as_f64(), Some(1.0));
    let rest = &run(&doc, " line\n")["textRun"]["textStyle"];
    assert!(rest.get("bold").is_none() && rest.get("fontSize").is_none(), "{rest}");
    let paras = paragraphs(&doc);
    assert_eq!(paras[0]["paragraph"]["paragraphStyle"]["namedStyleType"], "HEADING_1");
    assert_eq!(paras[0]["paragraph"]["paragraphStyle"]["alignment"], "CENTER");
    assert_eq!(paras[1]["paragraph"]["paragraphStyle"]["namedStyleType"], "NORMAL_TEXT");
    let alpha = &run(&doc, "alpha")["textRun"]["textStyle"];
    assert_eq!((alpha["link"]["url"].as_str(), alpha["italic"].as_bool()), (Some("https://example.com/a"), Some(true)));
    // Styles move no index.
    assert_eq!(paras[3]["startIndex"], 24);

    // An empty link removes it.
    h.ok("style_doc_range", json!({"doc_id": id, "ranges": [{"start_index": 12, "end_index": 17, "link": ""}]})).await;
    let doc = raw_doc(&h, &id).await;
    assert!(run(&doc, "alpha")["textRun"]["textStyle"].get("link").is_none(), "{doc}");
}

#[tokio::test]
async fn bullets_are_created_last_range_first_and_tabs_become_levels() {
    let h = Harness::new().await;
    let id = h.google.world().create_document("Lists", TEXT, &h.owner());
    h.ok(
        "create_paragraph_bullets",
        json!({"doc_id": id, "ranges": [
            {"start_index": 12, "end_index": 24},
            {"start_index": 24, "end_index": 30, "bullet_preset": "NUMBERED_DECIMAL_ALPHA_ROMAN"},
        ]}),
    )
    .await;
    let doc = raw_doc(&h, &id).await;
    let paras = paragraphs(&doc);
    let texts: Vec<String> = paras.iter().map(text_of).collect();
    assert_eq!(texts, ["Title line\n", "alpha\n", "beta\n", "gamma\n"]);
    assert!(paras[0]["paragraph"].get("bullet").is_none());
    let bullet = |i: usize| paras[i]["paragraph"]["bullet"].clone();
    assert_eq!(bullet(1)["listId"], bullet(2)["listId"]);
    assert!(bullet(1).get("nestingLevel").is_none());
    assert_eq!(bullet(2)["nestingLevel"], 1);
    assert_ne!(bullet(3)["listId"], bullet(1)["listId"]);
    let numbered = bullet(3)["listId"].as_str().unwrap().to_owned();
    assert_eq!(doc["lists"][&numbered]["listProperties"]["nestingLevels"][0]["glyphType"], "DECIMAL");
    let disc = bullet(1)["listId"].as_str().unwrap().to_owned();
    assert_eq!(doc["lists"][&disc]["listProperties"]["nestingLevels"][0]["glyphSymbol"], "●");
    // The tab before "beta" is gone: "gamma" moved from 24 to 23.
    assert_eq!(paras[3]["startIndex"], 23);

    h.ok("delete_paragraph_bullets", json!({"doc_id": id, "ranges": [{"start_index": 12, "end_index": 17}]})).await;
    let paras = paragraphs(&raw_doc(&h, &id).await);
    assert!(paras[1]["paragraph"].get("bullet").is_none(), "{:?}", paras[1]);
    assert!(paras[2]["paragraph"].get("bullet").is_some());
    assert!(paras[3]["paragraph"].get("bullet").is_some());
}

#[tokio::test]
async fn bad_style_and_bullet_ranges_are_named_and_nothing_changes() {
    let h = Harness::new().await;
    let id = h.google.world().create_document("Styled", TEXT, &h.owner());
    let cases = [
        ("style_doc_range", json!({"doc_id": id, "ranges": []}), "ranges is empty"),
        ("style_doc_range", json!({"doc_id": id, "ranges": [{"start_index": 1, "end_index": 4}]}), "sets no style"),
        (
            "style_doc_range",
            json!({"doc_id": id, "ranges": [{"start_index": 4, "end_index": 2, "bold": true}]}),
            "ranges[0] runs from 4 to 2",
        ),
        (
            "style_doc_range",
            json!({"doc_id": id, "ranges": [{"start_index": 1, "end_index": 4, "colour": "red"}]}),
            "unknown field `colour`",
        ),
        (
            "create_paragraph_bullets",
            json!({"doc_id": id, "ranges": [{"start_index": 1, "end_index": 4, "bullet_preset": "STARS"}]}),
            "ranges[0].bullet_preset \"STARS\" is not one of BULLET_DISC_CIRCLE_SQUARE",
        ),
        (
            "delete_paragraph_bullets",
            json!({"doc_id": id, "ranges": [{"start_index": 0, "end_index": 4}]}),
            "ranges[0].start_index is 0",
        ),
    ];
    for (tool, args, needle) in cases {
        let message = h.err(tool, args).await;
        assert!(message.contains(needle), "{tool}: {needle} not in: {message}");
    }
    assert_eq!(batch_updates(&h), 0);
    // Past the end of the body, Google's own words come back.
    let message = h
        .err("style_doc_range", json!({"doc_id": id, "ranges": [{"start_index": 1, "end_index": 90, "bold": true}]}))
        .await;
    assert!(message.contains("Google Docs refused the request as invalid"), "{message}");
    let doc = raw_doc(&h, &id).await;
    assert!(run(&doc, "Title line\n")["textRun"]["textStyle"].get("bold").is_none());
}
