//! Safe construction of Google Drive v3 search queries (the `q` parameter of `files.list`).
//!
//! User text (a file name to look for, words to find) must never change the meaning of a query: a file
//! named `x' or name contains '` has to stay a name. Drive string literals are single-quoted, with `\`
//! and `'` backslash-escaped inside; [`quote`] writes them and [`unquote`] / [`split_literal`] read them
//! back (the emulator's query parser uses the same pair, so both sides agree on the grammar).

use std::fmt;

/// Why a query literal or value was refused. Each message says what to send instead.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum QueryError {
    #[error("`{input}` is not a quoted string: Drive strings start and end with ', like 'report'")]
    NotQuoted { input: String },
    #[error("`{input}` never closes its quote: end the string with ', and write a quote inside it as \\'")]
    Unterminated { input: String },
    #[error("`{input}` has text after the closing quote: a string literal is just 'text'")]
    TrailingText { input: String },
    #[error(
        "`{input}` is not a date and time Drive understands: use RFC 3339, like 2025-01-31T09:00:00Z, or a date like 2025-01-31"
    )]
    BadTime { input: String },
}

/// Writes `value` as a Drive string literal, quotes included: `it's` → `'it\'s'`.
pub fn quote(value: &str) -> String {
    let mut out = String::with_capacity(value.len() + 2);
    out.push('\'');
    for c in value.chars() {
        if c == '\\' || c == '\'' {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('\'');
    out
}

/// Reads a whole Drive string literal back into its value; the inverse of [`quote`].
pub fn unquote(literal: &str) -> Result<String, QueryError> {
    let (value, rest) = split_literal(literal)?;
    if rest.is_empty() { Ok(value) } else { Err(QueryError::TrailingText { input: literal.to_string() }) }
}

/// Reads the string literal at the start of `input`, returning its value and the text after it.
///
/// A backslash takes the next character literally, as Drive does, so `\\` is `\` and `\'` is `'`.
pub fn split_literal(input: &str) -> Result<(String, &str), QueryError> {
    let Some(body) = input.strip_prefix('\'') else {
        return Err(QueryError::NotQuoted { input: input.to_string() });
    };
    let mut value = String::new();
    let mut chars = body.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '\'' => return Ok((value, &body[i + 1..])),
            '\\' => match chars.next() {
                Some((_, escaped)) => value.push(escaped),
                None => break,
            },
            other => value.push(other),
        }
    }
    Err(QueryError::Unterminated { input: input.to_string() })
}

/// A Drive query built from terms joined by `and`. Every helper quotes its value with [`quote`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Query {
    terms: Vec<String>,
}

impl Query {
    /// An empty query, which matches everything (render gives an empty string).
    pub fn new() -> Self {
        Query::default()
    }

    /// Adds a term written by our own code, such as `trashed = false`. Never pass user text here.
    /// A term containing `or` is wrapped in parentheses so it cannot leak into the other terms.
    pub fn and_raw(self, term: impl Into<String>) -> Self {
        let term = term.into();
        let lower = term.to_lowercase();
        if lower.contains(" or ") && !(term.starts_with('(') && term.ends_with(')')) {
            self.push(format!("({term})"))
        } else {
            self.push(term)
        }
    }

    /// Leaves out files in the trash.
    pub fn and_not_trashed(self) -> Self {
        self.push("trashed = false".into())
    }

    /// Files whose name contains `text` (Drive matches whole-word prefixes, ignoring case).
    pub fn and_name_contains(self, text: &str) -> Self {
        self.push(format!("name contains {}", quote(text)))
    }

    /// Files named exactly `name`.
    pub fn and_name_equals(self, name: &str) -> Self {
        self.push(format!("name = {}", quote(name)))
    }

    /// Files of one MIME type, e.g. `application/vnd.google-apps.spreadsheet`.
    pub fn and_mime_type(self, mime_type: &str) -> Self {
        self.push(format!("mimeType = {}", quote(mime_type)))
    }

