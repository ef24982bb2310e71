//! Google Sheets A1 notation: parsing, canonical formatting and conversion to a `GridRange`.
//!
//! Assistants write ranges in many shapes (`Sheet1!A1:B2`, `'My Sheet'!A:C`, `2:5`, `a2:c`). We parse
//! them ourselves so a typo gets a plain-words answer instead of Google's "Unable to parse range", and
//! so tools can describe the target precisely on an approval card.
//!
//! Rules, following Google's:
//! - Text without `!` that is a range (`B3`, `A1:B2`, `A:C`, `2:5`) means that range on the first
//!   sheet; any other text without `!` is a sheet name and means the whole sheet. Text without `!` that
//!   contains `:` must be a range, so sheet names with a colon need quotes (`'Q1:Q2'`).
//! - Sheet names may be quoted with `'`, doubling a quote inside (`'Bob''s data'!A1`).
//! - `A2:C` is columns A to C from row 2 down; `B2:5` is rows 2 to 5 from column B rightwards;
//!   `A:C5` is read as `A1:C5`. Corners may be given in any order (`B2:A1` is `A1:B2`).
//! - Column letters are case-insensitive and go up to `ZZZ`, the last column Sheets allows;
//!   `$` markers of absolute references are accepted and ignored.

use serde_json::{Map, Value, json};

/// The number of columns Google Sheets allows (A through ZZZ).
pub const MAX_COLUMNS: u32 = 18_278;

/// Why a range or column could not be understood. Each message says what to write instead.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum A1Error {
    #[error("the range is empty: give a sheet name like Sheet1, a range like A1:B2, or both like Sheet1!A1:B2")]
    Empty,
    #[error(
        "`{input}` starts a quoted sheet name but never closes the quote: write it like 'My Sheet'!A1, doubling any quote inside the name ('Bob''s data')"
    )]
    UnclosedQuote { input: String },
    #[error(
        "`{input}` has text after the quoted sheet name that is not `!` and a range: write it like 'My Sheet'!A1:B2"
    )]
    AfterQuote { input: String },
    #[error("`{input}` has an empty sheet name: put the sheet's name before the `!`, like Sheet1!A1")]
    EmptySheetName { input: String },
    #[error(
        "`{input}` has nothing after the `!`: add a range like A1:B2, or leave out the `!` to mean the whole sheet"
    )]
    NothingAfterBang { input: String },
    #[error(
        "`{part}` in `{input}` is not a cell reference: use a column letter then a row number, like B3, a whole column like B:B, or whole rows like 2:5"
    )]
    NotACell { part: String, input: String },
    #[error("`{input}` has too many `:` separators: a range has two corners, like A1:B2")]
    TooManyColons { input: String },
    #[error("`{input}` uses row 0, but rows start at 1: the first cell is A1")]
    RowZero { input: String },
    #[error("`{input}` uses a row number too large for any sheet")]
    RowTooLarge { input: String },
    #[error("`{letters}` is past ZZZ, the last column Google Sheets has")]
    ColumnTooFar { letters: String },
    #[error("`{letters}` is not a column: use letters only, from A to ZZZ")]
    NotAColumn { letters: String },
    #[error("`{part}` on its own is not a range: write a whole column as {part}:{part} or a cell like {part}1")]
    LoneColumn { part: String },
    #[error("`{part}` on its own is not a range: write a whole row as {part}:{part} or a cell like A{part}")]
    LoneRow { part: String },
    #[error("`{input}` mixes a whole column with a whole row: use A:C for columns, 2:5 for rows, or A2:C5 for a block")]
    ColumnWithRow { input: String },
    #[error(
        "the range names sheet `{range_sheet}` but the sheet argument is `{sheet}`: drop the sheet from the range or make the two match"
    )]
    SheetMismatch { range_sheet: String, sheet: String },
    #[error("the sheet argument is empty: give the sheet's name as shown on its tab, like Sheet1")]
    NoSheet,
    #[error("`{range}` is not a range: use A1 notation like A1:C10, B:B or 2:5 (the sheet is given separately)")]
    NotARange { range: String },
}

