//! One file at a time: metadata, the storage quota, folders, copies, moves, renames, trash and restore.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::approval::evaluator::Evaluator;
use crate::catalog::Effect;
use crate::google::drive::{StorageQuota, mime};

use super::super::registry::{Cap, Limitation, Service, ToolDef, ToolMeta};
use super::super::{ToolContext, ToolError};
use super::{FILE_FIELDS, file_json, folder_or_default, metadata, parents};

const METADATA_FIELDS: &str = "id,name,mimeType,description,size,createdTime,modifiedTime,parents,webViewLink,\
     owners(displayName,emailAddress),lastModifyingUser(displayName,emailAddress),shared,starred,trashed,driveId,\
     md5Checksum,exportLinks";

pub(super) fn tools() -> Vec<ToolDef> {
    vec![
        ToolDef::new(
            ToolMeta::read(
                Service::Drive,
                "get_file_metadata",
                "Get file details",
                "Get a file's name, type, size, dates, owner, folder, link and export formats.",
                Cap::Fixed,
            ),
            get_file_metadata,
        ),
        ToolDef::new(
            ToolMeta::read(
                Service::Drive,
                "get_storage_quota",
                "Get storage quota",
                "Get the account's Drive storage limit and usage, in bytes.",
                Cap::Fixed,
            ),
            get_storage_quota,
        ),
        ToolDef::evaluated(
            ToolMeta::write(
                Service::Drive,
                "create_folder",
                "Create folder",
                "Create a folder (in parent_folder_id, else DRIVE_FOLDER_ID, else the top of My Drive).",
                Effect { destructive: false, idempotent: false },
            ),
            create_folder,
            // Without parent_folder_id it goes to DRIVE_FOLDER_ID or My Drive: no folder constraint then.
            [Evaluator::folder_or_default(|a: &CreateFolderArgs| a.parent_folder_id.as_deref())],
        )
        .worded(super::said::create_folder),
        ToolDef::evaluated(
            ToolMeta::write(
                Service::Drive,
                "copy_file",
                "Copy file",
                "Copy a file, optionally with a new name or into another folder.",
                Effect { destructive: false, idempotent: false },
            )
            .failing_for(&[Limitation::NoDriveStorageQuota]),
            copy_file,
            // From one file into a folder: claimed by both, so a card offers no constraint.
            [
                Evaluator::file(|a: &CopyFileArgs| &a.file_id),
                Evaluator::folder_or_default(|a: &CopyFileArgs| a.folder_id.as_deref()),
            ],
        )
        .worded(super::said::copy_file),
        ToolDef::evaluated(
            ToolMeta::write(
                Service::Drive,
                "move_file",
                "Move file",
                "Move a file or folder into another folder.",
                Effect { destructive: true, idempotent: true },
            ),
            move_file,
            // One file into a folder: claimed by both, so a card offers no constraint.
            [
                Evaluator::file(|a: &MoveFileArgs| &a.file_id),
                Evaluator::folder(|a: &MoveFileArgs| &a.destination_folder_id),
            ],
        )
        .worded(super::said::move_file)
        .previewed(super::preview::move_file),
        ToolDef::evaluated(
            ToolMeta::write(
                Service::Drive,
                "rename_file",
                "Rename file",
                "Rename a file or folder.",
                Effect { destructive: true, idempotent: true },
            ),
            rename_file,
            [Evaluator::file(|a: &RenameFileArgs| &a.file_id)],
        )
        .worded(super::said::rename_file)
        .previewed(super::preview::rename_file),
        ToolDef::evaluated(
            ToolMeta::write(
                Service::Drive,
                "delete_file",
                "Delete file",
                "Move a file to the trash (restorable for 30 days), or delete it for good with permanent=true.",
                Effect { destructive: true, idempotent: true },
            ),
            delete_file,
            // Into the trash may be granted for one file; permanently always asks.
            [
                Evaluator::file(|a: &DeleteFileArgs| &a.file_id),
                Evaluator::permanent_delete(|a: &DeleteFileArgs| a.permanent),
            ],
        )
        .worded(super::said::delete_file)
        .previewed(super::preview::delete_file),
        ToolDef::evaluated(
            ToolMeta::write(
                Service::Drive,
                "restore_file",
                "Restore file",
                "Take a file out of the trash.",
                Effect { destructive: false, idempotent: true },
            ),
            restore_file,
            [Evaluator::file(|a: &FileIdArgs| &a.file_id)],
        )
        .worded(super::said::restore_file),
    ]
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FileIdArgs {
    /// The file's id (from its URL or a listing).
    pub file_id: String,
}

async fn get_file_metadata(ctx: ToolContext, args: FileIdArgs) -> Result<Value, ToolError> {
    let file = ctx.google.drive().get(&args.file_id, METADATA_FIELDS).await?;
    let mut out = file_json(&file);
    if let Some(created) = &file.created_time {
        out["created_time"] = json!(created);
    }
    if let Some(description) = &file.description {
        out["description"] = json!(description);
    }
    if let Some(owner) = file.owners.first() {
        out["owner_name"] = json!(owner.display_name);
    }
    if let Some(user) = &file.last_modifying_user {
        out["last_modified_by"] = json!(user.email_address.as_ref().or(user.display_name.as_ref()));
    }
    if let Some(drive_id) = &file.drive_id {
        out["shared_drive_id"] = json!(drive_id);
    }
    if let Some(md5) = &file.md5_checksum {
        out["md5"] = json!(md5);
    }
    out["shared"] = json!(file.shared);
    out["starred"] = json!(file.starred);
    out["trashed"] = json!(file.trashed);
    if let Some(links) = &file.export_links {
        out["export_formats"] = json!(links.keys().collect::<Vec<_>>());
    }
    Ok(out)
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoArgs {}

fn bytes(value: &Option<String>) -> Option<u64> {
    value.as_deref().and_then(|v| v.parse().ok())
}

/// Bytes in the largest unit that keeps the number at or above 1, as people read sizes.
fn human(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["bytes", "KB", "MB", "GB", "TB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 { format!("{bytes} bytes") } else { format!("{value:.1} {}", UNITS[unit]) }
}

async fn get_storage_quota(ctx: ToolContext, _args: NoArgs) -> Result<Value, ToolError> {
    let about = ctx.google.drive().about("user(displayName,emailAddress),storageQuota").await?;
    let StorageQuota { limit, usage, usage_in_drive, usage_in_drive_trash } = &about.storage_quota;
    let (limit, usage) = (bytes(limit), bytes(usage));
    let summary = match (limit, usage) {
        (Some(limit), Some(usage)) => {
            format!("{} of {} used ({} free).", human(usage), human(limit), human(limit.saturating_sub(usage)))
        }
        (None, Some(usage)) => format!("{} used; the storage is unlimited.", human(usage)),
        _ => "Drive did not report usage.".to_owned(),
    };
    Ok(json!({
        "account": about.user.and_then(|u| u.email_address),
        "limit_bytes": limit,
        "usage_bytes": usage,
        "usage_in_drive_bytes": bytes(usage_in_drive),
        "usage_in_trash_bytes": bytes(usage_in_drive_trash),
        "summary": summary,
    }))
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateFolderArgs {
    /// The new folder's name.
    pub name: String,
    /// The folder to create it in (default: DRIVE_FOLDER_ID if set, else the top of My Drive).
    #[serde(default)]
    pub parent_folder_id: Option<String>,
}

async fn create_folder(ctx: ToolContext, args: CreateFolderArgs) -> Result<Value, ToolError> {
    if args.name.trim().is_empty() {
        return Err(ToolError::invalid("name is empty: give the folder a name."));
    }
    let parent = folder_or_default(&ctx, args.parent_folder_id);
    let body = metadata(&[
        ("name", json!(args.name)),
        ("mimeType", json!(mime::FOLDER)),
        ("parents", parents(parent.as_deref())),
    ]);
    let folder = ctx.google.drive().create(&body, "id,name,mimeType,parents,webViewLink").await?;
    Ok(file_json(&folder))
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CopyFileArgs {
    /// The id of the file to copy.
    pub file_id: String,
    /// The copy's name (default: Drive's, usually "Copy of …").
    #[serde(default)]
    pub new_name: Option<String>,
    /// The folder for the copy (default: next to the original, whatever DRIVE_FOLDER_ID says).
    #[serde(default)]
    pub folder_id: Option<String>,
}

async fn copy_file(ctx: ToolContext, args: CopyFileArgs) -> Result<Value, ToolError> {
    // As in the reference server, no folder means next to the original, not the configured default folder.
    let folder = args.folder_id.filter(|id| !id.trim().is_empty());
    let body = metadata(&[("name", json!(args.new_name)), ("parents", parents(folder.as_deref()))]);
    let copy = ctx.google.drive().copy(&args.file_id, &body, FILE_FIELDS).await?;
    let mut out = file_json(&copy);
    out["copied_from"] = json!(args.file_id);
    Ok(out)
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MoveFileArgs {
    /// The id of the file or folder to move.
    pub file_id: String,
    /// The folder to move it into.
    pub destination_folder_id: String,
}

async fn move_file(ctx: ToolContext, args: MoveFileArgs) -> Result<Value, ToolError> {
    let moved = ctx.google.drive().move_file(&args.file_id, &args.destination_folder_id, FILE_FIELDS).await?;
    Ok(file_json(&moved))
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RenameFileArgs {
    /// The id of the file or folder to rename.
    pub file_id: String,
    /// The new name.
    pub new_name: String,
}

async fn rename_file(ctx: ToolContext, args: RenameFileArgs) -> Result<Value, ToolError> {
    if args.new_name.trim().is_empty() {
        return Err(ToolError::invalid("new_name is empty: give the new name."));
    }
    let file = ctx.google.drive().update(&args.file_id, &json!({ "name": args.new_name }), FILE_FIELDS).await?;
    Ok(file_json(&file))
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DeleteFileArgs {
    /// The id of the file or folder to delete.
    pub file_id: String,
    /// Delete for good, skipping the trash (cannot be undone).
    #[serde(default)]
    pub permanent: bool,
}

async fn delete_file(ctx: ToolContext, args: DeleteFileArgs) -> Result<Value, ToolError> {
    let drive = ctx.google.drive();
    if args.permanent {
        // Read the name first: afterwards there is nothing left to name.
        let file = drive.get(&args.file_id, "id,name").await?;
        drive.delete(&args.file_id).await?;
        return Ok(json!({
            "id": file.id,
            "name": file.name,
            "deleted": true,
            "message": format!("{:?} was deleted permanently.", file.name),
        }));
    }
    let file = drive.update(&args.file_id, &json!({ "trashed": true }), "id,name,trashed").await?;
    Ok(json!({
        "id": file.id,
        "name": file.name,
        "trashed": file.trashed,
        "message": format!("{:?} was moved to the trash; restore_file brings it back within 30 days.", file.name),
    }))
}

async fn restore_file(ctx: ToolContext, args: FileIdArgs) -> Result<Value, ToolError> {
    let fields = format!("{FILE_FIELDS},trashed");
    let file = ctx.google.drive().update(&args.file_id, &json!({ "trashed": false }), &fields).await?;
    let mut out = file_json(&file);
    out["trashed"] = json!(file.trashed);
    if file.trashed {
        // Trash is inherited: a file whose folder is in the trash stays there with it.
        out["message"] = json!(format!(
            "{:?} is still in the trash because a folder above it is; restore that folder (folder_id) too.",
            file.name
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::human;

    #[test]
    fn sizes_read_like_people_write_them() {
        assert_eq!(human(512), "512 bytes");
        assert_eq!(human(15 * 1024 * 1024 * 1024), "15.0 GB");
    }
}
