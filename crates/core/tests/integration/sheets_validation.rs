//! Data validation against the emulator: add_data_validation for every condition type Sheets defines
//! (the ones data validation takes land on the cells; the others are refused with the formula to use),
//! get_data_validation and clear_data_validation. Each test checks the rules on the emulator's cells, as
//! spreadsheets.get with includeGridData answers them.

use crate::sheets_common;
use crate::support;

use serde_json::{Value, json};
use sheets_common::{grid, seed};
use support::Harness;

/// The `dataValidation` of every cell of `range` (A1 with sheet), keyed by its A1 name, from Google's JSON.
async fn rules(h: &Harness, id: &str, range: &str) -> Vec<(String, Value)> {
    let book = h
        .raw_get(
            &format!("/v4/spreadsheets/{id}"),
            &[
                ("ranges", range),
                ("includeGridData", "true"),
                ("fields", "sheets(data(startRow,startColumn,rowData(values(dataValidation))))"),
            ],
        )
        .await;
    let mut out = Vec::new();
    for block in book["sheets"][0]["data"].as_array().unwrap() {
        let (r0, c0) = (block["startRow"].as_u64().unwrap_or(0), block["startColumn"].as_u64().unwrap_or(0));
        for (r, row) in block["rowData"].as_array().into_iter().flatten().enumerate() {
            for (c, cell) in row["values"].as_array().into_iter().flatten().enumerate() {
                if let Some(rule) = cell.get("dataValidation") {
                    let col = (b'A' + (c0 as u8) + c as u8) as char;
                    out.push((format!("{col}{}", r0 + r as u64 + 1), rule.clone()));
                }
            }
        }
    }
    out
}

fn add(id: &str, range: &str, condition: &str, values: Value) -> Value {
    json!({ "spreadsheet_id": id, "sheet": "Data", "range": range, "condition_type": condition, "values": values })
}

#[tokio::test]
async fn a_dropdown_list_round_trips_and_clears() {
    let h = Harness::new().await;
    let id = seed(&h, "Tasks", &[("Data", grid(5, 3))]);
    let mut args = add(&id, "B2:B4", "one_of_list", json!(["Open", "Done", "Blocked"]));
    args["input_message"] = json!("Pick a status");
    let got = h.ok("add_data_validation", args).await;
    assert_eq!(got["range"], "Data!B2:B4");
    assert_eq!(got["rule"]["condition_type"], "ONE_OF_LIST");

    let cells = rules(&h, &id, "Data!A1:C5").await;
    let names: Vec<&str> = cells.iter().map(|(name, _)| name.as_str()).collect();
    assert_eq!(names, ["B2", "B3", "B4"]);
    let expected = json!({
        "condition": { "type": "ONE_OF_LIST", "values": [
            { "userEnteredValue": "Open" }, { "userEnteredValue": "Done" }, { "userEnteredValue": "Blocked" }
        ] },
        "inputMessage": "Pick a status",
        "strict": true,
        "showCustomUi": true,
    });
    assert!(cells.iter().all(|(_, rule)| *rule == expected), "{cells:?}");

    let read = h.ok("get_data_validation", json!({ "spreadsheet_id": id, "sheet": "Data", "range": "A1:C5" })).await;
    assert_eq!(read["cells_with_validation"], 3);
    assert_eq!(read["rules"].as_array().unwrap().len(), 1, "{read}");
    let rule = &read["rules"][0];
    assert_eq!(rule["ranges"], json!(["B2:B4"]));
    assert_eq!(rule["condition_type"], "ONE_OF_LIST");
    assert_eq!(rule["values"], json!(["Open", "Done", "Blocked"]));
    assert_eq!(rule["input_message"], "Pick a status");
    assert_eq!((rule["strict"].clone(), rule["show_custom_ui"].clone()), (json!(true), json!(true)));

    // Clearing part of the range leaves the rest.
    let cleared =
        h.ok("clear_data_validation", json!({ "spreadsheet_id": id, "sheet": "Data", "range": "B2:B3" })).await;
    assert_eq!(cleared["cleared_range"], "Data!B2:B3");
    let names: Vec<String> = rules(&h, &id, "Data!A1:C5").await.into_iter().map(|(n, _)| n).collect();
    assert_eq!(names, ["B4"]);
    h.ok("clear_data_validation", json!({ "spreadsheet_id": id, "sheet": "Data", "range": "A:C" })).await;
    assert!(rules(&h, &id, "Data!A1:C5").await.is_empty());
    let read = h.ok("get_data_validation", json!({ "spreadsheet_id": id, "sheet": "Data", "range": "A1:C5" })).await;
    assert_eq!((read["cells_with_validation"].clone(), read["rules"].clone()), (json!(0), json!([])));
    // The values were never touched.
    assert_eq!(sheets_common::values(&h, &id, "Data")[1][1], "r2c2");
}

