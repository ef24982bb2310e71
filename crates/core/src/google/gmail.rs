//! Gmail v1 calls (`users.messages`, `users.threads`, `users.labels`, `users.drafts`), shaped as
//! `gmail.v1.json` defines them, always for the signed-in person (`userId` `me`).
//!
//! Messages go out as `raw`: the whole RFC 2822 message, base64url encoded (built by the Gmail tools).
//! Gmail answers an identity without a mailbox (a service account) `400 failedPrecondition`; see
//! [`is_no_mailbox`].

use serde::{Deserialize, Serialize};

use super::client::{Call, GoogleClient, segment};
use super::endpoint::Api;
use super::error::GoogleError;

const USER: &str = "gmail/v1/users/me";

/// `MessagePartHeader`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Header {
    pub name: String,
    pub value: String,
}

/// `MessagePartBody`: inline `data` (base64url) for text parts, an `attachmentId` for attachments.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct PartBody {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attachment_id: Option<String>,
    pub size: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data: Option<String>,
}

/// `MessagePart`: one node of a message's MIME tree.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct MessagePart {
    pub part_id: String,
    pub mime_type: String,
    pub filename: String,
    pub headers: Vec<Header>,
    pub body: PartBody,
    pub parts: Vec<MessagePart>,
}

impl MessagePart {
    /// The first header named `name` (header names ignore case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|h| h.name.eq_ignore_ascii_case(name)).map(|h| h.value.as_str())
    }
}

/// `Message`. `historyId` (uint64) and `internalDate` (int64, ms since the epoch) arrive as strings.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Message {
    pub id: String,
    pub thread_id: String,
    pub label_ids: Vec<String>,
    pub snippet: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub internal_date: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub payload: Option<MessagePart>,
}

/// `{id, threadId}`, as listings name messages.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct MessageRef {
    pub id: String,
    pub thread_id: String,
}

/// `ListMessagesResponse`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct MessageList {
    pub messages: Vec<MessageRef>,
    pub next_page_token: Option<String>,
    pub result_size_estimate: u32,
}

/// `Thread`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Thread {
    pub id: String,
    pub snippet: String,
    pub messages: Vec<Message>,
}

/// `ListThreadsResponse`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ThreadList {
    pub threads: Vec<Thread>,
    pub next_page_token: Option<String>,
    pub result_size_estimate: u32,
}

/// `Label`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Label {
    pub id: String,
    pub name: String,
    /// `system` or `user`.
    #[serde(rename = "type")]
    pub kind: String,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
struct LabelList {
    labels: Vec<Label>,
}

/// `Draft`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Draft {
    pub id: String,
    pub message: Message,
}

/// The `format` of `messages.get` / `threads.get`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Every part, text bodies inline.
    Full,
    /// Only the headers (those named, or all).
    Metadata,
}

impl Format {
    const fn as_str(self) -> &'static str {
        match self {
            Format::Full => "full",
            Format::Metadata => "metadata",
        }
    }
}

/// One page of `messages.list` or `threads.list`.
#[derive(Debug, Clone, Copy)]
pub struct ListRequest<'a> {
    /// Gmail search syntax, as in Gmail's search box.
    pub q: Option<&'a str>,
    /// Only items carrying every one of these label ids.
    pub label_ids: &'a [String],
    pub max_results: u32,
    pub page_token: Option<&'a str>,
    pub include_spam_trash: bool,
}

impl ListRequest<'_> {
    fn apply(&self, mut call: Call) -> Call {
        call = call
            .query_opt("q", self.q)
            .query("maxResults", self.max_results)
            .query_opt("pageToken", self.page_token)
            .query("includeSpamTrash", self.include_spam_trash);
        for label in self.label_ids {
            call = call.query("labelIds", label);
        }
        call
    }
}

/// Gmail's largest page for `messages.list` and `threads.list`.
pub const MAX_PAGE_SIZE: u32 = 500;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Outgoing<'a> {
    raw: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    thread_id: Option<&'a str>,
}

#[derive(Serialize)]
struct NewDraft<'a> {
    message: Outgoing<'a>,
}

#[derive(Serialize)]
struct DraftId<'a> {
    id: &'a str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Relabel<'a> {
    add_label_ids: &'a [String],
    remove_label_ids: &'a [String],
}

/// Whether Gmail refused because the identity has no mailbox: a service account without domain-wide
/// delegation gets `400 failedPrecondition` ("Precondition check failed.") on every call.
pub fn is_no_mailbox(error: &GoogleError) -> bool {
    matches!(error, GoogleError::Api(api) if api.api == Api::Gmail
        && (api.reason.as_deref() == Some("failedPrecondition") || api.status.as_deref() == Some("FAILED_PRECONDITION")))
}

