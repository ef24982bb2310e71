//! Google Drive tools: listings and searches, file housekeeping, exports/downloads/uploads, sharing and
//! activity. Every Drive call goes through [`crate::google::drive`], which sends `supportsAllDrives=true`.

mod activity;
mod export;
mod files;
mod list;
mod sharing;
mod upload;

use serde_json::{Map, Value, json};

use crate::drive_query::Query;
use crate::google::drive::{Corpora, File, ListRequest, MAX_PAGE_SIZE, mime};

use super::registry::{Access, Cap, Service, ToolDef, ToolMeta};
use super::{ToolContext, ToolError};

/// The Sheets-flavoured Drive listings (`list_spreadsheets`, `search_spreadsheets`), listed with Sheets.
pub fn sheets_tools() -> Vec<ToolDef> {
    list::sheets_tools()
}

/// The Drive tools, in catalogue order.
pub fn tools() -> Vec<ToolDef> {
    let mut tools = list::tools();
    tools.extend(files::tools());
    tools.extend(export::tools());
    tools.extend(upload::tools());
    tools.extend(sharing::tools());
    tools.extend(activity::tools());
    tools
}

const fn read(name: &'static str, title: &'static str, description: &'static str, cap: Cap) -> ToolMeta {
    ToolMeta { name, title, description, service: Service::Drive, access: Access::Read, cap, local_path: false }
}

const fn write(
    name: &'static str,
    title: &'static str,
    description: &'static str,
    destructive: bool,
    idempotent: bool,
) -> ToolMeta {
    ToolMeta {
        name,
        title,
        description,
        service: Service::Drive,
        access: Access::Write { destructive, idempotent },
        cap: Cap::Fixed,
        local_path: false,
    }
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

/// A listing cut at `max_results`.
struct Listing {
    files: Vec<File>,
    /// Drive had more results than were asked for.
    more: bool,
    /// Drive did not search every drive (large shared-drive searches).
    incomplete: bool,
}

/// What one listing asks Drive for.
struct ListSpec<'a> {
    query: Query,
    /// The members of each file to fetch, e.g. [`FILE_FIELDS`].
    fields: &'a str,
    order_by: Option<&'a str>,
    corpora: Corpora,
    max_results: u32,
}

/// Runs `files.list` until `max_results` files are in hand or Drive has no more, asking each page for only
/// as many as are still wanted (Drive pages hold at most 1000).
async fn list_files(ctx: &ToolContext, spec: ListSpec<'_>) -> Result<Listing, ToolError> {
    if spec.max_results == 0 {
        return Err(ToolError::invalid("max_results must be at least 1."));
    }
    let q = spec.query.render();
    let fields = format!("nextPageToken,incompleteSearch,files({})", spec.fields);
    let mut listing = Listing { files: Vec::new(), more: false, incomplete: false };
    let mut token: Option<String> = None;
    loop {
        let wanted = spec.max_results.saturating_sub(listing.files.len() as u32);
        let request = ListRequest {
            q: &q,
            fields: &fields,
            page_size: wanted.min(MAX_PAGE_SIZE),
            page_token: token.as_deref(),
            order_by: spec.order_by,
            corpora: spec.corpora,
        };
        let page = ctx.google.drive().list(&request).await?;
        listing.incomplete |= page.incomplete_search;
        listing.files.extend(page.files);
        let max = spec.max_results as usize;
        let next = page.next_page_token.filter(|t| !t.is_empty());
        if listing.files.len() >= max || next.is_none() {
            listing.more = next.is_some() || listing.files.len() > max;
            listing.files.truncate(max);
            return Ok(listing);
        }
        token = next;
    }
}

/// A listing's answer: the files under `key`, their count, and, when there is more, a note saying how to
/// see it (these tools take no page token, so the note is the only way to know).
fn listing_json(key: &str, listing: &Listing, max_results: u32, render: impl Fn(&File) -> Value) -> Value {
    let mut out = Map::new();
    out.insert(key.into(), Value::Array(listing.files.iter().map(render).collect()));
    out.insert("count".into(), json!(listing.files.len()));
    if listing.more {
        out.insert("more_results".into(), json!(true));
        out.insert(
            "note".into(),
            json!(format!(
                "Only the first {max_results} results are shown; more exist. Raise max_results or narrow the search to see the rest."
            )),
        );
    }
    if listing.incomplete {
        out.insert(
            "incomplete_search".into(),
            json!("Drive did not search every shared drive; some matches may be missing. Narrow the search (e.g. to a folder)."),
        );
    }
    Value::Object(out)
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
