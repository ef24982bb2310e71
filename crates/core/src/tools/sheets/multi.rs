//! Reads across many ranges and spreadsheets with the fewest Google calls: `get_multiple_sheet_data` and
//! `get_multiple_spreadsheet_summary`.
//!
//! Queries are grouped by spreadsheet into `values.batchGet` requests, each carrying as many `ranges` as fit
//! in [`MAX_URL_CHARS`], so 200 ranges of one spreadsheet cost one or two requests, not 200.

use std::collections::HashMap;

use futures::StreamExt;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::{find_sheet, is_grid, no_such_sheet, range_arg, rows_value, sheet_name, sheets_of, spreadsheet_json};
use crate::a1::A1Range;
use crate::google::sheets::{Sheets, ValueRange, ValueRender};
use crate::google::{Api, ErrorKind, GoogleError};
use crate::tools::{ToolContext, ToolError};

/// The longest request URL we send. Google accepts more, but proxies commonly cut URLs at 8 KiB.
const MAX_URL_CHARS: usize = 8_000;

/// Spreadsheets read at the same time.
const CONCURRENCY: usize = 4;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SheetQuery {
    /// The spreadsheet's id.
    pub spreadsheet_id: String,
    /// The sheet (tab) name.
    pub sheet: String,
    /// A1 range within the sheet, e.g. A1:C10; omit for the whole sheet.
    #[serde(default)]
    pub range: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GetMultipleSheetDataArgs {
    /// The ranges to read: [{spreadsheet_id, sheet, range?}, …].
    pub queries: Vec<SheetQuery>,
    /// Write the full result as JSON to this file in the export folder instead of returning it.
    #[serde(default)]
    #[allow(dead_code, reason = "the engine writes the result to local_path")]
    pub local_path: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GetMultipleSpreadsheetSummaryArgs {
    /// The spreadsheets' ids.
    pub spreadsheet_ids: Vec<String>,
    /// How many rows to show from the top of each sheet.
    #[serde(default = "default_rows_to_fetch")]
    pub rows_to_fetch: u32,
    /// Write the full result as JSON to this file in the export folder instead of returning it.
    #[serde(default)]
    #[allow(dead_code, reason = "the engine writes the result to local_path")]
    pub local_path: Option<String>,
}

fn default_rows_to_fetch() -> u32 {
    5
}

/// Each range's values, or why it couldn't be read, in the order asked.
type Fetched = Vec<Result<ValueRange<Value>, String>>;

pub(super) async fn get_multiple_sheet_data(
    ctx: ToolContext,
    args: GetMultipleSheetDataArgs,
) -> Result<Value, ToolError> {
    if args.queries.is_empty() {
        return Err(ToolError::invalid(
            "queries is empty: give at least one {\"spreadsheet_id\", \"sheet\", \"range\"} object.",
        ));
    }
    // Group by spreadsheet (first-seen order), asking each distinct range once. Per query: where its answer
    // will be (group, range index), or why it can't be asked at all.
    let mut groups: Vec<(String, Vec<String>)> = Vec::new();
    let mut group_of: HashMap<String, usize> = HashMap::new();
    let mut index_of: HashMap<(usize, String), usize> = HashMap::new();
    let mut keys: Vec<Result<(usize, usize), String>> = Vec::with_capacity(args.queries.len());
    for query in &args.queries {
        let range = match range_arg(&query.sheet, query.range.as_deref()) {
            Ok(range) => range,
            Err(error) => {
                keys.push(Err(error.to_string()));
                continue;
            }
        };
        let group = *group_of.entry(query.spreadsheet_id.clone()).or_insert_with(|| {
            groups.push((query.spreadsheet_id.clone(), Vec::new()));
            groups.len() - 1
        });
        let index = *index_of.entry((group, range)).or_insert_with_key(|(_, range)| {
            let wanted = &mut groups[group].1;
            wanted.push(range.clone());
            wanted.len() - 1
        });
        keys.push(Ok((group, index)));
    }
    let ctx = &ctx;
    let pending: Vec<_> = groups.iter().map(|(id, wanted)| fetch(ctx, id, wanted)).collect();
    let mut fetched: Vec<Fetched> = futures::stream::iter(pending).buffered(CONCURRENCY).collect().await;
    // Count each answer's uses so its last use moves the values instead of copying them.
    let mut uses: HashMap<(usize, usize), usize> = HashMap::new();
    for key in keys.iter().flatten() {
        *uses.entry(*key).or_default() += 1;
    }
    let mut results = Vec::with_capacity(args.queries.len());
    for (query, key) in args.queries.into_iter().zip(keys) {
        let asked = key.as_ref().ok().map(|&(g, i)| groups[g].1[i].clone());
        let answer = key.and_then(|key| {
            let left = uses.entry(key).or_default();
            *left = left.saturating_sub(1);
            match &mut fetched[key.0][key.1] {
                Ok(got) if *left == 0 => {
                    Ok(std::mem::replace(got, ValueRange { range: String::new(), values: Vec::new() }))
                }
                Ok(got) => Ok(got.clone()),
                Err(reason) => Err(reason.clone()),
            }
        });
        let mut out = Map::new();
        out.insert("spreadsheet_id".into(), query.spreadsheet_id.into());
        out.insert("sheet".into(), sheet_name(&query.sheet).into());
        match answer {
            Ok(got) => {
                out.insert("range".into(), got.range.into());
                out.insert("values".into(), rows_value(got.values));
            }
            Err(reason) => {
                if let Some(range) = asked.or(query.range) {
                    out.insert("range".into(), range.into());
                }
                out.insert("error".into(), reason.into());
            }
        }
        results.push(Value::Object(out));
    }
    Ok(json!({ "results": results }))
}

/// Reads `ranges` of one spreadsheet in as few `values.batchGet` requests as fit the URL limit.
///
/// Google refuses a whole batch when one range names a missing sheet, so on a refused batch the sheets are
/// listed, the ranges on missing sheets get their own error, and the rest are asked again (once).
pub(super) async fn fetch(ctx: &ToolContext, spreadsheet_id: &str, ranges: &[String]) -> Fetched {
    let mut out: Fetched = Vec::with_capacity(ranges.len());
    let mut fatal: Option<String> = None;
    for chunk in chunks(ctx, spreadsheet_id, ranges) {
        if let Some(reason) = &fatal {
            out.extend(chunk.iter().map(|_| Err(reason.clone())));
            continue;
        }
        match batch_get(ctx, spreadsheet_id, &chunk).await {
            Ok(got) => out.extend(got.into_iter().map(Ok)),
            Err(error) if error.kind() == Some(ErrorKind::InvalidArgument) => {
                out.extend(retry_without_missing(ctx, spreadsheet_id, &chunk, error).await)
            }
            Err(error) => {
                // The spreadsheet itself is missing or unreadable: every later chunk would fail the same way.
                let reason = error.to_string();
                out.extend(chunk.iter().map(|_| Err(reason.clone())));
                fatal = Some(reason);
            }
        }
    }
    out
}

async fn retry_without_missing(ctx: &ToolContext, spreadsheet_id: &str, chunk: &[&str], error: GoogleError) -> Fetched {
    let reason = error.to_string();
    let Ok(sheets) = sheets_of(ctx, spreadsheet_id).await else {
        return chunk.iter().map(|_| Err(reason.clone())).collect();
    };
    let missing: Vec<Option<String>> = chunk
        .iter()
        .map(|range| {
            let title = A1Range::parse(range).ok().and_then(|r| r.sheet).unwrap_or_default();
            find_sheet(&sheets, &title).is_none().then(|| no_such_sheet(&sheets, &title).to_string())
        })
        .collect();
    let present: Vec<&str> = chunk.iter().zip(&missing).filter(|(_, m)| m.is_none()).map(|(r, _)| *r).collect();
    // Ask again without the ranges on missing sheets. When none was missing, the batch failed for another
    // reason, which every range in it shares.
    let answers: Fetched = if present.is_empty() || present.len() == chunk.len() {
        present.iter().map(|_| Err(reason.clone())).collect()
    } else {
        match batch_get(ctx, spreadsheet_id, &present).await {
            Ok(got) => got.into_iter().map(Ok).collect(),
            Err(error) => {
                let reason = error.to_string();
                present.iter().map(|_| Err(reason.clone())).collect()
            }
        }
    };
    let mut again = answers.into_iter();
    missing
        .into_iter()
        .map(|m| match m {
            Some(reason) => Err(reason),
            None => again.next().unwrap_or_else(|| Err(reason.clone())),
        })
        .collect()
}

/// One `values.batchGet`, checked to answer one range per range asked.
async fn batch_get(
    ctx: &ToolContext,
    spreadsheet_id: &str,
    ranges: &[&str],
) -> Result<Vec<ValueRange<Value>>, GoogleError> {
    let got = ctx.google.sheets().values_batch_get::<Value>(spreadsheet_id, ranges, ValueRender::Formatted).await?;
    if got.value_ranges.len() != ranges.len() {
        return Err(GoogleError::Decode {
            api: Api::Sheets.name(),
            detail: format!("{} value ranges for {} ranges asked", got.value_ranges.len(), ranges.len()),
        });
    }
    Ok(got.value_ranges)
}

/// Splits `ranges` into batches whose `values.batchGet` URL stays within [`MAX_URL_CHARS`].
fn chunks<'a>(ctx: &ToolContext, spreadsheet_id: &str, ranges: &'a [String]) -> Vec<Vec<&'a str>> {
    let base = ctx.google.endpoints().url(Api::Sheets, &Sheets::batch_get_path(spreadsheet_id)).len()
        + "?valueRenderOption=FORMATTED_VALUE".len();
    split_by_length(base, ranges)
}

