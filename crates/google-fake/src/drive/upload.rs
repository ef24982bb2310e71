//! Uploads under `/upload/drive/v3/files`: `uploadType=media` (bytes only), `multipart`
//! (`multipart/related`: JSON metadata, then the media) and `resumable` (a session URI in `Location`, then
//! one or more `PUT`s with `Content-Range`, answered 308 until the last byte arrives).

use axum::body::Bytes;
use axum::extract::Path;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::IntoResponse;
use base64::Engine;
use serde_json::{Map, Value};

use super::Call;
use super::files::file_response;
use super::params::{Params, json_body};
use super::write::{Media, create_file, service_account_quota, update_file};
use crate::call::Reply;
use crate::errors::ApiError;
use crate::state::{Identity, World};

/// An open resumable upload.
#[derive(Debug, Clone)]
pub(crate) struct Session {
    who: Identity,
    /// The file being updated, for `PATCH` sessions.
    file_id: Option<String>,
    params: Params,
    metadata: Map<String, Value>,
    mime_type: Option<String>,
    total: Option<usize>,
    received: Vec<u8>,
}

/// Google's answer when an upload request lacks `uploadType` (or a metadata request carries one).
pub(crate) fn wrong_url() -> ApiError {
    ApiError::legacy(
        400,
        "wrongUrlForUpload",
        "Upload requests must include an uploadType URL parameter and a URL path beginning with /upload/",
    )
    .at("uploadType")
}

fn bad_multipart(detail: &str) -> ApiError {
    ApiError::legacy(400, "badContent", format!("Malformed multipart body: {detail}"))
}

fn find(haystack: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    if needle.is_empty() || from > haystack.len() {
        return None;
    }
    haystack[from..].windows(needle.len()).position(|w| w == needle).map(|p| p + from)
}

fn header_value(headers: &HeaderMap, name: header::HeaderName) -> Option<String> {
    headers.get(name).and_then(|v| v.to_str().ok()).map(str::to_owned)
}

/// One part of a multipart body: its headers (lower-cased names) and its bytes.
type Part<'a> = (Vec<(String, String)>, &'a [u8]);

/// A `Content-Range`: the first byte (none for `*`) and the total length (none for `*`).
type Range = (Option<usize>, Option<usize>);

/// Splits a `multipart/related` body into its metadata and media parts.
pub(crate) fn parse_multipart(content_type: &str, body: &[u8]) -> Result<(Map<String, Value>, Media), ApiError> {
    let boundary = content_type
        .split(';')
        .map(str::trim)
        .find_map(|param| param.strip_prefix("boundary="))
        .map(|b| b.trim_matches('"'))
        .filter(|b| !b.is_empty())
        .ok_or_else(|| bad_multipart("no boundary in Content-Type"))?;
    let delimiter = format!("--{boundary}").into_bytes();
    let mut parts: Vec<Part<'_>> = Vec::new();
    let mut cursor = find(body, &delimiter, 0).ok_or_else(|| bad_multipart("boundary not found"))?;
    loop {
        let mut start = cursor + delimiter.len();
        if body[start..].starts_with(b"--") {
            break;
        }
        start += if body[start..].starts_with(b"\r\n") { 2 } else { usize::from(body[start..].starts_with(b"\n")) };
        let next = find(body, &delimiter, start).ok_or_else(|| bad_multipart("unterminated part"))?;
        let mut part = &body[start..next];
        part = part.strip_suffix(b"\r\n").or_else(|| part.strip_suffix(b"\n")).unwrap_or(part);
        let (head, content) = match find(part, b"\r\n\r\n", 0) {
            Some(split) => (&part[..split], &part[split + 4..]),
            None => match find(part, b"\n\n", 0) {
                Some(split) => (&part[..split], &part[split + 2..]),
                None if part.starts_with(b"\r\n") => (&part[..0], &part[2..]),
                None => (part, &part[part.len()..]),
            },
        };
        let headers = String::from_utf8_lossy(head)
            .lines()
            .filter_map(|line| line.split_once(':'))
            .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
            .collect();
        parts.push((headers, content));
        cursor = next;
    }
    let [(_, metadata), (media_headers, media)] = parts.as_slice() else {
        return Err(bad_multipart("expected two parts, metadata then media"));
    };
    let metadata = json_body(metadata)?;
    let find_header = |name: &str| media_headers.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone());
    let bytes = match find_header("content-transfer-encoding") {
        Some(encoding) if encoding.eq_ignore_ascii_case("base64") => {
            let compact: Vec<u8> = media.iter().copied().filter(|b| !b.is_ascii_whitespace()).collect();
            base64::engine::general_purpose::STANDARD.decode(compact).map_err(|_| bad_multipart("bad base64 media"))?
        }
        _ => media.to_vec(),
    };
    Ok((metadata, Media { bytes, mime_type: find_header("content-type") }))
}

