//! Writing mail: `send_message`, `create_draft`, `send_draft` and `reply_to_message`.
//!
//! Sending is always visible to the person: every send is a gated write, and `send_message`'s evaluator
//! limits a standing approval to recipients at one domain (`email_domain`, read with the tool's own
//! address parsing, `to`, `cc` and `bcc` together). A reply's and a draft's recipients are not in the
//! call's arguments (they come from the original message or the saved draft), so those two always ask.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use chrono::Utc;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::address::{self, Mailbox, Recipients};
use super::mime::{self, Attachment, Outgoing};
use super::read::header;
use super::{Target, mail_error};
use crate::approval::evaluator::Recipient;
use crate::google::gmail::{Format, Message};
use crate::limits::local_files::LocalPathError;
use crate::tools::{ToolContext, ToolError};

/// Gmail's limit for a whole message, attachments included.
const MAX_MESSAGE_BYTES: usize = 25 * 1024 * 1024;

pub const REPLY_ALWAYS_ASKS: &str = "Replying always asks: the recipients come from the original message, not from the call, so no standing approval can be checked against them.";
pub const SEND_DRAFT_ALWAYS_ASKS: &str = "Sending a draft always asks: the recipients are in the saved draft, not in the call, so no standing approval can be checked against them.";

/// A file to attach: a local file (`local_path`, as the reference server names it; `path` is accepted too) or
/// content given inline (`content_base64`, named `attachment` unless `filename` says otherwise).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AttachmentSpec {
    /// A local file to attach (relative paths are inside the export folder).
    #[serde(default, alias = "path")]
    pub local_path: Option<String>,
    /// The content, base64-encoded, instead of local_path.
    #[serde(default)]
    pub content_base64: Option<String>,
    /// The name the recipient sees (default: the file's name, or "attachment" for content_base64).
    #[serde(default)]
    pub filename: Option<String>,
    /// The MIME type (default: from the name's extension).
    #[serde(default)]
    pub mime_type: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ComposeArgs {
    /// Recipients: an address, several separated by commas, or a list ("Ann Lee <ann@example.com>" works).
    pub to: Recipients,
    /// The subject line.
    pub subject: String,
    /// The plain-text body.
    pub body: String,
    /// Copy recipients, as for to.
    #[serde(default)]
    pub cc: Option<Recipients>,
    /// Blind-copy recipients, as for to.
    #[serde(default)]
    pub bcc: Option<Recipients>,
    /// An HTML version of the body, sent alongside the plain text.
    #[serde(default)]
    pub body_html: Option<String>,
    /// Files to attach: [{"local_path": "report.pdf"}] or [{"filename": "a.txt", "content_base64": "…"}].
    #[serde(default)]
    pub attachments: Option<Vec<AttachmentSpec>>,
}

/// `to`, `cc` and `bcc`, parsed and checked; at least one recipient in `to`.
struct Addressed {
    to: Vec<Mailbox>,
    cc: Vec<Mailbox>,
    bcc: Vec<Mailbox>,
}

impl ComposeArgs {
    fn addressed(&self) -> Result<Addressed, String> {
        let to = self.to.parse("to")?;
        if to.is_empty() {
            return Err("to is empty: give at least one recipient's address.".to_owned());
        }
        Ok(Addressed {
            to,
            cc: address::parse_optional(self.cc.as_ref(), "cc")?,
            bcc: address::parse_optional(self.bcc.as_ref(), "bcc")?,
        })
    }
}

/// Everyone a `send_message` call writes to, for the `email_domain` evaluator.
pub(super) fn recipients(args: &ComposeArgs) -> Result<Vec<Recipient>, String> {
    let addressed = args.addressed()?;
    Ok(addressed
        .to
        .into_iter()
        .chain(addressed.cc)
        .chain(addressed.bcc)
        .map(|mailbox| Recipient::Email(mailbox.address))
        .collect())
}

pub(super) fn addresses(list: &[Mailbox]) -> Vec<&str> {
    list.iter().map(|m| m.address.as_str()).collect()
}

