//! `permissions.list/get/create/update/delete`, with Drive's ownership rules: `transferOwnership=true` is
//! required to make someone owner, only the owner transfers, the previous owner becomes a writer, service
//! accounts cannot be given ownership across organisations, shared-drive items have no owner, and the
//! owner's permission cannot be removed.

use axum::body::Bytes;
use axum::extract::Path;
use axum::http::StatusCode;
use axum::response::IntoResponse;
use serde_json::{Map, Value};

use super::access::insufficient;
use super::params::{Params, bool_field, json_body, respond, str_field, time_field};
use super::{Call, File, Grantee, Node, Notification, Permission, Role, fnv, now, permission_id, record};
use crate::activity::{Action, PermissionRef};
use crate::call::Reply;
use crate::errors::ApiError;
use crate::state::{Identity, World};

const PERMISSION_DEFAULT: &str = "kind,id,type,role,allowFileDiscovery";
const LIST_DEFAULT: &str = "kind,nextPageToken,permissions(kind,id,type,role,allowFileDiscovery)";

fn not_found(permission_id: &str) -> ApiError {
    ApiError::legacy(404, "notFound", format!("Permission not found: {permission_id}.")).at("permissionId")
}

fn cannot_remove_owner() -> ApiError {
    ApiError::legacy(403, "cannotRemoveOwner", "The owner of a file cannot be removed.")
}

fn owner_must_be_user() -> ApiError {
    ApiError::legacy(
        400,
        "invalidSharingRequest",
        "Bad Request. User message: \"Ownership can only be transferred to a user.\"",
    )
}

fn is_service_account_email(email: &str) -> bool {
    email.to_ascii_lowercase().ends_with(".gserviceaccount.com")
}

fn domain(email: &str) -> &str {
    email.rsplit_once('@').map_or("", |(_, d)| d)
}

fn as_ref(permission: &Permission) -> PermissionRef {
    PermissionRef {
        role: permission.role,
        grantee: permission.grantee,
        email: permission.email.clone(),
        domain: permission.domain.clone(),
    }
}

/// Opens the file and checks that `who` may manage its permissions.
fn open_for_sharing<'a>(world: &'a World, id: &str, who: &Identity, params: &Params) -> Result<&'a File, ApiError> {
    let (file, role) = world.drive.open(id, who, params.all_drives()?)?;
    if !world.drive.can_share(file, role) {
        return Err(insufficient(id));
    }
    Ok(file)
}

/// `GET /drive/v3/files/{fileId}/permissions`.
pub(crate) async fn list(Path(file_id): Path<String>, call: Call) -> Reply {
    call.run(|world, who, params| {
        let id = world.drive.resolve(&file_id, &who);
        let file = open_for_sharing(world, &id, &who, params)?;
        let page = params.page(100, usize::MAX)?;
        let all = world.drive.effective_permissions(file);
        let body = page.list("drive#permissionList", "permissions", &all, |(p, from)| {
            world.drive.permission_json(p, file, from.as_deref())
        });
        respond(params, LIST_DEFAULT, "PermissionList", &body)
    })
}

/// `GET /drive/v3/files/{fileId}/permissions/{permissionId}`.
pub(crate) async fn get(Path((file_id, permission_id)): Path<(String, String)>, call: Call) -> Reply {
    call.run(|world, who, params| {
        let id = world.drive.resolve(&file_id, &who);
        let (file, _) = world.drive.open(&id, &who, params.all_drives()?)?;
        let found = world.drive.effective_permissions(file).into_iter().find(|(p, _)| p.id == permission_id);
        let (permission, from) = found.ok_or_else(|| not_found(&permission_id))?;
        let value = world.drive.permission_json(permission, file, from.as_deref());
        respond(params, PERMISSION_DEFAULT, "Permission", &value)
    })
}

