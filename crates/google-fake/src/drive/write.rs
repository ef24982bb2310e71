//! Creating and changing files, shared by `files.create` / `files.update` and their upload twins.

use serde_json::{Map, Value};

use super::access::insufficient;
use super::params::{Params, bool_field, str_field, time_field};
use super::{
    DOCUMENT, FOLDER, File, Node, Permission, Role, SHORTCUT, SPREADSHEET, native, new_file_id, new_native_id, now,
    record,
};
use crate::activity::{Action, CreateKind, DeleteKind};
use crate::errors::ApiError;
use crate::state::{Identity, World};

/// Content sent with a create or update: the bytes and the media part's `Content-Type`.
pub(crate) struct Media {
    pub bytes: Vec<u8>,
    pub mime_type: Option<String>,
}

/// Members of a `File` body that `files.update` may set.
const WRITABLE: &[&str] = &[
    "name",
    "mimeType",
    "description",
    "starred",
    "trashed",
    "properties",
    "appProperties",
    "modifiedTime",
    "viewedByMeTime",
    "originalFilename",
    "writersCanShare",
    "copyRequiresWriterPermission",
    "viewersCanCopyContent",
    "folderColorRgb",
    "contentHints",
    "contentRestrictions",
    "inheritedPermissionsDisabled",
    "downloadRestrictions",
];

/// Service accounts own nothing outside shared drives since Google removed their storage quota.
pub(crate) fn service_account_quota() -> ApiError {
    ApiError::legacy(
        403,
        "storageQuotaExceeded",
        "Service Accounts do not have storage quota. Leverage shared drives (https://developers.google.com/workspace/drive/api/guides/about-shareddrives), or use OAuth delegation (http://support.google.com/a/answer/7281227) instead.",
    )
}

fn one_parent() -> ApiError {
    ApiError::legacy(403, "cannotAddParent", "Increasing the number of parents is not allowed.")
}

/// The `parents` of a create or copy body: at most one id, `root` resolved.
fn requested_parent(world: &mut World, body: &Map<String, Value>, who: &Identity) -> Result<Option<String>, ApiError> {
    let parents = match body.get("parents") {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::Array(items)) => items
            .iter()
            .map(|item| item.as_str().map(str::to_owned))
            .collect::<Option<Vec<String>>>()
            .ok_or_else(|| ApiError::drive_invalid("parents", "Invalid Value"))?,
        Some(_) => return Err(ApiError::drive_invalid("parents", "Invalid Value")),
    };
    match parents.as_slice() {
        [] => Ok(None),
        [parent] => Ok(Some(world.drive.resolve(parent, who))),
        _ => Err(one_parent()),
    }
}

fn string_map(
    value: &Value,
    name: &'static str,
    target: &mut std::collections::BTreeMap<String, String>,
) -> Result<(), ApiError> {
    let Value::Object(entries) = value else {
        return Err(ApiError::drive_invalid(name, "Invalid Value"));
    };
    for (key, value) in entries {
        match value {
            Value::Null => {
                target.remove(key);
            }
            Value::String(text) => {
                target.insert(key.clone(), text.clone());
            }
            other => {
                target.insert(key.clone(), other.to_string());
            }
        }
    }
    Ok(())
}

