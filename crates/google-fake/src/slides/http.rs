//! The Slides v1 HTTP surface: `presentations.create`, `presentations.get`, `presentations.pages.get`,
//! `presentations.batchUpdate` (and `pages.getThumbnail`, answered 501: not emulated).

use axum::body::Bytes;
use axum::http::{Method, Uri};
use serde_json::{Value, json};

use super::model::{Presentation, new_revision};
use super::{MIME_TYPE, Store, edit};
use crate::call::Reply;
use crate::drive::Access;
use crate::errors::ApiError;
use crate::rpc::{Call, apply_requests, body_object, checked_body, decode, respond, unknown_path};
use crate::sheets::schema::{Api, Query, check_query};
use crate::state::{Identity, World};

impl Store {
    fn presentation(&self, id: &str) -> Result<&Presentation, ApiError> {
        self.presentations.get(id).ok_or_else(ApiError::not_found)
    }
}

/// `POST /v1/presentations` (`presentations.create`): the title of the body is used (and a `presentationId`,
/// when given and free, as Google allows); the rest of the body is ignored, as Google does.
pub(super) async fn create(call: Call, body: Bytes) -> Reply {
    call.run(|world, who, query| {
        let body = checked_body(Api::Slides, &["presentations", "create"], query, "Presentation", &body)?;
        // The new file lands in the caller's My Drive, where a service account has no storage.
        if who.is_service_account() {
            return Err(ApiError::rpc(403, "The user's Drive storage quota has been exceeded."));
        }
        let title =
            body.get("title").and_then(Value::as_str).filter(|t| !t.is_empty()).unwrap_or("Untitled presentation");
        let id = match body.get("presentationId").and_then(Value::as_str).filter(|id| !id.is_empty()) {
            Some(id) if world.slides.contains(id) || world.drive.contains(id) => {
                return Err(ApiError {
                    status: "ALREADY_EXISTS",
                    ..ApiError::rpc(409, format!("A presentation with the ID {id} already exists."))
                });
            }
            Some(id) => id.to_owned(),
            None => format!("1{}", World::new_id(43)),
        };
        let presentation = Presentation::new(&id, title);
        let value = presentation.json();
        world.slides.presentations.insert(id.clone(), presentation);
        world.native_created(&id, title, MIME_TYPE, &who);
        respond(value, query)
    })
}

/// `GET /v1/presentations/{id}`, `GET …/pages/{pageObjectId}` and `POST /v1/presentations/{id}:batchUpdate`.
pub(super) async fn dispatch(method: Method, uri: Uri, call: Call, body: Bytes) -> Reply {
    call.run(|world, who, query| route(world, &who, (&method, uri.path()), query, &body))
}

fn route(world: &mut World, who: &Identity, (method, path): (&Method, &str), query: &Query, body: &[u8]) -> Reply {
    let rest = path.strip_prefix("/v1/presentations/").unwrap_or_default();
    let segments: Vec<&str> = rest.split('/').collect();
    match (segments.as_slice(), method) {
        ([id], &Method::GET) if !id.contains(':') => {
            check_query(Api::Slides, &["presentations", "get"], query)?;
            let id = decode(id)?;
            world.require_native_access(&id, who, Access::Read)?;
            respond(world.slides.presentation(&id)?.json(), query)
        }
        ([id_verb], &Method::POST) if id_verb.ends_with(":batchUpdate") => {
            let id = decode(id_verb.trim_end_matches(":batchUpdate"))?;
            batch_update(world, who, &id, query, body)
        }
        ([id, "pages", page], &Method::GET) => {
            check_query(Api::Slides, &["presentations", "pages", "get"], query)?;
            let (id, page) = (decode(id)?, decode(page)?);
            world.require_native_access(&id, who, Access::Read)?;
            let presentation = world.slides.presentation(&id)?;
            let slide = presentation.slide(&page).ok_or_else(ApiError::not_found)?;
            respond(slide.json(&presentation.revision), query)
        }
        ([_, "pages", _, "thumbnail"], &Method::GET) => {
            Err(ApiError::rpc(501, "The Google emulator does not implement presentations.pages.getThumbnail."))
        }
        _ => Err(unknown_path(path)),
    }
}

fn batch_update(world: &mut World, who: &Identity, id: &str, query: &Query, body: &[u8]) -> Reply {
    let body =
        checked_body(Api::Slides, &["presentations", "batchUpdate"], query, "BatchUpdatePresentationRequest", body)?;
    world.require_native_access(id, who, Access::Write)?;
    let (out, changed) = world.slides.apply_batch(id, &body)?;
    if changed {
        world.native_edited(id, who);
    }
    respond(out, query)
}

impl Store {
    /// The one implementation of `presentations.batchUpdate` on a checked request body: all requests apply
    /// or none do. Also returns whether the presentation changed (there was at least one request).
    pub(super) fn apply_batch(&mut self, id: &str, body: &Value) -> Result<(Value, bool), ApiError> {
        let original = self.presentation(id)?;
        let control = body_object(body.get("writeControl").unwrap_or(&Value::Null));
        if let Some(required) = control.get("requiredRevisionId").and_then(Value::as_str)
            && required != original.revision
        {
            return Err(ApiError {
                status: "FAILED_PRECONDITION",
                ..ApiError::invalid(format!(
                    "The revision '{required}' does not match the required revision; the presentation has been modified since."
                ))
            });
        }
        let requests = body.get("requests").and_then(Value::as_array).cloned().unwrap_or_default();
        let mut presentation = original.clone();
        let replies = apply_requests(&requests, "kind", "presentations.batchUpdate", |kind, inner| {
            edit::apply(&mut presentation, kind, inner)
        })?;
        let changed = !requests.is_empty();
        if changed {
            presentation.revision = new_revision();
        }
        let revision = presentation.revision.clone();
        self.presentations.insert(id.to_owned(), presentation);
        let out =
            json!({ "presentationId": id, "replies": replies, "writeControl": { "requiredRevisionId": revision } });
        Ok((out, changed))
    }
}
