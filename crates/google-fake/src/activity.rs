//! Drive Activity v2 (`https://driveactivity.googleapis.com/v2/activity:query`): what happened to an item
//! (or everything under a folder), newest first, in the `google.rpc.Status` error shape.
//!
//! Drive, Sheets and Docs operations call [`Store::record`]; the query answers each entry as a
//! `DriveActivity` with `primaryActionDetail`, `actors`, `targets`, `actions` and `timestamp`, reading the
//! target's current title, type and owner from the Drive store.

use axum::body::Bytes;
use axum::response::IntoResponse;
use axum::routing::post;
use axum::{Json, Router};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use chrono::{DateTime, SubsecRound, Utc};
use serde_json::{Map, Value, json};

use crate::Shared;
use crate::call::Reply;
use crate::drive::{Grantee, Role, person_name};
use crate::errors::ApiError;
use crate::rpc::Call;
use crate::state::{Identity, World};

/// How an item came to be.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CreateKind {
    New,
    Upload,
    Copy { original_id: String, original_title: String },
}

/// Trash or permanent deletion.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeleteKind {
    Trash,
    PermanentDelete,
}

/// A comment event (Drive Activity's `Post.subtype`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CommentKind {
    Added,
    Deleted,
    ReplyAdded,
    ReplyDeleted,
    Resolved,
    Reopened,
}

/// A permission as an activity reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PermissionRef {
    pub role: Role,
    pub grantee: Grantee,
    /// Email of a user or group grantee.
    pub email: Option<String>,
    /// Domain of a domain grantee.
    pub domain: Option<String>,
}

/// What was done (Drive Activity's `ActionDetail`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    Create(CreateKind),
    Edit,
    Rename {
        old_title: String,
        new_title: String,
    },
    /// Parent folder ids added and removed.
    Move {
        added: Vec<String>,
        removed: Vec<String>,
    },
    Delete(DeleteKind),
    Restore,
    PermissionChange {
        added: Vec<PermissionRef>,
        removed: Vec<PermissionRef>,
    },
    Comment(CommentKind),
}

impl Action {
    /// The `detail.action_detail_case` name filters use.
    fn case(&self) -> &'static str {
        match self {
            Self::Create(_) => "CREATE",
            Self::Edit => "EDIT",
            Self::Rename { .. } => "RENAME",
            Self::Move { .. } => "MOVE",
            Self::Delete(_) => "DELETE",
            Self::Restore => "RESTORE",
            Self::PermissionChange { .. } => "PERMISSION_CHANGE",
            Self::Comment(_) => "COMMENT",
        }
    }
}

/// One recorded activity.
#[derive(Debug, Clone)]
pub struct Activity {
    pub seq: u64,
    pub timestamp: DateTime<Utc>,
    pub actor: String,
    pub item_id: String,
    pub title: String,
    pub mime_type: String,
    pub action: Action,
}

/// Every activity, oldest first.
#[derive(Debug, Default)]
pub struct Store {
    pub activities: Vec<Activity>,
    seq: u64,
}

impl Store {
    /// Records that `actor` did `action` to the item `item_id` (titled `title`, of `mime_type`) now.
    pub fn record(&mut self, actor: &Identity, item_id: &str, title: &str, mime_type: &str, action: Action) {
        self.seq += 1;
        self.activities.push(Activity {
            seq: self.seq,
            timestamp: Utc::now().trunc_subsecs(3),
            actor: actor.email.trim().to_ascii_lowercase(),
            item_id: item_id.to_owned(),
            title: title.to_owned(),
            mime_type: mime_type.to_owned(),
            action,
        });
    }

    /// The activities recorded for one item, oldest first.
    pub fn for_item(&self, item_id: &str) -> Vec<&Activity> {
        self.activities.iter().filter(|a| a.item_id == item_id).collect()
    }
}

pub fn routes() -> Router<Shared> {
    Router::new().route("/v2/activity:query", post(query))
}

fn user(email: &str, who: &Identity) -> Value {
    json!({ "knownUser": { "personName": person_name(email), "isCurrentUser": email.eq_ignore_ascii_case(&who.email) } })
}

fn activity_role(role: Role) -> &'static str {
    match role {
        Role::Owner => "OWNER",
        Role::Organizer => "ORGANIZER",
        Role::FileOrganizer => "FILE_ORGANIZER",
        Role::Writer => "EDITOR",
        Role::Commenter => "COMMENTER",
        Role::Reader => "VIEWER",
    }
}

