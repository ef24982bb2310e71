//! `comments.list/get/create/update/delete` and `replies.list/create` (a reply with `action: resolve` or
//! `reopen` resolves or reopens its comment). Every comments method requires `fields`, as on Google.

use axum::body::Bytes;
use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::{Value, json};

use super::fields;
use super::params::{Params, json_body, str_field};
use super::query::parse_time;
use super::{Comment, Reply, Role, now, rfc3339};
use crate::Shared;
use crate::activity::{Action, CommentKind};
use crate::errors::{ApiError, Shape};
use crate::state::{Identity, World};

fn comment_not_found(id: &str) -> ApiError {
    ApiError::legacy(404, "notFound", format!("Comment not found: {id}.")).at("commentId")
}

fn html(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;").replace('\n', "<br>")
}

fn author(world: &World, email: &str, who: &Identity) -> Value {
    json!({
        "kind": "drive#user",
        "displayName": world.drive.display_name(email),
        "photoLink": "https://lh3.googleusercontent.com/a/default-user=s64",
        "me": email.eq_ignore_ascii_case(&who.email),
    })
}

fn reply_json(world: &World, reply: &Reply, who: &Identity) -> Value {
    let mut out = json!({
        "kind": "drive#reply",
        "id": reply.id,
        "createdTime": rfc3339(&reply.created_time),
        "modifiedTime": rfc3339(&reply.modified_time),
        "author": author(world, &reply.author, who),
        "deleted": reply.deleted,
    });
    if !reply.deleted {
        out["content"] = json!(reply.content);
        out["htmlContent"] = json!(html(&reply.content));
    }
    if let Some(action) = &reply.action {
        out["action"] = json!(action);
    }
    out
}

fn comment_json(world: &World, comment: &Comment, who: &Identity, include_deleted: bool) -> Value {
    let mut out = json!({
        "kind": "drive#comment",
        "id": comment.id,
        "createdTime": rfc3339(&comment.created_time),
        "modifiedTime": rfc3339(&comment.modified_time),
        "author": author(world, &comment.author, who),
        "deleted": comment.deleted,
        "resolved": comment.resolved,
        "replies": comment
            .replies
            .iter()
            .filter(|r| include_deleted || !r.deleted)
            .map(|r| reply_json(world, r, who))
            .collect::<Vec<_>>(),
    });
    if !comment.deleted {
        out["content"] = json!(comment.content);
        out["htmlContent"] = json!(html(&comment.content));
        if let Some((mime, value)) = &comment.quoted {
            out["quotedFileContent"] = json!({ "mimeType": mime, "value": value });
        }
    }
    if let Some(anchor) = &comment.anchor {
        out["anchor"] = json!(anchor);
    }
    out
}

/// Authenticates, checks `fields` is present, and opens the file with at least `needed`.
fn prepare(
    world: &mut World,
    headers: &HeaderMap,
    params: &Params,
    file_id: &str,
    needed: Role,
) -> Result<(Identity, String), ApiError> {
    let who = world.authenticate(headers, Shape::Legacy)?;
    params.require_fields()?;
    let id = world.drive.resolve(file_id, &who);
    world.drive.open_for(&id, &who, true, needed)?;
    Ok((who, id))
}

fn answer(params: &Params, schema: &str, value: &Value) -> Result<Response, ApiError> {
    let selector = params.require_fields()?;
    Ok(axum::Json(fields::select(selector, schema, value)?).into_response())
}

fn page(params: &Params, total: usize) -> Result<(usize, usize), ApiError> {
    let size = usize::try_from(params.int("pageSize", 20, 1, 100)?).unwrap_or(20);
    let start = match params.text("pageToken") {
        Some(token) => URL_SAFE_NO_PAD
            .decode(token)
            .ok()
            .and_then(|b| String::from_utf8(b).ok())
            .and_then(|s| s.strip_prefix("offset:").and_then(|n| n.parse::<usize>().ok()))
            .filter(|n| *n <= total)
            .ok_or_else(|| ApiError::drive_invalid("pageToken", "Invalid Value"))?,
        None => 0,
    };
    Ok((start, size))
}

fn next_token(start: usize, size: usize, total: usize) -> Option<String> {
    (start + size < total).then(|| URL_SAFE_NO_PAD.encode(format!("offset:{}", start + size)))
}

fn record(world: &mut World, who: &Identity, id: &str, kind: CommentKind) {
    super::record(world, who, id, Action::Comment(kind));
}

