//! `list_sheets` and the `spreadsheet://{id}/info` resource against the emulator.

mod sheets_common;
mod support;

use serde_json::json;
use sheets_common::seed;
use support::Harness;

#[tokio::test]
async fn list_sheets_returns_titles_ids_and_sizes() {
    let h = Harness::new().await;
    let id = seed(
        &h,
        "Budget",
        &[
            ("Summary", vec![vec![json!("a")]]),
            ("Sales", vec![vec![json!(1), json!(2)]]),
        ],
    );
    let sheets = h.ok("list_sheets", json!({ "spreadsheet_id": id })).await;
    let titles: Vec<&str> = sheets
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["title"].as_str().unwrap())
        .collect();
    assert_eq!(titles, ["Summary", "Sales"]);
    assert!(sheets[0]["row_count"].as_i64().unwrap() >= 1);
}

#[tokio::test]
async fn an_unknown_spreadsheet_says_so_in_plain_words() {
    let h = Harness::new().await;
    let message = h
        .err("list_sheets", json!({ "spreadsheet_id": "nope" }))
        .await;
    assert!(message.contains("could not find"), "{message}");
}

#[tokio::test]
async fn missing_and_unknown_arguments_are_named() {
    let h = Harness::new().await;
    let message = h.err("list_sheets", json!({})).await;
    assert!(message.contains("spreadsheet_id"), "{message}");
    let message = h
        .err(
            "list_sheets",
            json!({ "spreadsheet_id": "x", "colour": "red" }),
        )
        .await;
    assert!(message.contains("colour"), "{message}");
}
