//! Data validation: `add_data_validation`, `get_data_validation` and `clear_data_validation`.
//!
//! Every `ConditionType` of Sheets v4 is known here ([`CONDITIONS`]) with what its values must be, so a
//! wrong count or shape is refused in plain words before Google is asked. Google's data validation takes
//! only some of them (sheets.v4.json says which); the others (`TEXT_STARTS_WITH`, `BLANK`, …) exist for
//! conditional formatting and filters, and are refused with the `CUSTOM_FORMULA` that does the same job.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::target::{GridTarget, grid_target, send};
use super::{on_sheet, range_arg, sheet_name};
use crate::a1::A1Range;
use crate::tools::{ToolContext, ToolError};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AddDataValidationArgs {
    /// The spreadsheet's id.
    pub spreadsheet_id: String,
    /// The sheet (tab) name.
    pub sheet: String,
    /// A1 range the rule applies to, e.g. B2:B100.
    pub range: String,
    /// Sheets ConditionType, e.g. ONE_OF_LIST, NUMBER_BETWEEN, DATE_AFTER, TEXT_IS_EMAIL, BOOLEAN, CUSTOM_FORMULA.
    pub condition_type: String,
    /// The condition's values: one for NUMBER_GREATER, two for NUMBER_BETWEEN, the items for ONE_OF_LIST, none for TEXT_IS_EMAIL…
    #[serde(default)]
    pub values: Option<Vec<String>>,
    /// A hint shown when a cell of the range is selected.
    #[serde(default)]
    pub input_message: Option<String>,
    /// Reject invalid input (false only warns).
    #[serde(default = "crate::tools::schema::default_true")]
    pub strict: bool,
    /// Show a dropdown for lists and a checkbox for BOOLEAN.
    #[serde(default = "crate::tools::schema::default_true")]
    pub show_custom_ui: bool,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DataValidationRangeArgs {
    /// The spreadsheet's id.
    pub spreadsheet_id: String,
    /// The sheet (tab) name.
    pub sheet: String,
    /// A1 range, e.g. B2:B100.
    pub range: String,
}

/// How many values a condition takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Count {
    None,
    One,
    Two,
    AtLeastOne,
    UpToTwo,
}

/// What each value must be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// A number (or a formula giving one).
    Number,
    /// Any text.
    Text,
    /// A date like 2025-01-31 (or a formula giving one).
    Date,
    /// An A1 range holding the allowed values.
    Range,
    /// A formula starting with `=`.
    Formula,
    /// A list item: text that is not a formula.
    Item,
}

/// One `ConditionType`: its count and shape of values, and whether data validation supports it.
#[derive(Debug, Clone, Copy)]
struct Condition {
    name: &'static str,
    count: Count,
    shape: Shape,
    validation: bool,
}

const fn c(name: &'static str, count: Count, shape: Shape, validation: bool) -> Condition {
    Condition { name, count, shape, validation }
}

