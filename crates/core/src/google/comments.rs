//! Drive v3 comments (`files/{fileId}/comments`), shaped as `drive.v3.json` defines them.
//!
//! Google refuses `comments.list` and `comments.create` without a `fields` parameter, so every call
//! here names the fields it reads. The comments methods take no `supportsAllDrives`: they work on any
//! file the account can comment on, shared drive or not.

use serde::{Deserialize, Serialize};

use super::client::{Call, GoogleClient, segment};
use super::endpoint::Api;
use super::error::GoogleError;

/// The `Comment` fields Gatehouse reads, as a `fields` selector.
const COMMENT_FIELDS: &str = "id,content,author(displayName,emailAddress),createdTime,modifiedTime,resolved,deleted,\
quotedFileContent,replies(id,content,author(displayName,emailAddress),createdTime,action,deleted)";

/// `User`, as comments name their authors.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct User {
    pub display_name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub email_address: Option<String>,
}

/// `Comment.quotedFileContent`: the text the comment is about.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct QuotedFileContent {
    pub mime_type: String,
    pub value: String,
}

/// `Reply`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Reply {
    pub id: String,
    pub content: String,
    pub author: User,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub created_time: Option<String>,
    /// `resolve` or `reopen` when the reply changed the comment's state.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub action: Option<String>,
    pub deleted: bool,
}

/// `Comment`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Comment {
    pub id: String,
    pub content: String,
    pub author: User,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub created_time: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub modified_time: Option<String>,
    pub resolved: bool,
    pub deleted: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub quoted_file_content: Option<QuotedFileContent>,
    pub replies: Vec<Reply>,
}

/// `CommentList`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct CommentList {
    pub comments: Vec<Comment>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_page_token: Option<String>,
}

/// The body of `comments.create`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
struct NewComment<'a> {
    content: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    quoted_file_content: Option<QuotedFileContent>,
}

/// The body of `replies.create`.
#[derive(Debug, Clone, Serialize)]
struct NewReply<'a> {
    #[serde(skip_serializing_if = "str::is_empty")]
    content: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    action: Option<&'a str>,
}

/// The `Reply` fields Gatehouse reads.
const REPLY_FIELDS: &str = "id,content,author(displayName,emailAddress),createdTime,action,deleted";

/// One page of `comments.list`.
#[derive(Debug, Clone, Copy)]
pub struct ListComments<'a> {
    pub page_size: u32,
    pub page_token: Option<&'a str>,
    pub include_deleted: bool,
}

/// Drive's comments API, borrowed from a client.
pub struct Comments<'a>(&'a GoogleClient);

impl GoogleClient {
    pub fn comments(&self) -> Comments<'_> {
        Comments(self)
    }
}

fn comments_path(file_id: &str) -> String {
    format!("files/{}/comments", segment(file_id))
}

impl Comments<'_> {
    /// `comments.list`: one page of the file's comments, oldest first as Drive returns them.
    pub async fn list(&self, file_id: &str, page: ListComments<'_>) -> Result<CommentList, GoogleError> {
        let call = Call::get(Api::Drive, comments_path(file_id))
            .query("fields", format!("comments({COMMENT_FIELDS}),nextPageToken"))
            .query("pageSize", page.page_size)
            .query("includeDeleted", page.include_deleted)
            .query_opt("pageToken", page.page_token);
        self.0.json(call).await
    }

    /// `comments.create`: an unanchored comment, quoting `quoted_text` (plain text) when given.
    pub async fn create(
        &self,
        file_id: &str,
        content: &str,
        quoted_text: Option<&str>,
    ) -> Result<Comment, GoogleError> {
        let body = NewComment {
            content,
            quoted_file_content: quoted_text
                .map(|value| QuotedFileContent { mime_type: "text/plain".to_owned(), value: value.to_owned() }),
        };
        let call = Call::post(Api::Drive, comments_path(file_id)).query("fields", COMMENT_FIELDS).json(&body);
        self.0.json(call).await
    }

    /// `replies.create`: a reply to a comment; `action` `resolve` or `reopen` also resolves or reopens it
    /// (the content may then be empty).
    pub async fn reply(
        &self,
        file_id: &str,
        comment_id: &str,
        content: &str,
        action: Option<&str>,
    ) -> Result<Reply, GoogleError> {
        let path = format!("{}/{}/replies", comments_path(file_id), segment(comment_id));
        let call = Call::post(Api::Drive, path).query("fields", REPLY_FIELDS).json(&NewReply { content, action });
        self.0.json(call).await
    }
}
