//! The Sheets v4 emulator over HTTP, as a client sees it.

use crate::common;

use common::{ADA, BOB, Env};
use google_fake::Identity;
use percent_encoding::{NON_ALPHANUMERIC, utf8_percent_encode};
use serde_json::{Value, json};

/// Percent-encodes a path segment (a range), as Google's client libraries do.
fn enc(segment: &str) -> String {
    utf8_percent_encode(segment, NON_ALPHANUMERIC).to_string()
}

impl Env {
    async fn get(&self, path: &str) -> (u16, Value) {
        self.send(self.http.get(self.url(path))).await
    }

    async fn post(&self, path: &str, body: Value) -> (u16, Value) {
        self.send(self.http.post(self.url(path)).json(&body)).await
    }

    async fn put(&self, path: &str, body: Value) -> (u16, Value) {
        self.send(self.http.put(self.url(path)).json(&body)).await
    }

    async fn create(&self, title: &str) -> String {
        let (status, body) = self.post("v4/spreadsheets", json!({ "properties": { "title": title } })).await;
        assert_eq!(status, 200, "{body}");
        body["spreadsheetId"].as_str().expect("an id").to_owned()
    }

    async fn write(&self, id: &str, range: &str, values: Value) -> Value {
        let path = format!("v4/spreadsheets/{id}/values/{}?valueInputOption=USER_ENTERED", enc(range));
        let (status, body) = self.put(&path, json!({ "values": values })).await;
        assert_eq!(status, 200, "{body}");
        body
    }

    async fn read(&self, id: &str, range: &str, query: &str) -> Value {
        let (status, body) = self.get(&format!("v4/spreadsheets/{id}/values/{}?{query}", enc(range))).await;
        assert_eq!(status, 200, "{body}");
        body
    }

    async fn batch(&self, id: &str, requests: Value) -> (u16, Value) {
        self.post(&format!("v4/spreadsheets/{id}:batchUpdate"), json!({ "requests": requests })).await
    }

    async fn sheet_properties(&self, id: &str) -> Vec<Value> {
        let (status, body) = self.get(&format!("v4/spreadsheets/{id}?fields=sheets.properties")).await;
        assert_eq!(status, 200, "{body}");
        body["sheets"].as_array().expect("sheets").iter().map(|s| s["properties"].clone()).collect()
    }
}

#[tokio::test]
async fn create_returns_the_full_spreadsheet_and_registers_the_drive_file() {
    let env = Env::new().await;
    let (status, body) = env.post("v4/spreadsheets", json!({ "properties": { "title": "Budget 2026" } })).await;
    assert_eq!(status, 200, "{body}");
    let id = body["spreadsheetId"].as_str().expect("id");
    assert_eq!(body["spreadsheetUrl"], format!("https://docs.google.com/spreadsheets/d/{id}/edit"));
    let props = &body["properties"];
    assert_eq!(props["title"], "Budget 2026");
    assert_eq!(props["locale"], "en_US");
    assert_eq!(props["autoRecalc"], "ON_CHANGE");
    assert!(props["timeZone"].is_string());
    assert_eq!(props["defaultFormat"]["textFormat"]["fontSize"], 10);
    let sheet = &body["sheets"][0]["properties"];
    assert_eq!(sheet["title"], "Sheet1");
    assert_eq!(sheet["sheetId"], 0);
    assert_eq!(sheet["sheetType"], "GRID");
    assert_eq!(sheet["gridProperties"], json!({ "rowCount": 1000, "columnCount": 26 }));
    assert!(sheet.get("hidden").is_none());

    let (status, file) = env.get(&format!("drive/v3/files/{id}?fields=name,mimeType")).await;
    assert_eq!(status, 200, "{file}");
    assert_eq!(file["name"], "Budget 2026");
    assert_eq!(file["mimeType"], "application/vnd.google-apps.spreadsheet");
}

#[tokio::test]
async fn create_honours_given_sheets_and_data() {
    let env = Env::new().await;
    let body = json!({
        "properties": { "title": "Given" },
        "sheets": [
            { "properties": { "title": "Data", "gridProperties": { "rowCount": 10, "columnCount": 3, "frozenRowCount": 1 } },
              "data": [{ "rowData": [{ "values": [{ "userEnteredValue": { "stringValue": "name" } }] },
                                     { "values": [{ "userEnteredValue": { "numberValue": 7 } }] }] }] },
            { "properties": { "title": "Notes" } }
        ]
    });
    let (status, created) = env.post("v4/spreadsheets", body).await;
    assert_eq!(status, 200, "{created}");
    let sheets = created["sheets"].as_array().expect("sheets");
    assert_eq!(sheets.len(), 2);
    assert_eq!(
        sheets[0]["properties"]["gridProperties"],
        json!({ "rowCount": 10, "columnCount": 3, "frozenRowCount": 1 })
    );
    assert_eq!(sheets[1]["properties"]["index"], 1);
    let id = created["spreadsheetId"].as_str().expect("id");
    let values = env.read(id, "Data", "").await;
    assert_eq!(values["range"], "Data!A1:C10");
    assert_eq!(values["values"], json!([["name"], ["7"]]));
}