fn permission(p: &PermissionRef, who: &Identity) -> Value {
    let mut out = json!({ "role": activity_role(p.role) });
    match p.grantee {
        Grantee::User => out["user"] = user(p.email.as_deref().unwrap_or_default(), who),
        Grantee::Group => out["group"] = json!({ "email": p.email, "title": p.email }),
        Grantee::Domain => out["domain"] = json!({ "name": p.domain }),
        Grantee::Anyone => out["anyone"] = json!({}),
    }
    out
}

fn reference(world: &World, id: &str) -> Value {
    let title = world.drive.get(id).map(|f| f.name.clone()).unwrap_or_default();
    let folder = world.drive.get(id).is_some_and(|f| f.is_folder());
    let mut item = json!({ "name": format!("items/{id}"), "title": title });
    if folder {
        item["driveFolder"] = json!({ "type": "STANDARD_FOLDER" });
    } else {
        item["driveFile"] = json!({});
    }
    json!({ "driveItem": item })
}

fn detail(world: &World, action: &Action, who: &Identity) -> Value {
    match action {
        Action::Create(CreateKind::New) => json!({ "create": { "new": {} } }),
        Action::Create(CreateKind::Upload) => json!({ "create": { "upload": {} } }),
        Action::Create(CreateKind::Copy { original_id, original_title }) => json!({ "create": { "copy": {
            "originalObject": { "driveItem": {
                "name": format!("items/{original_id}"), "title": original_title, "driveFile": {} } }
        } } }),
        Action::Edit => json!({ "edit": {} }),
        Action::Rename { old_title, new_title } => {
            json!({ "rename": { "oldTitle": old_title, "newTitle": new_title } })
        }
        Action::Move { added, removed } => {
            let [added, removed] = [added, removed].map(|ids| ids.iter().map(|id| reference(world, id)).collect());
            json!({ "move": change([("addedParents", added), ("removedParents", removed)]) })
        }
        Action::Delete(kind) => json!({ "delete": { "type": match kind {
            DeleteKind::Trash => "TRASH",
            DeleteKind::PermanentDelete => "PERMANENT_DELETE",
        } } }),
        Action::Restore => json!({ "restore": { "type": "UNTRASH" } }),
        Action::PermissionChange { added, removed } => {
            let [added, removed] = [added, removed].map(|list| list.iter().map(|p| permission(p, who)).collect());
            json!({ "permissionChange": change([("addedPermissions", added), ("removedPermissions", removed)]) })
        }
        Action::Comment(kind) => json!({ "comment": { "post": { "subtype": match kind {
            CommentKind::Added => "ADDED",
            CommentKind::Deleted => "DELETED",
            CommentKind::ReplyAdded => "REPLY_ADDED",
            CommentKind::ReplyDeleted => "REPLY_DELETED",
            CommentKind::Resolved => "RESOLVED",
            CommentKind::Reopened => "REOPENED",
        } } } }),
    }
}

/// A move's or permission change's detail: each of its lists under its name, unless it is empty.
fn change(lists: [(&str, Vec<Value>); 2]) -> Map<String, Value> {
    lists
        .into_iter()
        .filter(|(_, list)| !list.is_empty())
        .map(|(name, list)| (name.to_owned(), Value::Array(list)))
        .collect()
}

fn target(world: &World, activity: &Activity, who: &Identity) -> Value {
    let file = world.drive.get(&activity.item_id);
    let title = file.map_or(activity.title.clone(), |f| f.name.clone());
    let mime = file.map_or(activity.mime_type.clone(), |f| f.mime_type.clone());
    let mut item = json!({ "name": format!("items/{}", activity.item_id), "title": title, "mimeType": mime });
    if mime == crate::drive::FOLDER {
        item["driveFolder"] = json!({ "type": "STANDARD_FOLDER" });
    } else {
        item["driveFile"] = json!({});
    }
    match file.and_then(|f| f.drive_id.clone()) {
        Some(drive_id) => {
            let drive_title = world.drive.get(&drive_id).map(|d| d.name.clone()).unwrap_or_default();
            item["owner"] = json!({ "drive": { "name": format!("drives/{drive_id}"), "title": drive_title } });
        }
        None => {
            if let Some(owner) = file.and_then(|f| f.owner()) {
                item["owner"] = json!({ "user": user(owner, who) });
            }
        }
    }
    json!({ "driveItem": item })
}

