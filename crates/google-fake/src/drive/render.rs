//! The JSON Drive answers for files, users and permissions, complete; `fields` then cuts it down.
//! int64 members (`size`, `version`, `quotaBytesUsed`) are strings, as Google sends them.

use md5::{Digest, Md5};
use serde_json::{Map, Value, json};

use super::{File, Grantee, Node, Permission, Role, Store, native, permission_id, rfc3339};
use crate::state::Identity;

/// Where Google opens a file in the browser.
pub(crate) fn web_view_link(file: &File) -> String {
    let id = &file.id;
    match file.mime_type.as_str() {
        super::FOLDER => format!("https://drive.google.com/drive/folders/{id}"),
        super::SPREADSHEET => {
            format!("https://docs.google.com/spreadsheets/d/{id}/edit?usp=drivesdk")
        }
        super::DOCUMENT => format!("https://docs.google.com/document/d/{id}/edit?usp=drivesdk"),
        "application/vnd.google-apps.presentation" => {
            format!("https://docs.google.com/presentation/d/{id}/edit?usp=drivesdk")
        }
        "application/vnd.google-apps.form" => {
            format!("https://docs.google.com/forms/d/{id}/edit?usp=drivesdk")
        }
        "application/vnd.google-apps.drawing" => {
            format!("https://docs.google.com/drawings/d/{id}/edit?usp=drivesdk")
        }
        _ => format!("https://drive.google.com/file/d/{id}/view?usp=drivesdk"),
    }
}

