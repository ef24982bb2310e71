//! `find_in_spreadsheet`: matches as A1 references across sheets, case rules, limits and errors.

use crate::sheets_common;
use crate::support;

use serde_json::json;
use sheets_common::{seed, sheets_calls};
use support::Harness;

fn cells(got: &serde_json::Value) -> Vec<(String, String)> {
    got["matches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["cell"].as_str().unwrap().to_owned(), m["value"].as_str().unwrap().to_owned()))
        .collect()
}

fn budget(h: &Harness) -> String {
    seed(
        h,
        "Budget",
        &[
            (
                "Sales",
                vec![
                    vec![json!("Item"), json!("Owner")],
                    vec![json!("Apples"), json!("ada")],
                    vec![json!(""), json!("Green apple pie")],
                ],
            ),
            ("My Notes", vec![vec![json!("apple tree")], vec![], vec![json!(42)]]),
        ],
    )
}

#[tokio::test]
async fn finds_across_every_sheet_with_a1_references() {
    let h = Harness::new().await;
    let id = budget(&h);
    let before = sheets_calls(&h);
    let got = h.ok("find_in_spreadsheet", json!({ "spreadsheet_id": id, "query": "apple" })).await;
    assert_eq!(
        cells(&got),
        [
            ("Sales!A2".to_owned(), "Apples".to_owned()),
            ("Sales!B3".to_owned(), "Green apple pie".to_owned()),
            ("'My Notes'!A1".to_owned(), "apple tree".to_owned()),
        ]
    );
    assert_eq!(got["count"], 3);
    assert_eq!(got["truncated"], false);
    assert_eq!(sheets_calls(&h) - before, 2, "one get for the sheet titles, one batchGet for all sheets");
}

#[tokio::test]
async fn case_sensitive_one_sheet_and_numbers() {
    let h = Harness::new().await;
    let id = budget(&h);
    let got =
        h.ok("find_in_spreadsheet", json!({ "spreadsheet_id": id, "query": "Apple", "case_sensitive": true })).await;
    assert_eq!(cells(&got), [("Sales!A2".to_owned(), "Apples".to_owned())]);
    let got = h.ok("find_in_spreadsheet", json!({ "spreadsheet_id": id, "query": "4", "sheet": "my notes" })).await;
    assert_eq!(cells(&got), [("'My Notes'!A3".to_owned(), "42".to_owned())]);
}

#[tokio::test]
async fn max_results_truncates() {
    let h = Harness::new().await;
    let rows: Vec<Vec<serde_json::Value>> = (0..20).map(|i| vec![json!(format!("hit {i}"))]).collect();
    let id = seed(&h, "Hits", &[("Data", rows)]);
    let got = h.ok("find_in_spreadsheet", json!({ "spreadsheet_id": id, "query": "HIT", "max_results": 5 })).await;
    assert_eq!(got["count"], 5);
    assert_eq!(got["truncated"], true);
    assert_eq!(got["matches"][4]["cell"], "Data!A5");
}

#[tokio::test]
async fn a_missing_sheet_or_empty_query_is_explained() {
    let h = Harness::new().await;
    let id = budget(&h);
    let message = h.err("find_in_spreadsheet", json!({ "spreadsheet_id": id, "query": "x", "sheet": "Nope" })).await;
    assert!(message.contains("\"Sales\", \"My Notes\""), "{message}");
    let message = h.err("find_in_spreadsheet", json!({ "spreadsheet_id": id, "query": "" })).await;
    assert!(message.contains("query is empty"), "{message}");
}
