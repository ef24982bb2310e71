//! `about.get` (which requires `fields`) and shared drives: `drives.list/get/create/delete`.

use axum::body::Bytes;
use axum::extract::Path;
use axum::http::StatusCode;
use axum::response::IntoResponse;
use serde_json::{Map, Value, json};

use super::params::{Params, bool_field, json_body, new_page_token, respond, str_field};
use super::query::{self, Literal, Op};
use super::{Call, DOCUMENT, Node, Role, SPREADSHEET, SharedDrive, Store, native, rfc3339};
use crate::call::Reply;
use crate::errors::ApiError;
use crate::state::Identity;

/// A person's Drive quota (15 GiB); service accounts have none.
const USER_QUOTA: u64 = 15 * 1024 * 1024 * 1024;

const IMPORTS: &[(&str, &str)] = &[
    ("text/csv", SPREADSHEET),
    ("text/tab-separated-values", SPREADSHEET),
    ("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", SPREADSHEET),
    ("application/vnd.ms-excel", SPREADSHEET),
    ("application/vnd.oasis.opendocument.spreadsheet", SPREADSHEET),
    ("text/plain", DOCUMENT),
    ("text/html", DOCUMENT),
    ("text/markdown", DOCUMENT),
    ("application/rtf", DOCUMENT),
    ("application/vnd.openxmlformats-officedocument.wordprocessingml.document", DOCUMENT),
    ("application/msword", DOCUMENT),
    ("application/vnd.oasis.opendocument.text", DOCUMENT),
];

fn about_json(store: &Store, who: &Identity) -> Value {
    let me = who.email.trim().to_ascii_lowercase();
    let (mut used, mut trashed) = (0_u64, 0_u64);
    for file in store.files.values().filter(|f| f.drive_id.is_none() && f.owner() == Some(me.as_str())) {
        let size = file.size().map_or(0, |s| u64::try_from(s).unwrap_or(u64::MAX));
        used += size;
        if store.is_trashed(file) {
            trashed += size;
        }
    }
    let limit = if who.is_service_account() { 0 } else { USER_QUOTA };
    let mut imports: Map<String, Value> = Map::new();
    for (from, to) in IMPORTS {
        imports.insert((*from).to_owned(), json!([to]));
    }
    let mut exports: Map<String, Value> = Map::new();
    for mime in [
        DOCUMENT,
        SPREADSHEET,
        "application/vnd.google-apps.presentation",
        "application/vnd.google-apps.drawing",
        "application/vnd.google-apps.script",
    ] {
        if let Some(formats) = native::export_formats(mime) {
            exports.insert(mime.to_owned(), formats.iter().map(|(m, _)| json!(m)).collect());
        }
    }
    json!({
        "kind": "drive#about",
        "user": store.user_json(&me, who),
        "storageQuota": {
            "limit": limit.to_string(),
            "usage": used.to_string(),
            "usageInDrive": used.to_string(),
            "usageInDriveTrash": trashed.to_string(),
        },
        "importFormats": imports,
        "exportFormats": exports,
        "maxImportSizes": {
            DOCUMENT: "10485760",
            SPREADSHEET: "104857600",
            "application/vnd.google-apps.presentation": "104857600",
            "application/vnd.google-apps.drawing": "2097152",
        },
        "maxUploadSize": "5497558138880",
        "appInstalled": false,
        "canCreateDrives": !who.is_service_account(),
        "canCreateTeamDrives": !who.is_service_account(),
        "folderColorPalette": ["#ac725e", "#d06b64", "#f83a22", "#fa573c", "#ff7537", "#ffad46", "#42d692", "#16a765",
            "#7bd148", "#b3dc6c", "#fbe983", "#fad165", "#92e1c0", "#9fe1e7", "#9fc6e7", "#4986e7", "#9a9cff",
            "#b99aff", "#8f8f8f", "#cabdbf", "#cca6ac", "#f691b2", "#cd74e6", "#a47ae2"],
        "driveThemes": [],
    })
}

/// `GET /drive/v3/about`.
pub(crate) async fn get_about(call: Call) -> Reply {
    call.run(|world, who, params| {
        params.require_fields()?;
        respond(params, "", "About", &about_json(&world.drive, &who))
    })
}

fn drive_json(store: &Store, drive: &SharedDrive, role: Role) -> Value {
    let organizer = role >= Role::Organizer;
    let edit = role >= Role::Writer;
    json!({
        "kind": "drive#drive",
        "id": drive.id,
        "name": drive.name,
        "colorRgb": drive.color_rgb,
        "backgroundImageLink": "https://ssl.gstatic.com/team_drive_themes/abstract_blue_background.jpg",
        "createdTime": rfc3339(&drive.created_time),
        "hidden": drive.hidden,
        "capabilities": {
            "canAddChildren": edit,
            "canComment": role >= Role::Commenter,
            "canCopy": true,
            "canDeleteDrive": organizer && store.files.values().all(|f| f.drive_id.as_deref() != Some(drive.id.as_str()) || f.node != Node::Item),
            "canDownload": true,
            "canEdit": edit,
            "canListChildren": true,
            "canManageMembers": organizer,
            "canReadRevisions": edit,
            "canRename": organizer,
            "canRenameDrive": organizer,
            "canShare": edit,
            "canChangeDriveBackground": organizer,
            "canDeleteChildren": organizer,
            "canTrashChildren": role >= Role::FileOrganizer,
        },
        "restrictions": {
            "adminManagedRestrictions": false,
            "copyRequiresWriterPermission": false,
            "domainUsersOnly": false,
            "driveMembersOnly": false,
            "sharingFoldersRequiresOrganizerPermission": false,
        },
    })
}

