//! Gmail API v1 (`https://gmail.googleapis.com/gmail/v1/users/{userId}/…`), emulated statefully.
//!
//! Implemented: `users.messages` `list` (with `q`, `labelIds`, `includeSpamTrash`, `maxResults`,
//! `pageToken`), `get` (`format` `full`, `metadata` with `metadataHeaders`, `minimal`, `raw`), `send`,
//! `trash` and `modify`; `users.threads` `list`, `get` and `modify`; `users.labels.list`; `users.drafts`
//! `create`, `get` and `send`. Other Gmail methods answer 501.
//!
//! Each person has a mailbox (created on first use, with Gmail's system labels). Messages keep the RFC 2822
//! bytes a client sent (`raw`, base64url) and are read back as Gmail shows them: `payload` parts with their
//! headers (encoded words decoded), bodies base64url, attachments by `attachmentId` and size only. A message
//! joins a thread only when `threadId` names it, as Gmail requires for sent mail; without one it starts its
//! own. The search `q` supports the subset in [`search`].
//!
//! A service account has no mailbox: every call answers Gmail's `400 failedPrecondition` ("Precondition
//! check failed."), as Google does without domain-wide delegation. `userId` must be `me` or the caller's
//! own address (Gmail's `403` "Delegation denied" otherwise).
//!
//! Known leniencies: errors come in the legacy shape (`errors[]` with `reason`) without the `status`
//! member Gmail adds; `snippet` is not HTML-escaped; sent mail is not delivered to other mailboxes.

mod http;
pub(crate) mod mime;
mod render;
pub(crate) mod sample;
pub mod search;

use std::collections::HashMap;

use axum::Router;
use axum::routing::any;

use crate::Shared;
use crate::state::World;

/// Gmail's system labels, as `labels.list` shows them (id = name).
pub const SYSTEM_LABELS: [&str; 13] = [
    "CHAT",
    "SENT",
    "INBOX",
    "IMPORTANT",
    "TRASH",
    "DRAFT",
    "SPAM",
    "CATEGORY_FORUMS",
    "CATEGORY_UPDATES",
    "CATEGORY_PERSONAL",
    "CATEGORY_PROMOTIONS",
    "CATEGORY_SOCIAL",
    "STARRED",
];
/// `UNREAD` is a system label too, listed last by Gmail.
pub const UNREAD: &str = "UNREAD";

/// One message in a mailbox.
#[derive(Debug, Clone)]
pub(crate) struct Message {
    pub id: String,
    pub thread_id: String,
    pub label_ids: Vec<String>,
    /// The RFC 2822 bytes, as sent.
    pub raw: Vec<u8>,
    /// Milliseconds since the epoch.
    pub internal_date: i64,
    pub history_id: u64,
}

impl Message {
    pub fn has_label(&self, id: &str) -> bool {
        self.label_ids.iter().any(|label| label == id)
    }
}

/// A label of a mailbox.
#[derive(Debug, Clone)]
pub(crate) struct Label {
    pub id: String,
    pub name: String,
    pub system: bool,
}

/// One person's mail.
#[derive(Debug, Clone)]
pub(crate) struct Mailbox {
    /// Oldest first.
    pub messages: Vec<Message>,
    pub labels: Vec<Label>,
    /// Draft id → message id.
    pub drafts: Vec<(String, String)>,
    pub history: u64,
}

impl Default for Mailbox {
    fn default() -> Self {
        let labels = SYSTEM_LABELS
            .iter()
            .chain(&[UNREAD])
            .map(|id| Label { id: (*id).to_owned(), name: (*id).to_owned(), system: true })
            .collect();
        Self { messages: Vec::new(), labels, drafts: Vec::new(), history: 1000 }
    }
}

impl Mailbox {
    fn next_history(&mut self) -> u64 {
        self.history += 1;
        self.history
    }

    pub fn message(&self, id: &str) -> Option<&Message> {
        self.messages.iter().find(|m| m.id == id)
    }

    pub fn label_exists(&self, id: &str) -> bool {
        self.labels.iter().any(|label| label.id == id)
    }

    /// Adds a message; a new thread unless `thread_id` names one. Returns its id.
    pub fn add(&mut self, raw: Vec<u8>, thread_id: Option<&str>, labels: &[&str], internal_date: i64) -> String {
        let id = new_message_id();
        let history_id = self.next_history();
        let thread_id = thread_id.map_or_else(|| id.clone(), str::to_owned);
        let label_ids = labels.iter().map(|l| (*l).to_owned()).collect();
        self.messages.push(Message { id: id.clone(), thread_id, label_ids, raw, internal_date, history_id });
        self.messages.sort_by_key(|m| m.internal_date);
        id
    }

