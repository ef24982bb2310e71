//! Getting a file's content out: `export_file` returns text inline (capped), `download_file` saves any
//! file to the person's disk inside the allowed folders.

use std::path::PathBuf;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::approval::evaluator::Evaluator;
use crate::catalog::Effect;
use crate::google::drive::{File, mime};
use crate::limits::response_cap::precheck;

use super::super::registry::{Cap, Service, ToolDef, ToolMeta};
use super::super::{ToolContext, ToolError};

const EXPORT: ToolMeta = ToolMeta::read(
    Service::Drive,
    "export_file",
    "Export file as text",
    "Return a Google Doc, Sheet or Slides file as text (e.g. markdown, txt, csv, html), or a text file's content.",
    Cap::Download,
);

/// A write: it creates or replaces a file on the person's disk (0.9.5 calls it read-only; it is not).
const DOWNLOAD: ToolMeta = ToolMeta::write(
    Service::Drive,
    "download_file",
    "Download file",
    "Save a Drive file to the computer at local_path (inside the export folder or an allowed folder); Google files are exported first.",
    Effect { destructive: true, idempotent: true },
);

pub(super) fn tools() -> Vec<ToolDef> {
    vec![
        ToolDef::new(EXPORT, export_file),
        // Writes the person's disk, inside the allowed folders only: a grant may be limited to one Drive file.
        ToolDef::evaluated(DOWNLOAD, download_file, [Evaluator::file(|a: &DownloadFileArgs| &a.file_id)])
            .worded(super::said::download_file),
    ]
}

/// Short format names → (MIME type, file extension).
pub(super) const FORMATS: &[(&str, &str, &str)] = &[
    ("txt", "text/plain", "txt"),
    ("text", "text/plain", "txt"),
    ("md", "text/markdown", "md"),
    ("markdown", "text/markdown", "md"),
    ("html", "text/html", "html"),
    ("csv", "text/csv", "csv"),
    ("tsv", "text/tab-separated-values", "tsv"),
    ("rtf", "application/rtf", "rtf"),
    ("json", "application/vnd.google-apps.script+json", "json"),
    ("svg", "image/svg+xml", "svg"),
    ("pdf", "application/pdf", "pdf"),
    ("docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document", "docx"),
    ("xlsx", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", "xlsx"),
    ("pptx", "application/vnd.openxmlformats-officedocument.presentationml.presentation", "pptx"),
    ("odt", "application/vnd.oasis.opendocument.text", "odt"),
    ("ods", "application/vnd.oasis.opendocument.spreadsheet", "ods"),
    ("odp", "application/vnd.oasis.opendocument.presentation", "odp"),
    ("epub", "application/epub+zip", "epub"),
    ("png", "image/png", "png"),
    ("jpg", "image/jpeg", "jpg"),
    ("jpeg", "image/jpeg", "jpg"),
    ("zip", "application/zip", "zip"),
];

/// What `download_file` saves a Google file as when no `export_format` is given: the editable Office twin.
pub(super) const DOWNLOAD_DEFAULTS: &[(&str, &str)] = &[
    (mime::DOCUMENT, "docx"),
    (mime::SPREADSHEET, "xlsx"),
    (mime::PRESENTATION, "pptx"),
    (mime::DRAWING, "pdf"),
    ("application/vnd.google-apps.script", "json"),
];

pub(super) const EXPORT_FIELDS: &str = "id,name,mimeType,size,exportLinks";

/// An `export_format` argument (a short name or a MIME type) as a MIME type.
fn format_mime(format: &str) -> String {
    let format = format.trim().trim_start_matches('.');
    FORMATS
        .iter()
        .find(|(name, _, _)| name.eq_ignore_ascii_case(format))
        .map_or_else(|| format.to_owned(), |(_, m, _)| (*m).to_owned())
}

/// The short name of a MIME type, for messages and file extensions.
pub(super) fn short_name(mime_type: &str) -> Option<&'static str> {
    FORMATS.iter().find(|(_, m, _)| *m == mime_type).map(|(_, _, ext)| *ext)
}

/// Whether a MIME type is text an assistant can read inline.
pub(super) fn is_text(mime_type: &str) -> bool {
    mime_type.starts_with("text/")
        || matches!(
            mime_type,
            "application/json"
                | "application/xml"
                | "application/rtf"
                | "image/svg+xml"
                | "application/vnd.google-apps.script+json"
        )
}

/// The formats Drive offers for a Google file, by short name where there is one.
fn offered(file: &File) -> String {
    let links =
        file.export_links.as_ref().map(|l| l.keys().map(|m| short_name(m).unwrap_or(m).to_owned()).collect::<Vec<_>>());
    links.map_or_else(|| "none".to_owned(), |names| names.join(", "))
}

/// The MIME type to export a Google file to, checked against the formats Drive offers for it.
pub(super) fn export_target(file: &File, format: &str) -> Result<String, ToolError> {
    let target = format_mime(format);
    match &file.export_links {
        Some(links) if !links.contains_key(&target) => Err(ToolError::invalid(format!(
            "{:?} cannot be exported as {format}. Drive offers: {}.",
            file.name,
            offered(file)
        ))),
        _ => Ok(target),
    }
}

pub(super) fn refuse_folder(file: &File) -> Result<(), ToolError> {
    if file.is_folder() {
        return Err(ToolError::invalid(format!(
            "{:?} is a folder, which has no content of its own. Use list_files to see what is in it, then export or download the files one by one.",
            file.name
        )));
    }
    Ok(())
}