#[tokio::test]
async fn errors_have_google_shapes() {
    let env = Env::new().await;
    let id = env.create("Errors").await;

    let response = env.http.get(env.url(&format!("v4/spreadsheets/{id}"))).send().await.expect("sent");
    assert_eq!(response.status().as_u16(), 401);
    let body: Value = response.json().await.expect("json");
    assert_eq!(body["error"]["status"], "UNAUTHENTICATED");
    assert_eq!(body["error"]["code"], 401);

    let (status, body) = env.get("v4/spreadsheets/nope").await;
    assert_eq!(status, 404);
    assert_eq!(
        body["error"],
        json!({ "code": 404, "message": "Requested entity was not found.", "status": "NOT_FOUND" })
    );

    let (status, body) = env.get(&format!("v4/spreadsheets/{id}/values/{}", enc("Sheet9!A1"))).await;
    assert_eq!(status, 400);
    assert_eq!(body["error"]["message"], "Unable to parse range: Sheet9!A1");
    assert_eq!(body["error"]["status"], "INVALID_ARGUMENT");

    let (status, body) = env.get(&format!("v4/spreadsheets/{id}/values/{}", enc("Sheet1!A0:B"))).await;
    assert_eq!(status, 400);
    assert_eq!(body["error"]["message"], "Unable to parse range: Sheet1!A0:B");

    let (status, body) = env.put(&format!("v4/spreadsheets/{id}/values/A1"), json!({ "values": [[1]] })).await;
    assert_eq!(status, 400);
    assert_eq!(body["error"]["message"], "'valueInputOption' is required but not specified");

    let (status, body) = env.get(&format!("v4/spreadsheets/{id}/values/A1?majorDimension=DIAGONAL")).await;
    assert_eq!(status, 400);
    assert!(
        body["error"]["message"].as_str().unwrap_or("").starts_with("Invalid value at 'major_dimension'"),
        "{body}"
    );

    let (status, body) = env.get(&format!("v4/spreadsheets/{id}?bogus=1")).await;
    assert_eq!(status, 400);
    assert_eq!(
        body["error"]["message"],
        "Invalid JSON payload received. Unknown name \"bogus\": Cannot bind query parameter. Field 'bogus' could not be found in request message."
    );
}

#[tokio::test]
async fn values_round_trip_with_every_render_option() {
    let env = Env::new().await;
    let id = env.create("Values").await;
    let update = env
        .write(&id, "Sheet1!A1:C3", json!([["Item", "Qty", "Price"], ["Pens", 3, "2.5"], ["Done", "TRUE", "=B2*C2"]]))
        .await;
    assert_eq!(update["updatedRange"], "Sheet1!A1:C3");
    assert_eq!(update["updatedRows"], 3);
    assert_eq!(update["updatedColumns"], 3);
    assert_eq!(update["updatedCells"], 9);
    assert_eq!(update["spreadsheetId"], id);

    let formatted = env.read(&id, "Sheet1!A1:C3", "").await;
    assert_eq!(formatted["range"], "Sheet1!A1:C3");
    assert_eq!(formatted["majorDimension"], "ROWS");
    assert_eq!(formatted["values"], json!([["Item", "Qty", "Price"], ["Pens", "3", "2.5"], ["Done", "TRUE", "7.5"]]));

    let raw = env.read(&id, "Sheet1!A1:C3", "valueRenderOption=UNFORMATTED_VALUE").await;
    assert_eq!(raw["values"], json!([["Item", "Qty", "Price"], ["Pens", 3, 2.5], ["Done", true, 7.5]]));

    let formulas = env.read(&id, "Sheet1!C3", "valueRenderOption=FORMULA").await;
    assert_eq!(formulas["values"], json!([["=B2*C2"]]));
    assert_eq!(formulas["range"], "Sheet1!C3");

    let columns = env.read(&id, "Sheet1!A1:B2", "majorDimension=COLUMNS").await;
    assert_eq!(columns["majorDimension"], "COLUMNS");
    assert_eq!(columns["values"], json!([["Item", "Pens"], ["Qty", "3"]]));

    // RAW keeps text as typed.
    let path = format!("v4/spreadsheets/{id}/values/{}?valueInputOption=RAW", enc("Sheet1!D1"));
    let (status, _) = env.put(&path, json!({ "values": [["=1+1"]] })).await;
    assert_eq!(status, 200);
    let raw = env.read(&id, "Sheet1!D1", "valueRenderOption=FORMULA").await;
    assert_eq!(raw["values"], json!([["=1+1"]]));
}

