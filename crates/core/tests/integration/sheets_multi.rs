//! `get_multiple_sheet_data` and `get_multiple_spreadsheet_summary`: grouped `values.batchGet` requests
//! (counted at the emulator), results in query order, and per-query errors that don't sink the rest.

use crate::sheets_common;
use crate::support;

use serde_json::{Value, json};
use sheets_common::{grid, seed, sheets_calls};
use support::Harness;

fn query(id: &str, sheet: &str, range: &str) -> Value {
    json!({ "spreadsheet_id": id, "sheet": sheet, "range": range })
}

#[tokio::test]
async fn two_hundred_queries_on_one_spreadsheet_cost_a_handful_of_requests() {
    let h = Harness::new().await;
    let id = seed(&h, "Many", &[("Quarterly Sales", grid(250, 4)), ("Notes", grid(5, 2))]);
    let queries: Vec<Value> = (1..=200)
        .map(|i| {
            if i % 2 == 0 {
                query(&id, "Quarterly Sales", &format!("A{i}:D{i}"))
            } else {
                query(&id, "Notes", &format!("B{}", i % 5 + 1))
            }
        })
        .collect();
    let before = sheets_calls(&h);
    let got = h.ok("get_multiple_sheet_data", json!({ "queries": queries })).await;
    let calls = sheets_calls(&h) - before;
    assert!((1..=3).contains(&calls), "200 queries cost {calls} Google requests");
    let batch_gets = h.google.world().requests.iter().filter(|r| r.path.ends_with("/values:batchGet")).count();
    assert_eq!(batch_gets, calls, "only batchGet requests are sent");

    let results = got["results"].as_array().unwrap();
    assert_eq!(results.len(), 200);
    for (i, result) in results.iter().enumerate() {
        let n = i + 1;
        if n % 2 == 0 {
            assert_eq!(result["sheet"], "Quarterly Sales");
            assert_eq!(result["range"], format!("'Quarterly Sales'!A{n}:D{n}"));
            assert_eq!(
                result["values"],
                json!([[format!("r{n}c1"), format!("r{n}c2"), format!("r{n}c3"), format!("r{n}c4")]])
            );
        } else {
            assert_eq!(result["values"], json!([[format!("r{}c2", n % 5 + 1)]]), "{result}");
        }
    }
}

#[tokio::test]
async fn long_range_lists_are_split_into_several_requests() {
    let h = Harness::new().await;
    let sheet = "A sheet with a rather long name, to make every range long";
    let id = seed(&h, "Long", &[(sheet, grid(400, 2))]);
    let queries: Vec<Value> = (1..=400).map(|i| query(&id, sheet, &format!("A{i}:B{i}"))).collect();
    let before = sheets_calls(&h);
    let got = h.ok("get_multiple_sheet_data", json!({ "queries": queries })).await;
    let calls = sheets_calls(&h) - before;
    assert!((2..=12).contains(&calls), "{calls} requests");
    let results = got["results"].as_array().unwrap();
    assert_eq!(results[399]["values"], json!([["r400c1", "r400c2"]]));
    assert_eq!(results[0]["values"], json!([["r1c1", "r1c2"]]));
}

