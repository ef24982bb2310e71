//! What each Docs write's approval card says it will do (see [`crate::approval::sentence`]), one function
//! per tool, named after it and attached to its declaration in `docs/mod.rs` with `.worded`.

use super::{
    breaks, bullets, comments, create, edit, from_file, headers, images, named_ranges, resolve, styles, tables, theme,
    write,
};
use crate::approval::sentence::{Said, plural};

fn doc(said: Said, id: &str) -> Said {
    said.file("document", id)
}

/// "… in “Plan”", or "… in your default Drive folder".
fn into(said: Said, folder: Option<&str>) -> Said {
    match folder {
        Some(folder) => said.words("in").file("folder", folder),
        None => said.words("in your default Drive folder"),
    }
}

pub(super) fn create_doc(a: &create::CreateDocArgs) -> Said {
    let said = Said::new("create a new document").name(&a.title);
    let said = into(said, a.folder_id.as_deref());
    match &a.content {
        Some(content) => said.words(format!("with {}", plural(content.chars().count(), "character", "characters"))),
        None => said,
    }
}

pub(super) fn create_doc_from_file(a: &from_file::CreateDocFromFileArgs) -> Said {
    let said = Said::new("create a new document from the file").value(&a.local_path);
    let said = match &a.title {
        Some(title) => said.words("titled").name(title),
        None => said,
    };
    into(said, a.folder_id.as_deref())
}

pub(super) fn write_doc_content(a: &write::WriteDocContentArgs) -> Said {
    doc(Said::new("replace everything in"), &a.doc_id)
        .words(format!("with new content ({})", plural(a.content.chars().count(), "character", "characters")))
}

pub(super) fn update_doc_from_file(a: &from_file::UpdateDocFromFileArgs) -> Said {
    doc(Said::new("replace everything in"), &a.doc_id).words("with the file").value(&a.local_path)
}

/// The text an insertion or deletion entry carries, when it is one (`{"text": …}`).
fn texts(entries: &[serde_json::Value]) -> Vec<String> {
    entries.iter().filter_map(|entry| entry.get("text")?.as_str().map(|text| cut(text, 60))).collect()
}

fn cut(text: &str, max: usize) -> String {
    let mut kept: String = text.chars().take(max).collect();
    if text.chars().count() > max {
        kept.push('…');
    }
    kept
}

pub(super) fn insert_doc_text(a: &edit::InsertDocTextArgs) -> Said {
    let said =
        doc(Said::new(format!("insert text at {} in", plural(a.insertions.len(), "place", "places"))), &a.doc_id);
    match texts(&a.insertions).as_slice() {
        [only] => said.words(":").name(only.clone()),
        _ => said,
    }
}

pub(super) fn delete_doc_range(a: &edit::DeleteDocRangeArgs) -> Said {
    doc(Said::new(format!("delete {} of text from", plural(a.deletions.len(), "stretch", "stretches"))), &a.doc_id)
}

pub(super) fn insert_page_break(a: &breaks::InsertPageBreakArgs) -> Said {
    doc(Said::new("insert a page break in"), &a.doc_id)
}

pub(super) fn insert_softbreak_paragraph(a: &breaks::InsertSoftbreakParagraphArgs) -> Said {
    doc(Said::new(format!("insert a paragraph of {} in", plural(a.lines.len(), "line", "lines"))), &a.doc_id)
}

pub(super) fn insert_inline_image(a: &images::InsertInlineImageArgs) -> Said {
    let said = doc(Said::new("insert an image in"), &a.doc_id);
    match (&a.uri, &a.drive_file_id) {
        (Some(uri), _) => said.words("from").value(uri),
        (None, Some(file)) => said.words("from").file("file", file),
        (None, None) => said,
    }
}

