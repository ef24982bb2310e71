//! A1 notation as the Sheets API reads and writes it.
//!
//! Accepted: `Sheet1!A1:B2`, `'My ''quoted'' sheet'!A1`, whole columns `A:C`, whole rows `2:5`, open
//! ranges `A2:C` / `A2:5`, single cells, sheet-only ranges (`Sheet1`), `$` anchors, ranges without a
//! sheet (the first sheet), reversed corners (normalised).

/// Sheets' largest column (`ZZZ`) and row.
pub(crate) const MAX_COLUMNS: u32 = 18_278;
pub(crate) const MAX_ROWS: u32 = 10_000_000;

/// The cells part of a range; every bound is 0-based, `end_*` exclusive, `None` = unbounded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Span {
    pub start_row: u32,
    pub start_col: u32,
    pub end_row: Option<u32>,
    pub end_col: Option<u32>,
}

impl Span {
    pub(crate) const WHOLE: Span = Span { start_row: 0, start_col: 0, end_row: None, end_col: None };

    pub(crate) fn cell(row: u32, col: u32) -> Span {
        Span { start_row: row, start_col: col, end_row: Some(row + 1), end_col: Some(col + 1) }
    }
}

/// A range as written: the sheet name, if any, and the cells part, if any.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Parsed {
    pub sheet: Option<String>,
    pub cells: Option<Span>,
    /// A bare word with no `!` that may be a sheet name or a cell range (`A1`, `Sheet1`).
    pub ambiguous: Option<String>,
}

/// Parses a range; `None` when it cannot be read at all.
pub(crate) fn parse(text: &str) -> Option<Parsed> {
    let text = text.trim();
    if text.is_empty() {
        return None;
    }
    if let Some(rest) = text.strip_prefix('\'') {
        let mut name = String::new();
        let mut chars = rest.char_indices().peekable();
        let mut after = None;
        while let Some((i, ch)) = chars.next() {
            if ch == '\'' {
                if matches!(chars.peek(), Some((_, '\''))) {
                    chars.next();
                    name.push('\'');
                } else {
                    after = Some(&rest[i + 1..]);
                    break;
                }
            } else {
                name.push(ch);
            }
        }
        let after = after?;
        if name.is_empty() {
            return None;
        }
        if after.is_empty() {
            return Some(Parsed { sheet: Some(name), cells: None, ambiguous: None });
        }
        let cells = after.strip_prefix('!')?;
        return Some(Parsed { sheet: Some(name), cells: Some(parse_cells(cells)?), ambiguous: None });
    }
    if let Some((sheet, cells)) = text.rsplit_once('!') {
        if sheet.is_empty() {
            return None;
        }
        return Some(Parsed { sheet: Some(sheet.to_owned()), cells: Some(parse_cells(cells)?), ambiguous: None });
    }
    Some(Parsed { sheet: None, cells: parse_cells(text), ambiguous: Some(text.to_owned()) })
}

/// One corner: column and/or row, 0-based.
fn parse_corner(text: &str) -> Option<(Option<u32>, Option<u32>)> {
    let text = text.trim();
    let bytes = text.as_bytes();
    let mut i = 0;
    if i < bytes.len() && bytes[i] == b'$' {
        i += 1;
    }
    let letters_start = i;
    while i < bytes.len() && bytes[i].is_ascii_alphabetic() {
        i += 1;
    }
    let letters = &text[letters_start..i];
    if i < bytes.len() && bytes[i] == b'$' {
        if letters.is_empty() {
            return None;
        }
        i += 1;
    }
    let digits = &text[i..];
    if !digits.bytes().all(|b| b.is_ascii_digit()) || (letters.is_empty() && digits.is_empty()) {
        return None;
    }
    let col = if letters.is_empty() { None } else { Some(column_index(letters)?) };
    let row = if digits.is_empty() {
        None
    } else {
        let n: u64 = digits.parse().ok()?;
        if n == 0 || n > u64::from(MAX_ROWS) {
            return None;
        }
        Some(u32::try_from(n - 1).ok()?)
    };
    Some((col, row))
}

/// `A` → 0, `AA` → 26; `None` past `ZZZ`.
pub(crate) fn column_index(letters: &str) -> Option<u32> {
    if letters.is_empty() || letters.len() > 3 {
        return None;
    }
    let mut n: u32 = 0;
    for b in letters.bytes() {
        let v = u32::from(b.to_ascii_uppercase().checked_sub(b'A')?) + 1;
        if v > 26 {
            return None;
        }
        n = n * 26 + v;
    }
    let index = n - 1;
    (index < MAX_COLUMNS).then_some(index)
}

/// 0 → `A`, 26 → `AA`.
pub(crate) fn column_name(mut index: u32) -> String {
    let mut out = Vec::new();
    loop {
        out.push(b'A' + (index % 26) as u8);
        if index < 26 {
            break;
        }
        index = index / 26 - 1;
    }
    out.reverse();
    String::from_utf8(out).unwrap_or_default()
}