/// Applies the plain metadata members of `body` to `file` as `who`.
fn apply_metadata(file: &mut File, body: &Map<String, Value>, who: &Identity) -> Result<(), ApiError> {
    let me = who.email.trim().to_ascii_lowercase();
    if let Some(description) = str_field(body, "description")? {
        file.description = (!description.is_empty()).then(|| description.to_owned());
    }
    if let Some(starred) = bool_field(body, "starred")? {
        if starred {
            file.starred_by.insert(me.clone());
        } else {
            file.starred_by.remove(&me);
        }
    }
    if let Some(value) = body.get("properties").filter(|v| !v.is_null()) {
        string_map(value, "properties", &mut file.properties)?;
    }
    if let Some(value) = body.get("appProperties").filter(|v| !v.is_null()) {
        string_map(value, "appProperties", &mut file.app_properties)?;
    }
    if let Some(name) = str_field(body, "originalFilename")? {
        file.original_filename = Some(name.to_owned());
    }
    if let Some(flag) = bool_field(body, "writersCanShare")? {
        file.writers_can_share = flag;
    }
    if let Some(flag) = bool_field(body, "copyRequiresWriterPermission")? {
        file.copy_requires_writer_permission = flag;
    }
    if let Some(color) = str_field(body, "folderColorRgb")? {
        file.folder_color_rgb = Some(color.to_owned());
    }
    if let Some(time) = time_field(body, "viewedByMeTime")? {
        file.viewed_by.insert(me.clone(), time);
    }
    if let Some(time) = time_field(body, "modifiedTime")? {
        file.modified_time = time;
        file.modified_by.insert(me, time);
    }
    Ok(())
}

/// Creates a file from a `File` body and optional content; returns its id. Enforces the parent's access,
/// shared-drive support and the service-account quota rule, and converts CSV/text into Sheets/Docs when
/// the body asks for a Google type.
pub(crate) fn create_file(
    world: &mut World,
    who: &Identity,
    params: &Params,
    body: &Map<String, Value>,
    media: Option<Media>,
) -> Result<String, ApiError> {
    let all_drives = params.all_drives()?;
    let uploaded = media.is_some();
    let name = str_field(body, "name")?.unwrap_or("Untitled").to_owned();
    let mime_type = str_field(body, "mimeType")?
        .map(str::to_owned)
        .or_else(|| media.as_ref().and_then(|m| m.mime_type.clone()))
        .unwrap_or_else(|| "application/octet-stream".to_owned());
    let parent = match requested_parent(world, body, who)? {
        Some(parent) => parent,
        None => world.drive.root_id(&who.email),
    };
    let drive_id = world.drive.check_new_parent(&parent, who, all_drives)?.drive_id.clone();
    if who.is_service_account() && drive_id.is_none() && mime_type != FOLDER && mime_type != SHORTCUT {
        return Err(service_account_quota());
    }
    let shortcut_target = if mime_type == SHORTCUT {
        let target =
            body.get("shortcutDetails").and_then(|d| d.get("targetId")).and_then(Value::as_str).ok_or_else(|| {
                ApiError::legacy(400, "required", "The shortcut target ID is required.").at("shortcutDetails.targetId")
            })?;
        world.drive.open(target, who, true)?;
        Some(target.to_owned())
    } else {
        None
    };
    let requested_id = str_field(body, "id")?.map(str::to_owned);
    if let Some(id) = &requested_id
        && world.drive.contains(id)
    {
        return Err(ApiError::legacy(409, "duplicate", "A file already exists with the provided ID.").at("id"));
    }
    let native_id = match mime_type.as_str() {
        SPREADSHEET => {
            let rows = media.as_ref().map(sheet_rows).unwrap_or_default();
            Some(native::create_spreadsheet(world, &name, rows, who))
        }
        DOCUMENT => {
            let text = media.as_ref().map(document_text).unwrap_or_default();
            Some(native::create_document(world, &name, &text, who))
        }
        // Slides converts no upload; an empty presentation is made as presentations.create makes one.
        crate::slides::MIME_TYPE if media.is_none() => Some(world.create_presentation(&name, who)),
        other if other.starts_with("application/vnd.google-apps.") && other != FOLDER && other != SHORTCUT => {
            Some(new_native_id())
        }
        _ => None,
    };
    let id = native_id.or(requested_id).unwrap_or_else(new_file_id);
    let store = &mut world.drive;
    if store.contains(&id) {
        // The content store registered the file itself: move it where the request asked.
        store.set_parent(&id, &parent);
    } else {
        store.insert_item(id.clone(), &name, &mime_type, Some(&parent), &who.email);
    }
    let is_google = mime_type.starts_with("application/vnd.google-apps.");
    if let Some(file) = store.files.get_mut(&id) {
        file.name.clone_from(&name);
        file.shortcut_target = shortcut_target;
        if !is_google {
            let bytes = media.map(|m| m.bytes).unwrap_or_default();
            file.content = Some(bytes);
            file.original_filename = Some(name.clone());
        }
        if let Some(time) = time_field(body, "createdTime")? {
            file.created_time = time;
        }
        apply_metadata(file, body, who)?;
    }
    // Spreadsheets and documents kept their first revision when their content store created them.
    world.drive.record_blob_revision(&id);
    let kind = if uploaded { CreateKind::Upload } else { CreateKind::New };
    record(world, who, &id, Action::Create(kind));
    Ok(id)
}

