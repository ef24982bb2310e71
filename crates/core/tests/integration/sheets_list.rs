//! `list_sheets` and the `spreadsheet://{id}/info` resource against the emulator.

use crate::sheets_common;
use crate::support;

use serde_json::json;
use sheets_common::seed;
use support::Harness;

#[tokio::test]
async fn list_sheets_returns_titles_ids_and_sizes() {
    let h = Harness::new().await;
    let id = seed(&h, "Budget", &[("Summary", vec![vec![json!("a")]]), ("Sales", vec![vec![json!(1), json!(2)]])]);
    let sheets = h.ok("list_sheets", json!({ "spreadsheet_id": id })).await;
    let titles: Vec<&str> = sheets.as_array().unwrap().iter().map(|s| s["title"].as_str().unwrap()).collect();
    assert_eq!(titles, ["Summary", "Sales"]);
    assert!(sheets[0]["row_count"].as_i64().unwrap() >= 1);
}

#[tokio::test]
async fn an_unknown_spreadsheet_says_so_in_plain_words() {
    let h = Harness::new().await;
    let message = h.err("list_sheets", json!({ "spreadsheet_id": "nope" })).await;
    assert!(message.contains("could not find"), "{message}");
}

#[tokio::test]
async fn missing_and_unknown_arguments_are_named() {
    let h = Harness::new().await;
    let message = h.err("list_sheets", json!({})).await;
    assert!(message.contains("spreadsheet_id"), "{message}");
    let message = h.err("list_sheets", json!({ "spreadsheet_id": "x", "colour": "red" })).await;
    assert!(message.contains("colour"), "{message}");
}

#[tokio::test]
async fn the_info_resource_names_the_spreadsheet_and_its_sheets() {
    let h = Harness::new().await;
    let id = seed(&h, "Budget 2026", &[("Sales", vec![vec![json!(1)]])]);
    let text = h
        .engine
        .read_resource(&gatehouse_core::approval::CallMeta::default(), &format!("spreadsheet://{id}/info"))
        .await
        .unwrap();
    let info: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(info["title"], "Budget 2026");
    assert_eq!(info["spreadsheet_id"], id.as_str());
    assert_eq!(info["sheets"][0]["title"], "Sales");
    assert!(info["url"].as_str().unwrap().contains(&id));
}

#[tokio::test]
async fn an_unknown_resource_uri_is_refused_with_the_expected_shape() {
    let h = Harness::new().await;
    for uri in ["spreadsheet://", "spreadsheet://x/y/info", "file:///etc/passwd", "spreadsheet://abc/values"] {
        let error =
            h.engine.read_resource(&gatehouse_core::approval::CallMeta::default(), uri).await.unwrap_err().to_string();
        assert!(error.contains("spreadsheet://SPREADSHEET_ID/info"), "{uri}: {error}");
    }
}
