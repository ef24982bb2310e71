//! Revisions: `revisions.list`, `revisions.get` (with `alt=media` for a blob's old bytes), and the export
//! links Drive hands out in a Docs Editors revision's `exportLinks`
//! (`https://docs.google.com/spreadsheets/export?id=…&revision=…&exportFormat=csv`, with `gid` for one
//! sheet, and `…/feeds/download/documents/export/Export?…`). Those links live on docs.google.com, outside
//! the Drive API and its discovery document.
//!
//! Every write of a file's content keeps a revision holding that content (a blob's bytes, or a snapshot of
//! a spreadsheet or document), so an old revision answers the old content, as on Google.

use axum::extract::Path;
use chrono::{DateTime, Utc};
use serde_json::{Map, Value, json};

use super::access::insufficient;
use super::files::bytes_response;
use super::params::{Params, invalid_page_token, new_page_token, respond};
use super::render::md5_hex;
use super::{Call, DOCUMENT, File, Role, SPREADSHEET, Store, native, permission_id, rfc3339};
use crate::call::Reply;
use crate::errors::ApiError;
use crate::state::{Identity, World};

/// Google purges a blob's revisions beyond the newest 100 (and merges a Docs Editors file's); so do we.
const MAX_REVISIONS: usize = 100;

/// What `revisions.list` and `revisions.get` answer without `fields`.
const LIST_DEFAULT: &str = "kind,nextPageToken,revisions(kind,id,mimeType,modifiedTime)";
const GET_DEFAULT: &str = "kind,id,mimeType,modifiedTime";

/// Where the export links of a revision point.
const SHEET_EXPORT_PATH: &str = "/spreadsheets/export";
const DOCUMENT_EXPORT_PATH: &str = "/feeds/download/documents/export/Export";

/// The export-link paths, for the discovery check to leave alone.
pub(crate) const EXPORT_ROUTES: [(&str, &str); 2] = [
    (SHEET_EXPORT_PATH, "docs.google.com export link of a spreadsheet revision (exportLinks)"),
    (DOCUMENT_EXPORT_PATH, "docs.google.com export link of a document revision (exportLinks)"),
];

/// A revision's content as it was written.
#[derive(Debug, Clone)]
pub enum Content {
    Bytes(Vec<u8>),
    Sheet(crate::sheets::Snapshot),
    Doc(crate::docs::Snapshot),
}

/// One version of a file's content.
#[derive(Debug, Clone)]
pub struct Revision {
    /// Its place in the file's history, from 1.
    pub number: u64,
    pub mime_type: String,
    pub modified_time: DateTime<Utc>,
    pub last_modifying_user: Option<String>,
    pub original_filename: Option<String>,
    pub content: Content,
}

impl Revision {
    /// Its id as Drive gives it: a small number for Docs Editors files, an opaque id for blobs.
    pub fn id(&self, file_id: &str) -> String {
        match self.content {
            Content::Bytes(_) => format!("0B{}{:04}", &permission_id(file_id)[..12], self.number),
            Content::Sheet(_) | Content::Doc(_) => self.number.to_string(),
        }
    }
}

impl World {
    /// Keeps the content `id` has now as its newest revision (a write just happened). Files without
    /// content (folders, shortcuts, Google types no content store holds) keep none.
    pub(crate) fn record_revision(&mut self, id: &str) {
        let Some(file) = self.drive.files.get(id) else {
            return;
        };
        let content = match file.mime_type.as_str() {
            SPREADSHEET => self.sheets.snapshot(id).map(Content::Sheet),
            DOCUMENT => self.docs.snapshot(id).map(Content::Doc),
            _ => None,
        };
        match content {
            Some(content) => self.drive.push_revision(id, content),
            None => self.drive.record_blob_revision(id),
        }
    }
}

impl Store {
    /// Keeps a blob's current bytes as its newest revision; nothing for other files.
    pub(crate) fn record_blob_revision(&mut self, id: &str) {
        let bytes = self.files.get(id).filter(|f| !f.is_google_type()).and_then(|f| f.content.clone());
        if let Some(bytes) = bytes {
            self.push_revision(id, Content::Bytes(bytes));
        }
    }

