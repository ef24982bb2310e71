//! `files.get` (metadata and `alt=media`), `files.create`, `files.update`, `files.delete`, `files.copy`,
//! `files.export` and `files.emptyTrash`.

use axum::body::Bytes;
use axum::extract::Path;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value};

use super::access::insufficient;
use super::params::{Params, json_body, respond, str_field};
use super::write::{create_file, service_account_quota, update_file};
use super::{Call, Node, Role, native, new_file_id, new_native_id, record};
use crate::activity::{Action, CreateKind, DeleteKind};
use crate::call::Reply;
use crate::errors::ApiError;
use crate::state::{Identity, World};

/// What `files.get`, `create`, `update` and `copy` answer without `fields`.
pub(crate) const FILE_DEFAULT: &str = "kind,id,name,mimeType,resourceKey";

/// Drive's largest export.
const EXPORT_LIMIT: usize = 10 * 1024 * 1024;

/// The file `id` as `who` sees it, cut to the request's `fields`.
pub(crate) fn file_response(world: &World, who: &Identity, id: &str, params: &Params) -> Reply {
    let file = world.drive.file(id)?;
    respond(params, FILE_DEFAULT, "File", &world.drive.file_json(file, who))
}

/// Raw bytes with a content type.
pub(crate) fn bytes_response(bytes: Vec<u8>, mime_type: &str) -> Response {
    let mut response = (StatusCode::OK, bytes).into_response();
    if let Ok(value) = HeaderValue::from_str(mime_type) {
        response.headers_mut().insert(header::CONTENT_TYPE, value);
    }
    response
}

/// `GET /drive/v3/files/{fileId}`; `alt=media` downloads a blob's bytes.
pub(crate) async fn get(Path(file_id): Path<String>, call: Call) -> Reply {
    call.run(|world, who, params| {
        let id = world.drive.resolve(&file_id, &who);
        let (file, _) = world.drive.open(&id, &who, params.all_drives()?)?;
        match params.get("alt").unwrap_or("json") {
            "json" => file_response(world, &who, &id, params),
            "media" => {
                let Some(bytes) = file.content.clone().filter(|_| !file.is_google_type()) else {
                    return Err(ApiError::legacy(
                        403,
                        "fileNotDownloadable",
                        "Only files with binary content can be downloaded. Use Export with Docs Editors files.",
                    )
                    .at("alt"));
                };
                Ok(bytes_response(bytes, &file.mime_type))
            }
            _ => Err(ApiError::drive_invalid("alt", "Invalid Value")),
        }
    })
}

/// The metadata of a request to the metadata URL, which carries no `uploadType`.
fn metadata_only(params: &Params, body: &[u8]) -> Result<Map<String, Value>, ApiError> {
    if params.get("uploadType").is_some() {
        return Err(super::upload::wrong_url());
    }
    json_body(body)
}

/// `POST /drive/v3/files`: metadata only (folders, Google types, shortcuts, empty blobs).
pub(crate) async fn create(call: Call, body: Bytes) -> Reply {
    call.run(|world, who, params| {
        let body = metadata_only(params, &body)?;
        let id = create_file(world, &who, params, &body, None)?;
        file_response(world, &who, &id, params)
    })
}

/// `PATCH /drive/v3/files/{fileId}`: metadata, moves (`addParents`/`removeParents`), trash and restore.
pub(crate) async fn update(Path(file_id): Path<String>, call: Call, body: Bytes) -> Reply {
    call.run(|world, who, params| {
        let body = metadata_only(params, &body)?;
        let id = world.drive.resolve(&file_id, &who);
        update_file(world, &who, &id, params, &body, None)?;
        file_response(world, &who, &id, params)
    })
}

/// Deletes `id` and everything below it for good, content stores included.
fn delete_tree(world: &mut World, id: &str) {
    for member in world.drive.subtree(id) {
        if let Some(file) = world.drive.files.remove(&member) {
            world.drive.comments.remove(&member);
            if file.is_editor_file() {
                native::remove(world, &member, &file.mime_type);
            }
        }
    }
}

/// `DELETE /drive/v3/files/{fileId}`: permanent, children of a folder included.
pub(crate) async fn delete(Path(file_id): Path<String>, call: Call) -> Reply {
    call.run(|world, who, params| {
        let id = world.drive.resolve(&file_id, &who);
        let (file, role) = world.drive.open(&id, &who, params.all_drives()?)?;
        if !world.drive.can_delete(file, role) {
            return Err(insufficient(&id));
        }
        record(world, &who, &id, Action::Delete(DeleteKind::PermanentDelete));
        delete_tree(world, &id);
        Ok(StatusCode::NO_CONTENT.into_response())
    })
}

/// `DELETE /drive/v3/files/trash`: empties the caller's trash, or a shared drive's (`driveId`).
pub(crate) async fn empty_trash(call: Call) -> Reply {
    call.run(|world, who, params| {
        let me = who.email.trim().to_ascii_lowercase();
        let doomed: Vec<String> = match params.text("driveId") {
            Some(drive_id) => {
                let (_, role) = world.drive.open(drive_id, &who, true)?;
                if role < Role::Organizer {
                    return Err(insufficient(drive_id));
                }
                world
                    .drive
                    .files
                    .values()
                    .filter(|f| f.explicitly_trashed && f.drive_id.as_deref() == Some(drive_id))
                    .map(|f| f.id.clone())
                    .collect()
            }
            None => world
                .drive
                .files
                .values()
                .filter(|f| f.explicitly_trashed && f.drive_id.is_none() && f.owner() == Some(me.as_str()))
                .map(|f| f.id.clone())
                .collect(),
        };
        for id in doomed {
            if world.drive.contains(&id) {
                record(world, &who, &id, Action::Delete(DeleteKind::PermanentDelete));
                delete_tree(world, &id);
            }
        }
        Ok(StatusCode::NO_CONTENT.into_response())
    })
}

