//! Gmail's JSON for messages, threads and labels, by `format`, with the discovery field names and types
//! (`historyId` a uint64 string, `internalDate` an int64 string, `sizeEstimate` an integer).

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE;
use serde_json::{Map, Value, json};

use super::mime::{self, Part};
use super::{Label, Message};

/// The `format` of `messages.get` and `threads.get`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Format {
    Minimal,
    Full,
    Raw,
    Metadata,
}

impl Format {
    pub fn parse(value: Option<&str>) -> Self {
        match value {
            Some("minimal") => Format::Minimal,
            Some("raw") => Format::Raw,
            Some("metadata") => Format::Metadata,
            _ => Format::Full,
        }
    }
}

/// The first line of the plain-text body, whitespace collapsed, cut as Gmail cuts snippets.
fn snippet(part: &Part) -> String {
    let text = part.plain_text().unwrap_or_default();
    let words: Vec<&str> = text.split_whitespace().collect();
    words.join(" ").chars().take(200).collect()
}

/// `{id, threadId}`, as listings name messages.
pub(super) fn reference(message: &Message) -> Value {
    json!({ "id": message.id, "threadId": message.thread_id })
}

/// `{id, threadId, labelIds}`, as `send`, `trash`, `modify` and drafts answer.
pub(super) fn labelled(message: &Message) -> Value {
    json!({ "id": message.id, "threadId": message.thread_id, "labelIds": message.label_ids })
}

/// A `Message` in `format`; `metadata_headers` limits the headers of the `metadata` format (all when
/// empty).
pub(super) fn message(message: &Message, format: Format, metadata_headers: &[&str]) -> Value {
    let part = mime::parse(&message.raw);
    let mut out = Map::new();
    out.insert("id".into(), json!(message.id));
    out.insert("threadId".into(), json!(message.thread_id));
    if !message.label_ids.is_empty() {
        out.insert("labelIds".into(), json!(message.label_ids));
    }
    out.insert("snippet".into(), json!(snippet(&part)));
    out.insert("sizeEstimate".into(), json!(message.raw.len()));
    out.insert("historyId".into(), json!(message.history_id.to_string()));
    out.insert("internalDate".into(), json!(message.internal_date.to_string()));
    match format {
        Format::Minimal => {}
        Format::Raw => {
            out.insert("raw".into(), json!(URL_SAFE.encode(&message.raw)));
        }
        Format::Metadata => {
            let headers: Vec<Value> = part
                .headers
                .iter()
                .filter(|(name, _)| {
                    metadata_headers.is_empty() || metadata_headers.iter().any(|h| h.eq_ignore_ascii_case(name))
                })
                .map(|(name, value)| json!({ "name": name, "value": value }))
                .collect();
            out.insert("payload".into(), json!({ "mimeType": part.mime_type, "headers": headers }));
        }
        Format::Full => {
            let mut counter = 0;
            out.insert("payload".into(), payload(&part, String::new(), &message.id, &mut counter));
        }
    }
    Value::Object(out)
}

/// A `MessagePart`: leaf bodies inline (base64url), attachments by id and size only.
fn payload(part: &Part, part_id: String, message_id: &str, counter: &mut usize) -> Value {
    let headers: Vec<Value> =
        part.headers.iter().map(|(name, value)| json!({ "name": name, "value": value })).collect();
    let body = if !part.parts.is_empty() {
        json!({ "size": 0 })
    } else if !part.filename.is_empty() {
        *counter += 1;
        json!({ "attachmentId": format!("ANGjdJ{message_id}{counter:04}"), "size": part.body.len() })
    } else {
        json!({ "size": part.body.len(), "data": URL_SAFE.encode(&part.body) })
    };
    let mut out = json!({
        "partId": part_id,
        "mimeType": part.mime_type,
        "filename": part.filename,
        "headers": headers,
        "body": body,
    });
    if !part.parts.is_empty() {
        let children: Vec<Value> = part
            .parts
            .iter()
            .enumerate()
            .map(|(i, child)| {
                let id = if part_id.is_empty() { i.to_string() } else { format!("{part_id}.{i}") };
                payload(child, id, message_id, counter)
            })
            .collect();
        out["parts"] = Value::Array(children);
    }
    out
}

/// A `Label`, as `labels.list` shows it.
pub(super) fn label(label: &Label) -> Value {
    if label.system {
        json!({ "id": label.id, "name": label.name, "type": "system" })
    } else {
        json!({
            "id": label.id,
            "name": label.name,
            "type": "user",
            "messageListVisibility": "show",
            "labelListVisibility": "labelShow",
        })
    }
}

/// A thread as `threads.list` names it: its id, the newest message's snippet and history id.
pub(super) fn thread_reference(messages: &[&Message]) -> Value {
    let last = messages.last();
    json!({
        "id": last.map(|m| m.thread_id.clone()).unwrap_or_default(),
        "snippet": last.map(|m| snippet(&mime::parse(&m.raw))).unwrap_or_default(),
        "historyId": last.map(|m| m.history_id).unwrap_or_default().to_string(),
    })
}

/// A `Thread` with its messages in `format`, oldest first.
pub(super) fn thread(messages: &[&Message], format: Format, metadata_headers: &[&str]) -> Value {
    let mut out = thread_reference(messages);
    if let Some(map) = out.as_object_mut() {
        map.remove("snippet");
    }
    out["messages"] = Value::Array(messages.iter().map(|m| message(m, format, metadata_headers)).collect());
    out
}
