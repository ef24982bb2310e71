//! The Gmail v1 HTTP surface: routing under `/gmail/v1/users/{userId}/`, query and body checks against the
//! discovery document, and the methods listed in the module docs of [`super`].

use axum::body::Bytes;
use axum::http::{Method, Uri};
use base64::Engine as _;
use base64::engine::general_purpose::{URL_SAFE, URL_SAFE_NO_PAD};
use serde_json::{Value, json};

use super::render::{self, Format};
use super::search::Query as Search;
use super::{Mailbox, UNREAD, mime};
use crate::call::Reply;
use crate::discovery;
use crate::errors::ApiError;
use crate::rpc::{Call, decode, respond};
use crate::sheets::schema::{Query, parse_body};
use crate::state::{Identity, World};

/// Gmail's default and largest page sizes for `messages.list` and `threads.list`.
const DEFAULT_PAGE: usize = 100;
const MAX_PAGE: usize = 500;

fn not_found() -> ApiError {
    ApiError::legacy(404, "notFound", "Requested entity was not found.")
}

fn invalid(message: impl Into<String>) -> ApiError {
    ApiError::legacy(400, "invalidArgument", message)
}

/// What Gmail answers an identity without a mailbox (a service account without domain-wide delegation).
fn no_mailbox() -> ApiError {
    ApiError {
        status: "FAILED_PRECONDITION",
        ..ApiError::legacy(400, "failedPrecondition", "Precondition check failed.")
    }
}

/// Every request under `/gmail/v1/users/{userId}/`.
pub(super) async fn dispatch(method: Method, uri: Uri, call: Call, body: Bytes) -> Reply {
    call.run(|world, who, query| route(world, &who, &method, uri.path(), query, &body))
}

