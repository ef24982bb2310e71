//! `comments.list/get/create/update/delete` and `replies.list/create` (a reply with `action: resolve` or
//! `reopen` resolves or reopens its comment). Every comments method requires `fields`, as on Google.

use axum::body::Bytes;
use axum::extract::Path;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use super::params::{Params, json_body, respond, str_field};
use super::{Call, Comment, Reply, Role, now, rfc3339};
use crate::activity::{Action, CommentKind};
use crate::errors::ApiError;
use crate::state::{Identity, World};

fn comment_not_found(id: &str) -> ApiError {
    ApiError::legacy(404, "notFound", format!("Comment not found: {id}.")).at("commentId")
}

fn content_required() -> ApiError {
    ApiError::legacy(400, "required", "Required parameter: content").at("content")
}

fn not_the_author() -> ApiError {
    ApiError::legacy(403, "forbidden", "The user does not have sufficient permissions for this comment.")
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

/// Runs a comments method on the file `file_id` for a caller with at least `needed` on it, once the
/// request named its `fields` (every comments method but `delete` requires them).
fn on_file(
    call: &Call,
    file_id: &str,
    needed: Role,
    handler: impl FnOnce(&mut World, &Identity, &Params, String) -> Result<Response, ApiError>,
) -> Result<Response, ApiError> {
    call.run(|world, who, params| {
        params.require_fields()?;
        let id = world.drive.resolve(file_id, &who);
        world.drive.open_for(&id, &who, true, needed)?;
        handler(world, &who, params, id)
    })
}

fn record(world: &mut World, who: &Identity, id: &str, kind: CommentKind) {
    super::record(world, who, id, Action::Comment(kind));
}

/// `GET /drive/v3/files/{fileId}/comments`.
pub(crate) async fn list(Path(file_id): Path<String>, call: Call) -> Result<Response, ApiError> {
    on_file(&call, &file_id, Role::Reader, |world, who, params, id| {
        let include_deleted = params.flag("includeDeleted")?;
        let since = params.time("startModifiedTime")?;
        let all: Vec<&Comment> = world
            .drive
            .comments
            .get(&id)
            .into_iter()
            .flatten()
            .filter(|c| include_deleted || !c.deleted)
            .filter(|c| since.is_none_or(|t| c.modified_time >= t))
            .collect();
        let page = params.page(20, all.len())?;
        let body = page.list("drive#commentList", "comments", &all, |c| comment_json(world, c, who, include_deleted));
        respond(params, "", "CommentList", &body)
    })
}

/// `POST /drive/v3/files/{fileId}/comments`.
pub(crate) async fn create(Path(file_id): Path<String>, call: Call, body: Bytes) -> Result<Response, ApiError> {
    on_file(&call, &file_id, Role::Commenter, |world, who, params, id| create_comment(world, who, params, id, &body))
}

fn create_comment(
    world: &mut World,
    who: &Identity,
    params: &Params,
    id: String,
    body: &[u8],
) -> Result<Response, ApiError> {
    let body = json_body(body)?;
    let content =
        str_field(&body, "content")?.filter(|c| !c.trim().is_empty()).ok_or_else(content_required)?.to_owned();
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
    let value = comment_json(world, &comment, who, false);
    world.drive.comments.entry(id.clone()).or_default().push(comment);
    record(world, who, &id, CommentKind::Added);
    respond(params, "", "Comment", &value)
}

fn find_comment<'a>(world: &'a mut World, id: &str, comment_id: &str) -> Result<&'a mut Comment, ApiError> {
    world
        .drive
        .comments
        .get_mut(id)
        .and_then(|list| list.iter_mut().find(|c| c.id == comment_id))
        .ok_or_else(|| comment_not_found(comment_id))
}

/// The comment `comment_id` on `id`, unless it was deleted.
fn live_comment<'a>(world: &'a mut World, id: &str, comment_id: &str) -> Result<&'a mut Comment, ApiError> {
    let comment = find_comment(world, id, comment_id)?;
    if comment.deleted {
        return Err(comment_not_found(comment_id));
    }
    Ok(comment)
}

