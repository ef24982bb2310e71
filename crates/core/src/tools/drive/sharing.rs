//! Who can open a file: sharing, the access list, changing or removing access, and ownership transfer.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::approval::evaluator::{Evaluator, Recipient};
use crate::catalog::Effect;
use crate::google::drive::Permission;

use super::super::registry::{Cap, Limitation, Service, ToolDef, ToolMeta};
use super::super::{ToolContext, ToolError};

const PERMISSION_FIELDS: &str = "id,type,role,emailAddress,domain,displayName,pendingOwner";

pub(super) fn tools() -> Vec<ToolDef> {
    vec![
        ToolDef::evaluated(
            ToolMeta::write(
                Service::Drive,
                "share_file",
                "Share file",
                "Give people, groups, a domain or anyone with the link access to a file.",
                Effect { destructive: false, idempotent: false },
            ),
            share_file,
            [Evaluator::email_domain(recipients)],
        )
        .worded(super::said::share_file)
        .previewed(super::preview::share_file),
        ToolDef::new(
            ToolMeta::read(
                Service::Drive,
                "list_permissions",
                "List who has access",
                "List who has access to a file, with each permission's id and role.",
                Cap::Narrower,
            ),
            list_permissions,
        ),
        ToolDef::evaluated(
            ToolMeta::write(
                Service::Drive,
                "update_permission",
                "Change access",
                "Change the role of one permission on a file (reader, commenter, writer …).",
                Effect { destructive: true, idempotent: true },
            ),
            update_permission,
            [Evaluator::file(|a: &UpdatePermissionArgs| &a.file_id)],
        )
        .worded(super::said::update_permission),
        ToolDef::evaluated(
            ToolMeta::write(
                Service::Drive,
                "remove_permission",
                "Remove access",
                "Remove one permission from a file.",
                Effect { destructive: true, idempotent: true },
            ),
            remove_permission,
            [Evaluator::file(|a: &RemovePermissionArgs| &a.file_id)],
        )
        .worded(super::said::remove_permission),
        ToolDef::evaluated(
            ToolMeta::write(
                Service::Drive,
                "transfer_ownership",
                "Transfer ownership",
                "Make another person the owner of a file; the current owner keeps writer access.",
                Effect { destructive: true, idempotent: true },
            )
            .failing_for(&[Limitation::NoPersonalDriveIdentity]),
            transfer_ownership,
            [Evaluator::<TransferOwnershipArgs>::transfer_ownership()],
        )
        .worded(super::said::transfer_ownership),
        share_spreadsheet_tool(),
    ]
}

/// The roles `share_file` and `update_permission` grant; ownership moves only with `transfer_ownership`.
const ROLES: &[&str] = &["reader", "commenter", "writer", "fileOrganizer", "organizer"];

fn check_role(role: &str) -> Result<(), ToolError> {
    if role == "owner" {
        return Err(ToolError::invalid("To make someone the owner, use transfer_ownership."));
    }
    if !ROLES.contains(&role) {
        return Err(ToolError::invalid(format!(
            "role {role:?} is not a Drive role. Use one of: {} (fileOrganizer and organizer only in shared drives).",
            ROLES.join(", ")
        )));
    }
    Ok(())
}

fn permission_json(permission: &Permission) -> Value {
    let mut out = json!({ "id": permission.id, "type": permission.kind, "role": permission.role });
    if let Some(email) = &permission.email_address {
        out["email_address"] = json!(email);
    }
    if let Some(domain) = &permission.domain {
        out["domain"] = json!(domain);
    }
    if let Some(name) = &permission.display_name {
        out["display_name"] = json!(name);
    }
    if permission.pending_owner == Some(true) {
        out["pending_owner"] = json!(true);
    }
    if let Some(from) =
        permission.permission_details.iter().find_map(|d| d.inherited.then_some(d.inherited_from.as_ref()))
    {
        out["inherited_from"] = json!(from);
    }
    out
}

/// One grant to make.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ShareSpec {
    /// user, group, domain or anyone (default: user, or domain when only domain is given).
    #[serde(default, rename = "type")]
    pub kind: Option<String>,
    /// reader, commenter or writer (fileOrganizer, organizer in shared drives); default reader in share_file,
    /// writer in share_spreadsheet.
    #[serde(default)]
    pub role: Option<String>,
    /// The person's or group's email (type user or group).
    #[serde(default)]
    pub email_address: Option<String>,
    /// Same as email_address (Drive's own spelling).
    #[serde(default, rename = "emailAddress")]
    pub email_address_drive: Option<String>,
    /// The domain, e.g. example.com (type domain).
    #[serde(default)]
    pub domain: Option<String>,
}

