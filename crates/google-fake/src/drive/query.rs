//! Drive's search query language (`q` of `files.list` and `drives.list`), parsed into a tree and never
//! evaluated as text: `name = 'x\' or name contains \''` is one term about one name.
//!
//! ```text
//! query   := or
//! or      := and ("or" and)*
//! and     := unary ("and" unary)*
//! unary   := "not" unary | "(" query ")" | term
//! term    := STRING "in" field                  'ID' in parents, 'a@b' in owners|writers|readers
//!          | field op value                      name = 'x', modifiedTime > '2024-01-01T00:00:00'
//!          | field "contains" STRING             name contains 'x', fullText contains 'x'
//!          | field "has" "{" "key" "=" STRING "and" "value" "=" STRING "}"
//!          | field                               a bare boolean field: sharedWithMe, starred, trashed
//! STRING  := ' … ' with \' and \\ (a backslash takes the next character literally)
//! ```
//!
//! Any other shape, an unknown field, or an operator a field does not take is Drive's 400 `invalid` at `q`.

use chrono::{DateTime, NaiveDateTime, Utc};

use crate::errors::ApiError;

/// A comparison or membership operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Op {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Contains,
    In,
    Has,
}

/// The value side of a term.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Literal {
    Str(String),
    Bool(bool),
    Time(DateTime<Utc>),
    Num(i64),
    Pair(String, String),
}

/// One term: `field op value` (for `'v' in field`, the value is the quoted string).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Cond {
    pub field: &'static str,
    pub op: Op,
    pub value: Literal,
}

/// A parsed query.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Expr {
    And(Box<Expr>, Box<Expr>),
    Or(Box<Expr>, Box<Expr>),
    Not(Box<Expr>),
    Term(Cond),
}

impl Expr {
    /// Evaluates the query, asking `test` about each term.
    pub(crate) fn eval(&self, test: &mut dyn FnMut(&Cond) -> bool) -> bool {
        match self {
            Self::And(a, b) => a.eval(test) && b.eval(test),
            Self::Or(a, b) => a.eval(test) || b.eval(test),
            Self::Not(inner) => !inner.eval(test),
            Self::Term(cond) => test(cond),
        }
    }