/// The grantee a create request describes: type, email or domain, and the permission id Drive gives it.
fn grantee(body: &Map<String, Value>) -> Result<(Grantee, Option<String>, Option<String>, String), ApiError> {
    let kind = str_field(body, "type")?
        .ok_or_else(|| ApiError::legacy(400, "required", "Permission type is required.").at("permission.type"))?;
    let grantee = Grantee::parse(kind).ok_or_else(|| ApiError::drive_invalid("permission.type", "Invalid Value"))?;
    let discoverable = bool_field(body, "allowFileDiscovery")?.unwrap_or(false);
    Ok(match grantee {
        Grantee::User | Grantee::Group => {
            let email = str_field(body, "emailAddress")?.map(|e| e.trim().to_ascii_lowercase()).ok_or_else(|| {
                ApiError::legacy(400, "required", "The emailAddress field is required for user and group permissions.")
                    .at("permission.emailAddress")
            })?;
            if !email.contains('@') || email.starts_with('@') || email.ends_with('@') {
                return Err(ApiError::legacy(
                    400,
                    "invalidSharingRequest",
                    format!("Bad Request. User message: \"Sorry, {email} is not a valid email address.\""),
                ));
            }
            let id = permission_id(&email);
            (grantee, Some(email), None, id)
        }
        Grantee::Domain => {
            let domain = str_field(body, "domain")?.map(|d| d.trim().to_ascii_lowercase()).ok_or_else(|| {
                ApiError::legacy(400, "required", "The domain field is required for domain permissions.")
                    .at("permission.domain")
            })?;
            let id = format!("{:020}k", fnv(&domain));
            (grantee, None, Some(domain), id)
        }
        Grantee::Anyone => (grantee, None, None, if discoverable { "anyone" } else { "anyoneWithLink" }.to_owned()),
    })
}

/// Checks and performs an ownership transfer of `id` to `email`; returns the activity it amounts to.
fn transfer(world: &mut World, who: &Identity, id: &str, email: &str, params: &Params) -> Result<Action, ApiError> {
    if !params.flag("transferOwnership")? {
        return Err(ApiError::legacy(
            403,
            "forbidden",
            "The transferOwnership parameter must be enabled when the permission role is 'owner'.",
        ));
    }
    let (file, role) = world.drive.open(id, who, params.all_drives()?)?;
    if file.drive_id.is_some() {
        return Err(ApiError::legacy(403, "forbidden", "The owner role is not supported for shared drive items."));
    }
    if role != Role::Owner || file.node != Node::Item {
        return Err(insufficient(id));
    }
    let current = file.owner().unwrap_or_default().to_owned();
    if params.get("sendNotificationEmail") == Some("false") {
        return Err(ApiError::legacy(
            400,
            "badRequest",
            "The sendNotificationEmail parameter must not be disabled for ownership transfers.",
        )
        .at("sendNotificationEmail"));
    }
    if (is_service_account_email(email) || is_service_account_email(&current)) && domain(email) != domain(&current) {
        return Err(ApiError::legacy(
            400,
            "ownershipChangeAcrossDomainNotPermitted",
            format!(
                "Bad Request. User message: \"Sorry, cannot transfer ownership to {email}. Ownership can only be transferred to another user in the same organization as the current owner.\""
            ),
        ));
    }
    let move_to_root = params.flag("moveToNewOwnersRoot")?;
    let new_root = world.drive.root_id(email);
    let file = world.drive.file_mut(id)?;
    let mut removed = Vec::new();
    let mut added = Vec::new();
    if let Some(old) = file.permissions.iter_mut().find(|p| p.role == Role::Owner) {
        removed.push(as_ref(old));
        old.role = Role::Writer;
        added.push(as_ref(old));
    }
    match file.permissions.iter_mut().find(|p| p.grantee == Grantee::User && p.email.as_deref() == Some(email)) {
        Some(existing) => {
            removed.push(as_ref(existing));
            existing.role = Role::Owner;
            added.push(as_ref(existing));
        }
        None => {
            let permission = Permission::user(email, Role::Owner, Some(&who.email));
            added.push(as_ref(&permission));
            file.permissions.push(permission);
        }
    }
    if move_to_root {
        file.parent = Some(new_root);
    }
    notify(world, who, id, email, Role::Owner, params);
    Ok(Action::PermissionChange { added, removed })
}

