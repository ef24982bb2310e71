//! Google Sheets API v4 (`https://sheets.googleapis.com/`), emulated statefully.
//!
//! Implemented: `spreadsheets.create`, `get`, `getByDataFilter` (A1 and grid ranges), `batchUpdate`
//! (see [`batch`] for the request kinds), `sheets.copyTo`, and `values.get`, `batchGet`, `update`,
//! `batchUpdate`, `append`, `clear`, `batchClear`. Requests are checked against the discovery document
//! first (unknown parameters and fields are refused as Google refuses them); values follow Sheets'
//! parsing (`USER_ENTERED`), formula evaluation (a small engine) and rendering rules; responses follow
//! proto3 JSON (defaults omitted) and honour the `fields` parameter. Access follows the caller's Drive
//! role on the file ([`World::require_native_access`]); edits move the Drive file on and are recorded in
//! Drive Activity.
//!
//! Known divergence: inserting or deleting rows or columns moves the cells but does not rewrite the formulas
//! that refer across them (Google turns `=B2*2` into `=B3*2` when a row goes in above row 2); a test must not
//! read a formula's result across such a change.

mod a1;
mod batch;
mod cell;
mod colors;
mod eval;
pub(crate) mod fields;
mod format;
mod formula;
mod http;
mod model;
pub(crate) mod schema;
mod snapshot;
mod values;

use std::collections::HashMap;

use axum::Router;
use axum::routing::{any, post};
use serde_json::Value;

use crate::Shared;
use crate::state::{Identity, World};
use eval::Eval;
use model::{Render, Sheet, Spreadsheet};

pub(crate) use model::prune;
pub use snapshot::Snapshot;

/// Drive's MIME type for a spreadsheet.
pub const MIME_TYPE: &str = "application/vnd.google-apps.spreadsheet";

/// Every spreadsheet, by id.
#[derive(Default)]
pub struct Store {
    books: HashMap<String, Spreadsheet>,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("sheets::Store").field("spreadsheets", &self.books.len()).finish()
    }
}

impl Store {
    /// Whether a spreadsheet with this id exists.
    pub fn contains(&self, id: &str) -> bool {
        self.books.contains_key(id)
    }

    /// Forgets a spreadsheet (Drive deleted the file).
    pub fn remove(&mut self, id: &str) {
        self.books.remove(id);
    }

    /// Copies a spreadsheet under a new id and title (Drive's `files.copy`); false if `from_id` is unknown.
    /// Sheet ids, values, formats and formulas are kept, as Google keeps them.
    pub fn copy(&mut self, from_id: &str, new_id: &str, new_title: &str) -> bool {
        let Some(source) = self.books.get(from_id) else {
            return false;
        };
        let mut copy = source.clone();
        copy.id = new_id.to_owned();
        copy.properties.insert("title".into(), Value::String(new_title.to_owned()));
        self.books.insert(new_id.to_owned(), copy);
        true
    }

    /// Renames a spreadsheet (Drive's `files.update` of `name`); false if unknown.
    pub fn rename(&mut self, id: &str, title: &str) -> bool {
        let Some(book) = self.books.get_mut(id) else {
            return false;
        };
        book.properties.insert("title".into(), Value::String(title.to_owned()));
        true
    }

    /// Drive's `files.export`: `text/csv` / `text/tab-separated-values` of the first sheet (formatted
    /// values, rows padded to the data's width, CRLF line ends); `None` for other types or unknown ids.
    pub fn export(&self, id: &str, mime_type: &str) -> Option<Vec<u8>> {
        let book = self.books.get(id)?;
        let separator = match mime_type {
            "text/csv" => ',',
            "text/tab-separated-values" => '\t',
            _ => return None,
        };
        Some(delimited(&formatted(book, 0), separator).into_bytes())
    }

    /// A spreadsheet's title.
    pub fn title(&self, id: &str) -> Option<String> {
        self.books.get(id).map(|b| b.title().to_owned())
    }

    /// The sheet titles in tab order (empty for an unknown id).
    pub fn sheet_titles(&self, id: &str) -> Vec<String> {
        self.books.get(id).map(|b| b.sheets.iter().map(|s| s.title.clone()).collect()).unwrap_or_default()
    }