fn parse_cells(text: &str) -> Option<Span> {
    match text.split_once(':') {
        None => {
            let (col, row) = parse_corner(text)?;
            let (col, row) = (col?, row?);
            Some(Span::cell(row, col))
        }
        Some((left, right)) => {
            let (c0, r0) = parse_corner(left)?;
            let (c1, r1) = parse_corner(right)?;
            let (start_col, end_col) = bounds(c0, c1, r0.is_some())?;
            let (start_row, end_row) = bounds(r0, r1, c0.is_some())?;
            Some(Span { start_row, start_col, end_row, end_col })
        }
    }
}

/// A range's start and end (exclusive, `None` when open) along one axis, from the two corners' indexes on
/// it; an end without a start counts from 0 only when the first corner names the other axis.
fn bounds(first: Option<u32>, second: Option<u32>, first_has_other: bool) -> Option<(u32, Option<u32>)> {
    match (first, second) {
        (Some(a), Some(b)) => Some((a.min(b), Some(a.max(b) + 1))),
        (Some(a), None) => Some((a, None)),
        (None, Some(b)) if first_has_other => Some((0, Some(b + 1))),
        (None, None) => Some((0, None)),
        (None, Some(_)) => None,
    }
}

/// Whether a sheet name must be quoted in A1 notation.
pub(crate) fn needs_quotes(name: &str) -> bool {
    let simple = name.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_alphanumeric() || c == '_');
    !simple || parse_corner(name).is_some_and(|(c, r)| c.is_some() && r.is_some()) || looks_r1c1(name)
}

fn looks_r1c1(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    let Some(rest) = upper.strip_prefix('R') else {
        return false;
    };
    let digits = rest.trim_start_matches(|c: char| c.is_ascii_digit());
    digits.is_empty() || digits.strip_prefix('C').is_some_and(|d| d.chars().all(|c| c.is_ascii_digit()))
}

/// `My Sheet` → `'My Sheet'`, `Sheet1` → `Sheet1`.
pub(crate) fn quote_sheet(name: &str) -> String {
    if needs_quotes(name) { format!("'{}'", name.replace('\'', "''")) } else { name.to_owned() }
}

/// `'Sheet'!A1:B2` for a bounded rectangle (single cells as `A1`).
pub(crate) fn format(sheet: &str, start_row: u32, start_col: u32, end_row: u32, end_col: u32) -> String {
    let sheet = quote_sheet(sheet);
    let first = format!("{}{}", column_name(start_col), start_row + 1);
    if end_row <= start_row + 1 && end_col <= start_col + 1 {
        format!("{sheet}!{first}")
    } else {
        let last_col = end_col.max(start_col + 1) - 1;
        let last_row = end_row.max(start_row + 1) - 1;
        format!("{sheet}!{first}:{}{}", column_name(last_col), last_row + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cells(text: &str) -> Option<Span> {
        parse(text).and_then(|p| p.cells)
    }

    #[test]
    fn parses_shapes() {
        assert_eq!(cells("Sheet1!B2"), Some(Span::cell(1, 1)));
        assert_eq!(
            cells("Sheet1!C3:A1"),
            Some(Span { start_row: 0, start_col: 0, end_row: Some(3), end_col: Some(3) })
        );
        assert_eq!(cells("S!A:C"), Some(Span { start_row: 0, start_col: 0, end_row: None, end_col: Some(3) }));
        assert_eq!(cells("S!2:5"), Some(Span { start_row: 1, start_col: 0, end_row: Some(5), end_col: None }));
        assert_eq!(cells("S!A2:C"), Some(Span { start_row: 1, start_col: 0, end_row: None, end_col: Some(3) }));
        assert_eq!(cells("S!$A$1"), Some(Span::cell(0, 0)));
        assert_eq!(parse("'It''s'!A1").and_then(|p| p.sheet), Some("It's".to_owned()));
        assert_eq!(parse("'My Sheet'").and_then(|p| p.sheet), Some("My Sheet".to_owned()));
        assert!(parse("S!A").is_none());
        assert!(parse("S!A0").is_none());
        assert!(parse("S!AAAA1").is_none());
    }

    #[test]
    fn columns_round_trip() {
        for (i, name) in [(0, "A"), (25, "Z"), (26, "AA"), (701, "ZZ"), (702, "AAA"), (18_277, "ZZZ")] {
            assert_eq!(column_name(i), name);
            assert_eq!(column_index(name), Some(i));
        }
    }

    #[test]
    fn formats_and_quotes() {
        assert_eq!(format("Sheet1", 0, 0, 2, 2), "Sheet1!A1:B2");
        assert_eq!(format("My Sheet", 0, 0, 1, 1), "'My Sheet'!A1");
        assert_eq!(format("A1", 0, 0, 1, 1), "'A1'!A1");
        assert_eq!(quote_sheet("It's"), "'It''s'");
    }
}
