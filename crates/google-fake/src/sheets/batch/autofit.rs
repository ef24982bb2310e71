//! `autoResizeDimensions`: rows and columns sized to fit their content.
//!
//! Google measures rendered text with the cell's font; the emulator has no fonts, so it estimates from
//! the shown (formatted) text: a column gets about 7 px per character at 10 pt plus the cell padding, a
//! row about 21 px per line at 10 pt, both scaled by the cell's font size. A row or column without
//! content keeps its size (there is nothing to fit). Tests can rely on "longer text → wider column,
//! more lines → taller row", not on exact pixels.

use serde_json::{Value, json};

use crate::sheets::eval::Eval;
use crate::sheets::model::{Rect, Render, Spreadsheet};

/// Pixels per character of 10 pt text, and the padding left and right of a cell's text.
const CHAR_PIXELS: f64 = 7.0;
const PADDING_PIXELS: f64 = 6.0;
/// Pixels per line of 10 pt text (Google's default row height).
const LINE_PIXELS: f64 = 21.0;
const DEFAULT_FONT_SIZE: f64 = 10.0;

/// Fits rows (or columns) `start..end` of sheet `index` to their content.
pub(super) fn fit(book: &mut Spreadsheet, index: usize, rows: bool, start: u32, end: u32) {
    let Some(sheet) = book.sheets.get(index) else {
        return;
    };
    let rect = if rows {
        Rect { r0: start, r1: end, c0: 0, c1: sheet.cols }
    } else {
        Rect { r0: 0, r1: sheet.rows, c0: start, c1: end }
    };
    let shown = Eval::new(book).values(index, rect, false, Render::Formatted, false);
    let sheet = &book.sheets[index];
    let mut sizes: Vec<Option<f64>> = vec![None; (end - start) as usize];
    for (i, row) in shown.iter().enumerate() {
        for (j, text) in row.iter().enumerate() {
            let text = text.as_str().unwrap_or_default();
            if text.is_empty() {
                continue;
            }
            let (r, c) = (rect.r0 + i as u32, rect.c0 + j as u32);
            let scale = sheet
                .cell(r, c)
                .and_then(|cell| cell.extra.get("userEnteredFormat"))
                .and_then(|f| f.get("textFormat"))
                .and_then(|t| t.get("fontSize"))
                .and_then(Value::as_f64)
                .unwrap_or(DEFAULT_FONT_SIZE)
                / DEFAULT_FONT_SIZE;
            let lines = text.split('\n');
            let size = if rows {
                LINE_PIXELS * scale * lines.count() as f64
            } else {
                lines.map(|line| line.chars().count()).max().unwrap_or(0) as f64 * CHAR_PIXELS * scale + PADDING_PIXELS
            };
            let slot = if rows { r - start } else { c - start };
            let best = &mut sizes[slot as usize];
            *best = Some(best.map_or(size, |b: f64| b.max(size)));
        }
    }
    let sheet = &mut book.sheets[index];
    for (offset, size) in sizes.into_iter().enumerate() {
        if let Some(size) = size {
            sheet.meta_mut(rows, start + offset as u32).insert("pixelSize".into(), json!(size.ceil() as i64));
        }
    }
}