enum Kind {
    Media,
    Multipart,
    Resumable,
}

fn upload_kind(params: &Params) -> Result<Kind, ApiError> {
    match params.get("uploadType") {
        Some("media") => Ok(Kind::Media),
        Some("multipart") => Ok(Kind::Multipart),
        Some("resumable") => Ok(Kind::Resumable),
        Some(_) => Err(ApiError::drive_invalid("uploadType", "Invalid Value")),
        None => Err(wrong_url()),
    }
}

/// The metadata and media of a `media` or `multipart` upload.
fn read_upload(kind: &Kind, headers: &HeaderMap, body: &Bytes) -> Result<(Map<String, Value>, Media), ApiError> {
    let content_type = header_value(headers, header::CONTENT_TYPE);
    match kind {
        Kind::Multipart => parse_multipart(content_type.as_deref().unwrap_or_default(), body),
        _ => Ok((Map::new(), Media { bytes: body.to_vec(), mime_type: content_type })),
    }
}

/// Opens a resumable session and answers its URI in `Location`.
fn open_session(
    world: &mut World,
    who: Identity,
    file_id: Option<String>,
    params: Params,
    headers: &HeaderMap,
    body: &Bytes,
) -> Reply {
    let metadata = json_body(body)?;
    let mime_type = header_value(headers, header::HeaderName::from_static("x-upload-content-type"));
    let total = header_value(headers, header::HeaderName::from_static("x-upload-content-length"))
        .and_then(|v| v.trim().parse().ok());
    if file_id.is_none() && who.is_service_account() {
        // Fail at the start, as Google does, when the file could never be created.
        let parent = metadata.get("parents").and_then(|p| p.get(0)).and_then(Value::as_str).map(str::to_owned);
        let in_shared_drive = parent
            .map(|p| world.drive.resolve(&p, &who))
            .and_then(|p| world.drive.get(&p).and_then(|f| f.drive_id.clone()))
            .is_some();
        if !in_shared_drive {
            return Err(service_account_quota());
        }
    }
    let upload_id = format!("AHVrdw{}", World::new_id(60));
    let path = match &file_id {
        Some(id) => format!("/upload/drive/v3/files/{id}"),
        None => "/upload/drive/v3/files".to_owned(),
    };
    let location = format!("{}{path}?uploadType=resumable&upload_id={upload_id}", world.base_url);
    world
        .drive
        .uploads
        .insert(upload_id.clone(), Session { who, file_id, params, metadata, mime_type, total, received: Vec::new() });
    let mut response = StatusCode::OK.into_response();
    if let Ok(value) = HeaderValue::from_str(&location) {
        response.headers_mut().insert(header::LOCATION, value);
    }
    if let Ok(value) = HeaderValue::from_str(&upload_id) {
        response.headers_mut().insert("x-guploader-uploadid", value);
    }
    Ok(response)
}

/// `POST /upload/drive/v3/files`.
pub(crate) async fn create(call: Call, body: Bytes) -> Reply {
    call.run(|world, who, params| {
        let kind = upload_kind(params)?;
        if let Kind::Resumable = kind {
            return open_session(world, who, None, params.clone(), &call.headers, &body);
        }
        let (metadata, media) = read_upload(&kind, &call.headers, &body)?;
        let id = create_file(world, &who, params, &metadata, Some(media))?;
        file_response(world, &who, &id, params)
    })
}

/// `PATCH /upload/drive/v3/files/{fileId}`: new content (and metadata, for multipart).
pub(crate) async fn update(Path(file_id): Path<String>, call: Call, body: Bytes) -> Reply {
    call.run(|world, who, params| {
        let id = world.drive.resolve(&file_id, &who);
        let kind = upload_kind(params)?;
        if let Kind::Resumable = kind {
            world.drive.open(&id, &who, params.all_drives()?)?;
            return open_session(world, who, Some(id), params.clone(), &call.headers, &body);
        }
        let (metadata, media) = read_upload(&kind, &call.headers, &body)?;
        update_file(world, &who, &id, params, &metadata, Some(media))?;
        file_response(world, &who, &id, params)
    })
}

