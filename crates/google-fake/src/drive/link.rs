//! Drive's download link, `https://drive.google.com/uc?id=…&export=download` (a file's `webContentLink`),
//! fetched without signing in: the way Google's servers fetch an image given to Docs' `insertInlineImage`.
//! A blob answers its bytes only while anyone with the link may read it (an `anyone` permission on it or
//! a folder above it); any other file answers 404, as a private file does to a fetcher without a session.

use axum::extract::State;
use axum::http::{StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};

use crate::Shared;

/// The download link's path on drive.google.com.
pub(crate) const PATH: &str = "/uc";

/// `GET /uc?id=…`: a link-readable blob's bytes.
pub(crate) async fn download(State(shared): State<Shared>, uri: Uri) -> Response {
    let query = uri.query().unwrap_or_default();
    let id = url::form_urlencoded::parse(query.as_bytes()).find(|(name, _)| name == "id").map(|(_, v)| v.into_owned());
    let world = shared.lock();
    let file = id
        .as_deref()
        .and_then(|id| world.drive.get(id))
        .filter(|file| !world.drive.is_trashed(file) && world.drive.role_for_email(file, "", false, true).is_some());
    match file.and_then(|file| file.content.clone().map(|bytes| (file.mime_type.clone(), bytes))) {
        Some((mime_type, bytes)) => ([(header::CONTENT_TYPE, mime_type)], bytes).into_response(),
        None => (StatusCode::NOT_FOUND, "Sorry, the file you have requested does not exist.").into_response(),
    }
}
