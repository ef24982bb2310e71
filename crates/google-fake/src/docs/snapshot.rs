//! A document's content frozen at one moment: what a Drive revision of it holds, so an old revision
//! exports the text it had then.

use super::Store;
use super::export;
use super::model::Document;

/// A document as it was when a revision was taken.
#[derive(Debug, Clone)]
pub struct Snapshot(Document);

impl Store {
    /// The document `id` as it is now; `None` for an unknown id.
    pub(crate) fn snapshot(&self, id: &str) -> Option<Snapshot> {
        self.docs.get(id).cloned().map(Snapshot)
    }
}

impl Snapshot {
    /// Drive's export, as [`export_as`].
    pub(crate) fn export(&self, mime_type: &str) -> Option<Vec<u8>> {
        export_as(&self.0, mime_type)
    }
}

/// Drive's `files.export` of a document: `text/plain` (BOM, CRLF, `* ` bullets, as Google),
/// `text/markdown`, `text/html`; `None` for other types.
pub(super) fn export_as(doc: &Document, mime_type: &str) -> Option<Vec<u8>> {
    let text = match mime_type {
        "text/plain" => export::plain(doc),
        "text/markdown" => export::markdown(doc),
        "text/html" => export::html(doc),
        _ => return None,
    };
    Some(text.into_bytes())
}