/// Reads the attachments: local files through the same rules as uploads, inline content decoded.
async fn attachments(ctx: &ToolContext, specs: &[AttachmentSpec]) -> Result<Vec<Attachment>, ToolError> {
    let mut out = Vec::with_capacity(specs.len());
    let mut total = 0;
    for (i, spec) in specs.iter().enumerate() {
        let (bytes, default_name) = match (&spec.local_path, &spec.content_base64) {
            (Some(path), None) => {
                let path = ctx.local.allowed(path)?;
                let bytes = tokio::fs::read(&path)
                    .await
                    .map_err(|e| LocalPathError::Io { path: path.display().to_string(), detail: e.to_string() })?;
                let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
                (bytes, name)
            }
            (None, Some(content)) => {
                let bytes = STANDARD
                    .decode(content.trim())
                    .map_err(|e| ToolError::invalid(format!("attachments[{i}].content_base64 is not base64 ({e}).")))?;
                // Unnamed inline content is called "attachment", as in the reference server.
                (bytes, "attachment".to_owned())
            }
            _ => {
                return Err(ToolError::invalid(format!(
                    "attachments[{i}]: give either local_path (a local file) or content_base64 (the content, base64-encoded)."
                )));
            }
        };
        let filename = spec.filename.clone().filter(|n| !n.trim().is_empty()).unwrap_or(default_name);
        if filename.is_empty() {
            return Err(ToolError::invalid(format!("attachments[{i}]: give the file a filename.")));
        }
        let mime_type =
            spec.mime_type.clone().filter(|m| m.contains('/')).unwrap_or_else(|| {
                crate::tools::drive::upload::by_extension(std::path::Path::new(&filename)).0.to_owned()
            });
        total += bytes.len();
        if total > MAX_MESSAGE_BYTES {
            return Err(ToolError::invalid(
                "The attachments come to more than Gmail's 25 MB per message. Share large files from Drive (share_file) and send the link instead.",
            ));
        }
        out.push(Attachment { filename, mime_type, bytes });
    }
    Ok(out)
}

/// The message a compose call describes, checked, and its `raw` form.
async fn compose(ctx: &ToolContext, args: &ComposeArgs) -> Result<(Addressed, Vec<String>, String), ToolError> {
    let addressed = args.addressed().map_err(ToolError::invalid)?;
    let files = attachments(ctx, args.attachments.as_deref().unwrap_or_default()).await?;
    let names = files.iter().map(|f| f.filename.clone()).collect();
    let outgoing = Outgoing {
        to: addressed.to.clone(),
        cc: addressed.cc.clone(),
        bcc: addressed.bcc.clone(),
        subject: args.subject.clone(),
        text: args.body.clone(),
        html: args.body_html.clone().filter(|html| !html.trim().is_empty()),
        attachments: files,
        ..Outgoing::default()
    };
    let bytes = outgoing.build(Utc::now(), rand::random()).map_err(|e| ToolError::invalid(e.to_string()))?;
    Ok((addressed, names, mime::to_raw(&bytes)))
}

fn summary(addressed: &Addressed, subject: &str, attachments: &[String]) -> Value {
    let mut out = json!({ "to": addresses(&addressed.to), "subject": subject });
    if !addressed.cc.is_empty() {
        out["cc"] = json!(addresses(&addressed.cc));
    }
    if !addressed.bcc.is_empty() {
        out["bcc"] = json!(addresses(&addressed.bcc));
    }
    if !attachments.is_empty() {
        out["attachments"] = json!(attachments);
    }
    out
}

pub(super) async fn send_message(ctx: ToolContext, args: ComposeArgs) -> Result<Value, ToolError> {
    let (addressed, names, raw) = compose(&ctx, &args).await?;
    let sent = ctx.google.gmail().send(&raw, None).await.map_err(mail_error(Target::Mailbox))?;
    let mut out = summary(&addressed, &args.subject, &names);
    out["message_id"] = json!(sent.id);
    out["thread_id"] = json!(sent.thread_id);
    out["label_ids"] = json!(sent.label_ids);
    Ok(out)
}

