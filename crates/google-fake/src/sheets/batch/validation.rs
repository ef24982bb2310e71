//! `setDataValidation`: the rule is checked the way Google checks it before it lands on every cell of the
//! range. Each `ConditionType` says in sheets.v4.json whether data validation supports it and how many
//! `ConditionValue`s it takes; relative dates are for conditional formatting and filters only. A rule
//! that passes is stored per cell by [`super::cells::set_data_validation`] (no rule clears the range).

use serde_json::{Map, Value};

use super::chart::proto3;
use super::{Outcome, cells};
use crate::sheets::model::Spreadsheet;

/// How many `ConditionValue`s a condition type takes in a data validation rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Count {
    None,
    One,
    Two,
    /// `ONE_OF_LIST`: any number, one per item.
    Any,
    /// `BOOLEAN`: zero, one or two.
    UpToTwo,
}

/// The condition types data validation supports, with their value counts (sheets.v4.json
/// `BooleanCondition.type`). `TEXT_STARTS_WITH`, `TEXT_ENDS_WITH`, `BLANK`, `NOT_BLANK`, `TEXT_NOT_EQ`,
/// `DATE_NOT_EQ` and `FILTER_EXPRESSION` are for conditional formatting or filters only.
const SUPPORTED: &[(&str, Count)] = &[
    ("NUMBER_GREATER", Count::One),
    ("NUMBER_GREATER_THAN_EQ", Count::One),
    ("NUMBER_LESS", Count::One),
    ("NUMBER_LESS_THAN_EQ", Count::One),
    ("NUMBER_EQ", Count::One),
    ("NUMBER_NOT_EQ", Count::One),
    ("NUMBER_BETWEEN", Count::Two),
    ("NUMBER_NOT_BETWEEN", Count::Two),
    ("TEXT_CONTAINS", Count::One),
    ("TEXT_NOT_CONTAINS", Count::One),
    ("TEXT_EQ", Count::One),
    ("TEXT_IS_EMAIL", Count::None),
    ("TEXT_IS_URL", Count::None),
    ("DATE_EQ", Count::One),
    ("DATE_BEFORE", Count::One),
    ("DATE_AFTER", Count::One),
    ("DATE_ON_OR_BEFORE", Count::One),
    ("DATE_ON_OR_AFTER", Count::One),
    ("DATE_BETWEEN", Count::Two),
    ("DATE_NOT_BETWEEN", Count::Two),
    ("DATE_IS_VALID", Count::None),
    ("ONE_OF_RANGE", Count::One),
    ("ONE_OF_LIST", Count::Any),
    ("CUSTOM_FORMULA", Count::One),
    ("BOOLEAN", Count::UpToTwo),
];

pub(super) fn set_data_validation(book: &mut Spreadsheet, body: &Map<String, Value>) -> Outcome {
    if let Some(rule) = body.get("rule").and_then(Value::as_object).filter(|r| !r.is_empty()) {
        check_rule(rule)?;
    }
    // Cells keep (and answer) the rule in proto3 JSON: false and empty members left out; an empty rule
    // clears, as no rule does.
    let mut stored = body.clone();
    if let Some(rule) = stored.get_mut("rule") {
        proto3(rule);
        if rule.as_object().is_none_or(Map::is_empty) {
            stored.remove("rule");
        }
    }
    cells::set_data_validation(book, &stored)
}

fn check_rule(rule: &Map<String, Value>) -> Result<(), String> {
    let condition = rule.get("condition").and_then(Value::as_object);
    let kind = condition.and_then(|c| c.get("type")).and_then(Value::as_str).unwrap_or("CONDITION_TYPE_UNSPECIFIED");
    if kind == "CONDITION_TYPE_UNSPECIFIED" {
        return Err("The data validation rule must have a condition with a type.".into());
    }
    let Some(&(_, count)) = SUPPORTED.iter().find(|(name, _)| *name == kind) else {
        return Err(format!("Data validation does not support the condition type {kind}."));
    };
    let values: &[Value] = condition.and_then(|c| c.get("values")).and_then(Value::as_array).map_or(&[], Vec::as_slice);
    if values.iter().any(|v| v.get("relativeDate").is_some()) {
        return Err("Relative dates are not supported in data validation.".into());
    }
    let n = values.len();
    let wanted = match count {
        Count::None if n != 0 => Some("no ConditionValues"),
        Count::One if n != 1 => Some("exactly one ConditionValue"),
        Count::Two if n != 2 => Some("exactly two ConditionValues"),
        Count::UpToTwo if n > 2 => Some("at most two ConditionValues"),
        _ => None,
    };
    if let Some(wanted) = wanted {
        return Err(format!("ConditionType '{kind}' requires {wanted}, but {n} were supplied."));
    }
    if kind == "ONE_OF_RANGE" {
        let text = values.first().and_then(|v| v.get("userEnteredValue")).and_then(Value::as_str).unwrap_or("");
        let range = text.strip_prefix('=').unwrap_or(text);
        if range.trim().is_empty() || crate::sheets::a1::parse(range).is_none() {
            return Err(format!("The ONE_OF_RANGE value '{text}' is not a valid range."));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn rule(value: Value) -> Map<String, Value> {
        value.as_object().cloned().unwrap()
    }

    #[test]
    fn counts_follow_the_condition_type() {
        let between = |values: Value| rule(json!({ "condition": { "type": "NUMBER_BETWEEN", "values": values } }));
        assert!(check_rule(&between(json!([{ "userEnteredValue": "1" }, { "userEnteredValue": "9" }]))).is_ok());
        let error = check_rule(&between(json!([{ "userEnteredValue": "1" }]))).unwrap_err();
        assert!(error.contains("exactly two") && error.contains("1 were supplied"), "{error}");
        assert!(check_rule(&rule(json!({ "condition": { "type": "BOOLEAN" } }))).is_ok());
        assert!(check_rule(&rule(json!({ "condition": { "type": "ONE_OF_LIST", "values": [] } }))).is_ok());
    }

    #[test]
    fn types_for_formatting_only_are_refused() {
        for kind in ["BLANK", "NOT_BLANK", "TEXT_STARTS_WITH", "TEXT_ENDS_WITH", "TEXT_NOT_EQ", "FILTER_EXPRESSION"] {
            let error = check_rule(&rule(json!({ "condition": { "type": kind } }))).unwrap_err();
            assert!(error.contains("does not support"), "{kind}: {error}");
        }
        assert!(check_rule(&rule(json!({ "strict": true }))).is_err());
    }

    #[test]
    fn ranges_and_relative_dates_are_checked() {
        let one_of = |text: &str| {
            rule(json!({ "condition": { "type": "ONE_OF_RANGE", "values": [{ "userEnteredValue": text }] } }))
        };
        assert!(check_rule(&one_of("=Lists!A1:A9")).is_ok());
        assert!(check_rule(&one_of("not a range!!")).is_err());
        let relative = rule(json!({ "condition": { "type": "DATE_BEFORE", "values": [{ "relativeDate": "TODAY" }] } }));
        assert!(check_rule(&relative).is_err());
    }
}
