//! `list_doc_comments` and `add_doc_comment`, through Drive's comments API (Docs has none of its own).

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::doc_url;
use crate::google::GoogleClient;
use crate::google::GoogleError;
use crate::google::comments::{Comment, ListComments};
use crate::tools::{ToolContext, ToolError};

/// Drive serves at most 100 comments a page.
const MAX_PAGE: u32 = 100;
/// Pages `get_doc_as_markdown` reads at most (10,000 comments); the response cap bounds the rest.
const MAX_PAGES: usize = 100;

fn default_page_size() -> u32 {
    20
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListDocCommentsArgs {
    /// The document's id (from its URL: docs.google.com/document/d/ID/edit).
    pub doc_id: String,
    /// Comments per page, 1 to 100.
    #[serde(default = "default_page_size")]
    pub page_size: u32,
    /// The next_page_token of the previous page, to read on.
    #[serde(default)]
    pub page_token: Option<String>,
    /// Also list deleted comments.
    #[serde(default)]
    pub include_deleted: bool,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AddDocCommentArgs {
    /// The document's id (from its URL: docs.google.com/document/d/ID/edit).
    pub doc_id: String,
    /// The comment's text.
    pub content: String,
    /// The passage of the document the comment is about, quoted as plain text.
    #[serde(default)]
    pub quoted_text: Option<String>,
}

/// A comment as the tools show it: who, what, about which text, and the replies.
pub(super) fn comment_json(comment: &Comment) -> Value {
    let replies: Vec<Value> = comment
        .replies
        .iter()
        .filter(|reply| !reply.deleted)
        .map(|reply| {
            json!({
                "id": reply.id,
                "author": reply.author.display_name,
                "content": reply.content,
                "created_time": reply.created_time,
                "action": reply.action,
            })
        })
        .collect();
    json!({
        "id": comment.id,
        "author": comment.author.display_name,
        "author_email": comment.author.email_address,
        "content": comment.content,
        "quoted_text": comment.quoted_file_content.as_ref().map(|q| q.value.as_str()),
        "created_time": comment.created_time,
        "modified_time": comment.modified_time,
        "resolved": comment.resolved,
        "deleted": comment.deleted,
        "replies": replies,
    })
}

pub(super) async fn list_doc_comments(ctx: ToolContext, args: ListDocCommentsArgs) -> Result<Value, ToolError> {
    if !(1..=MAX_PAGE).contains(&args.page_size) {
        return Err(ToolError::invalid(format!(
            "page_size is {}, but Drive lists 1 to {MAX_PAGE} comments a page. Use a number in that range and page on with page_token.",
            args.page_size
        )));
    }
    let page = ListComments {
        page_size: args.page_size,
        page_token: args.page_token.as_deref().filter(|t| !t.is_empty()),
        include_deleted: args.include_deleted,
    };
    let list = ctx.google.comments().list(&args.doc_id, page).await?;
    Ok(json!({
        "document_id": args.doc_id,
        "url": doc_url(&args.doc_id),
        "comments": list.comments.iter().map(comment_json).collect::<Vec<_>>(),
        "next_page_token": list.next_page_token,
    }))
}

pub(super) async fn add_doc_comment(ctx: ToolContext, args: AddDocCommentArgs) -> Result<Value, ToolError> {
    if args.content.trim().is_empty() {
        return Err(ToolError::invalid("The comment is empty: give the text of the comment in content."));
    }
    let quoted = args.quoted_text.as_deref().filter(|q| !q.is_empty());
    let comment = ctx.google.comments().create(&args.doc_id, &args.content, quoted).await?;
    Ok(json!({
        "document_id": args.doc_id,
        "url": doc_url(&args.doc_id),
        "comment": comment_json(&comment),
    }))
}

/// Every comment on the file that isn't deleted, page by page.
pub(super) async fn all_comments(google: &GoogleClient, file_id: &str) -> Result<Vec<Comment>, GoogleError> {
    let mut comments = Vec::new();
    let mut token: Option<String> = None;
    for _ in 0..MAX_PAGES {
        let page = ListComments { page_size: MAX_PAGE, page_token: token.as_deref(), include_deleted: false };
        let list = google.comments().list(file_id, page).await?;
        comments.extend(list.comments);
        match list.next_page_token {
            Some(next) if !next.is_empty() => token = Some(next),
            _ => break,
        }
    }
    Ok(comments)
}

/// The comments as a Markdown section to follow the document.
pub(super) fn comments_markdown(comments: &[Comment]) -> String {
    let mut out = String::from("## Comments\n");
    if comments.is_empty() {
        out.push_str("\nNo comments.\n");
    }
    for comment in comments {
        let state = if comment.resolved { " (resolved)" } else { "" };
        let when = comment.created_time.as_deref().map(|t| format!(", {t}")).unwrap_or_default();
        out.push_str(&format!(
            "\n- **{}**{when}{state}: {}\n",
            comment.author.display_name,
            one_line(&comment.content)
        ));
        if let Some(quoted) = comment.quoted_file_content.as_ref().filter(|q| !q.value.is_empty()) {
            out.push_str(&format!("  > {}\n", one_line(&quoted.value)));
        }
        for reply in comment.replies.iter().filter(|r| !r.deleted && !r.content.is_empty()) {
            out.push_str(&format!("  - **{}**: {}\n", reply.author.display_name, one_line(&reply.content)));
        }
    }
    out
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
