//! Google Docs API v1 (`https://docs.googleapis.com/`), emulated statefully.
//!
//! Implemented: `documents.create`, `documents.get` (also `includeTabsContent`) and
//! `documents.batchUpdate` with `insertText`, `deleteContentRange`, `replaceAllText`,
//! `updateTextStyle`, `updateParagraphStyle`, `createParagraphBullets`, `deleteParagraphBullets` and
//! `insertPageBreak`, the table requests of [`tables`] and the header and footer requests of
//! [`segments`], `createNamedRange` ([`named_ranges`]), `updateNamedStyle`
//! ([`named_styles`]), `insertInlineImage` ([`images`]: the image is fetched from its URI as Google
//! does); `writeControl.requiredRevisionId` is honoured. Every index is a UTF-16 code
//! unit, as Google counts them. Other request kinds answer 501. Access follows the caller's Drive role on
//! the file ([`World::require_native_access`]); edits move the Drive file on and are recorded in Drive
//! Activity. [`Store::batch_update`] applies the same requests in process (seeding, tests).

mod edit;
mod export;
mod http;
mod images;
mod model;
mod named_ranges;
mod named_styles;
mod segments;
mod snapshot;
mod tables;

use std::collections::HashMap;

use axum::Router;
use axum::routing::{any, post};

use crate::Shared;
use crate::state::{Identity, World};
use model::{Document, Unit, empty_style};
pub use snapshot::Snapshot;

/// Drive's MIME type for a document.
pub const MIME_TYPE: &str = "application/vnd.google-apps.document";

/// Every document, by id.
#[derive(Default)]
pub struct Store {
    docs: HashMap<String, Document>,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("docs::Store").field("documents", &self.docs.len()).finish()
    }
}

impl Store {
    /// Whether a document with this id exists.
    pub fn contains(&self, id: &str) -> bool {
        self.docs.contains_key(id)
    }

    /// Forgets a document (Drive deleted the file).
    pub fn remove(&mut self, id: &str) {
        self.docs.remove(id);
    }

    /// Copies a document under a new id and title (Drive's `files.copy`); false if `from_id` is unknown.
    pub fn copy(&mut self, from_id: &str, new_id: &str, new_title: &str) -> bool {
        let Some(source) = self.docs.get(from_id) else {
            return false;
        };
        let mut copy = source.clone();
        copy.id = new_id.to_owned();
        copy.title = new_title.to_owned();
        copy.revision = model::new_revision();
        self.docs.insert(new_id.to_owned(), copy);
        true
    }

    /// Renames a document (Drive's `files.update` of `name`); false if unknown.
    pub fn rename(&mut self, id: &str, title: &str) -> bool {
        let Some(doc) = self.docs.get_mut(id) else {
            return false;
        };
        doc.title = title.to_owned();
        true
    }

    /// Drive's `files.export`: `text/plain` (BOM, CRLF, `* ` bullets, as Google), `text/markdown`,
    /// `text/html`; `None` for other types or unknown ids.
    pub fn export(&self, id: &str, mime_type: &str) -> Option<Vec<u8>> {
        self.docs.get(id).and_then(|doc| snapshot::export_as(doc, mime_type))
    }

    /// The body's text, final newline included (page breaks left out).
    pub fn plain_text(&self, id: &str) -> Option<String> {
        self.docs.get(id).map(Document::text)
    }

    /// A document's title.
    pub fn title(&self, id: &str) -> Option<String> {
        self.docs.get(id).map(|d| d.title.clone())
    }

    /// Adds a document whose body is `text` (as if inserted at the end of a new document, so the body
    /// is `text` + the final newline) without registering it in Drive; see [`World::create_document`].
    pub fn insert_with_text(&mut self, id: &str, title: &str, text: &str) {
        let mut doc = Document::new(id, title);
        let style = empty_style();
        let units: Vec<Unit> =
            text.chars().filter(|c| *c != '\r').map(|c| Unit::char(c, style.clone(), None)).collect();
        doc.units.splice(0..0, units);
        self.docs.insert(id.to_owned(), doc);
    }
}

impl World {
    /// Creates a document owned by `owner` holding `text` and registers it in Drive, as
    /// `documents.create` + `insertText` would. Returns its id.
    pub fn create_document(&mut self, title: &str, text: &str, owner: &Identity) -> String {
        let id = format!("1{}", World::new_id(43));
        self.docs.insert_with_text(&id, title, text);
        self.drive.insert_native_file(&id, title, MIME_TYPE, owner);
        self.record_revision(&id);
        id
    }
}

pub fn routes() -> Router<Shared> {
    Router::new().route("/v1/documents", post(http::create)).route("/v1/documents/{*rest}", any(http::dispatch))
}
