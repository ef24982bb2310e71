//! What an approval card says about a send whose recipients are not in its arguments: a reply (they come
//! from the original message) and a saved draft (they are in the draft). The card must name whom the mail
//! goes to and its subject, so the gate asks here, with a quick read (`messages.get` / `drafts.get`, both
//! `metadata`). `send_message` needs none of this: its recipients and subject are its arguments, which
//! every card shows.

use serde_json::Value;

use super::address::Mailbox;
use super::read::header;
use super::send::{REPLY_HEADERS, ReplyArgs, SendDraftArgs, addresses, reply_plan};
use crate::google::GoogleClient;
use crate::google::gmail::Format;
use crate::tools::registry::parse_args_ref;

/// The card's words for a `reply_to_message` or `send_draft` call ("to ann@example.com; cc …; subject
/// “Re: Budget”"); `None` for other tools, arguments the tool would refuse, or mail that can't be read.
pub async fn card_words(google: &GoogleClient, tool: &str, args: &Value) -> Option<String> {
    match tool {
        "reply_to_message" => {
            let args: ReplyArgs = parse_args_ref("reply_to_message", args).ok()?;
            let original = google
                .gmail()
                .get_message(&args.message_id, Format::Metadata, &REPLY_HEADERS)
                .await
                .map_err(|error| tracing::debug!("the reply's card cannot name its recipients: {error}"))
                .ok()?;
            let plan = reply_plan(&original, google.account().as_deref(), args.reply_all);
            Some(words(&list(&plan.to), &list(&plan.cc), "", &plan.subject))
        }
        "send_draft" => {
            let args: SendDraftArgs = parse_args_ref("send_draft", args).ok()?;
            let draft = google
                .gmail()
                .get_draft_headers(&args.draft_id)
                .await
                .map_err(|error| tracing::debug!("the draft's card cannot name its recipients: {error}"))
                .ok()?;
            let get = |name: &str| header(&draft.message, name).unwrap_or_default();
            Some(words(&get("To"), &get("Cc"), &get("Bcc"), &get("Subject")))
        }
        _ => None,
    }
}

fn list(mailboxes: &[Mailbox]) -> String {
    addresses(mailboxes).join(", ")
}

fn words(to: &str, cc: &str, bcc: &str, subject: &str) -> String {
    let mut parts = vec![format!("to {}", if to.is_empty() { "no one" } else { to })];
    if !cc.is_empty() {
        parts.push(format!("cc {cc}"));
    }
    if !bcc.is_empty() {
        parts.push(format!("bcc {bcc}"));
    }
    parts.push(format!("subject “{subject}”"));
    parts.join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_words_name_every_recipient_and_the_subject() {
        assert_eq!(words("a@x.com", "", "", "Hi"), "to a@x.com; subject “Hi”");
        assert_eq!(
            words("a@x.com", "b@x.com", "c@y.com", "Re: Hi"),
            "to a@x.com; cc b@x.com; bcc c@y.com; subject “Re: Hi”"
        );
    }
}
