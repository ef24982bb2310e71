//! `download_folder`: a Drive folder and everything under it saved to the person's disk (inside the allowed
//! folders), Google files exported. One file failing is reported and the rest go on; the client can follow
//! along through MCP progress notifications, per file or per byte.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::approval::evaluator::Evaluator;
use crate::catalog::Effect;
use crate::drive_query::Query;
use crate::google::drive::File;

use super::super::registry::{Service, ToolDef, ToolMeta};
use super::super::{ToolContext, ToolError};
use super::export::{DOWNLOAD_DEFAULTS, FORMATS, export_target, file_name, short_name};
use super::local_tree::slash;
use super::mime_type_arg;

/// A write: it creates (and, with skip_if_exists=false, replaces) files on the person's disk (0.9.5 calls it
/// read-only; it is not).
const DOWNLOAD_FOLDER: ToolMeta = ToolMeta::write(
    Service::Drive,
    "download_folder",
    "Download folder",
    "Save a Drive folder and its subfolders to the computer at local_path (inside the export folder or an allowed folder); Google files are exported.",
    Effect { destructive: true, idempotent: true },
);

pub(super) fn tools() -> Vec<ToolDef> {
    vec![
        ToolDef::evaluated(
            DOWNLOAD_FOLDER,
            download_folder,
            [Evaluator::folder(|a: &DownloadFolderArgs| &a.folder_id)],
        )
        .worded(super::said::download_folder),
    ]
}

fn files_unit() -> String {
    "files".to_owned()
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DownloadFolderArgs {
    /// The Drive folder's id.
    pub folder_id: String,
    /// The local folder to save into (created if missing; relative paths are inside the export folder).
    pub local_path: String,
    /// For Google files: pdf, docx, xlsx, pptx, md, csv, txt, html, … (default: docx, xlsx or pptx; a file that
    /// does not offer the format gets its default).
    #[serde(default)]
    pub export_format: Option<String>,
    /// Only files of this type (a MIME type like application/pdf or image/*, or document, spreadsheet, pdf, …).
    #[serde(default)]
    pub mime_type_filter: Option<String>,
    /// Leave local files that already exist as they are.
    #[serde(default = "crate::tools::schema::default_true")]
    pub skip_if_exists: bool,
    /// What progress notifications count: files or bytes.
    #[serde(default = "files_unit")]
    pub progress_unit: String,
}

/// What progress notifications count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Unit {
    Files,
    Bytes,
}

const LIST_FIELDS: &str = "id,name,mimeType,size,exportLinks";

/// Everything directly in the Drive folder `folder_id` (not trashed), every page, with `fields` of each.
pub(super) async fn children(ctx: &ToolContext, folder_id: &str, fields: &str) -> Result<Vec<File>, ToolError> {
    let q = Query::new().and_in_parents(folder_id).and_not_trashed().render();
    Ok(ctx.google.drive().list_all(&q, fields, None).await?)
}

/// The Drive folder `id` (named by the argument `argument`), refused when it is a file.
pub(super) async fn drive_folder(ctx: &ToolContext, id: &str, argument: &str) -> Result<File, ToolError> {
    let folder = ctx.google.drive().get(id, "id,name,mimeType").await?;
    if !folder.is_folder() {
        return Err(ToolError::invalid(format!(
            "{argument} {id:?} is the file {:?} ({}), not a folder. Give the id of a Drive folder (list_folders finds them).",
            folder.name, folder.mime_type
        )));
    }
    Ok(folder)
}

/// Whether a file's type passes the filter: the same type, or `type/*` for a whole family.
fn passes(filter: Option<&str>, mime_type: &str) -> bool {
    match filter {
        None => true,
        Some(filter) => match filter.strip_suffix("/*") {
            Some(family) => mime_type.split('/').next() == Some(family),
            None => filter == mime_type,
        },
    }
}

/// One file to save: where under local_path, and the Drive file.
struct Planned {
    folder: PathBuf,
    file: File,
}

/// Walks the Drive tree under `root`: the subfolders (relative paths, parents first) and the files.
async fn plan(ctx: &ToolContext, root: &str, filter: Option<&str>) -> Result<(Vec<PathBuf>, Vec<Planned>), ToolError> {
    let (mut folders, mut files) = (Vec::new(), Vec::new());
    let mut pending = vec![(PathBuf::new(), root.to_owned())];
    // A folder reachable twice (Drive allows several parents) is walked once.
    let mut seen = HashSet::from([root.to_owned()]);
    while let Some((at, id)) = pending.pop() {
        let mut listing = children(ctx, &id, LIST_FIELDS).await?;
        listing.sort_by(|a, b| a.name.cmp(&b.name).then_with(|| a.id.cmp(&b.id)));
        let mut taken = HashSet::new();
        for file in listing {
            if file.is_folder() {
                if seen.insert(file.id.clone()) {
                    let path = at.join(unique(&mut taken, file_name(&file.name)));
                    folders.push(path.clone());
                    pending.push((path, file.id));
                }
            } else if passes(filter, &file.mime_type) {
                files.push(Planned { folder: at.clone(), file });
            }
        }
    }
    folders.sort();
    files.sort_by(|a, b| a.folder.cmp(&b.folder).then_with(|| a.file.name.cmp(&b.file.name)));
    Ok((folders, files))
}

