//! Cell values: what a user entered, what it evaluates to, how Sheets parses typed input
//! (`USER_ENTERED`) and how it renders numbers (`FORMATTED_VALUE`) with or without a number format.

use chrono::NaiveDate;
use serde_json::{Map, Value, json};

/// A cell's `userEnteredValue`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Entered {
    Number(f64),
    Text(String),
    Bool(bool),
    Formula(String),
}

/// One cell: its entered value plus the other writable `CellData` fields (`userEnteredFormat`,
/// `note`, `dataValidation`, `textFormatRuns`, `hyperlink`), kept as Google's JSON.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Cell {
    pub value: Option<Entered>,
    pub extra: Map<String, Value>,
}

impl Cell {
    pub(crate) fn is_blank(&self) -> bool {
        self.value.is_none() && self.extra.is_empty()
    }

    pub(crate) fn number_format(&self) -> Option<&Value> {
        self.extra.get("userEnteredFormat").and_then(|f| f.get("numberFormat"))
    }

    pub(crate) fn set_number_format(&mut self, format: Value) {
        let entry = self.extra.entry("userEnteredFormat").or_insert_with(|| json!({}));
        if let Value::Object(map) = entry {
            map.insert("numberFormat".into(), format);
        }
    }

    /// Whether the cell's number format is a date or time (for `dateTimeRenderOption`).
    pub(crate) fn is_date_time(&self) -> bool {
        matches!(
            self.number_format().and_then(|f| f.get("type")).and_then(Value::as_str),
            Some("DATE" | "TIME" | "DATE_TIME")
        )
    }
}

/// A computed value (`effectiveValue`).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Val {
    Empty,
    Num(f64),
    Text(String),
    Bool(bool),
    Err(ErrKind, String),
}

/// Spreadsheet errors, as `ErrorValue.type` names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ErrKind {
    Error,
    Div0,
    Value,
    Ref,
    Name,
    Num,
    NotAvailable,
}

impl ErrKind {
    /// What the cell shows (`formattedValue`).
    pub(crate) fn code(self) -> &'static str {
        match self {
            ErrKind::Error => "#ERROR!",
            ErrKind::Div0 => "#DIV/0!",
            ErrKind::Value => "#VALUE!",
            ErrKind::Ref => "#REF!",
            ErrKind::Name => "#NAME?",
            ErrKind::Num => "#NUM!",
            ErrKind::NotAvailable => "#N/A",
        }
    }

    fn api_type(self) -> &'static str {
        match self {
            ErrKind::Error => "ERROR",
            ErrKind::Div0 => "DIVIDE_BY_ZERO",
            ErrKind::Value => "VALUE",
            ErrKind::Ref => "REF",
            ErrKind::Name => "NAME",
            ErrKind::Num => "NUM",
            ErrKind::NotAvailable => "N_A",
        }
    }
}

/// A JSON number the way Google writes it: `3`, not `3.0`.
pub(crate) fn num_json(n: f64) -> Value {
    if n.fract() == 0.0 && n.abs() < 9.0e15 {
        json!(n as i64)
    } else {
        serde_json::Number::from_f64(n).map(Value::Number).unwrap_or(Value::Null)
    }
}

/// `ExtendedValue` for an entered value.
pub(crate) fn entered_json(value: &Entered) -> Value {
    match value {
        Entered::Number(n) => json!({ "numberValue": num_json(*n) }),
        Entered::Text(s) => json!({ "stringValue": s }),
        Entered::Bool(b) => json!({ "boolValue": b }),
        Entered::Formula(f) => json!({ "formulaValue": f }),
    }
}

/// `ExtendedValue` for a computed value; `None` when empty.
pub(crate) fn val_json(value: &Val) -> Option<Value> {
    Some(match value {
        Val::Empty => return None,
        Val::Num(n) => json!({ "numberValue": num_json(*n) }),
        Val::Text(s) => json!({ "stringValue": s }),
        Val::Bool(b) => json!({ "boolValue": b }),
        Val::Err(kind, message) => {
            json!({ "errorValue": { "type": kind.api_type(), "message": message } })
        }
    })
}