/// A rectangle on a sheet, 0-based with exclusive ends like Sheets' `GridRange`; `None` = unbounded.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct A1Range {
    /// The sheet's name; `None` means the spreadsheet's first sheet.
    pub sheet: Option<String>,
    pub start_row: Option<u32>,
    pub start_col: Option<u32>,
    pub end_row: Option<u32>,
    pub end_col: Option<u32>,
}

/// One side of a range as written: `B3`, `B` or `3`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Corner {
    Cell { col: u32, row: u32 },
    Col(u32),
    Row(u32),
}

impl A1Range {
    /// Parses A1 text such as `Sheet1!A1:B2`, `'My Sheet'`, `B3`, `A:C`, `2:5` or `A2:C`.
    pub fn parse(input: &str) -> Result<A1Range, A1Error> {
        let text = input.trim();
        if text.is_empty() {
            return Err(A1Error::Empty);
        }
        if text.starts_with('\'') {
            let (name, rest) = split_quoted(text)?;
            if rest.is_empty() {
                return Ok(A1Range::whole_sheet(name));
            }
            let Some(cells) = rest.strip_prefix('!') else {
                return Err(A1Error::AfterQuote { input: text.to_string() });
            };
            return with_sheet(name, cells, text);
        }
        if let Some(bang) = text.rfind('!') {
            let (name, cells) = (&text[..bang], &text[bang + 1..]);
            if name.is_empty() {
                return Err(A1Error::EmptySheetName { input: text.to_string() });
            }
            return with_sheet(name.to_string(), cells, text);
        }
        // No sheet: a range on the first sheet if it reads as one, otherwise a sheet name.
        match parse_cells(text, text) {
            Ok(range) => Ok(range),
            Err(err) if text.contains(':') => Err(err),
            Err(_) => Ok(A1Range::whole_sheet(text.to_string())),
        }
    }

    /// The whole of the named sheet.
    pub fn whole_sheet(name: impl Into<String>) -> A1Range {
        A1Range { sheet: Some(name.into()), ..A1Range::default() }
    }

    /// Canonical A1 text, quoting the sheet name when Sheets would.
    ///
    /// Ranges A1 cannot say exactly are widened to an equivalent Sheets reads the same way: an open
    /// start counts as the first row or column, an empty extent as one cell, and a block open both
    /// downwards and rightwards from a corner other than A1 runs to column ZZZ. With no sheet and no
    /// bounds at all there is nothing to write, and the result is empty.
    pub fn to_a1(&self) -> String {
        let cells = self.cells_text();
        match (&self.sheet, cells) {
            (Some(sheet), Some(cells)) => format!("{}!{cells}", quote_sheet(sheet)),
            (Some(sheet), None) => quote_sheet(sheet),
            (None, Some(cells)) => cells,
            (None, None) => String::new(),
        }
    }

    /// The part after `!`, or `None` for a whole sheet.
    fn cells_text(&self) -> Option<String> {
        let sc = self.start_col.unwrap_or(0);
        let sr = self.start_row.unwrap_or(0);
        // An end at or before the start would be empty; Sheets has no empty ranges, so keep one cell.
        let ec = self.end_col.map(|e| e.max(sc.saturating_add(1)));
        let er = self.end_row.map(|e| e.max(sr.saturating_add(1)));
        let cell = |c: u32, r: u32| format!("{}{}", column_letters(c), u64::from(r) + 1);
        Some(match (ec, er) {
            (Some(ec), Some(er)) if ec - sc == 1 && er - sr == 1 => cell(sc, sr),
            (Some(ec), Some(er)) => format!("{}:{}", cell(sc, sr), cell(ec - 1, er - 1)),
            (Some(ec), None) if sr == 0 => {
                format!("{}:{}", column_letters(sc), column_letters(ec - 1))
            }
            (Some(ec), None) => format!("{}:{}", cell(sc, sr), column_letters(ec - 1)),
            (None, Some(er)) if sc == 0 => format!("{}:{}", u64::from(sr) + 1, er),
            (None, Some(er)) => format!("{}:{}", cell(sc, sr), er),
            (None, None) if sc == 0 && sr == 0 => return None,
            (None, None) => format!("{}:{}", cell(sc, sr), column_letters(MAX_COLUMNS - 1)),
        })
    }