#[tokio::test]
async fn formulas_compute_or_fail_like_a_spreadsheet() {
    let env = Env::new().await;
    let id = env.create("Formulas").await;
    env.write(
        &id,
        "A1",
        json!([
            [1, 2, "=SUM(A1:B1)", "=AVERAGE(A1:B1)", "=MAX(A1:B1)-MIN(A1:B1)", "=COUNT(A1:E1)"],
            ["=FOO(1)", "=1/0", "=A1/3", "=sum(a1:b1)*2", "=\"x\"&A1", "=Sheet1!B1+1"]
        ]),
    )
    .await;
    let values = env.read(&id, "A1:F2", "").await;
    assert_eq!(
        values["values"],
        json!([["1", "2", "3", "1.5", "1", "5"], ["#NAME?", "#DIV/0!", "0.3333333333", "6", "x1", "3"]])
    );
    let formulas = env.read(&id, "D2", "valueRenderOption=FORMULA").await;
    assert_eq!(formulas["values"], json!([["=SUM(A1:B1)*2"]]));

    let (status, grid) = env.get(&format!("v4/spreadsheets/{id}?includeGridData=true&ranges={}", enc("A2:B2"))).await;
    assert_eq!(status, 200, "{grid}");
    let cells = &grid["sheets"][0]["data"][0]["rowData"][0]["values"];
    assert_eq!(cells[0]["userEnteredValue"], json!({ "formulaValue": "=FOO(1)" }));
    assert_eq!(cells[0]["effectiveValue"]["errorValue"]["type"], "NAME");
    assert_eq!(cells[0]["formattedValue"], "#NAME?");
    assert_eq!(cells[1]["effectiveValue"]["errorValue"]["type"], "DIVIDE_BY_ZERO");
    assert_eq!(grid["sheets"][0]["data"][0]["startRow"], 1);
    assert!(grid["sheets"][0]["data"][0].get("startColumn").is_none());
}

#[tokio::test]
async fn long_formula_chains_and_cycles_evaluate() {
    let env = Env::new().await;
    let id = env.create("Chains").await;
    let mut rows = vec![json!([1])];
    rows.extend((2..=3000).map(|n| json!([format!("=A{}+1", n - 1)])));
    rows.push(json!(["=B3001", "=A3001"]));
    // A cycle longer than the evaluator's recursion depth.
    rows.extend((3002..3101).map(|n| json!([format!("=A{}", n + 1)])));
    rows.push(json!(["=A3002"]));
    env.write(&id, "A1", Value::Array(rows)).await;
    let last = env.read(&id, "A3000", "").await;
    assert_eq!(last["values"], json!([["3000"]]));
    let cycle = env.read(&id, "A3001:B3001", "").await;
    assert_eq!(cycle["values"], json!([["#REF!", "#REF!"]]));
    let long = env.read(&id, "A3050", "").await;
    assert_eq!(long["values"], json!([["#REF!"]]));
}

#[tokio::test]
async fn typed_input_is_parsed_and_formatted() {
    let env = Env::new().await;
    let id = env.create("Typed").await;
    env.write(&id, "A1", json!([["12.5%", "$1,234.50", "2024-01-15", "'0042", "false", "1,234"]])).await;
    let formatted = env.read(&id, "A1:F1", "").await;
    assert_eq!(formatted["values"], json!([["12.50%", "$1,234.50", "2024-01-15", "0042", "FALSE", "1,234"]]));
    let raw = env.read(&id, "A1:F1", "valueRenderOption=UNFORMATTED_VALUE").await;
    assert_eq!(raw["values"], json!([[0.125, 1234.5, 45306, "0042", false, 1234]]));
    let dates = env.read(&id, "C1", "valueRenderOption=UNFORMATTED_VALUE&dateTimeRenderOption=FORMATTED_STRING").await;
    assert_eq!(dates["values"], json!([["2024-01-15"]]));
}

