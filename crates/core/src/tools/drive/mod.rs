//! Google Drive tools: listings and searches, file housekeeping, exports/downloads/uploads, sharing and
//! activity. Every Drive call goes through [`crate::google::drive`], which sends `supportsAllDrives=true`.

mod activity;
mod download_folder;
mod drives;
mod export;
mod files;
mod list;
pub(crate) mod local_tree;
mod preview;
mod revisions;
mod said;
mod sharing;
mod shortcut;
mod star;
mod sync;
mod trash;
pub(crate) mod upload;
mod upload_folder;

use serde_json::{Map, Value, json};

use crate::google::drive::{File, mime};

use super::registry::ToolDef;
use super::{ToolContext, ToolError};

/// The Sheets-flavoured Drive listings (`list_spreadsheets`, `search_spreadsheets`), listed with Sheets.
pub fn sheets_tools() -> Vec<ToolDef> {
    list::sheets_tools()
}

/// The Drive tools, in catalogue order: each concept module's tools together, the modules in the order a
/// person meets them (find, organise, take out, put in, share, see what happened). The order is this list's:
/// a new module's tools go where they belong here, a new tool where it belongs in its module's list.
pub fn tools() -> Vec<ToolDef> {
    [
        list::tools(),
        drives::tools(),
        files::tools(),
        shortcut::tools(),
        star::tools(),
        trash::tools(),
        export::tools(),
        revisions::tools(),
        download_folder::tools(),
        sync::tools(),
        upload::tools(),
        upload_folder::tools(),
        sharing::tools(),
        activity::tools(),
    ]
    .concat()
}

/// The fields every file summary reads (see [`file_json`]).
const FILE_FIELDS: &str = "id,name,mimeType,modifiedTime,size,parents,webViewLink,owners(emailAddress)";

/// A file as the tools answer it: ids, name, type, where it is and the link to open it. Absent values are
/// left out to keep listings compact.
fn file_json(file: &File) -> Value {
    let mut out = Map::new();
    out.insert("id".into(), json!(file.id));
    out.insert("name".into(), json!(file.name));
    if !file.mime_type.is_empty() {
        out.insert("mime_type".into(), json!(file.mime_type));
    }
    if let Some(time) = &file.modified_time {
        out.insert("modified_time".into(), json!(time));
    }
    if let Some(size) = file.size_bytes() {
        out.insert("size".into(), json!(size));
    }
    if let Some(parent) = file.parents.first() {
        out.insert("folder_id".into(), json!(parent));
    }
    if let Some(owner) = file.owner_email() {
        out.insert("owner".into(), json!(owner));
    }
    if let Some(link) = &file.web_view_link {
        out.insert("url".into(), json!(link));
    }
    Value::Object(out)
}

/// The folder a tool works in: the one asked for, else `DRIVE_FOLDER_ID` when set.
fn folder_or_default(ctx: &ToolContext, folder_id: Option<String>) -> Option<String> {
    folder_id.filter(|id| !id.trim().is_empty()).or_else(|| ctx.config.drive_folder_id.clone())
}

/// Short names for the MIME types people mean, so `mime_type: "spreadsheet"` works like the full type.
const MIME_ALIASES: &[(&str, &str)] = &[
    ("folder", mime::FOLDER),
    ("document", mime::DOCUMENT),
    ("doc", mime::DOCUMENT),
    ("spreadsheet", mime::SPREADSHEET),
    ("sheet", mime::SPREADSHEET),
    ("presentation", mime::PRESENTATION),
    ("slides", mime::PRESENTATION),
    ("drawing", mime::DRAWING),
    ("form", "application/vnd.google-apps.form"),
    ("pdf", "application/pdf"),
    ("text", "text/plain"),
    ("csv", "text/csv"),
];

/// A `mime_type` argument as a full MIME type: a full type passes through, a short name is looked up.
fn mime_type_arg(value: &str) -> Result<String, ToolError> {
    let value = value.trim();
    if value.contains('/') {
        return Ok(value.to_owned());
    }
    MIME_ALIASES.iter().find(|(alias, _)| alias.eq_ignore_ascii_case(value)).map(|(_, m)| (*m).to_owned()).ok_or_else(|| {
        let names: Vec<&str> = MIME_ALIASES.iter().map(|(alias, _)| *alias).collect();
        ToolError::invalid(format!(
            "mime_type {value:?} is not a MIME type. Use a full type like application/vnd.google-apps.spreadsheet, or one of: {}.",
            names.join(", ")
        ))
    })
}

/// The folder a new file goes into, as `parents` metadata (absent: Drive's default, the top of My Drive).
fn parents(folder_id: Option<&str>) -> Value {
    match folder_id {
        Some(id) => json!([id]),
        None => Value::Null,
    }
}

/// Drive metadata from `pairs`, leaving out nulls.
fn metadata(pairs: &[(&str, Value)]) -> Value {
    Value::Object(pairs.iter().filter(|(_, v)| !v.is_null()).map(|(k, v)| ((*k).to_owned(), v.clone())).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mime_aliases_expand_and_full_types_pass() {
        assert_eq!(mime_type_arg("Spreadsheet").unwrap(), mime::SPREADSHEET);
        assert_eq!(mime_type_arg("image/png").unwrap(), "image/png");
        let error = mime_type_arg("spreadsheets please").unwrap_err().to_string();
        assert!(error.contains("folder, document"), "{error}");
    }

    #[test]
    fn metadata_drops_nulls() {
        assert_eq!(metadata(&[("name", json!("a")), ("parents", parents(None))]), json!({ "name": "a" }));
        assert_eq!(metadata(&[("parents", parents(Some("F")))]), json!({ "parents": ["F"] }));
    }
}
