//! How Sheets displays numbers: the automatic format and number-format patterns (`#,##0.00`,
//! `0.00%`, `"$"#,##0.00`, `yyyy-mm-dd`, `h:mm:ss am/pm`, `0.00E+00`, sections split by `;`).

use chrono::{Datelike, Timelike};
use serde_json::Value;

use super::cell::{Val, epoch};

/// `formattedValue` of a computed value under the cell's number format.
pub(crate) fn format_value(value: &Val, number_format: Option<&Value>) -> String {
    match value {
        Val::Empty => String::new(),
        Val::Num(n) => format_number(*n, number_format),
        Val::Text(s) => s.clone(),
        Val::Bool(true) => "TRUE".into(),
        Val::Bool(false) => "FALSE".into(),
        Val::Err(kind, _) => kind.code().into(),
    }
}

/// Renders a number the way Sheets displays it.
pub(crate) fn format_number(n: f64, number_format: Option<&Value>) -> String {
    let kind = number_format.and_then(|f| f.get("type")).and_then(Value::as_str).unwrap_or("");
    let pattern = number_format.and_then(|f| f.get("pattern")).and_then(Value::as_str).unwrap_or("");
    let pattern = if pattern.is_empty() {
        match kind {
            "NUMBER" => "#,##0.00",
            "PERCENT" => "0.00%",
            "CURRENCY" => "\"$\"#,##0.00",
            "DATE" => "M/d/yyyy",
            "TIME" => "h:mm:ss am/pm",
            "DATE_TIME" => "M/d/yyyy H:mm:ss",
            "SCIENTIFIC" => "0.00E+00",
            _ => "",
        }
    } else {
        pattern
    };
    if pattern.is_empty() || pattern.eq_ignore_ascii_case("general") || pattern == "@" {
        automatic(n)
    } else {
        apply_pattern(n, pattern)
    }
}

/// Sheets' automatic format: up to 10 significant digits, scientific for huge or tiny numbers.
pub(crate) fn automatic(n: f64) -> String {
    if n == 0.0 || !n.is_finite() {
        return "0".into();
    }
    let magnitude = n.abs();
    if !(1e-10..1e15).contains(&magnitude) {
        let text = format!("{n:.5E}");
        let (mantissa, exponent) = text.split_once('E').unwrap_or((&text, "0"));
        let mantissa = strip_zeros(mantissa);
        let exp: i32 = exponent.parse().unwrap_or(0);
        let sign = if exp < 0 { '-' } else { '+' };
        return format!("{mantissa}E{sign}{:02}", exp.abs());
    }
    let int_digits = magnitude.log10().floor() as i32 + 1;
    let decimals = if int_digits > 0 { (10 - int_digits).max(0) } else { 10 - int_digits };
    let text = format!("{n:.*}", decimals.max(0) as usize);
    let text = strip_zeros(&text);
    if text == "-0" { "0".into() } else { text }
}

fn strip_zeros(text: &str) -> String {
    if text.contains('.') { text.trim_end_matches('0').trim_end_matches('.').to_owned() } else { text.to_owned() }
}

/// Splits a pattern into its `;` sections, keeping quoted text intact.
fn sections(pattern: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut quoted = false;
    let mut escaped = false;
    for ch in pattern.chars() {
        if escaped {
            escaped = false;
        } else if ch == '\\' {
            escaped = true;
        } else if ch == '"' {
            quoted = !quoted;
        } else if ch == ';' && !quoted {
            out.push(String::new());
            continue;
        }
        if let Some(last) = out.last_mut() {
            last.push(ch);
        }
    }
    out
}

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Literal(String),
    Digit(char),
    Comma,
    Dot,
    Percent,
    Exponent(char),
    Date(String),
    AmPm(bool),
}

fn tokenize(section: &str) -> Vec<Token> {
    let chars: Vec<char> = section.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let ch = chars[i];
        match ch {
            '"' => {
                let mut text = String::new();
                i += 1;
                while i < chars.len() && chars[i] != '"' {
                    text.push(chars[i]);
                    i += 1;
                }
                tokens.push(Token::Literal(text));
            }
            '\\' => {
                if let Some(next) = chars.get(i + 1) {
                    tokens.push(Token::Literal(next.to_string()));
                    i += 1;
                }
            }
            '_' | '*' => i += 1,
            '0' | '#' | '?' => tokens.push(Token::Digit(ch)),
            ',' => tokens.push(Token::Comma),
            '.' => tokens.push(Token::Dot),
            '%' => tokens.push(Token::Percent),
            'E' | 'e' if matches!(chars.get(i + 1), Some('+' | '-')) => {
                tokens.push(Token::Exponent(chars[i + 1]));
                i += 1;
            }
            'a' | 'A' if chars[i..].iter().take(5).collect::<String>().eq_ignore_ascii_case("am/pm") => {
                tokens.push(Token::AmPm(ch == 'A'));
                i += 4;
            }
            'y' | 'Y' | 'm' | 'M' | 'd' | 'D' | 'h' | 'H' | 's' | 'S' => {
                let lower = ch.to_ascii_lowercase();
                let mut run = String::new();
                while i < chars.len() && chars[i].to_ascii_lowercase() == lower {
                    run.push(lower);
                    i += 1;
                }
                tokens.push(Token::Date(run));
                continue;
            }
            '[' => {
                while i < chars.len() && chars[i] != ']' {
                    i += 1;
                }
            }
            other => tokens.push(Token::Literal(other.to_string())),
        }
        i += 1;
    }
    tokens
}

