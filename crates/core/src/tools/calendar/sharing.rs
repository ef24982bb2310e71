//! A calendar's sharing rules (its ACL): who may see free/busy, read, change or own it.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::calendar_id;
use crate::approval::evaluator::Recipient;
use crate::google::calendar::{AclRule, AclScope};
use crate::tools::{ToolContext, ToolError};

/// The roles Calendar grants, weakest first.
const ROLES: [&str; 5] = ["none", "freeBusyReader", "reader", "writer", "owner"];
/// Whom a rule is for.
const SCOPE_TYPES: [&str; 4] = ["user", "group", "domain", "default"];

fn default_scope_type() -> String {
    "user".to_owned()
}

fn default_true() -> bool {
    true
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AddCalendarAclArgs {
    /// The calendar's id (from list_calendars; `primary` is the signed-in account's own calendar).
    pub calendar_id: String,
    /// freeBusyReader (sees only when it is busy), reader, writer (changes events) or owner (also shares).
    pub role: String,
    /// user or group (scope_value is an email address), domain (scope_value is a domain), or default (anyone).
    #[serde(default = "default_scope_type")]
    pub scope_type: String,
    /// The email address or domain; leave out for default.
    #[serde(default)]
    pub scope_value: Option<String>,
    /// Email the people the calendar is shared with.
    #[serde(default = "default_true")]
    pub send_notifications: bool,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RemoveCalendarAclArgs {
    /// The calendar's id (from list_calendars; `primary` is the signed-in account's own calendar).
    pub calendar_id: String,
    /// The rule's id from list_calendar_acl, such as user:ann@example.com.
    pub rule_id: String,
}

impl AddCalendarAclArgs {
    /// The rule Google is asked to add, or why it can't be.
    fn rule(&self) -> Result<AclRule, String> {
        let role = self.role.trim();
        if !ROLES.contains(&role) {
            return Err(format!("role is {role:?}; use one of {}.", ROLES.join(", ")));
        }
        let kind = self.scope_type.trim();
        let value = self.scope_value.as_deref().map(str::trim).filter(|v| !v.is_empty());
        let value = match (kind, value) {
            ("default", _) => None,
            ("user" | "group", Some(email)) if email.contains('@') => Some(email.to_owned()),
            ("user" | "group", _) => {
                return Err(format!("scope_type {kind} needs scope_value, the email address to share with."));
            }
            ("domain", Some(domain)) if !domain.contains('@') => Some(domain.to_owned()),
            ("domain", _) => {
                return Err("scope_type domain needs scope_value, a domain such as example.com.".to_owned());
            }
            _ => return Err(format!("scope_type is {kind:?}; use one of {}.", SCOPE_TYPES.join(", "))),
        };
        Ok(AclRule { id: String::new(), role: role.to_owned(), scope: AclScope { kind: kind.to_owned(), value } })
    }
}

/// Whom the share reaches, for the `email_domain` evaluator: an address for a user or group, else the
/// scope type (a whole domain or anyone names no address).
pub(super) fn recipients(args: &AddCalendarAclArgs) -> Result<Vec<Recipient>, String> {
    let rule = args.rule()?;
    Ok(vec![match (rule.scope.kind.as_str(), rule.scope.value) {
        ("user" | "group", Some(email)) => Recipient::Email(email),
        (kind, _) => Recipient::Other(kind.to_owned()),
    }])
}

fn rule_json(rule: &AclRule) -> Value {
    json!({
        "id": rule.id,
        "role": rule.role,
        "scope_type": rule.scope.kind,
        "scope_value": rule.scope.value,
    })
}

pub(super) async fn list_calendar_acl(
    ctx: ToolContext,
    args: super::calendars::CalendarIdArgs,
) -> Result<Value, ToolError> {
    let id = calendar_id(&args.calendar_id)?;
    let rules = ctx.google.calendar().acl(id).await?;
    Ok(json!({ "calendar_id": id, "rules": rules.iter().map(rule_json).collect::<Vec<_>>() }))
}

pub(super) async fn add_calendar_acl(ctx: ToolContext, args: AddCalendarAclArgs) -> Result<Value, ToolError> {
    let id = calendar_id(&args.calendar_id)?;
    let rule = args.rule().map_err(ToolError::invalid)?;
    let added = ctx.google.calendar().add_acl(id, &rule, args.send_notifications).await?;
    Ok(json!({ "shared": true, "calendar_id": id, "rule": rule_json(&added) }))
}

pub(super) async fn remove_calendar_acl(ctx: ToolContext, args: RemoveCalendarAclArgs) -> Result<Value, ToolError> {
    let id = calendar_id(&args.calendar_id)?;
    let rule_id = args.rule_id.trim();
    if rule_id.is_empty() {
        return Err(ToolError::invalid(
            "rule_id is empty: give a rule's id from list_calendar_acl, such as user:ann@example.com.",
        ));
    }
    ctx.google.calendar().remove_acl(id, rule_id).await?;
    Ok(json!({ "removed": true, "calendar_id": id, "rule_id": rule_id }))
}