    /// A sheet's formatted values, as `values.get` of the whole sheet returns them (trailing empties
    /// trimmed); empty for an unknown id or sheet.
    pub fn values(&self, id: &str, sheet: &str) -> Vec<Vec<String>> {
        let Some(book) = self.books.get(id) else {
            return Vec::new();
        };
        let Some(index) = book.sheet_by_name(sheet) else {
            return Vec::new();
        };
        formatted(book, index)
    }

    /// A cell's stored formula (`Sheet1!B2` style addressing by sheet, row, column; 0-based).
    pub fn formula(&self, id: &str, sheet: &str, row: u32, col: u32) -> Option<String> {
        let book = self.books.get(id)?;
        let cell = book.sheets.get(book.sheet_by_name(sheet)?)?.cell(row, col)?;
        match &cell.value {
            Some(cell::Entered::Formula(f)) => Some(f.clone()),
            _ => None,
        }
    }

    /// Adds a spreadsheet with sheets of values (entered as `USER_ENTERED`: numbers, booleans and
    /// `=formulas` are parsed) without registering it in Drive; see [`World::create_spreadsheet`].
    /// No sheets = one empty `Sheet1`. Grids are at least 1000 × 26.
    pub fn insert_with_values(&mut self, id: &str, title: &str, sheets: &[(&str, Vec<Vec<Value>>)]) {
        let mut book = Spreadsheet::new(id, title);
        if !sheets.is_empty() {
            book.sheets.clear();
        }
        for (i, (name, rows)) in sheets.iter().enumerate() {
            let sheet_id = if i == 0 { 0 } else { book.new_sheet_id() };
            let mut sheet = Sheet::new(sheet_id, &book.unique_title(name));
            sheet.rows = sheet.rows.max(rows.len() as u32);
            sheet.cols = sheet.cols.max(rows.iter().map(Vec::len).max().unwrap_or(0) as u32);
            book.sheets.push(sheet);
            for (r, row) in rows.iter().enumerate() {
                for (c, item) in row.iter().enumerate() {
                    if let Ok(Some(input)) = cell::parse_input(item, true) {
                        book.write(i, r as u32, c as u32, input);
                    }
                }
            }
        }
        self.books.insert(id.to_owned(), book);
    }
}

/// Rows as `files.export` writes them: padded to the data's width, CRLF line ends, CSV fields quoted
/// when they hold a separator, quote or line break.
fn delimited(rows: &[Vec<String>], separator: char) -> String {
    let width = rows.iter().map(Vec::len).max().unwrap_or(0);
    let mut out = String::new();
    for (i, row) in rows.iter().enumerate() {
        if i > 0 {
            out.push_str("\r\n");
        }
        for c in 0..width {
            if c > 0 {
                out.push(separator);
            }
            let text = row.get(c).map(String::as_str).unwrap_or("");
            if separator == ',' && text.contains([',', '"', '\n', '\r']) {
                out.push('"');
                out.push_str(&text.replace('"', "\"\""));
                out.push('"');
            } else {
                out.push_str(text);
            }
        }
    }
    out
}

/// Formatted values of one sheet, trailing empties trimmed.
fn formatted(book: &Spreadsheet, sheet: usize) -> Vec<Vec<String>> {
    let Some(s) = book.sheets.get(sheet) else {
        return Vec::new();
    };
    let mut eval = Eval::new(book);
    eval.values(sheet, s.grid(), false, Render::Formatted, false)
        .into_iter()
        .map(|row| row.into_iter().map(|v| v.as_str().unwrap_or_default().to_owned()).collect())
        .collect()
}

impl World {
    /// Creates a spreadsheet owned by `owner` with sheets of values (parsed as `USER_ENTERED`) and
    /// registers it in Drive, as `spreadsheets.create` would. Returns its id.
    pub fn create_spreadsheet(&mut self, title: &str, sheets: &[(&str, Vec<Vec<Value>>)], owner: &Identity) -> String {
        let id = format!("1{}", World::new_id(43));
        self.sheets.insert_with_values(&id, title, sheets);
        self.drive.insert_native_file(&id, title, MIME_TYPE, owner);
        self.record_revision(&id);
        id
    }
}

pub fn routes() -> Router<Shared> {
    Router::new().route("/v4/spreadsheets", post(http::create)).route("/v4/spreadsheets/{*rest}", any(http::dispatch))
}
