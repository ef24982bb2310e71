//! `upload_local_folder`: a folder on the person's disk (inside the allowed folders) recreated in Drive, its
//! subfolders as Drive folders and its files uploaded (converted into Google files on request). One file
//! failing is reported and the rest go on.

use std::collections::HashMap;
use std::path::PathBuf;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::approval::evaluator::Evaluator;
use crate::catalog::Effect;
use crate::google::drive::{File, mime};
use crate::google::{ErrorKind, GoogleError};
use crate::limits::local_files::LocalPathError;

use super::super::registry::{Limitation, Service, ToolDef, ToolMeta};
use super::super::{ToolContext, ToolError};
use super::download_folder::{children, drive_folder};
use super::local_tree::{self, Kind, WalkOptions, slash};
use super::upload::{UPLOAD_FIELDS, by_extension, drive_name};

pub(super) fn tools() -> Vec<ToolDef> {
    vec![ToolDef::evaluated(
        ToolMeta::write(
            Service::Drive,
            "upload_local_folder",
            "Upload local folder",
            "Recreate a local folder (inside the export folder or an allowed folder) and everything in it under a Drive folder.",
            Effect { destructive: false, idempotent: false },
        )
        .failing_for(&[Limitation::NoDriveStorageQuota]),
        upload_local_folder,
        [Evaluator::folder(|a: &UploadLocalFolderArgs| &a.parent_folder_id)],
    )
    .worded(super::said::upload_local_folder)]
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UploadLocalFolderArgs {
    /// The folder to upload (relative paths are inside the export folder).
    pub local_path: String,
    /// The Drive folder to put it in; a folder of the same name already there is reused.
    pub parent_folder_id: String,
    /// Leave out files whose name the Drive folder already has.
    #[serde(default = "crate::tools::schema::default_true")]
    pub skip_if_exists: bool,
    /// Leave out system files (.DS_Store, Thumbs.db, desktop.ini, ._*, .git, …).
    #[serde(default = "crate::tools::schema::default_true")]
    pub skip_system_files: bool,
    /// Convert Office, OpenDocument, text, csv and html files into Google Docs, Sheets or Slides.
    #[serde(default)]
    pub convert: bool,
}

/// What became of one file or folder.
fn outcome(path: &str, outcome: &str, reason: Option<String>) -> Value {
    let mut out = json!({ "path": path, "outcome": outcome });
    if let Some(reason) = reason {
        out["reason"] = json!(reason);
    }
    out
}

async fn upload_local_folder(ctx: ToolContext, args: UploadLocalFolderArgs) -> Result<Value, ToolError> {
    let root = ctx.local.allowed(&args.local_path)?;
    let io = |e: std::io::Error| LocalPathError::Io { path: root.display().to_string(), detail: e.to_string() };
    let meta = match tokio::fs::metadata(&root).await {
        Ok(meta) => meta,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            return Err(ToolError::invalid(format!(
                "{} does not exist. Give the path of a folder on this computer (a relative path is taken inside the export folder).",
                root.display()
            )));
        }
        Err(error) => return Err(io(error).into()),
    };
    if !meta.is_dir() {
        return Err(ToolError::invalid(format!(
            "{} is a file, not a folder. Use upload_local_file for one file.",
            root.display()
        )));
    }
    let parent = drive_folder(&ctx, &args.parent_folder_id, "parent_folder_id").await?;
    let options = WalkOptions { skip_system_files: args.skip_system_files, recursive: true };
    let tree = local_tree::walk(&root, options).map_err(io)?;

    let drive = ctx.google.drive();
    let root_name = root.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "Upload".to_owned());
    // Drive folder per local folder (relative path), and the names each Drive folder already holds.
    let mut folders: HashMap<PathBuf, String> = HashMap::new();
    let mut listings = Listings::default();
    let (root_id, root_created) = listings.folder(&ctx, &root_name, &parent.id).await?;
    folders.insert(PathBuf::new(), root_id.clone());

    let mut report = Vec::new();
    let (mut uploaded, mut skipped, mut failed, mut folders_created, mut bytes) = (0u64, 0u64, 0u64, 0u64, 0u64);
    for left in &tree.left_out {
        let path = slash(&left.relative);
        if left.failed {
            failed += 1;
            report.push(outcome(&path, "failed", Some(format!("could not be read: {}", left.reason))));
        } else {
            skipped += 1;
            report.push(outcome(&path, "skipped", Some(left.reason.clone())));
        }
    }
    for entry in &tree.entries {
        let path = slash(&entry.relative);
        let Some(parent_id) = folders.get(&entry.parent()).cloned() else {
            failed += 1;
            report.push(outcome(&path, "failed", Some("its folder could not be created in Drive".to_owned())));
            continue;
        };
        match entry.kind {
            Kind::Folder => match listings.folder(&ctx, &entry.name(), &parent_id).await {
                Ok((id, created)) => {
                    folders_created += u64::from(created);
                    folders.insert(entry.relative.clone(), id);
                }
                Err(error) => {
                    failed += 1;
                    report.push(outcome(&path, "failed", Some(error.to_string())));
                }
            },
            Kind::File { .. } => {
                let (content_type, convertible) = by_extension(&entry.path);
                let target = convertible.filter(|_| args.convert);
                let name = drive_name(&entry.path, target.is_some());
                let exists = match listings.of(&ctx, &parent_id).await {
                    Ok(listing) => listing.iter().any(|f| !f.is_folder() && f.name == name),
                    Err(error) => {
                        failed += 1;
                        report.push(outcome(&path, "failed", Some(error.to_string())));
                        continue;
                    }
                };
                if args.skip_if_exists && exists {
                    skipped += 1;
                    let reason = format!("the Drive folder already has a file named {name:?}");
                    report.push(outcome(&path, "skipped", Some(reason)));
                    continue;
                }
                let sent = match tokio::fs::read(&entry.path).await {
                    Ok(content) => {
                        let body = json!({
                            "name": name,
                            "mimeType": target.unwrap_or(content_type),
                            "parents": [parent_id],
                        });
                        match drive.upload_any(&body, content_type, &content, UPLOAD_FIELDS).await {
                            Ok(file) => Ok((file, content.len() as u64)),
                            // Every other file would fail the same way: stop, saying what was done.
                            Err(error) if stops_all(&error) => {
                                return Err(ToolError::invalid(format!(
                                    "{error} Nothing more was uploaded; before {path}, {uploaded} files were uploaded into the Drive folder {root_name:?} ({root_id})."
                                )));
                            }
                            Err(error) => Err(error.to_string()),
                        }
                    }
                    Err(error) => Err(format!("could not be read: {error}")),
                };
                match sent {
                    Ok((file, size)) => {
                        uploaded += 1;
                        bytes += size;
                        if let Ok(listing) = listings.of(&ctx, &parent_id).await {
                            listing.push(file.clone());
                        }
                        let mut out = outcome(&path, "uploaded", None);
                        out["id"] = json!(file.id);
                        out["name"] = json!(file.name);
                        out["mime_type"] = json!(file.mime_type);
                        out["converted"] = json!(target.is_some());
                        out["bytes"] = json!(size);
                        report.push(out);
                    }
                    Err(reason) => {
                        failed += 1;
                        report.push(outcome(&path, "failed", Some(reason)));
                    }
                }
            }
        }
    }
    Ok(json!({
        "local_path": root.display().to_string(),
        "folder_id": root_id,
        "folder_name": root_name,
        "folder_created": root_created,
        "parent_folder_id": parent.id,
        "uploaded": uploaded,
        "skipped": skipped,
        "failed": failed,
        "folders_created": folders_created + u64::from(root_created),
        "bytes_uploaded": bytes,
        "files": report,
    }))
}