pub(crate) fn md5_hex(bytes: &[u8]) -> String {
    Md5::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// The extension Drive derives from a blob's name (`report.tar.gz` → `tar.gz`).
fn full_extension(name: &str) -> Option<String> {
    let (_, rest) = name.split_once('.')?;
    (!rest.is_empty() && !rest.contains(' ')).then(|| rest.to_owned())
}

impl Store {
    /// A `User` resource.
    pub(crate) fn user_json(&self, email: &str, who: &Identity) -> Value {
        json!({
            "kind": "drive#user",
            "displayName": self.display_name(email),
            "emailAddress": email,
            "me": email.eq_ignore_ascii_case(&who.email),
            "permissionId": permission_id(email),
            "photoLink": "https://lh3.googleusercontent.com/a/default-user=s64",
        })
    }

    /// A file's `capabilities` for a caller with `role`.
    fn capabilities(&self, file: &File, role: Option<Role>) -> Value {
        let role = role.unwrap_or(Role::Reader);
        let edit = role >= Role::Writer;
        let folder = file.is_folder();
        let mut caps = json!({
            "canAddChildren": folder && edit,
            "canComment": role >= Role::Commenter,
            "canCopy": !folder && (edit || !file.copy_requires_writer_permission),
            "canDelete": self.can_delete(file, role),
            "canDownload": edit || !file.copy_requires_writer_permission,
            "canEdit": edit,
            "canListChildren": folder,
            "canModifyContent": edit,
            "canMoveItemWithinDrive": edit,
            "canReadRevisions": edit,
            "canRemoveChildren": folder && edit,
            "canRename": edit,
            "canShare": self.can_share(file, role),
            "canTrash": self.can_trash(file, role),
            "canUntrash": self.can_trash(file, role),
        });
        if file.drive_id.is_some() {
            caps["canReadDrive"] = json!(true);
        }
        caps
    }

    /// The complete `File` resource as `who` sees it.
    pub(crate) fn file_json(&self, file: &File, who: &Identity) -> Value {
        let me = who.email.trim().to_ascii_lowercase();
        let role = self.role_on(file, who, true);
        let trashed = self.is_trashed(file);
        let mut out = Map::new();
        let mut put = |key: &str, value: Value| {
            out.insert(key.to_owned(), value);
        };
        put("kind", json!("drive#file"));
        put("id", json!(file.id));
        put("name", json!(file.name));
        put("mimeType", json!(file.mime_type));
        if let Some(description) = &file.description {
            put("description", json!(description));
        }
        put("starred", json!(file.starred_by.contains(&me)));
        put("trashed", json!(trashed));
        put("explicitlyTrashed", json!(file.explicitly_trashed));
        if let Some(parent) = &file.parent {
            put("parents", json!([parent]));
        }
        if !file.properties.is_empty() {
            put("properties", json!(file.properties));
        }
        if !file.app_properties.is_empty() {
            put("appProperties", json!(file.app_properties));
        }
        put("spaces", json!(["drive"]));
        put("version", json!(file.version.to_string()));
        put("webViewLink", json!(web_view_link(file)));
        put("iconLink", json!(format!("https://drive-thirdparty.googleusercontent.com/16/type/{}", file.mime_type)));
        put("hasThumbnail", json!(false));
        put("thumbnailVersion", json!("0"));
        put("viewedByMe", json!(file.viewed_by.contains_key(&me)));
        if let Some(time) = file.viewed_by.get(&me) {
            put("viewedByMeTime", json!(rfc3339(time)));
        }
        put("createdTime", json!(rfc3339(&file.created_time)));
        put("modifiedTime", json!(rfc3339(&file.modified_time)));
        put("modifiedByMe", json!(file.modified_by.contains_key(&me)));
        if let Some(time) = file.modified_by.get(&me) {
            put("modifiedByMeTime", json!(rfc3339(time)));
        }
        if let Some((time, by)) = self.shared_with_me(file, who) {
            put("sharedWithMeTime", json!(rfc3339(&time)));
            if let Some(by) = by {
                put("sharingUser", self.user_json(&by, who));
            }
        }
        if let Some(user) = &file.last_modifying_user {
            put("lastModifyingUser", self.user_json(user, who));
        }
        match &file.drive_id {
            Some(drive_id) => {
                put("driveId", json!(drive_id));
                put("teamDriveId", json!(drive_id));
                put("hasAugmentedPermissions", json!(file.node == Node::Item && !file.permissions.is_empty()));
                if file.explicitly_trashed {
                    if let Some(time) = &file.trashed_time {
                        put("trashedTime", json!(rfc3339(time)));
                    }
                    if let Some(user) = &file.trashing_user {
                        put("trashingUser", self.user_json(user, who));
                    }
                }
            }
            None => {
                if let Some(owner) = file.owner() {
                    put("owners", json!([self.user_json(owner, who)]));
                    put("ownedByMe", json!(owner == me));
                }
                put("shared", json!(self.is_shared(file)));
                put("writersCanShare", json!(file.writers_can_share));
            }
        }
        put("capabilities", self.capabilities(file, role));
        put("viewersCanCopyContent", json!(!file.copy_requires_writer_permission));
        put("copyRequiresWriterPermission", json!(file.copy_requires_writer_permission));
        if role.is_some_and(|r| self.can_share(file, r)) {
            let permissions: Vec<Value> = self
                .effective_permissions(file)
                .iter()
                .map(|(p, from)| self.permission_json(p, file, from.as_deref()))
                .collect();
            put("permissionIds", json!(permissions.iter().filter_map(|p| p.get("id").cloned()).collect::<Vec<_>>()));
            put("permissions", json!(permissions));
        }
        if let Some(color) = &file.folder_color_rgb {
            put("folderColorRgb", json!(color));
        }
        match &file.content {
            Some(bytes) => {
                put("size", json!(bytes.len().to_string()));
                put("quotaBytesUsed", json!(bytes.len().to_string()));
                put("md5Checksum", json!(md5_hex(bytes)));
                let head = file.revisions.last().map(|r| r.id(&file.id));
                put("headRevisionId", json!(head.unwrap_or_else(|| format!("0B{}", &permission_id(&file.id)[..12]))));
                put("originalFilename", json!(file.original_filename.clone().unwrap_or_else(|| file.name.clone())));
                if let Some(extension) = full_extension(&file.name) {
                    let last = extension.rsplit('.').next().unwrap_or_default().to_owned();
                    put("fullFileExtension", json!(extension));
                    put("fileExtension", json!(last));
                }
                put("webContentLink", json!(format!("https://drive.google.com/uc?id={}&export=download", file.id)));
            }
            None => {
                put("quotaBytesUsed", json!("0"));
            }
        }
        if let Some(formats) = native::export_formats(&file.mime_type) {
            let links: Map<String, Value> = formats
                .iter()
                .map(|(mime, ext)| {
                    (
                        (*mime).to_owned(),
                        json!(format!(
                            "https://docs.google.com/feeds/download/export?id={}&exportFormat={ext}",
                            file.id
                        )),
                    )
                })
                .collect();
            put("exportLinks", Value::Object(links));
        }
        if let Some(target) = &file.shortcut_target {
            let target_mime = self.files.get(target).map(|t| t.mime_type.clone()).unwrap_or_default();
            put("shortcutDetails", json!({ "targetId": target, "targetMimeType": target_mime }));
        }
        Value::Object(out)
    }

    /// A file's permissions, inherited ones included, each with the id of the folder it comes from.
    pub(crate) fn effective_permissions<'a>(&'a self, file: &'a File) -> Vec<(&'a Permission, Option<String>)> {
        let mut out: Vec<(&Permission, Option<String>)> = Vec::new();
        for (depth, node) in self.lineage(file).into_iter().enumerate() {
            for permission in &node.permissions {
                if depth > 0 && permission.role == Role::Owner {
                    continue;
                }
                if out.iter().any(|(seen, _)| seen.id == permission.id) {
                    continue;
                }
                out.push((permission, (depth > 0).then(|| node.id.clone())));
            }
        }
        out
    }

    /// A `Permission` resource; `inherited_from` is the folder the grant comes from, if not this file.
    pub(crate) fn permission_json(&self, permission: &Permission, file: &File, inherited_from: Option<&str>) -> Value {
        let mut out = json!({
            "kind": "drive#permission",
            "id": permission.id,
            "type": permission.grantee.as_str(),
            "role": permission.role.as_str(),
        });
        match permission.grantee {
            Grantee::User | Grantee::Group => {
                if let Some(email) = &permission.email {
                    out["emailAddress"] = json!(email);
                    out["displayName"] = json!(self.display_name(email));
                    out["photoLink"] = json!("https://lh3.googleusercontent.com/a/default-user=s64");
                }
                out["deleted"] = json!(false);
                if permission.grantee == Grantee::User && file.drive_id.is_none() {
                    out["pendingOwner"] = json!(false);
                }
            }
            Grantee::Domain => {
                if let Some(domain) = &permission.domain {
                    out["domain"] = json!(domain);
                    out["displayName"] = json!(domain);
                }
                out["allowFileDiscovery"] = json!(permission.allow_file_discovery);
            }
            Grantee::Anyone => {
                out["allowFileDiscovery"] = json!(permission.allow_file_discovery);
            }
        }
        if let Some(time) = &permission.expiration_time {
            out["expirationTime"] = json!(rfc3339(time));
        }
        if file.drive_id.is_some() {
            let member = inherited_from.is_some_and(|from| self.drives.contains_key(from))
                || (file.node == Node::SharedDriveRoot && inherited_from.is_none());
            let mut detail = json!({
                "permissionType": if member { "member" } else { "file" },
                "role": permission.role.as_str(),
                "inherited": inherited_from.is_some(),
            });
            if let Some(from) = inherited_from {
                detail["inheritedFrom"] = json!(from);
            }
            out["permissionDetails"] = json!([detail]);
        }
        out
    }
}
