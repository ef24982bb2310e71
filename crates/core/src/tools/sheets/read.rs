//! `get_sheet_data` and `get_sheet_formulas`: one range of one sheet.
//!
//! The values path transcodes Google's `values.get` body straight into the result text (see
//! [`result_text`]): no tree of the cells is ever built, so a large read holds Google's body and the text,
//! then only the text.

use std::fmt;

use bytes::Bytes;
use schemars::JsonSchema;
use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

use super::{on_sheet, range_arg, sheet_name};
use crate::google::sheets::ValueRender;
use crate::google::{Api, GoogleError};
use rmcp::model::JsonObject;

use crate::tools::google_mcp::object;
use crate::tools::registry::{Output, parse_args_ref};
use crate::tools::{ToolContext, ToolError};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GetSheetDataArgs {
    /// The spreadsheet's id (from its URL: docs.google.com/spreadsheets/d/ID/edit).
    pub spreadsheet_id: String,
    /// The sheet (tab) name, e.g. Sheet1.
    pub sheet: String,
    /// A1 range within the sheet, e.g. A1:C10, B:B, 2:5 or A2:C; omit for the whole sheet.
    #[serde(default)]
    pub range: Option<String>,
    /// Also return each cell's formula, format, note and link (larger result).
    #[serde(default)]
    pub include_grid_data: bool,
    /// Write the full result as JSON to this file in the export folder instead of returning it.
    #[serde(default)]
    #[allow(dead_code, reason = "the engine writes the result to local_path")]
    pub local_path: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GetSheetFormulasArgs {
    /// The spreadsheet's id.
    pub spreadsheet_id: String,
    /// The sheet (tab) name, e.g. Sheet1.
    pub sheet: String,
    /// A1 range within the sheet, e.g. A1:C10; omit for the whole sheet.
    #[serde(default)]
    pub range: Option<String>,
}

/// What the grid path asks for: only the parts of each cell it returns.
const GRID_FIELDS: &str = "sheets(properties(sheetId,title),data(startRow,startColumn,rowData(values(formattedValue,userEnteredValue,effectiveValue,userEnteredFormat,note,hyperlink))))";

pub(super) async fn get_sheet_data(ctx: ToolContext, args: GetSheetDataArgs) -> Result<Output, ToolError> {
    let range = range_arg(&args.sheet, args.range.as_deref())?;
    if args.include_grid_data {
        return grid_data(&ctx, &args.spreadsheet_id, &args.sheet, range).await.map(Output::Json);
    }
    values(&ctx, &args.spreadsheet_id, &args.sheet, &range, ValueRender::Formatted).await
}

/// `get_sheet_data` on Sheets' MCP server: Google's `get_values` reads the shown values of one range. The grid
/// data (formulas, formats, notes) has no MCP tool: REST.
pub(super) fn get_sheet_data_on_mcp(args: &Value) -> Result<Option<JsonObject>, ToolError> {
    let args: GetSheetDataArgs = parse_args_ref("get_sheet_data", args)?;
    if args.include_grid_data {
        return Ok(None);
    }
    let range = range_arg(&args.sheet, args.range.as_deref())?;
    Ok(Some(object(serde_json::json!({ "spreadsheetId": args.spreadsheet_id, "range": range }))))
}

/// Google's `ValueRange` as `get_sheet_data` has always answered: `{spreadsheet_id, sheet, range, values}`.
pub(super) fn get_sheet_data_from_mcp(args: &Value, answer: Value) -> Result<Output, ToolError> {
    let args: GetSheetDataArgs = parse_args_ref("get_sheet_data", args)?;
    let range = answer.get("range").cloned().unwrap_or_else(|| Value::String(String::new()));
    let values = answer.get("values").cloned().unwrap_or_else(|| Value::Array(Vec::new()));
    Ok(Output::Json(serde_json::json!({
        "spreadsheet_id": args.spreadsheet_id,
        "sheet": sheet_name(&args.sheet),
        "range": range,
        "values": values,
    })))
}

pub(super) async fn get_sheet_formulas(ctx: ToolContext, args: GetSheetFormulasArgs) -> Result<Output, ToolError> {
    let range = range_arg(&args.sheet, args.range.as_deref())?;
    values(&ctx, &args.spreadsheet_id, &args.sheet, &range, ValueRender::Formula).await
}

/// One `values.get`, answered as the text of `{spreadsheet_id, sheet, range, values}`; the engine's
/// response cap applies to that text.
async fn values(
    ctx: &ToolContext,
    spreadsheet_id: &str,
    sheet: &str,
    range: &str,
    render: ValueRender,
) -> Result<Output, ToolError> {
    let answer = ctx.google.sheets().values_get_raw(spreadsheet_id, range, render).await;
    let body = on_sheet(ctx, spreadsheet_id, sheet, answer).await?;
    let text = result_text(spreadsheet_id, &sheet_name(sheet), body)
        .map_err(|e| GoogleError::Decode { api: Api::Sheets.name(), detail: e.to_string() })?;
    Ok(Output::Text(text))
}

/// Room for what the result adds to Google's body: its `"range":""` and `"values":[]` when Google left them
/// out, and the closing brace.
const HEAD_ROOM: usize = 32;

/// The result text of a `values.get` read, written cell by cell from Google's `ValueRange` body into one
/// buffer sized from the body (the result is never larger, bar a reformatted number), so the peak is
/// about the body plus the result. The body is dropped as soon as it is read. The text is exactly what
/// serializing the result as a `Value` gives: `range` before `values`, cells through serde_json's own
/// writer.
fn result_text(spreadsheet_id: &str, sheet: &str, body: Bytes) -> Result<String, serde_json::Error> {
    let mut out = Vec::with_capacity(body.len() + spreadsheet_id.len() + sheet.len() + HEAD_ROOM);
    out.extend_from_slice(b"{\"spreadsheet_id\":");
    serde_json::to_writer(&mut out, spreadsheet_id)?;
    out.extend_from_slice(b",\"sheet\":");
    serde_json::to_writer(&mut out, sheet)?;
    let mut reader = serde_json::Deserializer::from_slice(&body);
    let seen = Members { out: &mut out }.deserialize(&mut reader)?;
    reader.end()?;
    drop(reader);
    drop(body);
    if !seen.range {
        place_range(&mut out, seen.values_at, b",\"range\":\"\"");
    }
    // Proto3 leaves out an empty range's `values`.
    if seen.values_at.is_none() {
        out.extend_from_slice(b",\"values\":[]");
    }
    out.push(b'}');
    // A pretty-printed or padded body leaves spare room; don't hold it for the rest of the call.
    if out.capacity() - out.len() > out.len() / 8 {
        out.shrink_to_fit();
    }
    String::from_utf8(out).map_err(de::Error::custom)
}

/// The `ValueRange` members the result keeps.
#[derive(Deserialize)]
#[serde(field_identifier, rename_all = "camelCase")]
enum Member {
    Range,
    Values,
    #[serde(other)]
    Other,
}

/// Which members the body had, and where `values` starts in the result.
#[derive(Default)]
struct Seen {
    range: bool,
    values_at: Option<usize>,
}

/// Puts the `,"range":…` member before `values` (where the result has always had it), even when Google
/// sends it after; the move shifts bytes within the buffer's spare room.
fn place_range(out: &mut Vec<u8>, values_at: Option<usize>, member: &[u8]) {
    match values_at {
        Some(at) => {
            out.splice(at..at, member.iter().copied());
        }
        None => out.extend_from_slice(member),
    }
}

/// Reads a `ValueRange` object, appending `,"range":…` and `,"values":[…]` to `out` as they come.
struct Members<'a> {
    out: &'a mut Vec<u8>,
}

