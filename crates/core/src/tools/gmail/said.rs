//! What each Gmail write's approval card says it will do (see [`crate::approval::sentence`]), attached to
//! its declaration in `gmail/mod.rs` with `.worded`. A reply's or a saved draft's recipients are not in its
//! arguments: the card's preview reads them from Gmail (see [`super::card`]).

use super::address::{Recipients, split_list};
use super::{labels, send};
use crate::approval::sentence::{Said, plural};

/// Every address a field lists, as the assistant wrote them.
pub(super) fn addresses(recipients: Option<&Recipients>) -> Vec<String> {
    match recipients {
        None => Vec::new(),
        Some(Recipients::One(text)) => split_list(text).into_iter().map(str::to_owned).collect(),
        Some(Recipients::Many(list)) => list.iter().flat_map(|text| split_list(text)).map(str::to_owned).collect(),
    }
}

/// "an email to 3 people: a, b and c; subject “Budget”".
fn mail(said: Said, a: &send::ComposeArgs) -> Said {
    let mut everyone = addresses(Some(&a.to));
    everyone.extend(addresses(a.cc.as_ref()));
    everyone.extend(addresses(a.bcc.as_ref()));
    let said = match everyone.len() {
        1 => said.words("to").list(&everyone, 1),
        n => said.words(format!("to {}:", plural(n, "person", "people"))).list(&everyone, 6),
    };
    let said = said.words(", subject").name(&a.subject);
    match a.attachments.as_deref() {
        Some(files) if !files.is_empty() => {
            said.words(format!("with {}", plural(files.len(), "attachment", "attachments")))
        }
        _ => said,
    }
}

pub(super) fn send_message(a: &send::ComposeArgs) -> Said {
    mail(Said::new("send an email"), a)
}

pub(super) fn create_draft(a: &send::ComposeArgs) -> Said {
    mail(Said::new("save a draft (not sent)"), a)
}

pub(super) fn send_draft(_: &send::SendDraftArgs) -> Said {
    Said::new("send a saved draft as it is")
}

pub(super) fn reply_to_message(a: &send::ReplyArgs) -> Said {
    match a.reply_all {
        true => Said::new("send a reply to everyone on a message"),
        false => Said::new("send a reply to a message's sender"),
    }
}

pub(super) fn modify_labels(a: &labels::ModifyLabelsArgs) -> Said {
    let what = if a.thread_id.is_some() { "a whole conversation" } else { "a message" };
    let adds = a.add_label_ids.clone().unwrap_or_default();
    let removes = a.remove_label_ids.clone().unwrap_or_default();
    let said = Said::new(format!("change the labels of {what}:"));
    let said = if adds.is_empty() { said } else { said.words("add").list(&adds, 4) };
    let said = if adds.is_empty() || removes.is_empty() { said } else { said.words(";") };
    if removes.is_empty() { said } else { said.words("remove").list(&removes, 4) }
}

pub(super) fn trash_message(_: &labels::TrashMessageArgs) -> Said {
    Said::new("move an email to the trash (Gmail deletes it for good after 30 days)")
}