fn route(world: &mut World, who: &Identity, method: &Method, path: &str, query: &Query, body: &[u8]) -> Reply {
    let rest = path.strip_prefix("/gmail/v1/users/").unwrap_or_default();
    let segments: Vec<String> = rest.split('/').map(decode).collect::<Result<_, _>>()?;
    let Some((user, resource)) = segments.split_first() else { return Err(not_found()) };
    let resource: Vec<&str> = resource.iter().map(String::as_str).collect();
    let id = match (method.as_str(), resource.as_slice()) {
        ("GET", ["messages"]) => "gmail.users.messages.list",
        ("GET", ["messages", _]) => "gmail.users.messages.get",
        ("POST", ["messages", "send"]) => "gmail.users.messages.send",
        ("POST", ["messages", _, "trash"]) => "gmail.users.messages.trash",
        ("POST", ["messages", _, "modify"]) => "gmail.users.messages.modify",
        ("GET", ["threads"]) => "gmail.users.threads.list",
        ("GET", ["threads", _]) => "gmail.users.threads.get",
        ("POST", ["threads", _, "modify"]) => "gmail.users.threads.modify",
        ("GET", ["labels"]) => "gmail.users.labels.list",
        ("POST", ["drafts"]) => "gmail.users.drafts.create",
        ("POST", ["drafts", "send"]) => "gmail.users.drafts.send",
        ("GET", ["drafts", _]) => "gmail.users.drafts.get",
        _ => {
            let known = discovery::model().ok().and_then(|model| model.find(method.as_str(), path).ok());
            return Err(match known {
                Some(found) => ApiError::legacy(
                    501,
                    "notImplemented",
                    format!("The Google emulator does not implement {}.", found.method.id),
                ),
                None => {
                    ApiError::legacy(404, "notFound", format!("The requested URL {path} was not found on this server."))
                }
            });
        }
    };
    check_query(id, query)?;
    if who.is_service_account() {
        return Err(no_mailbox());
    }
    if user != "me" && !user.eq_ignore_ascii_case(&who.email) {
        return Err(ApiError::legacy(403, "forbidden", format!("Delegation denied for {}", who.email)));
    }
    let mailbox = world.gmail.mailbox(&who.email);
    let value = match (id, resource.as_slice()) {
        ("gmail.users.messages.list", _) => list_messages(mailbox, query)?,
        ("gmail.users.messages.get", [_, message]) => {
            let message = mailbox.message(message).ok_or_else(not_found)?;
            let headers = query.all("metadataHeaders");
            render::message(message, Format::parse(query.get("format")), &headers)
        }
        ("gmail.users.messages.send", _) => {
            let body = checked_body("Message", body)?;
            send(mailbox, who, &body)?
        }
        ("gmail.users.messages.trash", [_, message, _]) => {
            let message = mailbox.message(message).ok_or_else(not_found)?.id.clone();
            mailbox.relabel(&message, &["TRASH".into()], &["INBOX".into()]);
            render::labelled(mailbox.message(&message).ok_or_else(not_found)?)
        }
        ("gmail.users.messages.modify", [_, message, _]) => {
            let body = checked_body("ModifyMessageRequest", body)?;
            let message = mailbox.message(message).ok_or_else(not_found)?.id.clone();
            let (add, remove) = label_changes(mailbox, &body)?;
            mailbox.relabel(&message, &add, &remove);
            render::labelled(mailbox.message(&message).ok_or_else(not_found)?)
        }
        ("gmail.users.threads.list", _) => list_threads(mailbox, query)?,
        ("gmail.users.threads.get", [_, thread]) => {
            let messages = thread_messages(mailbox, thread)?;
            let headers = query.all("metadataHeaders");
            render::thread(&messages, Format::parse(query.get("format")), &headers)
        }
        ("gmail.users.threads.modify", [_, thread, _]) => {
            let body = checked_body("ModifyThreadRequest", body)?;
            let ids: Vec<String> = thread_messages(mailbox, thread)?.iter().map(|m| m.id.clone()).collect();
            let (add, remove) = label_changes(mailbox, &body)?;
            for id in &ids {
                mailbox.relabel(id, &add, &remove);
            }
            let messages = thread_messages(mailbox, thread)?;
            let mut out = render::thread_reference(&messages);
            out["messages"] = Value::Array(messages.iter().map(|m| render::labelled(m)).collect());
            if let Some(map) = out.as_object_mut() {
                map.remove("snippet");
            }
            out
        }
        ("gmail.users.labels.list", _) => {
            json!({ "labels": mailbox.labels.iter().map(render::label).collect::<Vec<_>>() })
        }
        ("gmail.users.drafts.create", _) => {
            let body = checked_body("Draft", body)?;
            let message = body.get("message").cloned().unwrap_or(Value::Null);
            let (raw, thread) = raw_message(mailbox, who, &message)?;
            let when = chrono::Utc::now().timestamp_millis();
            let message_id = mailbox.add(raw, thread.as_deref(), &["DRAFT"], when);
            let draft_id = format!("r{}", rand::random::<u64>() >> 2);
            mailbox.drafts.push((draft_id.clone(), message_id.clone()));
            json!({ "id": draft_id, "message": render::labelled(mailbox.message(&message_id).ok_or_else(not_found)?) })
        }
        ("gmail.users.drafts.get", [_, draft]) => {
            let (draft_id, message_id) = mailbox.drafts.iter().find(|(id, _)| id == draft).ok_or_else(not_found)?;
            let message = mailbox.message(message_id).ok_or_else(not_found)?;
            json!({ "id": draft_id, "message": render::message(message, Format::parse(query.get("format")), &[]) })
        }
        ("gmail.users.drafts.send", _) => {
            let body = checked_body("Draft", body)?;
            let draft_id = body.get("id").and_then(Value::as_str).unwrap_or_default();
            if draft_id.is_empty() {
                return Err(invalid("Invalid draft"));
            }
            let position = mailbox.drafts.iter().position(|(id, _)| id == draft_id).ok_or_else(not_found)?;
            let (_, message_id) = mailbox.drafts.remove(position);
            let recipients_self = mailbox.message(&message_id).is_some_and(|m| addressed_to(&mime::parse(&m.raw), who));
            let mut add = vec!["SENT".to_owned()];
            if recipients_self {
                add.extend(["INBOX".to_owned(), UNREAD.to_owned()]);
            }
            mailbox.relabel(&message_id, &add, &["DRAFT".into()]);
            render::labelled(mailbox.message(&message_id).ok_or_else(not_found)?)
        }
        _ => return Err(not_found()),
    };
    respond(value, query)
}