/// Parses `Content-Range: bytes a-b/total` (or `bytes */total`): the first byte and the total, if known.
fn content_range(headers: &HeaderMap) -> Result<Option<Range>, ApiError> {
    let Some(range) = header_value(headers, header::CONTENT_RANGE) else {
        return Ok(None);
    };
    let bad = || ApiError::legacy(400, "badRequest", format!("Invalid Content-Range header: {range}"));
    let spec = range.trim().strip_prefix("bytes ").ok_or_else(bad)?;
    let (span, total) = spec.split_once('/').ok_or_else(bad)?;
    let total = if total == "*" { None } else { Some(total.parse().map_err(|_| bad())?) };
    let first = if span == "*" {
        None
    } else {
        let (first, _) = span.split_once('-').ok_or_else(bad)?;
        Some(first.parse().map_err(|_| bad())?)
    };
    Ok(Some((first, total)))
}

/// The next bytes of a resumable upload: the session, not a bearer token, says who is uploading.
fn resume_session(call: &Call, body: &Bytes) -> Reply {
    let Some(upload_id) = call.query.text("upload_id").map(str::to_owned) else {
        return Err(wrong_url());
    };
    let mut guard = call.shared.lock();
    let world: &mut World = &mut guard;
    let Some(session) = world.drive.uploads.get_mut(&upload_id) else {
        return Err(ApiError::legacy(404, "notFound", "Upload session not found or expired."));
    };
    let range = content_range(&call.headers)?;
    if let Some((first, total)) = range {
        if let Some(first) = first {
            if first > session.received.len() {
                return Err(ApiError::legacy(400, "badRequest", "Content-Range starts past the bytes received."));
            }
            session.received.truncate(first);
            session.received.extend_from_slice(body);
        }
        if total.is_some() {
            session.total = total;
        }
    } else {
        session.received.extend_from_slice(body);
        session.total = Some(session.received.len());
    }
    if session.total != Some(session.received.len()) {
        let mut response = StatusCode::PERMANENT_REDIRECT.into_response();
        if !session.received.is_empty()
            && let Ok(value) = HeaderValue::from_str(&format!("bytes=0-{}", session.received.len() - 1))
        {
            response.headers_mut().insert(header::RANGE, value);
        }
        return Ok(response);
    }
    let Some(session) = world.drive.uploads.remove(&upload_id) else {
        return Err(ApiError::legacy(404, "notFound", "Upload session not found or expired."));
    };
    let media = Media { bytes: session.received, mime_type: session.mime_type };
    let id = match &session.file_id {
        Some(id) => {
            update_file(world, &session.who, id, &session.params, &session.metadata, Some(media))?;
            id.clone()
        }
        None => create_file(world, &session.who, &session.params, &session.metadata, Some(media))?,
    };
    file_response(world, &session.who, &id, &session.params)
}

/// `PUT /upload/drive/v3/files?upload_id=…`: bytes of a resumable create.
pub(crate) async fn resume(call: Call, body: Bytes) -> Reply {
    resume_session(&call, &body)
}

/// `PUT /upload/drive/v3/files/{fileId}?upload_id=…`: bytes of a resumable update.
pub(crate) async fn resume_update(Path(_file_id): Path<String>, call: Call, body: Bytes) -> Reply {
    resume_session(&call, &body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_metadata_and_media() {
        let body = b"--xyz\r\nContent-Type: application/json; charset=UTF-8\r\n\r\n{\"name\":\"a.txt\"}\r\n--xyz\r\nContent-Type: text/plain\r\n\r\nhello\r\nworld\r\n--xyz--\r\n";
        let (metadata, media) = parse_multipart("multipart/related; boundary=xyz", body).expect("a valid body");
        assert_eq!(metadata.get("name").and_then(Value::as_str), Some("a.txt"));
        assert_eq!(media.bytes, b"hello\r\nworld");
        assert_eq!(media.mime_type.as_deref(), Some("text/plain"));
    }
}
