//! Earlier versions of a file: `list_revisions` lists them, `export_revision` returns one as text or saves
//! it to the person's disk. A blob's revision is downloaded as stored; a Google file's is exported through
//! the link Drive gives for it (`exportLinks`), a spreadsheet as CSV of one sheet, cut to a range if asked.

use std::path::PathBuf;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::a1::{A1Error, A1Range};
use crate::approval::evaluator::Evaluator;
use crate::catalog::Effect;
use crate::google::drive::{File, Revision, mime};
use crate::limits::response_cap::precheck;

use super::super::registry::{Cap, Service, ToolDef, ToolMeta};
use super::super::{ToolContext, ToolError};
use super::export::{file_name, is_text, refuse_folder, short_name};

const LIST: ToolMeta = ToolMeta::read(
    Service::Drive,
    "list_revisions",
    "List versions",
    "List a file's saved versions (revisions), oldest first, with the ids export_revision takes.",
    Cap::Narrower,
);

/// A write: with local_path it creates or replaces a file on the person's disk. Without, it returns the
/// content, which the response cap applies to (0.9.5 declares nothing for it).
const EXPORT: ToolMeta = ToolMeta {
    cap: Cap::Narrower,
    ..ToolMeta::write(
        Service::Drive,
        "export_revision",
        "Export old version",
        "Return one revision's content as text (a spreadsheet as CSV, optionally one sheet or range), or save it to local_path.",
        Effect { destructive: true, idempotent: true },
    )
};

pub(super) fn tools() -> Vec<ToolDef> {
    vec![
        ToolDef::new(LIST, list_revisions),
        // Writes the person's disk, inside the allowed folders only: a grant may be limited to one Drive file.
        ToolDef::evaluated(EXPORT, export_revision, [Evaluator::file(|a: &ExportRevisionArgs| &a.file_id)])
            .worded(super::said::export_revision),
    ]
}

const REVISION_FIELDS: &str = "id,mimeType,modifiedTime,lastModifyingUser(displayName,emailAddress),size,originalFilename,keepForever,exportLinks";

/// What a Google file's revision is exported as when returned or saved, best first.
const TEXT_EXPORTS: &[&str] = &["text/markdown", "text/plain", "image/svg+xml"];

