//! A small formula engine: numbers, text, booleans, `+ - * / ^ & %`, comparisons, cell and range
//! references (also on other sheets), and a handful of functions (`SUM`, `AVERAGE`, `MIN`, `MAX`,
//! `COUNT`, `COUNTA`, `IF`, `ROUND`, `ABS`, `CONCATENATE`, `LEN`, `UPPER`, `LOWER`, `AND`, `OR`, `NOT`,
//! `PRODUCT`). Any other function evaluates to `#NAME?`, as in a spreadsheet that doesn't know it.

use super::a1::{self, Span};
use super::cell::{ErrKind, Val, parse_plain_number};
use super::format::automatic;

/// What a formula can read.
pub(crate) trait Context {
    /// A cell's value; `sheet` is `None` for the formula's own sheet.
    fn cell(&mut self, sheet: Option<&str>, row: u32, col: u32) -> Val;
    /// The values of a range, row by row; an error value if the sheet doesn't exist.
    fn range(&mut self, sheet: Option<&str>, span: Span) -> Result<Vec<Val>, Val>;
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Num(f64),
    Str(String),
    Name(String),
    Open,
    Close,
    Comma,
    Colon,
    Op(&'static str),
    Percent,
}

#[derive(Debug, Clone)]
enum Expr {
    Num(f64),
    Str(String),
    Bool(bool),
    Cell(Option<String>, u32, u32),
    Range(Option<String>, Span),
    Neg(Box<Expr>),
    Percent(Box<Expr>),
    Bin(&'static str, Box<Expr>, Box<Expr>),
    Call(String, Vec<Expr>),
    Fail(ErrKind, String),
}

fn parse_error() -> Val {
    Val::Err(ErrKind::Error, "Formula parse error.".into())
}

fn is_name_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '$' | '.' | '!')
}

fn lex(text: &str) -> Option<Vec<Tok>> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            ' ' | '\t' | '\n' => i += 1,
            '(' => {
                out.push(Tok::Open);
                i += 1;
            }
            ')' => {
                out.push(Tok::Close);
                i += 1;
            }
            ',' | ';' => {
                out.push(Tok::Comma);
                i += 1;
            }
            ':' => {
                out.push(Tok::Colon);
                i += 1;
            }
            '%' => {
                out.push(Tok::Percent);
                i += 1;
            }
            '+' | '-' | '*' | '/' | '^' | '&' | '=' => {
                out.push(Tok::Op(match c {
                    '+' => "+",
                    '-' => "-",
                    '*' => "*",
                    '/' => "/",
                    '^' => "^",
                    '&' => "&",
                    _ => "=",
                }));
                i += 1;
            }
            '<' | '>' => {
                let next = chars.get(i + 1).copied();
                let op = match (c, next) {
                    ('<', Some('=')) => "<=",
                    ('<', Some('>')) => "<>",
                    ('>', Some('=')) => ">=",
                    ('<', _) => "<",
                    _ => ">",
                };
                i += op.len();
                out.push(Tok::Op(op));
            }
            '"' => {
                let mut s = String::new();
                i += 1;
                loop {
                    match chars.get(i) {
                        None => return None,
                        Some('"') if chars.get(i + 1) == Some(&'"') => {
                            s.push('"');
                            i += 2;
                        }
                        Some('"') => {
                            i += 1;
                            break;
                        }
                        Some(ch) => {
                            s.push(*ch);
                            i += 1;
                        }
                    }
                }
                out.push(Tok::Str(s));
            }
            '\'' => {
                let start = i;
                i += 1;
                loop {
                    match chars.get(i) {
                        None => return None,
                        Some('\'') if chars.get(i + 1) == Some(&'\'') => i += 2,
                        Some('\'') => {
                            i += 1;
                            break;
                        }
                        Some(_) => i += 1,
                    }
                }
                if chars.get(i) != Some(&'!') {
                    return None;
                }
                while i < chars.len() && is_name_char(chars[i]) {
                    i += 1;
                }
                out.push(Tok::Name(chars[start..i].iter().collect()));
            }
            c if c.is_ascii_digit() || (c == '.' && chars.get(i + 1).is_some_and(char::is_ascii_digit)) => {
                let start = i;
                while i < chars.len() && (chars[i].is_ascii_digit() || chars[i] == '.') {
                    i += 1;
                }
                if i < chars.len() && matches!(chars[i], 'e' | 'E') {
                    let mut j = i + 1;
                    if j < chars.len() && matches!(chars[j], '+' | '-') {
                        j += 1;
                    }
                    if j < chars.len() && chars[j].is_ascii_digit() {
                        i = j;
                        while i < chars.len() && chars[i].is_ascii_digit() {
                            i += 1;
                        }
                    }
                }
                // `1:3` row ranges and `A1`-like names starting with digits are read as names.
                let text: String = chars[start..i].iter().collect();
                out.push(Tok::Num(text.parse().ok()?));
            }
            c if is_name_char(c) => {
                let start = i;
                while i < chars.len() && is_name_char(chars[i]) {
                    i += 1;
                }
                out.push(Tok::Name(chars[start..i].iter().collect()));
            }
            _ => return None,
        }
    }
    Some(out)
}