fn render(world: &World, activity: &Activity, who: &Identity) -> Value {
    let detail = detail(world, &activity.action, who);
    let timestamp = activity.timestamp.to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
    json!({
        "primaryActionDetail": detail,
        "actors": [ { "user": user(&activity.actor, who) } ],
        "actions": [ { "detail": detail, "timestamp": timestamp } ],
        "targets": [ target(world, activity, who) ],
        "timestamp": timestamp,
    })
}

/// A parsed `filter`: time bounds and action cases to keep or drop.
#[derive(Debug, Default)]
struct Filter {
    times: Vec<(String, i64)>,
    include: Vec<String>,
    exclude: Vec<String>,
}

fn bad_filter(filter: &str) -> ApiError {
    ApiError::invalid(format!("Invalid filter: {filter}"))
}

fn parse_filter(filter: &str) -> Result<Filter, ApiError> {
    let mut out = Filter::default();
    let mut rest = filter.trim();
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix("AND ") {
            rest = after.trim_start();
            continue;
        }
        let (negated, expr) = match rest.strip_prefix('-') {
            Some(after) => (true, after),
            None => (false, rest),
        };
        if let Some(after) = expr.strip_prefix("detail.action_detail_case:") {
            let (cases, remaining) = if let Some(inner) = after.strip_prefix('(') {
                let end = inner.find(')').ok_or_else(|| bad_filter(filter))?;
                (inner[..end].split_whitespace().map(str::to_owned).collect::<Vec<_>>(), &inner[end + 1..])
            } else {
                let end = after.find(char::is_whitespace).unwrap_or(after.len());
                (vec![after[..end].to_owned()], &after[end..])
            };
            if cases.is_empty() {
                return Err(bad_filter(filter));
            }
            if negated {
                out.exclude.extend(cases)
            } else {
                out.include.extend(cases)
            }
            rest = remaining.trim_start();
        } else if let Some(after) = expr.strip_prefix("time").filter(|_| !negated) {
            let after = after.trim_start();
            let op = [">=", "<=", ">", "<", "="]
                .into_iter()
                .find(|op| after.starts_with(op))
                .ok_or_else(|| bad_filter(filter))?;
            let after = after[op.len()..].trim_start();
            let (value, remaining) = if let Some(quoted) = after.strip_prefix('"') {
                let end = quoted.find('"').ok_or_else(|| bad_filter(filter))?;
                let time = DateTime::parse_from_rfc3339(&quoted[..end]).map_err(|_| bad_filter(filter))?;
                (time.timestamp_millis(), &quoted[end + 1..])
            } else {
                let end = after.find(char::is_whitespace).unwrap_or(after.len());
                (after[..end].parse::<i64>().map_err(|_| bad_filter(filter))?, &after[end..])
            };
            out.times.push((op.to_owned(), value));
            rest = remaining.trim_start();
        } else {
            return Err(bad_filter(filter));
        }
    }
    Ok(out)
}

impl Filter {
    fn keeps(&self, activity: &Activity) -> bool {
        let case = activity.action.case();
        let millis = activity.timestamp.timestamp_millis();
        (self.include.is_empty() || self.include.iter().any(|c| c == case))
            && !self.exclude.iter().any(|c| c == case)
            && self.times.iter().all(|(op, value)| match op.as_str() {
                ">=" => millis >= *value,
                "<=" => millis <= *value,
                ">" => millis > *value,
                "<" => millis < *value,
                _ => millis == *value,
            })
    }
}

const REQUEST_FIELDS: &[&str] =
    &["ancestorName", "consolidationStrategy", "filter", "itemName", "pageSize", "pageToken"];

fn item_id(name: &str, field: &str) -> Result<String, ApiError> {
    name.strip_prefix("items/")
        .filter(|id| !id.is_empty() && !id.contains('/'))
        .map(str::to_owned)
        .ok_or_else(|| ApiError::invalid(format!("Invalid {field}: {name}")))
}

/// `POST /v2/activity:query`.
async fn query(call: Call, body: Bytes) -> Reply {
    call.run(|world, who, _| query_activity(world, &who, &body))
}