    fn push_revision(&mut self, id: &str, content: Content) {
        let Some(file) = self.files.get_mut(id) else {
            return;
        };
        let number = file.revisions.last().map_or(1, |r| r.number + 1);
        file.revisions.push(Revision {
            number,
            mime_type: file.mime_type.clone(),
            modified_time: file.modified_time,
            last_modifying_user: file.last_modifying_user.clone(),
            original_filename: file.original_filename.clone(),
            content,
        });
        if file.revisions.len() > MAX_REVISIONS {
            file.revisions.remove(0);
        }
    }

    /// A `Revision` resource, complete.
    fn revision_json(&self, file: &File, revision: &Revision, who: &Identity) -> Value {
        let id = revision.id(&file.id);
        let mut out = json!({
            "kind": "drive#revision",
            "id": id,
            "mimeType": revision.mime_type,
            "modifiedTime": rfc3339(&revision.modified_time),
        });
        if let Some(user) = &revision.last_modifying_user {
            out["lastModifyingUser"] = self.user_json(user, who);
        }
        match &revision.content {
            Content::Bytes(bytes) => {
                out["keepForever"] = json!(false);
                out["md5Checksum"] = json!(md5_hex(bytes));
                out["size"] = json!(bytes.len().to_string());
                out["originalFilename"] =
                    json!(revision.original_filename.clone().unwrap_or_else(|| file.name.clone()));
            }
            Content::Sheet(_) | Content::Doc(_) => {
                out["published"] = json!(false);
                out["publishAuto"] = json!(false);
                out["publishedOutsideDomain"] = json!(false);
                let path = if matches!(revision.content, Content::Sheet(_)) {
                    SHEET_EXPORT_PATH
                } else {
                    DOCUMENT_EXPORT_PATH
                };
                let links: Map<String, Value> = native::export_formats(&revision.mime_type)
                    .unwrap_or_default()
                    .iter()
                    .map(|(mime, ext)| {
                        let link =
                            format!("https://docs.google.com{path}?id={}&revision={id}&exportFormat={ext}", file.id);
                        ((*mime).to_owned(), json!(link))
                    })
                    .collect();
                out["exportLinks"] = Value::Object(links);
            }
        }
        out
    }
}

/// The id of the file whose revisions `who` asks for: writers and up may read them (as
/// `capabilities.canReadRevisions` says); a file without content has none to read. A file whose content
/// never went through a recorded write (seeded state) gets its first revision now.
fn open_revisions(world: &mut World, file_id: &str, who: &Identity) -> Result<String, ApiError> {
    let id = world.drive.resolve(file_id, who);
    let (file, role) = world.drive.open(&id, who, true)?;
    if role < Role::Writer {
        return Err(insufficient(&id));
    }
    let empty = file.revisions.is_empty();
    if empty {
        world.record_revision(&id);
    }
    if world.drive.file(&id)?.revisions.is_empty() {
        return Err(ApiError::legacy(403, "revisionsNotSupported", "The file does not support revisions."));
    }
    Ok(id)
}

fn revision_not_found(id: &str) -> ApiError {
    ApiError::legacy(404, "notFound", format!("Revision not found: {id}.")).at("revisionId")
}

fn find<'a>(file: &'a File, revision_id: &str) -> Result<&'a Revision, ApiError> {
    file.revisions.iter().find(|r| r.id(&file.id) == revision_id).ok_or_else(|| revision_not_found(revision_id))
}

/// `GET /drive/v3/files/{fileId}/revisions`, oldest first.
pub(crate) async fn list(Path(file_id): Path<String>, call: Call) -> Reply {
    call.run(|world, who, params| {
        let id = open_revisions(world, &file_id, &who)?;
        let size = usize::try_from(params.int("pageSize", 200, 1, 1000)?).unwrap_or(200);
        let start = params.page_token::<usize>("offset:")?.unwrap_or(0);
        let store = &world.drive;
        let file = store.file(&id)?;
        if start > file.revisions.len() {
            return Err(invalid_page_token());
        }
        let items: Vec<Value> =
            file.revisions.iter().skip(start).take(size).map(|r| store.revision_json(file, r, &who)).collect();
        let mut body = json!({ "kind": "drive#revisionList", "revisions": items });
        if start + size < file.revisions.len() {
            body["nextPageToken"] = json!(new_page_token("offset:", start + size));
        }
        respond(params, LIST_DEFAULT, "RevisionList", &body)
    })
}

