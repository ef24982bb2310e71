//! The previews of mail on an approval card (see [`crate::approval::preview`]): whom it goes to, its
//! subject and its first lines. A new message's are its arguments; a reply's recipients come from the
//! original message and a saved draft's from the draft, so those are read from Gmail (`messages.get` /
//! `drafts.get`, both `metadata`). Attached to the declarations in `gmail/mod.rs` with `.previewed`.

use super::address::Mailbox;
use super::read::header;
use super::said::addresses as listed;
use super::send::{ComposeArgs, REPLY_HEADERS, ReplyArgs, SendDraftArgs, addresses, reply_plan};
use crate::approval::preview::{Preview, cut};
use crate::google::GoogleClient;
use crate::google::gmail::Format;
use crate::tools::registry::PreviewRead;

/// How many lines of the body a mail preview shows.
const FIRST_LINES: usize = 4;

/// The first [`FIRST_LINES`] lines of `body` that hold something, each cut.
fn first_lines(body: &str) -> String {
    body.lines()
        .map(str::trim_end)
        .filter(|line| !line.trim().is_empty())
        .take(FIRST_LINES)
        .map(cut)
        .collect::<Vec<_>>()
        .join("\n")
}

fn list(mailboxes: &[Mailbox]) -> Vec<String> {
    addresses(mailboxes).into_iter().map(str::to_owned).collect()
}

pub(super) fn compose(_google: GoogleClient, a: ComposeArgs) -> PreviewRead {
    Box::pin(async move {
        Ok(Preview::Mail {
            to: listed(Some(&a.to)),
            cc: listed(a.cc.as_ref()),
            bcc: listed(a.bcc.as_ref()),
            subject: cut(&a.subject),
            first_lines: first_lines(&a.body),
        })
    })
}

pub(super) fn reply(google: GoogleClient, a: ReplyArgs) -> PreviewRead {
    Box::pin(async move {
        let original = google
            .gmail()
            .get_message(&a.message_id, Format::Metadata, &REPLY_HEADERS)
            .await
            .map_err(|error| format!("the message being answered could not be read ({error})"))?;
        let plan = reply_plan(&original, google.account().as_deref(), a.reply_all);
        Ok(Preview::Mail {
            to: list(&plan.to),
            cc: list(&plan.cc),
            bcc: Vec::new(),
            subject: cut(&plan.subject),
            first_lines: first_lines(&a.body),
        })
    })
}

pub(super) fn draft(google: GoogleClient, a: SendDraftArgs) -> PreviewRead {
    Box::pin(async move {
        let draft = google
            .gmail()
            .get_draft_headers(&a.draft_id)
            .await
            .map_err(|error| format!("the draft could not be read ({error})"))?;
        let get = |name: &str| header(&draft.message, name).unwrap_or_default();
        let split = |text: String| -> Vec<String> {
            super::address::split_list(&text).into_iter().map(str::to_owned).collect()
        };
        Ok(Preview::Mail {
            to: split(get("To")),
            cc: split(get("Cc")),
            bcc: split(get("Bcc")),
            subject: cut(&get("Subject")),
            first_lines: first_lines(&draft.message.snippet),
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_lines_skip_blank_ones_and_stop_at_four() {
        assert_eq!(
            first_lines("Hi Ann,\n\n\nthe budget\nis done.\nThanks\nBo"),
            "Hi Ann,\nthe budget\nis done.\nThanks"
        );
    }
}