/// Every `BooleanCondition.type` of sheets.v4.json except `CONDITION_TYPE_UNSPECIFIED`, in its order.
const CONDITIONS: &[Condition] = &[
    c("NUMBER_GREATER", Count::One, Shape::Number, true),
    c("NUMBER_GREATER_THAN_EQ", Count::One, Shape::Number, true),
    c("NUMBER_LESS", Count::One, Shape::Number, true),
    c("NUMBER_LESS_THAN_EQ", Count::One, Shape::Number, true),
    c("NUMBER_EQ", Count::One, Shape::Number, true),
    c("NUMBER_NOT_EQ", Count::One, Shape::Number, true),
    c("NUMBER_BETWEEN", Count::Two, Shape::Number, true),
    c("NUMBER_NOT_BETWEEN", Count::Two, Shape::Number, true),
    c("TEXT_CONTAINS", Count::One, Shape::Text, true),
    c("TEXT_NOT_CONTAINS", Count::One, Shape::Text, true),
    c("TEXT_STARTS_WITH", Count::One, Shape::Text, false),
    c("TEXT_ENDS_WITH", Count::One, Shape::Text, false),
    c("TEXT_EQ", Count::One, Shape::Text, true),
    c("TEXT_IS_EMAIL", Count::None, Shape::Text, true),
    c("TEXT_IS_URL", Count::None, Shape::Text, true),
    c("DATE_EQ", Count::One, Shape::Date, true),
    c("DATE_BEFORE", Count::One, Shape::Date, true),
    c("DATE_AFTER", Count::One, Shape::Date, true),
    c("DATE_ON_OR_BEFORE", Count::One, Shape::Date, true),
    c("DATE_ON_OR_AFTER", Count::One, Shape::Date, true),
    c("DATE_BETWEEN", Count::Two, Shape::Date, true),
    c("DATE_NOT_BETWEEN", Count::Two, Shape::Date, true),
    c("DATE_IS_VALID", Count::None, Shape::Date, true),
    c("ONE_OF_RANGE", Count::One, Shape::Range, true),
    c("ONE_OF_LIST", Count::AtLeastOne, Shape::Item, true),
    c("BLANK", Count::None, Shape::Text, false),
    c("NOT_BLANK", Count::None, Shape::Text, false),
    c("CUSTOM_FORMULA", Count::One, Shape::Formula, true),
    c("BOOLEAN", Count::UpToTwo, Shape::Text, true),
    c("TEXT_NOT_EQ", Count::AtLeastOne, Shape::Text, false),
    c("DATE_NOT_EQ", Count::AtLeastOne, Shape::Date, false),
    c("FILTER_EXPRESSION", Count::One, Shape::Formula, false),
];

pub(super) async fn add_data_validation(ctx: ToolContext, args: AddDataValidationArgs) -> Result<Value, ToolError> {
    let condition = condition(&args.condition_type)?;
    let values = args.values.unwrap_or_default();
    let target = grid_target(&ctx, &args.spreadsheet_id, &args.sheet, &args.range).await?;
    if !condition.validation {
        return Err(ToolError::invalid(unsupported(condition, &values, &target)));
    }
    let values = check_values(condition, values)?;
    let mut rule = json!({
        "condition": { "type": condition.name },
        "strict": args.strict,
        "showCustomUi": args.show_custom_ui,
    });
    if !values.is_empty() {
        let items: Vec<Value> = values.iter().map(|v| json!({ "userEnteredValue": v })).collect();
        rule["condition"]["values"] = Value::Array(items);
    }
    if let Some(message) = args.input_message.as_deref().filter(|m| !m.trim().is_empty()) {
        rule["inputMessage"] = json!(message);
    }
    let request = json!({ "setDataValidation": { "range": target.grid_range(), "rule": rule } });
    send(&ctx, &args.spreadsheet_id, &[request]).await?;
    Ok(json!({
        "spreadsheet_id": args.spreadsheet_id,
        "sheet": target.sheet.title,
        "range": target.a1(),
        "rule": flat_rule(&rule),
    }))
}

pub(super) async fn clear_data_validation(ctx: ToolContext, args: DataValidationRangeArgs) -> Result<Value, ToolError> {
    let target = grid_target(&ctx, &args.spreadsheet_id, &args.sheet, &args.range).await?;
    // A setDataValidation without a rule clears the range.
    let request = json!({ "setDataValidation": { "range": target.grid_range() } });
    send(&ctx, &args.spreadsheet_id, &[request]).await?;
    Ok(json!({ "spreadsheet_id": args.spreadsheet_id, "sheet": target.sheet.title, "cleared_range": target.a1() }))
}

/// Only the rules, per cell, of the one range.
const VALIDATION_FIELDS: &str = "sheets(properties(title),data(startRow,startColumn,rowData(values(dataValidation))))";