/// `GET /drive/v3/files/{fileId}/revisions/{revisionId}`; `alt=media` downloads a blob revision's bytes.
pub(crate) async fn get(Path((file_id, revision_id)): Path<(String, String)>, call: Call) -> Reply {
    call.run(|world, who, params| {
        let id = open_revisions(world, &file_id, &who)?;
        let file = world.drive.file(&id)?;
        let revision = find(file, &revision_id)?;
        match params.get("alt").unwrap_or("json") {
            "json" => respond(params, GET_DEFAULT, "Revision", &world.drive.revision_json(file, revision, &who)),
            "media" => match &revision.content {
                Content::Bytes(bytes) => Ok(bytes_response(bytes.clone(), &revision.mime_type)),
                Content::Sheet(_) | Content::Doc(_) => Err(ApiError::legacy(
                    403,
                    "fileNotDownloadable",
                    "Only files with binary content can be downloaded. Use Export with Docs Editors files.",
                )
                .at("alt")),
            },
            _ => Err(ApiError::drive_invalid("alt", "Invalid Value")),
        }
    })
}

/// `GET https://docs.google.com/spreadsheets/export?id=…&revision=…&exportFormat=…[&gid=…]`.
pub(crate) async fn export_sheet(call: Call) -> Reply {
    call.run(|world, who, params| export_link(world, &who, params, SPREADSHEET))
}

/// `GET https://docs.google.com/feeds/download/documents/export/Export?id=…&revision=…&exportFormat=…`.
pub(crate) async fn export_document(call: Call) -> Reply {
    call.run(|world, who, params| export_link(world, &who, params, DOCUMENT))
}

fn required(params: &Params, name: &'static str) -> Result<String, ApiError> {
    params
        .text(name)
        .map(str::to_owned)
        .ok_or_else(|| ApiError::legacy(400, "required", format!("Required parameter: {name}")).at(name))
}

/// One revision of a Docs Editors file of type `kind`, in the format `exportFormat` names.
fn export_link(world: &mut World, who: &Identity, params: &Params, kind: &str) -> Reply {
    let (file_id, revision_id, format) =
        (required(params, "id")?, required(params, "revision")?, required(params, "exportFormat")?);
    let id = open_revisions(world, &file_id, who)?;
    let file = world.drive.file(&id)?;
    if file.mime_type != kind {
        return Err(ApiError::drive_file_not_found(&file_id));
    }
    let revision = find(file, &revision_id)?;
    let mime = native::export_formats(kind)
        .unwrap_or_default()
        .iter()
        .find(|(_, ext)| *ext == format)
        .map(|(mime, _)| *mime)
        .ok_or_else(|| {
            ApiError::legacy(400, "badRequest", "The requested conversion is not supported.").at("exportFormat")
        })?;
    let bytes = match &revision.content {
        Content::Sheet(snapshot) => {
            let index = match params.text("gid") {
                Some(gid) => gid.parse::<i64>().ok().and_then(|gid| snapshot.sheet_index(gid)).ok_or_else(|| {
                    ApiError::legacy(400, "badRequest", format!("No sheet with gid {gid}.")).at("gid")
                })?,
                None => 0,
            };
            snapshot.export(mime, index)
        }
        Content::Doc(snapshot) => snapshot.export(mime),
        Content::Bytes(_) => None,
    };
    let bytes = bytes.ok_or_else(|| {
        ApiError::legacy(501, "notImplemented", format!("The Google emulator cannot export {kind} as {mime}."))
    })?;
    Ok(bytes_response(bytes, mime))
}