fn utf8(file: &File, bytes: Vec<u8>) -> Result<String, ToolError> {
    String::from_utf8(bytes).map_err(|_| {
        ToolError::invalid(format!(
            "{:?} is not valid UTF-8 text. Use download_file to save it to disk instead.",
            file.name
        ))
    })
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExportFileArgs {
    /// The file's id.
    pub file_id: String,
    /// The text format: txt, markdown, html, csv (first sheet only), tsv, rtf, svg, or a MIME type.
    pub export_format: String,
}

async fn export_file(ctx: ToolContext, args: ExportFileArgs) -> Result<Value, ToolError> {
    let drive = ctx.google.drive();
    let file = drive.get(&args.file_id, EXPORT_FIELDS).await?;
    refuse_folder(&file)?;
    let binary = |format: &str| {
        ToolError::invalid(format!(
            "{format} is not text, so export_file cannot return it. Use download_file with export_format={format} to save it to disk."
        ))
    };
    if file.is_google_type() {
        let target = export_target(&file, &args.export_format)?;
        if !is_text(&target) {
            return Err(binary(short_name(&target).unwrap_or(&target)));
        }
        // Google reports no size for its own files: the engine checks the result against the cap.
        let content = utf8(&file, drive.export(&file.id, &target).await?.to_vec())?;
        return Ok(json!({ "id": file.id, "name": file.name, "format": target, "content": content }));
    }
    if !is_text(&file.mime_type) {
        return Err(binary(short_name(&file.mime_type).unwrap_or(&file.mime_type)));
    }
    if let Some(size) = file.size_bytes() {
        // UTF-8 spends at most 4 bytes per character, so the content has at least size/4 characters:
        // a file certain to be over the cap is refused before its bytes are fetched.
        precheck(&EXPORT, size / 4, ctx.max_chars())?;
    }
    let content = utf8(&file, drive.download(&file.id).await?.to_vec())?;
    let mut out = json!({ "id": file.id, "name": file.name, "format": file.mime_type, "content": content });
    if format_mime(&args.export_format) != file.mime_type {
        out["note"] = json!(
            "Drive converts only Google Docs, Sheets and Slides; this file's content is returned as it is stored."
        );
    }
    Ok(out)
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DownloadFileArgs {
    /// The file's id.
    pub file_id: String,
    /// Where to save it: a file path, or an existing folder (the Drive name is used). Relative paths are inside the export folder.
    pub local_path: String,
    /// For Google files: pdf, docx, xlsx, pptx, odt, ods, csv, txt, markdown, html, … (default: docx, xlsx or pptx).
    #[serde(default)]
    pub export_format: Option<String>,
}

/// A Drive name as one safe file name (no separators, no `..`).
pub(super) fn file_name(name: &str) -> String {
    let cleaned: String = name.chars().map(|c| if matches!(c, '/' | '\\' | '\0') { '_' } else { c }).collect();
    match cleaned.trim() {
        "" | "." | ".." => "download".to_owned(),
        other => other.to_owned(),
    }
}

async fn download_file(ctx: ToolContext, args: DownloadFileArgs) -> Result<Value, ToolError> {
    // A path outside the allowed folders fails before any Google call.
    let requested = ctx.local.allowed(&args.local_path)?;
    let into_folder = requested.is_dir() || args.local_path.ends_with(['/', '\\']);
    let drive = ctx.google.drive();
    let file = drive.get(&args.file_id, EXPORT_FIELDS).await?;
    refuse_folder(&file)?;
    let mut note = None;
    let (bytes, format, extension) = if file.is_google_type() {
        let format = match &args.export_format {
            Some(format) => format.clone(),
            None => match DOWNLOAD_DEFAULTS.iter().find(|(m, _)| *m == file.mime_type) {
                Some((_, format)) => (*format).to_owned(),
                None => {
                    return Err(ToolError::invalid(format!(
                        "{:?} is a Google file that must be exported: pass export_format, one of: {}.",
                        file.name,
                        offered(&file)
                    )));
                }
            },
        };
        let target = export_target(&file, &format)?;
        (drive.export(&file.id, &target).await?, target.clone(), short_name(&target))
    } else {
        if args.export_format.as_deref().is_some_and(|f| format_mime(f) != file.mime_type) {
            note = Some("Drive converts only Google Docs, Sheets and Slides; the file was saved as it is stored.");
        }
        (drive.download(&file.id).await?, file.mime_type.clone(), None)
    };
    let path: PathBuf = if into_folder {
        let mut name = file_name(&file.name);
        if let Some(extension) = extension.filter(|e| !name.to_ascii_lowercase().ends_with(&format!(".{e}"))) {
            name = format!("{name}.{extension}");
        }
        // The name has no separators, but check the joined path like any other.
        ctx.local.allowed(&requested.join(name).to_string_lossy())?
    } else {
        requested
    };
    let replaced = path.exists();
    let written = ctx.local.write(&path, &bytes).await?;
    let mut out = json!({
        "id": file.id,
        "name": file.name,
        "format": format,
        "local_path": path.display().to_string(),
        "bytes": written,
        "replaced_existing_file": replaced,
    });
    if let Some(note) = note {
        out["note"] = json!(note);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_resolve_by_short_name_or_mime() {
        assert_eq!(format_mime("Markdown"), "text/markdown");
        assert_eq!(format_mime(".csv"), "text/csv");
        assert_eq!(format_mime("application/pdf"), "application/pdf");
        assert!(is_text("text/csv") && is_text("image/svg+xml") && !is_text("application/pdf"));
    }

    #[test]
    fn names_cannot_leave_the_folder() {
        assert_eq!(file_name("../../etc/passwd"), ".._.._etc_passwd");
        assert_eq!(file_name(".."), "download");
        assert_eq!(file_name("Q1 report.pdf"), "Q1 report.pdf");
    }
}