/// `name`, or `name (2)`, `name (3)` … when a file of the same folder already took it (Drive allows two files
/// of one name; a disk does not).
fn unique(taken: &mut HashSet<String>, name: String) -> String {
    let lower = |n: &str| n.to_lowercase();
    if taken.insert(lower(&name)) {
        return name;
    }
    let (stem, extension) = match name.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() => (stem.to_owned(), format!(".{ext}")),
        _ => (name.clone(), String::new()),
    };
    (2..).map(|n| format!("{stem} ({n}){extension}")).find(|candidate| taken.insert(lower(candidate))).unwrap_or(name)
}

/// How a Google file is saved: the export MIME type, or why it is not.
fn export_choice(file: &File, requested: Option<&str>) -> Result<String, String> {
    if let Some(format) = requested
        && let Ok(target) = export_target(file, format)
    {
        return Ok(target);
    }
    match DOWNLOAD_DEFAULTS.iter().find(|(m, _)| *m == file.mime_type) {
        Some((_, format)) => export_target(file, format).map_err(|e| e.to_string()),
        None if file.mime_type == "application/vnd.google-apps.shortcut" => {
            Err("a shortcut: download the file it points to".to_owned())
        }
        None => Err(format!("a {} file, which Drive cannot export", file.mime_type)),
    }
}

/// The local name of a saved file: its Drive name, with the export's extension added when missing.
fn local_name(file: &File, export: Option<&str>) -> String {
    let mut name = file_name(&file.name);
    if let Some(extension) = export.and_then(short_name)
        && !name.to_ascii_lowercase().ends_with(&format!(".{extension}"))
    {
        name = format!("{name}.{extension}");
    }
    name
}

async fn download_folder(ctx: ToolContext, args: DownloadFolderArgs) -> Result<Value, ToolError> {
    let unit = match args.progress_unit.trim().to_ascii_lowercase().as_str() {
        "files" => Unit::Files,
        "bytes" => Unit::Bytes,
        other => {
            return Err(ToolError::invalid(format!(
                "progress_unit {other:?} is not one Gatehouse knows: use \"files\" or \"bytes\"."
            )));
        }
    };
    let requested = args.export_format.as_deref().map(str::trim).filter(|f| !f.is_empty());
    if let Some(format) = requested
        && !format.contains('/')
        && !FORMATS.iter().any(|(name, _, _)| name.eq_ignore_ascii_case(format.trim_start_matches('.')))
    {
        let names: Vec<&str> = FORMATS.iter().map(|(name, _, _)| *name).collect();
        return Err(ToolError::invalid(format!(
            "export_format {format:?} is not a format Gatehouse knows. Use a MIME type or one of: {}.",
            names.join(", ")
        )));
    }
    let filter = match args.mime_type_filter.as_deref().map(str::trim).filter(|f| !f.is_empty()) {
        Some(filter) => Some(mime_type_arg(filter)?),
        None => None,
    };
    // A path outside the allowed folders fails before any Google call.
    let target = ctx.local.allowed(&args.local_path)?;
    if target.is_file() {
        return Err(ToolError::invalid(format!(
            "{} is a file, not a folder. Give a folder to save into (it is created if missing).",
            target.display()
        )));
    }
    let root = drive_folder(&ctx, &args.folder_id, "folder_id").await?;
    let (folders, planned) = plan(&ctx, &root.id, filter.as_deref()).await?;
    for folder in std::iter::once(&PathBuf::new()).chain(&folders) {
        let path = ctx.local.allowed(&target.join(folder).to_string_lossy())?;
        tokio::fs::create_dir_all(&path).await.map_err(|e| crate::limits::local_files::LocalPathError::Io {
            path: path.display().to_string(),
            detail: e.to_string(),
        })?;
    }
    let total = match unit {
        Unit::Files => Some(planned.len() as f64),
        // Google files have no size until exported: a byte total is known only without them.
        Unit::Bytes => planned.iter().map(|p| p.file.size_bytes()).sum::<Option<u64>>().map(|b| b as f64),
    };

    let drive = ctx.google.drive();
    let mut report = Vec::new();
    let (mut downloaded, mut skipped, mut failed, mut bytes) = (0u64, 0u64, 0u64, 0u64);
    // Names each local folder already gave out (its subfolders' first), so no two files share one.
    let mut taken: std::collections::HashMap<PathBuf, HashSet<String>> = Default::default();
    for folder in &folders {
        let name = folder.file_name().map(|n| n.to_string_lossy().to_lowercase()).unwrap_or_default();
        taken.entry(folder.parent().map(Path::to_path_buf).unwrap_or_default()).or_default().insert(name);
    }
    let mut progress = 0.0;
    for Planned { folder, file } in &planned {
        let export = if file.is_google_type() { Some(export_choice(file, requested)) } else { None };
        let format = match &export {
            Some(Ok(target)) => Some(target.as_str()),
            _ => None,
        };
        let name = unique(taken.entry(folder.clone()).or_default(), local_name(file, format));
        let relative = folder.join(&name);
        let shown = slash(&relative);
        let mut out = json!({ "path": shown, "id": file.id, "name": file.name });
        let mut written = None;
        match save(&ctx, &drive, &target, &relative, file, export, args.skip_if_exists).await {
            Ok(Saved::Written { bytes: count, format }) => {
                downloaded += 1;
                bytes += count;
                written = Some(count);
                out["outcome"] = json!("downloaded");
                out["format"] = json!(format);
                out["bytes"] = json!(count);
            }
            Ok(Saved::Skipped(reason)) => {
                skipped += 1;
                out["outcome"] = json!("skipped");
                out["reason"] = json!(reason);
            }
            Err(reason) => {
                failed += 1;
                out["outcome"] = json!("failed");
                out["reason"] = json!(reason);
            }
        }
        progress += match unit {
            Unit::Files => 1.0,
            Unit::Bytes => file.size_bytes().or(written).unwrap_or(0) as f64,
        };
        ctx.progress.report(progress, total, format!("{} {shown}", out["outcome"].as_str().unwrap_or("done"))).await;
        report.push(out);
    }
    Ok(json!({
        "folder_id": root.id,
        "folder_name": root.name,
        "local_path": target.display().to_string(),
        "downloaded": downloaded,
        "skipped": skipped,
        "failed": failed,
        "bytes": bytes,
        "files": report,
    }))
}