/// Reads an `ExtendedValue` written by a client (`updateCells`, `spreadsheets.create`).
pub(crate) fn entered_from_json(value: &Value) -> Result<Option<Entered>, String> {
    let Some(map) = value.as_object() else {
        return Ok(None);
    };
    let mut found = None;
    for (key, item) in map {
        if item.is_null() {
            continue;
        }
        let entered = match key.as_str() {
            "numberValue" | "number_value" => Entered::Number(
                item.as_f64()
                    .or_else(|| item.as_str().and_then(|s| s.parse().ok()))
                    .ok_or_else(|| format!("Invalid numberValue: {item}"))?,
            ),
            "stringValue" | "string_value" => Entered::Text(item.as_str().unwrap_or_default().to_owned()),
            "boolValue" | "bool_value" => Entered::Bool(item.as_bool().unwrap_or_default()),
            "formulaValue" | "formula_value" => {
                let text = item.as_str().unwrap_or_default();
                if !text.starts_with('=') {
                    return Err(format!("Invalid formulaValue: formulas must begin with '=', got \"{text}\"."));
                }
                Entered::Formula(super::formula::normalize(text))
            }
            "errorValue" | "error_value" => return Err("errorValue is read-only.".into()),
            _ => continue,
        };
        if found.is_some() {
            return Err("Only one field of an ExtendedValue may be set.".into());
        }
        found = Some(entered);
    }
    Ok(match found {
        Some(Entered::Text(s)) if s.is_empty() => None,
        other => other,
    })
}

/// A value to write, as parsed from a `values` array item.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Input {
    /// `None` clears the cell's value.
    pub value: Option<Entered>,
    /// A number format `USER_ENTERED` input implies (`12%` → PERCENT).
    pub number_format: Option<Value>,
}

/// Parses one item of `ValueRange.values`. `Ok(None)` = null, leave the cell alone.
pub(crate) fn parse_input(item: &Value, user_entered: bool) -> Result<Option<Input>, ()> {
    let plain = |value| Ok(Some(Input { value, number_format: None }));
    match item {
        Value::Null => Ok(None),
        Value::Bool(b) => plain(Some(Entered::Bool(*b))),
        Value::Number(n) => plain(n.as_f64().map(Entered::Number)),
        Value::String(s) if s.is_empty() => plain(None),
        Value::String(s) if !user_entered => plain(Some(Entered::Text(s.clone()))),
        Value::String(s) => Ok(Some(parse_typed(s))),
        Value::Array(_) | Value::Object(_) => Err(()),
    }
}

/// What Sheets makes of text typed into a cell.
pub(crate) fn parse_typed(text: &str) -> Input {
    let plain = |value| Input { value: Some(value), number_format: None };
    if text.len() > 1 && text.starts_with('=') {
        return plain(Entered::Formula(super::formula::normalize(text)));
    }
    if let Some(rest) = text.strip_prefix('\'') {
        return if rest.is_empty() {
            Input { value: None, number_format: None }
        } else {
            plain(Entered::Text(rest.to_owned()))
        };
    }
    let trimmed = text.trim();
    if trimmed.eq_ignore_ascii_case("TRUE") {
        return plain(Entered::Bool(true));
    }
    if trimmed.eq_ignore_ascii_case("FALSE") {
        return plain(Entered::Bool(false));
    }
    if let Some((n, format)) = parse_number(trimmed) {
        return Input { value: Some(Entered::Number(n)), number_format: format };
    }
    if let Some((n, format)) = parse_date_time(trimmed) {
        return Input { value: Some(Entered::Number(n)), number_format: Some(format) };
    }
    plain(Entered::Text(text.to_owned()))
}