pub(super) async fn get_data_validation(ctx: ToolContext, args: DataValidationRangeArgs) -> Result<Value, ToolError> {
    if args.range.trim().is_empty() {
        return Err(ToolError::invalid("range is empty: give the cells in A1 notation, like B2:B100."));
    }
    let range = range_arg(&args.sheet, Some(&args.range))?;
    let answer =
        ctx.google.sheets().get_grid(&args.spreadsheet_id, std::slice::from_ref(&range), VALIDATION_FIELDS).await;
    let spreadsheet = on_sheet(&ctx, &args.spreadsheet_id, &args.sheet, answer).await?;
    let sheet = spreadsheet.sheets.into_iter().next().unwrap_or_default();
    let title = if sheet.properties.title.is_empty() { sheet_name(&args.sheet) } else { sheet.properties.title };
    let mut cells: Vec<(u32, u32, Value)> = Vec::new();
    for block in sheet.data.as_ref().and_then(Value::as_array).into_iter().flatten() {
        let start_row = index(block.get("startRow"));
        let start_col = index(block.get("startColumn"));
        for (r, row) in block.get("rowData").and_then(Value::as_array).into_iter().flatten().enumerate() {
            for (c, cell) in row.get("values").and_then(Value::as_array).into_iter().flatten().enumerate() {
                if let Some(rule) = cell.get("dataValidation").filter(|r| r.is_object()) {
                    cells.push((start_row + r as u32, start_col + c as u32, rule.clone()));
                }
            }
        }
    }
    let count = cells.len();
    let rules: Vec<Value> = group(cells)
        .into_iter()
        .map(|(rule, ranges)| {
            let mut out = flat_rule(&rule);
            out["ranges"] = json!(ranges);
            out
        })
        .collect();
    Ok(json!({
        "spreadsheet_id": args.spreadsheet_id,
        "sheet": title,
        "range": range,
        "cells_with_validation": count,
        "rules": rules,
    }))
}

fn index(value: Option<&Value>) -> u32 {
    value.and_then(Value::as_u64).and_then(|n| u32::try_from(n).ok()).unwrap_or(0)
}

/// Cells grouped by identical rule (in order of first appearance), each group as A1 rectangles: runs
/// of adjacent cells in a row, stacked while the next row has the same run.
fn group(cells: Vec<(u32, u32, Value)>) -> Vec<(Value, Vec<String>)> {
    let mut order: Vec<(String, Value)> = Vec::new();
    let mut by_rule: BTreeMap<String, Vec<(u32, u32)>> = BTreeMap::new();
    for (row, col, rule) in cells {
        let key = rule.to_string();
        if !by_rule.contains_key(&key) {
            order.push((key.clone(), rule));
        }
        by_rule.entry(key).or_default().push((row, col));
    }
    order
        .into_iter()
        .map(|(key, rule)| {
            let mut positions = by_rule.remove(&key).unwrap_or_default();
            positions.sort_unstable();
            (rule, rectangles(&positions))
        })
        .collect()
}

/// Sorted (row, col) cells as A1 rectangles.
fn rectangles(cells: &[(u32, u32)]) -> Vec<String> {
    // Runs per row: (row, first col, col after the last).
    let mut runs: Vec<(u32, u32, u32)> = Vec::new();
    for &(row, col) in cells {
        match runs.last_mut() {
            Some((r, _, end)) if *r == row && *end == col => *end += 1,
            _ => runs.push((row, col, col + 1)),
        }
    }
    // Rectangles: (first row, row after the last, first col, col after the last).
    let mut rects: Vec<(u32, u32, u32, u32)> = Vec::new();
    for (row, c0, c1) in runs {
        match rects.iter_mut().find(|(_, r1, a, b)| *r1 == row && *a == c0 && *b == c1) {
            Some(rect) => rect.1 += 1,
            None => rects.push((row, row + 1, c0, c1)),
        }
    }
    rects
        .into_iter()
        .map(|(r0, r1, c0, c1)| {
            A1Range { sheet: None, start_row: Some(r0), end_row: Some(r1), start_col: Some(c0), end_col: Some(c1) }
                .to_a1()
        })
        .collect()
}

/// A `DataValidationRule` in the tools' words (the same names `add_data_validation` takes).
fn flat_rule(rule: &Value) -> Value {
    let values: Vec<Value> = rule["condition"]["values"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|v| v.get("userEnteredValue").or_else(|| v.get("relativeDate")).cloned().unwrap_or(Value::Null))
        .collect();
    let mut out = Map::new();
    out.insert("condition_type".into(), rule["condition"]["type"].clone());
    out.insert("values".into(), Value::Array(values));
    out.insert("input_message".into(), rule.get("inputMessage").cloned().unwrap_or(Value::Null));
    // Proto3 leaves false out.
    out.insert("strict".into(), json!(rule.get("strict").and_then(Value::as_bool).unwrap_or(false)));
    out.insert("show_custom_ui".into(), json!(rule.get("showCustomUi").and_then(Value::as_bool).unwrap_or(false)));
    Value::Object(out)
}