#[tokio::test]
async fn number_rules_take_numbers_and_report_their_bounds() {
    let h = Harness::new().await;
    let id = seed(&h, "Scores", &[("Data", grid(3, 3))]);
    let mut args = add(&id, "C1:C3", "NUMBER_BETWEEN", json!(["0", "100"]));
    args["strict"] = json!(false);
    args["show_custom_ui"] = json!(false);
    h.ok("add_data_validation", args).await;
    let cells = rules(&h, &id, "Data!C1:C3").await;
    assert_eq!(cells.len(), 3);
    // Proto3 leaves false out.
    assert_eq!(
        cells[0].1,
        json!({ "condition": { "type": "NUMBER_BETWEEN", "values": [{ "userEnteredValue": "0" }, { "userEnteredValue": "100" }] } })
    );
    let read = h.ok("get_data_validation", json!({ "spreadsheet_id": id, "sheet": "Data", "range": "A1:C3" })).await;
    assert_eq!(read["rules"][0]["ranges"], json!(["C1:C3"]));
    assert_eq!(
        (read["rules"][0]["strict"].clone(), read["rules"][0]["show_custom_ui"].clone()),
        (json!(false), json!(false))
    );

    let message = h.err("add_data_validation", add(&id, "A1", "NUMBER_GREATER", json!(["ten"]))).await;
    assert!(message.contains("\"ten\"") && message.contains("a number"), "{message}");
    let message = h.err("add_data_validation", add(&id, "A1", "NUMBER_BETWEEN", json!(["1"]))).await;
    assert!(message.contains("exactly two values") && message.contains("1 were given"), "{message}");
    assert!(rules(&h, &id, "Data!A1:A3").await.is_empty());
}