fn query_activity(world: &World, who: &Identity, body: &[u8]) -> Reply {
    let request: Map<String, Value> = if body.iter().all(u8::is_ascii_whitespace) {
        Map::new()
    } else {
        match serde_json::from_slice(body) {
            Ok(Value::Object(map)) => map,
            _ => return Err(ApiError::invalid("Invalid JSON payload received.")),
        }
    };
    if let Some(unknown) = request.keys().find(|k| !REQUEST_FIELDS.contains(&k.as_str())) {
        return Err(ApiError::invalid(format!(
            "Invalid JSON payload received. Unknown name \"{unknown}\": Cannot find field."
        )));
    }
    let text = |name: &str| request.get(name).and_then(Value::as_str).filter(|s| !s.is_empty());
    let item = text("itemName").map(|n| item_id(n, "item_name")).transpose()?;
    let ancestor = text("ancestorName").map(|n| item_id(n, "ancestor_name")).transpose()?;
    if item.is_some() && ancestor.is_some() {
        return Err(ApiError::invalid("Only one of item_name and ancestor_name may be set."));
    }
    let filter = text("filter").map(parse_filter).transpose()?.unwrap_or_default();
    let page_size = match request.get("pageSize") {
        None | Some(Value::Null) => 50,
        Some(value) => value
            .as_i64()
            .or_else(|| value.as_str().and_then(|s| s.parse().ok()))
            .filter(|n| *n >= 0)
            .ok_or_else(|| ApiError::invalid("Invalid page_size."))?,
    };
    let page_size = usize::try_from(if page_size == 0 { 50 } else { page_size.min(1000) }).unwrap_or(50);
    let before: Option<(i64, u64)> = match text("pageToken") {
        Some(token) => Some(
            URL_SAFE_NO_PAD
                .decode(token)
                .ok()
                .and_then(|b| String::from_utf8(b).ok())
                .and_then(|s| {
                    let (millis, seq) = s.strip_prefix("before:")?.split_once(':')?;
                    Some((millis.parse().ok()?, seq.parse().ok()?))
                })
                .ok_or_else(|| ApiError::invalid("Invalid page token."))?,
        ),
        None => None,
    };
    let position = |a: &Activity| (a.timestamp.timestamp_millis(), a.seq);
    let me = who.email.trim().to_ascii_lowercase();
    let visible = |activity: &Activity| match world.drive.get(&activity.item_id) {
        Some(file) => world.drive.role_of(&file.id, who).is_some(),
        None => activity.actor == me,
    };
    let mut matching: Vec<&Activity> = world
        .activity
        .activities
        .iter()
        .filter(|a| before.is_none_or(|b| position(a) < b))
        .filter(|a| item.as_ref().is_none_or(|id| a.item_id == *id))
        .filter(|a| {
            ancestor.as_ref().is_none_or(|id| world.drive.get(&a.item_id).is_some() && is_below(world, &a.item_id, id))
        })
        .filter(|a| visible(a) && filter.keeps(a))
        .collect();
    matching.sort_by_key(|a| std::cmp::Reverse(position(a)));
    let more = matching.len() > page_size;
    matching.truncate(page_size);
    let mut out = Map::new();
    if !matching.is_empty() {
        out.insert("activities".into(), matching.iter().map(|a| render(world, a, who)).collect());
    }
    if more && let Some(last) = matching.last() {
        out.insert(
            "nextPageToken".into(),
            json!(URL_SAFE_NO_PAD.encode(format!("before:{}:{}", last.timestamp.timestamp_millis(), last.seq))),
        );
    }
    Ok(Json(Value::Object(out)).into_response())
}

/// Whether `id` is `ancestor` or lies below it.
fn is_below(world: &World, id: &str, ancestor: &str) -> bool {
    let mut current = Some(id.to_owned());
    let mut steps = 0;
    while let Some(node) = current {
        if node == ancestor {
            return true;
        }
        steps += 1;
        if steps > 256 {
            return false;
        }
        current = world.drive.get(&node).and_then(|f| f.parent.clone());
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filters_parse_as_documented() {
        for ok in [
            "time > 1452409200000 AND time <= 1492812924310",
            "time >= \"2016-01-10T01:02:03-05:00\"",
            "detail.action_detail_case:RENAME",
            "detail.action_detail_case:(CREATE RESTORE)",
            "-detail.action_detail_case:MOVE",
        ] {
            assert!(parse_filter(ok).is_ok(), "{ok}");
        }
        for bad in ["time >", "detail.action_detail_case:(", "nonsense", "time > \"yesterday\""] {
            assert!(parse_filter(bad).is_err(), "{bad}");
        }
    }
}
