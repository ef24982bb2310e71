//! Google Slides API v1 (`https://slides.googleapis.com/`), emulated statefully: what the Slides MCP server's
//! tools run as (`crate::mcp`).
//!
//! Implemented: `presentations.create` (one title slide, as Google makes), `presentations.get`,
//! `presentations.pages.get`, and `presentations.batchUpdate` with `createSlide` (predefined layouts and
//! placeholder id mappings by type and index), `createShape`, `insertText`, `deleteText`, `replaceAllText`
//! (not by regex), `deleteObject` and `updateSlidesPosition`; `writeControl.requiredRevisionId` is
//! honoured. Text lives in shapes as plain text (no styles, lists or tables); indices count UTF-16 code
//! units, as Google's do. Other request kinds, text in table cells and `pages.getThumbnail` answer 501.
//! Access follows the caller's Drive role on the file ([`World::require_native_access`]); edits move the
//! Drive file on and are recorded in Drive Activity.

mod edit;
mod http;
mod model;

use std::collections::HashMap;

use axum::Router;
use axum::routing::{any, post};
use serde_json::Value;

use crate::Shared;
use crate::errors::ApiError;
use crate::state::{Identity, World};
use model::Presentation;

/// Drive's MIME type for a presentation.
pub const MIME_TYPE: &str = "application/vnd.google-apps.presentation";

/// Every presentation, by id.
#[derive(Default)]
pub struct Store {
    presentations: HashMap<String, Presentation>,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("slides::Store").field("presentations", &self.presentations.len()).finish()
    }
}

impl Store {
    /// Whether a presentation with this id exists.
    pub fn contains(&self, id: &str) -> bool {
        self.presentations.contains_key(id)
    }

    /// Forgets a presentation (Drive deleted the file).
    pub fn remove(&mut self, id: &str) {
        self.presentations.remove(id);
    }

    /// Copies a presentation under a new id and title (Drive's `files.copy`); false if `from_id` is unknown.
    pub fn copy(&mut self, from_id: &str, new_id: &str, new_title: &str) -> bool {
        let Some(source) = self.presentations.get(from_id) else { return false };
        let mut copy = source.clone();
        copy.id = new_id.to_owned();
        copy.title = new_title.to_owned();
        copy.revision = model::new_revision();
        self.presentations.insert(new_id.to_owned(), copy);
        true
    }

    /// Renames a presentation (Drive's `files.update` of `name`); false if unknown.
    pub fn rename(&mut self, id: &str, title: &str) -> bool {
        let Some(presentation) = self.presentations.get_mut(id) else { return false };
        presentation.title = title.to_owned();
        true
    }

    /// The text of every shape, slide by slide, a line each: Drive's `text/plain` export and full-text search.
    pub fn plain_text(&self, id: &str) -> Option<String> {
        self.presentations.get(id).map(Presentation::plain_text)
    }

    /// A presentation's `Presentation` resource, as `presentations.get` answers it.
    pub fn json(&self, id: &str) -> Option<Value> {
        self.presentations.get(id).map(Presentation::json)
    }

    /// `presentations.batchUpdate` in process (seeding, tests): `request` is a
    /// `BatchUpdatePresentationRequest`, checked against the discovery document and applied as the HTTP
    /// method applies it (no access check; Drive is not told). Returns the `BatchUpdatePresentationResponse`.
    pub fn batch_update(&mut self, id: &str, request: &Value) -> Result<Value, ApiError> {
        crate::sheets::schema::check_body(
            crate::sheets::schema::Api::Slides,
            "BatchUpdatePresentationRequest",
            request,
        )?;
        self.apply_batch(id, request).map(|(out, _)| out)
    }
}

impl World {
    /// Creates a presentation owned by `owner`, as `presentations.create` would, and registers it in Drive.
    /// Returns its id.
    pub fn create_presentation(&mut self, title: &str, owner: &Identity) -> String {
        let id = format!("1{}", World::new_id(43));
        self.slides.presentations.insert(id.clone(), Presentation::new(&id, title));
        self.drive.insert_native_file(&id, title, MIME_TYPE, owner);
        self.record_revision(&id);
        id
    }
}

pub fn routes() -> Router<Shared> {
    Router::new().route("/v1/presentations", post(http::create)).route("/v1/presentations/{*rest}", any(http::dispatch))
}
