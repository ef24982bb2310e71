//! Seeding and inspection helpers shared by the `sheets_*` tests.
#![allow(dead_code)]

use serde_json::Value;

use crate::support::Harness;

/// Creates a spreadsheet owned by the harness user, with sheets of values (typed as in the UI).
pub fn seed(h: &Harness, title: &str, sheets: &[(&str, Vec<Vec<Value>>)]) -> String {
    h.google.world().create_spreadsheet(title, sheets, &h.owner())
}

/// `rows` rows of `cols` text cells: `r{row}c{col}` (1-based).
pub fn grid(rows: usize, cols: usize) -> Vec<Vec<Value>> {
    (1..=rows).map(|r| (1..=cols).map(|c| Value::String(format!("r{r}c{c}"))).collect()).collect()
}

/// A sheet's values as `values.get` of the whole sheet renders them (formatted, trailing empties trimmed).
pub fn values(h: &Harness, id: &str, sheet: &str) -> Vec<Vec<String>> {
    h.google.world().sheets.values(id, sheet)
}

/// The spreadsheet's sheet titles in tab order.
pub fn titles(h: &Harness, id: &str) -> Vec<String> {
    h.google.world().sheets.sheet_titles(id)
}

/// Requests the emulator served under `/v4/spreadsheets`.
pub fn sheets_calls(h: &Harness) -> usize {
    h.google.world().count_requests("/v4/spreadsheets")
}

/// Converts string literals to the emulator's `Vec<Vec<String>>` shape.
pub fn strings(rows: &[&[&str]]) -> Vec<Vec<String>> {
    rows.iter().map(|row| row.iter().map(|s| (*s).to_owned()).collect()).collect()
}
