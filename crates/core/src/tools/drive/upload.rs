//! Putting content into Drive: `upload_file` from text the assistant has, `upload_local_file` from a file
//! on the person's disk (inside the allowed folders). Both can ask Drive to convert into a Google file.

use std::path::Path;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::approval::evaluator::Evaluator;
use crate::catalog::Effect;
use crate::drive_query::Query;
use crate::google::drive::{Corpora, File, ListRequest, mime};
use crate::limits::local_files::LocalPathError;

use super::super::registry::{Limitation, Service, ToolDef, ToolMeta};
use super::super::{ToolContext, ToolError};
use super::{file_json, folder_or_default, metadata, parents};

pub(super) const UPLOAD_FIELDS: &str = "id,name,mimeType,size,parents,webViewLink";

pub(super) fn tools() -> Vec<ToolDef> {
    vec![
        ToolDef::evaluated(
            ToolMeta::write(
                Service::Drive,
                "upload_file",
                "Upload file",
                "Create a Drive file from text content; convert_to_doc makes it a Google Doc (Markdown becomes real formatting).",
                Effect { destructive: false, idempotent: false },
            )
            .failing_for(&[Limitation::NoDriveStorageQuota]),
            upload_file,
            // Without folder_id it goes to DRIVE_FOLDER_ID or My Drive: no folder constraint then.
            [Evaluator::folder_or_default(|a: &UploadFileArgs| a.folder_id.as_deref())],
        )
        .worded(super::said::upload_file),
        ToolDef::evaluated(
            ToolMeta::write(
                Service::Drive,
                "upload_local_file",
                "Upload local file",
                "Upload a file from the computer (inside the export folder or an allowed folder) into a Drive folder.",
                Effect { destructive: false, idempotent: false },
            )
            .failing_for(&[Limitation::NoDriveStorageQuota]),
            upload_local_file,
            [Evaluator::folder(|a: &UploadLocalFileArgs| &a.parent_folder_id)],
        )
        .worded(super::said::upload_local_file),
    ]
}

/// `source_format` names → the MIME type of the content.
const SOURCE_FORMATS: &[(&str, &str)] = &[
    ("text", "text/plain"),
    ("txt", "text/plain"),
    ("markdown", "text/markdown"),
    ("md", "text/markdown"),
    ("csv", "text/csv"),
    ("tsv", "text/tab-separated-values"),
    ("html", "text/html"),
    ("json", "application/json"),
    ("xml", "application/xml"),
    ("rtf", "application/rtf"),
];

/// Content types Drive can turn into a Google Doc (its `importFormats` for documents).
const TO_DOC: &[&str] = &["text/plain", "text/markdown", "text/html", "application/rtf"];