fn apply_pattern(n: f64, pattern: &str) -> String {
    let sections = sections(pattern);
    let (section, value, sign) = if n < 0.0 && sections.len() >= 2 {
        (sections[1].as_str(), -n, false)
    } else if n == 0.0 && sections.len() >= 3 {
        (sections[2].as_str(), n, false)
    } else {
        (sections[0].as_str(), n, n < 0.0)
    };
    let tokens = tokenize(section);
    if tokens.iter().any(|t| matches!(t, Token::Date(_))) {
        return format_date(n, &tokens);
    }
    if !tokens.iter().any(|t| matches!(t, Token::Digit(_))) {
        let text: String = tokens
            .iter()
            .map(|t| match t {
                Token::Literal(s) => s.as_str(),
                _ => "",
            })
            .collect();
        return if text.is_empty() { automatic(n) } else { text };
    }
    format_numeric(value.abs(), &tokens, sign)
}

fn group(int: &str) -> String {
    let bytes = int.as_bytes();
    let mut out = String::with_capacity(int.len() + int.len() / 3);
    for (i, b) in bytes.iter().enumerate() {
        if i > 0 && (bytes.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(*b as char);
    }
    out
}

fn format_numeric(mut value: f64, tokens: &[Token], negative: bool) -> String {
    let dot = tokens.iter().position(|t| *t == Token::Dot);
    let exponent = tokens.iter().position(|t| matches!(t, Token::Exponent(_)));
    let mantissa_end = exponent.unwrap_or(tokens.len());
    let int_end = dot.unwrap_or(mantissa_end).min(mantissa_end);
    let digit = |t: &Token| matches!(t, Token::Digit(_));
    let min_int = tokens[..int_end].iter().filter(|t| **t == Token::Digit('0')).count();
    let grouping = {
        let first = tokens[..int_end].iter().position(digit);
        let last = tokens[..int_end].iter().rposition(digit);
        matches!((first, last), (Some(f), Some(l)) if tokens[f..l].contains(&Token::Comma))
    };
    let frac_tokens = dot.map(|d| &tokens[d + 1..mantissa_end]).unwrap_or(&[]);
    let max_dec = frac_tokens.iter().filter(|t| digit(t)).count();
    let min_dec = frac_tokens.iter().filter(|t| matches!(t, Token::Digit('0' | '?'))).count();
    let percents = tokens.iter().filter(|t| **t == Token::Percent).count();
    for _ in 0..percents {
        value *= 100.0;
    }
    let mut exp_text = String::new();
    if let Some(e) = exponent {
        let mut exp = 0;
        if value != 0.0 {
            exp = value.log10().floor() as i32 - (min_int.max(1) as i32 - 1);
            value /= 10f64.powi(exp);
        }
        let exp_digits = tokens[e + 1..].iter().filter(|t| digit(t)).count().max(1);
        let sign = match (tokens[e].clone(), exp < 0) {
            (_, true) => "-",
            (Token::Exponent('+'), false) => "+",
            _ => "",
        };
        exp_text = format!("E{sign}{:0width$}", exp.abs(), width = exp_digits);
    }
    let rounded = format!("{value:.max_dec$}");
    let (int, frac) = rounded.split_once('.').unwrap_or((&rounded, ""));
    let mut frac = frac.to_owned();
    while frac.len() > min_dec && frac.ends_with('0') {
        frac.pop();
    }
    let mut int = int.trim_start_matches('0').to_owned();
    while int.len() < min_int {
        int.insert(0, '0');
    }
    if grouping {
        int = group(&int);
    }
    let mut number = int;
    if !frac.is_empty() {
        number.push('.');
        number.push_str(&frac);
    }
    number.push_str(&exp_text);
    let mut out = String::new();
    if negative {
        out.push('-');
    }
    let mut placed = false;
    for (i, token) in tokens.iter().enumerate() {
        match token {
            Token::Literal(s) => out.push_str(s),
            Token::Percent => out.push('%'),
            Token::Digit(_) | Token::Dot | Token::Comma | Token::Exponent(_) => {
                if !placed && (digit(token) || *token == Token::Dot) && i < mantissa_end {
                    out.push_str(&number);
                    placed = true;
                }
            }
            Token::Date(_) | Token::AmPm(_) => {}
        }
    }
    out
}

const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];
const DAYS: [&str; 7] = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"];