pub(super) async fn create_draft(ctx: ToolContext, args: ComposeArgs) -> Result<Value, ToolError> {
    let (addressed, names, raw) = compose(&ctx, &args).await?;
    let draft = ctx.google.gmail().create_draft(&raw, None).await.map_err(mail_error(Target::Mailbox))?;
    let mut out = summary(&addressed, &args.subject, &names);
    out["draft_id"] = json!(draft.id);
    out["message_id"] = json!(draft.message.id);
    out["thread_id"] = json!(draft.message.thread_id);
    Ok(out)
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SendDraftArgs {
    /// The draft's id (from create_draft).
    pub draft_id: String,
}

pub(super) async fn send_draft(ctx: ToolContext, args: SendDraftArgs) -> Result<Value, ToolError> {
    let gmail = ctx.google.gmail();
    let sent = gmail.send_draft(&args.draft_id).await.map_err(mail_error(Target::Draft(&args.draft_id)))?;
    // Say whom it went to: the call named only the draft.
    let message = gmail
        .get_message(&sent.id, Format::Metadata, &["To", "Cc", "Bcc", "Subject"])
        .await
        .map_err(mail_error(Target::Message(&sent.id)))?;
    let mut out = json!({
        "draft_id": args.draft_id,
        "message_id": sent.id,
        "thread_id": sent.thread_id,
        "label_ids": sent.label_ids,
    });
    for name in ["To", "Cc", "Bcc", "Subject"] {
        if let Some(value) = header(&message, name) {
            out[name.to_lowercase()] = json!(value);
        }
    }
    Ok(out)
}

fn no() -> bool {
    false
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReplyArgs {
    /// The message to reply to.
    pub message_id: String,
    /// The plain-text reply.
    pub body: String,
    /// An HTML version of the reply, sent alongside the plain text.
    #[serde(default)]
    pub body_html: Option<String>,
    /// Reply to the sender and everyone in To and Cc (default: the sender only).
    #[serde(default = "no")]
    pub reply_all: bool,
}

/// The headers a reply is built from.
pub(super) const REPLY_HEADERS: [&str; 7] = ["From", "Reply-To", "To", "Cc", "Subject", "Message-ID", "References"];

/// Parses a header of the original message into mailboxes (unparseable entries are skipped: a reply
/// should not fail over a malformed Cc someone else wrote).
fn header_mailboxes(value: Option<&str>) -> Vec<Mailbox> {
    value.map_or_else(Vec::new, |text| {
        address::split_list(text)
            .into_iter()
            .filter_map(|item| Recipients::One(item.to_owned()).parse("header").ok())
            .flatten()
            .collect()
    })
}

/// Whom a reply goes to: (to, cc). The sender (or `Reply-To`); with `reply_all`, also the original To and
/// Cc. Never oneself, unless replying to one's own message, which goes to its original recipients.
fn reply_recipients(
    from: Vec<Mailbox>,
    to: Vec<Mailbox>,
    cc: Vec<Mailbox>,
    me: Option<&str>,
    reply_all: bool,
) -> (Vec<Mailbox>, Vec<Mailbox>) {
    let is_me = |m: &Mailbox| me.is_some_and(|me| m.address.eq_ignore_ascii_case(me));
    let mut primary: Vec<Mailbox> = from.into_iter().filter(|m| !is_me(m)).collect();
    let own_message = primary.is_empty();
    if own_message {
        primary = to.iter().filter(|m| !is_me(m)).cloned().collect();
    }
    let mut copies = Vec::new();
    if reply_all {
        let others = if own_message { cc } else { to.into_iter().chain(cc).collect() };
        for m in others {
            let seen = primary.iter().chain(&copies).any(|p: &Mailbox| p.address.eq_ignore_ascii_case(&m.address));
            if !is_me(&m) && !seen {
                copies.push(m);
            }
        }
    }
    (primary, copies)
}

/// `Re: subject`, unless it already starts so.
fn reply_subject(subject: &str) -> String {
    let trimmed = subject.trim();
    if trimmed.get(..3).is_some_and(|start| start.eq_ignore_ascii_case("re:")) {
        trimmed.to_owned()
    } else {
        format!("Re: {trimmed}")
    }
}

/// What a reply to a message will be: whom it goes to, its subject and its threading headers.
pub(super) struct ReplyPlan {
    pub to: Vec<Mailbox>,
    pub cc: Vec<Mailbox>,
    pub subject: String,
    in_reply_to: Option<String>,
    references: Option<String>,
}

/// Plans the reply to `original` (read with [`REPLY_HEADERS`]) as `me`: the one rule the tool and its
/// approval card share.
pub(super) fn reply_plan(original: &Message, me: Option<&str>, reply_all: bool) -> ReplyPlan {
    let from = header(original, "Reply-To").or_else(|| header(original, "From"));
    let (to, cc) = reply_recipients(
        header_mailboxes(from.as_deref()),
        header_mailboxes(header(original, "To").as_deref()),
        header_mailboxes(header(original, "Cc").as_deref()),
        me,
        reply_all,
    );
    let in_reply_to = header(original, "Message-ID").map(|id| id.trim().to_owned()).filter(|id| !id.is_empty());
    let references = match (header(original, "References"), &in_reply_to) {
        (Some(refs), Some(id)) if !refs.trim().is_empty() => Some(format!("{} {id}", refs.trim())),
        (_, Some(id)) => Some(id.clone()),
        (refs, None) => refs,
    };
    let subject = reply_subject(&header(original, "Subject").unwrap_or_default());
    ReplyPlan { to, cc, subject, in_reply_to, references }
}

pub(super) async fn reply_to_message(ctx: ToolContext, args: ReplyArgs) -> Result<Value, ToolError> {
    let gmail = ctx.google.gmail();
    let original = gmail
        .get_message(&args.message_id, Format::Metadata, &REPLY_HEADERS)
        .await
        .map_err(mail_error(Target::Message(&args.message_id)))?;
    let plan = reply_plan(&original, ctx.google.account().as_deref(), args.reply_all);
    if plan.to.is_empty() {
        return Err(ToolError::invalid(format!(
            "Message {} names no one to reply to (no usable From, Reply-To or To address). Use send_message with the recipients instead.",
            args.message_id
        )));
    }
    let outgoing = Outgoing {
        to: plan.to,
        cc: plan.cc,
        subject: plan.subject.clone(),
        text: args.body.clone(),
        html: args.body_html.clone().filter(|html| !html.trim().is_empty()),
        in_reply_to: plan.in_reply_to,
        references: plan.references,
        ..Outgoing::default()
    };
    let bytes = outgoing.build(Utc::now(), rand::random()).map_err(|e| ToolError::invalid(e.to_string()))?;
    let sent = gmail
        .send(&mime::to_raw(&bytes), Some(&original.thread_id))
        .await
        .map_err(mail_error(Target::Message(&args.message_id)))?;
    let mut out = json!({
        "message_id": sent.id,
        "thread_id": sent.thread_id,
        "label_ids": sent.label_ids,
        "in_reply_to": args.message_id,
        "to": addresses(&outgoing.to),
        "subject": plan.subject,
    });
    if !outgoing.cc.is_empty() {
        out["cc"] = json!(addresses(&outgoing.cc));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mb(address: &str) -> Mailbox {
        Mailbox { name: None, address: address.into() }
    }

    #[test]
    fn a_reply_goes_to_the_sender_and_reply_all_adds_the_others_but_never_oneself() {
        let (to, cc) = reply_recipients(
            vec![mb("alex@example.com")],
            vec![mb("me@example.com"), mb("bo@example.com")],
            vec![mb("cy@example.com"), mb("ALEX@example.com")],
            Some("me@example.com"),
            false,
        );
        assert_eq!((addresses(&to), cc.len()), (vec!["alex@example.com"], 0));
        let (to, cc) = reply_recipients(
            vec![mb("alex@example.com")],
            vec![mb("me@example.com"), mb("bo@example.com")],
            vec![mb("cy@example.com"), mb("ALEX@example.com")],
            Some("me@example.com"),
            true,
        );
        assert_eq!(addresses(&to), ["alex@example.com"]);
        assert_eq!(addresses(&cc), ["bo@example.com", "cy@example.com"]);
    }

    #[test]
    fn replying_to_ones_own_message_goes_to_its_recipients() {
        let (to, _) = reply_recipients(
            vec![mb("me@example.com")],
            vec![mb("bo@example.com")],
            vec![],
            Some("me@example.com"),
            false,
        );
        assert_eq!(addresses(&to), ["bo@example.com"]);
    }

    #[test]
    fn subjects_get_one_re() {
        assert_eq!(reply_subject("Budget"), "Re: Budget");
        assert_eq!(reply_subject("RE: Budget"), "RE: Budget");
        assert_eq!(reply_subject(""), "Re: ");
    }
}
