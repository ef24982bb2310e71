//! A spreadsheet's content frozen at one moment: what a Drive revision of it holds, so an old revision
//! exports the values it had then.

use super::model::Spreadsheet;
use super::{Store, delimited, formatted};

/// A spreadsheet as it was when a revision was taken.
#[derive(Debug, Clone)]
pub struct Snapshot(Spreadsheet);

impl Store {
    /// The spreadsheet `id` as it is now; `None` for an unknown id.
    pub(crate) fn snapshot(&self, id: &str) -> Option<Snapshot> {
        self.books.get(id).cloned().map(Snapshot)
    }
}

impl Snapshot {
    /// The position of the sheet whose `sheetId` is `gid`.
    pub(crate) fn sheet_index(&self, gid: i64) -> Option<usize> {
        self.0.sheets.iter().position(|sheet| sheet.id == gid)
    }

    /// Drive's export of the sheet at `index` as `text/csv` or `text/tab-separated-values` (formatted
    /// values, as `files.export` writes them); `None` for other types.
    pub(crate) fn export(&self, mime_type: &str, index: usize) -> Option<Vec<u8>> {
        let separator = match mime_type {
            "text/csv" => ',',
            "text/tab-separated-values" => '\t',
            _ => return None,
        };
        Some(delimited(&formatted(&self.0, index), separator).into_bytes())
    }
}