/// The date and time a serial number stands for.
pub(crate) fn serial_to_datetime(n: f64) -> Option<chrono::NaiveDateTime> {
    let days = n.floor();
    let seconds = ((n - days) * 86_400.0).round() as i64;
    let date = epoch().checked_add_signed(chrono::Duration::days(days as i64))?;
    date.and_hms_opt(0, 0, 0)?.checked_add_signed(chrono::Duration::seconds(seconds))
}

fn format_date(n: f64, tokens: &[Token]) -> String {
    let Some(at) = serial_to_datetime(n) else {
        return automatic(n);
    };
    let twelve = tokens.iter().any(|t| matches!(t, Token::AmPm(_)));
    let dates: Vec<usize> =
        tokens.iter().enumerate().filter(|(_, t)| matches!(t, Token::Date(_))).map(|(i, _)| i).collect();
    let mut out = String::new();
    for (i, token) in tokens.iter().enumerate() {
        match token {
            Token::Literal(s) => out.push_str(s),
            Token::AmPm(_) => out.push_str(if at.hour() < 12 { "AM" } else { "PM" }),
            Token::Date(run) => {
                let position = dates.iter().position(|d| *d == i).unwrap_or(0);
                let prev = position.checked_sub(1).and_then(|p| dates.get(p)).and_then(|p| match &tokens[*p] {
                    Token::Date(r) => r.chars().next(),
                    _ => None,
                });
                let next = dates.get(position + 1).and_then(|p| match &tokens[*p] {
                    Token::Date(r) => r.chars().next(),
                    _ => None,
                });
                let minutes = run.starts_with('m') && (prev == Some('h') || next == Some('s'));
                let hour12 = if at.hour() % 12 == 0 { 12 } else { at.hour() % 12 };
                let text = match (run.chars().next().unwrap_or('x'), run.len(), minutes) {
                    ('y', 1 | 2, _) => format!("{:02}", at.year() % 100),
                    ('y', _, _) => format!("{}", at.year()),
                    ('m', len, true) => {
                        if len >= 2 {
                            format!("{:02}", at.minute())
                        } else {
                            at.minute().to_string()
                        }
                    }
                    ('m', 1, false) => at.month().to_string(),
                    ('m', 2, false) => format!("{:02}", at.month()),
                    ('m', 3, false) => MONTHS[at.month0() as usize][..3].to_owned(),
                    ('m', _, false) => MONTHS[at.month0() as usize].to_owned(),
                    ('d', 1, _) => at.day().to_string(),
                    ('d', 2, _) => format!("{:02}", at.day()),
                    ('d', 3, _) => DAYS[at.weekday().num_days_from_monday() as usize][..3].to_owned(),
                    ('d', _, _) => DAYS[at.weekday().num_days_from_monday() as usize].to_owned(),
                    ('h', len, _) => {
                        let h = if twelve { hour12 } else { at.hour() };
                        if len >= 2 { format!("{h:02}") } else { h.to_string() }
                    }
                    ('s', len, _) => {
                        if len >= 2 {
                            format!("{:02}", at.second())
                        } else {
                            at.second().to_string()
                        }
                    }
                    _ => run.clone(),
                };
                out.push_str(&text);
            }
            Token::Digit(c) => out.push(*c),
            Token::Dot => out.push('.'),
            Token::Comma => out.push(','),
            Token::Percent => out.push('%'),
            Token::Exponent(c) => {
                out.push('E');
                out.push(*c);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn automatic_numbers() {
        assert_eq!(automatic(3.0), "3");
        assert_eq!(automatic(2.5), "2.5");
        assert_eq!(automatic(-2.5), "-2.5");
        assert_eq!(automatic(1.0 / 3.0), "0.3333333333");
        assert_eq!(automatic(100.0 / 3.0), "33.33333333");
        assert_eq!(automatic(0.1 + 0.2), "0.3");
        assert_eq!(automatic(123_456_789_012.0), "123456789012");
        assert_eq!(automatic(1e20), "1E+20");
    }

    #[test]
    fn patterns() {
        let f = |n, p: &str| format_number(n, Some(&json!({"type": "NUMBER", "pattern": p})));
        assert_eq!(f(1234.5, "#,##0.00"), "1,234.50");
        assert_eq!(f(0.125, "0.00%"), "12.50%");
        assert_eq!(f(-5.0, "\"$\"#,##0.00"), "-$5.00");
        assert_eq!(f(1234.0, "0"), "1234");
        assert_eq!(f(45_306.0, "yyyy-mm-dd"), "2024-01-15");
        assert_eq!(f(45_306.5, "M/d/yyyy h:mm am/pm"), "1/15/2024 12:00 PM");
        assert_eq!(f(12345.0, "0.00E+00"), "1.23E+04");
    }
}