fn split_by_length(base: usize, ranges: &[String]) -> Vec<Vec<&str>> {
    let mut out: Vec<Vec<&str>> = Vec::new();
    let mut length = base;
    for range in ranges {
        let cost = "&ranges=".len() + encoded_len(range);
        match out.last_mut() {
            Some(current) if !current.is_empty() && length + cost <= MAX_URL_CHARS => current.push(range),
            _ => {
                out.push(vec![range]);
                length = base;
            }
        }
        length += cost;
    }
    out
}

/// The length of `text` form-urlencoded as a query value (as reqwest sends it).
fn encoded_len(text: &str) -> usize {
    text.bytes().map(|b| if b.is_ascii_alphanumeric() || b"*-._ ".contains(&b) { 1 } else { 3 }).sum()
}

pub(super) async fn get_multiple_spreadsheet_summary(
    ctx: ToolContext,
    args: GetMultipleSpreadsheetSummaryArgs,
) -> Result<Value, ToolError> {
    if args.spreadsheet_ids.is_empty() {
        return Err(ToolError::invalid("spreadsheet_ids is empty: give at least one spreadsheet id."));
    }
    let ctx = &ctx;
    let rows = args.rows_to_fetch;
    let pending: Vec<_> = args
        .spreadsheet_ids
        .iter()
        .map(|id| async move {
            summary(ctx, id, rows).await.unwrap_or_else(|e| json!({ "spreadsheet_id": id, "error": e.to_string() }))
        })
        .collect();
    let spreadsheets: Vec<Value> = futures::stream::iter(pending).buffered(CONCURRENCY).collect().await;
    Ok(json!({ "spreadsheets": spreadsheets }))
}