fn drive_role(store: &Store, id: &str, who: &Identity) -> Option<Role> {
    store.files.get(id).filter(|f| f.node == Node::SharedDriveRoot).and_then(|f| store.role_on(f, who, false))
}

fn drive_not_found(id: &str) -> ApiError {
    ApiError::legacy(404, "notFound", format!("Shared drive not found: {id}")).at("driveId")
}

fn member_count(store: &Store, id: &str, organizers: bool) -> i64 {
    let count = store
        .files
        .get(id)
        .map_or(0, |root| root.permissions.iter().filter(|p| !organizers || p.role == Role::Organizer).count());
    i64::try_from(count).unwrap_or(i64::MAX)
}

/// `GET /drive/v3/drives`.
pub(crate) async fn list_drives(call: Call) -> Reply {
    call.run(|world, who, params| drive_list(&world.drive, &who, params))
}

fn drive_list(store: &Store, who: &Identity, params: &Params) -> Reply {
    let page_size = usize::try_from(params.int("pageSize", 10, 1, 100)?).unwrap_or(10);
    let expr = match params.text("q").filter(|q| !q.trim().is_empty()) {
        Some(q) => Some(query::parse(q, &query::DRIVES)?),
        None => None,
    };
    let admin = params.flag("useDomainAdminAccess")?;
    let mut visible: Vec<(&SharedDrive, Role)> = store
        .drives
        .values()
        .filter_map(|d| drive_role(store, &d.id, who).or(admin.then_some(Role::Reader)).map(|r| (d, r)))
        .filter(|(d, _)| {
            expr.as_ref().is_none_or(|e| {
                e.eval(&mut |cond| match (cond.field, &cond.value) {
                    ("name", Literal::Str(text)) => match cond.op {
                        Op::Contains => query::word_prefix(&d.name, text),
                        op => query::compare(&d.name.as_str(), op, &text.as_str()),
                    },
                    ("createdTime", Literal::Time(time)) => query::compare(&d.created_time, cond.op, time),
                    ("hidden", Literal::Bool(flag)) => query::compare(&d.hidden, cond.op, flag),
                    ("memberCount", Literal::Num(n)) => query::compare(&member_count(store, &d.id, false), cond.op, n),
                    ("organizerCount", Literal::Num(n)) => {
                        query::compare(&member_count(store, &d.id, true), cond.op, n)
                    }
                    _ => false,
                })
            })
        })
        .collect();
    visible.sort_by_key(|(d, _)| d.seq);
    let start = params.page_token::<u64>("after:")?.unwrap_or(0);
    visible.retain(|(d, _)| d.seq > start);
    let more = visible.len() > page_size;
    visible.truncate(page_size);
    let drives: Vec<Value> = visible.iter().map(|(d, role)| drive_json(store, d, *role)).collect();
    let mut body = json!({ "kind": "drive#driveList", "drives": drives });
    if more && let Some((last, _)) = visible.last() {
        body["nextPageToken"] = json!(new_page_token("after:", last.seq));
    }
    respond(params, "kind,nextPageToken,drives(id,name,kind)", "DriveList", &body)
}

/// `GET /drive/v3/drives/{driveId}`.
pub(crate) async fn get_drive(Path(drive_id): Path<String>, call: Call) -> Reply {
    call.run(|world, who, params| {
        let store = &world.drive;
        let drive = store.drives.get(&drive_id).ok_or_else(|| drive_not_found(&drive_id))?;
        let role = drive_role(store, &drive_id, &who).ok_or_else(|| drive_not_found(&drive_id))?;
        respond(params, "kind,id,name", "Drive", &drive_json(store, drive, role))
    })
}

/// `POST /drive/v3/drives?requestId=…`.
pub(crate) async fn create_drive(call: Call, body: Bytes) -> Reply {
    call.run(|world, who, params| {
        if params.text("requestId").is_none() {
            return Err(ApiError::legacy(400, "required", "Required parameter: requestId").at("requestId"));
        }
        let body = json_body(&body)?;
        let name = str_field(&body, "name")?
            .filter(|n| !n.trim().is_empty())
            .ok_or_else(|| ApiError::legacy(400, "required", "Required parameter: name").at("name"))?
            .to_owned();
        let id = world.drive.create_shared_drive(&name, &who);
        if let Some(drive) = world.drive.drives.get_mut(&id) {
            if let Some(hidden) = bool_field(&body, "hidden")? {
                drive.hidden = hidden;
            }
            if let Some(color) = str_field(&body, "colorRgb")? {
                drive.color_rgb = color.to_owned();
            }
        }
        let drive = world.drive.drives.get(&id).ok_or_else(|| drive_not_found(&id))?;
        respond(params, "kind,id,name", "Drive", &drive_json(&world.drive, drive, Role::Organizer))
    })
}

/// `DELETE /drive/v3/drives/{driveId}`: organizers only, and only once the shared drive is empty.
pub(crate) async fn delete_drive(Path(drive_id): Path<String>, call: Call) -> Reply {
    call.run(|world, who, _| {
        let store = &mut world.drive;
        let role = drive_role(store, &drive_id, &who).ok_or_else(|| drive_not_found(&drive_id))?;
        if role < Role::Organizer {
            return Err(super::access::insufficient(&drive_id));
        }
        if store.files.values().any(|f| f.drive_id.as_deref() == Some(drive_id.as_str()) && f.node == Node::Item) {
            return Err(ApiError::legacy(
                403,
                "cannotDeleteTeamDriveWithItems",
                "The shared drive cannot be deleted because it contains items.",
            ));
        }
        store.drives.remove(&drive_id);
        store.files.remove(&drive_id);
        Ok(StatusCode::NO_CONTENT.into_response())
    })
}