/// "Sends" the sharing email telling `to` they were given `role` on `id`.
fn notify(world: &mut World, who: &Identity, id: &str, to: &str, role: Role, params: &Params) {
    world.drive.notifications.push(Notification {
        file_id: id.to_owned(),
        from: who.email.to_ascii_lowercase(),
        to: to.to_owned(),
        role,
        message: params.text("emailMessage").map(str::to_owned),
    });
}

/// Records the change on `id` and answers the permission `permission_id` as it now is.
fn record_and_answer(
    world: &mut World,
    who: &Identity,
    id: &str,
    permission_id: &str,
    params: &Params,
    action: Action,
) -> Reply {
    record(world, who, id, action);
    let file = world.drive.file(id)?;
    let permission = file.permissions.iter().find(|p| p.id == permission_id).ok_or_else(|| not_found(permission_id))?;
    respond(params, PERMISSION_DEFAULT, "Permission", &world.drive.permission_json(permission, file, None))
}

/// `POST /drive/v3/files/{fileId}/permissions`.
pub(crate) async fn create(Path(file_id): Path<String>, call: Call, body: Bytes) -> Reply {
    call.run(|world, who, params| create_permission(world, &who, params, &file_id, &body))
}

fn create_permission(world: &mut World, who: &Identity, params: &Params, file_id: &str, body: &[u8]) -> Reply {
    let body = json_body(body)?;
    let id = world.drive.resolve(file_id, who);
    let file = open_for_sharing(world, &id, who, params)?;
    let in_shared_drive = file.drive_id.is_some();
    let role_text = str_field(&body, "role")?
        .ok_or_else(|| ApiError::legacy(400, "required", "Permission role is required.").at("permission.role"))?;
    let role = Role::parse(role_text).ok_or_else(|| ApiError::drive_invalid("permission.role", "Invalid Value"))?;
    let (grantee, email, domain, permission_id) = grantee(&body)?;
    if matches!(role, Role::Organizer | Role::FileOrganizer) && !in_shared_drive {
        return Err(ApiError::legacy(
            400,
            "invalidSharingRequest",
            format!(
                "Bad Request. User message: \"The role {} is only supported for shared drive items.\"",
                role.as_str()
            ),
        ));
    }
    let action = if role == Role::Owner {
        let Some(email) = email.as_deref().filter(|_| grantee == Grantee::User) else {
            return Err(owner_must_be_user());
        };
        transfer(world, who, &id, email, params)?
    } else {
        let expiration_time = time_field(&body, "expirationTime")?;
        let file = world.drive.file_mut(&id)?;
        if file.permissions.iter().any(|p| p.id == permission_id && p.role == Role::Owner) {
            return Err(cannot_remove_owner());
        }
        let mut removed = Vec::new();
        let permission = match file.permissions.iter_mut().find(|p| p.id == permission_id) {
            Some(existing) => {
                removed.push(as_ref(existing));
                existing.role = role;
                existing.expiration_time = expiration_time.or(existing.expiration_time);
                existing.clone()
            }
            None => {
                let permission = Permission {
                    id: permission_id.clone(),
                    grantee,
                    role,
                    email: email.clone(),
                    domain,
                    allow_file_discovery: bool_field(&body, "allowFileDiscovery")?.unwrap_or(false),
                    expiration_time,
                    granted_at: now(),
                    granted_by: Some(who.email.trim().to_ascii_lowercase()),
                };
                file.permissions.push(permission.clone());
                permission
            }
        };
        let sends = !matches!(params.get("sendNotificationEmail"), Some("false"));
        if sends
            && matches!(grantee, Grantee::User | Grantee::Group)
            && let Some(to) = &email
        {
            notify(world, who, &id, to, role, params);
        }
        Action::PermissionChange { added: vec![as_ref(&permission)], removed }
    };
    record_and_answer(world, who, &id, &permission_id, params, action)
}

