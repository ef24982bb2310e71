//! Gmail tools: reading messages and threads, labels and the trash, sending, drafts and replies. Every
//! call goes through [`crate::google::gmail`] for the signed-in person's own mailbox (`me`).
//!
//! Every Gmail tool declares [`Limitation::NoMailbox`]: a service account has no mailbox, and Gatehouse
//! does not impersonate people through domain-wide delegation.

mod address;
mod card;
mod labels;
mod mime;
mod read;
mod said;
mod send;

use crate::approval::evaluator::Evaluator;
use crate::catalog::Effect;
use crate::google::GoogleError;
use crate::google::error::ErrorKind;
use crate::google::gmail::is_no_mailbox;

use super::ToolError;
use super::registry::{Cap, Limitation, Service, ToolDef, ToolMeta};

const NO_MAILBOX: &[Limitation] = &[Limitation::NoMailbox];

const fn read_tool(name: &'static str, title: &'static str, description: &'static str, cap: Cap) -> ToolMeta {
    ToolMeta::read(Service::Gmail, name, title, description, cap).failing_for(NO_MAILBOX)
}

const fn write_tool(name: &'static str, title: &'static str, description: &'static str, effect: Effect) -> ToolMeta {
    ToolMeta::write(Service::Gmail, name, title, description, effect).failing_for(NO_MAILBOX)
}

/// The Gmail tools, in catalogue order.
pub fn tools() -> Vec<ToolDef> {
    vec![
        ToolDef::new(
            read_tool(
                "list_messages",
                "List mail",
                "List messages, newest first, with sender, recipients, subject, date and snippet. query takes Gmail search syntax.",
                Cap::Paging,
            ),
            read::list_messages,
        ),
        ToolDef::new(
            read_tool(
                "get_message",
                "Read a message",
                "Read one message: headers, labels, body text (plain text, else HTML as text) and its attachments' names and sizes.",
                Cap::Narrower,
            )
            .with_local_path(),
            read::get_message,
        ),
        ToolDef::new(
            read_tool(
                "list_threads",
                "List conversations",
                "List conversations (threads), newest first, with subject, senders, message count and snippet. query takes Gmail search syntax.",
                Cap::Paging,
            ),
            read::list_threads,
        ),
        ToolDef::new(
            read_tool(
                "get_thread",
                "Read a conversation",
                "Read every message of a conversation (thread), oldest first.",
                Cap::Narrower,
            )
            .with_local_path(),
            read::get_thread,
        ),
        ToolDef::new(
            read_tool(
                "list_labels",
                "List labels",
                "List the mailbox's labels (system and your own) with their ids.",
                Cap::Narrower,
            ),
            labels::list_labels,
        ),
        ToolDef::evaluated(
            write_tool(
                "send_message",
                "Send email",
                "Send an email (plain text, optional HTML and attachments) from the signed-in account.",
                Effect { destructive: false, idempotent: false },
            ),
            send::send_message,
            [Evaluator::email_domain(send::recipients)],
        )
        .worded(said::send_message)
        .previewed(card::compose),
        ToolDef::new(
            write_tool(
                "create_draft",
                "Create a draft",
                "Save an email as a draft in Gmail without sending it; send it later with send_draft.",
                Effect { destructive: false, idempotent: false },
            ),
            send::create_draft,
        )
        .worded(said::create_draft)
        .previewed(card::compose),
        ToolDef::evaluated(
            write_tool("send_draft", "Send a draft", "Send a saved draft as it is.", Effect { destructive: true, idempotent: false }),
            send::send_draft,
            [Evaluator::always_ask("send_draft", send::SEND_DRAFT_ALWAYS_ASKS)],
        )
        .worded(said::send_draft)
        .previewed(card::draft),
        ToolDef::evaluated(
            write_tool(
                "reply_to_message",
                "Reply to email",
                "Reply in the same conversation to a message's sender (or, with reply_all, to everyone on it).",
                Effect { destructive: false, idempotent: false },
            ),
            send::reply_to_message,
            [Evaluator::always_ask("reply_to_message", send::REPLY_ALWAYS_ASKS)],
        )
        .worded(said::reply_to_message)
        .previewed(card::reply),
        ToolDef::new(
            write_tool(
                "modify_labels",
                "Change labels",
                "Add or remove labels on a message or a whole thread (remove UNREAD to mark read, INBOX to archive).",
                Effect { destructive: true, idempotent: true },
            ),
            labels::modify_labels,
        )
        .worded(said::modify_labels),
        ToolDef::new(
            write_tool(
                "trash_message",
                "Move email to trash",
                "Move a message to the trash (Gmail deletes it for good after 30 days).",
                Effect { destructive: true, idempotent: true },
            ),
            labels::trash_message,
        )
        .worded(said::trash_message),
    ]
}

/// What a failed call was about, for its message.
#[derive(Debug, Clone, Copy)]
enum Target<'a> {
    Mailbox,
    Message(&'a str),
    Thread(&'a str),
    Draft(&'a str),
}

/// Gmail's refusal in words: no mailbox (service accounts) and unknown ids said plainly; the rest as every
/// Google error is.
fn mail_error(target: Target<'_>) -> impl FnOnce(GoogleError) -> ToolError + '_ {
    move |error| {
        if is_no_mailbox(&error) {
            let google = match &error {
                GoogleError::Api(api) if !api.message.is_empty() => format!(" (Google said: \"{}\")", api.message),
                _ => String::new(),
            };
            return ToolError::invalid(format!(
                "Gmail answered that this Google identity has no mailbox{google}. A service account has none, and Gatehouse does not act for a person through domain-wide delegation; for a Workspace account, its administrator may have turned Gmail off. Sign in with a person's Google account (Gatehouse app › Account, or `gatehouse login`) to use Gmail."
            ));
        }
        let missing = match target {
            Target::Message(id) => Some(format!("message {id}")),
            Target::Thread(id) => Some(format!("thread {id}")),
            Target::Draft(id) => Some(format!("draft {id}")),
            Target::Mailbox => None,
        };
        match (error.kind(), missing) {
            (Some(ErrorKind::NotFound), Some(what)) => ToolError::NotFound(format!(
                "Gmail has no {what} in this mailbox. Check the id (list_messages, list_threads and create_draft give them); mail deleted for good and drafts already sent are gone."
            )),
            _ => error.into(),
        }
    }
}