/// The role a `share_file` grant without one gets (as in the reference server).
pub(super) const SHARE_FILE_ROLE: &str = "reader";
/// The role a `share_spreadsheet` recipient without one gets (as in the reference server).
pub(super) const SHARE_SPREADSHEET_ROLE: &str = "writer";

impl ShareSpec {
    /// The role asked for, else `default`.
    fn role<'a>(&'a self, default: &'a str) -> &'a str {
        self.role.as_deref().unwrap_or(default)
    }

    /// The `Permission` to create (`default_role` when the grant names none), or what is missing in words.
    fn to_permission(&self, default_role: &str) -> Result<Permission, ToolError> {
        let role = self.role(default_role);
        check_role(role)?;
        let email = self.email().map(str::trim).filter(|e| !e.is_empty());
        let domain = self.domain.as_deref().map(str::trim).filter(|d| !d.is_empty());
        let kind = match (self.kind.as_deref(), email, domain) {
            (Some(kind), _, _) => kind,
            (None, None, Some(_)) => "domain",
            (None, _, _) => "user",
        };
        let mut permission =
            Permission { kind: Some(kind.to_owned()), role: Some(role.to_owned()), ..Permission::default() };
        match kind {
            "user" | "group" => {
                let email =
                    email.ok_or_else(|| ToolError::invalid(format!("A {kind} permission needs email_address.")))?;
                permission.email_address = Some(email.to_owned());
            }
            "domain" => {
                let domain =
                    domain.ok_or_else(|| ToolError::invalid("A domain permission needs domain (e.g. example.com)."))?;
                permission.domain = Some(domain.to_owned());
            }
            "anyone" => {}
            other => {
                return Err(ToolError::invalid(format!(
                    "type {other:?} is not a Drive permission type. Use user, group, domain or anyone."
                )));
            }
        }
        Ok(permission)
    }

    /// The email, in whichever spelling it came.
    fn email(&self) -> Option<&str> {
        self.email_address.as_deref().or(self.email_address_drive.as_deref())
    }