/// Checks every query parameter against the method's and the API's parameters (name, type, enum).
fn check_query(method_id: &str, query: &Query) -> Result<(), ApiError> {
    let Ok(model) = discovery::model() else { return Ok(()) };
    let (Some(method), Some(api)) = (model.method(method_id), model.api("gmail")) else { return Ok(()) };
    for (name, value) in &query.0 {
        let spec = method
            .parameters
            .get(name)
            .filter(|p| p.location.as_deref() == Some("query"))
            .or_else(|| api.parameters.get(name));
        let Some(spec) = spec else {
            return Err(invalid(format!(
                "Invalid JSON payload received. Unknown name \"{name}\": Cannot bind query parameter. Field '{name}' could not be found in request message."
            )));
        };
        let bad = || invalid(format!("Invalid value at '{name}', \"{value}\""));
        match spec.kind.as_deref() {
            Some("boolean") if value != "true" && value != "false" => return Err(bad()),
            Some("integer") if value.parse::<i64>().is_err() => return Err(bad()),
            _ => {}
        }
        if !spec.enum_values.is_empty() && !spec.enum_values.iter().any(|allowed| allowed == value) {
            return Err(bad());
        }
    }
    Ok(())
}

/// Parses a JSON body and refuses members its discovery schema doesn't define, as Google's binder does.
fn checked_body(schema: &str, body: &[u8]) -> Result<Value, ApiError> {
    let body = parse_body(body)?;
    if let Some(api) = discovery::model().ok().and_then(|model| model.api("gmail")) {
        check_members(api, schema, &body, "")?;
    }
    Ok(body)
}

fn check_members(api: &discovery::Api, schema: &str, value: &Value, path: &str) -> Result<(), ApiError> {
    let (Some(schema), Some(fields)) = (api.schema(schema), value.as_object()) else { return Ok(()) };
    for (key, item) in fields {
        let Some(property) = schema.properties.get(key) else {
            let at = if path.is_empty() { String::new() } else { format!(" at '{path}'") };
            return Err(invalid(format!(
                "Invalid JSON payload received. Unknown name \"{key}\"{at}: Cannot find field."
            )));
        };
        if let Some(reference) = &property.reference {
            let nested = if path.is_empty() { key.clone() } else { format!("{path}.{key}") };
            check_members(api, reference, item, &nested)?;
        }
    }
    Ok(())
}

/// The page `pageToken` and `maxResults` select from `items`, and the next page's token.
fn page<T>(items: Vec<T>, query: &Query) -> Result<(Vec<T>, Option<String>), ApiError> {
    let start = match query.get("pageToken") {
        Some(token) => token.parse::<usize>().map_err(|_| invalid("Invalid pageToken"))?,
        None => 0,
    };
    let size = query.get("maxResults").and_then(|v| v.parse::<usize>().ok()).unwrap_or(DEFAULT_PAGE).clamp(1, MAX_PAGE);
    let total = items.len();
    let end = (start + size).min(total);
    let next = (end < total).then(|| end.to_string());
    Ok((items.into_iter().skip(start).take(size).collect(), next))
}

/// The messages a listing selects (`labelIds`, `q`, `includeSpamTrash`), newest first.
fn selected<'a>(mailbox: &'a Mailbox, query: &Query) -> Vec<&'a super::Message> {
    let search = Search::parse(query.get("q").unwrap_or_default());
    let with_spam_trash = query.flag("includeSpamTrash") || search.includes_spam_trash();
    let labels = query.all("labelIds");
    mailbox
        .messages
        .iter()
        .rev()
        .filter(|m| with_spam_trash || !(m.has_label("TRASH") || m.has_label("SPAM")))
        .filter(|m| labels.iter().all(|label| m.has_label(label)))
        .filter(|m| search.matches(m, &mime::parse(&m.raw), &mailbox.labels))
        .collect()
}

fn list_messages(mailbox: &Mailbox, query: &Query) -> Result<Value, ApiError> {
    let all = selected(mailbox, query);
    let total = all.len();
    let (items, next) = page(all, query)?;
    let mut out = json!({ "resultSizeEstimate": total });
    if !items.is_empty() {
        out["messages"] = Value::Array(items.into_iter().map(render::reference).collect());
    }
    if let Some(next) = next {
        out["nextPageToken"] = json!(next);
    }
    Ok(out)
}