/// `GET /drive/v3/files/{fileId}/comments`.
pub(crate) async fn list(
    State(shared): State<Shared>,
    Path(file_id): Path<String>,
    headers: HeaderMap,
    RawQuery(raw): RawQuery,
) -> Result<Response, ApiError> {
    let params = Params::parse(raw.as_deref());
    let mut guard = shared.lock();
    let world: &mut World = &mut guard;
    let (who, id) = prepare(world, &headers, &params, &file_id, Role::Reader)?;
    let include_deleted = params.flag("includeDeleted")?;
    let since = match params.text("startModifiedTime") {
        Some(time) => {
            Some(parse_time(time).ok_or_else(|| ApiError::drive_invalid("startModifiedTime", "Invalid Value"))?)
        }
        None => None,
    };
    let empty = Vec::new();
    let all: Vec<&Comment> = world
        .drive
        .comments
        .get(&id)
        .unwrap_or(&empty)
        .iter()
        .filter(|c| include_deleted || !c.deleted)
        .filter(|c| since.is_none_or(|t| c.modified_time >= t))
        .collect();
    let (start, size) = page(&params, all.len())?;
    let comments: Vec<Value> =
        all.iter().skip(start).take(size).map(|c| comment_json(world, c, &who, include_deleted)).collect();
    let mut body = json!({ "kind": "drive#commentList", "comments": comments });
    if let Some(token) = next_token(start, size, all.len()) {
        body["nextPageToken"] = json!(token);
    }
    answer(&params, "CommentList", &body)
}

/// `POST /drive/v3/files/{fileId}/comments`.
pub(crate) async fn create(
    State(shared): State<Shared>,
    Path(file_id): Path<String>,
    headers: HeaderMap,
    RawQuery(raw): RawQuery,
    body: Bytes,
) -> Result<Response, ApiError> {
    let params = Params::parse(raw.as_deref());
    let mut guard = shared.lock();
    let world: &mut World = &mut guard;
    let (who, id) = prepare(world, &headers, &params, &file_id, Role::Commenter)?;
    let body = json_body(&body)?;
    let content = str_field(&body, "content")?
        .filter(|c| !c.trim().is_empty())
        .ok_or_else(|| ApiError::legacy(400, "required", "Required parameter: content").at("content"))?
        .to_owned();
    let quoted = match body.get("quotedFileContent") {
        Some(Value::Object(quote)) => quote.get("value").and_then(Value::as_str).map(|value| {
            let mime = quote.get("mimeType").and_then(Value::as_str).unwrap_or("text/html");
            (mime.to_owned(), value.to_owned())
        }),
        _ => None,
    };
    let time = now();
    let comment = Comment {
        id: format!("AAAB{}", World::new_id(12)),
        author: who.email.trim().to_ascii_lowercase(),
        content,
        created_time: time,
        modified_time: time,
        resolved: false,
        deleted: false,
        anchor: str_field(&body, "anchor")?.map(str::to_owned),
        quoted,
        replies: Vec::new(),
    };
    let value = comment_json(world, &comment, &who, false);
    world.drive.comments.entry(id.clone()).or_default().push(comment);
    record(world, &who, &id, CommentKind::Added);
    answer(&params, "Comment", &value)
}

fn find_comment<'a>(world: &'a mut World, id: &str, comment_id: &str) -> Result<&'a mut Comment, ApiError> {
    world
        .drive
        .comments
        .get_mut(id)
        .and_then(|list| list.iter_mut().find(|c| c.id == comment_id))
        .ok_or_else(|| comment_not_found(comment_id))
}

/// `GET /drive/v3/files/{fileId}/comments/{commentId}`.
pub(crate) async fn get(
    State(shared): State<Shared>,
    Path((file_id, comment_id)): Path<(String, String)>,
    headers: HeaderMap,
    RawQuery(raw): RawQuery,
) -> Result<Response, ApiError> {
    let params = Params::parse(raw.as_deref());
    let mut guard = shared.lock();
    let world: &mut World = &mut guard;
    let (who, id) = prepare(world, &headers, &params, &file_id, Role::Reader)?;
    let include_deleted = params.flag("includeDeleted")?;
    let comment = find_comment(world, &id, &comment_id)?.clone();
    if comment.deleted && !include_deleted {
        return Err(comment_not_found(&comment_id));
    }
    answer(&params, "Comment", &comment_json(world, &comment, &who, include_deleted))
}

/// `PATCH /drive/v3/files/{fileId}/comments/{commentId}`: the author changes the content.
pub(crate) async fn update(
    State(shared): State<Shared>,
    Path((file_id, comment_id)): Path<(String, String)>,
    headers: HeaderMap,
    RawQuery(raw): RawQuery,
    body: Bytes,
) -> Result<Response, ApiError> {
    let params = Params::parse(raw.as_deref());
    let mut guard = shared.lock();
    let world: &mut World = &mut guard;
    let (who, id) = prepare(world, &headers, &params, &file_id, Role::Commenter)?;
    let body = json_body(&body)?;
    let content = str_field(&body, "content")?.map(str::to_owned);
    let comment = find_comment(world, &id, &comment_id)?;
    if comment.deleted {
        return Err(comment_not_found(&comment_id));
    }
    if !comment.author.eq_ignore_ascii_case(&who.email) {
        return Err(ApiError::legacy(
            403,
            "forbidden",
            "The user does not have sufficient permissions for this comment.",
        ));
    }
    if let Some(content) = content {
        comment.content = content;
        comment.modified_time = now();
    }
    let comment = comment.clone();
    answer(&params, "Comment", &comment_json(world, &comment, &who, false))
}