/// `POST /drive/v3/files/{fileId}/copy`.
pub(crate) async fn copy(Path(file_id): Path<String>, call: Call, body: Bytes) -> Reply {
    call.run(|world, who, params| copy_file(world, &who, params, &file_id, &body))
}

fn copy_file(world: &mut World, who: &Identity, params: &Params, file_id: &str, body: &[u8]) -> Reply {
    let body = json_body(body)?;
    let all_drives = params.all_drives()?;
    let id = world.drive.resolve(file_id, who);
    let (source, role) = world.drive.open(&id, who, all_drives)?;
    let copyable = !source.is_folder() && source.node == Node::Item;
    if !copyable || (source.copy_requires_writer_permission && role < Role::Writer) {
        return Err(ApiError::legacy(403, "cannotCopyFile", "This file cannot be copied by the user."));
    }
    let source = source.clone();
    let name = str_field(&body, "name")?.map_or_else(|| format!("Copy of {}", source.name), str::to_owned);
    // Without `parents` the copy goes where the original is, if the caller may add files there.
    let parent = match body.get("parents").and_then(|p| p.as_array()).map(Vec::as_slice) {
        Some([]) | None => match source.parent.as_deref() {
            Some(parent) if world.drive.check_new_parent(parent, who, all_drives).is_ok() => parent.to_owned(),
            _ => world.drive.root_id(&who.email),
        },
        Some([one]) => {
            let parent = one.as_str().ok_or_else(|| ApiError::drive_invalid("parents", "Invalid Value"))?;
            world.drive.resolve(parent, who)
        }
        Some(_) => {
            return Err(ApiError::legacy(403, "cannotAddParent", "Increasing the number of parents is not allowed."));
        }
    };
    let drive_id = world.drive.check_new_parent(&parent, who, all_drives)?.drive_id.clone();
    if who.is_service_account() && drive_id.is_none() {
        return Err(service_account_quota());
    }
    let new_id = if source.is_google_type() { new_native_id() } else { new_file_id() };
    if source.is_editor_file() {
        native::copy(world, &source.id, &new_id, &name, &source.mime_type);
    }
    let store = &mut world.drive;
    if !store.contains(&new_id) {
        store.insert_item(new_id.clone(), &name, &source.mime_type, Some(&parent), &who.email);
    } else {
        store.set_parent(&new_id, &parent);
    }
    if let Some(copy) = store.files.get_mut(&new_id) {
        copy.name.clone_from(&name);
        copy.content.clone_from(&source.content);
        copy.description = str_field(&body, "description")?.map(str::to_owned).or(source.description.clone());
        copy.properties.clone_from(&source.properties);
        copy.app_properties.clone_from(&source.app_properties);
        copy.original_filename.clone_from(&source.original_filename);
        copy.shortcut_target.clone_from(&source.shortcut_target);
        if body.get("starred").and_then(Value::as_bool) == Some(true) {
            copy.starred_by.insert(who.email.trim().to_ascii_lowercase());
        }
    }
    world.record_revision(&new_id);
    record(
        world,
        who,
        &new_id,
        Action::Create(CreateKind::Copy { original_id: source.id.clone(), original_title: source.name.clone() }),
    );
    file_response(world, who, &new_id, params)
}

/// `GET /drive/v3/files/{fileId}/export?mimeType=…`: Docs Editors files only, 10 MB at most.
pub(crate) async fn export(Path(file_id): Path<String>, call: Call) -> Reply {
    call.run(|world, who, params| export_file(world, &who, params, &file_id))
}

fn export_file(world: &World, who: &Identity, params: &Params, file_id: &str) -> Reply {
    let Some(mime) = params.text("mimeType") else {
        return Err(ApiError::legacy(400, "required", "Required parameter: mimeType").at("mimeType"));
    };
    let (file, _) = world.drive.open(file_id, who, true)?;
    let Some(formats) = native::export_formats(&file.mime_type) else {
        return Err(ApiError::legacy(403, "fileNotExportable", "Export only supports Docs Editors files."));
    };
    if !formats.iter().any(|(target, _)| *target == mime) {
        return Err(ApiError::legacy(400, "badRequest", "The requested conversion is not supported.").at("convertTo"));
    }
    // Formats Google produces but the content stores cannot (xlsx, pdf …) fail loudly rather than
    // answering bytes that are not what Google would send.
    let bytes = native::export(world, file, mime).ok_or_else(|| {
        ApiError::legacy(
            501,
            "notImplemented",
            format!("The Google emulator cannot export {} as {mime}.", file.mime_type),
        )
    })?;
    if bytes.len() > EXPORT_LIMIT {
        return Err(ApiError::legacy(403, "exportSizeLimitExceeded", "This file is too large to be exported."));
    }
    Ok(bytes_response(bytes, mime))
}