#[tokio::test]
async fn ranges_cover_columns_rows_open_ends_and_whole_sheets() {
    let env = Env::new().await;
    let id = env.create("Shapes").await;
    env.write(&id, "A1", json!([["a1", "b1", "c1"], ["a2", "b2", "c2"], ["a3", "b3", "c3"]])).await;

    let whole = env.read(&id, "Sheet1", "").await;
    assert_eq!(whole["range"], "Sheet1!A1:Z1000");
    assert_eq!(whole["values"].as_array().map(Vec::len), Some(3));

    let cols = env.read(&id, "Sheet1!B:C", "").await;
    assert_eq!(cols["range"], "Sheet1!B1:C1000");
    assert_eq!(cols["values"], json!([["b1", "c1"], ["b2", "c2"], ["b3", "c3"]]));

    let rows = env.read(&id, "Sheet1!2:3", "").await;
    assert_eq!(rows["range"], "Sheet1!A2:Z3");
    assert_eq!(rows["values"], json!([["a2", "b2", "c2"], ["a3", "b3", "c3"]]));

    let open = env.read(&id, "Sheet1!B2:C", "").await;
    assert_eq!(open["range"], "Sheet1!B2:C1000");
    assert_eq!(open["values"], json!([["b2", "c2"], ["b3", "c3"]]));

    let no_sheet = env.read(&id, "c3:b2", "").await;
    assert_eq!(no_sheet["range"], "Sheet1!B2:C3");

    // Proto3: an empty range has no `values` at all.
    let empty = env.read(&id, "Sheet1!E5:F6", "").await;
    assert_eq!(empty, json!({ "range": "Sheet1!E5:F6", "majorDimension": "ROWS" }));

    // Trailing empty cells and rows are trimmed; inner gaps are kept.
    env.write(&id, "Sheet1!A5", json!([["x", "", "y"]])).await;
    let gaps = env.read(&id, "Sheet1!A3:D6", "").await;
    assert_eq!(gaps["values"], json!([["a3", "b3", "c3"], [], ["x", "", "y"]]));
}

#[tokio::test]
async fn quoted_sheet_names_are_read_and_written() {
    let env = Env::new().await;
    let id = env.create("Quotes").await;
    let (status, body) = env
        .batch(&id, json!([{ "addSheet": { "properties": { "title": "My Sheet" } } }, { "addSheet": { "properties": { "title": "It's" } } }]))
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["replies"][0]["addSheet"]["properties"]["title"], "My Sheet");
    assert_eq!(body["replies"][1]["addSheet"]["properties"]["index"], 2);

    let update = env.write(&id, "'My Sheet'!A1:B2", json!([[1, 2], [3, 4]])).await;
    assert_eq!(update["updatedRange"], "'My Sheet'!A1:B2");
    let read = env.read(&id, "'My Sheet'!A1:B2", "").await;
    assert_eq!(read["range"], "'My Sheet'!A1:B2");
    assert_eq!(read["values"], json!([["1", "2"], ["3", "4"]]));

    env.write(&id, "'It''s'!A1", json!([["=SUM('My Sheet'!A1:B2)"]])).await;
    let read = env.read(&id, "'It''s'!A1", "").await;
    assert_eq!(read["range"], "'It''s'!A1");
    assert_eq!(read["values"], json!([["10"]]));

    // A sheet name alone, unquoted with a space, is accepted too.
    let whole = env.read(&id, "My Sheet", "").await;
    assert_eq!(whole["range"], "'My Sheet'!A1:Z1000");
}

#[tokio::test]
async fn batch_get_returns_two_hundred_ranges_in_order() {
    let env = Env::new().await;
    let id = env.create("Bulk").await;
    let rows: Vec<Value> = (1..=200).map(|n| json!([format!("r{n}"), n])).collect();
    env.write(&id, "Sheet1!A1", Value::Array(rows)).await;
    let query: Vec<String> = (1..=200).rev().map(|n| format!("ranges={}", enc(&format!("Sheet1!A{n}:B{n}")))).collect();
    let (status, body) = env.get(&format!("v4/spreadsheets/{id}/values:batchGet?{}", query.join("&"))).await;
    assert_eq!(status, 200, "{body}");
    let ranges = body["valueRanges"].as_array().expect("valueRanges");
    assert_eq!(ranges.len(), 200);
    for (i, range) in ranges.iter().enumerate() {
        let n = 200 - i;
        assert_eq!(range["range"], format!("Sheet1!A{n}:B{n}"));
        assert_eq!(range["values"], json!([[format!("r{n}"), n.to_string()]]));
    }
    assert_eq!(body["spreadsheetId"], id);

    let (status, body) = env.get(&format!("v4/spreadsheets/{id}/values:batchGet?ranges=Nope!A1")).await;
    assert_eq!(status, 400);
    assert_eq!(body["error"]["message"], "Unable to parse range: Nope!A1");
}

