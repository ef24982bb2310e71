//! Tables: GFM pipe tables ⇄ real Docs tables.
//!
//! The model is [`Table`]: rows of cells, each cell one paragraph of styled spans, the first row the
//! header (written bold in Docs). Markdown reads `| a | b |` lines whose second line is a delimiter
//! row (`| --- | :-: |`); alignment is not kept. Docs → Markdown writes every table as a pipe table,
//! its first row the header, with the header's bold left out when the whole row is bold.
//!
//! Writing a table into the document ([`table_requests`]): `insertTable` at the end of the text of
//! the paragraph before it (its anchor) puts a newline there, so the anchor keeps its text and style,
//! the table follows it, and the anchor's old newline becomes an empty paragraph after the table,
//! which is deleted when more follows. An empty table has each cell at a known index; the cells are
//! filled from the last one backwards so the earlier indexes stay valid.

use serde_json::{Value, json};

use super::inline::{Span, parse_inline};
use super::layout::{range, reset_text_style, text_style};
use super::render::{Run, render_runs};
use super::utf16::utf16_len;

/// Docs tables have at most 20 columns.
pub(crate) const MAX_COLUMNS: usize = 20;

/// A table: `rows[0]` is the header. Rows should have the same number of cells; when they do not,
/// the widest row (at most [`MAX_COLUMNS`]) sets the width and shorter rows get empty cells.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Table {
    pub rows: Vec<Vec<Vec<Span>>>,
}

impl Table {
    /// A table from Markdown lines (header, delimiter, body rows); `None` unless the second line is
    /// a delimiter row and the header has 1 to [`MAX_COLUMNS`] cells. Body rows are cut or padded to
    /// the header's width.
    pub(crate) fn from_markdown(lines: &[String]) -> Option<Table> {
        let delimiter = lines.get(1)?;
        let header = split_row(lines.first()?);
        if !is_delimiter(delimiter) || split_row(delimiter).len() != header.len() || header.len() > MAX_COLUMNS {
            return None;
        }
        let width = header.len();
        let rows = std::iter::once(header)
            .chain(lines[2..].iter().map(|l| split_row(l)))
            .map(|mut cells| {
                cells.resize(width, String::new());
                cells.iter().map(|c| parse_inline(c.trim())).collect()
            })
            .collect();
        Some(Table { rows })
    }

    fn columns(&self) -> usize {
        self.rows.iter().map(Vec::len).max().unwrap_or(0).min(MAX_COLUMNS)
    }
}

/// A delimiter row: only pipes, dashes, colons and spaces, with a dash.
pub(crate) fn is_delimiter(line: &str) -> bool {
    line.contains('-') && line.chars().all(|c| matches!(c, '|' | '-' | ':' | ' ' | '\t'))
}

/// A row's cells, split at unescaped pipes; `\|` becomes `|` (also inside code, as in GFM), other
/// escapes are kept for the inline parser.
fn split_row(line: &str) -> Vec<String> {
    let line = line.trim();
    let line = line.strip_prefix('|').unwrap_or(line);
    let mut cells = vec![String::new()];
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some('|') => cells.last_mut().into_iter().for_each(|s| s.push('|')),
                Some(next) => cells.last_mut().into_iter().for_each(|s| s.extend(['\\', next])),
                None => cells.last_mut().into_iter().for_each(|s| s.push('\\')),
            },
            '|' => cells.push(String::new()),
            other => cells.last_mut().into_iter().for_each(|s| s.push(other)),
        }
    }
    // The closing pipe leaves an empty last cell.
    if cells.len() > 1 && cells.last().is_some_and(|c| c.trim().is_empty()) && line.trim_end().ends_with('|') {
        cells.pop();
    }
    cells
}

/// What to do with the empty paragraph the anchor's old newline leaves after the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum After {
    /// More follows: delete it.
    Delete,
    /// It ends the body (or content not ours): keep it, as a plain paragraph.
    Keep,
}