/// `DELETE /drive/v3/files/{fileId}/comments/{commentId}`: by its author or the file's owner/organizer.
pub(crate) async fn delete(
    State(shared): State<Shared>,
    Path((file_id, comment_id)): Path<(String, String)>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let mut guard = shared.lock();
    let world: &mut World = &mut guard;
    let who = world.authenticate(&headers, Shape::Legacy)?;
    let id = world.drive.resolve(&file_id, &who);
    let role = world.drive.open(&id, &who, true)?.1;
    let comment = find_comment(world, &id, &comment_id)?;
    if comment.deleted {
        return Err(comment_not_found(&comment_id));
    }
    if !comment.author.eq_ignore_ascii_case(&who.email) && role < Role::Organizer {
        return Err(ApiError::legacy(
            403,
            "forbidden",
            "The user does not have sufficient permissions for this comment.",
        ));
    }
    comment.deleted = true;
    comment.modified_time = now();
    record(world, &who, &id, CommentKind::Deleted);
    Ok(StatusCode::NO_CONTENT.into_response())
}

/// `GET /drive/v3/files/{fileId}/comments/{commentId}/replies`.
pub(crate) async fn list_replies(
    State(shared): State<Shared>,
    Path((file_id, comment_id)): Path<(String, String)>,
    headers: HeaderMap,
    RawQuery(raw): RawQuery,
) -> Result<Response, ApiError> {
    let params = Params::parse(raw.as_deref());
    let mut guard = shared.lock();
    let world: &mut World = &mut guard;
    let (who, id) = prepare(world, &headers, &params, &file_id, Role::Reader)?;
    let include_deleted = params.flag("includeDeleted")?;
    let comment = find_comment(world, &id, &comment_id)?.clone();
    let all: Vec<&Reply> = comment.replies.iter().filter(|r| include_deleted || !r.deleted).collect();
    let (start, size) = page(&params, all.len())?;
    let replies: Vec<Value> = all.iter().skip(start).take(size).map(|r| reply_json(world, r, &who)).collect();
    let mut body = json!({ "kind": "drive#replyList", "replies": replies });
    if let Some(token) = next_token(start, size, all.len()) {
        body["nextPageToken"] = json!(token);
    }
    answer(&params, "ReplyList", &body)
}

/// `POST /drive/v3/files/{fileId}/comments/{commentId}/replies`.
pub(crate) async fn create_reply(
    State(shared): State<Shared>,
    Path((file_id, comment_id)): Path<(String, String)>,
    headers: HeaderMap,
    RawQuery(raw): RawQuery,
    body: Bytes,
) -> Result<Response, ApiError> {
    let params = Params::parse(raw.as_deref());
    let mut guard = shared.lock();
    let world: &mut World = &mut guard;
    let (who, id) = prepare(world, &headers, &params, &file_id, Role::Commenter)?;
    let body = json_body(&body)?;
    let action = str_field(&body, "action")?.map(str::to_owned);
    if action.as_deref().is_some_and(|a| a != "resolve" && a != "reopen") {
        return Err(ApiError::drive_invalid("action", "Invalid Value"));
    }
    let content = str_field(&body, "content")?.unwrap_or_default().to_owned();
    if content.trim().is_empty() && action.is_none() {
        return Err(ApiError::legacy(400, "required", "Required parameter: content").at("content"));
    }
    let time = now();
    let reply = Reply {
        id: format!("AAAB{}", World::new_id(12)),
        author: who.email.trim().to_ascii_lowercase(),
        content,
        created_time: time,
        modified_time: time,
        action: action.clone(),
        deleted: false,
    };
    let comment = find_comment(world, &id, &comment_id)?;
    if comment.deleted {
        return Err(comment_not_found(&comment_id));
    }
    match action.as_deref() {
        Some("resolve") => comment.resolved = true,
        Some("reopen") => comment.resolved = false,
        _ => {}
    }
    comment.modified_time = time;
    comment.replies.push(reply.clone());
    let kind = match action.as_deref() {
        Some("resolve") => CommentKind::Resolved,
        Some("reopen") => CommentKind::Reopened,
        _ => CommentKind::ReplyAdded,
    };
    record(world, &who, &id, kind);
    answer(&params, "Reply", &reply_json(world, &reply, &who))
}