    /// Files of any of the given MIME types; no types adds nothing.
    pub fn and_mime_type_in(self, mime_types: &[&str]) -> Self {
        let alternatives: Vec<String> = mime_types.iter().map(|m| format!("mimeType = {}", quote(m))).collect();
        match alternatives.len() {
            0 => self,
            1 => self.push(alternatives.concat()),
            _ => self.push(format!("({})", alternatives.join(" or "))),
        }
    }

    /// Files directly inside the folder with id `folder_id`.
    pub fn and_in_parents(self, folder_id: &str) -> Self {
        self.push(format!("{} in parents", quote(folder_id)))
    }

    /// Files whose content, name or description contains `text`.
    pub fn and_full_text_contains(self, text: &str) -> Self {
        self.push(format!("fullText contains {}", quote(text)))
    }

    /// Files modified after `time`: RFC 3339 (`2025-01-31T09:00:00Z`, offsets allowed) or a plain
    /// date (`2025-01-31`, meaning midnight UTC). Checked here so a bad value gets a clear message
    /// rather than Drive's "Invalid Value".
    pub fn and_modified_after(self, time: &str) -> Result<Self, QueryError> {
        let stamp = normalise_time(time)?;
        Ok(self.push(format!("modifiedTime > {}", quote(&stamp))))
    }

    /// True when no term has been added.
    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }

    /// The `q` string: the terms joined by ` and `.
    pub fn render(&self) -> String {
        self.terms.join(" and ")
    }

    fn push(mut self, term: String) -> Self {
        self.terms.push(term);
        self
    }
}

impl fmt::Display for Query {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render())
    }
}