/// Requests writing `table` after the paragraph whose text ends at `anchor` (the index of its
/// newline); none for a table without cells.
pub(crate) fn table_requests(table: &Table, anchor: u32, after: After) -> Vec<Value> {
    let rows = table.rows.len() as u32;
    let columns = table.columns() as u32;
    if rows == 0 || columns == 0 {
        return Vec::new();
    }
    let mut out = vec![json!({"insertTable": {"rows": rows, "columns": columns, "location": {"index": anchor}}})];
    // Empty, the table starts at anchor + 1, each row takes 1 + 2 per cell, and cell (r, c)'s
    // paragraph is at anchor + 4 + r·(1 + 2·columns) + 2·c.
    let mut filled = 0;
    for (r, row) in table.rows.iter().enumerate().rev() {
        for (c, spans) in row.iter().take(columns as usize).enumerate().rev() {
            let at = anchor + 4 + r as u32 * (1 + 2 * columns) + 2 * c as u32;
            let text: String = spans.iter().map(|s| s.text.as_str()).collect();
            let len = utf16_len(&text) as u32;
            if len == 0 {
                continue;
            }
            filled += len;
            out.push(json!({"insertText": {"location": {"index": at}, "text": text}}));
            out.push(reset_text_style(at, at + len));
            let mut start = at;
            for span in spans {
                let end = start + utf16_len(&span.text) as u32;
                out.extend(text_style(start, end, &span.style));
                start = end;
            }
            if r == 0 {
                out.push(json!({"updateTextStyle": {
                    "range": range(at, at + len), "textStyle": {"bold": true}, "fields": "bold",
                }}));
            }
        }
    }
    let end = anchor + 2 + rows * (1 + 2 * columns) + filled;
    out.push(match after {
        After::Delete => json!({"deleteContentRange": {"range": range(end, end + 1)}}),
        After::Keep => json!({"updateParagraphStyle": {
            "range": range(end, end + 1),
            "paragraphStyle": {"namedStyleType": "NORMAL_TEXT"},
            "fields": "namedStyleType,indentStart,indentFirstLine,shading",
        }}),
    });
    out
}

/// A Docs table (its rows of cells' paragraph runs) as a pipe table.
pub(crate) fn table_markdown(rows: &[Vec<Vec<Vec<Run>>>]) -> String {
    // The header's bold is the header's look, not emphasis, when it covers the whole row.
    let header_bold = rows.first().is_some_and(|cells| {
        let mut runs = cells.iter().flatten().flatten().filter(|r| !r.text.trim().is_empty()).peekable();
        runs.peek().is_some() && runs.all(|r| r.bold)
    });
    let rendered: Vec<Vec<String>> = rows
        .iter()
        .enumerate()
        .map(|(r, cells)| {
            cells
                .iter()
                .map(|paragraphs| {
                    let texts: Vec<String> = paragraphs
                        .iter()
                        .map(|runs| {
                            let mut runs = runs.clone();
                            if r == 0 && header_bold {
                                runs.iter_mut().for_each(|run| run.bold = false);
                            }
                            render_runs(&runs)
                        })
                        .collect();
                    let joined = texts.join(" ").replace("\\\n", " ");
                    joined.replace('|', "\\|").trim().to_string()
                })
                .collect()
        })
        .collect();
    let width = rendered.iter().map(Vec::len).max().unwrap_or(0).max(1);
    let line = |cells: &[String]| {
        let mut padded: Vec<&str> = cells.iter().map(String::as_str).collect();
        padded.resize(width, "");
        format!("| {} |", padded.join(" | "))
    };
    let mut lines = Vec::new();
    for (i, row) in rendered.iter().enumerate() {
        lines.push(line(row));
        if i == 0 {
            lines.push(format!("|{}", " --- |".repeat(width)));
        }
    }
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(md: &str) -> Vec<String> {
        md.lines().map(str::to_string).collect()
    }

    #[test]
    fn pipe_tables_are_read() {
        let table = Table::from_markdown(&lines("| a | **b** |\n|---|:-:|\n| `x\\|y` | z \\| w |\n| only |")).unwrap();
        assert_eq!(table.rows.len(), 3);
        assert_eq!(table.rows[0][1][0].text, "b");
        assert!(table.rows[0][1][0].style.bold);
        assert_eq!(table.rows[1][0][0].text, "x|y");
        assert!(table.rows[1][0][0].style.code);
        assert_eq!(table.rows[1][1][0].text, "z | w");
        assert!(table.rows[2][1].is_empty());
        assert!(Table::from_markdown(&lines("| a |\n| b |")).is_none());
        assert!(Table::from_markdown(&lines("| a | b |\n| --- |")).is_none());
    }

    #[test]
    fn cells_are_filled_from_the_last() {
        let table = Table::from_markdown(&lines("| h | i |\n| - | - |\n| x | |")).unwrap();
        let reqs = table_requests(&table, 5, After::Delete);
        assert_eq!(reqs[0]["insertTable"], json!({"rows": 2, "columns": 2, "location": {"index": 5}}));
        // Cell (1, 0) is at 5 + 4 + 5; cells (0, 1) and (0, 0) at 11 and 9.
        assert_eq!(reqs[1]["insertText"], json!({"location": {"index": 14}, "text": "x"}));
        let inserts: Vec<u64> = reqs.iter().filter_map(|r| r.pointer("/insertText/location/index")?.as_u64()).collect();
        assert_eq!(inserts, vec![14, 11, 9]);
        assert_eq!(reqs.last().unwrap()["deleteContentRange"]["range"], json!({"startIndex": 20, "endIndex": 21}));
    }
}