fn revision_json(revision: &Revision) -> Value {
    let mut out = json!({ "id": revision.id, "modified_time": revision.modified_time });
    if let Some(user) = &revision.last_modifying_user {
        out["modified_by"] = json!(user.email_address.as_ref().or(user.display_name.as_ref()));
    }
    if let Some(size) = revision.size.as_deref().and_then(|s| s.parse::<u64>().ok()) {
        out["size"] = json!(size);
    }
    if let Some(name) = &revision.original_filename {
        out["original_filename"] = json!(name);
    }
    if revision.keep_forever == Some(true) {
        out["keep_forever"] = json!(true);
    }
    if let Some(links) = &revision.export_links {
        out["export_formats"] = json!(links.keys().map(|m| short_name(m).unwrap_or(m)).collect::<Vec<_>>());
    }
    out
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListRevisionsArgs {
    /// The file's id.
    pub file_id: String,
}

async fn list_revisions(ctx: ToolContext, args: ListRevisionsArgs) -> Result<Value, ToolError> {
    let drive = ctx.google.drive();
    let file = drive.get(&args.file_id, "id,name,mimeType").await?;
    refuse_folder(&file)?;
    let revisions = drive.revisions(&file.id, REVISION_FIELDS).await?;
    let mut out = json!({
        "file_id": file.id,
        "name": file.name,
        "mime_type": file.mime_type,
        "count": revisions.len(),
        "revisions": revisions.iter().map(revision_json).collect::<Vec<_>>(),
    });
    if file.is_google_type() {
        out["note"] = json!("Google merges a Google file's edits into fewer revisions over time.");
    }
    Ok(out)
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExportRevisionArgs {
    /// The file's id.
    pub file_id: String,
    /// The revision's id (from list_revisions).
    pub revision_id: String,
    /// Spreadsheets only: the cells to return, in A1 notation (e.g. A1:C20 or Sheet1!A:B).
    #[serde(default)]
    pub range: Option<String>,
    /// Spreadsheets only: the sheet to return, by its current name (default: the first sheet).
    #[serde(default)]
    pub sheet: Option<String>,
    /// Save the revision to this file or folder instead of returning it. Relative paths are inside the export folder.
    #[serde(default)]
    pub local_path: Option<String>,
}

async fn export_revision(ctx: ToolContext, args: ExportRevisionArgs) -> Result<Value, ToolError> {
    // A path outside the allowed folders fails before any Google call.
    let requested = args.local_path.as_deref().map(|path| ctx.local.allowed(path).map(|p| (p, path))).transpose()?;
    if args.revision_id.trim().is_empty() {
        return Err(ToolError::invalid("revision_id is empty: take one from list_revisions."));
    }
    let drive = ctx.google.drive();
    let file = drive.get(&args.file_id, "id,name,mimeType").await?;
    refuse_folder(&file)?;
    let is_sheet = file.mime_type == mime::SPREADSHEET;
    if !is_sheet && (args.range.is_some() || args.sheet.is_some()) {
        return Err(ToolError::invalid(format!(
            "range and sheet apply to spreadsheets only, and {:?} is {}. Leave them out.",
            file.name, file.mime_type
        )));
    }
    let revision = drive.revision(&file.id, &args.revision_id, REVISION_FIELDS).await?;
    let (bytes, format) = if is_sheet {
        let link = export_link(&file, &revision, "text/csv")?;
        let (gid, cut) = sheet_selection(&ctx, &file.id, args.sheet.as_deref(), args.range.as_deref()).await?;
        let extra: Vec<(&str, String)> = gid.map(|gid| ("gid", gid.to_string())).into_iter().collect();
        let csv = drive.export_link(&link, &extra).await?;
        let bytes = match cut {
            Some(range) => cut_csv(&text(&file, csv.to_vec())?, &range)?.into_bytes(),
            None => csv.to_vec(),
        };
        (bytes, "text/csv".to_owned())
    } else if file.is_google_type() {
        let links = revision.export_links.as_ref();
        let format = TEXT_EXPORTS.iter().find(|m| links.is_some_and(|l| l.contains_key(**m))).ok_or_else(|| {
            ToolError::invalid(format!(
                "Drive offers no text export of this revision of {:?} ({}).",
                file.name, file.mime_type
            ))
        })?;
        let link = export_link(&file, &revision, format)?;
        (drive.export_link(&link, &[]).await?.to_vec(), (*format).to_owned())
    } else {
        let format = if revision.mime_type.is_empty() { file.mime_type.clone() } else { revision.mime_type.clone() };
        (drive.revision_media(&file.id, &revision.id).await?.to_vec(), format)
    };
    match requested {
        Some((path, written_as)) => save(&ctx, &file, &revision, path, written_as, &bytes, &format).await,
        None => inline(&ctx, &file, &revision, bytes, &format),
    }
}

/// The link Drive gives for exporting `revision` as `format`.
fn export_link(file: &File, revision: &Revision, format: &str) -> Result<String, ToolError> {
    revision
        .export_links
        .as_ref()
        .and_then(|links| links.get(format))
        .and_then(Value::as_str)
        .map(str::to_owned)
        .ok_or_else(|| {
            ToolError::invalid(format!(
                "Drive offers no {} export of revision {} of {:?}.",
                short_name(format).unwrap_or(format),
                revision.id,
                file.name
            ))
        })
}

fn text(file: &File, bytes: Vec<u8>) -> Result<String, ToolError> {
    String::from_utf8(bytes).map_err(|_| {
        ToolError::invalid(format!(
            "This revision of {:?} is not UTF-8 text. Pass local_path to save it to disk instead.",
            file.name
        ))
    })
}

/// The content in the answer, if it is text and within the response cap.
fn inline(
    ctx: &ToolContext,
    file: &File,
    revision: &Revision,
    bytes: Vec<u8>,
    format: &str,
) -> Result<Value, ToolError> {
    if !is_text(format) {
        return Err(ToolError::invalid(format!(
            "This revision of {:?} is {format}, not text. Pass local_path to save it to disk instead.",
            file.name
        )));
    }
    let content = text(file, bytes)?;
    precheck(&EXPORT, content.chars().count() as u64, ctx.max_chars())
        .map_err(|error| ToolError::invalid(format!("{error} Or pass local_path to save the revision to a file.")))?;
    Ok(json!({
        "file_id": file.id,
        "name": file.name,
        "revision_id": revision.id,
        "modified_time": revision.modified_time,
        "format": format,
        "content": content,
    }))
}

/// Saves the content at `path` (checked already), or inside it when it is a folder, as `download_file` does.
async fn save(
    ctx: &ToolContext,
    file: &File,
    revision: &Revision,
    path: PathBuf,
    written_as: &str,
    bytes: &[u8],
    format: &str,
) -> Result<Value, ToolError> {
    let into_folder = path.is_dir() || written_as.ends_with(['/', '\\']);
    let path = if into_folder {
        let mut name = file_name(&format!("{} (revision {})", file.name, revision.id));
        if let Some(extension) = short_name(format) {
            name = format!("{name}.{extension}");
        }
        // The name has no separators, but check the joined path like any other.
        ctx.local.allowed(&path.join(name).to_string_lossy())?
    } else {
        path
    };
    let replaced = path.exists();
    let written = ctx.local.write(&path, bytes).await?;
    Ok(json!({
        "file_id": file.id,
        "name": file.name,
        "revision_id": revision.id,
        "format": format,
        "local_path": path.display().to_string(),
        "bytes": written,
        "replaced_existing_file": replaced,
    }))
}

/// The sheet (its id, found by its current name) and the cells to keep, from `sheet` and `range`.
async fn sheet_selection(
    ctx: &ToolContext,
    spreadsheet_id: &str,
    sheet: Option<&str>,
    range: Option<&str>,
) -> Result<(Option<i64>, Option<A1Range>), ToolError> {
    let parsed = range.map(A1Range::parse).transpose()?;
    let sheet = sheet.map(str::trim);
    if sheet == Some("") {
        return Err(A1Error::NoSheet.into());
    }
    let name = match (sheet, parsed.as_ref().and_then(|r| r.sheet.as_deref())) {
        (Some(sheet), Some(range_sheet)) if sheet != range_sheet => {
            return Err(A1Error::SheetMismatch { range_sheet: range_sheet.to_owned(), sheet: sheet.to_owned() }.into());
        }
        (Some(sheet), _) => Some(sheet),
        (None, range_sheet) => range_sheet,
    };
    let gid = match name {
        None => None,
        Some(name) => {
            let book = ctx.google.sheets().get(spreadsheet_id, "sheets.properties(sheetId,title)").await?;
            let found = book.sheets.iter().find(|s| s.properties.title == name).map(|s| s.properties.sheet_id);
            Some(found.ok_or_else(|| {
                let titles: Vec<&str> = book.sheets.iter().map(|s| s.properties.title.as_str()).collect();
                ToolError::NotFound(format!(
                    "The spreadsheet has no sheet named {name:?} now (its sheets: {}). export_revision finds a sheet by its current name.",
                    titles.join(", ")
                ))
            })?)
        }
    };
    let bounded = |r: &A1Range| r.start_row.or(r.start_col).or(r.end_row).or(r.end_col).is_some();
    Ok((gid, parsed.filter(bounded)))
}

/// The cells of `range` (0-based, exclusive ends; open sides run to the data's edge) of CSV `text`, as CSV
/// written the way Drive writes it.
fn cut_csv(text: &str, range: &A1Range) -> Result<String, ToolError> {
    let rows = crate::csv::parse(text, ',').map_err(|error| {
        ToolError::invalid(format!("Google's CSV export of this revision could not be read: {error}."))
    })?;
    let bound = |value: Option<u32>, default: usize| value.map_or(default, |v| v as usize);
    let (top, bottom) = (bound(range.start_row, 0), bound(range.end_row, rows.len()).min(rows.len()));
    let width = rows.iter().map(Vec::len).max().unwrap_or(0);
    let (left, right) = (bound(range.start_col, 0), bound(range.end_col, width).min(width));
    let cut: Vec<Vec<&str>> = rows
        .iter()
        .take(bottom)
        .skip(top)
        .map(|row| (left..right).map(|c| row.get(c).map_or("", String::as_str)).collect())
        .collect();
    Ok(crate::csv::write(&cut))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_cuts_keep_quotes_and_stop_at_the_data() {
        let csv = "a,b,c\r\n\"x, y\",2,3\r\n4,\"say \"\"hi\"\"\",6";
        let range = A1Range::parse("A2:B9").unwrap();
        assert_eq!(cut_csv(csv, &range).unwrap(), "\"x, y\",2\r\n4,\"say \"\"hi\"\"\"");
        let column = A1Range::parse("C:C").unwrap();
        assert_eq!(cut_csv(csv, &column).unwrap(), "c\r\n3\r\n6");
    }
}
