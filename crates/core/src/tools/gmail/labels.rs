//! Labels: `list_labels`, `modify_labels` (on one message or a whole thread) and `trash_message`.
//! `modify_labels` takes label ids or, for convenience, label names (matched ignoring case), resolved
//! against the mailbox's own labels before anything changes.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::{Target, mail_error};
use crate::google::gmail::Label;
use crate::tools::{ToolContext, ToolError};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoArgs {}

pub(super) async fn list_labels(ctx: ToolContext, _args: NoArgs) -> Result<Value, ToolError> {
    let labels = ctx.google.gmail().labels().await.map_err(mail_error(Target::Mailbox))?;
    let labels: Vec<Value> =
        labels.iter().map(|label| json!({ "id": label.id, "name": label.name, "type": label.kind })).collect();
    Ok(json!({ "labels": labels }))
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ModifyLabelsArgs {
    /// Labels to add, by id or name (e.g. ["STARRED", "Project X"]).
    #[serde(default)]
    pub add_label_ids: Option<Vec<String>>,
    /// Labels to remove, by id or name (e.g. ["UNREAD"] marks read, ["INBOX"] archives).
    #[serde(default)]
    pub remove_label_ids: Option<Vec<String>>,
    /// The message to change (give this or thread_id).
    #[serde(default)]
    pub message_id: Option<String>,
    /// The thread to change, every message of it (give this or message_id).
    #[serde(default)]
    pub thread_id: Option<String>,
}

/// What `modify_labels` changes: one message or one thread.
enum Subject<'a> {
    Message(&'a str),
    Thread(&'a str),
}

impl ModifyLabelsArgs {
    fn subject(&self) -> Result<Subject<'_>, ToolError> {
        let message = self.message_id.as_deref().map(str::trim).filter(|id| !id.is_empty());
        let thread = self.thread_id.as_deref().map(str::trim).filter(|id| !id.is_empty());
        match (message, thread) {
            (Some(id), None) => Ok(Subject::Message(id)),
            (None, Some(id)) => Ok(Subject::Thread(id)),
            (Some(_), Some(_)) => Err(ToolError::invalid(
                "Give message_id or thread_id, not both: one changes a single message, the other every message of a thread.",
            )),
            (None, None) => Err(ToolError::invalid("Give message_id (one message) or thread_id (a whole thread).")),
        }
    }
}

/// Each wanted label as the mailbox's id: an id as it is, else a name matched ignoring case.
fn resolve(wanted: &[String], labels: &[Label], field: &str) -> Result<Vec<String>, ToolError> {
    wanted
        .iter()
        .map(|want| {
            let want = want.trim();
            labels
                .iter()
                .find(|label| label.id == want)
                .or_else(|| labels.iter().find(|label| label.name.eq_ignore_ascii_case(want)))
                .map(|label| label.id.clone())
                .ok_or_else(|| {
                    ToolError::NotFound(format!(
                        "{field}: this mailbox has no label {want:?}. Use an id or name that list_labels shows (system labels: INBOX, UNREAD, STARRED, IMPORTANT, SPAM, TRASH)."
                    ))
                })
        })
        .collect()
}

pub(super) async fn modify_labels(ctx: ToolContext, args: ModifyLabelsArgs) -> Result<Value, ToolError> {
    let subject = args.subject()?;
    let add = args.add_label_ids.clone().unwrap_or_default();
    let remove = args.remove_label_ids.clone().unwrap_or_default();
    if add.is_empty() && remove.is_empty() {
        return Err(ToolError::invalid("Nothing to change: give add_label_ids, remove_label_ids or both."));
    }
    let gmail = ctx.google.gmail();
    let labels = gmail.labels().await.map_err(mail_error(Target::Mailbox))?;
    let add = resolve(&add, &labels, "add_label_ids")?;
    let remove = resolve(&remove, &labels, "remove_label_ids")?;
    if let Some(both) = add.iter().find(|id| remove.contains(id)) {
        return Err(ToolError::invalid(format!("Label {both} is both added and removed; give it in one list only.")));
    }
    match subject {
        Subject::Message(id) => {
            let message = gmail.modify_message(id, &add, &remove).await.map_err(mail_error(Target::Message(id)))?;
            Ok(json!({
                "message_id": message.id,
                "thread_id": message.thread_id,
                "label_ids": message.label_ids,
                "added": add,
                "removed": remove,
            }))
        }
        Subject::Thread(id) => {
            let thread = gmail.modify_thread(id, &add, &remove).await.map_err(mail_error(Target::Thread(id)))?;
            let messages: Vec<Value> =
                thread.messages.iter().map(|m| json!({ "message_id": m.id, "label_ids": m.label_ids })).collect();
            Ok(json!({ "thread_id": id, "messages": messages, "added": add, "removed": remove }))
        }
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TrashMessageArgs {
    /// The message's id.
    pub message_id: String,
}

pub(super) async fn trash_message(ctx: ToolContext, args: TrashMessageArgs) -> Result<Value, ToolError> {
    let message = ctx
        .google
        .gmail()
        .trash_message(&args.message_id)
        .await
        .map_err(mail_error(Target::Message(&args.message_id)))?;
    Ok(json!({
        "message_id": message.id,
        "thread_id": message.thread_id,
        "label_ids": message.label_ids,
        "trashed": true,
        "note": "Gmail keeps trashed mail for 30 days; until then it can be restored from Gmail's Trash.",
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn label(id: &str, name: &str) -> Label {
        Label { id: id.into(), name: name.into(), kind: "user".into() }
    }

    #[test]
    fn labels_resolve_by_id_then_by_name() {
        let labels = [label("INBOX", "INBOX"), label("Label_1", "Project X")];
        let wanted = vec!["inbox".to_owned(), "Label_1".to_owned(), "project x".to_owned()];
        assert_eq!(resolve(&wanted, &labels, "add").unwrap(), ["INBOX", "Label_1", "Label_1"]);
        let error = resolve(&["Nope".to_owned()], &labels, "add_label_ids").unwrap_err().to_string();
        assert!(error.contains("no label \"Nope\"") && error.contains("list_labels"), "{error}");
    }
}