    /// Whether any term is about `field`.
    pub(crate) fn mentions(&self, field: &str) -> bool {
        match self {
            Self::And(a, b) | Self::Or(a, b) => a.mentions(field) || b.mentions(field),
            Self::Not(inner) => inner.mentions(field),
            Self::Term(cond) => cond.field == field,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Text,
    Time,
    Bool,
    Member,
    Props,
    Num,
}

const COMPARE: &[Op] = &[Op::Eq, Op::Ne, Op::Lt, Op::Le, Op::Gt, Op::Ge];
const EQUALITY: &[Op] = &[Op::Eq, Op::Ne];

/// The fields a query may use, with their value kind and operators.
pub(crate) struct Spec(&'static [(&'static str, Kind, &'static [Op])]);

/// `files.list`.
pub(crate) const FILES: Spec = Spec(&[
    ("name", Kind::Text, &[Op::Eq, Op::Ne, Op::Contains]),
    ("fullText", Kind::Text, &[Op::Contains]),
    ("mimeType", Kind::Text, &[Op::Eq, Op::Ne, Op::Contains]),
    ("modifiedTime", Kind::Time, COMPARE),
    ("viewedByMeTime", Kind::Time, COMPARE),
    ("createdTime", Kind::Time, COMPARE),
    ("trashed", Kind::Bool, EQUALITY),
    ("starred", Kind::Bool, EQUALITY),
    ("sharedWithMe", Kind::Bool, EQUALITY),
    ("parents", Kind::Member, &[Op::In]),
    ("owners", Kind::Member, &[Op::In]),
    ("writers", Kind::Member, &[Op::In]),
    ("readers", Kind::Member, &[Op::In]),
    ("properties", Kind::Props, &[Op::Has]),
    ("appProperties", Kind::Props, &[Op::Has]),
    ("visibility", Kind::Text, EQUALITY),
    ("shortcutDetails.targetId", Kind::Text, EQUALITY),
]);

/// `drives.list`.
pub(crate) const DRIVES: Spec = Spec(&[
    ("name", Kind::Text, &[Op::Eq, Op::Ne, Op::Contains]),
    ("createdTime", Kind::Time, COMPARE),
    ("hidden", Kind::Bool, EQUALITY),
    ("memberCount", Kind::Num, COMPARE),
    ("organizerCount", Kind::Num, COMPARE),
]);

/// Drive's answer to any query it cannot parse.
pub(crate) fn invalid_query() -> ApiError {
    ApiError::drive_invalid("q", "Invalid Value")
}

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Str(String),
    Word(String),
    Num(i64),
    Op(Op),
    Open,
    Close,
    OpenBrace,
    CloseBrace,
}

fn tokenize(input: &str) -> Result<Vec<Token>, ApiError> {
    let mut tokens = Vec::new();
    let mut chars = input.chars().peekable();
    while let Some(&c) = chars.peek() {
        match c {
            c if c.is_whitespace() => {
                chars.next();
            }
            '\'' => {
                chars.next();
                let mut value = String::new();
                loop {
                    match chars.next() {
                        Some('\\') => value.push(chars.next().ok_or_else(invalid_query)?),
                        Some('\'') => break,
                        Some(other) => value.push(other),
                        None => return Err(invalid_query()),
                    }
                }
                tokens.push(Token::Str(value));
            }
            '(' | ')' | '{' | '}' => {
                chars.next();
                tokens.push(match c {
                    '(' => Token::Open,
                    ')' => Token::Close,
                    '{' => Token::OpenBrace,
                    _ => Token::CloseBrace,
                });
            }
            '=' => {
                chars.next();
                tokens.push(Token::Op(Op::Eq));
            }
            '!' | '<' | '>' => {
                chars.next();
                let equals = chars.peek() == Some(&'=');
                if equals {
                    chars.next();
                }
                tokens.push(Token::Op(match (c, equals) {
                    ('!', true) => Op::Ne,
                    ('<', false) => Op::Lt,
                    ('<', true) => Op::Le,
                    ('>', false) => Op::Gt,
                    ('>', true) => Op::Ge,
                    _ => return Err(invalid_query()),
                }));
            }
            c if c.is_ascii_digit() || c == '-' => {
                let mut digits = String::new();
                digits.push(c);
                chars.next();
                while let Some(&d) = chars.peek().filter(|d| d.is_ascii_digit()) {
                    digits.push(d);
                    chars.next();
                }
                tokens.push(Token::Num(digits.parse().map_err(|_| invalid_query())?));
            }
            c if c.is_ascii_alphabetic() || c == '_' => {
                let mut word = String::new();
                while let Some(&w) = chars.peek().filter(|w| w.is_ascii_alphanumeric() || matches!(w, '_' | '.')) {
                    word.push(w);
                    chars.next();
                }
                tokens.push(Token::Word(word));
            }
            _ => return Err(invalid_query()),
        }
    }
    Ok(tokens)
}

/// Parses `q` against the fields of `spec`.
pub(crate) fn parse(q: &str, spec: &Spec) -> Result<Expr, ApiError> {
    let tokens = tokenize(q)?;
    let mut parser = Parser { tokens, pos: 0, spec };
    let expr = parser.or()?;
    if parser.pos != parser.tokens.len() {
        return Err(invalid_query());
    }
    Ok(expr)
}

struct Parser<'s> {
    tokens: Vec<Token>,
    pos: usize,
    spec: &'s Spec,
}

impl Parser<'_> {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.pos)
    }

    fn next(&mut self) -> Option<Token> {
        let token = self.tokens.get(self.pos).cloned();
        self.pos += 1;
        token
    }

    fn keyword(&mut self, word: &str) -> bool {
        if matches!(self.peek(), Some(Token::Word(w)) if w.eq_ignore_ascii_case(word)) {
            self.pos += 1;
            return true;
        }
        false
    }

    fn expect(&mut self, token: &Token) -> Result<(), ApiError> {
        if self.next().as_ref() == Some(token) { Ok(()) } else { Err(invalid_query()) }
    }

    fn or(&mut self) -> Result<Expr, ApiError> {
        let mut left = self.and()?;
        while self.keyword("or") {
            left = Expr::Or(Box::new(left), Box::new(self.and()?));
        }
        Ok(left)
    }

    fn and(&mut self) -> Result<Expr, ApiError> {
        let mut left = self.unary()?;
        while self.keyword("and") {
            left = Expr::And(Box::new(left), Box::new(self.unary()?));
        }
        Ok(left)
    }

    fn unary(&mut self) -> Result<Expr, ApiError> {
        if self.keyword("not") {
            return Ok(Expr::Not(Box::new(self.unary()?)));
        }
        if self.peek() == Some(&Token::Open) {
            self.pos += 1;
            let inner = self.or()?;
            self.expect(&Token::Close)?;
            return Ok(inner);
        }
        self.term().map(Expr::Term)
    }

    fn field(&self, name: &str) -> Result<(&'static str, Kind, &'static [Op]), ApiError> {
        self.spec.0.iter().find(|(field, _, _)| *field == name).copied().ok_or_else(invalid_query)
    }

    fn term(&mut self) -> Result<Cond, ApiError> {
        match self.next() {
            Some(Token::Str(value)) => {
                if !self.keyword("in") {
                    return Err(invalid_query());
                }
                let Some(Token::Word(name)) = self.next() else {
                    return Err(invalid_query());
                };
                let (field, kind, _) = self.field(&name)?;
                if kind != Kind::Member {
                    return Err(invalid_query());
                }
                Ok(Cond { field, op: Op::In, value: Literal::Str(value) })
            }
            Some(Token::Word(name)) => {
                let (field, kind, ops) = self.field(&name)?;
                let op = match self.peek() {
                    Some(Token::Op(op)) => Some(*op),
                    Some(Token::Word(w)) if w.eq_ignore_ascii_case("contains") => Some(Op::Contains),
                    Some(Token::Word(w)) if w.eq_ignore_ascii_case("has") => Some(Op::Has),
                    _ => None,
                };
                let Some(op) = op else {
                    // A bare boolean field reads as `field = true`.
                    return if kind == Kind::Bool {
                        Ok(Cond { field, op: Op::Eq, value: Literal::Bool(true) })
                    } else {
                        Err(invalid_query())
                    };
                };
                self.pos += 1;
                if !ops.contains(&op) {
                    return Err(invalid_query());
                }
                let value = self.value(kind)?;
                Ok(Cond { field, op, value })
            }
            _ => Err(invalid_query()),
        }
    }

    fn value(&mut self, kind: Kind) -> Result<Literal, ApiError> {
        match (kind, self.next()) {
            (Kind::Text, Some(Token::Str(text))) => Ok(Literal::Str(text)),
            (Kind::Time, Some(Token::Str(text))) => parse_time(&text).map(Literal::Time).ok_or_else(invalid_query),
            (Kind::Bool, Some(Token::Word(word))) => match word.to_ascii_lowercase().as_str() {
                "true" => Ok(Literal::Bool(true)),
                "false" => Ok(Literal::Bool(false)),
                _ => Err(invalid_query()),
            },
            (Kind::Num, Some(Token::Num(n))) => Ok(Literal::Num(n)),
            (Kind::Props, Some(Token::OpenBrace)) => {
                if !self.keyword("key") {
                    return Err(invalid_query());
                }
                self.expect(&Token::Op(Op::Eq))?;
                let Some(Token::Str(key)) = self.next() else {
                    return Err(invalid_query());
                };
                if !self.keyword("and") || !self.keyword("value") {
                    return Err(invalid_query());
                }
                self.expect(&Token::Op(Op::Eq))?;
                let Some(Token::Str(value)) = self.next() else {
                    return Err(invalid_query());
                };
                self.expect(&Token::CloseBrace)?;
                Ok(Literal::Pair(key, value))
            }
            _ => Err(invalid_query()),
        }
    }
}

