//! What each Drive write's approval card says it will do (see [`crate::approval::sentence`]), one function
//! per tool, named after it and attached to its declaration with `.worded`.

use super::{download_folder, export, files, revisions, sharing, shortcut, star, sync, trash, upload, upload_folder};
use crate::approval::sentence::Said;

/// "… in “Reports”", or "… in your default folder" when the call names none.
fn into(said: Said, folder: Option<&str>) -> Said {
    match folder {
        Some(folder) => said.words("in").file("folder", folder),
        None => said.words("in your default Drive folder"),
    }
}

pub(super) fn create_folder(a: &files::CreateFolderArgs) -> Said {
    into(Said::new("create a folder").name(&a.name), a.parent_folder_id.as_deref())
}

pub(super) fn copy_file(a: &files::CopyFileArgs) -> Said {
    let said = Said::new("copy").file("file", &a.file_id);
    let said = match &a.new_name {
        Some(name) => said.words("as").name(name),
        None => said,
    };
    into(said, a.folder_id.as_deref())
}

pub(super) fn move_file(a: &files::MoveFileArgs) -> Said {
    Said::new("move").file("file", &a.file_id).words("into the folder").file("folder", &a.destination_folder_id)
}

pub(super) fn rename_file(a: &files::RenameFileArgs) -> Said {
    Said::new("rename").file("file", &a.file_id).words("to").name(&a.new_name)
}

pub(super) fn delete_file(a: &files::DeleteFileArgs) -> Said {
    match a.permanent {
        true => Said::new("delete").file("file", &a.file_id).words("for good (it will not go to the trash)"),
        false => Said::new("move").file("file", &a.file_id).words("to the trash"),
    }
}

pub(super) fn restore_file(a: &files::FileIdArgs) -> Said {
    Said::new("restore").file("file", &a.file_id).words("from the trash")
}

pub(super) fn download_file(a: &export::DownloadFileArgs) -> Said {
    Said::new("save").file("file", &a.file_id).words("to this computer as").value(&a.local_path)
}

pub(super) fn export_revision(a: &revisions::ExportRevisionArgs) -> Said {
    let said = Said::new("read an earlier version of").file("file", &a.file_id);
    match &a.local_path {
        Some(path) => said.words("and save it to this computer as").value(path),
        None => said,
    }
}

pub(super) fn upload_file(a: &upload::UploadFileArgs) -> Said {
    let what = if a.convert_to_doc { "upload a new Google Doc" } else { "upload a new file" };
    into(Said::new(what).name(&a.name), a.folder_id.as_deref())
}

pub(super) fn upload_local_file(a: &upload::UploadLocalFileArgs) -> Said {
    Said::new("upload the file")
        .value(&a.local_path)
        .words("from this computer into")
        .file("folder", &a.parent_folder_id)
}

pub(super) fn upload_local_folder(a: &upload_folder::UploadLocalFolderArgs) -> Said {
    Said::new("upload the folder")
        .value(&a.local_path)
        .words("and everything in it from this computer into")
        .file("folder", &a.parent_folder_id)
}

pub(super) fn sync_folder(a: &sync::SyncFolderArgs) -> Said {
    let how = match a.direction.as_str() {
        "upload" => "copy changes from this computer's folder",
        "download" => "copy changes to this computer's folder",
        _ => "sync both ways with this computer's folder",
    };
    let said = Said::new("sync the folder").file("folder", &a.folder_id).words(format!("({how}")).value(&a.local_path);
    if a.dry_run { said.words("; a dry run that changes nothing)") } else { said.words(")") }
}

pub(super) fn download_folder(a: &download_folder::DownloadFolderArgs) -> Said {
    Said::new("save the folder")
        .file("folder", &a.folder_id)
        .words("and its subfolders to this computer at")
        .value(&a.local_path)
}

/// A Drive role in the person's words.
pub(super) fn role_words(role: &str) -> String {
    match role {
        "reader" => "a viewer".to_owned(),
        "commenter" => "a commenter".to_owned(),
        "writer" => "an editor".to_owned(),
        "fileOrganizer" => "a content manager".to_owned(),
        "organizer" => "a manager".to_owned(),
        "owner" => "the owner".to_owned(),
        other => format!("“{}”", crate::shown::shown(other)),
    }
}