/// A plain decimal: `12`, `-3.5`, `.5`, `1e3`, `+4`.
pub(crate) fn parse_plain_number(text: &str) -> Option<f64> {
    let body = text.strip_prefix(['+', '-']).unwrap_or(text);
    let (mantissa, exponent) = match body.find(['e', 'E']) {
        Some(i) => (&body[..i], Some(&body[i + 1..])),
        None => (body, None),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if (int.is_empty() && frac.is_empty()) || !digits(int) || !digits(frac) {
        return None;
    }
    if let Some(exp) = exponent {
        let exp = exp.strip_prefix(['+', '-']).unwrap_or(exp);
        if exp.is_empty() || !digits(exp) {
            return None;
        }
    }
    text.parse::<f64>().ok().filter(|n| n.is_finite())
}

fn number_format(kind: &str, pattern: &str) -> Value {
    json!({ "type": kind, "pattern": pattern })
}

/// Numbers with grouping, currency, percent or exponent, and the format Sheets gives them.
fn parse_number(text: &str) -> Option<(f64, Option<Value>)> {
    if let Some(n) = parse_plain_number(text) {
        let format = text.contains(['e', 'E']).then(|| number_format("SCIENTIFIC", "0.00E+00"));
        return Some((n, format));
    }
    let (negative, rest) = match text.strip_prefix('-') {
        Some(rest) => (true, rest.trim_start()),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    let (currency, rest) = match rest.strip_prefix('$') {
        Some(rest) => (true, rest),
        None => (false, rest),
    };
    let (negative, rest) = match rest.strip_prefix('-') {
        Some(rest) if !negative => (true, rest),
        _ => (negative, rest),
    };
    let (percent, rest) = match rest.strip_suffix('%') {
        Some(rest) if !currency => (true, rest.trim_end()),
        _ => (false, rest),
    };
    let grouped = rest.contains(',');
    if !currency && !percent && !grouped {
        return None;
    }
    let (int, frac) = rest.split_once('.').unwrap_or((rest, ""));
    if grouped {
        let groups: Vec<&str> = int.split(',').collect();
        let first_ok = groups.first().is_some_and(|g| !g.is_empty() && g.len() <= 3);
        if !first_ok || groups.iter().skip(1).any(|g| g.len() != 3) {
            return None;
        }
    }
    let digits: String = int.chars().filter(|c| *c != ',').collect();
    let plain = if frac.is_empty() { digits.clone() } else { format!("{digits}.{frac}") };
    let mut n = parse_plain_number(&plain)?;
    if plain.starts_with(['+', '-']) {
        return None;
    }
    if negative {
        n = -n;
    }
    let decimals = !frac.is_empty();
    let format = if percent {
        n /= 100.0;
        number_format("PERCENT", if decimals { "0.00%" } else { "0%" })
    } else if currency {
        number_format("CURRENCY", "\"$\"#,##0.00")
    } else {
        number_format("NUMBER", if decimals { "#,##0.00" } else { "#,##0" })
    };
    Some((n, Some(format)))
}

pub(crate) fn epoch() -> NaiveDate {
    NaiveDate::from_ymd_opt(1899, 12, 30).unwrap_or_default()
}

fn serial(date: NaiveDate) -> f64 {
    (date - epoch()).num_days() as f64
}

fn parse_time(text: &str) -> Option<f64> {
    let parts: Vec<&str> = text.split(':').collect();
    if !(2..=3).contains(&parts.len()) || parts.iter().any(|p| p.is_empty() || !p.bytes().all(|b| b.is_ascii_digit())) {
        return None;
    }
    let h: u32 = parts[0].parse().ok()?;
    let m: u32 = parts[1].parse().ok()?;
    let s: u32 = parts.get(2).map_or(Some(0), |s| s.parse().ok())?;
    if h > 23 || m > 59 || s > 59 {
        return None;
    }
    Some(f64::from(h * 3600 + m * 60 + s) / 86_400.0)
}

/// `2024-01-15`, `2024/01/15`, `1/15/2024`, optionally followed by a time; or a time alone.
fn parse_date_time(text: &str) -> Option<(f64, Value)> {
    if let Some(t) = parse_time(text) {
        return Some((t, number_format("TIME", "h:mm:ss am/pm")));
    }
    let (date_part, time_part) = match text.split_once(' ') {
        Some((d, t)) => (d, Some(t.trim())),
        None => (text, None),
    };
    let numbers: Vec<&str> = date_part.split(['-', '/']).collect();
    if numbers.len() != 3 || numbers.iter().any(|p| p.is_empty() || !p.bytes().all(|b| b.is_ascii_digit())) {
        return None;
    }
    let n = |i: usize| numbers[i].parse::<u32>().ok();
    let (date, pattern) = if numbers[0].len() == 4 {
        (NaiveDate::from_ymd_opt(i32::try_from(n(0)?).ok()?, n(1)?, n(2)?)?, "yyyy-mm-dd")
    } else if numbers[2].len() == 4 && date_part.contains('/') {
        (NaiveDate::from_ymd_opt(i32::try_from(n(2)?).ok()?, n(0)?, n(1)?)?, "M/d/yyyy")
    } else {
        return None;
    };
    match time_part {
        None => Some((serial(date), number_format("DATE", pattern))),
        Some(t) => {
            let time = parse_time(t)?;
            Some((serial(date) + time, number_format("DATE_TIME", &format!("{pattern} H:mm:ss"))))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_input() {
        assert_eq!(parse_typed("42").value, Some(Entered::Number(42.0)));
        assert_eq!(parse_typed("true").value, Some(Entered::Bool(true)));
        assert_eq!(parse_typed("'42").value, Some(Entered::Text("42".into())));
        let pct = parse_typed("12.5%");
        assert_eq!(pct.value, Some(Entered::Number(0.125)));
        assert_eq!(parse_typed("$1,234.50").value, Some(Entered::Number(1234.5)));
        assert_eq!(parse_typed("1,23").value, Some(Entered::Text("1,23".into())));
        assert_eq!(parse_typed("2024-01-15").value, Some(Entered::Number(45_306.0)));
        assert_eq!(parse_typed("1/15/2024").value, Some(Entered::Number(45_306.0)));
        assert_eq!(parse_typed("abc").value, Some(Entered::Text("abc".into())));
        assert_eq!(parse_typed("1e3").value, Some(Entered::Number(1000.0)));
        assert_eq!(parse_typed("inf").value, Some(Entered::Text("inf".into())));
    }
}