/// Accepts RFC 3339 or a bare date and returns the RFC 3339 text Drive expects.
fn normalise_time(time: &str) -> Result<String, QueryError> {
    let trimmed = time.trim();
    let bad = || QueryError::BadTime { input: time.to_string() };
    if chrono::DateTime::parse_from_rfc3339(trimmed).is_ok() {
        return Ok(trimmed.to_string());
    }
    chrono::NaiveDate::parse_from_str(trimmed, "%Y-%m-%d")
        .map(|date| format!("{}T00:00:00Z", date.format("%Y-%m-%d")))
        .map_err(|_| bad())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn quote_escapes_backslash_and_quote() {
        assert_eq!(quote("report"), "'report'");
        assert_eq!(quote("it's"), r"'it\'s'");
        assert_eq!(quote(r"C:\temp"), r"'C:\\temp'");
        assert_eq!(quote(r"\'"), r"'\\\''");
        assert_eq!(quote(""), "''");
        assert_eq!(quote("naïve 😀"), "'naïve 😀'");
    }

    #[test]
    fn unquote_reads_what_quote_wrote_and_refuses_the_rest() {
        assert_eq!(unquote(r"'it\'s'").unwrap(), "it's");
        assert_eq!(unquote(r"'a\\b'").unwrap(), r"a\b");
        assert_eq!(unquote(r"'\x'").unwrap(), "x");
        assert_eq!(unquote("''").unwrap(), "");
        assert!(matches!(unquote("report"), Err(QueryError::NotQuoted { .. })));
        assert!(matches!(unquote("'report"), Err(QueryError::Unterminated { .. })));
        assert!(matches!(unquote(r"'report\'"), Err(QueryError::Unterminated { .. })));
        assert!(matches!(unquote(r"'report\"), Err(QueryError::Unterminated { .. })));
        assert!(matches!(unquote("'a' or 'b'"), Err(QueryError::TrailingText { .. })));
        assert_eq!(split_literal("'a b' in parents").unwrap(), ("a b".to_string(), " in parents"));
    }

    #[test]
    fn builder_joins_terms_with_and() {
        let q = Query::new()
            .and_not_trashed()
            .and_name_contains("Budget")
            .and_mime_type("application/vnd.google-apps.spreadsheet")
            .and_in_parents("0AbC_d-1")
            .and_full_text_contains("Q3 'draft'")
            .and_modified_after("2025-01-31T09:00:00+01:00")
            .unwrap();
        assert_eq!(
            q.render(),
            "trashed = false and name contains 'Budget' and mimeType = 'application/vnd.google-apps.spreadsheet' \
             and '0AbC_d-1' in parents and fullText contains 'Q3 \\'draft\\'' \
             and modifiedTime > '2025-01-31T09:00:00+01:00'"
        );
        assert_eq!(q.to_string(), q.render());
        assert!(Query::new().is_empty());
        assert_eq!(Query::new().render(), "");
    }

    #[test]
    fn builder_groups_alternatives() {
        let q = Query::new().and_mime_type_in(&["a/b", "c/d"]).and_name_equals("x");
        assert_eq!(q.render(), "(mimeType = 'a/b' or mimeType = 'c/d') and name = 'x'");
        assert_eq!(Query::new().and_mime_type_in(&["a/b"]).render(), "mimeType = 'a/b'");
        assert!(Query::new().and_mime_type_in(&[]).is_empty());
        let raw = Query::new().and_raw("starred = true or shared = true").and_raw("(a or b)");
        assert_eq!(raw.render(), "(starred = true or shared = true) and (a or b)");
    }

    #[test]
    fn modified_after_accepts_dates_and_refuses_junk() {
        let q = Query::new().and_modified_after("2025-01-31").unwrap();
        assert_eq!(q.render(), "modifiedTime > '2025-01-31T00:00:00Z'");
        for bad in ["yesterday", "2025-13-01", "2025-01-31 09:00", "' or name contains '"] {
            let err = Query::new().and_modified_after(bad).unwrap_err();
            assert!(matches!(err, QueryError::BadTime { .. }), "{bad}");
            assert!(err.to_string().contains("RFC 3339"));
        }
    }

    /// An independent Drive-style tokenizer: words, operators and quoted literals.
    #[derive(Debug, PartialEq)]
    enum Token {
        Word(String),
        Literal(String),
    }

    fn tokenize(q: &str) -> Vec<Token> {
        let mut tokens = Vec::new();
        let mut chars = q.chars().peekable();
        while let Some(&c) = chars.peek() {
            if c.is_whitespace() {
                chars.next();
            } else if c == '\'' {
                chars.next();
                let mut value = String::new();
                loop {
                    match chars.next() {
                        Some('\\') => value.extend(chars.next()),
                        Some('\'') | None => break,
                        Some(other) => value.push(other),
                    }
                }
                tokens.push(Token::Literal(value));
            } else {
                let mut word = String::new();
                while let Some(&w) = chars.peek() {
                    if w.is_whitespace() || w == '\'' {
                        break;
                    }
                    word.push(w);
                    chars.next();
                }
                tokens.push(Token::Word(word));
            }
        }
        tokens
    }

    #[test]
    fn an_injection_attempt_stays_a_name() {
        let evil = "x' or name contains '";
        let tokens = tokenize(&Query::new().and_name_contains(evil).render());
        assert_eq!(
            tokens,
            vec![Token::Word("name".into()), Token::Word("contains".into()), Token::Literal(evil.into())]
        );
    }

    proptest! {
        #[test]
        fn name_contains_is_always_one_literal(text in any::<String>()) {
            let rendered = Query::new().and_name_contains(&text).and_not_trashed().render();
            let tokens = tokenize(&rendered);
            prop_assert_eq!(tokens, vec![
                Token::Word("name".into()),
                Token::Word("contains".into()),
                Token::Literal(text.clone()),
                Token::Word("and".into()),
                Token::Word("trashed".into()),
                Token::Word("=".into()),
                Token::Word("false".into()),
            ]);
        }

        #[test]
        fn quote_and_unquote_are_inverse(text in any::<String>()) {
            prop_assert_eq!(unquote(&quote(&text)).unwrap(), text.clone());
            let query = format!("{} and x", quote(&text));
            let (value, rest) = split_literal(&query).unwrap();
            prop_assert_eq!(value, text);
            prop_assert_eq!(rest, " and x");
        }

        #[test]
        fn unquote_never_panics(text in any::<String>()) {
            let _ = unquote(&text);
        }
    }
}
