//! The one place Drive and the Sheets and Docs emulators (which hold the content of Google-native files)
//! meet: Drive's export, copy, delete, conversion on upload and full-text search reach into the content
//! stores; Sheets and Docs check the caller's Drive role here and tell Drive (and Drive Activity) what they
//! created, edited and renamed.

use serde_json::Value;

use super::{DOCUMENT, File, Role, SPREADSHEET};
use crate::activity::{Action, CreateKind};
use crate::errors::ApiError;
use crate::state::{Identity, World};

const PRESENTATION: &str = crate::slides::MIME_TYPE;

/// What a Sheets or Docs call does to the file it addresses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Access {
    /// Any role (reader, commenter and up).
    Read,
    /// Writer and up.
    Write,
}

impl World {
    /// The access check of every Sheets and Docs call that addresses a spreadsheet or document, as Google
    /// makes it from the caller's Drive role on the file: no role, or less than `writer` for a write, is
    /// 403 `PERMISSION_DENIED` "The caller does not have permission"; an id no store knows is 404
    /// "Requested entity was not found.". Content put into a store without a Drive entry (test-only
    /// `insert_with_*`) is open to every caller.
    pub(crate) fn require_native_access(&self, id: &str, who: &Identity, access: Access) -> Result<(), ApiError> {
        if !self.drive.contains(id) {
            return if self.sheets.contains(id) || self.docs.contains(id) || self.slides.contains(id) {
                Ok(())
            } else {
                Err(ApiError::not_found())
            };
        }
        let needed = match access {
            Access::Read => Role::Reader,
            Access::Write => Role::Writer,
        };
        match self.drive.role_of(id, who) {
            Some(role) if role >= needed => Ok(()),
            _ => Err(ApiError::forbidden()),
        }
    }

    /// A spreadsheet or document `who` created through Sheets or Docs: registered in their My Drive, and
    /// its creation recorded in Drive Activity.
    pub(crate) fn native_created(&mut self, id: &str, title: &str, mime_type: &str, who: &Identity) {
        self.drive.insert_native_file(id, title, mime_type, who);
        self.record_revision(id);
        super::record(self, who, id, Action::Create(CreateKind::New));
    }

    /// A Sheets or Docs edit by `who`: Drive's file moves on (`modifiedTime`, `lastModifyingUser`,
    /// `version`) and Drive Activity records an edit.
    pub(crate) fn native_edited(&mut self, id: &str, who: &Identity) {
        self.drive.touch_native_file(id, who);
        self.record_revision(id);
        super::record(self, who, id, Action::Edit);
    }

    /// A title changed through Sheets or Docs: Drive's name follows, and Drive Activity records a rename.
    pub(crate) fn native_renamed(&mut self, id: &str, title: &str, who: &Identity) {
        let Some(old_title) = self.drive.get(id).map(|f| f.name.clone()) else {
            return;
        };
        if old_title == title {
            return;
        }
        self.drive.rename_native_file(id, title);
        let action = Action::Rename { old_title, new_title: title.to_owned() };
        super::record(self, who, id, action);
    }
}

const DOC_EXPORTS: &[(&str, &str)] = &[
    ("application/rtf", "rtf"),
    ("application/vnd.oasis.opendocument.text", "odt"),
    ("text/html", "html"),
    ("application/pdf", "pdf"),
    ("application/epub+zip", "epub"),
    ("application/zip", "zip"),
    ("application/vnd.openxmlformats-officedocument.wordprocessingml.document", "docx"),
    ("text/plain", "txt"),
    ("text/markdown", "md"),
];

const SHEET_EXPORTS: &[(&str, &str)] = &[
    ("application/x-vnd.oasis.opendocument.spreadsheet", "ods"),
    ("application/vnd.oasis.opendocument.spreadsheet", "ods"),
    ("text/tab-separated-values", "tsv"),
    ("application/pdf", "pdf"),
    ("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", "xlsx"),
    ("text/csv", "csv"),
    ("application/zip", "zip"),
];

const SLIDES_EXPORTS: &[(&str, &str)] = &[
    ("application/vnd.oasis.opendocument.presentation", "odp"),
    ("application/pdf", "pdf"),
    ("application/vnd.openxmlformats-officedocument.presentationml.presentation", "pptx"),
    ("text/plain", "txt"),
    ("image/jpeg", "jpg"),
    ("image/png", "png"),
    ("image/svg+xml", "svg"),
];

const DRAWING_EXPORTS: &[(&str, &str)] =
    &[("image/svg+xml", "svg"), ("image/png", "png"), ("application/pdf", "pdf"), ("image/jpeg", "jpg")];

/// The export targets (MIME type, extension) of a Docs Editors type, as `about.exportFormats` lists them.
pub(crate) fn export_formats(mime_type: &str) -> Option<&'static [(&'static str, &'static str)]> {
    match mime_type {
        DOCUMENT => Some(DOC_EXPORTS),
        SPREADSHEET => Some(SHEET_EXPORTS),
        PRESENTATION => Some(SLIDES_EXPORTS),
        "application/vnd.google-apps.drawing" => Some(DRAWING_EXPORTS),
        "application/vnd.google-apps.script" => Some(&[("application/vnd.google-apps.script+json", "json")]),
        _ => None,
    }
}