/// RFC 3339; without an offset the time is UTC, as Drive documents.
pub(crate) fn parse_time(text: &str) -> Option<DateTime<Utc>> {
    let text = text.trim();
    if let Ok(time) = DateTime::parse_from_rfc3339(text) {
        return Some(time.with_timezone(&Utc));
    }
    ["%Y-%m-%dT%H:%M:%S%.f", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%dT%H:%M"]
        .iter()
        .find_map(|format| NaiveDateTime::parse_from_str(text, format).ok())
        .map(|naive| naive.and_utc())
}

/// Drive's `contains` on names and text: case-insensitive, matching at the start of a word.
pub(crate) fn word_prefix(haystack: &str, needle: &str) -> bool {
    let hay = haystack.to_lowercase();
    let needle = needle.to_lowercase();
    if needle.is_empty() {
        return true;
    }
    let mut previous: Option<char> = None;
    for (index, c) in hay.char_indices() {
        if previous.is_none_or(|p| !p.is_alphanumeric()) && hay[index..].starts_with(&needle) {
            return true;
        }
        previous = Some(c);
    }
    false
}

/// Compares `actual` with a term's value using the term's operator.
pub(crate) fn compare<T: PartialOrd>(actual: &T, op: Op, expected: &T) -> bool {
    match op {
        Op::Eq => actual == expected,
        Op::Ne => actual != expected,
        Op::Lt => actual < expected,
        Op::Le => actual <= expected,
        Op::Gt => actual > expected,
        Op::Ge => actual >= expected,
        Op::Contains | Op::In | Op::Has => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(q: &str) -> Expr {
        match parse(q, &FILES) {
            Ok(expr) => expr,
            Err(error) => panic!("{q}: {error:?}"),
        }
    }

    #[test]
    fn parses_the_documented_shapes() {
        for q in [
            "name = 'hello'",
            "name contains 'hello' and name contains 'goodbye'",
            "not name contains 'hello'",
            "fullText contains 'hello'",
            "mimeType != 'application/vnd.google-apps.folder'",
            "'1234' in parents and trashed = false",
            "'me' in owners or 'a@b.c' in writers or 'a@b.c' in readers",
            "modifiedTime > '2012-06-04T12:00:00' and (mimeType contains 'image/' or mimeType contains 'video/')",
            "viewedByMeTime <= '2024-01-01T00:00:00Z' and createdTime >= '2024-01-01T00:00:00.000+02:00'",
            "sharedWithMe and starred = true",
            "properties has { key='department' and value='finance' }",
            "visibility = 'anyoneWithLink' AND NOT trashed",
        ] {
            ok(q);
        }
    }

    #[test]
    fn refuses_malformed_queries() {
        for q in [
            "name = ",
            "name = 'x",
            "name == 'x'",
            "name > 'x'",
            "title = 'x'",
            "'x' in name",
            "name = 'x' and",
            "(name = 'x'",
            "name = 'x')",
            "modifiedTime > 'yesterday'",
            "trashed = maybe",
            "name = \"x\"",
            "name contains 'a' or or name contains 'b'",
            "'a' 'b'",
        ] {
            assert!(parse(q, &FILES).is_err(), "{q}");
        }
    }

    #[test]
    fn an_escaped_quote_stays_inside_the_string() {
        let expr = ok(r"name = 'x\' or name contains \''");
        assert_eq!(
            expr,
            Expr::Term(Cond { field: "name", op: Op::Eq, value: Literal::Str("x' or name contains '".into()) })
        );
        assert_eq!(
            ok(r"name = 'a\\b'"),
            Expr::Term(Cond { field: "name", op: Op::Eq, value: Literal::Str(r"a\b".into()) })
        );
    }

    #[test]
    fn and_binds_tighter_than_or() {
        let expr = ok("starred or trashed and sharedWithMe");
        assert!(matches!(expr, Expr::Or(_, _)));
    }

    #[test]
    fn contains_matches_word_prefixes() {
        assert!(word_prefix("Budget 2026", "budget"));
        assert!(word_prefix("Budget 2026", "2026"));
        assert!(!word_prefix("Budget 2026", "get 2"));
        assert!(!word_prefix("HelloWorld", "World"));
        assert!(word_prefix("team-contacts.csv", "contacts"));
    }
}