    /// Sheets' `GridRange` JSON for this range on the sheet with id `sheet_id`; unbounded sides are
    /// left out, as the API expects.
    pub fn to_grid_range(&self, sheet_id: i64) -> Value {
        let mut map = Map::new();
        map.insert("sheetId".into(), json!(sheet_id));
        let fields = [
            ("startRowIndex", self.start_row),
            ("endRowIndex", self.end_row),
            ("startColumnIndex", self.start_col),
            ("endColumnIndex", self.end_col),
        ];
        for (key, value) in fields {
            if let Some(v) = value {
                map.insert(key.into(), json!(v));
            }
        }
        Value::Object(map)
    }
}

impl std::fmt::Display for A1Range {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.to_a1())
    }
}

impl std::str::FromStr for A1Range {
    type Err = A1Error;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        A1Range::parse(s)
    }
}

/// Builds the `range` a tool sends to `values.get` from its `sheet` and optional `range` arguments.
///
/// The rule: `sheet` always names the sheet (surrounding quotes, as in `'My Sheet'`, are removed).
/// `range`, when given, must be A1 cells (`A1:C10`, `B:B`, `2:5`). If `range` also names a sheet, it
/// must be the same sheet (compared ignoring case, as Sheets does for sheet names), otherwise it is an
/// error rather than a silent guess; `range` may also be just the sheet's name. No `range` (or a blank
/// one) means the whole sheet.
pub fn qualified(sheet: &str, range: Option<&str>) -> Result<String, A1Error> {
    let sheet = strip_sheet_quotes(sheet.trim());
    if sheet.is_empty() {
        return Err(A1Error::NoSheet);
    }
    let range = range.map(str::trim).unwrap_or("");
    if range.is_empty() {
        return Ok(quote_sheet(&sheet));
    }
    let mut parsed = if range.contains('!') || range.starts_with('\'') {
        A1Range::parse(range)?
    } else if range.to_lowercase() == sheet.to_lowercase() {
        // The sheet's own name, even one that reads like a cell, means the whole sheet.
        A1Range::whole_sheet(range)
    } else {
        match parse_cells(range, range) {
            Ok(cells) => cells,
            Err(err) if range.contains(':') => return Err(err),
            Err(_) => {
                return Err(A1Error::NotARange { range: range.to_string() });
            }
        }
    };
    if let Some(named) = &parsed.sheet
        && named.to_lowercase() != sheet.to_lowercase()
    {
        return Err(A1Error::SheetMismatch { range_sheet: named.clone(), sheet });
    }
    parsed.sheet = Some(sheet);
    Ok(parsed.to_a1())
}

/// Column letters for a 0-based column index: 0 → `A`, 25 → `Z`, 26 → `AA`.
pub fn column_letters(index: u32) -> String {
    let mut n = u64::from(index) + 1;
    let mut letters = Vec::new();
    while n > 0 {
        let rem = ((n - 1) % 26) as u8;
        letters.push(char::from(b'A' + rem));
        n = (n - 1) / 26;
    }
    letters.iter().rev().collect()
}

/// The 0-based index of column letters (`A` → 0, `ab` → 27), up to `ZZZ`.
pub fn column_index(letters: &str) -> Result<u32, A1Error> {
    let trimmed = letters.trim();
    if trimmed.is_empty() || !trimmed.bytes().all(|b| b.is_ascii_alphabetic()) {
        return Err(A1Error::NotAColumn { letters: letters.to_string() });
    }
    let mut n: u64 = 0;
    for b in trimmed.bytes() {
        n = n * 26 + u64::from(b.to_ascii_uppercase() - b'A' + 1);
        if n > u64::from(MAX_COLUMNS) {
            return Err(A1Error::ColumnTooFar { letters: trimmed.to_string() });
        }
    }
    Ok((n - 1) as u32)
}

