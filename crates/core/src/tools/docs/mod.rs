//! Google Docs tools: create a document from Markdown or text, read it (text, Markdown, structure,
//! search), edit it by index, and comment on it.
//!
//! Every index is a Docs index: UTF-16 code units from the start of the body (which starts at 1), the
//! same numbers `get_doc_structure` and `find_in_doc` report and `documents.batchUpdate` takes.

mod autolink;
mod comments;
mod create;
mod edit;
mod find;
mod read;

use serde_json::Value;

use super::registry::{Cap, Limitation, Scope, Service, ToolDef, ToolMeta};
use crate::approval::evaluator::Evaluator;
use crate::google::segment;

/// The Docs tools, in catalogue order. No Docs write here is idempotent: repeating an insert, delete, comment
/// or create does it again.
pub fn tools() -> Vec<ToolDef> {
    vec![
        ToolDef::evaluated(
            ToolMeta::write(
                Service::Docs,
                "create_doc",
                "Create document",
                "Create a Google Doc, optionally with content in Markdown (headings, bold, italic, links, lists become real Docs formatting) or plain text; returns its id and URL.",
                false,
                false,
            )
            .failing_for(&[Limitation::NoDriveStorageQuota]),
            create::create_doc,
            // Without folder_id it goes to the configured folder or My Drive: no folder constraint then.
            [Evaluator::folder_or_default(|a: &create::CreateDocArgs| a.folder_id.as_deref())],
        ),
        ToolDef::new(
            ToolMeta::read(
                Service::Docs,
                "get_doc_content",
                "Read document text",
                "Read a Google Doc's text as plain text.",
                Cap::Narrower,
            )
            .with_local_path()
            .cached("file_id"),
            read::get_doc_content,
        ),
        ToolDef::new(
            ToolMeta::read(
                Service::Docs,
                "get_doc_structure",
                "Document outline",
                "List a Google Doc's headings, paragraphs, list items and tables with their start and end indexes, for editing by index.",
                Cap::Narrower,
            )
            .cached("doc_id"),
            read::get_doc_structure,
        ),
        ToolDef::new(
            ToolMeta::read(
                Service::Docs,
                "find_in_doc",
                "Find in document",
                "Find text (or a regular expression) in a Google Doc and return each match's start and end index, counted as Docs counts (UTF-16).",
                Cap::Narrower,
            )
            .with_local_path()
            .cached("doc_id"),
            find::find_in_doc,
        ),
        ToolDef::evaluated(
            ToolMeta::write(
                Service::Docs,
                "insert_doc_text",
                "Insert text",
                "Insert text at one or more indexes of a Google Doc in one atomic update; indexes refer to the document before any of these insertions.",
                false,
                false,
            ),
            edit::insert_doc_text,
            [Evaluator::document(|a: &edit::InsertDocTextArgs| &a.doc_id)],
        ),
        ToolDef::evaluated(
            ToolMeta::write(
                Service::Docs,
                "delete_doc_range",
                "Delete text",
                "Delete one or more index ranges of a Google Doc in one atomic update; indexes refer to the document before any of these deletions.",
                true,
                false,
            ),
            edit::delete_doc_range,
            [Evaluator::document(|a: &edit::DeleteDocRangeArgs| &a.doc_id)],
        ),
        ToolDef::new(
            ToolMeta::read(
                Service::Docs,
                "list_doc_comments",
                "List comments",
                "List the comments on a Google Doc with their authors, the text they quote, replies and whether they are resolved.",
                Cap::Paging,
            )
            .with_scope(Scope::Drive),
            comments::list_doc_comments,
        ),
        ToolDef::evaluated(
            ToolMeta::write(
                Service::Docs,
                "add_doc_comment",
                "Add comment",
                "Add a comment to a Google Doc, optionally quoting the text it is about.",
                false,
                false,
            )
            .with_scope(Scope::Drive),
            comments::add_doc_comment,
            [Evaluator::document(|a: &comments::AddDocCommentArgs| &a.doc_id)],
        ),
        ToolDef::new(
            ToolMeta::read(
                Service::Docs,
                "get_doc_as_markdown",
                "Read document as Markdown",
                "Read a Google Doc as Markdown (headings, lists, bold, italic, links, tables), optionally followed by its comments.",
                Cap::Narrower,
            )
            .with_local_path(),
            read::get_doc_as_markdown,
        ),
    ]
}

/// The document's address in the Docs editor.
fn doc_url(document_id: &str) -> String {
    format!("https://docs.google.com/document/d/{}/edit", segment(document_id))
}

/// The `title` of a document as `documents.get` answers it.
fn title_of(doc: &Value) -> &str {
    doc.get("title").and_then(Value::as_str).unwrap_or("")
}