fn condition(name: &str) -> Result<Condition, ToolError> {
    let wanted = name.trim().to_uppercase();
    CONDITIONS.iter().copied().find(|c| c.name == wanted).ok_or_else(|| {
        let names: Vec<&str> = CONDITIONS.iter().filter(|c| c.validation).map(|c| c.name).collect();
        ToolError::invalid(format!(
            "condition_type {name:?} is not a Sheets condition type data validation takes. Use one of: {}.",
            names.join(", ")
        ))
    })
}

/// The refusal of a condition type Google keeps for conditional formatting and filters, with the
/// `CUSTOM_FORMULA` that checks the same thing where there is one.
fn unsupported(condition: Condition, values: &[String], target: &GridTarget) -> String {
    let (row, _, col, _) = target.bounds();
    let cell = A1Range {
        sheet: None,
        start_row: Some(row),
        end_row: Some(row + 1),
        start_col: Some(col),
        end_col: Some(col + 1),
    }
    .to_a1();
    let text = |v: &str| format!("\"{}\"", v.replace('"', "\"\""));
    let first = values.first().map(String::as_str).unwrap_or("abc");
    let formula = match condition.name {
        "TEXT_STARTS_WITH" => Some(format!("=LEFT({cell},LEN({0}))={0}", text(first))),
        "TEXT_ENDS_WITH" => Some(format!("=RIGHT({cell},LEN({0}))={0}", text(first))),
        "BLANK" => Some(format!("=ISBLANK({cell})")),
        "NOT_BLANK" => Some(format!("=NOT(ISBLANK({cell}))")),
        "TEXT_NOT_EQ" => Some(format!("={cell}<>{}", text(first))),
        _ => None,
    };
    let instead = match formula {
        Some(formula) => format!(
            "Use condition_type CUSTOM_FORMULA with values [{:?}] instead (the formula is written for the range's first cell, {cell}, and follows each cell).",
            formula
        ),
        None => "Use CUSTOM_FORMULA with a formula that checks the same thing.".to_owned(),
    };
    format!(
        "Google Sheets data validation does not support {}: it is a condition for conditional formatting and filters only. {instead} Nothing was changed.",
        condition.name
    )
}

/// Checks the count and shape of the values; answers them as sent (trimmed, ranges with their `=`).
fn check_values(condition: Condition, values: Vec<String>) -> Result<Vec<String>, ToolError> {
    let name = condition.name;
    let n = values.len();
    let wanted = match condition.count {
        Count::None if n != 0 => Some("no values (omit values)"),
        Count::One if n != 1 => Some("exactly one value"),
        Count::Two if n != 2 => Some("exactly two values (the low and the high end)"),
        Count::AtLeastOne if n == 0 => Some("at least one value"),
        Count::UpToTwo if n > 2 => Some("zero, one or two values (the checked value, then the unchecked one)"),
        _ => None,
    };
    if let Some(wanted) = wanted {
        return Err(ToolError::invalid(format!("{name} takes {wanted}, but {n} were given.")));
    }
    let mut out = Vec::with_capacity(n);
    for (i, value) in values.into_iter().enumerate() {
        let trimmed = value.trim();
        if trimmed.is_empty() {
            return Err(ToolError::invalid(format!("values[{i}] is empty: {name} needs a value there.")));
        }
        let formula = trimmed.starts_with('=');
        let fine = match condition.shape {
            Shape::Number => formula || is_number(trimmed),
            Shape::Date => formula || is_date(trimmed),
            Shape::Text => true,
            Shape::Formula => formula,
            Shape::Item => !formula,
            Shape::Range => {
                let range = trimmed.trim_start_matches('=');
                return range_value(range).map(|r| vec![r]);
            }
        };
        if !fine {
            let expected = match condition.shape {
                Shape::Number => "a number like 10 or 2.5 (or a formula starting with =)",
                Shape::Date => "a date like 2025-01-31 or 1/31/2025 (or a formula starting with =, like =TODAY())",
                Shape::Formula => "a formula starting with =, like =LEN(A2)<=20",
                _ => {
                    "list items as plain text; formulas are not allowed in a list (use ONE_OF_RANGE to list a range's values)"
                }
            };
            return Err(ToolError::invalid(format!("values[{i}] {value:?} does not fit {name}: give {expected}.")));
        }
        out.push(trimmed.to_owned());
    }
    Ok(out)
}