    fn who(&self) -> String {
        self.email()
            .map(str::to_owned)
            .or_else(|| self.domain.clone())
            .or_else(|| self.kind.clone())
            .unwrap_or_default()
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ShareFileArgs {
    /// The file's id.
    pub file_id: String,
    /// The grants: [{"type": "user", "role": "writer", "email_address": "ann@example.com"}, …].
    pub permissions: Vec<ShareSpec>,
    /// Email the people and groups about the share.
    #[serde(default = "crate::tools::schema::default_true")]
    pub send_notification: bool,
}

/// Whom `share_file` would share with, read with the tool's own checks ([`ShareSpec::to_permission`]), for
/// the `email_domain` evaluator; the tool's own refusal, in words, when it would share with no one.
fn recipients(args: &ShareFileArgs) -> Result<Vec<Recipient>, String> {
    recipients_of(&args.permissions, "permissions", SHARE_FILE_ROLE)
}

/// Whom the grants `specs` (the argument `arg`) share with, as [`recipients`] reads them.
fn recipients_of(specs: &[ShareSpec], arg: &str, default_role: &str) -> Result<Vec<Recipient>, String> {
    if specs.is_empty() {
        return Err(format!("{arg} is empty: the call shares with no one."));
    }
    specs
        .iter()
        .map(|spec| {
            let permission = spec.to_permission(default_role).map_err(|error| error.to_string())?;
            let kind = permission.kind.unwrap_or_default();
            Ok(match (kind.as_str(), permission.email_address) {
                ("user" | "group", Some(email)) => Recipient::Email(email),
                _ => Recipient::Other(kind),
            })
        })
        .collect()
}

async fn share_file(ctx: ToolContext, args: ShareFileArgs) -> Result<Value, ToolError> {
    share(&ctx, &args.file_id, &args.permissions, "permissions", SHARE_FILE_ROLE, args.send_notification).await
}

/// The grants `specs` (the argument `arg`, `default_role` where a grant names none) as Drive permissions, or
/// what is wrong with them: checked before any Google call, by the run and by the card's preview alike.
pub(super) fn checked_grants(
    specs: &[ShareSpec],
    arg: &str,
    default_role: &str,
) -> Result<Vec<crate::google::drive::Permission>, ToolError> {
    if specs.is_empty() {
        return Err(ToolError::invalid(format!(
            "{arg} is empty: give at least one {{type, role, email_address}} to share with."
        )));
    }
    specs.iter().map(|spec| spec.to_permission(default_role)).collect()
}

/// Makes the grants `specs` (the argument `arg`, `default_role` where a grant names none) on `file_id`:
/// every grant is checked before any is made, and the answer lists what was shared and what failed.
async fn share(
    ctx: &ToolContext,
    file_id: &str,
    specs: &[ShareSpec],
    arg: &str,
    default_role: &str,
    send_notification: bool,
) -> Result<Value, ToolError> {
    // Check every grant before making any, so a typo doesn't leave the file half shared.
    let grants = checked_grants(specs, arg, default_role)?;
    let drive = ctx.google.drive();
    let (mut shared, mut failed) = (Vec::new(), Vec::new());
    let mut last_error = None;
    for (spec, grant) in specs.iter().zip(&grants) {
        // Drive allows sendNotificationEmail only when sharing with users and groups.
        let notify = matches!(grant.kind.as_deref(), Some("user" | "group")).then_some(send_notification);
        match drive.create_permission(file_id, grant, notify, false, PERMISSION_FIELDS).await {
            Ok(permission) => shared.push(permission_json(&permission)),
            Err(error) => {
                failed.push(json!({ "who": spec.who(), "role": spec.role(default_role), "error": error.to_string() }));
                last_error = Some(error);
            }
        }
    }
    match last_error {
        // Nothing was shared: fail with Google's own (classified) error.
        Some(error) if shared.is_empty() && failed.len() == 1 => Err(error.into()),
        Some(_) if shared.is_empty() => Err(ToolError::invalid(format!(
            "Nothing was shared: {}",
            failed.iter().filter_map(|f| f["error"].as_str()).collect::<Vec<_>>().join(" / ")
        ))),
        _ => {
            let mut out = json!({ "file_id": file_id, "shared": shared });
            if !failed.is_empty() {
                out["failed"] = json!(failed);
            }
            Ok(out)
        }
    }
}

/// `share_spreadsheet`: [`share_file`] for a spreadsheet, the last of the sharing tools.
fn share_spreadsheet_tool() -> ToolDef {
    ToolDef::evaluated(
        ToolMeta::write(
            Service::Drive,
            "share_spreadsheet",
            "Share spreadsheet",
            "Give people, groups or a domain access to a spreadsheet (recipients like share_file's permissions).",
            Effect { destructive: false, idempotent: false },
        ),
        share_spreadsheet,
        [Evaluator::email_domain(|a: &ShareSpreadsheetArgs| {
            recipients_of(&a.recipients, "recipients", SHARE_SPREADSHEET_ROLE)
        })],
    )
    .worded(super::said::share_spreadsheet)
    .previewed(super::preview::share_spreadsheet)
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ShareSpreadsheetArgs {
    /// The spreadsheet's id.
    pub spreadsheet_id: String,
    /// Whom to share with: [{"email_address": "ann@example.com", "role": "writer"}, …] (type user by default).
    pub recipients: Vec<ShareSpec>,
    /// Email the people and groups about the share.
    #[serde(default = "crate::tools::schema::default_true")]
    pub send_notification: bool,
}

async fn share_spreadsheet(ctx: ToolContext, args: ShareSpreadsheetArgs) -> Result<Value, ToolError> {
    // Check the arguments before any Google call, then that the id is a spreadsheet.
    checked_grants(&args.recipients, "recipients", SHARE_SPREADSHEET_ROLE)?;
    let file = ctx.google.drive().get(&args.spreadsheet_id, "id,name,mimeType").await?;
    if file.mime_type != crate::google::drive::mime::SPREADSHEET {
        return Err(ToolError::invalid(format!(
            "{:?} is not a spreadsheet ({}). Use share_file to share other files.",
            file.name, file.mime_type
        )));
    }
    let mut out = share(
        &ctx,
        &args.spreadsheet_id,
        &args.recipients,
        "recipients",
        SHARE_SPREADSHEET_ROLE,
        args.send_notification,
    )
    .await?;
    out["spreadsheet_id"] = json!(args.spreadsheet_id);
    out["name"] = json!(file.name);
    Ok(out)
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListPermissionsArgs {
    /// The file's id.
    pub file_id: String,
}

async fn list_permissions(ctx: ToolContext, args: ListPermissionsArgs) -> Result<Value, ToolError> {
    let fields = format!("{PERMISSION_FIELDS},permissionDetails(inherited,inheritedFrom)");
    let permissions = ctx.google.drive().permissions(&args.file_id, &fields).await?;
    Ok(json!({
        "file_id": args.file_id,
        "permissions": permissions.iter().map(permission_json).collect::<Vec<_>>(),
    }))
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdatePermissionArgs {
    /// The file's id.
    pub file_id: String,
    /// The permission's id (from list_permissions).
    pub permission_id: String,
    /// The new role: reader, commenter or writer (fileOrganizer, organizer in shared drives).
    pub role: String,
}

async fn update_permission(ctx: ToolContext, args: UpdatePermissionArgs) -> Result<Value, ToolError> {
    check_role(&args.role)?;
    let permission =
        ctx.google.drive().update_permission(&args.file_id, &args.permission_id, &args.role, PERMISSION_FIELDS).await?;
    let mut out = permission_json(&permission);
    out["file_id"] = json!(args.file_id);
    Ok(out)
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RemovePermissionArgs {
    /// The file's id.
    pub file_id: String,
    /// The permission's id (from list_permissions).
    pub permission_id: String,
}

async fn remove_permission(ctx: ToolContext, args: RemovePermissionArgs) -> Result<Value, ToolError> {
    ctx.google.drive().delete_permission(&args.file_id, &args.permission_id).await?;
    Ok(json!({ "file_id": args.file_id, "permission_id": args.permission_id, "removed": true }))
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TransferOwnershipArgs {
    /// The file's id.
    pub file_id: String,
    /// The new owner's email.
    pub new_owner_email: String,
    /// Email the new owner (Google always does for ownership transfers, so false has no effect).
    #[serde(default = "crate::tools::schema::default_true")]
    pub send_notification: bool,
}

async fn transfer_ownership(ctx: ToolContext, args: TransferOwnershipArgs) -> Result<Value, ToolError> {
    let email = args.new_owner_email.trim();
    if !email.contains('@') {
        return Err(ToolError::invalid(format!("new_owner_email {email:?} is not an email address.")));
    }
    let grant = Permission {
        kind: Some("user".into()),
        role: Some("owner".into()),
        email_address: Some(email.to_owned()),
        ..Permission::default()
    };
    // Drive does not allow turning the email off for ownership transfers.
    let permission =
        ctx.google.drive().create_permission(&args.file_id, &grant, Some(true), true, PERMISSION_FIELDS).await?;
    let mut out = permission_json(&permission);
    out["file_id"] = json!(args.file_id);
    out["new_owner"] = json!(email);
    if !args.send_notification {
        out["note"] = json!("Google always emails the new owner about an ownership transfer.");
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(kind: Option<&str>, role: &str, email: Option<&str>, domain: Option<&str>) -> ShareSpec {
        ShareSpec {
            kind: kind.map(str::to_owned),
            role: Some(role.to_owned()),
            email_address: email.map(str::to_owned),
            email_address_drive: None,
            domain: domain.map(str::to_owned),
        }
    }

    #[test]
    fn grants_are_checked_and_completed() {
        let user = spec(None, "writer", Some("ann@example.com"), None).to_permission("reader").unwrap();
        assert_eq!(user.kind.as_deref(), Some("user"));
        let domain = spec(None, "reader", None, Some("example.com")).to_permission("reader").unwrap();
        assert_eq!(domain.kind.as_deref(), Some("domain"));
        assert!(
            spec(Some("user"), "writer", None, None)
                .to_permission("reader")
                .unwrap_err()
                .to_string()
                .contains("email_address")
        );
        assert!(
            spec(None, "owner", Some("a@b.c"), None)
                .to_permission("reader")
                .unwrap_err()
                .to_string()
                .contains("transfer_ownership")
        );
        assert!(
            spec(None, "editor", Some("a@b.c"), None)
                .to_permission("reader")
                .unwrap_err()
                .to_string()
                .contains("writer")
        );
    }

    #[test]
    fn a_grant_without_a_role_gets_the_tools_default() {
        let spec: ShareSpec = serde_json::from_value(json!({ "email_address": "a@b.c" })).unwrap();
        assert_eq!(spec.to_permission(SHARE_FILE_ROLE).unwrap().role.as_deref(), Some("reader"));
        assert_eq!(spec.to_permission(SHARE_SPREADSHEET_ROLE).unwrap().role.as_deref(), Some("writer"));
    }

    #[test]
    fn email_address_accepts_drive_spelling() {
        let spec: ShareSpec = serde_json::from_value(json!({ "role": "reader", "emailAddress": "a@b.c" })).unwrap();
        assert_eq!(spec.to_permission("reader").unwrap().email_address.as_deref(), Some("a@b.c"));
    }
}