enum Saved {
    Written { bytes: u64, format: String },
    Skipped(String),
}

/// Saves one file at `target/relative`; what was done, or why it failed.
async fn save(
    ctx: &ToolContext,
    drive: &crate::google::drive::Drive<'_>,
    target: &Path,
    relative: &Path,
    file: &File,
    export: Option<Result<String, String>>,
    skip_if_exists: bool,
) -> Result<Saved, String> {
    let path = ctx.local.allowed(&target.join(relative).to_string_lossy()).map_err(|e| e.to_string())?;
    if skip_if_exists && path.exists() {
        return Ok(Saved::Skipped("a local file of that name already exists".to_owned()));
    }
    let (content, format) = match export {
        Some(Err(reason)) => return Ok(Saved::Skipped(reason)),
        Some(Ok(mime)) => (drive.export(&file.id, &mime).await.map_err(|e| e.to_string())?, mime),
        None => (drive.download(&file.id).await.map_err(|e| e.to_string())?, file.mime_type.clone()),
    };
    let bytes = ctx.local.write(&path, &content).await.map_err(|e| e.to_string())?;
    Ok(Saved::Written { bytes, format })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filters_match_a_type_or_a_family() {
        assert!(passes(None, "image/png"));
        assert!(passes(Some("image/*"), "image/png") && !passes(Some("image/*"), "application/pdf"));
        assert!(passes(Some("application/pdf"), "application/pdf") && !passes(Some("application/pdf"), "text/plain"));
    }

    #[test]
    fn clashing_names_get_a_number() {
        let mut taken = HashSet::new();
        assert_eq!(unique(&mut taken, "a.txt".into()), "a.txt");
        assert_eq!(unique(&mut taken, "A.txt".into()), "A (2).txt");
        assert_eq!(unique(&mut taken, "a.txt".into()), "a (3).txt");
        assert_eq!(unique(&mut taken, ".env".into()), ".env");
        assert_eq!(unique(&mut taken, ".env".into()), ".env (2)");
    }

    #[test]
    fn exports_fall_back_to_the_default_format() {
        let links = |mimes: &[&str]| Some(mimes.iter().map(|m| ((*m).to_owned(), json!("https://x"))).collect());
        let sheet = File {
            name: "Budget".into(),
            mime_type: "application/vnd.google-apps.spreadsheet".into(),
            export_links: links(&["text/csv", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"]),
            ..File::default()
        };
        assert_eq!(export_choice(&sheet, Some("csv")).unwrap(), "text/csv");
        assert!(export_choice(&sheet, Some("md")).unwrap().ends_with("spreadsheetml.sheet"));
        assert_eq!(local_name(&sheet, Some("text/csv")), "Budget.csv");
        let form = File { mime_type: "application/vnd.google-apps.form".into(), ..File::default() };
        assert!(export_choice(&form, None).unwrap_err().contains("cannot export"));
    }
}
