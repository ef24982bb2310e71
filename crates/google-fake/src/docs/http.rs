//! The Docs v1 HTTP surface: `documents.create`, `documents.get`, `documents.batchUpdate`.

use axum::body::Bytes;
use axum::http::{Method, Uri};
use serde_json::{Value, json};

use super::edit;
use super::images::{self, Images};
use super::model::{Document, new_revision};
use super::{MIME_TYPE, Store};
use crate::call::Reply;
use crate::drive::Access;
use crate::errors::ApiError;
use crate::rpc::{Call, apply_requests, body_object, checked_body, decode, respond, unknown_path};
use crate::sheets::schema::{Api, Query, check_body, check_query};
use crate::state::{Identity, World};

impl Store {
    fn doc(&self, id: &str) -> Result<&Document, ApiError> {
        self.docs.get(id).ok_or_else(ApiError::not_found)
    }
}

/// `POST /v1/documents` (`documents.create`): only the title of the body is used, as Google does.
pub(super) async fn create(call: Call, body: Bytes) -> Reply {
    call.run(|world, who, query| {
        let body = checked_body(Api::Docs, &["documents", "create"], query, "Document", &body)?;
        // The new file lands in the caller's My Drive, where a service account has no storage.
        if who.is_service_account() {
            return Err(ApiError::rpc(403, "The user's Drive storage quota has been exceeded."));
        }
        let title = body.get("title").and_then(Value::as_str).filter(|t| !t.is_empty()).unwrap_or("Untitled document");
        let id = format!("1{}", World::new_id(43));
        let doc = Document::new(&id, title);
        let value = doc.json(false);
        world.docs.docs.insert(id.clone(), doc);
        world.native_created(&id, title, MIME_TYPE, &who);
        respond(value, query)
    })
}

/// `GET /v1/documents/{id}` and `POST /v1/documents/{id}:batchUpdate`.
pub(super) async fn dispatch(method: Method, uri: Uri, call: Call, body: Bytes) -> Reply {
    // Images to insert are fetched first, with the world unlocked (the URI may be the emulator's own).
    let images = if method == Method::POST { images::prefetch(&body).await } else { Images::new() };
    call.run(|world, who, query| route(world, &who, (&method, uri.path()), query, &body, &images))
}

fn route(
    world: &mut World,
    who: &Identity,
    (method, path): (&Method, &str),
    query: &Query,
    body: &[u8],
    images: &Images,
) -> Reply {
    let rest = path.strip_prefix("/v1/documents/").unwrap_or_default();
    if rest.contains('/') {
        return Err(unknown_path(path));
    }
    let (id, verb) = match rest.rsplit_once(':') {
        Some((id, verb)) => (decode(id)?, Some(verb)),
        None => (decode(rest)?, None),
    };
    match (verb, method) {
        (None, &Method::GET) => {
            check_query(Api::Docs, &["documents", "get"], query)?;
            world.require_native_access(&id, who, Access::Read)?;
            let doc = world.docs.doc(&id)?;
            respond(doc.json(query.flag("includeTabsContent")), query)
        }
        (Some("batchUpdate"), &Method::POST) => batch_update(world, who, &id, query, body, images),
        _ => Err(unknown_path(path)),
    }
}

fn batch_update(world: &mut World, who: &Identity, id: &str, query: &Query, body: &[u8], images: &Images) -> Reply {
    let body = checked_body(Api::Docs, &["documents", "batchUpdate"], query, "BatchUpdateDocumentRequest", body)?;
    world.require_native_access(id, who, Access::Write)?;
    let (out, changed) = world.docs.apply_batch(id, &body, images)?;
    if changed {
        world.native_edited(id, who);
    }
    respond(out, query)
}

impl Store {
    /// `documents.batchUpdate` in process (seeding, tests): `request` is a `BatchUpdateDocumentRequest`,
    /// checked against the discovery document and applied exactly as the HTTP method applies it (no
    /// access check, and Drive is not told; no image is fetched, so `insertInlineImage` fails). Returns the
    /// `BatchUpdateDocumentResponse`.
    pub fn batch_update(&mut self, id: &str, request: &Value) -> Result<Value, ApiError> {
        check_body(Api::Docs, "BatchUpdateDocumentRequest", request)?;
        self.apply_batch(id, request, &Images::new()).map(|(out, _)| out)
    }

    /// The one implementation of `documents.batchUpdate` on a checked request body: all requests apply
    /// or none do. Also returns whether the document changed (there was at least one request). `images` are
    /// the images the request inserts, fetched beforehand ([`images::prefetch`]).
    fn apply_batch(&mut self, id: &str, body: &Value, images: &Images) -> Result<(Value, bool), ApiError> {
        let original = self.doc(id)?;
        let control = body_object(body.get("writeControl").unwrap_or(&Value::Null));
        let required = control.get("requiredRevisionId").and_then(Value::as_str);
        let target = control.get("targetRevisionId").and_then(Value::as_str);
        if required.is_some() && target.is_some() {
            return Err(ApiError::invalid("Only one of requiredRevisionId and targetRevisionId may be set."));
        }
        if let Some(required) = required
            && required != original.revision
        {
            return Err(ApiError {
                status: "FAILED_PRECONDITION",
                ..ApiError::invalid(format!(
                    "The document revision '{required}' does not match the required revision; the document has been modified since."
                ))
            });
        }
        let requests = body.get("requests").and_then(Value::as_array).cloned().unwrap_or_default();
        let mut doc = original.clone();
        let replies = apply_requests(&requests, "request", "documents.batchUpdate", |kind, inner| match kind {
            "insertInlineImage" => images::insert(&mut doc, inner, images),
            _ => edit::apply(&mut doc, kind, inner),
        })?;
        let changed = !requests.is_empty();
        if changed {
            doc.revision = new_revision();
        }
        let revision = doc.revision.clone();
        self.docs.insert(id.to_owned(), doc);
        let mut out = json!({ "documentId": id, "writeControl": { "requiredRevisionId": revision } });
        if changed {
            out["replies"] = Value::Array(replies);
        }
        Ok((out, changed))
    }
}