/// Writes a sheet name the way Sheets does: bare when it is plain letters, digits and underscores
/// that cannot be mistaken for a cell, otherwise in quotes with inner quotes doubled.
pub fn quote_sheet(name: &str) -> String {
    let simple = !name.is_empty()
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
        && !name.as_bytes()[0].is_ascii_digit()
        && !looks_like_reference(name);
    if simple { name.to_string() } else { format!("'{}'", name.replace('\'', "''")) }
}

/// True for names Sheets could read as a cell (`AB12`) or an R1C1 reference (`R1C1`).
fn looks_like_reference(name: &str) -> bool {
    let letters = name.bytes().take_while(u8::is_ascii_alphabetic).count();
    let rest = &name[letters..];
    let cell = (1..=3).contains(&letters) && !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_digit());
    let upper = name.to_ascii_uppercase();
    let r1c1 = upper
        .strip_prefix('R')
        .and_then(|r| r.split_once('C'))
        .is_some_and(|(r, c)| r.bytes().all(|b| b.is_ascii_digit()) && c.bytes().all(|b| b.is_ascii_digit()));
    cell || r1c1
}

/// Removes one pair of surrounding quotes from a sheet argument, if they form a valid quoted name.
fn strip_sheet_quotes(sheet: &str) -> String {
    match split_quoted(sheet) {
        Ok((name, "")) if sheet.len() >= 2 => name,
        _ => sheet.to_string(),
    }
}

/// Splits `'name'rest` into the unescaped name and the rest.
fn split_quoted(text: &str) -> Result<(String, &str), A1Error> {
    let unclosed = || A1Error::UnclosedQuote { input: text.to_string() };
    let body = text.strip_prefix('\'').ok_or_else(unclosed)?;
    let mut name = String::new();
    let mut chars = body.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if c != '\'' {
            name.push(c);
        } else if chars.peek().is_some_and(|&(_, next)| next == '\'') {
            name.push('\'');
            chars.next();
        } else {
            if name.is_empty() {
                return Err(A1Error::EmptySheetName { input: text.to_string() });
            }
            return Ok((name, &body[i + 1..]));
        }
    }
    Err(unclosed())
}

fn with_sheet(name: String, cells: &str, input: &str) -> Result<A1Range, A1Error> {
    if cells.trim().is_empty() {
        return Err(A1Error::NothingAfterBang { input: input.to_string() });
    }
    let mut range = parse_cells(cells, input)?;
    range.sheet = Some(name);
    Ok(range)
}

/// Parses the part after `!`: one cell, or two corners joined by `:`.
fn parse_cells(cells: &str, input: &str) -> Result<A1Range, A1Error> {
    let parts: Vec<&str> = cells.split(':').collect();
    let range = |sr, sc, er, ec| A1Range { sheet: None, start_row: sr, start_col: sc, end_row: er, end_col: ec };
    match parts.as_slice() {
        [one] => match parse_corner(one, input)? {
            Corner::Cell { col, row } => Ok(range(Some(row), Some(col), Some(row + 1), Some(col + 1))),
            Corner::Col(_) => Err(A1Error::LoneColumn { part: one.trim().to_string() }),
            Corner::Row(_) => Err(A1Error::LoneRow { part: one.trim().to_string() }),
        },
        [a, b] => {
            let (a, b) = (parse_corner(a, input)?, parse_corner(b, input)?);
            let span = |x: u32, y: u32| (x.min(y), x.max(y) + 1);
            Ok(match (a, b) {
                (Corner::Cell { col: c1, row: r1 }, Corner::Cell { col: c2, row: r2 }) => {
                    let ((sc, ec), (sr, er)) = (span(c1, c2), span(r1, r2));
                    range(Some(sr), Some(sc), Some(er), Some(ec))
                }
                (Corner::Col(c1), Corner::Col(c2)) => {
                    let (sc, ec) = span(c1, c2);
                    range(None, Some(sc), None, Some(ec))
                }
                (Corner::Row(r1), Corner::Row(r2)) => {
                    let (sr, er) = span(r1, r2);
                    range(Some(sr), None, Some(er), None)
                }
                (Corner::Cell { col, row }, Corner::Col(c2)) | (Corner::Col(c2), Corner::Cell { col, row }) => {
                    let (sc, ec) = span(col, c2);
                    if matches!(a, Corner::Col(_)) {
                        // `A:C5` reads as `A1:C5`.
                        range(Some(0), Some(sc), Some(row + 1), Some(ec))
                    } else {
                        range(Some(row), Some(sc), None, Some(ec))
                    }
                }
                (Corner::Cell { col, row }, Corner::Row(r2)) | (Corner::Row(r2), Corner::Cell { col, row }) => {
                    let (sr, er) = span(row, r2);
                    if matches!(a, Corner::Row(_)) {
                        // `2:C5` reads as `A2:C5`.
                        range(Some(sr), Some(0), Some(er), Some(col + 1))
                    } else {
                        range(Some(sr), Some(col), Some(er), None)
                    }
                }
                (Corner::Col(_), Corner::Row(_)) | (Corner::Row(_), Corner::Col(_)) => {
                    return Err(A1Error::ColumnWithRow { input: input.to_string() });
                }
            })
        }
        _ => Err(A1Error::TooManyColons { input: input.to_string() }),
    }
}