/// A failure that no other file would escape (no storage, no permission to use Drive): the call stops.
fn stops_all(error: &GoogleError) -> bool {
    matches!(error.kind(), Some(ErrorKind::StorageQuota | ErrorKind::Unauthenticated | ErrorKind::InsufficientScopes))
}

/// What each Drive folder this call touches holds: listed once, kept up to date as the call adds to it. A
/// folder the call created starts empty, so it is never listed.
#[derive(Default)]
struct Listings(HashMap<String, Vec<File>>);

impl Listings {
    async fn of(&mut self, ctx: &ToolContext, folder_id: &str) -> Result<&mut Vec<File>, ToolError> {
        if !self.0.contains_key(folder_id) {
            let listing = children(ctx, folder_id, "id,name,mimeType").await?;
            self.0.insert(folder_id.to_owned(), listing);
        }
        Ok(self.0.entry(folder_id.to_owned()).or_default())
    }

    /// The Drive folder named `name` in `parent_id`: the one already there (a folder is reused, never
    /// duplicated), or a new one. Returns its id and whether it was created.
    async fn folder(&mut self, ctx: &ToolContext, name: &str, parent_id: &str) -> Result<(String, bool), ToolError> {
        let listing = self.of(ctx, parent_id).await?;
        if let Some(folder) = listing.iter().find(|f| f.is_folder() && f.name == name) {
            return Ok((folder.id.clone(), false));
        }
        let body = json!({ "name": name, "mimeType": mime::FOLDER, "parents": [parent_id] });
        let folder = ctx.google.drive().create(&body, "id,name,mimeType,parents").await?;
        listing.push(folder.clone());
        self.0.insert(folder.id.clone(), Vec::new());
        Ok((folder.id, true))
    }
}