/// A `ONE_OF_RANGE` value: the A1 range of the allowed values, sent as `=Sheet!A1:A9`.
fn range_value(range: &str) -> Result<String, ToolError> {
    let parsed = A1Range::parse(range).map_err(|error| {
        ToolError::invalid(format!(
            "ONE_OF_RANGE takes the A1 range holding the allowed values, like Lists!A1:A20, but {range:?} could not be read: {error}."
        ))
    })?;
    Ok(format!("={}", parsed.to_a1()))
}

fn is_number(text: &str) -> bool {
    let text = text.strip_suffix('%').unwrap_or(text).trim();
    text.parse::<f64>().is_ok_and(f64::is_finite)
}

fn is_date(text: &str) -> bool {
    ["%Y-%m-%d", "%Y/%m/%d", "%m/%d/%Y"].iter().any(|format| chrono::NaiveDate::parse_from_str(text, format).is_ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_the_discovery_enum() {
        let document: Value =
            serde_json::from_str(include_str!("../../../../google-fake/discovery/sheets.v4.json")).unwrap();
        let names: Vec<&str> = document["schemas"]["BooleanCondition"]["properties"]["type"]["enum"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(Value::as_str)
            .filter(|n| *n != "CONDITION_TYPE_UNSPECIFIED")
            .collect();
        let ours: Vec<&str> = CONDITIONS.iter().map(|c| c.name).collect();
        assert_eq!(ours, names);
    }

    #[test]
    fn values_are_checked_per_type() {
        let between = condition("number_between").unwrap();
        assert_eq!(check_values(between, vec!["1".into(), " 9.5 ".into()]).unwrap(), ["1", "9.5"]);
        let text = check_values(between, vec!["1".into()]).unwrap_err().to_string();
        assert!(text.contains("exactly two values") && text.contains("1 were given"), "{text}");
        let text = check_values(between, vec!["1".into(), "ten".into()]).unwrap_err().to_string();
        assert!(text.contains("\"ten\"") && text.contains("a number"), "{text}");
        let date = condition("DATE_AFTER").unwrap();
        assert!(check_values(date, vec!["2025-01-31".into()]).is_ok());
        assert!(check_values(date, vec!["=TODAY()".into()]).is_ok());
        assert!(check_values(date, vec!["soon".into()]).is_err());
        let list = condition("ONE_OF_LIST").unwrap();
        assert!(check_values(list, vec![]).is_err());
        assert!(check_values(list, vec!["=A1".into()]).is_err());
        let range = condition("ONE_OF_RANGE").unwrap();
        assert_eq!(check_values(range, vec!["Lists!A1:A9".into()]).unwrap(), ["=Lists!A1:A9"]);
        assert_eq!(check_values(range, vec!["='My List'!A:A".into()]).unwrap(), ["='My List'!A:A"]);
        let formula = condition("CUSTOM_FORMULA").unwrap();
        assert!(check_values(formula, vec!["LEN(A1)<5".into()]).is_err());
        assert!(check_values(condition("BOOLEAN").unwrap(), vec!["a".into(), "b".into(), "c".into()]).is_err());
        assert!(check_values(condition("TEXT_IS_EMAIL").unwrap(), vec!["x".into()]).is_err());
        assert!(condition("CONDITION_TYPE_UNSPECIFIED").is_err());
        assert!(condition("NUMBER_BIGGER").unwrap_err().to_string().contains("ONE_OF_LIST"));
    }

    #[test]
    fn cells_group_into_rectangles() {
        let cells = [(1, 1), (1, 2), (2, 1), (2, 2), (3, 1), (5, 4)];
        assert_eq!(rectangles(&cells), ["B2:C3", "B4", "E6"]);
    }
}