fn list_threads(mailbox: &Mailbox, query: &Query) -> Result<Value, ApiError> {
    let mut threads: Vec<&str> = Vec::new();
    for message in selected(mailbox, query) {
        if !threads.contains(&message.thread_id.as_str()) {
            threads.push(&message.thread_id);
        }
    }
    let total = threads.len();
    let (items, next) = page(threads, query)?;
    let mut out = json!({ "resultSizeEstimate": total });
    if !items.is_empty() {
        let rendered: Vec<Value> = items
            .into_iter()
            .map(|id| {
                render::thread_reference(&mailbox.messages.iter().filter(|m| m.thread_id == id).collect::<Vec<_>>())
            })
            .collect();
        out["threads"] = Value::Array(rendered);
    }
    if let Some(next) = next {
        out["nextPageToken"] = json!(next);
    }
    Ok(out)
}

fn thread_messages<'a>(mailbox: &'a Mailbox, thread: &str) -> Result<Vec<&'a super::Message>, ApiError> {
    let messages: Vec<&super::Message> = mailbox.messages.iter().filter(|m| m.thread_id == thread).collect();
    if messages.is_empty() { Err(not_found()) } else { Ok(messages) }
}

/// `addLabelIds` and `removeLabelIds`, every id checked against the mailbox's labels.
fn label_changes(mailbox: &Mailbox, body: &Value) -> Result<(Vec<String>, Vec<String>), ApiError> {
    let ids = |key: &str| -> Result<Vec<String>, ApiError> {
        let ids: Vec<String> = body
            .get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect();
        match ids.iter().find(|id| !mailbox.label_exists(id)) {
            Some(unknown) => Err(invalid(format!("Invalid label: {unknown}"))),
            None => Ok(ids),
        }
    };
    Ok((ids("addLabelIds")?, ids("removeLabelIds")?))
}

/// The bytes of `message.raw` (base64url, padded or not) and the thread it joins, with a `Message-ID` added
/// when the client gave none, as Gmail does.
fn raw_message(mailbox: &Mailbox, who: &Identity, message: &Value) -> Result<(Vec<u8>, Option<String>), ApiError> {
    let raw = message.get("raw").and_then(Value::as_str).unwrap_or_default();
    if raw.is_empty() {
        return Err(invalid("'raw' RFC822 payload message string or uploading message via /upload/* URL required"));
    }
    let mut bytes = URL_SAFE
        .decode(raw)
        .or_else(|_| URL_SAFE_NO_PAD.decode(raw))
        .map_err(|_| invalid("Invalid value for ByteString: raw"))?;
    let part = mime::parse(&bytes);
    if part.header("message-id").is_none() {
        let header = format!("Message-ID: <{:016x}@mail.gmail.com>\r\n", rand::random::<u64>());
        bytes.splice(0..0, header.into_bytes());
    }
    if part.header("from").is_none() {
        let header = format!("From: {}\r\n", who.email);
        bytes.splice(0..0, header.into_bytes());
    }
    let thread = message.get("threadId").and_then(Value::as_str).filter(|t| !t.is_empty());
    if let Some(thread) = thread
        && !mailbox.messages.iter().any(|m| m.thread_id == thread)
    {
        return Err(not_found());
    }
    Ok((bytes, thread.map(str::to_owned)))
}

/// Whether `who` is among the message's recipients.
fn addressed_to(part: &mime::Part, who: &Identity) -> bool {
    ["to", "cc", "bcc"]
        .iter()
        .filter_map(|name| part.header(name))
        .any(|value| value.to_lowercase().contains(&who.email.to_lowercase()))
}

/// `messages.send`: the message lands in SENT (and in the inbox too when sent to oneself).
fn send(mailbox: &mut Mailbox, who: &Identity, body: &Value) -> Result<Value, ApiError> {
    let (raw, thread) = raw_message(mailbox, who, body)?;
    let part = mime::parse(&raw);
    if !["to", "cc", "bcc"].iter().any(|name| part.header(name).is_some_and(|v| v.contains('@'))) {
        return Err(invalid("Invalid To header"));
    }
    let mut labels = vec!["SENT"];
    if addressed_to(&part, who) {
        labels.extend(["INBOX", UNREAD]);
    }
    let when = chrono::Utc::now().timestamp_millis();
    let id = mailbox.add(raw, thread.as_deref(), &labels, when);
    Ok(render::labelled(mailbox.message(&id).ok_or_else(not_found)?))
}