/// The text of an upload converted into a document (HTML loses its markup; a final newline is the
/// document's own).
fn document_text(media: &Media) -> String {
    let text = String::from_utf8_lossy(&media.bytes).into_owned();
    let text = if media.mime_type.as_deref().is_some_and(|m| m.starts_with("text/html")) {
        native::html_text(&text)
    } else {
        text
    };
    text.strip_suffix('\n').map(str::to_owned).unwrap_or(text)
}

/// Rows of an uploaded CSV/TSV converted into a spreadsheet.
fn sheet_rows(media: &Media) -> Vec<Vec<String>> {
    let text = String::from_utf8_lossy(&media.bytes);
    let separator = if media.mime_type.as_deref() == Some("text/tab-separated-values") { '\t' } else { ',' };
    native::parse_delimited(&text, separator)
}

/// Applies a `files.update` (metadata, `addParents`/`removeParents`, new content) to `id` as `who`.
pub(crate) fn update_file(
    world: &mut World,
    who: &Identity,
    id: &str,
    params: &Params,
    body: &Map<String, Value>,
    media: Option<Media>,
) -> Result<(), ApiError> {
    let all_drives = params.all_drives()?;
    if body.keys().any(|key| !WRITABLE.contains(&key.as_str())) {
        return Err(ApiError::legacy(
            403,
            "fieldNotWritable",
            "The resource body includes fields which are not directly writable.",
        ));
    }
    let (file, role) = world.drive.open(id, who, all_drives)?;
    let (old_name, old_parent, node, is_google) =
        (file.name.clone(), file.parent.clone(), file.node, file.is_google_type());
    let trash = bool_field(body, "trashed")?;
    let trash_change = trash.filter(|t| *t != file.explicitly_trashed);
    if trash_change.is_some() && !world.drive.can_trash(file, role) {
        return Err(insufficient(id));
    }
    let reader_only = ["starred", "viewedByMeTime", "trashed"];
    let edits = body.keys().any(|k| !reader_only.contains(&k.as_str()))
        || media.is_some()
        || params.text("addParents").is_some()
        || params.text("removeParents").is_some();
    if edits && role < Role::Writer {
        return Err(insufficient(id));
    }
    if node != Node::Item && (edits || trash_change.is_some()) {
        return Err(insufficient(id));
    }
    if media.is_some() && is_google {
        return Err(ApiError::legacy(
            400,
            "badRequest",
            "Uploading new content to a Google Docs Editors file or folder is not supported by the emulator.",
        ));
    }
    let new_parent = move_target(world, who, id, params, old_parent.as_deref(), all_drives)?;
    let name = str_field(body, "name")?.map(str::to_owned);
    let me = who.email.trim().to_ascii_lowercase();
    let store = &mut world.drive;
    if let Some(file) = store.files.get_mut(id) {
        apply_metadata(file, body, who)?;
        if let Some(name) = &name {
            file.name.clone_from(name);
        }
        if let Some(trash) = trash_change {
            file.explicitly_trashed = trash;
            file.trashed_time = trash.then(now);
            file.trashing_user = trash.then(|| me.clone());
        }
        if let Some(media) = &media {
            file.content = Some(media.bytes.clone());
            if let Some(mime) = str_field(body, "mimeType")?.map(str::to_owned).or_else(|| media.mime_type.clone()) {
                file.mime_type = mime;
            }
        }
        let changed =
            media.is_some() || name.as_ref().is_some_and(|n| *n != old_name) || body.contains_key("description");
        if changed && !body.contains_key("modifiedTime") {
            file.touch(&me);
        }
    }
    if let Some(parent) = &new_parent {
        apply_move(world, who, id, parent.as_deref());
        record(
            world,
            who,
            id,
            Action::Move { added: parent.iter().cloned().collect(), removed: old_parent.iter().cloned().collect() },
        );
    }
    if let Some(name) = name.filter(|n| *n != old_name) {
        if let Some(mime) = world.drive.get(id).map(|f| f.mime_type.clone()) {
            native::rename(world, id, &mime, &name);
        }
        record(world, who, id, Action::Rename { old_title: old_name, new_title: name });
    }
    if media.is_some() {
        world.record_revision(id);
        record(world, who, id, Action::Edit);
    }
    match trash_change {
        Some(true) => record(world, who, id, Action::Delete(DeleteKind::Trash)),
        Some(false) => record(world, who, id, Action::Restore),
        None => {}
    }
    Ok(())
}