impl<'de> DeserializeSeed<'de> for Members<'_> {
    type Value = Seen;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Seen, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for Members<'_> {
    type Value = Seen;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a ValueRange object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Seen, A::Error> {
        let mut seen = Seen::default();
        while let Some(member) = map.next_key::<Member>()? {
            match member {
                Member::Range => {
                    if std::mem::replace(&mut seen.range, true) {
                        return Err(de::Error::duplicate_field("range"));
                    }
                    let range: String = map.next_value()?;
                    let mut member = b",\"range\":".to_vec();
                    put(&mut member, &range)?;
                    place_range(self.out, seen.values_at, &member);
                }
                Member::Values => {
                    if seen.values_at.is_some() {
                        return Err(de::Error::duplicate_field("values"));
                    }
                    seen.values_at = Some(self.out.len());
                    self.out.extend_from_slice(b",\"values\":");
                    map.next_value_seed(Item { out: &mut *self.out, comma: false, level: Level::Rows })?;
                }
                Member::Other => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(seen)
    }
}

/// What an [`Item`] must be: `values` is an array of rows, a row an array of cells (as `Vec<Vec<Value>>`).
#[derive(Clone, Copy)]
enum Level {
    Rows,
    Row,
    Cell,
}

/// One JSON item copied to `out`, after a comma unless it is the first of its array.
struct Item<'a> {
    out: &'a mut Vec<u8>,
    comma: bool,
    level: Level,
}