#[tokio::test]
async fn batch_update_values_clear_and_append() {
    let env = Env::new().await;
    let id = env.create("Writes").await;
    let (status, body) = env
        .post(
            &format!("v4/spreadsheets/{id}/values:batchUpdate"),
            json!({
                "valueInputOption": "USER_ENTERED",
                "data": [
                    { "range": "A1:B2", "values": [["a", "b"], ["c", "d"]] },
                    { "range": "Sheet1!D1", "majorDimension": "COLUMNS", "values": [[1, 2, 3]] }
                ],
                "includeValuesInResponse": true
            }),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["totalUpdatedCells"], 7);
    assert_eq!(body["totalUpdatedSheets"], 1);
    assert_eq!(body["responses"][1]["updatedRange"], "Sheet1!D1:D3");
    assert_eq!(body["responses"][1]["updatedData"]["values"], json!([["1"], ["2"], ["3"]]));

    let (status, body) = env
        .post(
            &format!("v4/spreadsheets/{id}/values:batchUpdate"),
            json!({ "data": [{ "range": "A1", "values": [[1]] }] }),
        )
        .await;
    assert_eq!(status, 400);
    assert_eq!(body["error"]["message"], "Invalid valueInputOption: INPUT_VALUE_OPTION_UNSPECIFIED");

    let path = format!("v4/spreadsheets/{id}/values/{}?valueInputOption=RAW", enc("A1:B2"));
    let (status, body) = env.put(&path, json!({ "values": [[1, 2, 3]] })).await;
    assert_eq!(status, 400);
    assert_eq!(body["error"]["message"], "Requested writing within range [A1:B2], but tried writing to column [C]");

    let path = format!("v4/spreadsheets/{id}/values/{}:append?valueInputOption=USER_ENTERED", enc("Sheet1!A1:B1"));
    let (status, body) = env.post(&path, json!({ "values": [["e", "f"]] })).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["tableRange"], "Sheet1!A1:B2");
    assert_eq!(body["updates"]["updatedRange"], "Sheet1!A3:B3");

    let (status, body) =
        env.post(&format!("v4/spreadsheets/{id}/values/{}:clear", enc("Sheet1!A1:A3")), json!({})).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["clearedRange"], "Sheet1!A1:A3");
    let read = env.read(&id, "A1:B3", "").await;
    assert_eq!(read["values"], json!([["", "b"], ["", "d"], ["", "f"]]));

    let (status, body) = env
        .post(&format!("v4/spreadsheets/{id}/values:batchClear"), json!({ "ranges": ["B1:B3", "Sheet1!D:D"] }))
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["clearedRanges"], json!(["Sheet1!B1:B3", "Sheet1!D1:D1000"]));
    let read = env.read(&id, "Sheet1", "").await;
    assert!(read.get("values").is_none(), "{read}");
}

#[tokio::test]
async fn writes_past_the_grid_expand_it_up_to_the_cell_limit() {
    let env = Env::new().await;
    let id = env.create("Grow").await;
    let update = env.write(&id, "Sheet1!AB1001", json!([["far"]])).await;
    assert_eq!(update["updatedRange"], "Sheet1!AB1001");
    let props = env.sheet_properties(&id).await;
    assert_eq!(props[0]["gridProperties"], json!({ "rowCount": 1001, "columnCount": 28 }));

    let (status, body) = env
        .batch(&id, json!([{ "appendDimension": { "sheetId": 0, "dimension": "ROWS", "length": 9_999_000 } }]))
        .await;
    assert_eq!(status, 400);
    assert_eq!(
        body["error"]["message"],
        "Invalid requests[0].appendDimension: This action would increase the number of cells in the workbook above the limit of 10000000 cells."
    );
}

