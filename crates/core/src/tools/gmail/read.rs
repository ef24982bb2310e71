//! Reading mail: `list_messages`, `get_message`, `list_threads`, `get_thread`. Listings add each item's
//! sender, recipients, subject and date (one `metadata` read per item, a few at a time), so an assistant
//! can tell messages apart without opening each. Bodies are the plain-text part when there is one, else
//! the HTML part turned into text; attachments are listed (name, type, size, id), never inlined.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use futures::{StreamExt, TryStreamExt};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::mime::decode_words;
use super::{Target, mail_error};
use crate::google::gmail::{Format, ListRequest, MAX_PAGE_SIZE, Message, MessagePart};
use crate::tools::{ToolContext, ToolError};

/// The headers listings and messages show.
pub(super) const SUMMARY_HEADERS: [&str; 5] = ["From", "To", "Cc", "Subject", "Date"];
/// How many `metadata` reads a listing runs at once: Gmail allows a person 250 quota units a second and
/// each read costs 5, so a few at a time stays well under it (a 429 is retried by the client anyway).
const AT_ONCE: usize = 4;

fn fifty() -> u32 {
    50
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListArgs {
    /// Gmail search, as in Gmail's search box (e.g. "from:ann is:unread subject:budget").
    #[serde(default)]
    pub query: Option<String>,
    /// Only items with all these label ids (e.g. ["INBOX", "UNREAD"]; list_labels shows ids).
    #[serde(default)]
    pub label_ids: Option<Vec<String>>,
    /// Items per page (1-500).
    #[serde(default = "fifty")]
    pub max_results: u32,
    /// The next_page_token of the previous page.
    #[serde(default)]
    pub page_token: Option<String>,
    /// Also list items in Spam and Trash.
    #[serde(default)]
    pub include_spam_trash: bool,
}

impl ListArgs {
    fn request(&self) -> Result<ListRequest<'_>, ToolError> {
        if !(1..=MAX_PAGE_SIZE).contains(&self.max_results) {
            return Err(ToolError::invalid(format!(
                "max_results is {}; give 1 to {MAX_PAGE_SIZE}, and page on with next_page_token.",
                self.max_results
            )));
        }
        Ok(ListRequest {
            q: self.query.as_deref().map(str::trim).filter(|q| !q.is_empty()),
            label_ids: self.label_ids.as_deref().unwrap_or_default(),
            max_results: self.max_results,
            page_token: self.page_token.as_deref().filter(|t| !t.is_empty()),
            include_spam_trash: self.include_spam_trash,
        })
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GetMessageArgs {
    /// The message's id (from list_messages).
    pub message_id: String,
    /// Write the full result as JSON to this file in the export folder instead of returning it.
    #[serde(default)]
    #[allow(dead_code, reason = "the engine writes the result to local_path")]
    pub local_path: Option<String>,
    /// Include the body text (false: headers, snippet and attachments only).
    #[serde(default = "crate::tools::schema::default_true")]
    pub include_body: bool,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GetThreadArgs {
    /// The thread's id (from list_threads, or a message's thread_id).
    pub thread_id: String,
    /// Write the full result as JSON to this file in the export folder instead of returning it.
    #[serde(default)]
    #[allow(dead_code, reason = "the engine writes the result to local_path")]
    pub local_path: Option<String>,
    /// Include each message's body text (false: headers, snippets and attachments only).
    #[serde(default = "crate::tools::schema::default_true")]
    pub include_body: bool,
}

pub(super) async fn list_messages(ctx: ToolContext, args: ListArgs) -> Result<Value, ToolError> {
    let request = args.request()?;
    let gmail = ctx.google.gmail();
    let page = gmail.list_messages(&request).await.map_err(mail_error(Target::Mailbox))?;
    // The reads are made up front (a plain iterator), then run a few at a time.
    let reads: Vec<_> =
        page.messages.iter().map(|item| gmail.get_message(&item.id, Format::Metadata, &SUMMARY_HEADERS)).collect();
    let messages: Vec<Value> = futures::stream::iter(reads)
        .buffered(AT_ONCE)
        .map_ok(|message| message_json(&message, false))
        .try_collect()
        .await
        .map_err(mail_error(Target::Mailbox))?;
    Ok(page_json("messages", messages, page.next_page_token, page.result_size_estimate))
}

pub(super) async fn get_message(ctx: ToolContext, args: GetMessageArgs) -> Result<Value, ToolError> {
    let message = ctx
        .google
        .gmail()
        .get_message(&args.message_id, Format::Full, &[])
        .await
        .map_err(mail_error(Target::Message(&args.message_id)))?;
    Ok(message_json(&message, args.include_body))
}

pub(super) async fn list_threads(ctx: ToolContext, args: ListArgs) -> Result<Value, ToolError> {
    let request = args.request()?;
    let gmail = ctx.google.gmail();
    let page = gmail.list_threads(&request).await.map_err(mail_error(Target::Mailbox))?;
    let reads: Vec<_> =
        page.threads.iter().map(|item| gmail.get_thread(&item.id, Format::Metadata, &SUMMARY_HEADERS)).collect();
    let threads: Vec<Value> = futures::stream::iter(reads)
        .buffered(AT_ONCE)
        .map_ok(|thread| thread_summary(&thread.id, &thread.snippet, &thread.messages))
        .try_collect()
        .await
        .map_err(mail_error(Target::Mailbox))?;
    Ok(page_json("threads", threads, page.next_page_token, page.result_size_estimate))
}

pub(super) async fn get_thread(ctx: ToolContext, args: GetThreadArgs) -> Result<Value, ToolError> {
    let thread = ctx
        .google
        .gmail()
        .get_thread(&args.thread_id, Format::Full, &[])
        .await
        .map_err(mail_error(Target::Thread(&args.thread_id)))?;
    let subject = thread.messages.first().and_then(|m| header(m, "Subject")).unwrap_or_default();
    Ok(json!({
        "thread_id": thread.id,
        "subject": subject,
        "message_count": thread.messages.len(),
        "messages": thread.messages.iter().map(|m| message_json(m, args.include_body)).collect::<Vec<_>>(),
    }))
}

fn page_json(key: &str, items: Vec<Value>, next: Option<String>, estimate: u32) -> Value {
    let mut out = Map::new();
    out.insert(key.to_owned(), Value::Array(items));
    out.insert("result_size_estimate".into(), json!(estimate));
    if let Some(next) = next {
        out.insert("next_page_token".into(), json!(next));
    }
    Value::Object(out)
}

/// A header of the message's top part, encoded words decoded.
pub(super) fn header(message: &Message, name: &str) -> Option<String> {
    message.payload.as_ref()?.header(name).map(decode_words)
}

/// A thread in a listing: subject (of its first message), who wrote, how many messages, the last date.
fn thread_summary(id: &str, snippet: &str, messages: &[Message]) -> Value {
    let mut senders: Vec<String> = Vec::new();
    for sender in messages.iter().filter_map(|m| header(m, "From")) {
        if !senders.contains(&sender) {
            senders.push(sender);
        }
    }
    json!({
        "thread_id": id,
        "subject": messages.first().and_then(|m| header(m, "Subject")).unwrap_or_default(),
        "from": senders,
        "message_count": messages.len(),
        "last_date": messages.last().and_then(|m| header(m, "Date")),
        "unread": messages.iter().any(|m| m.label_ids.iter().any(|l| l == "UNREAD")),
        "snippet": snippet,
    })
}

/// A message as the tools answer it; absent headers are left out.
pub(super) fn message_json(message: &Message, include_body: bool) -> Value {
    let mut out = Map::new();
    out.insert("message_id".into(), json!(message.id));
    out.insert("thread_id".into(), json!(message.thread_id));
    for name in SUMMARY_HEADERS {
        if let Some(value) = header(message, name) {
            out.insert(name.to_lowercase(), json!(value));
        }
    }
    out.insert("label_ids".into(), json!(message.label_ids));
    out.insert("unread".into(), json!(message.label_ids.iter().any(|l| l == "UNREAD")));
    out.insert("snippet".into(), json!(message.snippet));
    if let Some(payload) = &message.payload {
        if include_body {
            let (body, format) = body_text(payload);
            out.insert("body".into(), json!(body));
            if let Some(format) = format {
                out.insert("body_format".into(), json!(format));
            }
        }
        let mut attachments = Vec::new();
        collect_attachments(payload, &mut attachments);
        if !attachments.is_empty() {
            out.insert("attachments".into(), Value::Array(attachments));
        }
    }
    Value::Object(out)
}

/// The body: the first plain-text part, else the first HTML part as text (`body_format` says so).
fn body_text(payload: &MessagePart) -> (String, Option<&'static str>) {
    if let Some(text) = find_leaf(payload, "text/plain") {
        return (text, None);
    }
    match find_leaf(payload, "text/html") {
        Some(html) => (html_to_text(&html), Some("html converted to text")),
        None => (String::new(), None),
    }
}

/// The decoded body of the first inline (not attached) leaf of `mime_type`, depth first.
fn find_leaf(part: &MessagePart, mime_type: &str) -> Option<String> {
    if part.parts.is_empty() {
        if !part.mime_type.eq_ignore_ascii_case(mime_type) || !part.filename.is_empty() {
            return None;
        }
        let data = part.body.data.as_deref()?;
        let bytes = URL_SAFE_NO_PAD.decode(data.trim_end_matches('=')).ok()?;
        return Some(String::from_utf8_lossy(&bytes).replace("\r\n", "\n"));
    }
    part.parts.iter().find_map(|child| find_leaf(child, mime_type))
}

fn collect_attachments(part: &MessagePart, out: &mut Vec<Value>) {
    if !part.filename.is_empty() {
        let mut item = json!({ "filename": part.filename, "mime_type": part.mime_type, "size": part.body.size });
        if let Some(id) = &part.body.attachment_id {
            item["attachment_id"] = json!(id);
        }
        out.push(item);
    }
    part.parts.iter().for_each(|child| collect_attachments(child, out));
}

/// HTML as readable text: scripts and styles dropped, block ends as line breaks, tags removed, the common
/// entities decoded, runs of blank lines squeezed.
pub(super) fn html_to_text(html: &str) -> String {
    let mut text = String::with_capacity(html.len());
    let lower = html.to_ascii_lowercase();
    let mut i = 0;
    while i < html.len() {
        let rest = &lower[i..];
        if rest.starts_with("<script") || rest.starts_with("<style") {
            let close = if rest.starts_with("<script") { "</script>" } else { "</style>" };
            i = rest.find(close).map_or(html.len(), |end| i + end + close.len());
            continue;
        }
        if rest.starts_with('<') {
            let end = rest.find('>').map_or(html.len(), |end| i + end + 1);
            let tag = lower[i..end].trim_start_matches(['<', '/']);
            let name: String = tag.chars().take_while(char::is_ascii_alphanumeric).collect();
            if matches!(
                name.as_str(),
                "br" | "p" | "div" | "tr" | "li" | "h1" | "h2" | "h3" | "h4" | "h5" | "h6" | "table"
            ) {
                text.push('\n');
            }
            i = end;
            continue;
        }
        let next = rest.find('<').map_or(html.len(), |n| i + n);
        text.push_str(&html[i..next]);
        i = next;
    }
    let decoded = text
        .replace("&nbsp;", " ")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&");
    let mut out = String::new();
    let mut blank = 0;
    for line in decoded.lines().map(str::trim) {
        if line.is_empty() {
            blank += 1;
            if blank > 1 || out.is_empty() {
                continue;
            }
        } else {
            blank = 0;
        }
        out.push_str(line);
        out.push('\n');
    }
    out.trim_end().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn html_becomes_readable_text() {
        let html = "<html><style>p{color:red}</style><p>Hello&nbsp;<b>Ann</b>,</p><p>See &lt;this&gt; &amp; that.<br>Bye</p></html>";
        assert_eq!(html_to_text(html), "Hello Ann,\n\nSee <this> & that.\nBye");
    }
}