/// Finds a permission set directly on the file, refusing inherited ones as Drive does.
fn direct_permission(world: &World, file: &File, permission_id: &str) -> Result<usize, ApiError> {
    if let Some(index) = file.permissions.iter().position(|p| p.id == permission_id) {
        return Ok(index);
    }
    let inherited = world.drive.effective_permissions(file).iter().any(|(p, _)| p.id == permission_id);
    if !inherited {
        return Err(not_found(permission_id));
    }
    Err(if file.drive_id.is_some() {
        ApiError::legacy(
            403,
            "cannotModifyInheritedTeamDrivePermission",
            "The permission cannot be modified because it is inherited.",
        )
    } else {
        ApiError::legacy(
            403,
            "cannotModifyInheritedPermission",
            "The permission cannot be modified because it is inherited.",
        )
    })
}

/// `PATCH /drive/v3/files/{fileId}/permissions/{permissionId}`: the role (and expiry) only.
pub(crate) async fn update(Path((file_id, permission_id)): Path<(String, String)>, call: Call, body: Bytes) -> Reply {
    call.run(|world, who, params| update_permission(world, &who, params, &file_id, &permission_id, &body))
}

fn update_permission(
    world: &mut World,
    who: &Identity,
    params: &Params,
    file_id: &str,
    permission_id: &str,
    body: &[u8],
) -> Reply {
    let body = json_body(body)?;
    let id = world.drive.resolve(file_id, who);
    if body.keys().any(|k| !matches!(k.as_str(), "role" | "expirationTime" | "kind" | "id" | "type")) {
        return Err(ApiError::legacy(
            403,
            "fieldNotWritable",
            "The resource body includes fields which are not directly writable.",
        ));
    }
    let file = open_for_sharing(world, &id, who, params)?;
    let index = direct_permission(world, file, permission_id)?;
    let current = file.permissions[index].clone();
    let role = match str_field(&body, "role")? {
        Some(text) => Role::parse(text).ok_or_else(|| ApiError::drive_invalid("permission.role", "Invalid Value"))?,
        None => current.role,
    };
    let action = if role == Role::Owner && current.role != Role::Owner {
        let Some(email) = current.email.clone().filter(|_| current.grantee == Grantee::User) else {
            return Err(owner_must_be_user());
        };
        transfer(world, who, &id, &email, params)?
    } else {
        if current.role == Role::Owner && role != Role::Owner {
            return Err(cannot_remove_owner());
        }
        let expiration = if params.flag("removeExpiration")? {
            None
        } else {
            time_field(&body, "expirationTime")?.or(current.expiration_time)
        };
        let file = world.drive.file_mut(&id)?;
        let Some(permission) = file.permissions.iter_mut().find(|p| p.id == permission_id) else {
            return Err(not_found(permission_id));
        };
        permission.role = role;
        permission.expiration_time = expiration;
        Action::PermissionChange { added: vec![as_ref(permission)], removed: vec![as_ref(&current)] }
    };
    record_and_answer(world, who, &id, permission_id, params, action)
}

/// `DELETE /drive/v3/files/{fileId}/permissions/{permissionId}`.
pub(crate) async fn delete(Path((file_id, permission_id)): Path<(String, String)>, call: Call) -> Reply {
    call.run(|world, who, params| {
        let id = world.drive.resolve(&file_id, &who);
        let (file, role) = world.drive.open(&id, &who, params.all_drives()?)?;
        let leaving = permission_id == super::permission_id(&who.email);
        if !leaving && !world.drive.can_share(file, role) {
            return Err(insufficient(&id));
        }
        let index = direct_permission(world, file, &permission_id)?;
        if file.permissions[index].role == Role::Owner {
            return Err(cannot_remove_owner());
        }
        let removed = world.drive.file_mut(&id)?.permissions.remove(index);
        record(world, &who, &id, Action::PermissionChange { added: Vec::new(), removed: vec![as_ref(&removed)] });
        Ok(StatusCode::NO_CONTENT.into_response())
    })
}