#[tokio::test]
async fn batch_update_sheet_requests() {
    let env = Env::new().await;
    let id = env.create("Sheets").await;
    env.write(&id, "A1", json!([["h1", "h2"], ["r1", 1], ["r2", 2]])).await;
    let (status, body) = env
        .batch(
            &id,
            json!([
                { "updateSheetProperties": { "properties": { "sheetId": 0, "title": "Data", "gridProperties": { "frozenRowCount": 1 } }, "fields": "title,gridProperties.frozenRowCount" } },
                { "duplicateSheet": { "sourceSheetId": 0, "newSheetId": 77 } },
                { "insertDimension": { "range": { "sheetId": 0, "dimension": "ROWS", "startIndex": 1, "endIndex": 2 } } },
                { "deleteDimension": { "range": { "sheetId": 0, "dimension": "COLUMNS", "startIndex": 1, "endIndex": 2 } } },
                { "appendDimension": { "sheetId": 77, "dimension": "COLUMNS", "length": 4 } },
                { "updateSpreadsheetProperties": { "properties": { "title": "Renamed" }, "fields": "title" } }
            ]),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let replies = body["replies"].as_array().expect("replies");
    assert_eq!(replies.len(), 6);
    assert_eq!(replies[0], json!({}));
    assert_eq!(replies[1]["duplicateSheet"]["properties"]["title"], "Copy of Data");
    assert_eq!(replies[1]["duplicateSheet"]["properties"]["sheetId"], 77);
    assert_eq!(replies[1]["duplicateSheet"]["properties"]["index"], 1);

    let props = env.sheet_properties(&id).await;
    assert_eq!(props[0]["title"], "Data");
    assert_eq!(props[0]["gridProperties"], json!({ "rowCount": 1001, "columnCount": 25, "frozenRowCount": 1 }));
    assert_eq!(props[1]["gridProperties"]["columnCount"], 30);
    let data = env.read(&id, "Data!A1:B4", "").await;
    assert_eq!(data["values"], json!([["h1"], [], ["r1"], ["r2"]]));

    let (status, file) = env.get(&format!("drive/v3/files/{id}?fields=name")).await;
    assert_eq!(status, 200, "{file}");
    assert_eq!(file["name"], "Renamed");

    // Moving a sheet uses before-the-move indexes; unfreezing omits the field again.
    let (status, body) = env
        .batch(
            &id,
            json!([
                { "updateSheetProperties": { "properties": { "sheetId": 0, "index": 2 }, "fields": "index" } },
                { "updateSheetProperties": { "properties": { "sheetId": 0 }, "fields": "gridProperties.frozenRowCount" } },
                { "deleteSheet": { "sheetId": 77 } }
            ]),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let props = env.sheet_properties(&id).await;
    assert_eq!(props.len(), 1);
    assert_eq!(props[0]["index"], 0);
    assert!(props[0]["gridProperties"].get("frozenRowCount").is_none());
}

#[tokio::test]
async fn batch_update_is_atomic_and_refuses_unknown_kinds() {
    let env = Env::new().await;
    let id = env.create("Atomic").await;
    let (status, body) = env
        .batch(
            &id,
            json!([{ "addSheet": { "properties": { "title": "New" } } }, { "deleteSheet": { "sheetId": 12345 } }]),
        )
        .await;
    assert_eq!(status, 400);
    assert_eq!(body["error"]["message"], "Invalid requests[1].deleteSheet: No sheet with id: 12345");
    assert_eq!(env.sheet_properties(&id).await.len(), 1);

    let (status, body) = env.batch(&id, json!([{ "frobnicate": {} }])).await;
    assert_eq!(status, 400);
    assert_eq!(
        body["error"]["message"],
        "Invalid JSON payload received. Unknown name \"frobnicate\" at 'requests[0]': Cannot find field."
    );

    let (status, body) = env.batch(&id, json!([{ "addSheet": { "properties": { "title": "Sheet1" } } }])).await;
    assert_eq!(status, 400);
    assert_eq!(
        body["error"]["message"],
        "Invalid requests[0].addSheet: A sheet with the name \"Sheet1\" already exists. Please enter another name."
    );

    let (status, body) = env.batch(&id, json!([{ "deleteSheet": { "sheetId": 0 } }])).await;
    assert_eq!(status, 400);
    assert_eq!(
        body["error"]["message"],
        "Invalid requests[0].deleteSheet: You can't remove all the sheets in a document."
    );
}

#[tokio::test]
async fn cells_formats_and_merges() {
    let env = Env::new().await;
    let id = env.create("Cells").await;
    let (status, body) = env
        .batch(
            &id,
            json!([
                { "updateCells": {
                    "start": { "sheetId": 0, "rowIndex": 0, "columnIndex": 0 },
                    "rows": [{ "values": [{ "userEnteredValue": { "numberValue": 0 } }, { "userEnteredValue": { "formulaValue": "=A1+1" } }] }],
                    "fields": "userEnteredValue" } },
                { "repeatCell": {
                    "range": { "sheetId": 0, "startRowIndex": 0, "endRowIndex": 1, "startColumnIndex": 0, "endColumnIndex": 2 },
                    "cell": { "userEnteredFormat": { "textFormat": { "bold": true } } },
                    "fields": "userEnteredFormat.textFormat.bold" } },
                { "mergeCells": { "range": { "sheetId": 0, "startRowIndex": 2, "endRowIndex": 4, "startColumnIndex": 0, "endColumnIndex": 2 }, "mergeType": "MERGE_ALL" } }
            ]),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let (status, sheet) = env.get(&format!("v4/spreadsheets/{id}?includeGridData=true&ranges=A1:B1")).await;
    assert_eq!(status, 200, "{sheet}");
    let first = &sheet["sheets"][0];
    let cells = &first["data"][0]["rowData"][0]["values"];
    // numberValue 0 is a oneof member: it is kept.
    assert_eq!(cells[0]["userEnteredValue"], json!({ "numberValue": 0 }));
    assert_eq!(cells[0]["formattedValue"], "0");
    assert_eq!(cells[1]["effectiveValue"], json!({ "numberValue": 1 }));
    assert_eq!(cells[1]["userEnteredFormat"]["textFormat"]["bold"], true);
    assert_eq!(cells[1]["effectiveFormat"]["textFormat"]["fontSize"], 10);
    assert_eq!(first["data"][0]["rowMetadata"], json!([{ "pixelSize": 21 }]));
    assert_eq!(first["merges"], json!([{ "startRowIndex": 2, "endRowIndex": 4, "endColumnIndex": 2 }]));
}

#[tokio::test]
async fn get_honours_fields_and_ranges() {
    let env = Env::new().await;
    let id = env.create("Masks").await;
    env.batch(&id, json!([{ "addSheet": { "properties": { "title": "Other" } } }])).await;
    let (status, body) =
        env.get(&format!("v4/spreadsheets/{id}?fields=sheets.properties.title,properties.title")).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body,
        json!({ "properties": { "title": "Masks" }, "sheets": [{ "properties": { "title": "Sheet1" } }, { "properties": { "title": "Other" } }] })
    );
    let (_, body) =
        env.get(&format!("v4/spreadsheets/{id}?fields=sheets(properties(sheetId,index))&ranges=Other!A1")).await;
    let other = &body["sheets"];
    assert_eq!(other.as_array().map(Vec::len), Some(1));
    assert_eq!(other[0]["properties"]["index"], 1);
}

#[tokio::test]
async fn copy_to_another_spreadsheet() {
    let env = Env::new().await;
    let source = env.create("Source").await;
    let target = env.create("Target").await;
    env.write(&source, "A1", json!([["copied", "=1+2"]])).await;
    let (status, body) = env
        .post(&format!("v4/spreadsheets/{source}/sheets/0:copyTo"), json!({ "destinationSpreadsheetId": target }))
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["title"], "Copy of Sheet1");
    assert_eq!(body["index"], 1);
    let read = env.read(&target, "'Copy of Sheet1'!A1:B1", "").await;
    assert_eq!(read["values"], json!([["copied", "3"]]));

    let (status, _) = env
        .post(&format!("v4/spreadsheets/{source}/sheets/0:copyTo"), json!({ "destinationSpreadsheetId": "missing" }))
        .await;
    assert_eq!(status, 404);
}

#[tokio::test]
async fn store_api_seeds_and_exports() {
    let env = Env::new().await;
    let owner = Identity::user(ADA);
    let id = env.google.world().create_spreadsheet(
        "Seeded",
        &[("People", vec![vec![json!("name"), json!("age")], vec![json!("Ada, L."), json!(36)]]), ("Empty", vec![])],
        &owner,
    );
    {
        let world = env.google.world();
        assert!(world.sheets.contains(&id));
        assert_eq!(world.sheets.sheet_titles(&id), vec!["People", "Empty"]);
        assert_eq!(world.sheets.values(&id, "People"), vec![vec!["name", "age"], vec!["Ada, L.", "36"]]);
        let csv = world.sheets.export(&id, "text/csv").expect("csv");
        assert_eq!(String::from_utf8_lossy(&csv), "name,age\r\n\"Ada, L.\",36");
    }

    let read = env.read(&id, "People!B2", "valueRenderOption=UNFORMATTED_VALUE").await;
    assert_eq!(read["values"], json!([[36]]));

    let mut world = env.google.world();
    assert!(world.sheets.copy(&id, "copy-id", "Copied"));
    assert_eq!(world.sheets.title("copy-id").as_deref(), Some("Copied"));
    world.sheets.remove(&id);
    assert!(!world.sheets.contains(&id));
}

/// Every Sheets call another user makes on Ada's spreadsheet, as (label, status).
async fn statuses_for(env: &Env, token: &str, id: &str, mine: &str) -> Vec<(&'static str, u16)> {
    let http = &env.http;
    let a1 = enc("Sheet1!A1");
    let calls: Vec<(&'static str, reqwest::RequestBuilder)> = vec![
        ("get", http.get(env.url(&format!("v4/spreadsheets/{id}")))),
        ("getByDataFilter", http.post(env.url(&format!("v4/spreadsheets/{id}:getByDataFilter"))).json(&json!({}))),
        ("values.get", http.get(env.url(&format!("v4/spreadsheets/{id}/values/{a1}")))),
        ("values.batchGet", http.get(env.url(&format!("v4/spreadsheets/{id}/values:batchGet?ranges={a1}")))),
        (
            "values.update",
            http.put(env.url(&format!("v4/spreadsheets/{id}/values/{a1}?valueInputOption=RAW")))
                .json(&json!({ "values": [["x"]] })),
        ),
        (
            "values.batchUpdate",
            http.post(env.url(&format!("v4/spreadsheets/{id}/values:batchUpdate")))
                .json(&json!({ "valueInputOption": "RAW", "data": [{ "range": "Sheet1!A1", "values": [["x"]] }] })),
        ),
        (
            "values.append",
            http.post(env.url(&format!("v4/spreadsheets/{id}/values/{a1}:append?valueInputOption=RAW")))
                .json(&json!({ "values": [["x"]] })),
        ),
        ("values.clear", http.post(env.url(&format!("v4/spreadsheets/{id}/values/{a1}:clear"))).json(&json!({}))),
        (
            "values.batchClear",
            http.post(env.url(&format!("v4/spreadsheets/{id}/values:batchClear")))
                .json(&json!({ "ranges": ["Sheet1!A1"] })),
        ),
        (
            "batchUpdate",
            http.post(env.url(&format!("v4/spreadsheets/{id}:batchUpdate")))
                .json(&json!({ "requests": [{ "addSheet": { "properties": {} } }] })),
        ),
        (
            "copyTo (from it)",
            http.post(env.url(&format!("v4/spreadsheets/{id}/sheets/0:copyTo")))
                .json(&json!({ "destinationSpreadsheetId": mine })),
        ),
        (
            "copyTo (into it)",
            http.post(env.url(&format!("v4/spreadsheets/{mine}/sheets/0:copyTo")))
                .json(&json!({ "destinationSpreadsheetId": id })),
        ),
    ];
    let mut out = Vec::new();
    for (label, request) in calls {
        let (status, body) = env.send_as(token, request).await;
        if status == 403 {
            assert_eq!(
                body,
                json!({ "error": { "code": 403, "message": "The caller does not have permission", "status": "PERMISSION_DENIED" } }),
                "{label}"
            );
        } else {
            assert_eq!(status, 200, "{label}: {body}");
        }
        out.push((label, status));
    }
    out
}

#[tokio::test]
async fn access_follows_the_callers_drive_role() {
    let env = Env::new().await;
    let id = env.create("Ada's numbers").await;
    env.write(&id, "A1", json!([["secret"]])).await;
    let bob = env.google.issue_token(Identity::user(BOB));
    let bobs = {
        let (status, body) = env
            .send_as(
                &bob,
                env.http.post(env.url("v4/spreadsheets")).json(&json!({ "properties": { "title": "Bob's" } })),
            )
            .await;
        assert_eq!(status, 200, "{body}");
        body["spreadsheetId"].as_str().expect("id").to_owned()
    };
    let reads = ["get", "getByDataFilter", "values.get", "values.batchGet", "copyTo (from it)"];
    let expect = |read_ok: bool, write_ok: bool| -> Vec<u16> {
        [
            "get",
            "getByDataFilter",
            "values.get",
            "values.batchGet",
            "values.update",
            "values.batchUpdate",
            "values.append",
            "values.clear",
            "values.batchClear",
            "batchUpdate",
            "copyTo (from it)",
            "copyTo (into it)",
        ]
        .iter()
        .map(|label| {
            let ok = if reads.contains(label) { read_ok } else { write_ok };
            if ok { 200 } else { 403 }
        })
        .collect()
    };
    let codes = |found: Vec<(&str, u16)>| found.into_iter().map(|(_, s)| s).collect::<Vec<_>>();

    // No role: every call is refused, reads included.
    assert_eq!(codes(statuses_for(&env, &bob, &id, &bobs).await), expect(false, false));
    // An id nothing knows is not found.
    let (status, body) = env.send_as(&bob, env.http.get(env.url("v4/spreadsheets/no-such-spreadsheet"))).await;
    assert_eq!(status, 404, "{body}");
    assert_eq!(body["error"]["message"], "Requested entity was not found.");

    for (role, write_ok) in [("reader", false), ("commenter", false), ("writer", true)] {
        env.google.world().drive.share_with(&id, BOB, role);
        assert_eq!(codes(statuses_for(&env, &bob, &id, &bobs).await), expect(true, write_ok), "{role}");
    }
    // The writer's edit is Bob's in Drive.
    let world = env.google.world();
    let file = world.drive.get(&id).expect("drive file");
    assert_eq!(file.last_modifying_user.as_deref(), Some(BOB));
}

#[tokio::test]
async fn titles_follow_renames_both_ways() {
    let env = Env::new().await;
    let id = env.create("Before").await;
    // Sheets → Drive.
    let (status, body) = env
        .batch(
            &id,
            json!([{ "updateSpreadsheetProperties": { "properties": { "title": "Renamed in Sheets" }, "fields": "title" } }]),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(env.google.world().drive.get(&id).map(|f| f.name.clone()).as_deref(), Some("Renamed in Sheets"));
    // Drive → Sheets.
    let (status, body) = env
        .send(env.http.patch(env.url(&format!("drive/v3/files/{id}"))).json(&json!({ "name": "Renamed in Drive" })))
        .await;
    assert_eq!(status, 200, "{body}");
    let (status, body) = env.get(&format!("v4/spreadsheets/{id}?fields=properties.title")).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["properties"]["title"], "Renamed in Drive");
}