#[tokio::test]
async fn text_rules_and_the_formatting_only_ones() {
    let h = Harness::new().await;
    let id = seed(&h, "Contacts", &[("Data", grid(3, 3))]);
    h.ok("add_data_validation", add(&id, "A1:A3", "TEXT_CONTAINS", json!(["@"]))).await;
    h.ok("add_data_validation", add(&id, "B1:B3", "TEXT_IS_EMAIL", Value::Null)).await;
    let cells = rules(&h, &id, "Data!A1:C3").await;
    let kinds: Vec<(&str, &str)> =
        cells.iter().map(|(n, r)| (n.as_str(), r["condition"]["type"].as_str().unwrap())).collect();
    assert_eq!(
        kinds,
        [
            ("A1", "TEXT_CONTAINS"),
            ("B1", "TEXT_IS_EMAIL"),
            ("A2", "TEXT_CONTAINS"),
            ("B2", "TEXT_IS_EMAIL"),
            ("A3", "TEXT_CONTAINS"),
            ("B3", "TEXT_IS_EMAIL")
        ]
    );
    assert!(cells[1].1["condition"].get("values").is_none(), "{cells:?}");

    let message = h.err("add_data_validation", add(&id, "C2:C3", "TEXT_IS_EMAIL", json!(["x"]))).await;
    assert!(message.contains("TEXT_IS_EMAIL takes no values"), "{message}");
    let message = h.err("add_data_validation", add(&id, "C2:C3", "TEXT_STARTS_WITH", json!(["INV-"]))).await;
    assert!(message.contains("does not support TEXT_STARTS_WITH"), "{message}");
    assert!(message.contains(r#"=LEFT(C2,LEN(\"INV-\"))=\"INV-\""#), "{message}");
    assert!(rules(&h, &id, "Data!C1:C3").await.is_empty());
}

#[tokio::test]
async fn date_rules_take_dates_or_formulas() {
    let h = Harness::new().await;
    let id = seed(&h, "Schedule", &[("Data", grid(2, 2))]);
    h.ok("add_data_validation", add(&id, "A1:A2", "DATE_BETWEEN", json!(["2025-01-01", "2025-12-31"]))).await;
    h.ok("add_data_validation", add(&id, "B1", "DATE_AFTER", json!(["=TODAY()"]))).await;
    let cells = rules(&h, &id, "Data!A1:B2").await;
    assert_eq!(cells[0].1["condition"]["values"][1]["userEnteredValue"], "2025-12-31");
    assert_eq!(
        cells[1].1["condition"],
        json!({ "type": "DATE_AFTER", "values": [{ "userEnteredValue": "=TODAY()" }] })
    );
    let message = h.err("add_data_validation", add(&id, "B2", "DATE_BEFORE", json!(["next week"]))).await;
    assert!(message.contains("a date like 2025-01-31"), "{message}");
}

#[tokio::test]
async fn a_list_from_a_range_a_checkbox_and_a_custom_formula() {
    let h = Harness::new().await;
    let id = seed(&h, "Orders", &[("Data", grid(4, 4)), ("Lists", grid(3, 1))]);
    h.ok("add_data_validation", add(&id, "A1:A4", "ONE_OF_RANGE", json!(["Lists!A1:A3"]))).await;
    h.ok("add_data_validation", add(&id, "B1:B4", "BOOLEAN", json!(["Yes", "No"]))).await;
    h.ok("add_data_validation", add(&id, "C1:C4", "CUSTOM_FORMULA", json!(["=LEN(C1)<=20"]))).await;
    let cells = rules(&h, &id, "Data!A1:C1").await;
    assert_eq!(cells[0].1["condition"]["values"], json!([{ "userEnteredValue": "=Lists!A1:A3" }]));
    assert_eq!(cells[1].1["condition"]["values"], json!([{ "userEnteredValue": "Yes" }, { "userEnteredValue": "No" }]));
    assert_eq!(cells[2].1["condition"]["type"], "CUSTOM_FORMULA");

    let read = h.ok("get_data_validation", json!({ "spreadsheet_id": id, "sheet": "Data", "range": "A1:D4" })).await;
    let ranges: Vec<&Value> = read["rules"].as_array().unwrap().iter().map(|r| &r["ranges"]).collect();
    assert_eq!(ranges, [&json!(["A1:A4"]), &json!(["B1:B4"]), &json!(["C1:C4"])]);
    assert_eq!(read["cells_with_validation"], 12);

    let message = h.err("add_data_validation", add(&id, "D1", "CUSTOM_FORMULA", json!(["LEN(D1)<5"]))).await;
    assert!(message.contains("a formula starting with ="), "{message}");
    let message = h.err("add_data_validation", add(&id, "D1", "ONE_OF_LIST", json!(["=A1"]))).await;
    assert!(message.contains("formulas are not allowed in a list"), "{message}");
    let message = h.err("add_data_validation", add(&id, "D1", "BOOLEAN", json!(["a", "b", "c"]))).await;
    assert!(message.contains("zero, one or two values"), "{message}");
}

/// Every `ConditionType` of Sheets v4, with values of the right shape: data validation's own land on the
/// cell as sent; the ones Google keeps for conditional formatting and filters are refused, changing nothing.
#[tokio::test]
async fn every_condition_type() {
    let h = Harness::new().await;
    let id = seed(&h, "All", &[("Data", grid(2, 2)), ("Lists", grid(2, 1))]);
    let table: &[(&str, &[&str], bool)] = &[
        ("NUMBER_GREATER", &["1"], true),
        ("NUMBER_GREATER_THAN_EQ", &["1"], true),
        ("NUMBER_LESS", &["1"], true),
        ("NUMBER_LESS_THAN_EQ", &["1.5"], true),
        ("NUMBER_EQ", &["3"], true),
        ("NUMBER_NOT_EQ", &["3"], true),
        ("NUMBER_BETWEEN", &["1", "9"], true),
        ("NUMBER_NOT_BETWEEN", &["1", "9"], true),
        ("TEXT_CONTAINS", &["a"], true),
        ("TEXT_NOT_CONTAINS", &["a"], true),
        ("TEXT_STARTS_WITH", &["a"], false),
        ("TEXT_ENDS_WITH", &["a"], false),
        ("TEXT_EQ", &["a"], true),
        ("TEXT_IS_EMAIL", &[], true),
        ("TEXT_IS_URL", &[], true),
        ("DATE_EQ", &["2025-06-01"], true),
        ("DATE_BEFORE", &["2025-06-01"], true),
        ("DATE_AFTER", &["6/1/2025"], true),
        ("DATE_ON_OR_BEFORE", &["2025-06-01"], true),
        ("DATE_ON_OR_AFTER", &["2025-06-01"], true),
        ("DATE_BETWEEN", &["2025-01-01", "2025-06-01"], true),
        ("DATE_NOT_BETWEEN", &["2025-01-01", "2025-06-01"], true),
        ("DATE_IS_VALID", &[], true),
        ("ONE_OF_RANGE", &["=Lists!A1:A2"], true),
        ("ONE_OF_LIST", &["x", "y"], true),
        ("BLANK", &[], false),
        ("NOT_BLANK", &[], false),
        ("CUSTOM_FORMULA", &["=A1>0"], true),
        ("BOOLEAN", &[], true),
        ("TEXT_NOT_EQ", &["a"], false),
        ("DATE_NOT_EQ", &["2025-06-01"], false),
        ("FILTER_EXPRESSION", &["=A1"], false),
    ];
    // The table covers the discovery document's enum, in its order.
    let document: Value = serde_json::from_str(include_str!("../../../google-fake/discovery/sheets.v4.json")).unwrap();
    let all: Vec<&str> = document["schemas"]["BooleanCondition"]["properties"]["type"]["enum"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .filter(|t| *t != "CONDITION_TYPE_UNSPECIFIED")
        .collect();
    assert_eq!(table.iter().map(|(t, _, _)| *t).collect::<Vec<_>>(), all);

    for (kind, values, supported) in table {
        let args = add(&id, "A1", kind, json!(values));
        if *supported {
            h.ok("add_data_validation", args).await;
            let cells = rules(&h, &id, "Data!A1").await;
            let condition = &cells[0].1["condition"];
            assert_eq!(condition["type"], *kind);
            let sent: Vec<&str> = condition["values"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|v| v["userEnteredValue"].as_str().unwrap())
                .collect();
            assert_eq!(sent, *values, "{kind}");
        } else {
            let before = rules(&h, &id, "Data!A1").await;
            let message = h.err("add_data_validation", args).await;
            assert!(
                message.contains(&format!("does not support {kind}")) && message.contains("CUSTOM_FORMULA"),
                "{message}"
            );
            assert_eq!(rules(&h, &id, "Data!A1").await, before, "{kind}");
        }
    }
    let message = h.err("add_data_validation", add(&id, "A1", "CONDITION_TYPE_UNSPECIFIED", json!([]))).await;
    assert!(message.contains("Use one of: NUMBER_GREATER"), "{message}");
}

#[tokio::test]
async fn bad_targets_are_refused_in_plain_words() {
    let h = Harness::new().await;
    let id = seed(&h, "Small", &[("Data", grid(2, 2))]);
    let message = h
        .err(
            "add_data_validation",
            json!({
                "spreadsheet_id": id, "sheet": "Nope", "range": "A1", "condition_type": "TEXT_IS_URL",
            }),
        )
        .await;
    assert!(message.contains("no sheet named \"Nope\"") && message.contains("\"Data\""), "{message}");
    let message =
        h.err("clear_data_validation", json!({ "spreadsheet_id": id, "sheet": "Data", "range": "A1:ZZ5000" })).await;
    assert!(message.contains("reaches past sheet"), "{message}");
    let message =
        h.err("get_data_validation", json!({ "spreadsheet_id": id, "sheet": "Nope", "range": "A1:B2" })).await;
    assert!(message.contains("no sheet named \"Nope\""), "{message}");
    let message = h.err("add_data_validation", add(&id, "A1", "NUMBER_BIGGER", json!(["1"]))).await;
    assert!(message.contains("\"NUMBER_BIGGER\"") && message.contains("ONE_OF_LIST"), "{message}");
    assert!(rules(&h, &id, "Data!A1:B2").await.is_empty());
}