/// Who a sharing entry reaches: an address, everyone at a domain, or anyone with the link.
fn whom(spec: &sharing::ShareSpec) -> Said {
    let email = spec.email_address.as_deref().or(spec.email_address_drive.as_deref());
    match (spec.kind.as_deref(), email, spec.domain.as_deref()) {
        (Some("anyone"), _, _) => Said::new("anyone with the link"),
        (_, Some(email), _) => Said::default().value(email),
        (_, None, Some(domain)) => Said::new("everyone at").value(domain),
        _ => Said::new("someone not named"),
    }
}

/// "… with anna@example.com as an editor, everyone at example.com as a viewer".
fn shared_with(mut said: Said, specs: &[sharing::ShareSpec], default_role: &str) -> Said {
    for (i, spec) in specs.iter().enumerate() {
        said = said.words(if i == 0 { "with" } else { "," });
        let role = role_words(spec.role.as_deref().unwrap_or(default_role));
        said = said.then(whom(spec)).words(format!("as {role}"));
    }
    said
}

pub(super) fn share_file(a: &sharing::ShareFileArgs) -> Said {
    let said = shared_with(Said::new("share").file("file", &a.file_id), &a.permissions, sharing::SHARE_FILE_ROLE);
    if a.send_notification { said.words("(Google emails them)") } else { said }
}

pub(super) fn share_spreadsheet(a: &sharing::ShareSpreadsheetArgs) -> Said {
    let said = Said::new("share").file("spreadsheet", &a.spreadsheet_id);
    let said = shared_with(said, &a.recipients, sharing::SHARE_SPREADSHEET_ROLE);
    if a.send_notification { said.words("(Google emails them)") } else { said }
}

pub(super) fn update_permission(a: &sharing::UpdatePermissionArgs) -> Said {
    Said::new("change an access to")
        .file("file", &a.file_id)
        .words(": make")
        .value(&a.permission_id)
        .words(role_words(&a.role))
}

pub(super) fn remove_permission(a: &sharing::RemovePermissionArgs) -> Said {
    Said::new("take away the access").value(&a.permission_id).words("to").file("file", &a.file_id)
}

pub(super) fn transfer_ownership(a: &sharing::TransferOwnershipArgs) -> Said {
    Said::new("make")
        .value(&a.new_owner_email)
        .words("the owner of")
        .file("file", &a.file_id)
        .words("(you keep edit access)")
}

pub(super) fn create_shortcut(a: &shortcut::CreateShortcutArgs) -> Said {
    into(Said::new("create a shortcut to").file("file", &a.target_file_id), a.folder_id.as_deref())
}

pub(super) fn star_file(a: &star::StarArgs) -> Said {
    Said::new("star").file("file", &a.file_id)
}

pub(super) fn unstar_file(a: &star::StarArgs) -> Said {
    Said::new("remove the star from").file("file", &a.file_id)
}

pub(super) fn empty_trash(a: &trash::EmptyTrashArgs) -> Said {
    match &a.drive_id {
        Some(drive) => Said::new("delete every file in the trash of the shared drive").value(drive).words("for good"),
        None => Said::new("delete every file in your Drive trash for good (this cannot be undone)"),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn sharing_says_who_gains_which_access() {
        let args: sharing::ShareFileArgs = serde_json::from_value(json!({
            "file_id": "F1",
            "permissions": [{"email_address": "anna@example.com", "role": "writer"}, {"type": "anyone"}]
        }))
        .unwrap();
        let named = share_file(&args).named(|_| Some("Plan.docx".to_owned()));
        assert_eq!(
            named.text(),
            "share “Plan.docx” with anna@example.com as an editor, anyone with the link as a viewer (Google emails them)"
        );
    }

    #[test]
    fn a_delete_says_whether_it_goes_to_the_trash() {
        let trash: files::DeleteFileArgs = serde_json::from_value(json!({"file_id": "F1"})).unwrap();
        let named = delete_file(&trash).named(|_| Some("Old notes".to_owned()));
        assert_eq!(named.text(), "move “Old notes” to the trash");
        let gone: files::DeleteFileArgs = serde_json::from_value(json!({"file_id": "F1", "permanent": true})).unwrap();
        assert!(delete_file(&gone).named(|_| None).text().contains("for good"));
    }
}