/// A spreadsheet's title, its sheets and their first `rows`: one `get`, then one `batchGet` for all sheets.
async fn summary(ctx: &ToolContext, spreadsheet_id: &str, rows: u32) -> Result<Value, ToolError> {
    let fields = "spreadsheetId,spreadsheetUrl,properties.title,sheets.properties(sheetId,title,index,sheetType,gridProperties(rowCount,columnCount))";
    let mut spreadsheet = ctx.google.sheets().get(spreadsheet_id, fields).await?;
    let grid: Vec<usize> =
        (0..spreadsheet.sheets.len()).filter(|&i| is_grid(&spreadsheet.sheets[i].properties)).collect();
    let ranges: Vec<String> = grid
        .iter()
        .map(|&i| {
            A1Range {
                sheet: Some(spreadsheet.sheets[i].properties.title.clone()),
                start_row: Some(0),
                end_row: Some(rows),
                ..A1Range::default()
            }
            .to_a1()
        })
        .collect();
    let mut first_rows: Vec<Result<ValueRange<Value>, String>> =
        if rows == 0 { Vec::new() } else { fetch(ctx, spreadsheet_id, &ranges).await };
    let mut by_sheet: HashMap<usize, Result<ValueRange<Value>, String>> =
        grid.into_iter().zip(first_rows.drain(..)).collect();
    let sheets: Vec<Value> = std::mem::take(&mut spreadsheet.sheets)
        .into_iter()
        .enumerate()
        .map(|(i, sheet)| {
            let p = sheet.properties;
            let mut out = Map::new();
            out.insert("title".into(), p.title.into());
            out.insert("sheet_id".into(), p.sheet_id.into());
            out.insert("row_count".into(), p.grid_properties.row_count.into());
            out.insert("column_count".into(), p.grid_properties.column_count.into());
            match by_sheet.remove(&i) {
                Some(Ok(got)) => {
                    out.insert("first_rows".into(), rows_value(got.values));
                }
                Some(Err(reason)) => {
                    out.insert("error".into(), reason.into());
                }
                None => {}
            }
            Value::Object(out)
        })
        .collect();
    Ok(spreadsheet_json(&spreadsheet, sheets))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_are_split_to_keep_urls_short() {
        let ranges: Vec<String> = (0..500).map(|i| format!("'Sheet One'!A{i}:Z{}", i + 10)).collect();
        let chunks = split_by_length(100, &ranges);
        assert!(chunks.len() > 1 && chunks.len() <= 4, "{}", chunks.len());
        for chunk in &chunks {
            let length: usize = 100 + chunk.iter().map(|r| 8 + encoded_len(r)).sum::<usize>();
            assert!(length <= MAX_URL_CHARS);
        }
        assert_eq!(chunks.concat(), ranges.iter().map(String::as_str).collect::<Vec<_>>());
    }

    #[test]
    fn encoding_counts_escapes() {
        assert_eq!(encoded_len("A1"), 2);
        assert_eq!(encoded_len("'a b'!A1"), 14);
    }
}