impl<'de> DeserializeSeed<'de> for Item<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        if self.comma {
            self.out.push(b',');
        }
        match self.level {
            Level::Rows | Level::Row => deserializer.deserialize_seq(self),
            Level::Cell => deserializer.deserialize_any(self),
        }
    }
}

/// Appends `value` as serde_json writes it (the same escapes and number forms as a `Value` would get).
fn put<T: serde::Serialize + ?Sized, E: de::Error>(out: &mut Vec<u8>, value: &T) -> Result<(), E> {
    serde_json::to_writer(out, value).map_err(E::custom)
}

impl<'de> Visitor<'de> for Item<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self.level {
            Level::Rows => "an array of rows",
            Level::Row => "a row (an array of cells)",
            Level::Cell => "a cell value",
        })
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<(), E> {
        put(self.out, &v)
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<(), E> {
        put(self.out, &v)
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<(), E> {
        put(self.out, &v)
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<(), E> {
        put(self.out, &v)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<(), E> {
        put(self.out, v)
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        self.out.extend_from_slice(b"null");
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let level = match self.level {
            Level::Rows => Level::Row,
            Level::Row | Level::Cell => Level::Cell,
        };
        self.out.push(b'[');
        let mut comma = false;
        while seq.next_element_seed(Item { out: &mut *self.out, comma, level })?.is_some() {
            comma = true;
        }
        self.out.push(b']');
        Ok(())
    }

    /// Google's cells are scalars; an object is still copied faithfully rather than refused.
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        self.out.push(b'{');
        let mut comma = false;
        while let Some(key) = map.next_key::<String>()? {
            if comma {
                self.out.push(b',');
            }
            put(self.out, &key)?;
            self.out.push(b':');
            map.next_value_seed(Item { out: &mut *self.out, comma: false, level: Level::Cell })?;
            comma = true;
        }
        self.out.push(b'}');
        Ok(())
    }
}

/// `spreadsheets.get` with grid data for the range, answered as rows of cells (Google's `CellData` fields).
async fn grid_data(ctx: &ToolContext, spreadsheet_id: &str, sheet: &str, range: String) -> Result<Value, ToolError> {
    let ranges = [range];
    let answer = ctx.google.sheets().get_grid(spreadsheet_id, &ranges, GRID_FIELDS).await;
    let spreadsheet = on_sheet(ctx, spreadsheet_id, sheet, answer).await?;
    let [range] = ranges;
    // The sheet that carries the range's data (Google may list the other sheets too, without data).
    let mut target = spreadsheet
        .sheets
        .into_iter()
        .find(|s| matches!(&s.data, Some(Value::Array(data)) if !data.is_empty()))
        .unwrap_or_default();
    // One range gives one `GridData`; proto3 leaves out zero offsets and empty rows.
    let mut grid = match target.data.take() {
        Some(Value::Array(mut data)) if !data.is_empty() => data.swap_remove(0),
        _ => Value::Null,
    };
    let offset = |key: &str| grid.get(key).and_then(Value::as_u64).unwrap_or(0);
    let (start_row, start_column) = (offset("startRow"), offset("startColumn"));
    let rows: Vec<Value> = match grid.get_mut("rowData").map(Value::take) {
        Some(Value::Array(rows)) => rows
            .into_iter()
            .map(|mut row| match row.get_mut("values").map(Value::take) {
                Some(cells @ Value::Array(_)) => cells,
                _ => Value::Array(Vec::new()),
            })
            .collect(),
        _ => Vec::new(),
    };
    let mut out = Map::new();
    out.insert("spreadsheet_id".into(), spreadsheet_id.into());
    out.insert("sheet".into(), target.properties.title.into());
    out.insert("sheet_id".into(), target.properties.sheet_id.into());
    out.insert("range".into(), range.into());
    out.insert("start_row".into(), start_row.into());
    out.insert("start_column".into(), start_column.into());
    out.insert("rows".into(), Value::Array(rows));
    Ok(Value::Object(out))
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::json;

    use super::*;
    use crate::google::sheets::ValueRange;

    /// The result as it was built before transcoding: a `Value` tree, serialized.
    fn via_tree(id: &str, sheet: &str, body: &[u8]) -> String {
        let ValueRange { range, values } = serde_json::from_slice::<ValueRange<Value>>(body).unwrap();
        let mut out = Map::new();
        out.insert("spreadsheet_id".into(), id.into());
        out.insert("sheet".into(), sheet.into());
        out.insert("range".into(), range.into());
        out.insert("values".into(), Value::Array(values.into_iter().map(Value::Array).collect()));
        Value::Object(out).to_string()
    }

    fn transcode(body: &str) -> Result<String, serde_json::Error> {
        result_text("1Ab\"c", "Q1 \\ plan", Bytes::copy_from_slice(body.as_bytes()))
    }

    #[test]
    fn transcoding_matches_the_tree_byte_for_byte() {
        let bodies = [
            r#"{"range":"Data!A1:D2","majorDimension":"ROWS","values":[["a\u0041\"\\\n\u0001é😀","",1,-2],[1.5,1e3,true,null],[]]}"#,
            "{\n  \"range\": \"'My Sheet'!A1:B1\",\n  \"values\": [\n    [\n      \"x\",\n      18446744073709551615\n    ]\n  ]\n}\n",
            r#"{"range":"Data!H10:J20","majorDimension":"ROWS"}"#,
            r#"{"majorDimension":"ROWS","values":[["late"]],"range":"Data!A1"}"#,
            r#"{"range":"S!A1","values":[[{"b":1,"a":[2,{}]},[]]]}"#,
            r#"{"values":[["no range"]]}"#,
            "{}",
        ];
        for body in bodies {
            assert_eq!(transcode(body).unwrap(), via_tree("1Ab\"c", "Q1 \\ plan", body.as_bytes()), "{body}");
        }
    }

    #[test]
    fn a_malformed_body_is_an_error_not_a_partial_result() {
        for body in [
            "",
            "null",
            r#"{"range":"A1","values":[["a"]"#,
            r#"{"range":"A1","values":["a"]}"#,
            r#"{"range":1}"#,
            r#"{"range":"A1","range":"B2"}"#,
            r#"{"values":[]} trailing"#,
        ] {
            assert!(transcode(body).is_err(), "{body}");
        }
    }

    fn cell() -> impl Strategy<Value = Value> {
        prop_oneof![
            any::<String>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            any::<f64>().prop_map(Value::from),
            any::<bool>().prop_map(Value::from),
            Just(Value::Null),
        ]
    }

    proptest! {
        #[test]
        fn any_values_transcode_as_the_tree_serializes(
            rows in prop::collection::vec(prop::collection::vec(cell(), 0..6), 0..6),
            range in any::<String>(),
            pretty in any::<bool>(),
        ) {
            let body = json!({ "range": range, "majorDimension": "ROWS", "values": rows });
            let body = if pretty { serde_json::to_string_pretty(&body).unwrap() } else { body.to_string() };
            prop_assert_eq!(transcode(&body).unwrap(), via_tree("1Ab\"c", "Q1 \\ plan", body.as_bytes()));
        }
    }
}