    /// Adds and removes labels on one message (unknown ids already refused).
    pub fn relabel(&mut self, id: &str, add: &[String], remove: &[String]) {
        let history = self.next_history();
        if let Some(message) = self.messages.iter_mut().find(|m| m.id == id) {
            message.label_ids.retain(|label| !remove.contains(label));
            for label in add {
                if !message.label_ids.contains(label) {
                    message.label_ids.push(label.clone());
                }
            }
            message.history_id = history;
        }
    }
}

/// A fresh Gmail-looking message id (16 lowercase hex digits).
fn new_message_id() -> String {
    format!("{:016x}", (rand::random::<u64>() >> 4) | (1 << 60))
}

/// Every mailbox, by lowercased address.
#[derive(Debug, Default)]
pub struct Store {
    boxes: HashMap<String, Mailbox>,
}

impl Store {
    pub(crate) fn mailbox(&mut self, email: &str) -> &mut Mailbox {
        self.boxes.entry(email.to_lowercase()).or_default()
    }

    pub(crate) fn get(&self, email: &str) -> Option<&Mailbox> {
        self.boxes.get(&email.to_lowercase())
    }
}

/// A message as tests see it in the emulator's state.
#[derive(Debug, Clone)]
pub struct MailView {
    pub id: String,
    pub thread_id: String,
    pub label_ids: Vec<String>,
    /// Top-level headers, encoded words decoded.
    pub headers: Vec<(String, String)>,
    /// The first plain-text body part, if any.
    pub text: Option<String>,
    /// The names of attached files.
    pub attachments: Vec<String>,
    /// The raw RFC 2822 text, as sent.
    pub raw: String,
}

impl MailView {
    /// The first header named `name` (any case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    fn of(message: &Message) -> Self {
        let part = mime::parse(&message.raw);
        let mut attachments = Vec::new();
        collect_attachments(&part, &mut attachments);
        Self {
            id: message.id.clone(),
            thread_id: message.thread_id.clone(),
            label_ids: message.label_ids.clone(),
            text: part.plain_text(),
            headers: part.headers,
            attachments,
            raw: String::from_utf8_lossy(&message.raw).into_owned(),
        }
    }
}

fn collect_attachments(part: &mime::Part, out: &mut Vec<String>) {
    if !part.filename.is_empty() {
        out.push(part.filename.clone());
    }
    part.parts.iter().for_each(|child| collect_attachments(child, out));
}

impl World {
    /// Puts a message into `owner`'s mailbox with `labels` (e.g. `INBOX`, `UNREAD`), as if delivered,
    /// `days_ago` days back; `thread_id` joins an existing thread. Returns (message id, thread id).
    pub fn deliver_mail(
        &mut self,
        owner: &str,
        raw: &str,
        labels: &[&str],
        thread_id: Option<&str>,
        days_ago: i64,
    ) -> (String, String) {
        let when = (chrono::Utc::now() - chrono::Duration::days(days_ago)).timestamp_millis();
        let mailbox = self.gmail.mailbox(owner);
        let id = mailbox.add(raw.as_bytes().to_vec(), thread_id, labels, when);
        let thread = mailbox.message(&id).map(|m| m.thread_id.clone()).unwrap_or_default();
        (id, thread)
    }

    /// Creates a user label in `owner`'s mailbox; returns its id (`Label_N`).
    pub fn create_mail_label(&mut self, owner: &str, name: &str) -> String {
        let mailbox = self.gmail.mailbox(owner);
        let id = format!("Label_{}", mailbox.labels.iter().filter(|l| !l.system).count() + 1);
        mailbox.labels.push(Label { id: id.clone(), name: name.to_owned(), system: false });
        id
    }

    /// Every message of `owner`'s mailbox, oldest first.
    pub fn mail(&self, owner: &str) -> Vec<MailView> {
        self.gmail.get(owner).map(|mailbox| mailbox.messages.iter().map(MailView::of).collect()).unwrap_or_default()
    }

    /// One message of `owner`'s mailbox.
    pub fn mail_message(&self, owner: &str, id: &str) -> Option<MailView> {
        self.gmail.get(owner)?.message(id).map(MailView::of)
    }

    /// `owner`'s drafts: (draft id, message id).
    pub fn mail_drafts(&self, owner: &str) -> Vec<(String, String)> {
        self.gmail.get(owner).map(|mailbox| mailbox.drafts.clone()).unwrap_or_default()
    }
}

pub fn routes() -> Router<Shared> {
    Router::new().route("/gmail/v1/users/{user}/{*rest}", any(http::dispatch))
}
