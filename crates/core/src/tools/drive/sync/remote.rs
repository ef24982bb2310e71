//! The Drive side of a sync: the folder's files (and, with `recursive`, its subfolders'), the files in
//! its trash that a deletion on Drive may have left, and the folder ids by relative path.

use std::collections::BTreeMap;

use crate::drive_query::Query;
use crate::google::drive::{File, mime};
use crate::tools::{ToolContext, ToolError};

use super::super::export::{DOWNLOAD_DEFAULTS, export_target, file_name, short_name};

/// The fields a sync reads of every file.
pub(super) const FIELDS: &str = "id,name,mimeType,modifiedTime,size,md5Checksum,appProperties,trashed,exportLinks";

/// How a Google Docs/Sheets/Slides file is saved locally.
#[derive(Debug, Clone)]
pub(super) struct Export {
    pub mime: String,
    pub ext: &'static str,
    /// A Google Doc synced as Markdown (`convert_markdown`): read and written through the Docs API, and
    /// synced both ways like a file.
    pub markdown: bool,
}

impl Export {
    /// Whether the Drive side is only ever exported (never written from the local file).
    pub fn export_only(&self) -> bool {
        !self.markdown
    }
}

/// One Drive file under the synced folder.
#[derive(Debug, Clone)]
pub(super) struct DriveEntry {
    /// Its local path under the root (`/` separators); Google files carry their export's extension.
    pub rel: String,
    pub file: File,
    /// Set for Google files: exported, never downloaded, and overwritten only as Markdown Docs.
    pub export: Option<Export>,
}

/// The Drive side.
#[derive(Debug, Default)]
pub(super) struct DriveTree {
    pub files: Vec<DriveEntry>,
    /// Blobs in the trash, directly in a walked folder.
    pub trashed: Vec<DriveEntry>,
    /// Folder ids by relative path (`""` is the synced folder).
    pub folders: BTreeMap<String, String>,
    pub notes: Vec<String>,
}

pub(super) fn join(folder: &str, name: &str) -> String {
    if folder.is_empty() { name.to_owned() } else { format!("{folder}/{name}") }
}

/// Lists `folder_id` (and its subfolders with `recursive`).
pub(super) async fn scan(
    ctx: &ToolContext,
    folder_id: &str,
    recursive: bool,
    export_format: Option<&str>,
    convert_markdown: bool,
) -> Result<DriveTree, ToolError> {
    let drive = ctx.google.drive();
    let root = drive.get(folder_id, "id,name,mimeType,trashed").await?;
    if !root.is_folder() {
        return Err(ToolError::invalid(format!(
            "{:?} is not a folder. Give the id of the Drive folder to sync (list_folders finds it).",
            root.name
        )));
    }
    if root.trashed {
        return Err(ToolError::invalid(format!(
            "The folder {:?} is in the trash. Restore it with restore_file first.",
            root.name
        )));
    }
    let mut tree = DriveTree::default();
    let mut pending = vec![(String::new(), root.id.clone())];
    while let Some((rel, id)) = pending.pop() {
        tree.folders.insert(rel.clone(), id.clone());
        for file in list_children(ctx, &id).await? {
            let name = file_name(&file.name);
            if file.is_folder() {
                if recursive && !file.trashed {
                    pending.push((join(&rel, &name), file.id.clone()));
                }
                continue;
            }
            if file.mime_type == mime::SHORTCUT {
                tree.notes.push(format!("{}: a shortcut, left alone", join(&rel, &name)));
                continue;
            }
            let export = if convert_markdown && file.mime_type == mime::DOCUMENT {
                Some(Export { mime: "text/markdown".to_owned(), ext: "md", markdown: true })
            } else if file.is_google_type() {
                match export_for(&file, export_format) {
                    Some(export) => Some(export),
                    None => {
                        if !file.trashed {
                            tree.notes.push(format!(
                                "{}: a Google file ({}) with no export to save locally, left alone",
                                join(&rel, &name),
                                file.mime_type
                            ));
                        }
                        continue;
                    }
                }
            } else {
                None
            };
            let local_name = match &export {
                Some(export) if !name.to_ascii_lowercase().ends_with(&format!(".{}", export.ext)) => {
                    format!("{name}.{}", export.ext)
                }
                _ => name,
            };
            let entry = DriveEntry { rel: join(&rel, &local_name), file, export };
            if entry.file.trashed {
                if entry.export.as_ref().is_none_or(|e| !e.export_only()) {
                    tree.trashed.push(entry);
                }
            } else {
                tree.files.push(entry);
            }
        }
    }
    Ok(tree)
}

/// Every child of a folder, trashed ones included.
async fn list_children(ctx: &ToolContext, folder_id: &str) -> Result<Vec<File>, ToolError> {
    let q = Query::new().and_in_parents(folder_id).render();
    Ok(ctx.google.drive().list_all(&q, FIELDS, Some("name")).await?)
}

/// The export of a Google file: `export_format` where Drive offers it for the file, else the file type's
/// default (docx, xlsx, pptx …).
fn export_for(file: &File, export_format: Option<&str>) -> Option<Export> {
    let chosen = export_format.and_then(|format| export_target(file, format).ok());
    let target = chosen.or_else(|| {
        let (_, format) = DOWNLOAD_DEFAULTS.iter().find(|(m, _)| *m == file.mime_type)?;
        export_target(file, format).ok()
    })?;
    let ext = short_name(&target)?;
    Some(Export { mime: target, ext, markdown: false })
}