/// `GET /drive/v3/files/{fileId}/comments/{commentId}`.
pub(crate) async fn get(Path((file_id, comment_id)): Path<(String, String)>, call: Call) -> Result<Response, ApiError> {
    on_file(&call, &file_id, Role::Reader, |world, who, params, id| {
        let include_deleted = params.flag("includeDeleted")?;
        let comment = find_comment(world, &id, &comment_id)?.clone();
        if comment.deleted && !include_deleted {
            return Err(comment_not_found(&comment_id));
        }
        respond(params, "", "Comment", &comment_json(world, &comment, who, include_deleted))
    })
}

/// `PATCH /drive/v3/files/{fileId}/comments/{commentId}`: the author changes the content.
pub(crate) async fn update(
    Path((file_id, comment_id)): Path<(String, String)>,
    call: Call,
    body: Bytes,
) -> Result<Response, ApiError> {
    on_file(&call, &file_id, Role::Commenter, |world, who, params, id| {
        let body = json_body(&body)?;
        let content = str_field(&body, "content")?.map(str::to_owned);
        let comment = live_comment(world, &id, &comment_id)?;
        if !comment.author.eq_ignore_ascii_case(&who.email) {
            return Err(not_the_author());
        }
        if let Some(content) = content {
            comment.content = content;
            comment.modified_time = now();
        }
        let comment = comment.clone();
        respond(params, "", "Comment", &comment_json(world, &comment, who, false))
    })
}

/// `DELETE /drive/v3/files/{fileId}/comments/{commentId}`: by its author or the file's owner/organizer.
pub(crate) async fn delete(
    Path((file_id, comment_id)): Path<(String, String)>,
    call: Call,
) -> Result<Response, ApiError> {
    call.run(|world, who, _| {
        let id = world.drive.resolve(&file_id, &who);
        let role = world.drive.open(&id, &who, true)?.1;
        let comment = live_comment(world, &id, &comment_id)?;
        if !comment.author.eq_ignore_ascii_case(&who.email) && role < Role::Organizer {
            return Err(not_the_author());
        }
        comment.deleted = true;
        comment.modified_time = now();
        record(world, &who, &id, CommentKind::Deleted);
        Ok(StatusCode::NO_CONTENT.into_response())
    })
}

/// `GET /drive/v3/files/{fileId}/comments/{commentId}/replies`.
pub(crate) async fn list_replies(
    Path((file_id, comment_id)): Path<(String, String)>,
    call: Call,
) -> Result<Response, ApiError> {
    on_file(&call, &file_id, Role::Reader, |world, who, params, id| {
        let include_deleted = params.flag("includeDeleted")?;
        let comment = find_comment(world, &id, &comment_id)?.clone();
        let all: Vec<&Reply> = comment.replies.iter().filter(|r| include_deleted || !r.deleted).collect();
        let page = params.page(20, all.len())?;
        let body = page.list("drive#replyList", "replies", &all, |r| reply_json(world, r, who));
        respond(params, "", "ReplyList", &body)
    })
}

/// `POST /drive/v3/files/{fileId}/comments/{commentId}/replies`.
pub(crate) async fn create_reply(
    Path((file_id, comment_id)): Path<(String, String)>,
    call: Call,
    body: Bytes,
) -> Result<Response, ApiError> {
    on_file(&call, &file_id, Role::Commenter, |world, who, params, id| {
        add_reply(world, who, params, &id, &comment_id, &body)
    })
}

fn add_reply(
    world: &mut World,
    who: &Identity,
    params: &Params,
    id: &str,
    comment_id: &str,
    body: &[u8],
) -> Result<Response, ApiError> {
    let body = json_body(body)?;
    let action = str_field(&body, "action")?.map(str::to_owned);
    if action.as_deref().is_some_and(|a| a != "resolve" && a != "reopen") {
        return Err(ApiError::drive_invalid("action", "Invalid Value"));
    }
    let content = str_field(&body, "content")?.unwrap_or_default().to_owned();
    if content.trim().is_empty() && action.is_none() {
        return Err(content_required());
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
    let comment = live_comment(world, id, comment_id)?;
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
    record(world, who, id, kind);
    respond(params, "", "Reply", &reply_json(world, &reply, who))
}
