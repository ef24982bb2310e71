//! `get_doc_theme` and `apply_theme` against the emulator: the named styles of the resulting document,
//! read back from the emulator's own `documents.get`.

use crate::support;

use serde_json::{Value, json};
use support::Harness;

/// The emulator's `textStyle` of one named style.
async fn named_text_style(h: &Harness, id: &str, kind: &str) -> Value {
    let doc = h.raw_get(&format!("/v1/documents/{id}"), &[]).await;
    let styles = doc["namedStyles"]["styles"].as_array().unwrap();
    styles.iter().find(|s| s["namedStyleType"] == kind).unwrap_or_else(|| panic!("no {kind} in {doc}"))["textStyle"]
        .clone()
}

#[tokio::test]
async fn the_theme_is_each_named_styles_font_size_and_colour() {
    let h = Harness::new().await;
    let id = h.google.world().create_document("Plain", "Hello", &h.owner());
    let theme = h.ok("get_doc_theme", json!({"doc_id": id})).await["theme"].clone();
    assert_eq!(theme.as_object().unwrap().len(), 9);
    assert_eq!(theme["NORMAL_TEXT"]["font_family"], "Arial");
    assert_eq!(theme["NORMAL_TEXT"]["font_size"].as_f64(), Some(11.0));
    assert_eq!(theme["HEADING_1"]["font_size"].as_f64(), Some(20.0));
    assert_eq!(theme["HEADING_6"]["italic"], true);
    assert_eq!(theme["HEADING_4"]["foreground_color"]["red"].as_f64(), Some(0.4));
    assert_eq!(theme["NORMAL_TEXT"]["foreground_color"], json!({"red": 0.0, "green": 0.0, "blue": 0.0}));
}

#[tokio::test]
async fn applying_a_theme_changes_only_the_given_fields_unless_overwriting() {
    let h = Harness::new().await;
    let id = h.google.world().create_document("Plain", "Hello", &h.owner());
    let result = h
        .ok(
            "apply_theme",
            json!({"doc_id": id, "theme": {
                "NORMAL_TEXT": {"font_family": "Lora", "font_size": 12},
                "heading_1": {"bold": true, "foreground_color": {"blue": 0.5}},
            }}),
        )
        .await;
    assert_eq!(result["styles_updated"], 2);
    let normal = named_text_style(&h, &id, "NORMAL_TEXT").await;
    assert_eq!(normal["weightedFontFamily"]["fontFamily"], "Lora");
    assert_eq!(normal["fontSize"]["magnitude"].as_f64(), Some(12.0));
    let heading = named_text_style(&h, &id, "HEADING_1").await;
    assert_eq!(heading["bold"], true);
    assert_eq!(heading["foregroundColor"]["color"]["rgbColor"]["blue"].as_f64(), Some(0.5));
    assert_eq!(heading["fontSize"]["magnitude"].as_f64(), Some(20.0), "not given, so kept");
    assert_eq!(heading["weightedFontFamily"]["fontFamily"], "Arial");
    // Untouched styles stay.
    assert_eq!(named_text_style(&h, &id, "HEADING_2").await["fontSize"]["magnitude"].as_f64(), Some(16.0));

    // Overwriting clears what the theme does not give.
    h.ok("apply_theme", json!({"doc_id": id, "overwrite": true, "theme": {"HEADING_1": {"italic": true}}})).await;
    let heading = named_text_style(&h, &id, "HEADING_1").await;
    assert_eq!(heading["italic"], true);
    assert!(heading.get("bold").is_none() && heading.get("fontSize").is_none(), "{heading}");
    assert!(heading.get("weightedFontFamily").is_none(), "{heading}");
    // get_doc_theme reads it back in the same shape.
    let theme = h.ok("get_doc_theme", json!({"doc_id": id})).await["theme"].clone();
    assert_eq!(theme["HEADING_1"]["italic"], true);
    assert_eq!(theme["HEADING_1"]["font_size"], Value::Null);
    assert_eq!(theme["NORMAL_TEXT"]["font_family"], "Lora");
}

#[tokio::test]
async fn a_bad_theme_is_named_and_nothing_changes() {
    let h = Harness::new().await;
    let id = h.google.world().create_document("Plain", "Hello", &h.owner());
    let cases = [
        (json!({}), "theme is empty"),
        (json!({"HEADING_7": {"bold": true}}), "theme key \"HEADING_7\" is not one of NORMAL_TEXT"),
        (json!({"TITLE": {}}), "theme.TITLE sets nothing"),
        (json!({"TITLE": {"font_size": 0}}), "theme.TITLE.font_size is 0"),
        (json!({"TITLE": {"foreground_color": {"red": 255}}}), "run from 0 to 1"),
        (json!({"TITLE": {"colour": "red"}}), "unknown field `colour`"),
    ];
    for (theme, needle) in cases {
        let message = h.err("apply_theme", json!({"doc_id": id, "theme": theme})).await;
        assert!(message.contains(needle), "{needle} not in: {message}");
    }
    assert_eq!(h.google.world().requests.iter().filter(|r| r.path.ends_with(":batchUpdate")).count(), 0);
    assert_eq!(named_text_style(&h, &id, "TITLE").await["fontSize"]["magnitude"].as_f64(), Some(26.0));
}
