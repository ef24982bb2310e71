//! The Docs v1 HTTP surface: `documents.create`, `documents.get`, `documents.batchUpdate`.

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, Method, Uri};
use axum::response::Response;
use serde_json::{Map, Value, json};

use super::edit::{self, Failure};
use super::model::{Document, new_revision};
use super::{MIME_TYPE, Store};
use crate::Shared;
use crate::drive::Access;
use crate::errors::{ApiError, Shape};
use crate::sheets::schema::{Api, Query, camel, check_body, check_query, parse_body};
use crate::sheets::{decode, respond};
use crate::state::{Identity, World};

type Reply = Result<Response, ApiError>;

impl Store {
    fn doc(&self, id: &str) -> Result<&Document, ApiError> {
        self.docs.get(id).ok_or_else(ApiError::not_found)
    }
}

/// `POST /v1/documents` (`documents.create`): only the title of the body is used, as Google does.
pub(super) async fn create(State(shared): State<Shared>, headers: HeaderMap, uri: Uri, body: Bytes) -> Reply {
    let mut world = shared.lock();
    let who = world.authenticate(&headers, Shape::Rpc)?;
    let query = Query::parse(uri.query());
    check_query(Api::Docs, &["documents", "create"], &query)?;
    let body = parse_body(&body)?;
    check_body(Api::Docs, "Document", &body)?;
    let title = body.get("title").and_then(Value::as_str).filter(|t| !t.is_empty()).unwrap_or("Untitled document");
    let id = format!("1{}", World::new_id(43));
    let doc = Document::new(&id, title);
    let value = doc.json(false);
    world.docs.docs.insert(id.clone(), doc);
    world.native_created(&id, title, MIME_TYPE, &who);
    respond(value, &query)
}

fn unknown_path(path: &str) -> ApiError {
    ApiError::rpc(404, format!("The requested URL {path} was not found on this server."))
}

/// `GET /v1/documents/{id}` and `POST /v1/documents/{id}:batchUpdate`.
pub(super) async fn dispatch(
    State(shared): State<Shared>,
    method: Method,
    headers: HeaderMap,
    uri: Uri,
    body: Bytes,
) -> Reply {
    let mut world = shared.lock();
    let who = world.authenticate(&headers, Shape::Rpc)?;
    let world = &mut *world;
    let query = Query::parse(uri.query());
    let path = uri.path();
    let rest = path.strip_prefix("/v1/documents/").unwrap_or_default();
    if rest.contains('/') {
        return Err(unknown_path(path));
    }
    let (id, verb) = match rest.rsplit_once(':') {
        Some((id, verb)) => (decode(id)?, Some(verb)),
        None => (decode(rest)?, None),
    };
    match (verb, method) {
        (None, Method::GET) => {
            check_query(Api::Docs, &["documents", "get"], &query)?;
            world.require_native_access(&id, &who, Access::Read)?;
            let doc = world.docs.doc(&id)?;
            respond(doc.json(query.flag("includeTabsContent")), &query)
        }
        (Some("batchUpdate"), Method::POST) => batch_update(world, &who, &id, &query, &body),
        _ => Err(unknown_path(path)),
    }
}

fn body_object(value: &Value) -> Map<String, Value> {
    value.as_object().cloned().unwrap_or_default()
}

fn batch_update(world: &mut World, who: &Identity, id: &str, query: &Query, body: &[u8]) -> Reply {
    check_query(Api::Docs, &["documents", "batchUpdate"], query)?;
    let body = parse_body(body)?;
    check_body(Api::Docs, "BatchUpdateDocumentRequest", &body)?;
    world.require_native_access(id, who, Access::Write)?;
    let (out, changed) = world.docs.apply_batch(id, &body)?;
    if changed {
        world.native_edited(id, who);
    }
    respond(out, query)
}

impl Store {
    /// `documents.batchUpdate` in process (seeding, tests): `request` is a `BatchUpdateDocumentRequest`,
    /// checked against the discovery document and applied exactly as the HTTP method applies it (no
    /// access check, and Drive is not told). Returns the `BatchUpdateDocumentResponse`.
    pub fn batch_update(&mut self, id: &str, request: &Value) -> Result<Value, ApiError> {
        check_body(Api::Docs, "BatchUpdateDocumentRequest", request)?;
        self.apply_batch(id, request).map(|(out, _)| out)
    }

    /// The one implementation of `documents.batchUpdate` on a checked request body: all requests apply
    /// or none do. Also returns whether the document changed (there was at least one request).
    fn apply_batch(&mut self, id: &str, body: &Value) -> Result<(Value, bool), ApiError> {
        let original = self.doc(id)?;
        let control = body.get("writeControl").map(body_object).unwrap_or_default();
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
        let mut replies = Vec::with_capacity(requests.len());
        for (i, request) in requests.iter().enumerate() {
            let set: Vec<(&String, &Value)> =
                request.as_object().into_iter().flatten().filter(|(_, v)| !v.is_null()).collect();
            let (kind, inner) = match set.as_slice() {
                [(kind, inner)] => (camel(kind), body_object(inner)),
                [] => {
                    return Err(ApiError::invalid(format!("Invalid requests[{i}]: No request specified.")));
                }
                [(first, _), (second, _), ..] => {
                    return Err(ApiError::invalid(format!(
                        "Invalid value at 'requests[{i}]' (oneof), oneof field 'request' is already set. Cannot set '{second}' (already set: '{first}')"
                    )));
                }
            };
            match edit::apply(&mut doc, &kind, &inner) {
                Ok(reply) => replies.push(reply),
                Err(Failure::Invalid(message)) => {
                    return Err(ApiError::invalid(format!("Invalid requests[{i}].{kind}: {message}")));
                }
                Err(Failure::Unimplemented) => {
                    return Err(ApiError::rpc(
                        501,
                        format!(
                            "The Google emulator does not implement requests[{i}].{kind} of documents.batchUpdate."
                        ),
                    ));
                }
            }
        }
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