fn text_default() -> String {
    "text".to_owned()
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UploadFileArgs {
    /// The new file's name (e.g. notes.md).
    pub name: String,
    /// The file's content, as text.
    pub content: String,
    /// What the content is: text, markdown, csv, tsv, html, json, xml or rtf.
    #[serde(default = "text_default")]
    pub source_format: String,
    /// The folder to put it in (default: DRIVE_FOLDER_ID if set, else the top of My Drive).
    #[serde(default)]
    pub folder_id: Option<String>,
    /// Convert into a Google Doc (from text, markdown, html or rtf).
    #[serde(default)]
    pub convert_to_doc: bool,
}

pub(super) fn upload_json(file: &File, bytes: usize, converted: bool) -> Value {
    let mut out = file_json(file);
    out["bytes_uploaded"] = json!(bytes);
    out["converted"] = json!(converted);
    out
}

async fn upload_file(ctx: ToolContext, args: UploadFileArgs) -> Result<Value, ToolError> {
    if args.name.trim().is_empty() {
        return Err(ToolError::invalid("name is empty: give the new file a name."));
    }
    let format = args.source_format.trim();
    let content_type =
        SOURCE_FORMATS.iter().find(|(name, _)| name.eq_ignore_ascii_case(format)).map(|(_, m)| *m).ok_or_else(
            || {
                let names: Vec<&str> = SOURCE_FORMATS.iter().map(|(name, _)| *name).collect();
                ToolError::invalid(format!(
                    "source_format {format:?} is not one Gatehouse knows. Use one of: {}.",
                    names.join(", ")
                ))
            },
        )?;
    if args.convert_to_doc && !TO_DOC.contains(&content_type) {
        return Err(ToolError::invalid(format!(
            "Drive cannot turn {format} into a Google Doc; it can from text, markdown, html or rtf. Upload with convert_to_doc=false, or use create_spreadsheet for tables."
        )));
    }
    let folder = folder_or_default(&ctx, args.folder_id);
    // The file's type is set in the metadata: the Google type to convert into, or the content's own
    // (the media part's charset parameter must not become part of the file's type).
    let file_type = if args.convert_to_doc { mime::DOCUMENT } else { content_type };
    let body = metadata(&[
        ("name", json!(args.name)),
        ("mimeType", json!(file_type)),
        ("parents", parents(folder.as_deref())),
    ]);
    let media_type = format!("{content_type}; charset=UTF-8");
    let file = ctx.google.drive().upload_any(&body, &media_type, args.content.as_bytes(), UPLOAD_FIELDS).await?;
    Ok(upload_json(&file, args.content.len(), args.convert_to_doc))
}

/// File extensions → (MIME type, the Google type `convert` turns it into).
const EXTENSIONS: &[(&str, &str, Option<&str>)] = &[
    ("txt", "text/plain", Some(mime::DOCUMENT)),
    ("md", "text/markdown", Some(mime::DOCUMENT)),
    ("markdown", "text/markdown", Some(mime::DOCUMENT)),
    ("html", "text/html", Some(mime::DOCUMENT)),
    ("htm", "text/html", Some(mime::DOCUMENT)),
    ("rtf", "application/rtf", Some(mime::DOCUMENT)),
    ("doc", "application/msword", Some(mime::DOCUMENT)),
    ("docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document", Some(mime::DOCUMENT)),
    ("odt", "application/vnd.oasis.opendocument.text", Some(mime::DOCUMENT)),
    ("csv", "text/csv", Some(mime::SPREADSHEET)),
    ("tsv", "text/tab-separated-values", Some(mime::SPREADSHEET)),
    ("xls", "application/vnd.ms-excel", Some(mime::SPREADSHEET)),
    ("xlsx", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", Some(mime::SPREADSHEET)),
    ("ods", "application/vnd.oasis.opendocument.spreadsheet", Some(mime::SPREADSHEET)),
    ("ppt", "application/vnd.ms-powerpoint", Some(mime::PRESENTATION)),
    ("pptx", "application/vnd.openxmlformats-officedocument.presentationml.presentation", Some(mime::PRESENTATION)),
    ("odp", "application/vnd.oasis.opendocument.presentation", Some(mime::PRESENTATION)),
    ("pdf", "application/pdf", None),
    ("json", "application/json", None),
    ("xml", "application/xml", None),
    ("png", "image/png", None),
    ("jpg", "image/jpeg", None),
    ("jpeg", "image/jpeg", None),
    ("gif", "image/gif", None),
    ("svg", "image/svg+xml", None),
    ("zip", "application/zip", None),
];

/// The MIME type and conversion target of a file, from its extension.
pub(crate) fn by_extension(path: &Path) -> (&'static str, Option<&'static str>) {
    let extension = path.extension().and_then(|e| e.to_str()).unwrap_or_default();
    EXTENSIONS
        .iter()
        .find(|(ext, _, _)| ext.eq_ignore_ascii_case(extension))
        .map_or(("application/octet-stream", None), |(_, m, to)| (*m, *to))
}

/// The name a local file takes in Drive: its file name; converted files take it without the extension, as
/// Drive's own upload does.
pub(super) fn drive_name(path: &Path, converted: bool) -> String {
    let file_name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    if converted { path.file_stem().map(|n| n.to_string_lossy().into_owned()).unwrap_or(file_name) } else { file_name }
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UploadLocalFileArgs {
    /// The file to upload (relative paths are inside the export folder).
    pub local_path: String,
    /// The Drive folder to put it in.
    pub parent_folder_id: String,
    /// The name in Drive (default: the file's name; without its extension when converting).
    #[serde(default)]
    pub name: Option<String>,
    /// Do nothing when the folder already has a file of that name.
    #[serde(default = "crate::tools::schema::default_true")]
    pub skip_if_exists: bool,
    /// Convert into a Google Doc, Sheet or Slides file (from Office, OpenDocument, text, csv, html files).
    #[serde(default)]
    pub convert: bool,
}

async fn upload_local_file(ctx: ToolContext, args: UploadLocalFileArgs) -> Result<Value, ToolError> {
    let path = ctx.local.allowed(&args.local_path)?;
    let io = |e: std::io::Error| LocalPathError::Io { path: path.display().to_string(), detail: e.to_string() };
    if !tokio::fs::metadata(&path).await.map_err(io)?.is_file() {
        return Err(ToolError::invalid(format!(
            "{} is not a file. Give the path of one file to upload.",
            path.display()
        )));
    }
    let (content_type, convertible) = by_extension(&path);
    let target = match (args.convert, convertible) {
        (false, _) => None,
        (true, Some(target)) => Some(target),
        (true, None) => {
            return Err(ToolError::invalid(format!(
                "Drive cannot convert {} into a Google file; it converts Office, OpenDocument, text, csv and html files. Upload with convert=false.",
                path.display()
            )));
        }
    };
    let name = match args.name.filter(|n| !n.trim().is_empty()) {
        Some(name) => name,
        None => drive_name(&path, target.is_some()),
    };
    if args.skip_if_exists {
        let q = Query::new().and_name_equals(&name).and_in_parents(&args.parent_folder_id).and_not_trashed().render();
        let request = ListRequest {
            q: &q,
            fields: &format!("files({UPLOAD_FIELDS})"),
            page_size: 1,
            page_token: None,
            order_by: None,
            corpora: Corpora::AllDrives,
        };
        if let Some(existing) = ctx.google.drive().list(&request).await?.files.into_iter().next() {
            let mut out = file_json(&existing);
            out["skipped"] = json!(true);
            out["message"] = json!(format!(
                "The folder already has a file named {name:?}, so nothing was uploaded. Pass skip_if_exists=false to upload another copy."
            ));
            return Ok(out);
        }
    }
    let content = tokio::fs::read(&path).await.map_err(io)?;
    let file_type = target.unwrap_or(content_type);
    let body =
        metadata(&[("name", json!(name)), ("mimeType", json!(file_type)), ("parents", json!([args.parent_folder_id]))]);
    let file = ctx.google.drive().upload_any(&body, content_type, &content, UPLOAD_FIELDS).await?;
    let mut out = upload_json(&file, content.len(), target.is_some());
    out["local_path"] = json!(path.display().to_string());
    out["skipped"] = json!(false);
    Ok(out)
}
