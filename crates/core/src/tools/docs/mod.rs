//! Google Docs tools: create a document from Markdown or text, read it (text, Markdown, structure,
//! search), edit it by index, and comment on it.
//!
//! Every index is a Docs index: UTF-16 code units from the start of the body (which starts at 1), the
//! same numbers `get_doc_structure` and `find_in_doc` report and `documents.batchUpdate` takes.

mod autolink;
mod breaks;
mod bullets;
mod comments;
mod create;
mod edit;
mod find;
mod from_file;
mod headers;
mod images;
mod named_ranges;
mod named_styles;
mod read;
mod resolve;
mod said;
mod styles;
mod tables;
mod theme;
mod write;

/// Emptying a document's body, for the tools outside Docs that replace one (sync's Markdown).
pub(crate) use write::{body_end, clearing_requests};

use serde_json::Value;

use super::google_mcp::McpRoute;
use crate::catalog::Effect;
use crate::google::mcp::Product;

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
                "Create a Google Doc, optionally with content in HTML (the default), Markdown or plain text: headings, bold, italic, underline (HTML), strikethrough, links, lists, code and tables become real Docs formatting; returns its id and URL.",
                Effect { destructive: false, idempotent: false },
            )
            .failing_for(&[Limitation::NoDriveStorageQuota]),
            create::create_doc,
            // Without folder_id it goes to the configured folder or My Drive: no folder constraint then.
            [Evaluator::folder_or_default(|a: &create::CreateDocArgs| a.folder_id.as_deref())],
        )
        .worded(said::create_doc),
        ToolDef::evaluated(
            ToolMeta::write(
                Service::Docs,
                "create_doc_from_file",
                "Create document from file",
                "Create a Google Doc from a local .md, .markdown, .txt, .html or .htm file (inside the export folder or an allowed folder), converted as create_doc converts content.",
                Effect { destructive: false, idempotent: false },
            )
            .failing_for(&[Limitation::NoDriveStorageQuota]),
            from_file::create_doc_from_file,
            [Evaluator::folder_or_default(|a: &from_file::CreateDocFromFileArgs| a.folder_id.as_deref())],
        )
        .worded(said::create_doc_from_file),
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
        )
        .on_google_mcp(McpRoute {
            product: Product::Docs,
            tool: "read_doc",
            arguments: read::get_doc_content_on_mcp,
            result: read::get_doc_content_from_mcp,
        }),
        ToolDef::evaluated(
            ToolMeta::write(
                Service::Docs,
                "write_doc_content",
                "Replace document content",
                "Replace a Google Doc's whole body with HTML, Markdown or plain text in one atomic update, after saving a backup copy of the document (unless allow_no_backup).",
                Effect { destructive: true, idempotent: false },
            )
            // The backup copy takes storage: without allow_no_backup a service account is refused.
            .failing_for(&[Limitation::NoDriveStorageQuota]),
            write::write_doc_content,
            [Evaluator::document(|a: &write::WriteDocContentArgs| &a.doc_id)],
        )
        .worded(said::write_doc_content),
        ToolDef::evaluated(
            ToolMeta::write(
                Service::Docs,
                "update_doc_from_file",
                "Replace document from file",
                "Replace a Google Doc's whole body with a local .md, .txt or .html file's content, after saving a backup copy of the document (unless allow_no_backup).",
                Effect { destructive: true, idempotent: false },
            )
            // The backup copy takes storage: without allow_no_backup a service account is refused.
            .failing_for(&[Limitation::NoDriveStorageQuota]),
            from_file::update_doc_from_file,
            [Evaluator::document(|a: &from_file::UpdateDocFromFileArgs| &a.doc_id)],
        )
        .worded(said::update_doc_from_file),
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
        )
        .on_google_mcp(McpRoute {
            product: Product::Docs,
            tool: "read_doc",
            arguments: read::get_doc_structure_on_mcp,
            result: read::get_doc_structure_from_mcp,
        }),
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
                Effect { destructive: false, idempotent: false },
            ),
            edit::insert_doc_text,
            [Evaluator::document(|a: &edit::InsertDocTextArgs| &a.doc_id)],
        )
        .worded(said::insert_doc_text),
        ToolDef::evaluated(
            ToolMeta::write(
                Service::Docs,
                "delete_doc_range",
                "Delete text",
                "Delete one or more index ranges of a Google Doc in one atomic update; indexes refer to the document before any of these deletions.",
                Effect { destructive: true, idempotent: false },
            ),
            edit::delete_doc_range,
            [Evaluator::document(|a: &edit::DeleteDocRangeArgs| &a.doc_id)],
        )
        .worded(said::delete_doc_range),
        ToolDef::evaluated(
            ToolMeta::write(
                Service::Docs,
                "insert_page_break",
                "Insert page break",
                "Insert a page break (followed by a new paragraph) at an index of a Google Doc.",
                Effect { destructive: false, idempotent: false },
            ),
            breaks::insert_page_break,
            [Evaluator::document(|a: &breaks::InsertPageBreakArgs| &a.doc_id)],
        )
        .worded(said::insert_page_break),
        ToolDef::evaluated(
            ToolMeta::write(
                Service::Docs,
                "insert_softbreak_paragraph",
                "Insert multi-line paragraph",
                "Insert one paragraph whose lines are separated by soft line breaks (Shift+Enter) at the start of a paragraph of a Google Doc, with a named style.",
                Effect { destructive: false, idempotent: false },
            ),
            breaks::insert_softbreak_paragraph,
            [Evaluator::document(|a: &breaks::InsertSoftbreakParagraphArgs| &a.doc_id)],
        )
        .worded(said::insert_softbreak_paragraph),
        ToolDef::evaluated(
            ToolMeta::write(
                Service::Docs,
                "insert_inline_image",
                "Insert image",
                "Insert a PNG, JPEG or GIF image at an index of a Google Doc, from a public URL or a Drive file (shared by link only while Google fetches it, then unshared).",
                Effect { destructive: false, idempotent: false },
            ),
            images::insert_inline_image,
            [Evaluator::document(|a: &images::InsertInlineImageArgs| &a.doc_id)],
        )
        .worded(said::insert_inline_image),
        ToolDef::evaluated(
            ToolMeta::write(
                Service::Docs,
                "insert_local_images",
                "Insert local images",
                "Upload images from the computer to Drive and insert them at indexes of a Google Doc in one update; their temporary link sharing is removed afterwards unless revoke_sharing=false.",
                Effect { destructive: false, idempotent: false },
            )
            .with_scope(Scope::Drive)
            .failing_for(&[Limitation::NoDriveStorageQuota]),
            images::insert_local_images,
            // Without folder_id the uploads go to DRIVE_FOLDER_ID or My Drive: no folder constraint then.
            [
                Evaluator::document(|a: &images::InsertLocalImagesArgs| &a.doc_id),
                Evaluator::folder_or_default(|a: &images::InsertLocalImagesArgs| a.folder_id.as_deref()),
            ],
        )
        .worded(said::insert_local_images),
        ToolDef::evaluated(
            ToolMeta::write(
                Service::Docs,
                "insert_doc_table",
                "Insert table",
                "Insert an empty table with the given rows and columns at an index of a Google Doc; the table starts at index + 1.",
                Effect { destructive: false, idempotent: false },
            ),
            tables::insert_doc_table,
            [Evaluator::document(|a: &tables::InsertDocTableArgs| &a.doc_id)],
        )
        .worded(said::insert_doc_table),
        ToolDef::evaluated(
            ToolMeta::write(
                Service::Docs,
                "insert_table_row",
                "Insert table row",
                "Insert an empty row above or below a row of a table in a Google Doc.",
                Effect { destructive: false, idempotent: false },
            ),
            tables::insert_table_row,
            [Evaluator::document(|a: &tables::InsertTableRowArgs| &a.doc_id)],
        )
        .worded(said::insert_table_row),
        ToolDef::evaluated(
            ToolMeta::write(
                Service::Docs,
                "delete_table_row",
                "Delete table row",
                "Delete a row of a table in a Google Doc, with its content.",
                Effect { destructive: true, idempotent: false },
            ),
            tables::delete_table_row,
            [Evaluator::document(|a: &tables::DeleteTableRowArgs| &a.doc_id)],
        )
        .worded(said::delete_table_row),
        ToolDef::evaluated(
            ToolMeta::write(
                Service::Docs,
                "insert_table_column",
                "Insert table column",
                "Insert an empty column left or right of a column of a table in a Google Doc.",
                Effect { destructive: false, idempotent: false },
            ),
            tables::insert_table_column,
            [Evaluator::document(|a: &tables::InsertTableColumnArgs| &a.doc_id)],
        )
        .worded(said::insert_table_column),
        ToolDef::evaluated(
            ToolMeta::write(
                Service::Docs,
                "delete_table_column",
                "Delete table column",
                "Delete a column of a table in a Google Doc, with its content.",
                Effect { destructive: true, idempotent: false },
            ),
            tables::delete_table_column,
            [Evaluator::document(|a: &tables::DeleteTableColumnArgs| &a.doc_id)],
        )
        .worded(said::delete_table_column),
        ToolDef::evaluated(
            ToolMeta::write(
                Service::Docs,
                "merge_table_cells",
                "Merge table cells",
                "Merge a block of cells of a table in a Google Doc into one; their text moves into the top-left cell.",
                Effect { destructive: false, idempotent: false },
            ),
            tables::merge_table_cells,
            [Evaluator::document(|a: &tables::MergeTableCellsArgs| &a.doc_id)],
        )
        .worded(said::merge_table_cells),
        ToolDef::evaluated(
            ToolMeta::write(
                Service::Docs,
                "style_doc_table_cells",
                "Style table cells",
                "Set the background colour, vertical alignment or padding of cells of a table in a Google Doc.",
                Effect { destructive: false, idempotent: false },
            ),
            tables::style_doc_table_cells,
            [Evaluator::document(|a: &tables::StyleDocTableCellsArgs| &a.doc_id)],
        )
        .worded(said::style_doc_table_cells),
        ToolDef::evaluated(
            ToolMeta::write(
                Service::Docs,
                "style_doc_range",
                "Style text",
                "Set text styles (bold, italic, size, font, colours, link) and paragraph styles (named style, alignment) on index ranges of a Google Doc in one atomic update.",
                Effect { destructive: false, idempotent: false },
            ),
            styles::style_doc_range,
            [Evaluator::document(|a: &styles::StyleDocRangeArgs| &a.doc_id)],
        )
        .worded(said::style_doc_range),
        ToolDef::evaluated(
            ToolMeta::write(
                Service::Docs,
                "create_paragraph_bullets",
                "Add bullets",
                "Turn the paragraphs that index ranges of a Google Doc touch into bulleted or numbered list items; leading tabs set the nesting level.",
                Effect { destructive: false, idempotent: false },
            ),
            bullets::create_paragraph_bullets,
            [Evaluator::document(|a: &bullets::CreateParagraphBulletsArgs| &a.doc_id)],
        )
        .worded(said::create_paragraph_bullets),
        ToolDef::evaluated(
            ToolMeta::write(
                Service::Docs,
                "delete_paragraph_bullets",
                "Remove bullets",
                "Remove the bullets or numbers from the paragraphs that index ranges of a Google Doc touch.",
                Effect { destructive: false, idempotent: false },
            ),
            bullets::delete_paragraph_bullets,
            [Evaluator::document(|a: &bullets::DeleteParagraphBulletsArgs| &a.doc_id)],
        )
        .worded(said::delete_paragraph_bullets),
        ToolDef::new(
            ToolMeta::read(
                Service::Docs,
                "get_doc_named_styles",
                "Document named styles",
                "Read a Google Doc's named paragraph styles (Normal text, Title, Subtitle, Heading 1-6): fonts, sizes, colours and spacing.",
                // At most nine styles of a few fields each, whatever the document holds.
                Cap::Fixed,
            ),
            named_styles::get_doc_named_styles,
        ),
        ToolDef::new(
            ToolMeta::read(
                Service::Docs,
                "get_doc_theme",
                "Document theme",
                "Read a Google Doc's theme: the font, size, bold, italic and colour of each named style, in the shape apply_theme takes.",
                // Nine named styles of five fields each, whatever the document holds.
                Cap::Fixed,
            ),
            theme::get_doc_theme,
        ),
        ToolDef::evaluated(
            ToolMeta::write(
                Service::Docs,
                "apply_theme",
                "Apply theme",
                "Set the font, size, bold, italic or colour of named styles (Normal text, Title, Headings) of a Google Doc; paragraphs using them follow.",
                Effect { destructive: false, idempotent: false },
            ),
            theme::apply_theme,
            [Evaluator::document(|a: &theme::ApplyThemeArgs| &a.doc_id)],
        )
        .worded(said::apply_theme),
        ToolDef::evaluated(
            ToolMeta::write(
                Service::Docs,
                "create_header",
                "Add header",
                "Add the default header (on every page) to a Google Doc, optionally with text; fails if it already has one.",
                Effect { destructive: false, idempotent: false },
            ),
            headers::create_header,
            [Evaluator::document(|a: &headers::CreateHeaderArgs| &a.doc_id)],
        )
        .worded(said::create_header),
        ToolDef::evaluated(
            ToolMeta::write(
                Service::Docs,
                "create_footer",
                "Add footer",
                "Add the default footer (on every page) to a Google Doc, optionally with text; fails if it already has one.",
                Effect { destructive: false, idempotent: false },
            ),
            headers::create_footer,
            [Evaluator::document(|a: &headers::CreateFooterArgs| &a.doc_id)],
        )
        .worded(said::create_footer),
        ToolDef::evaluated(
            ToolMeta::write(
                Service::Docs,
                "create_named_range",
                "Name a range",
                "Give a name to an index range of a Google Doc; the name stays on that text as the document is edited.",
                Effect { destructive: false, idempotent: false },
            ),
            named_ranges::create_named_range,
            [Evaluator::document(|a: &named_ranges::CreateNamedRangeArgs| &a.doc_id)],
        )
        .worded(said::create_named_range),
        ToolDef::evaluated(
            ToolMeta::write(
                Service::Docs,
                "create_bookmark",
                "Mark a place",
                "Google's API can't make a Docs bookmark; this marks the place with a named range of that name on the character at index, which stays on that text as the document is edited.",
                Effect { destructive: false, idempotent: false },
            ),
            named_ranges::create_bookmark,
            [Evaluator::document(|a: &named_ranges::CreateBookmarkArgs| &a.doc_id)],
        )
        .worded(said::create_bookmark),
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
                Effect { destructive: false, idempotent: false },
            )
            .with_scope(Scope::Drive),
            comments::add_doc_comment,
            [Evaluator::document(|a: &comments::AddDocCommentArgs| &a.doc_id)],
        )
        .worded(said::add_doc_comment),
        ToolDef::evaluated(
            ToolMeta::write(
                Service::Docs,
                "resolve_doc_comment",
                "Resolve comment",
                "Mark a comment on a Google Doc as resolved, optionally with a reply.",
                Effect { destructive: false, idempotent: false },
            )
            .with_scope(Scope::Drive),
            resolve::resolve_doc_comment,
            [Evaluator::document(|a: &resolve::ResolveDocCommentArgs| &a.doc_id)],
        )
        .worded(said::resolve_doc_comment),
        ToolDef::new(
            ToolMeta::read(
                Service::Docs,
                "get_doc_as_markdown",
                "Read document as Markdown",
                "Read a Google Doc as Markdown (headings, lists, bold, italic, strikethrough, links, code, tables), optionally followed by its comments.",
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