/// The exported bytes of a native file, or `None` when the content store cannot produce that format.
pub(crate) fn export(world: &World, file: &File, mime: &str) -> Option<Vec<u8>> {
    match file.mime_type.as_str() {
        SPREADSHEET => world.sheets.export(&file.id, mime),
        DOCUMENT => world.docs.export(&file.id, mime),
        PRESENTATION if mime == "text/plain" => world.slides.plain_text(&file.id).map(String::into_bytes),
        _ => None,
    }
}

/// The text `fullText contains` searches in a native file.
pub(crate) fn full_text(world: &World, file: &File) -> Option<String> {
    match file.mime_type.as_str() {
        SPREADSHEET => world.sheets.export(&file.id, "text/csv").map(|b| String::from_utf8_lossy(&b).into_owned()),
        DOCUMENT => world.docs.plain_text(&file.id),
        PRESENTATION => world.slides.plain_text(&file.id),
        _ => None,
    }
}

/// Deletes the content of a native file that Drive deleted for good.
pub(crate) fn remove(world: &mut World, id: &str, mime: &str) {
    match mime {
        SPREADSHEET => world.sheets.remove(id),
        DOCUMENT => world.docs.remove(id),
        PRESENTATION => world.slides.remove(id),
        _ => {}
    }
}

/// Renames the content of a native file after a Drive rename.
pub(crate) fn rename(world: &mut World, id: &str, mime: &str, title: &str) {
    match mime {
        SPREADSHEET => {
            world.sheets.rename(id, title);
        }
        DOCUMENT => {
            world.docs.rename(id, title);
        }
        PRESENTATION => {
            world.slides.rename(id, title);
        }
        _ => {}
    }
}

/// Copies the content of a native file to `new_id`; false when the content store does not know `from`.
pub(crate) fn copy(world: &mut World, from: &str, new_id: &str, title: &str, mime: &str) -> bool {
    match mime {
        SPREADSHEET => world.sheets.copy(from, new_id, title),
        DOCUMENT => world.docs.copy(from, new_id, title),
        PRESENTATION => world.slides.copy(from, new_id, title),
        _ => false,
    }
}

/// Creates a spreadsheet with one sheet of `rows`, registered in Drive in `owner`'s My Drive; its id.
pub(crate) fn create_spreadsheet(world: &mut World, title: &str, rows: Vec<Vec<String>>, owner: &Identity) -> String {
    let rows: Vec<Vec<Value>> = rows.into_iter().map(|row| row.into_iter().map(Value::String).collect()).collect();
    let sheets: Vec<(&str, Vec<Vec<Value>>)> = if rows.is_empty() { Vec::new() } else { vec![("Sheet1", rows)] };
    world.create_spreadsheet(title, &sheets, owner)
}

/// Creates a document holding `text`, registered in Drive in `owner`'s My Drive; its id.
pub(crate) fn create_document(world: &mut World, title: &str, text: &str, owner: &Identity) -> String {
    world.create_document(title, text, owner)
}

/// The text of an HTML upload converted into a document: tags dropped, block ends as line breaks,
/// the common entities decoded.
pub(crate) fn html_text(html: &str) -> String {
    let mut out = String::new();
    let mut rest = html;
    while let Some(open) = rest.find('<') {
        out.push_str(&rest[..open]);
        let Some(close) = rest[open..].find('>') else {
            rest = "";
            break;
        };
        let tag = rest[open + 1..open + close].trim().to_ascii_lowercase();
        let name =
            tag.trim_start_matches('/').split(|c: char| c.is_whitespace() || c == '/').next().unwrap_or_default();
        if tag.starts_with('/') && matches!(name, "p" | "div" | "h1" | "h2" | "h3" | "h4" | "h5" | "h6" | "li" | "tr")
            || name == "br"
        {
            out.push('\n');
        }
        rest = &rest[open + close + 1..];
    }
    out.push_str(rest);
    out.replace("&nbsp;", " ").replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"").replace("&amp;", "&")
}

/// Splits CSV (or TSV) text into rows, honouring quoted fields.
pub(crate) fn parse_delimited(text: &str, separator: char) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    let mut row = Vec::new();
    let mut field = String::new();
    let mut quoted = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if quoted {
            match c {
                '"' if chars.peek() == Some(&'"') => {
                    field.push('"');
                    chars.next();
                }
                '"' => quoted = false,
                other => field.push(other),
            }
            continue;
        }
        match c {
            '"' if field.is_empty() => quoted = true,
            '\r' => {}
            '\n' => {
                row.push(std::mem::take(&mut field));
                rows.push(std::mem::take(&mut row));
            }
            c if c == separator => row.push(std::mem::take(&mut field)),
            other => field.push(other),
        }
    }
    if !field.is_empty() || !row.is_empty() {
        row.push(field);
        rows.push(row);
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::parse_delimited;

    #[test]
    fn csv_rows_keep_quoted_commas_and_quotes() {
        let rows = parse_delimited("a,b\r\n\"x, y\",\"say \"\"hi\"\"\"\n", ',');
        assert_eq!(rows, vec![vec!["a", "b"], vec!["x, y", "say \"hi\""]]);
    }
}