/// Parses `B3`, `B`, `3` (with optional `$` markers) into a 0-based corner.
fn parse_corner(part: &str, input: &str) -> Result<Corner, A1Error> {
    let trimmed = part.trim();
    let not_cell = || A1Error::NotACell { part: trimmed.to_string(), input: input.to_string() };
    let text = trimmed.strip_prefix('$').unwrap_or(trimmed);
    let letters_len = text.bytes().take_while(u8::is_ascii_alphabetic).count();
    let (letters, rest) = text.split_at(letters_len);
    let digits = rest.strip_prefix('$').filter(|_| letters_len > 0).unwrap_or(rest);
    if !digits.bytes().all(|b| b.is_ascii_digit()) || (letters.is_empty() && digits.is_empty()) {
        return Err(not_cell());
    }
    let col = if letters.is_empty() { None } else { Some(column_index(letters)?) };
    let row = if digits.is_empty() {
        None
    } else {
        let number: u32 = digits.parse().map_err(|_| A1Error::RowTooLarge { input: input.to_string() })?;
        if number == 0 {
            return Err(A1Error::RowZero { input: input.to_string() });
        }
        Some(number - 1)
    };
    Ok(match (col, row) {
        (Some(col), Some(row)) => Corner::Cell { col, row },
        (Some(col), None) => Corner::Col(col),
        (None, Some(row)) => Corner::Row(row),
        (None, None) => return Err(not_cell()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn r(sheet: Option<&str>, sr: Option<u32>, sc: Option<u32>, er: Option<u32>, ec: Option<u32>) -> A1Range {
        A1Range { sheet: sheet.map(str::to_string), start_row: sr, start_col: sc, end_row: er, end_col: ec }
    }

    fn p(text: &str) -> A1Range {
        A1Range::parse(text).unwrap()
    }

    #[test]
    fn columns_convert_both_ways() {
        for (i, s) in [(0, "A"), (25, "Z"), (26, "AA"), (27, "AB"), (51, "AZ"), (52, "BA"), (701, "ZZ"), (702, "AAA")] {
            assert_eq!(column_letters(i), s);
            assert_eq!(column_index(s).unwrap(), i);
            assert_eq!(column_index(&s.to_lowercase()).unwrap(), i);
        }
        assert_eq!(column_letters(MAX_COLUMNS - 1), "ZZZ");
        assert_eq!(column_index("ZZZ").unwrap(), MAX_COLUMNS - 1);
        assert!(matches!(column_index("AAAA"), Err(A1Error::ColumnTooFar { .. })));
        assert!(matches!(column_index(""), Err(A1Error::NotAColumn { .. })));
        assert!(matches!(column_index("A1"), Err(A1Error::NotAColumn { .. })));
        assert!(matches!(column_index("É"), Err(A1Error::NotAColumn { .. })));
    }

    #[test]
    fn parses_the_documented_shapes() {
        assert_eq!(p("Sheet1!A1:B2"), r(Some("Sheet1"), Some(0), Some(0), Some(2), Some(2)));
        assert_eq!(p("'My Sheet'!A1:B2"), r(Some("My Sheet"), Some(0), Some(0), Some(2), Some(2)));
        assert_eq!(p("'Bob''s data'!C3"), r(Some("Bob's data"), Some(2), Some(2), Some(3), Some(3)));
        assert_eq!(p("Sheet1"), A1Range::whole_sheet("Sheet1"));
        assert_eq!(p("'My Sheet'"), A1Range::whole_sheet("My Sheet"));
        assert_eq!(p("B3"), r(None, Some(2), Some(1), Some(3), Some(2)));
        assert_eq!(p("A:C"), r(None, None, Some(0), None, Some(3)));
        assert_eq!(p("2:5"), r(None, Some(1), None, Some(5), None));
        assert_eq!(p("A2:C"), r(None, Some(1), Some(0), None, Some(3)));
        assert_eq!(p("Sheet1!A5:A"), r(Some("Sheet1"), Some(4), Some(0), None, Some(1)));
        assert_eq!(p("B5:5"), r(None, Some(4), Some(1), Some(5), None));
        assert_eq!(p("A:C5"), r(None, Some(0), Some(0), Some(5), Some(3)));
        assert_eq!(p("2:C5"), r(None, Some(1), Some(0), Some(5), Some(3)));
        assert_eq!(p("ab10:zzz12"), r(None, Some(9), Some(27), Some(12), Some(MAX_COLUMNS)));
        assert_eq!(p("$A$1:$B$2"), p("A1:B2"));
        assert_eq!(p("  A1 : B2  "), p("A1:B2"));
    }

    #[test]
    fn reversed_corners_are_normalised() {
        assert_eq!(p("B2:A1"), p("A1:B2"));
        assert_eq!(p("A2:B1"), p("A1:B2"));
        assert_eq!(p("C:A"), p("A:C"));
        assert_eq!(p("5:2"), p("2:5"));
    }

    #[test]
    fn text_that_is_not_a_range_is_a_sheet_name() {
        assert_eq!(p("Summary"), A1Range::whole_sheet("Summary"));
        assert_eq!(p("2024"), A1Range::whole_sheet("2024"));
        assert_eq!(p("1A"), A1Range::whole_sheet("1A"));
        assert_eq!(p("Données 2025"), A1Range::whole_sheet("Données 2025"));
        // Short names that read as cells are cells, as in Sheets: quote them to mean the sheet.
        let tab = column_index("TAB").unwrap();
        assert_eq!(p("Tab1"), r(None, Some(0), Some(tab), Some(1), Some(tab + 1)));
        assert_eq!(p("'Tab1'"), A1Range::whole_sheet("Tab1"));
        // Unquoted names with a bang inside: the last bang separates.
        assert_eq!(p("a!b!A1").sheet.as_deref(), Some("a!b"));
    }

    #[test]
    fn errors_say_what_to_write() {
        let err = A1Range::parse("A1:1A").unwrap_err();
        assert!(matches!(err, A1Error::NotACell { ref part, .. } if part == "1A"));
        assert!(err.to_string().contains("like B3"), "{err}");
        type Check = fn(&A1Error) -> bool;
        let cases: &[(&str, Check)] = &[
            ("", |e| matches!(e, A1Error::Empty)),
            ("   ", |e| matches!(e, A1Error::Empty)),
            ("'My Sheet!A1", |e| matches!(e, A1Error::UnclosedQuote { .. })),
            ("'My Sheet'A1", |e| matches!(e, A1Error::AfterQuote { .. })),
            ("''!A1", |e| matches!(e, A1Error::EmptySheetName { .. })),
            ("!A1", |e| matches!(e, A1Error::EmptySheetName { .. })),
            ("Sheet1!", |e| matches!(e, A1Error::NothingAfterBang { .. })),
            ("Sheet1!A0", |e| matches!(e, A1Error::RowZero { .. })),
            ("Sheet1!A99999999999", |e| matches!(e, A1Error::RowTooLarge { .. })),
            ("Sheet1!AAAA1", |e| matches!(e, A1Error::ColumnTooFar { .. })),
            ("Sheet1!A", |e| matches!(e, A1Error::LoneColumn { .. })),
            ("Sheet1!3", |e| matches!(e, A1Error::LoneRow { .. })),
            ("A:5", |e| matches!(e, A1Error::ColumnWithRow { .. })),
            ("A1:B2:C3", |e| matches!(e, A1Error::TooManyColons { .. })),
            ("Sheet1!A1:B-2", |e| matches!(e, A1Error::NotACell { .. })),
            ("Sheet1!A 1", |e| matches!(e, A1Error::NotACell { .. })),
            ("Sheet1!:", |e| matches!(e, A1Error::NotACell { .. })),
            ("x:y:z", |e| matches!(e, A1Error::TooManyColons { .. })),
            ("Q1:Q2 totals", |e| matches!(e, A1Error::NotACell { .. })),
        ];
        for (input, check) in cases {
            let err = A1Range::parse(input).unwrap_err();
            assert!(check(&err), "{input:?} gave {err:?}");
            assert!(!err.to_string().is_empty());
        }
    }

    #[test]
    fn formats_canonically() {
        let cases = [
            ("Sheet1!a1:b2", "Sheet1!A1:B2"),
            ("My Sheet!A1", "'My Sheet'!A1"),
            ("'Sheet1'!B2:A1", "Sheet1!A1:B2"),
            ("B3:B3", "B3"),
            ("A:C", "A:C"),
            ("A1:C", "A:C"),
            ("2:5", "2:5"),
            ("A2:5", "2:5"),
            ("A2:C", "A2:C"),
            ("B5:5", "B5:5"),
            ("'Bob''s'", "'Bob''s'"),
            ("'A1'!A1", "'A1'!A1"),
            ("'R1C1'", "'R1C1'"),
            ("'2024'", "'2024'"),
            ("'a!b'!C:D", "'a!b'!C:D"),
            ("Data_2", "Data_2"),
        ];
        for (input, want) in cases {
            assert_eq!(p(input).to_a1(), want, "for {input}");
            assert_eq!(p(want).to_a1(), want, "canonical text is a fixed point: {want}");
        }
    }

    #[test]
    fn formats_ranges_a1_cannot_say_exactly() {
        assert_eq!(r(None, None, None, Some(3), Some(2)).to_a1(), "A1:B3");
        assert_eq!(r(None, Some(4), Some(2), Some(4), Some(1)).to_a1(), "C5");
        assert_eq!(r(Some("S"), Some(1), Some(1), None, None).to_a1(), "S!B2:ZZZ");
        assert_eq!(r(Some("S"), None, None, None, None).to_a1(), "S");
        assert_eq!(r(None, None, None, None, None).to_a1(), "");
        assert!(!r(None, Some(u32::MAX), Some(u32::MAX), Some(0), Some(0)).to_a1().is_empty());
    }

    #[test]
    fn grid_range_omits_unbounded_sides() {
        assert_eq!(
            p("Sheet1!B2:C4").to_grid_range(7),
            serde_json::json!({"sheetId": 7, "startRowIndex": 1, "endRowIndex": 4, "startColumnIndex": 1, "endColumnIndex": 3})
        );
        assert_eq!(
            p("A:C").to_grid_range(0),
            serde_json::json!({"sheetId": 0, "startColumnIndex": 0, "endColumnIndex": 3})
        );
        assert_eq!(p("Sheet1").to_grid_range(12), serde_json::json!({"sheetId": 12}));
        assert_eq!(
            p("A2:B").to_grid_range(1),
            serde_json::json!({"sheetId": 1, "startRowIndex": 1, "startColumnIndex": 0, "endColumnIndex": 2})
        );
    }

    #[test]
    fn qualified_combines_sheet_and_range() {
        assert_eq!(qualified("Sheet1", None).unwrap(), "Sheet1");
        assert_eq!(qualified("Sheet1", Some("  ")).unwrap(), "Sheet1");
        assert_eq!(qualified("My Sheet", Some("a1:b2")).unwrap(), "'My Sheet'!A1:B2");
        assert_eq!(qualified("'My Sheet'", Some("A:A")).unwrap(), "'My Sheet'!A:A");
        assert_eq!(qualified("My Sheet", Some("'My Sheet'!A1")).unwrap(), "'My Sheet'!A1");
        assert_eq!(qualified("data", Some("Data!A1")).unwrap(), "data!A1");
        assert_eq!(qualified("Data", Some("Data")).unwrap(), "Data");
        assert_eq!(qualified("Tab1", Some("Tab1")).unwrap(), "'Tab1'");
        assert_eq!(qualified("Tab1", Some("Tab2")).unwrap(), "'Tab1'!TAB2");
        assert_eq!(qualified("Bob's", None).unwrap(), "'Bob''s'");
        assert!(matches!(qualified("Data", Some("Other!A1")), Err(A1Error::SheetMismatch { .. })));
        assert!(matches!(qualified("Data", Some("Summary")), Err(A1Error::NotARange { .. })));
        assert!(matches!(qualified("Data", Some("A1:1A")), Err(A1Error::NotACell { .. })));
        assert!(matches!(qualified(" ", Some("A1")), Err(A1Error::NoSheet)));
        let err = qualified("Data", Some("Other!A1")).unwrap_err().to_string();
        assert!(err.contains("Other") && err.contains("Data"), "{err}");
    }

    fn bounded() -> impl Strategy<Value = A1Range> {
        let name = prop_oneof![
            Just(None),
            "[A-Za-z_][A-Za-z0-9_]{0,8}".prop_map(Some),
            any::<String>().prop_filter("names are not empty", |s| !s.trim().is_empty()).prop_map(Some),
            "[ '!:A-Z0-9é😀]{1,12}".prop_filter("names are not empty", |s| !s.trim().is_empty()).prop_map(Some),
        ];
        (name, 0..MAX_COLUMNS, 0..MAX_COLUMNS, 0u32..u32::MAX, 0u32..u32::MAX).prop_map(|(sheet, c1, c2, r1, r2)| {
            A1Range {
                sheet,
                start_row: Some(r1.min(r2)),
                start_col: Some(c1.min(c2)),
                end_row: Some(r1.max(r2) + 1),
                end_col: Some(c1.max(c2) + 1),
            }
        })
    }

    proptest! {
        #[test]
        fn bounded_ranges_round_trip(range in bounded()) {
            let text = range.to_a1();
            prop_assert_eq!(A1Range::parse(&text).unwrap(), range);
        }

        #[test]
        fn sheet_names_round_trip(name in any::<String>().prop_filter("not blank", |s| !s.trim().is_empty())) {
            let whole = A1Range::whole_sheet(name.clone());
            prop_assert_eq!(A1Range::parse(&whole.to_a1()).unwrap(), whole);
            // `qualified` trims its sheet argument and drops quotes around it.
            let trimmed = name.trim();
            prop_assume!(!(trimmed.starts_with('\'') && trimmed.ends_with('\'')));
            let q = qualified(&name, Some("B2")).unwrap();
            let parsed = A1Range::parse(&q).unwrap();
            prop_assert_eq!(parsed.sheet.as_deref(), Some(trimmed));
        }

        #[test]
        fn canonical_text_is_stable(text in "[A-Ca-c0-9:!' ]{0,12}") {
            if let Ok(range) = A1Range::parse(&text) {
                let once = range.to_a1();
                if !once.is_empty() {
                    let again = A1Range::parse(&once).unwrap();
                    prop_assert_eq!(again.to_a1(), once);
                }
            }
        }

        #[test]
        fn parse_never_panics(text in any::<String>()) {
            let _ = A1Range::parse(&text);
            let _ = qualified(&text, Some(&text));
            let _ = column_index(&text);
        }
    }
}