/// The Gmail API, borrowed from a client.
pub struct Gmail<'a>(&'a GoogleClient);

impl GoogleClient {
    pub fn gmail(&self) -> Gmail<'_> {
        Gmail(self)
    }
}

impl Gmail<'_> {
    /// `messages.list`: one page of message ids, newest first.
    pub async fn list_messages(&self, request: &ListRequest<'_>) -> Result<MessageList, GoogleError> {
        self.0.json(request.apply(Call::get(Api::Gmail, format!("{USER}/messages")))).await
    }

    /// `messages.get` in `format`; `headers` limits a `Metadata` answer to those headers.
    pub async fn get_message(&self, id: &str, format: Format, headers: &[&str]) -> Result<Message, GoogleError> {
        let mut call =
            Call::get(Api::Gmail, format!("{USER}/messages/{}", segment(id))).query("format", format.as_str());
        for header in headers.iter().filter(|_| format == Format::Metadata) {
            call = call.query("metadataHeaders", header);
        }
        self.0.json(call).await
    }

    /// `threads.list`: one page of threads (id and snippet), newest first.
    pub async fn list_threads(&self, request: &ListRequest<'_>) -> Result<ThreadList, GoogleError> {
        self.0.json(request.apply(Call::get(Api::Gmail, format!("{USER}/threads")))).await
    }

    /// `threads.get`: the thread's messages, oldest first, in `format`.
    pub async fn get_thread(&self, id: &str, format: Format, headers: &[&str]) -> Result<Thread, GoogleError> {
        let mut call =
            Call::get(Api::Gmail, format!("{USER}/threads/{}", segment(id))).query("format", format.as_str());
        for header in headers.iter().filter(|_| format == Format::Metadata) {
            call = call.query("metadataHeaders", header);
        }
        self.0.json(call).await
    }

    /// `labels.list`: the system and the person's own labels.
    pub async fn labels(&self) -> Result<Vec<Label>, GoogleError> {
        let list: LabelList = self.0.json(Call::get(Api::Gmail, format!("{USER}/labels"))).await?;
        Ok(list.labels)
    }

    /// `messages.modify`: adds and removes labels on one message.
    pub async fn modify_message(&self, id: &str, add: &[String], remove: &[String]) -> Result<Message, GoogleError> {
        let call = Call::post(Api::Gmail, format!("{USER}/messages/{}/modify", segment(id)))
            .json(&Relabel { add_label_ids: add, remove_label_ids: remove });
        self.0.json(call).await
    }

    /// `threads.modify`: adds and removes labels on every message of a thread.
    pub async fn modify_thread(&self, id: &str, add: &[String], remove: &[String]) -> Result<Thread, GoogleError> {
        let call = Call::post(Api::Gmail, format!("{USER}/threads/{}/modify", segment(id)))
            .json(&Relabel { add_label_ids: add, remove_label_ids: remove });
        self.0.json(call).await
    }

    /// `messages.trash`: moves a message to the trash (Gmail deletes it for good after 30 days).
    pub async fn trash_message(&self, id: &str) -> Result<Message, GoogleError> {
        self.0.json(Call::post(Api::Gmail, format!("{USER}/messages/{}/trash", segment(id)))).await
    }

    /// `messages.send`: sends `raw` (an RFC 2822 message, base64url), in `thread_id` when it replies.
    pub async fn send(&self, raw: &str, thread_id: Option<&str>) -> Result<Message, GoogleError> {
        let call = Call::post(Api::Gmail, format!("{USER}/messages/send")).json(&Outgoing { raw, thread_id });
        self.0.json(call).await
    }

    /// `drafts.create`: saves `raw` as a draft.
    pub async fn create_draft(&self, raw: &str, thread_id: Option<&str>) -> Result<Draft, GoogleError> {
        let call =
            Call::post(Api::Gmail, format!("{USER}/drafts")).json(&NewDraft { message: Outgoing { raw, thread_id } });
        self.0.json(call).await
    }

    /// `drafts.get` in the `metadata` format: the draft's headers (whom it goes to, its subject).
    pub async fn get_draft_headers(&self, draft_id: &str) -> Result<Draft, GoogleError> {
        let call = Call::get(Api::Gmail, format!("{USER}/drafts/{}", segment(draft_id))).query("format", "metadata");
        self.0.json(call).await
    }

    /// `drafts.send`: sends a saved draft as it is; the draft is gone afterwards.
    pub async fn send_draft(&self, draft_id: &str) -> Result<Message, GoogleError> {
        let call = Call::post(Api::Gmail, format!("{USER}/drafts/send")).json(&DraftId { id: draft_id });
        self.0.json(call).await
    }
}