pub(super) fn insert_local_images(a: &images::InsertLocalImagesArgs) -> Said {
    let said = doc(
        Said::new(format!("insert {} from this computer in", plural(a.images.len(), "image", "images"))),
        &a.doc_id,
    );
    match &a.folder_id {
        Some(folder) => said.words("(uploaded first into").file("folder", folder).words(")"),
        None => said.words("(uploaded to your Drive first)"),
    }
}

pub(super) fn insert_doc_table(a: &tables::InsertDocTableArgs) -> Said {
    doc(
        Said::new(format!(
            "insert a table of {} by {} in",
            plural_i(a.rows, "row", "rows"),
            plural_i(a.columns, "column", "columns")
        )),
        &a.doc_id,
    )
}

fn plural_i(n: i64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

pub(super) fn insert_table_row(a: &tables::InsertTableRowArgs) -> Said {
    doc(Said::new("add a row to a table in"), &a.doc_id)
}

pub(super) fn delete_table_row(a: &tables::DeleteTableRowArgs) -> Said {
    doc(Said::new(format!("delete row {} of a table and its text in", a.row_index.saturating_add(1))), &a.doc_id)
}

pub(super) fn insert_table_column(a: &tables::InsertTableColumnArgs) -> Said {
    doc(Said::new("add a column to a table in"), &a.doc_id)
}

pub(super) fn delete_table_column(a: &tables::DeleteTableColumnArgs) -> Said {
    doc(Said::new(format!("delete column {} of a table and its text in", a.column_index.saturating_add(1))), &a.doc_id)
}

pub(super) fn merge_table_cells(a: &tables::MergeTableCellsArgs) -> Said {
    doc(Said::new("merge cells of a table in"), &a.doc_id)
}

pub(super) fn style_doc_table_cells(a: &tables::StyleDocTableCellsArgs) -> Said {
    doc(Said::new(format!("change the look of {} of a table in", plural(a.cells.len(), "cell", "cells"))), &a.doc_id)
}

pub(super) fn style_doc_range(a: &styles::StyleDocRangeArgs) -> Said {
    doc(
        Said::new(format!("change the look of {} of text in", plural(a.ranges.len(), "stretch", "stretches"))),
        &a.doc_id,
    )
}

pub(super) fn create_paragraph_bullets(a: &bullets::CreateParagraphBulletsArgs) -> Said {
    doc(Said::new("turn paragraphs into a bulleted or numbered list in"), &a.doc_id)
}

pub(super) fn delete_paragraph_bullets(a: &bullets::DeleteParagraphBulletsArgs) -> Said {
    doc(Said::new("remove the bullets of paragraphs in"), &a.doc_id)
}

pub(super) fn apply_theme(a: &theme::ApplyThemeArgs) -> Said {
    doc(Said::new("change the fonts and colours of the styles of"), &a.doc_id)
}

pub(super) fn create_header(a: &headers::CreateHeaderArgs) -> Said {
    doc(Said::new("add a page header to"), &a.doc_id)
}

pub(super) fn create_footer(a: &headers::CreateFooterArgs) -> Said {
    doc(Said::new("add a page footer to"), &a.doc_id)
}

pub(super) fn create_named_range(a: &named_ranges::CreateNamedRangeArgs) -> Said {
    doc(Said::new("name a stretch of text").name(&a.name).words("in"), &a.doc_id)
}

pub(super) fn create_bookmark(a: &named_ranges::CreateBookmarkArgs) -> Said {
    doc(Said::new("add a bookmark").name(&a.name).words("to"), &a.doc_id)
}

pub(super) fn add_doc_comment(a: &comments::AddDocCommentArgs) -> Said {
    doc(Said::new("comment on"), &a.doc_id).words(":").name(cut(&a.content, 80))
}

pub(super) fn resolve_doc_comment(a: &resolve::ResolveDocCommentArgs) -> Said {
    let said = doc(Said::new("mark a comment in"), &a.doc_id).words("as resolved");
    match &a.reply_content {
        Some(reply) => said.words("with the reply").name(cut(reply, 80)),
        None => said,
    }
}