#[tokio::test]
async fn queries_across_spreadsheets_keep_their_order_and_their_own_errors() {
    let h = Harness::new().await;
    let a = seed(&h, "A", &[("Data", grid(3, 3))]);
    let b = seed(&h, "B", &[("Other", grid(3, 3))]);
    let queries = json!([
        query(&b, "Other", "C3"),
        query(&a, "Data", "A1:B1"),
        query(&a, "Missing", "A1"),
        query(&a, "Data", "A1:B2:C3"),
        { "spreadsheet_id": "no-such-spreadsheet", "sheet": "Data" },
        query(&a, "Data", "A1:B1"),
        { "spreadsheet_id": b, "sheet": "Other" },
    ]);
    let before = sheets_calls(&h);
    let got = h.ok("get_multiple_sheet_data", json!({ "queries": queries })).await;
    let r = got["results"].as_array().unwrap();
    assert_eq!(r.len(), 7);
    assert_eq!(r[0]["values"], json!([["r3c3"]]));
    assert_eq!(r[0]["spreadsheet_id"], json!(b));
    assert_eq!(r[1]["values"], json!([["r1c1", "r1c2"]]));
    let missing = r[2]["error"].as_str().unwrap();
    assert!(missing.contains("\"Missing\"") && missing.contains("\"Data\""), "{missing}");
    assert!(r[3]["error"].as_str().unwrap().contains("A1:B2:C3"), "{}", r[3]);
    assert!(r[4]["error"].as_str().unwrap().contains("could not find"), "{}", r[4]);
    assert_eq!(r[5]["values"], json!([["r1c1", "r1c2"]]), "a repeated query gets the same values");
    assert_eq!(r[6]["values"].as_array().unwrap().len(), 3);
    // One batch per spreadsheet, plus the retry (and sheet listing) caused by the missing sheet.
    assert!(sheets_calls(&h) - before <= 5, "{} requests", sheets_calls(&h) - before);
}

#[tokio::test]
async fn an_empty_query_list_is_refused() {
    let h = Harness::new().await;
    let message = h.err("get_multiple_sheet_data", json!({ "queries": [] })).await;
    assert!(message.contains("queries is empty"), "{message}");
    let message = h.err("get_multiple_sheet_data", json!({ "queries": [{ "spreadsheet_id": "x" }] })).await;
    assert!(message.contains("sheet"), "{message}");
}

#[tokio::test]
async fn summaries_give_titles_sheets_and_first_rows() {
    let h = Harness::new().await;
    let a = seed(&h, "Budget", &[("Summary", grid(10, 3)), ("Sales", grid(2, 2))]);
    let b = seed(&h, "Plans", &[("Sheet1", grid(1, 1))]);
    let before = sheets_calls(&h);
    let got = h
        .ok(
            "get_multiple_spreadsheet_summary",
            json!({ "spreadsheet_ids": [a, "no-such-spreadsheet", b], "rows_to_fetch": 3 }),
        )
        .await;
    assert_eq!(sheets_calls(&h) - before, 5, "one get and one batchGet per spreadsheet, one get for the missing one");
    let s = got["spreadsheets"].as_array().unwrap();
    assert_eq!(s[0]["title"], "Budget");
    assert_eq!(s[0]["sheets"][0]["title"], "Summary");
    assert_eq!(
        s[0]["sheets"][0]["first_rows"],
        json!([["r1c1", "r1c2", "r1c3"], ["r2c1", "r2c2", "r2c3"], ["r3c1", "r3c2", "r3c3"]])
    );
    assert_eq!(s[0]["sheets"][1]["first_rows"], json!([["r1c1", "r1c2"], ["r2c1", "r2c2"]]));
    assert!(s[0]["sheets"][0]["row_count"].as_i64().unwrap() >= 10);
    assert!(s[1]["error"].as_str().unwrap().contains("could not find"), "{}", s[1]);
    assert_eq!(s[2]["title"], "Plans");
    assert_eq!(s[2]["sheets"][0]["first_rows"], json!([["r1c1"]]));
}

#[tokio::test]
async fn summaries_default_to_five_rows_and_zero_skips_values() {
    let h = Harness::new().await;
    let id = seed(&h, "Budget", &[("Data", grid(10, 1))]);
    let got = h.ok("get_multiple_spreadsheet_summary", json!({ "spreadsheet_ids": [id] })).await;
    assert_eq!(got["spreadsheets"][0]["sheets"][0]["first_rows"].as_array().unwrap().len(), 5);
    let before = sheets_calls(&h);
    let got = h.ok("get_multiple_spreadsheet_summary", json!({ "spreadsheet_ids": [id], "rows_to_fetch": 0 })).await;
    assert_eq!(sheets_calls(&h) - before, 1);
    assert!(got["spreadsheets"][0]["sheets"][0].get("first_rows").is_none());
}
