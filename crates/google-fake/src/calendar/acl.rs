//! `acl.list/get/insert/delete`: who may see or change a calendar. Only its owners manage the ACL; a rule
//! for a scope that already has one replaces its role (the rule id is the scope: `user:ann@example.com`).
//! The owner's own rule cannot be removed.

use axum::Json;
use axum::body::Bytes;
use axum::extract::Path;
use axum::http::StatusCode;
use axum::response::IntoResponse;
use serde_json::{Value, json};

use super::model::{AclRule, Role, etag, invalid, not_found, required};
use super::{Call, as_caller};
use crate::call::Reply;
use crate::drive::{json_body, str_field};
use crate::errors::ApiError;

/// `GET /calendar/v3/calendars/{calendarId}/acl`.
pub(super) async fn list(Path(calendar_id): Path<String>, call: Call) -> Reply {
    as_caller(&call, |world, who, _params| {
        let calendar = world.calendar.open(&calendar_id, &who.email, Role::Owner)?;
        let items: Vec<Value> = calendar.acl.iter().map(AclRule::json).collect();
        let body = json!({
            "kind": "calendar#acl",
            "etag": etag(&format!("{}{}", calendar.id, items.len())),
            "items": items,
        });
        Ok(Json(body).into_response())
    })
}

/// `GET /calendar/v3/calendars/{calendarId}/acl/{ruleId}`.
pub(super) async fn get(Path((calendar_id, rule_id)): Path<(String, String)>, call: Call) -> Reply {
    as_caller(&call, |world, who, _params| {
        let calendar = world.calendar.open(&calendar_id, &who.email, Role::Owner)?;
        let rule = calendar.acl.iter().find(|rule| rule.id() == rule_id).ok_or_else(not_found)?;
        Ok(Json(rule.json()).into_response())
    })
}

/// `POST /calendar/v3/calendars/{calendarId}/acl`.
pub(super) async fn insert(Path(calendar_id): Path<String>, call: Call, body: Bytes) -> Reply {
    as_caller(&call, |world, who, params| {
        params.flag("sendNotifications")?;
        let body = json_body(&body)?;
        let role = str_field(&body, "role")?.ok_or_else(|| required("role"))?;
        let role = Role::parse(role).ok_or_else(|| invalid("Invalid role.").at("role"))?;
        let scope = body.get("scope").and_then(Value::as_object).ok_or_else(|| required("scope"))?;
        let scope_type = str_field(scope, "type")?.ok_or_else(|| required("scope.type"))?;
        let scope_value = str_field(scope, "value")?.filter(|v| !v.is_empty());
        let scope_value = match (scope_type, scope_value) {
            ("default", _) => None,
            ("user" | "group", Some(email)) if email.contains('@') => Some(email.to_lowercase()),
            ("domain", Some(domain)) if !domain.contains('@') => Some(domain.to_lowercase()),
            ("user" | "group" | "domain", _) => return Err(invalid("Invalid scope value.").at("scope.value")),
            _ => return Err(invalid("Invalid scope type.").at("scope.type")),
        };
        let calendar = world.calendar.open_mut(&calendar_id, &who.email, Role::Owner)?;
        let rule = AclRule { role, scope_type: scope_type.to_owned(), scope_value };
        if rule.scope_value.as_deref() == Some(calendar.owner.as_str()) && role != Role::Owner {
            return Err(cannot_change_own());
        }
        let answer = rule.json();
        match calendar.acl.iter_mut().find(|existing| existing.id() == rule.id()) {
            Some(existing) => *existing = rule,
            None => calendar.acl.push(rule),
        }
        Ok(Json(answer).into_response())
    })
}

/// `DELETE /calendar/v3/calendars/{calendarId}/acl/{ruleId}`.
pub(super) async fn delete(Path((calendar_id, rule_id)): Path<(String, String)>, call: Call) -> Reply {
    as_caller(&call, |world, who, _params| {
        let calendar = world.calendar.open_mut(&calendar_id, &who.email, Role::Owner)?;
        if rule_id == format!("user:{}", calendar.owner) {
            return Err(cannot_change_own());
        }
        let before = calendar.acl.len();
        calendar.acl.retain(|rule| rule.id() != rule_id);
        if calendar.acl.len() == before {
            return Err(not_found());
        }
        Ok(StatusCode::NO_CONTENT.into_response())
    })
}

fn cannot_change_own() -> ApiError {
    ApiError::legacy(403, "cannotChangeOwnAcl", "Cannot change your own access level.")
}