/// The new parent requested by `addParents` / `removeParents`: `None` for no move, `Some(None)` when the
/// only parent is removed.
fn move_target(
    world: &mut World,
    who: &Identity,
    id: &str,
    params: &Params,
    current: Option<&str>,
    all_drives: bool,
) -> Result<Option<Option<String>>, ApiError> {
    let add: Vec<String> = params.list("addParents").iter().map(|p| world.drive.resolve(p, who)).collect();
    let remove: Vec<String> = params.list("removeParents").iter().map(|p| world.drive.resolve(p, who)).collect();
    if add.is_empty() && remove.is_empty() {
        return Ok(None);
    }
    let mut parents: Vec<String> = current.map(str::to_owned).into_iter().collect();
    parents.retain(|p| !remove.contains(p));
    for parent in &add {
        if !parents.contains(parent) {
            parents.push(parent.clone());
        }
    }
    if parents.len() > 1 {
        return Err(one_parent());
    }
    let target = parents.pop();
    let in_shared_drive = world.drive.get(id).is_some_and(|f| f.drive_id.is_some());
    match &target {
        Some(parent) => {
            world.drive.check_new_parent(parent, who, all_drives)?;
            if world.drive.is_within(parent, id) {
                return Err(ApiError::legacy(
                    400,
                    "badRequest",
                    "A folder cannot be moved into itself or one of its descendants.",
                )
                .at("addParents"));
            }
        }
        None if in_shared_drive => {
            return Err(ApiError::legacy(
                403,
                "teamDrivesParentLimit",
                "A shared drive item must have exactly one parent.",
            ));
        }
        None => {}
    }
    if target.as_deref() == current {
        return Ok(None);
    }
    Ok(Some(target))
}

/// Re-parents `id`; moving between My Drive and a shared drive changes the drive of the whole subtree
/// (items leaving a shared drive become the mover's).
fn apply_move(world: &mut World, who: &Identity, id: &str, parent: Option<&str>) {
    let store = &mut world.drive;
    let old_drive = store.get(id).and_then(|f| f.drive_id.clone());
    let new_drive = parent.and_then(|p| store.get(p)).and_then(|p| p.drive_id.clone());
    if let Some(file) = store.files.get_mut(id) {
        file.parent = parent.map(str::to_owned);
    }
    if old_drive != new_drive {
        store.set_drive_of_subtree(id, new_drive.clone());
        if new_drive.is_none() {
            for member in store.subtree(id) {
                if let Some(file) = store.files.get_mut(&member)
                    && file.owner().is_none()
                {
                    file.permissions.push(Permission::user(&who.email, Role::Owner, None));
                }
            }
        }
    }
    if let Some(file) = store.files.get_mut(id) {
        file.version += 1;
    }
}