struct Parser {
    toks: Vec<Tok>,
    pos: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos)
    }

    fn next(&mut self) -> Option<Tok> {
        let tok = self.toks.get(self.pos).cloned();
        self.pos += 1;
        tok
    }

    fn binary(&mut self, level: usize) -> Option<Expr> {
        const LEVELS: [&[&str]; 5] = [&["=", "<>", "<", ">", "<=", ">="], &["&"], &["+", "-"], &["*", "/"], &["^"]];
        if level == LEVELS.len() {
            return self.unary();
        }
        let mut left = self.binary(level + 1)?;
        while let Some(Tok::Op(op)) = self.peek() {
            let op = *op;
            if !LEVELS[level].contains(&op) {
                break;
            }
            self.pos += 1;
            let right = self.binary(level + 1)?;
            left = Expr::Bin(op, Box::new(left), Box::new(right));
        }
        Some(left)
    }

    fn unary(&mut self) -> Option<Expr> {
        match self.peek() {
            Some(Tok::Op("-")) => {
                self.pos += 1;
                Some(Expr::Neg(Box::new(self.unary()?)))
            }
            Some(Tok::Op("+")) => {
                self.pos += 1;
                self.unary()
            }
            _ => {
                let mut expr = self.primary()?;
                while self.peek() == Some(&Tok::Percent) {
                    self.pos += 1;
                    expr = Expr::Percent(Box::new(expr));
                }
                Some(expr)
            }
        }
    }

    fn primary(&mut self) -> Option<Expr> {
        match self.next()? {
            Tok::Num(n) => {
                if self.peek() == Some(&Tok::Colon) && n.fract() == 0.0 {
                    self.pos += 1;
                    let right = match self.next()? {
                        Tok::Num(m) => format!("{m}"),
                        Tok::Name(name) => name,
                        _ => return None,
                    };
                    return Some(reference(&format!("{n}"), Some(&right)));
                }
                Some(Expr::Num(n))
            }
            Tok::Str(s) => Some(Expr::Str(s)),
            Tok::Open => {
                let expr = self.binary(0)?;
                (self.next()? == Tok::Close).then_some(expr)
            }
            Tok::Name(name) => {
                if self.peek() == Some(&Tok::Open) {
                    self.pos += 1;
                    let mut args = Vec::new();
                    if self.peek() == Some(&Tok::Close) {
                        self.pos += 1;
                        return Some(Expr::Call(name.to_ascii_uppercase(), args));
                    }
                    loop {
                        args.push(self.binary(0)?);
                        match self.next()? {
                            Tok::Comma => continue,
                            Tok::Close => break,
                            _ => return None,
                        }
                    }
                    return Some(Expr::Call(name.to_ascii_uppercase(), args));
                }
                if self.peek() == Some(&Tok::Colon) {
                    self.pos += 1;
                    let right = match self.next()? {
                        Tok::Num(m) => format!("{m}"),
                        Tok::Name(n) => n,
                        _ => return None,
                    };
                    return Some(reference(&name, Some(&right)));
                }
                if name.eq_ignore_ascii_case("TRUE") {
                    return Some(Expr::Bool(true));
                }
                if name.eq_ignore_ascii_case("FALSE") {
                    return Some(Expr::Bool(false));
                }
                Some(reference(&name, None))
            }
            _ => None,
        }
    }
}

/// A reference (`A1`, `Sheet2!B2`, `'My Sheet'!A1:B3`, `A:A`, `2:3`).
fn reference(left: &str, right: Option<&str>) -> Expr {
    let text = match right {
        Some(right) => format!("{left}:{right}"),
        None => left.to_owned(),
    };
    let parsed = a1::parse(&text);
    let unknown = || Expr::Fail(ErrKind::Name, format!("Unknown range name: '{}'.", text.to_ascii_uppercase()));
    match parsed {
        Some(a1::Parsed { sheet, cells: Some(span), .. }) => {
            if right.is_none() {
                Expr::Cell(sheet, span.start_row, span.start_col)
            } else {
                Expr::Range(sheet, span)
            }
        }
        _ => unknown(),
    }
}

/// Upper-cases function names and references the way Sheets stores a typed formula.
pub(crate) fn normalize(formula: &str) -> String {
    let chars: Vec<char> = formula.chars().collect();
    let mut out = String::with_capacity(formula.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '"' || c == '\'' {
            out.push(c);
            i += 1;
            while i < chars.len() {
                out.push(chars[i]);
                i += 1;
                if chars[i - 1] == c {
                    break;
                }
            }
            continue;
        }
        if c.is_alphabetic() || c == '_' || c == '$' {
            let start = i;
            while i < chars.len() && is_name_char(chars[i]) {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            let call = chars.get(i) == Some(&'(');
            let (prefix, local) = match word.rsplit_once('!') {
                Some((p, l)) => (format!("{p}!"), l.to_owned()),
                None => (String::new(), word.clone()),
            };
            let in_range = chars.get(i) == Some(&':') || (start > 0 && chars[start - 1] == ':');
            let is_ref = a1::parse(&format!("X!{local}")).is_some()
                || (in_range && a1::parse(&format!("X!{local}:{local}")).is_some())
                || local.eq_ignore_ascii_case("true")
                || local.eq_ignore_ascii_case("false");
            if call || is_ref {
                out.push_str(&prefix);
                out.push_str(&local.to_ascii_uppercase());
            } else {
                out.push_str(&word);
            }
            continue;
        }
        out.push(c);
        i += 1;
    }
    out
}

/// Evaluates a formula (with its leading `=`).
pub(crate) fn evaluate(formula: &str, ctx: &mut dyn Context) -> Val {
    let body = formula.strip_prefix('=').unwrap_or(formula);
    let Some(toks) = lex(body) else {
        return parse_error();
    };
    let mut parser = Parser { toks, pos: 0 };
    let Some(expr) = parser.binary(0) else {
        return parse_error();
    };
    if parser.pos != parser.toks.len() {
        return parse_error();
    }
    match eval(&expr, ctx) {
        Val::Empty => Val::Num(0.0),
        other => other,
    }
}

fn value_error(function: &str, index: usize, text: &str) -> Val {
    Val::Err(
        ErrKind::Value,
        format!(
            "Function {function} parameter {index} expects number values. But '{text}' is a text and cannot be coerced to a number."
        ),
    )
}

fn to_num(val: &Val, function: &str, index: usize) -> Result<f64, Val> {
    match val {
        Val::Empty => Ok(0.0),
        Val::Num(n) => Ok(*n),
        Val::Bool(b) => Ok(if *b { 1.0 } else { 0.0 }),
        Val::Text(s) => parse_plain_number(s.trim()).ok_or_else(|| value_error(function, index, s)),
        Val::Err(..) => Err(val.clone()),
    }
}

fn to_text(val: &Val) -> Result<String, Val> {
    match val {
        Val::Empty => Ok(String::new()),
        Val::Num(n) => Ok(automatic(*n)),
        Val::Bool(b) => Ok(if *b { "TRUE".into() } else { "FALSE".into() }),
        Val::Text(s) => Ok(s.clone()),
        Val::Err(..) => Err(val.clone()),
    }
}

fn to_bool(val: &Val, function: &str) -> Result<bool, Val> {
    match val {
        Val::Empty => Ok(false),
        Val::Num(n) => Ok(*n != 0.0),
        Val::Bool(b) => Ok(*b),
        Val::Text(s) if s.eq_ignore_ascii_case("true") => Ok(true),
        Val::Text(s) if s.eq_ignore_ascii_case("false") => Ok(false),
        Val::Text(s) => Err(Val::Err(
            ErrKind::Value,
            format!(
                "Function {function} parameter 1 expects boolean values. But '{s}' is a text and cannot be coerced to a boolean."
            ),
        )),
        Val::Err(..) => Err(val.clone()),
    }
}

fn scalar(expr: &Expr, ctx: &mut dyn Context) -> Val {
    eval(expr, ctx)
}

fn eval(expr: &Expr, ctx: &mut dyn Context) -> Val {
    match expr {
        Expr::Num(n) => Val::Num(*n),
        Expr::Str(s) => Val::Text(s.clone()),
        Expr::Bool(b) => Val::Bool(*b),
        Expr::Fail(kind, message) => Val::Err(*kind, message.clone()),
        Expr::Cell(sheet, row, col) => ctx.cell(sheet.as_deref(), *row, *col),
        Expr::Range(sheet, span) => ctx.cell(sheet.as_deref(), span.start_row, span.start_col),
        Expr::Neg(inner) => match to_num(&scalar(inner, ctx), "MINUS", 1) {
            Ok(n) => Val::Num(-n),
            Err(e) => e,
        },
        Expr::Percent(inner) => match to_num(&scalar(inner, ctx), "UNARY_PERCENT", 1) {
            Ok(n) => Val::Num(n / 100.0),
            Err(e) => e,
        },
        Expr::Bin(op, left, right) => {
            let a = scalar(left, ctx);
            let b = scalar(right, ctx);
            binary(op, &a, &b)
        }
        Expr::Call(name, args) => call(name, args, ctx),
    }
}

fn binary(op: &str, a: &Val, b: &Val) -> Val {
    let numeric =
        |function: &str| -> Result<(f64, f64), Val> { Ok((to_num(a, function, 1)?, to_num(b, function, 2)?)) };
    let result = match op {
        "+" => numeric("ADD").map(|(x, y)| Val::Num(x + y)),
        "-" => numeric("MINUS").map(|(x, y)| Val::Num(x - y)),
        "*" => numeric("MULTIPLY").map(|(x, y)| Val::Num(x * y)),
        "/" => numeric("DIVIDE").and_then(|(x, y)| {
            if y == 0.0 {
                Err(Val::Err(ErrKind::Div0, "Function DIVIDE parameter 2 cannot be zero.".into()))
            } else {
                Ok(Val::Num(x / y))
            }
        }),
        "^" => numeric("POW").and_then(|(x, y)| {
            let r = x.powf(y);
            if r.is_finite() {
                Ok(Val::Num(r))
            } else {
                Err(Val::Err(ErrKind::Num, "Function POW result was not a number.".into()))
            }
        }),
        "&" => to_text(a).and_then(|x| Ok(Val::Text(x + &to_text(b)?))),
        _ => compare(a, b).map(|ord| {
            Val::Bool(match op {
                "=" => ord == std::cmp::Ordering::Equal,
                "<>" => ord != std::cmp::Ordering::Equal,
                "<" => ord == std::cmp::Ordering::Less,
                ">" => ord == std::cmp::Ordering::Greater,
                "<=" => ord != std::cmp::Ordering::Greater,
                _ => ord != std::cmp::Ordering::Less,
            })
        }),
    };
    result.unwrap_or_else(|e| e)
}

fn compare(a: &Val, b: &Val) -> Result<std::cmp::Ordering, Val> {
    use std::cmp::Ordering;
    let rank = |v: &Val| match v {
        Val::Num(_) | Val::Empty => 0,
        Val::Text(_) => 1,
        Val::Bool(_) => 2,
        Val::Err(..) => 3,
    };
    for v in [a, b] {
        if let Val::Err(..) = v {
            return Err(v.clone());
        }
    }
    // An empty cell compares as the other side's zero value.
    let (a, b) = match (a, b) {
        (Val::Empty, Val::Text(_)) => (Val::Text(String::new()), b.clone()),
        (Val::Text(_), Val::Empty) => (a.clone(), Val::Text(String::new())),
        (Val::Empty, Val::Bool(_)) => (Val::Bool(false), b.clone()),
        (Val::Bool(_), Val::Empty) => (a.clone(), Val::Bool(false)),
        _ => (a.clone(), b.clone()),
    };
    Ok(match (&a, &b) {
        (Val::Num(_) | Val::Empty, Val::Num(_) | Val::Empty) => {
            let x = if let Val::Num(x) = a { x } else { 0.0 };
            let y = if let Val::Num(y) = b { y } else { 0.0 };
            x.partial_cmp(&y).unwrap_or(Ordering::Equal)
        }
        (Val::Text(x), Val::Text(y)) => x.to_lowercase().cmp(&y.to_lowercase()),
        (Val::Bool(x), Val::Bool(y)) => x.cmp(y),
        _ => rank(&a).cmp(&rank(&b)),
    })
}

/// Collected arguments: values from ranges are marked, since aggregate functions skip their text.
fn collect(args: &[Expr], ctx: &mut dyn Context) -> Result<Vec<(Val, bool)>, Val> {
    let mut out = Vec::new();
    for arg in args {
        match arg {
            Expr::Range(sheet, span) => {
                for v in ctx.range(sheet.as_deref(), *span)? {
                    out.push((v, true));
                }
            }
            Expr::Cell(sheet, row, col) => out.push((ctx.cell(sheet.as_deref(), *row, *col), true)),
            other => out.push((eval(other, ctx), false)),
        }
    }
    Ok(out)
}

fn numbers(name: &str, args: &[Expr], ctx: &mut dyn Context) -> Result<Vec<f64>, Val> {
    let mut out = Vec::new();
    for (index, (value, from_range)) in collect(args, ctx)?.into_iter().enumerate() {
        match (&value, from_range) {
            (Val::Err(..), _) => return Err(value),
            (Val::Num(n), _) => out.push(*n),
            (_, true) => {}
            (other, false) => out.push(to_num(other, name, index + 1)?),
        }
    }
    Ok(out)
}

fn arity(name: &str, args: &[Expr], min: usize, max: usize) -> Result<(), Val> {
    if args.len() < min || args.len() > max {
        let expected = if min == max { format!("{min}") } else { format!("between {min} and {max}") };
        return Err(Val::Err(
            ErrKind::NotAvailable,
            format!(
                "Wrong number of arguments to {name}. Expected {expected} arguments, but got {} arguments.",
                args.len()
            ),
        ));
    }
    Ok(())
}

fn call(name: &str, args: &[Expr], ctx: &mut dyn Context) -> Val {
    let result: Result<Val, Val> = (|| match name {
        "SUM" => Ok(Val::Num(numbers(name, args, ctx)?.iter().sum())),
        "PRODUCT" => Ok(Val::Num(numbers(name, args, ctx)?.iter().product())),
        "AVERAGE" => {
            let values = numbers(name, args, ctx)?;
            if values.is_empty() {
                return Err(Val::Err(
                    ErrKind::Div0,
                    "Evaluation of function AVERAGE caused a divide by zero error.".into(),
                ));
            }
            Ok(Val::Num(values.iter().sum::<f64>() / values.len() as f64))
        }
        "MIN" => Ok(Val::Num(numbers(name, args, ctx)?.into_iter().reduce(f64::min).unwrap_or(0.0))),
        "MAX" => Ok(Val::Num(numbers(name, args, ctx)?.into_iter().reduce(f64::max).unwrap_or(0.0))),
        "COUNT" => {
            let values = collect(args, ctx)?;
            Ok(Val::Num(values.iter().filter(|(v, _)| matches!(v, Val::Num(_))).count() as f64))
        }
        "COUNTA" => {
            let values = collect(args, ctx)?;
            Ok(Val::Num(values.iter().filter(|(v, _)| !matches!(v, Val::Empty)).count() as f64))
        }
        "IF" => {
            arity(name, args, 2, 3)?;
            let condition = to_bool(&eval(&args[0], ctx), name)?;
            if condition {
                Ok(eval(&args[1], ctx))
            } else if let Some(otherwise) = args.get(2) {
                Ok(eval(otherwise, ctx))
            } else {
                Ok(Val::Bool(false))
            }
        }
        "AND" | "OR" => {
            let values = collect(args, ctx)?;
            let mut flags = Vec::new();
            for (value, from_range) in values {
                match (&value, from_range) {
                    (Val::Err(..), _) => return Err(value),
                    (Val::Empty | Val::Text(_), true) => {}
                    (other, _) => flags.push(to_bool(other, name)?),
                }
            }
            Ok(Val::Bool(if name == "AND" { flags.iter().all(|b| *b) } else { flags.iter().any(|b| *b) }))
        }
        "NOT" => {
            arity(name, args, 1, 1)?;
            Ok(Val::Bool(!to_bool(&eval(&args[0], ctx), name)?))
        }
        "ROUND" => {
            arity(name, args, 1, 2)?;
            let x = to_num(&eval(&args[0], ctx), name, 1)?;
            let digits = match args.get(1) {
                Some(d) => to_num(&eval(d, ctx), name, 2)?.trunc() as i32,
                None => 0,
            };
            let factor = 10f64.powi(digits);
            Ok(Val::Num((x * factor).round() / factor))
        }
        "ABS" => {
            arity(name, args, 1, 1)?;
            Ok(Val::Num(to_num(&eval(&args[0], ctx), name, 1)?.abs()))
        }
        "CONCATENATE" | "CONCAT" => {
            let mut text = String::new();
            for (value, _) in collect(args, ctx)? {
                text.push_str(&to_text(&value)?);
            }
            Ok(Val::Text(text))
        }
        "LEN" => {
            arity(name, args, 1, 1)?;
            Ok(Val::Num(to_text(&eval(&args[0], ctx))?.chars().count() as f64))
        }
        "UPPER" | "LOWER" => {
            arity(name, args, 1, 1)?;
            let text = to_text(&eval(&args[0], ctx))?;
            Ok(Val::Text(if name == "UPPER" { text.to_uppercase() } else { text.to_lowercase() }))
        }
        _ => Err(Val::Err(ErrKind::Name, format!("Unknown function: '{}'.", name.to_ascii_lowercase()))),
    })();
    result.unwrap_or_else(|e| e)
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Grid;

    impl Context for Grid {
        fn cell(&mut self, sheet: Option<&str>, row: u32, col: u32) -> Val {
            if sheet.is_some() {
                return Val::Num(100.0);
            }
            match (row, col) {
                (0, 0) => Val::Num(1.0),
                (1, 0) => Val::Num(2.0),
                (2, 0) => Val::Text("x".into()),
                _ => Val::Empty,
            }
        }

        fn range(&mut self, sheet: Option<&str>, span: Span) -> Result<Vec<Val>, Val> {
            let mut out = Vec::new();
            for r in span.start_row..span.end_row.unwrap_or(5) {
                for c in span.start_col..span.end_col.unwrap_or(3) {
                    out.push(self.cell(sheet, r, c));
                }
            }
            Ok(out)
        }
    }

    fn run(f: &str) -> Val {
        evaluate(f, &mut Grid)
    }

    #[test]
    fn arithmetic_and_functions() {
        assert_eq!(run("=1+2*3"), Val::Num(7.0));
        assert_eq!(run("=(1+2)*3"), Val::Num(9.0));
        assert_eq!(run("=-2^2"), Val::Num(4.0));
        assert_eq!(run("=A1+A2"), Val::Num(3.0));
        assert_eq!(run("=SUM(A1:A3)"), Val::Num(3.0));
        assert_eq!(run("=sum(A:A)"), Val::Num(3.0));
        assert_eq!(run("=AVERAGE(A1:A3)"), Val::Num(1.5));
        assert_eq!(run("=MAX(A1:A3, 7)"), Val::Num(7.0));
        assert_eq!(run("=COUNT(A1:A3)"), Val::Num(2.0));
        assert_eq!(run("=Sheet2!A1*2"), Val::Num(200.0));
        assert_eq!(run("='My Sheet'!A1"), Val::Num(100.0));
        assert_eq!(run("=\"a\"&1"), Val::Text("a1".into()));
        assert_eq!(run("=IF(A1>0,\"yes\",\"no\")"), Val::Text("yes".into()));
        assert_eq!(run("=50%"), Val::Num(0.5));
        assert!(matches!(run("=1/0"), Val::Err(ErrKind::Div0, _)));
        assert!(matches!(run("=FOO(1)"), Val::Err(ErrKind::Name, _)));
        assert!(matches!(run("=A3+1"), Val::Err(ErrKind::Value, _)));
        assert!(matches!(run("=1+"), Val::Err(ErrKind::Error, _)));
        assert!(matches!(run("=nosuchname"), Val::Err(ErrKind::Name, _)));
    }

    #[test]
    fn normalizes() {
        assert_eq!(normalize("=sum(a1:b2)+Sheet1!c3"), "=SUM(A1:B2)+Sheet1!C3");
        assert_eq!(normalize("=\"abc\"&a1"), "=\"abc\"&A1");
        assert_eq!(normalize("=foo"), "=foo");
    }
}
